"""Training against independent truths: the empirical conditional
distribution of a generated corpus (what the full softmax converges to),
planted topic structure, word2vec.c's counting rules, seeds."""

import _thread
import os
import threading
import time

import numpy as np
import pytest

from wv_engine import CorpusError, EncodedCorpus, Vocabulary, Word2Vec, _word2vec


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


# ---- convergence to the optimum --------------------------------------------
V_PAIRS = 6
WORDS = [f"w{i}" for i in range(V_PAIRS)]


@pytest.fixture(scope="module")
def pair_corpus():
    """Two-word sentences drawn from a symmetric joint distribution: with
    window 1, skip-gram must learn P(centre | context), which the empirical
    pair counts give exactly."""
    rng = np.random.default_rng(0)
    J = rng.random((V_PAIRS, V_PAIRS)) ** 3 + 0.02
    J = (J + J.T) / (J + J.T).sum()
    pairs = rng.choice(V_PAIRS * V_PAIRS, size=20000, p=J.ravel())
    corpus = [[WORDS[p // V_PAIRS], WORDS[p % V_PAIRS]] for p in pairs]
    C = np.zeros((V_PAIRS, V_PAIRS))
    for p in pairs:
        i, o = divmod(p, V_PAIRS)
        C[i, o] += 1
        C[o, i] += 1
    return corpus, C / C.sum(1, keepdims=True)


def model_conditional(m):
    """P(centre word | context word) implied by the trained model, rows and
    columns in WORDS order."""
    idx = [m.vocab.index[w] for w in WORDS]
    X = m.input_vectors[idx].astype(np.float64)
    if m.loss == "softmax":
        S = X @ m.output_vectors[idx].astype(np.float64).T
        P = np.exp(S - S.max(1, keepdims=True))
        return P / P.sum(1, keepdims=True)
    if m.loss == "ns":
        # optimum of the NS objective when a negative equal to the positive is
        # skipped: odds P/(1-P) = k * Pn(o) * exp(x.y)
        noise = m.vocab.noise_distribution()[idx]
        r = m.negative * noise[None, :] * np.exp(X @ m.output_vectors[idx].astype(np.float64).T)
        return r / (1 + r)
    lengths, codes, points = m.vocab.huffman()
    out = m.output_vectors.astype(np.float64)
    P = np.ones((V_PAIRS, V_PAIRS))
    for b, wo in enumerate(idx):
        for d in range(lengths[wo]):
            f = X @ out[points[wo, d]]
            P[:, b] *= sigmoid(-f) if codes[wo, d] else sigmoid(f)
    return P


@pytest.mark.parametrize("loss,shared", [("softmax", False), ("hs", False), ("ns", False), ("ns", True)])
def test_converges_to_the_empirical_conditional(pair_corpus, loss, shared):
    corpus, target = pair_corpus
    m = Word2Vec(loss=loss, dim=V_PAIRS, window=1, shrink_windows=False, sample=0, min_count=1,
                 epochs=20, threads=1, alpha=0.05, negative=15, shared_negatives=shared)
    m.fit(corpus, progress=False)
    P = model_conditional(m)
    tv = 0.5 * np.abs(P - target).sum(1).max()
    unigram = target.mean(0)
    baseline = 0.5 * np.abs(unigram[None, :] - target).sum(1).max()
    assert baseline > 0.3
    assert tv < 0.04, f"{loss}: total variation {tv:.3f} from the optimum"
    assert np.allclose(P.sum(1), 1, atol=0.05)


# ---- planted structure --------------------------------------------------------
@pytest.mark.parametrize("arch,loss,shared", [("skipgram", "ns", False), ("cbow", "ns", False),
                                               ("skipgram", "hs", False), ("cbow", "hs", False),
                                               ("skipgram", "ns", True)])
def test_recovers_planted_topics(topics_corpus, topic_accuracy, arch, loss, shared):
    topics, corpus = topics_corpus
    m = Word2Vec(arch=arch, loss=loss, dim=20, window=4, min_count=1, sample=0, epochs=5, threads=2,
                 shared_negatives=shared)
    stats = m.fit(corpus, progress=False).last_stats
    assert topic_accuracy(m.vectors, topics) > 0.9
    assert stats.epoch_loss[-1] < stats.epoch_loss[0]
    assert all(isinstance(x, float) for x in stats.epoch_loss)


def test_file_and_iterable_give_the_same_model(topics_corpus, text_file):
    _, corpus = topics_corpus
    path = text_file([" ".join(s) for s in corpus])
    a = Word2Vec(dim=10, min_count=1, epochs=1, threads=1).fit(corpus, progress=False)
    b = Word2Vec(dim=10, min_count=1, epochs=1, threads=1).fit(path, progress=False)
    assert a.vocab.words == b.vocab.words
    np.testing.assert_array_equal(a.input_vectors, b.input_vectors)


# ---- word2vec.c's counting rules ---------------------------------------------
def test_long_lines_are_cut_into_max_sentence_length_chunks(text_file):
    words = [f"x{i % 50}" for i in range(2500)]
    path = text_file([" ".join(words)])
    m = Word2Vec(window=1, shrink_windows=False, sample=0, min_count=1, epochs=1, threads=1)
    stats = m.fit(path, progress=False).last_stats
    # sentences of 1000, 1000 and 500 words: each gives 2 * (len - 1) pairs
    assert stats.epoch_stats[0].examples == 2 * (999 + 999 + 499)
    assert stats.epoch_stats[0].words == 2500  # nothing dropped


def test_a_newline_ends_the_context(text_file):
    path = text_file(["a b c", "d e", "f"])
    m = Word2Vec(window=5, shrink_windows=False, sample=0, min_count=1, epochs=1, threads=1)
    stats = m.fit(path, progress=False).last_stats
    assert stats.epoch_stats[0].examples == 3 * 2 + 2 * 1 + 0


def test_subsampling_keeps_words_at_the_word2vec_c_rate():
    counts = np.array([600_000, 30_000], dtype=np.int64)
    vocab = Vocabulary(["often", "rare"], counts)
    rng = np.random.default_rng(3)
    ids = rng.permutation(np.repeat(np.arange(2, dtype=np.int32), counts))
    corpus = EncodedCorpus(ids=ids, tokens=len(ids), words=len(ids), oov=0, sentences=1)
    m = Word2Vec(arch="cbow", sample=1e-3, min_count=1, epochs=1, threads=1, window=2, dim=4)
    m.build_vocab(vocab=vocab)
    stats = m.train(corpus, progress=False)
    keep = vocab.keep_probabilities(1e-3)
    expected = float((counts * keep).sum())
    sd = float(np.sqrt((counts * keep * (1 - keep)).sum()))  # kept words: a sum of Bernoulli draws
    # CBOW makes one prediction per kept word (each has a kept neighbour here)
    assert abs(stats.epoch_stats[0].examples - expected) < 4 * sd
    assert 4 * sd < 0.03 * expected  # tight enough to tell word2vec.c's rate from another
    assert expected < 0.5 * len(ids)  # subsampling really bites in this corpus


# ---- seeds, continued training, interrupts ---------------------------------------
@pytest.mark.parametrize("shared", [False, True])
def test_single_thread_runs_are_bit_identical(topics_corpus, shared):
    _, corpus = topics_corpus
    runs = [Word2Vec(dim=16, min_count=1, epochs=2, threads=1, seed=s, shared_negatives=shared).fit(
        corpus, progress=False) for s in (7, 7, 8)]
    np.testing.assert_array_equal(runs[0].input_vectors, runs[1].input_vectors)
    np.testing.assert_array_equal(runs[0].output_vectors, runs[1].output_vectors)
    assert not np.array_equal(runs[0].input_vectors, runs[2].input_vectors)


def _encoded(parts, vocab_size):
    """Sentences of word numbers as a Vocabulary (word "wN" for number N) and
    the EncodedCorpus of its ids, each sentence ended by -1."""
    ids = np.concatenate([np.append(p, -1) for p in parts]).astype(np.int32)
    counts = np.bincount(ids[ids >= 0], minlength=vocab_size)
    order = np.argsort(-counts, kind="stable")
    remap = np.empty(vocab_size, np.int32)
    remap[order] = np.arange(vocab_size)  # ids by descending count, as a Vocabulary holds them
    ids = np.where(ids >= 0, remap[np.maximum(ids, 0)], -1).astype(np.int32)
    vocab = Vocabulary([f"w{i}" for i in order], counts[order])
    words = int((ids >= 0).sum())
    return vocab, EncodedCorpus(ids=ids, tokens=words, words=words, oov=0, sentences=len(parts))


def _id_corpus(lengths, vocab_size=500, seed=0):
    """Sentences of the given lengths of random ids."""
    rng = np.random.default_rng(seed)
    return _encoded([rng.integers(0, vocab_size, n) for n in lengths], vocab_size)


@pytest.mark.parametrize("threads,sentences", [(1, 12_000), (3, 12_000), (8, 12_000), (1, 50_000), (3, 50_000)])
def test_every_sentence_is_trained_once_whatever_the_thread_count(threads, sentences):
    """Threads claim chunks of the id stream as they go, in an order that
    interleaves at least 16 regions of the corpus. With fixed windows and no
    subsampling, skip-gram's predictions are exactly the in-sentence pairs
    within the window, counted here from the sentence lengths: a chunk
    skipped or trained twice, or a sentence cut at a chunk boundary, would
    change the count. 12,000 sentences are ~22 chunks (16 regions of 2
    chunks, the last ones empty), 50,000 are ~92 (16 regions of 6, the last
    one short)."""
    lengths = np.random.default_rng(3).integers(1, 60, sentences)
    vocab, corpus = _id_corpus(lengths)
    window = 3
    pairs = {n: sum(min(i + window, n - 1) - max(i - window, 0) for i in range(n)) for n in range(1, 60)}
    expected = int(sum(pairs[int(n)] for n in lengths))
    m = Word2Vec(dim=8, min_count=1, sample=0, window=window, shrink_windows=False, negative=1,
                 epochs=2, threads=threads, shared_negatives=threads != 3)
    m.build_vocab(vocab=vocab)
    m.train(corpus, progress=False)
    for es in m.last_stats.epoch_stats:
        assert es.words == corpus.words
        assert es.examples == expected


CHUNK_IDS = 16384  # csrc/w2v_epoch.c: the unit a thread claims


def _chunk_words_corpus(chunks=12, per_chunk=20):
    """Sentences of 15 words + the end (16 ids), 1,024 to a chunk: chunk c's
    sentences use only words 1 + c * per_chunk ... (c + 1) * per_chunk, but
    for its first sentence, all word 0 (a chunk starts after the first
    sentence end in it, so that sentence is trained with the chunk before)."""
    rng = np.random.default_rng(8)
    parts = []
    for c in range(chunks):
        parts.append(np.zeros(15, np.int64))
        parts += [rng.choice(per_chunk, 15, replace=False) + 1 + c * per_chunk
                  for _ in range(CHUNK_IDS // 16 - 1)]
    return _encoded(parts, 1 + chunks * per_chunk)


def _chunks_trained(regions, last_claims, chunks=12, per_chunk=20):
    """The chunks whose words' input rows moved when only the last
    `last_claims` claims of an epoch over `regions` regions were trained."""
    vocab, corpus = _chunk_words_corpus(chunks, per_chunk)
    m = Word2Vec(dim=8, min_count=1, sample=0, epochs=1, threads=1, seed=2)
    m.build_vocab(vocab=vocab)
    before = m.input_vectors.copy()
    core = m._make_core()
    core.set_corpus(corpus.ids, corpus.words, 0.025, 0.0001)
    per = -(-chunks // regions)
    core.start_epoch(0, 1, regions * per - last_claims, regions)
    core.join_epoch()
    assert core.regions == regions and core.claims == regions * per
    moved = np.any(m.input_vectors != before, axis=1)
    number = {i: int(w[1:]) for i, w in enumerate(m.vocab.words)}
    return sorted({(number[i] - 1) // per_chunk for i in np.flatnonzero(moved) if number[i] > 0})


@pytest.mark.parametrize("regions,last_claims,chunks", [
    (1, 3, [9, 10, 11]),         # one region: the corpus in order, so the last claims are its end
    (2, 2, [5, 11]),             # two halves side by side: each half's last chunk
    (4, 4, [2, 5, 8, 11]),       # four regions of 3 chunks: the last chunk of each
    (4, 5, [2, 5, 8, 10, 11]),   # ... and the chunk before the last of region 3, the claim before those
    (5, 5, [2, 5, 8, 11]),       # five regions of 3 chunks (the fifth is past the end): its claim is skipped
])
def test_an_epoch_reads_its_regions_side_by_side_each_from_start_to_end(regions, last_claims, chunks):
    """Claims go round the regions, taking the next chunk of each, so the
    epoch's last claims are the ends of the regions. A planted corpus whose
    every chunk has its own words shows which chunks the last claims
    trained (an epoch started at a later claim, as a resume does): only
    those chunks' words move."""
    assert _chunks_trained(regions, last_claims) == chunks


# small windows and few negatives: the region tests train ~1M words 5 times over (also under ASan in CI)
REGION_RUNS = {"dim": 8, "window": 2, "negative": 2, "min_count": 1, "sample": 0, "threads": 1, "seed": 2}


def _regions_trained(vocab, corpus, epochs=1, **kw):
    """A model trained by Word2Vec.train with these settings."""
    m = Word2Vec(epochs=epochs, **REGION_RUNS, **kw)
    m.build_vocab(vocab=vocab)
    m.train(corpus, progress=False)
    return m


def _regions_by_hand(vocab, corpus, schedule, regions, loss="ns"):
    """The input vectors after epochs started by hand, epoch e on regions[e],
    under the schedule a trained model used."""
    m = Word2Vec(epochs=len(regions), loss=loss, **REGION_RUNS)
    m.build_vocab(vocab=vocab)
    core = m._make_core()
    core.set_corpus(corpus.ids, schedule["epochs"] * corpus.words, schedule["alpha"], schedule["min_alpha"], 0,
                    schedule["linear_decay"])
    for e, r in enumerate(regions):
        core.start_epoch(e, 1, 0, r)
        core.join_epoch()
        assert core.regions == r
    return m.input_vectors


def test_the_regions_setting_reaches_the_epoch_and_defaults_to_16():
    """Word2Vec(regions=R) trains exactly as an epoch started on R regions;
    None is max(threads, 16) regions."""
    vocab, corpus = _chunk_words_corpus(chunks=6)
    three = _regions_trained(vocab, corpus, regions=3)
    assert three.regions == 3 and three.config()["regions"] == 3
    np.testing.assert_array_equal(three.input_vectors, _regions_by_hand(vocab, corpus, three._schedule, [3]))
    assert not np.array_equal(three.input_vectors, _regions_by_hand(vocab, corpus, three._schedule, [16]))
    default = _regions_trained(vocab, corpus)
    np.testing.assert_array_equal(default.input_vectors, _regions_by_hand(vocab, corpus, default._schedule, [16]))


@pytest.mark.heavy_under_sanitizers  # test_the_regions_setting_reaches_the_epoch_and_defaults_to_16 runs regions there
@pytest.mark.parametrize("loss,default_order,other", [("hs", [16, 17], [16, 16]), ("ns", [16, 16], [16, 17])])
def test_with_hs_each_epoch_takes_one_region_more_unless_the_count_is_given(loss, default_order, other):
    """By default epoch e reads max(threads, 16) regions, plus e with
    hierarchical softmax, so that there the same chunk meets other
    neighbours at another point of each epoch; a count given holds for every
    epoch. Checked against epochs started by hand on 33 chunks (3 to a
    region at 16 regions, 2 at 17: another order)."""
    vocab, corpus = _chunk_words_corpus(chunks=33)
    default = _regions_trained(vocab, corpus, epochs=2, loss=loss)

    def by_hand(model, regions):
        return _regions_by_hand(vocab, corpus, model._schedule, regions, loss)

    np.testing.assert_array_equal(default.input_vectors, by_hand(default, default_order))
    assert not np.array_equal(default.input_vectors, by_hand(default, other))
    given = _regions_trained(vocab, corpus, epochs=2, loss=loss, regions=16)
    np.testing.assert_array_equal(given.input_vectors, by_hand(given, [16, 16]))


def test_what_is_drawn_does_not_depend_on_the_thread_count():
    """Each chunk has its own random stream: subsampling and window draws,
    and so the number of predictions, are the same at 1 and at 4 threads,
    also where lines longer than a chunk are cut."""
    lengths = np.concatenate([np.random.default_rng(4).integers(1, 80, 6_000), [70_000, 40_000]])
    vocab, corpus = _id_corpus(lengths, seed=1)
    examples = []
    for threads in (1, 4):
        m = Word2Vec(dim=8, min_count=1, sample=1e-3, epochs=2, threads=threads, seed=5)
        m.build_vocab(vocab=vocab)
        m.train(corpus, progress=False)
        examples.append([es.examples for es in m.last_stats.epoch_stats])
    assert examples[0] == examples[1]
    assert examples[0][0] != examples[0][1]  # the epochs draw differently


@pytest.mark.parametrize("arch,shared", [("skipgram", True), ("skipgram", False), ("cbow", False)])
def test_every_centre_word_gets_fresh_negatives(arch, shared):
    """Negatives are drawn a centre word or a pair ahead (so that their rows can be
    prefetched). One sentence of 2,000 ids over 10 words, a vocabulary of 500
    equally frequent words: fresh draws for each centre word touch every
    output row (10,000 uniform draws leave a row out with odds e^-20); a set
    left over from an earlier word or sentence would touch a handful."""
    vocab_size = 500
    vocab = Vocabulary([f"w{i}" for i in range(vocab_size)], np.full(vocab_size, 10))
    ids = np.append(np.random.default_rng(6).integers(0, 10, 2000), -1).astype(np.int32)
    corpus = EncodedCorpus(ids=ids, tokens=2000, words=2000, oov=0, sentences=1)
    m = Word2Vec(arch=arch, dim=8, min_count=1, sample=0, window=2, negative=5, epochs=1, threads=1,
                 shared_negatives=shared, max_sentence_length=2000)
    m.build_vocab(vocab=vocab)
    m.train(corpus, progress=False)
    touched = int(np.any(m.output_vectors != 0, axis=1).sum())
    assert touched == vocab_size


def test_continued_training_on_another_corpus(topics_corpus, topic_accuracy):
    topics, corpus = topics_corpus
    m = Word2Vec(dim=16, min_count=1, epochs=1, threads=2).fit(corpus[:200], progress=False)
    words = list(m.vocab.words)
    before = m.input_vectors.copy()
    vectors = m.vectors
    first = vectors.most_similar(topics[0][0], topn=3)
    stats = m.train(corpus, epochs=4, progress=False)
    assert stats.epochs == 4 and m.epochs_trained == 5
    assert m.vocab.words == words
    assert not np.array_equal(before, m.input_vectors)
    assert vectors.most_similar(topics[0][0], topn=3) != first  # the cache saw the update
    assert topic_accuracy(m.vectors, topics) > 0.9


def _long_random_run(seed, epochs):
    """A model and 3M random ids over 1,000 words: seconds per epoch."""
    ids = np.random.default_rng(seed).integers(0, 1000, 3_000_000).astype(np.int32)
    vocab = Vocabulary([f"w{i}" for i in range(1000)], np.sort(np.bincount(ids, minlength=1000))[::-1])
    m = Word2Vec(dim=100, min_count=1, sample=0, epochs=epochs, threads=2, window=10)
    m.build_vocab(vocab=vocab)
    return m, ids


def test_ctrl_c_stops_training_and_leaves_a_usable_model(sigint_raises):
    m, ids = _long_random_run(0, epochs=50)
    n = len(ids)
    timer = threading.Timer(0.5, _thread.interrupt_main)
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        m.train(EncodedCorpus(ids=ids, tokens=n, words=n, oov=0, sentences=1), progress=False)
    timer.cancel()
    assert m.last_stats.interrupted
    assert m.last_stats.epochs < 50
    assert np.isfinite(m.input_vectors).all()
    # the model trains again afterwards
    m.train(EncodedCorpus(ids=ids[:20000], tokens=20000, words=20000, oov=0, sentences=1),
            epochs=1, progress=False)


def test_ctrl_c_just_after_the_threads_start_still_stops_them():
    """The interrupt can land right after start_epoch returned, before the
    wait loop: the epoch runner must still stop and join the workers before
    the exception leaves it (they would go on writing the matrices)."""
    from wv_engine.epochs import run_epoch

    m, ids = _long_random_run(2, epochs=1)
    core = m._make_core()
    core.set_corpus(ids, len(ids), 0.025, 0.0001)

    def start_then_interrupted():
        core.start_epoch(0, 2)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_epoch(core, start_then_interrupted, lambda done: None)
    assert not core.running
    assert core.words_done < len(ids)  # stopped part-way, not run to the end


def test_waiting_on_an_epoch_wakes_when_the_workers_finish():
    """The epoch runner waits on the workers instead of sleeping in steps:
    wait() reports a running epoch, and returns as soon as the last worker
    is done (here: stopped), not when its time limit runs out."""
    m, ids = _long_random_run(1, epochs=1)
    n = len(ids)
    core = m._make_core()
    core.set_corpus(ids, 20 * n, 0.025, 0.0001)
    core.start_epoch(0, 2)
    try:
        assert core.wait(0) is False and core.running
        core.request_stop()
        t0 = time.monotonic()
        assert core.wait(300) is True
        assert time.monotonic() - t0 < 60  # woken by the workers, not by the 300 s limit
        assert not core.running
    finally:
        core.request_stop()
        core.join_epoch()
    assert core.words_done < n  # stopped part-way


def test_a_worker_error_is_raised_in_python(topics_corpus):
    _, corpus = topics_corpus
    m = Word2Vec(loss="softmax", dim=50, min_count=1, sample=0, epochs=3, threads=2, alpha=9.0)
    with pytest.raises(FloatingPointError, match="diverged"):
        m.fit(corpus, progress=False)


def test_callbacks_run_after_each_epoch(topics_corpus):
    _, corpus = topics_corpus
    seen = []
    Word2Vec(dim=8, min_count=1, epochs=3, threads=1).fit(
        corpus, progress=False, callbacks=[lambda model, st: seen.append((st.epoch, st.loss))])
    assert [e for e, _ in seen] == [0, 1, 2]


def test_progress_shows_the_epochs_running_loss(monkeypatch):
    # The bar's loss is the epoch's mean so far, as the threads publish it:
    # its last value mid-epoch is close to the epoch's final mean loss.
    import wv_engine.progress as w2v

    rng = np.random.default_rng(0)
    corpus = [[f"w{i}" for i in rng.integers(0, 300, 20)] for _ in range(20000)]
    shown = []
    original = w2v.Progress.update
    monkeypatch.setattr(w2v.Progress, "update",
                        lambda self, done, **postfix: (shown.append(postfix.get("loss")),
                                                       original(self, done, **postfix))[-1])
    model = Word2Vec(dim=20, min_count=1, epochs=1, threads=2, sample=0)
    model.fit(corpus, progress=False)
    losses = [float(x) for x in shown if x is not None]
    assert losses, "no running loss was shown"
    assert abs(losses[-1] - model.history[-1].loss) < 0.05 * model.history[-1].loss


def test_the_schedule_sets_where_the_learning_rate_ends(topics_corpus):
    """With negative sampling by default the rate falls on a line from alpha
    to min_alpha = alpha / (2 x epochs); with schedule='word2vec' (HS's
    default) as word2vec.c: alpha x (1 - progress) floored at min_alpha =
    alpha x 1e-4; a min_alpha given wins. Read back from the rate the core
    reached at the end of each epoch."""
    _, corpus = topics_corpus
    ends = {}
    for name, kw in (("epochs", {}), ("word2vec", dict(schedule="word2vec")),
                     ("floored", dict(schedule="word2vec", min_alpha=0.015)), ("line", dict(min_alpha=0.015))):
        m = Word2Vec(dim=8, min_count=1, epochs=4, threads=1, alpha=0.04, **kw)
        m.fit(corpus, progress=False)
        ends[name] = (m.min_alpha, [e.alpha for e in m.history])
    assert ends["epochs"][0] == pytest.approx(0.04 / 8) and ends["word2vec"][0] == pytest.approx(0.04 * 1e-4)
    quarters = np.arange(1, 5) / 4
    for name in ("epochs", "line"):  # a quarter further down the line from 0.04 to the end each epoch
        end, alphas = ends[name]
        np.testing.assert_allclose(alphas, 0.04 - (0.04 - end) * quarters, rtol=0.02, atol=1e-5)
    for name in ("word2vec", "floored"):  # a quarter further down the line to 0, or on the floor
        end, alphas = ends[name]
        np.testing.assert_allclose(alphas, np.maximum(0.04 * (1 - quarters), end), rtol=0.02, atol=1e-5)
    assert Word2Vec(schedule="word2vec").config()["schedule"] == "word2vec"
    # HS takes word2vec.c's line by default, CBOW HS floored at alpha / (3 x epochs); by name, word2vec.c's floor
    assert Word2Vec(loss="hs").schedule == "word2vec" and Word2Vec(loss="hs").min_alpha == pytest.approx(0.025e-4)
    assert Word2Vec(loss="hs", epochs=1, arch="cbow").min_alpha == pytest.approx(0.05 / 3)
    assert Word2Vec(loss="hs", arch="cbow", schedule="word2vec").min_alpha == pytest.approx(0.05e-4)
    assert Word2Vec(loss="softmax").min_alpha == pytest.approx(0.025e-4)
    assert Word2Vec(loss="ns").schedule == "epochs"


@pytest.mark.parametrize("init_range", [None, 0.5, 3.0])
def test_input_vectors_start_across_the_init_range(topics_corpus, init_range):
    """Input rows fill [-r/dim, r/dim) (r = 1.0 by default, gensim's; 0.5 is
    word2vec.c's and draws exactly what uniform_rows draws); output rows start
    at zero."""
    _, corpus = topics_corpus
    kw = {} if init_range is None else dict(init_range=init_range)
    m = Word2Vec(dim=16, min_count=1, threads=1, seed=5, **kw).build_vocab(corpus)
    r = 1.0 if init_range is None else init_range
    assert m.init_range == r and m.config()["init_range"] == r
    top = np.abs(m.input_vectors).max()
    assert 0.99 * r / 16 < top < r / 16
    assert np.all(m.output_vectors == 0)
    if r == 0.5:
        np.testing.assert_array_equal(m.input_vectors, _word2vec.uniform_rows(len(m.vocab), 16, seed=5))


# ---- bad input ---------------------------------------------------------------
@pytest.mark.parametrize("kwargs,match", [
    (dict(dim=0), "dim"), (dict(window=0), "window"), (dict(negative=0), "negative"),
    (dict(epochs=0), "epochs"), (dict(threads=0), "threads"), (dict(sample=-1e-3), "sample"),
    (dict(alpha=-0.1), "alpha"), (dict(arch="glove"), "arch"), (dict(loss="nce"), "loss"),
    (dict(min_count=-1), "min_count"), (dict(schedule="cosine"), "schedule"),
    (dict(init_range=0), "init_range"), (dict(init_range=-1.0), "init_range"),
    (dict(init_range=float("nan")), "init_range"), (dict(init_range=float("inf")), "init_range"),
    (dict(regions=0), "regions"), (dict(regions=2.5), "regions"), (dict(regions=-4), "regions"),
])
def test_bad_settings_are_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Word2Vec(**kwargs)


def test_missing_and_empty_files(tmp_path, text_file):
    with pytest.raises(CorpusError, match="not found"):
        Word2Vec().fit(str(tmp_path / "nope.txt"))
    with pytest.raises(CorpusError, match="no words"):
        Word2Vec().fit(text_file([], data=b" \n\n"))


def test_vocabulary_empty_after_min_count_says_how_many_words(text_file):
    with pytest.raises(ValueError, match=r"min_count=5 left no words: the corpus has 3 distinct"):
        Word2Vec(min_count=5).fit(text_file(["a b c a"]))


def test_one_shot_generator_is_rejected_clearly():
    gen = (s for s in [["a", "b"]])
    with pytest.raises(CorpusError, match="one-shot"):
        Word2Vec(min_count=1).fit(gen)
    with pytest.raises(CorpusError, match="list of tokens"):
        Word2Vec(min_count=1).fit(["a b c"])


def test_non_utf8_bytes_are_kept_losslessly(text_file, tmp_path):
    data = b"caf\xe9 \xff\xfe ok " * 20 + b"\n"
    m = Word2Vec(dim=4, min_count=1, epochs=1, threads=1).fit(text_file([], data=data), progress=False)
    raw = {w.encode("utf-8", "surrogateescape") for w in m.vocab.words}
    assert raw == {b"caf\xe9", b"\xff\xfe", b"ok"}
    out = tmp_path / "v.bin"
    m.vectors.save(str(out), format="word2vec-bin")
    assert b"caf\xe9 " in out.read_bytes()


def test_softmax_refuses_a_large_vocabulary():
    vocab = Vocabulary([f"w{i}" for i in range(30000)], np.full(30000, 5))
    with pytest.raises(ValueError, match="softmax"):
        Word2Vec(loss="softmax").build_vocab(vocab=vocab)


def test_ids_on_disk_train_exactly_as_ids_in_memory(tmp_path, topics_corpus):
    """Ids streamed from their file chunk by chunk (bounded memory) against
    the same ids in memory: one thread, one seed, the same vectors."""
    _, corpus = topics_corpus
    big = corpus * 12  # several chunks of ids
    results = []
    for on_disk in (False, True):
        model = Word2Vec(dim=8, epochs=2, threads=1, seed=4, min_count=1, ids_on_disk=on_disk, tmp_dir=str(tmp_path))
        model.build_vocab(big)
        encoded = model.encode(big)
        assert (encoded.file is not None) == on_disk and len(encoded.ids) > 3 * 16384
        model.train(encoded)
        results.append(model.input_vectors.copy())
    np.testing.assert_array_equal(results[0], results[1])
    assert os.listdir(tmp_path) == []  # the ids file was never visible


def test_a_damaged_ids_file_stops_training_with_a_clear_error(tmp_path, topics_corpus):
    _, corpus = topics_corpus
    model = Word2Vec(dim=8, epochs=1, threads=2, min_count=1, ids_on_disk=True, tmp_dir=str(tmp_path))
    model.build_vocab(corpus)
    encoded = model.encode(corpus)
    os.pwrite(encoded.file.fileno(), np.array([10**6], np.int32).tobytes(), 4 * 100)
    with pytest.raises(ValueError, match="encoded corpus file holds ids outside the vocabulary"):
        model.train(encoded)


@pytest.mark.parametrize("arch,loss,shared", [("skipgram", "ns", False), ("skipgram", "ns", True),
                                              ("cbow", "ns", False), ("skipgram", "hs", False), ("cbow", "hs", False)])
def test_an_input_lock_of_zero_freezes_a_words_vector(topics_corpus, arch, loss, shared):
    """input_lock (gensim's vectors_lockf): a word with factor 0 keeps its
    input vector bit for bit, in every kernel; the others train."""
    _, corpus = topics_corpus
    model = Word2Vec(arch=arch, loss=loss, shared_negatives=shared, dim=8, epochs=1, threads=2, min_count=1)
    model.build_vocab(corpus)
    lock = np.ones(len(model.vocab), np.float32)
    lock[[0, 3, 7]] = 0.0
    model.input_lock = lock
    before = model.input_vectors.copy()
    model.train(corpus)
    np.testing.assert_array_equal(model.input_vectors[[0, 3, 7]], before[[0, 3, 7]])
    assert (model.input_vectors[[1, 2, 4]] != before[[1, 2, 4]]).all(axis=1).all()


@pytest.mark.parametrize("shared", [False, True])
def test_an_input_lock_scales_the_update_of_the_locked_word(shared):
    """Sentence "a b", window 1: a's input vector is updated once, last
    (predicting b), so its change under factor 0.5 is half its change under 1."""
    def change(factor):
        model = Word2Vec(dim=4, window=1, negative=2, sample=0, epochs=1, threads=1, min_count=1, seed=5,
                         shared_negatives=shared, shrink_windows=False)
        model.build_vocab([["a", "b"]])
        model.output_vectors[:] = np.random.default_rng(1).standard_normal(model.output_vectors.shape)
        model.input_lock = np.array([factor if w == "a" else 1.0 for w in model.vocab.words], np.float32)
        before = model.input_vectors[model.vocab.index["a"]].copy()
        model.train([["a", "b"]])
        return model.input_vectors[model.vocab.index["a"]] - before

    full = change(1.0)
    assert np.abs(full).max() > 1e-4
    np.testing.assert_allclose(change(0.5), 0.5 * full, rtol=1e-5, atol=1e-9)


def test_a_bad_input_lock_is_named(topics_corpus):
    _, corpus = topics_corpus
    model = Word2Vec(dim=8, epochs=1, threads=1, min_count=1).fit(corpus)
    model.input_lock = np.ones(3, np.float32)
    with pytest.raises(ValueError, match="input_lock has 3 factors for a vocabulary of"):
        model.train(corpus)
    model.input_lock = np.full(len(model.vocab), np.nan, np.float32)
    with pytest.raises(ValueError, match="NaN"):
        model.train(corpus)
    model.input_lock = [0.0]  # one factor for every word
    before = model.input_vectors.copy()
    model.train(corpus)
    np.testing.assert_array_equal(model.input_vectors, before)


def test_an_input_lock_is_refused_with_subwords(tmp_path):
    from wv_engine import FastText

    text = tmp_path / "c.txt"
    text.write_text("alpha beta gamma delta\n" * 50)
    model = FastText(dim=8, epochs=1, threads=1, min_count=1, bucket=1000)
    model.build_vocab(str(text))
    model.input_lock = np.zeros(len(model.vocab), np.float32)
    with pytest.raises(NotImplementedError, match="subwords"):
        model.train(str(text))
