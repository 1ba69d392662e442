"""FastText's output layers beyond negative sampling: hierarchical softmax
(loss="hs") and the exact softmax (loss="softmax"). One step against a
numerical gradient, a sentence of training against a numpy model of
fastText's update, two threads, and fastText's .bin both ways (gensim's
reader included; fastText's reading of an hs file from its own tree). The
planted morphology and seeded resumption with them are in test_fasttext.py."""

import numpy as np
import pytest

from wv_engine import FastText
from wv_engine.fasttext import read_fasttext_bin
from wv_engine.gensim.fasttext import load_facebook_model
from wv_engine.settings import threads_for


def small(**kw):
    cfg = dict(loss="hs", dim=24, min_count=1, bucket=5000, threads=1, epochs=3, sample=0, seed=3, window=3)
    cfg.update(kw)
    return FastText(**cfg)


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def test_an_hs_step_moves_every_row_by_the_gradient_of_the_mean(truth):
    """Each of the mean's rows gets alpha times the gradient of the target's
    log-likelihood along its Huffman path (by finite differences in
    float64), and each node on the path moves by alpha x (1 - code -
    sigmoid(h . node)) x h."""
    _, lines = truth.morphology(sentences=200)
    model = small(epochs=1).fit(lines, progress=False)
    rng = np.random.default_rng(1)
    model.output_vectors[...] = rng.normal(0, 0.3, model.output_vectors.shape).astype(np.float32)
    core = model._make_core()
    V = len(model.vocab)
    lengths, codes, points = model.vocab.huffman()
    target, alpha = 7, 0.1
    path, code = points[target, :lengths[target]], codes[target, :lengths[target]].astype(np.float64)
    assert len(path) >= 3
    rows = np.array([2, V + 7, V + 99, V + 7], dtype=np.int32)  # a repeated row gets the gradient twice
    out_before = model.output_vectors.copy()
    nodes = out_before[path].astype(np.float64)

    def loglik(x):  # code 0: sigmoid(x . node), code 1: its complement (word2vec.c's convention)
        return np.sum(np.log(sigmoid((1 - 2 * code) * (nodes @ x))))

    h = truth.check_subword_step(model, rows, loglik, lambda: core.subword_step(rows, target, [], alpha), alpha,
                                 rtol=0.02)
    g = (1 - code - sigmoid(nodes @ h)) * alpha
    np.testing.assert_allclose(model.output_vectors[path] - out_before[path], g[:, None] * h, rtol=0.02, atol=2e-4)
    off_path = np.ones(len(out_before), bool)
    off_path[path] = False
    assert np.array_equal(model.output_vectors[off_path], out_before[off_path])
    with pytest.raises(ValueError, match="negatives"):
        core.subword_step(rows, target, [1], alpha)  # HS takes none


def test_a_softmax_step_moves_every_row_by_the_gradient_of_the_mean(truth):
    """The exact softmax: each of the mean's rows gets alpha times the
    gradient of log softmax(O h)[target] (finite differences), and every
    output row j moves by alpha x ([j == target] - p_j) x h."""
    _, lines = truth.morphology(sentences=200)
    model = small(loss="softmax", epochs=1).fit(lines, progress=False)
    rng = np.random.default_rng(2)
    model.output_vectors[...] = rng.normal(0, 0.3, model.output_vectors.shape).astype(np.float32)
    core = model._make_core()
    V = len(model.vocab)
    rows = np.array([3, V + 11, V + 11, V + 400], dtype=np.int32)
    target, alpha = 4, 0.1
    out_before = model.output_vectors.astype(np.float64)

    def loglik(x):
        scores = out_before @ x
        return scores[target] - scores.max() - np.log(np.exp(scores - scores.max()).sum())

    h = truth.check_subword_step(model, rows, loglik, lambda: core.subword_step(rows, target, [], alpha), alpha,
                                 rtol=1e-3)
    p = np.exp(out_before @ h)
    g = (np.eye(V)[target] - p / p.sum()) * alpha
    np.testing.assert_allclose(model.output_vectors - out_before, np.outer(g, h), rtol=1e-3, atol=1e-6)


# Words whose rows (own and n-grams', bucket 50,000) share nothing: fastText's
# update and the engine's (which applies a CBOW position's gradients when it
# leaves the last window) are then the same arithmetic.
WORDS = ["quiz", "jumps", "vex", "blowing", "dwarf", "ktchy", "mop", "flask"]


def rows_by_hand(word, index, V, truth, bucket=50_000):
    return [index] + [V + truth.fnv1a(g) % bucket for g in truth.ngrams(word, 3, 6)]


def table_sigmoid(f):
    """word2vec.c's table (1,000 bins over [-6, 6]), as the engine's kernels read it."""
    i = np.floor((np.float32(f) + np.float32(6)) * np.float32(1000 / 6 / 2)).astype(int)
    return sigmoid((i / 1000 * 2 - 1) * 6.0)


def reference_sentence(model, sentence, truth, alpha):
    """One sentence as fastText trains it, in float64: no subsampling, the
    full window. Skip-gram: the centre word's mean predicts each context
    word; the engine keeps that mean for the whole window and adds the
    window's gradients to its rows after it (fastText after each pair).
    CBOW: the mean of all the context words' rows predicts the centre word;
    each of those rows gets the gradient. hs: the target's path, a node
    skipped where |h . node| >= 6 (word2vec.c); softmax: every output row,
    the probabilities taken before any row moves."""
    V, window = len(model.vocab), model.window
    inp, out = model.input_vectors.astype(np.float64), model.output_vectors.astype(np.float64)
    lengths, codes, points = model.vocab.huffman()
    ids = [model.vocab.index[w] for w in sentence]
    rows = [rows_by_hand(w, i, V, truth) for w, i in zip(sentence, ids)]

    def softmax_update(h, target, grad):
        scores = out @ h
        p = np.exp(scores - scores.max())
        g = (np.eye(V)[target] - p / p.sum()) * alpha
        grad += g @ out
        out[...] += np.outer(g, h)

    def path_update(h, target, grad):
        if model.loss == "softmax":
            return softmax_update(h, target, grad)
        for d in range(lengths[target]):
            node = points[target, d]
            f = h @ out[node]
            if abs(f) >= 6:
                continue
            g = (1 - codes[target, d] - table_sigmoid(f)) * alpha
            grad += g * out[node]
            out[node] += g * h

    for i in range(len(sentence)):
        context = [c for c in range(max(0, i - window), min(len(sentence), i + window + 1)) if c != i]
        grad = np.zeros(model.dim)
        if model.arch == "skipgram":
            h = inp[rows[i]].mean(axis=0)
            for c in context:
                path_update(h, ids[c], grad)
            for r in rows[i]:
                inp[r] += grad
        else:
            every = [r for c in context for r in rows[c]]
            path_update(inp[every].mean(axis=0), ids[i], grad)
            for r in every:
                inp[r] += grad
    return inp, out


@pytest.mark.parametrize("loss", ["hs", "softmax"])
@pytest.mark.parametrize("arch", ["skipgram", "cbow"])
def test_a_sentence_trains_as_a_numpy_model_of_fastText_does(arch, loss, truth):
    counts = [9, 8, 6, 5, 4, 3, 2, 1]  # a tree of several depths
    vocab_lines = [[w] * n for w, n in zip(WORDS, counts)]
    model = small(arch=arch, loss=loss, dim=8, bucket=50_000, window=2, shrink_windows=False, alpha=0.05)
    model.build_vocab(vocab_lines, progress=False)
    V = len(model.vocab)
    every = [r for i, w in enumerate(WORDS) for r in rows_by_hand(w, model.vocab.index[w], V, truth)]
    assert len(set(every)) == len(every)  # the premise: no row shared
    offsets, table = model.subword_table()
    for w in WORDS:
        i = model.vocab.index[w]
        assert list(table[offsets[i]:offsets[i + 1]]) == rows_by_hand(w, i, V, truth)
    rng = np.random.default_rng(4)
    model.output_vectors[...] = rng.normal(0, 0.5, model.output_vectors.shape).astype(np.float32)
    sentence = ["dwarf", "quiz", "flask", "vex", "jumps", "mop", "blowing"]
    before = model.input_vectors.copy()
    inp, out = reference_sentence(model, sentence, truth, 0.05)
    assert np.abs(inp - before).max() > 0.01  # the sentence moves the rows: not a vacuous comparison
    model.train([sentence], epochs=1, progress=False)  # a sentence far shorter than the 10,000 words
    # between two updates of the learning rate: it trains at alpha throughout
    np.testing.assert_allclose(model.input_vectors, inp, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(model.output_vectors, out, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("arch", ["skipgram", "cbow"])
def test_an_hs_bin_round_trips_and_gensim_reads_it(arch, tmp_path, truth):
    """fastText's .bin says hs in its loss field (args.h: hs=1, ns=2,
    softmax=3); the output rows are the tree's inner nodes, numbered as
    fastText (and word2vec.c) number them, plus fastText's unused last row."""
    _, lines = truth.morphology(sentences=300)
    model = small(arch=arch, dim=12, bucket=3000, epochs=1).fit(lines, progress=False)
    path = tmp_path / "hs.bin"
    model.save_fasttext(path)
    data = read_fasttext_bin(path)
    assert data["loss"] == "hs" and data["args"]["loss"] == 1 and data["args"]["neg"] == 0
    np.testing.assert_array_equal(data["output_matrix"], -model.output_vectors)  # fastText's bits: see below
    back = FastText.load_fasttext(path)
    assert (back.loss, back.arch, back.negative) == ("hs", arch, 0)
    np.testing.assert_array_equal(back.input_vectors, model.input_vectors)
    np.testing.assert_array_equal(back.output_vectors, model.output_vectors)
    for word in (model.vocab.words[3], "luminescent"):
        np.testing.assert_array_equal(back.vectors[word], model.vectors[word])
    back.train(lines, epochs=1, progress=False)  # a loaded hs .bin trains on
    assert not np.array_equal(back.output_vectors, model.output_vectors)

    ours = load_facebook_model(path)  # this library's gensim layer
    assert (ours.hs, ours.negative, ours.engine.loss, ours.ns_exponent) == (1, 0, "hs", 0.75)  # gensim's exponent
    np.testing.assert_array_equal(ours.wv["luminescent"], model.vectors["luminescent"])

    gensim_fasttext = pytest.importorskip("gensim.models.fasttext")
    theirs = gensim_fasttext.load_facebook_model(str(path))
    assert theirs.hs == 1 and theirs.negative == 0 and theirs.sg == (arch == "skipgram")
    np.testing.assert_array_equal(theirs.syn1, -model.output_vectors)  # fastText's convention, as stored
    for word in (model.vocab.words[0], model.vocab.words[5], "luminescent"):
        np.testing.assert_allclose(theirs.wv[word], model.vectors[word], rtol=1e-5, atol=1e-7)



@pytest.mark.parametrize("arch", ["skipgram", "cbow"])
def test_two_threads_with_private_top_rows_learn_the_planted_families(arch, truth):
    """With several threads each keeps the top of the tree private and
    merges it (hotrows.h): the families must still come out."""
    fams, lines = truth.morphology()
    assert threads_for(2, sum(map(len, lines))) == 2  # the corpus is long enough for two
    model = small(arch=arch, threads=2, hot_rows=64).fit(lines, progress=False)
    v = model.vectors
    unseen = fams["alpha"][0] + "ish"
    assert v.similarity(unseen, fams["alpha"][1] + "ing") > v.similarity(unseen, fams["beta"][1] + "ing")
    assert np.isfinite(model.input_vectors).all() and np.isfinite(model.output_vectors).all()


def fasttext_tree(counts):
    """fastText's Huffman tree (src/loss.cc HierarchicalSoftmaxLoss::buildTree),
    written from its description: leaves are the words, sorted by count
    descending; two queues, the leaves from the rarest and the inner nodes in
    order of creation, a leaf taken only when strictly rarer; the second
    child picked gets bit 1. Each word's path, leaf to root, as inner-node
    rows (node index - number of words) and bits."""
    n = len(counts)
    count = list(counts) + [1e15] * (n - 1)
    parent, bit = [-1] * (2 * n - 1), [0] * (2 * n - 1)
    leaf, node = n - 1, n
    for i in range(n, 2 * n - 1):
        pick = []
        for _ in range(2):
            if leaf >= 0 and count[leaf] < count[node]:
                pick.append(leaf)
                leaf -= 1
            else:
                pick.append(node)
                node += 1
        count[i] = count[pick[0]] + count[pick[1]]
        parent[pick[0]] = parent[pick[1]] = i
        bit[pick[1]] = 1
    paths = []
    for w in range(n):
        rows, bits, j = [], [], w
        while parent[j] != -1:
            rows.append(parent[j] - n)
            bits.append(bit[j])
            j = parent[j]
        paths.append((rows, bits))
    return paths


def test_an_hs_bin_predicts_the_context_as_fastText_reads_it(tmp_path, truth):
    """fastText scores a word along its path with the node's bit as the label
    of sigmoid(h . node) (src/loss.cc binaryLogistic): read that way, the
    .bin of a trained skip-gram model must give the words that follow a word
    more than the uniform 1/V, and the file's rows read with the opposite
    convention must not."""
    _, lines = truth.morphology(sentences=1000)
    model = small(epochs=2).fit(lines, progress=False)
    path = tmp_path / "hs.bin"
    model.save_fasttext(path)
    data = read_fasttext_bin(path)
    paths = fasttext_tree(data["counts"])
    index = {w: i for i, w in enumerate(data["words"])}
    out = data["output_matrix"].astype(np.float64)

    def log_p(h, target, sign):
        rows, bits = paths[target]
        p = sigmoid(sign * (out[rows] @ h))
        return np.sum(np.log(np.where(np.array(bits) == 1, p, 1 - p)))

    pairs = [(a, b) for line in lines[:200] for a, b in zip(line, line[1:])]
    for sign, better in ((1, True), (-1, False)):
        mean = np.mean([log_p(model.vectors[a].astype(np.float64), index[b], sign) for a, b in pairs])
        assert (mean > np.log(1 / len(index)) + 0.5) == better, (sign, mean, np.log(1 / len(index)))


def test_a_softmax_bin_round_trips(tmp_path, truth):
    """fastText's -loss softmax (3): one output row a word, the target's
    label 1, as here: the rows are stored as they are."""
    _, lines = truth.morphology(sentences=300)
    model = small(loss="softmax", arch="cbow", dim=12, bucket=3000, epochs=1).fit(lines, progress=False)
    path = tmp_path / "softmax.bin"
    model.save_fasttext(path)
    data = read_fasttext_bin(path)
    assert data["loss"] == "softmax" and data["args"]["loss"] == 3 and data["args"]["neg"] == 0
    np.testing.assert_array_equal(data["output_matrix"], model.output_vectors)
    back = FastText.load_fasttext(path)
    assert (back.loss, back.arch) == ("softmax", "cbow")
    np.testing.assert_array_equal(back.input_vectors, model.input_vectors)
    np.testing.assert_array_equal(back.vectors["luminescent"], model.vectors["luminescent"])
