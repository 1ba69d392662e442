"""wv_engine on a dask.distributed LocalCluster of 2 worker processes: word
and co-occurrence counts equal to the one-machine results, averaging that
converges on planted structure, clear failures (never a hang)."""

import gzip
import os
import threading

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

from wv_engine import cooccur  # noqa: E402
from wv_engine.cli import main  # noqa: E402
from wv_engine.cluster import ClusterError, close, connect  # noqa: E402
from wv_engine.cluster import shards as shards_mod  # noqa: E402
from wv_engine.cluster.shards import Shard, context_before, iter_shard, make_shards  # noqa: E402
from wv_engine.cluster.word2vec import Moves, apply_mean  # noqa: E402
from wv_engine.corpus import CorpusError  # noqa: E402
from wv_engine.io import load_vectors  # noqa: E402
from wv_engine.vocab import Vocabulary  # noqa: E402
from wv_engine.word2vec import Word2Vec  # noqa: E402


@pytest.fixture(scope="module")
def client():
    c = connect("local:2")
    yield c
    close(c)


def zipf_text(n_sentences=2500, vocab=400, seed=0, join_every=5):
    """Zipfian words; every join_every-th sentence runs on into the next, so
    long sentences cross shard boundaries."""
    rng = np.random.default_rng(seed)
    p = np.arange(1, vocab + 1) ** -1.0
    p /= p.sum()
    out = []
    for s in range(n_sentences):
        words = rng.choice(vocab, rng.integers(1, 50), p=p)
        out.append(" ".join(f"w{i}" for i in words) + (" " if s % join_every == 0 else "\n"))
    return "".join(out).encode()


@pytest.fixture
def many_shards(monkeypatch):
    """Makes the planner cut small files into many shards."""
    monkeypatch.setattr(shards_mod, "SHARD_BYTES", 9_000)


# ---- shards (no cluster) ----------------------------------------------------
def test_shards_cover_the_file_and_cut_only_after_whitespace(tmp_path):
    data = zipf_text(600)
    path = tmp_path / "c.txt"
    path.write_bytes(data)
    shards = make_shards(str(path), 7)
    assert len(shards) == 7
    assert b"".join(b"".join(iter_shard(s, chunk_bytes=100)) for s in shards) == data
    for s in shards[1:]:
        assert data[s.start - 1:s.start] in (b" ", b"\n")
    assert [len(w) for w in data.split()] == [len(w) for s in shards for w in b"".join(iter_shard(s)).split()]


def test_a_word_longer_than_a_shard_is_never_cut(tmp_path):
    data = b"a " + b"x" * 5000 + b" b c\n"
    path = tmp_path / "c.txt"
    path.write_bytes(data)
    shards = make_shards(str(path), 10)
    assert b"".join(b"".join(iter_shard(s)) for s in shards) == data
    assert max(len(b"".join(iter_shard(s)).split()) for s in shards) >= 1
    assert all(b"x" * 5000 in b"".join(iter_shard(s)) or b"x" not in b"".join(iter_shard(s)) for s in shards)


def test_compressed_files_are_one_shard_each(tmp_path):
    plain, packed = tmp_path / "a.txt", tmp_path / "b.txt.gz"
    plain.write_bytes(zipf_text(300))
    packed.write_bytes(gzip.compress(zipf_text(300, seed=1)))
    shards = make_shards([str(plain), str(packed)], 4)
    assert [s for s in shards if s.compressed] == [shards[-1]]
    assert b"".join(iter_shard(shards[-1])) == zipf_text(300, seed=1)


def test_context_before_stops_at_the_line_start(tmp_path):
    path = tmp_path / "c.txt"
    path.write_bytes(b"a b\nc d e f g")
    [shard] = make_shards(str(path), 1)
    text, complete = context_before(Shard(str(path), 12, 13), 100)  # the shard "g"
    assert (text, complete) == (b"c d e f ", True)
    text, complete = context_before(Shard(str(path), 10, 13), 4)
    assert complete is False and text.split() == [b"e"]  # starts at a token boundary
    assert context_before(shard, 100) == (b"", True)


def test_in_memory_token_lists_are_refused(client):
    with pytest.raises(CorpusError, match="file path"):
        Vocabulary.build([["a", "b"]], 1, client=client)


# ---- counts on the cluster --------------------------------------------------
def test_vocabulary_equals_the_one_machine_count(client, tmp_path, many_shards):
    path = tmp_path / "c.txt"
    path.write_bytes(zipf_text())
    one = Vocabulary.build(str(path), min_count=3)
    many = Vocabulary.build(str(path), min_count=3, client=client)
    assert many.words == one.words
    assert np.array_equal(many.counts, one.counts)
    assert (many.total_tokens, many.distinct_words) == (one.total_tokens, one.distinct_words)


def test_vocabulary_over_a_list_of_files(client, tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt.gz"
    a.write_bytes(zipf_text(400))
    b.write_bytes(gzip.compress(zipf_text(400, seed=3)))
    both = tmp_path / "both.txt"
    both.write_bytes(zipf_text(400) + zipf_text(400, seed=3))
    one = Vocabulary.build(str(both), 1)
    many = Vocabulary.build([str(a), str(b)], 1, client=client)
    assert many.words == one.words and np.array_equal(many.counts, one.counts)


def test_pruned_vocabulary_keeps_the_frequent_words(client, tmp_path, many_shards):
    path = tmp_path / "c.txt"
    path.write_bytes(zipf_text())
    exact = Vocabulary.build(str(path), 1)
    pruned = Vocabulary.build(str(path), 1, max_vocab_size=100, client=client)
    assert len(pruned) <= 100
    # pruned shards lose some counts of mid-frequency words (as word2vec.c's pruning does): the top stays
    assert pruned.words[:5] == exact.words[:5]
    assert len(set(pruned.words[:20]) & set(exact.words[:20])) >= 15
    assert all(c <= exact.counts[exact.index[w]] for w, c in zip(pruned.words, pruned.counts))


@pytest.mark.parametrize("window,weighting", [(10, True), (3, True), (5, False)])
def test_cooccurrence_equals_the_one_machine_count_bit_for_bit(client, tmp_path, many_shards, window, weighting):
    path = tmp_path / "c.txt"
    path.write_bytes(zipf_text(join_every=2))
    vocab = Vocabulary.build(str(path), 2)
    one = cooccur.count(str(path), vocab, window, weighting, threads=2)
    many = cooccur.count(str(path), vocab, window, weighting, threads=2, client=client)
    assert many.shape == one.shape and many.nnz == one.nnz
    assert np.array_equal(many.indptr, one.indptr) and np.array_equal(many.indices, one.indices)
    assert np.array_equal(many.data, one.data)


def test_cooccurrence_of_one_long_line_with_spilling(client, tmp_path, many_shards):
    path = tmp_path / "line.txt"
    path.write_bytes(zipf_text(join_every=1))  # one sentence, cut by every shard
    vocab = Vocabulary.build(str(path), 1)
    one = cooccur.count(str(path), vocab, 8)
    many = cooccur.count(str(path), vocab, 8, memory_limit=300_000, client=client)
    assert (one != many).nnz == 0 and one.nnz == many.nnz


# ---- word2vec with model averaging --------------------------------------------
def test_averaging_is_the_mean_of_the_models_never_a_sum():
    from wv_engine.cluster.word2vec import add_moves

    base = (np.ones((3, 2), np.float32), np.zeros((3, 2), np.float32))
    a = Moves(np.array([[1, 1], [2, 2], [0, 0]], np.float32), np.zeros((3, 2), np.float32), 1, 0.5, 5, 10)
    b = Moves(np.array([[1, 1], [0, 0], [0, 0]], np.float32), np.zeros((3, 2), np.float32), 1, 0.25, 3, 10)
    total = add_moves(a, b)
    new_in, new_out = apply_mean(base, total)
    # the models are 1+a and 1+b: their mean, row by row (a sum would give 3, 4, 2)
    assert new_in.tolist() == [[2, 2], [2, 2], [1, 1]]
    assert new_out.tolist() == [[0, 0]] * 3
    assert (total.workers, total.loss, total.examples, total.words) == (2, 0.75, 8, 20)


def test_cluster_training_recovers_planted_topics(client, tmp_path, topics_corpus, topic_accuracy):
    topics, corpus = topics_corpus
    path = tmp_path / "topics.txt"
    path.write_text("\n".join(" ".join(s) for s in corpus) + "\n")
    m = Word2Vec(dim=20, window=4, min_count=1, sample=0, epochs=5, threads=1)
    stats = m.fit(str(path), client=client, sync_words=4000, progress=False).last_stats
    assert topic_accuracy(m.vectors, topics) > 0.9
    assert stats.epoch_loss[-1] < stats.epoch_loss[0]
    assert stats.corpus_words == sum(len(s) for s in corpus)
    assert m.epochs_trained == 5 and np.all(np.isfinite(m.input_vectors))


def test_a_killed_worker_fails_clearly_or_recovers(tmp_path, topics_corpus):
    _, corpus = topics_corpus
    path = tmp_path / "topics.txt"
    path.write_text("\n".join(" ".join(s) for s in corpus * 4) + "\n")
    c = connect("local:2")
    try:
        victim = sorted(c.scheduler_info()["workers"])[0]
        m = Word2Vec(dim=20, min_count=1, epochs=3, threads=1).build_vocab(str(path), client=c)

        def kill():
            try:
                c.run(os._exit, 1, workers=[victim])
            except Exception:  # the worker dies before it can answer: expected
                pass
        timer = threading.Timer(1.5, kill)
        timer.start()
        try:
            m.train(str(path), client=c, sync_words=4000, progress=False)
            finished = True
            print("recovered from the killed worker")
        except ClusterError as exc:
            finished = False
            print("failed clearly:", exc)
            assert "worker" in str(exc) or "cluster" in str(exc)
        timer.join()
        if finished:  # dask re-ran the lost tasks on the surviving or restarted worker
            assert m.epochs_trained == 3 and np.all(np.isfinite(m.input_vectors))
    finally:
        close(c)


# ---- command line -------------------------------------------------------------
def test_cli_word2vec_glove_and_svd_on_a_local_cluster(tmp_path, topics_corpus):
    _, corpus = topics_corpus
    path = tmp_path / "topics.txt"
    path.write_text("\n".join(" ".join(s) for s in corpus) + "\n")
    for cmd, fmt in [("word2vec", "txt"), ("glove", "txt"), ("svd", "txt")]:
        out = tmp_path / f"{cmd}.txt"
        extra = ["--epochs", "2"] if cmd != "svd" else []
        rc = main([cmd, str(path), "-o", str(out), "--dim", "10", "--min-count", "1", "--threads", "1",
                   "--format", fmt, "--quiet", "--scheduler", "local:2", *extra])
        assert rc == 0, cmd
        vectors = load_vectors(str(out), "word2vec-txt" if cmd == "word2vec" else "glove-txt")
        assert len(vectors) == 48 and np.all(np.isfinite(vectors.vectors))


def test_cli_rejects_a_bad_scheduler(tmp_path, capsys):
    path = tmp_path / "c.txt"
    path.write_text("a b c\n")
    rc = main(["word2vec", str(path), "-o", str(tmp_path / "v.bin"), "--scheduler", "local:zero", "--quiet"])
    assert rc == 1
    assert "local:N" in capsys.readouterr().err


# ---- PPMI-SVD with the matrix in row blocks on the workers ---------------------
def test_ppmi_blocks_equal_the_one_machine_ppmi(client, tmp_path, many_shards):
    from wv_engine.cluster.client import result, submit
    from wv_engine.cluster.cooccur import count_blocks
    from wv_engine.cluster.svd import full_rows, ppmi_block, row_sums
    from wv_engine.svd import ppmi
    import scipy.sparse as sp

    path = tmp_path / "c.txt"
    path.write_bytes(zipf_text(join_every=3))
    vocab = Vocabulary.build(str(path), 2)
    V = len(vocab)
    one = cooccur.count(str(path), vocab, 6)
    bounds, uppers = count_blocks(client, str(path), vocab, 6)
    full = [submit(client, full_rows, bounds, c, V, *uppers[:c + 1]) for c in range(len(bounds) - 1)]
    assert (sp.vstack(result(full, "test")).tocsr() != one).nnz == 0  # the same float32 values, all rows
    sums = np.concatenate(result([submit(client, row_sums, f) for f in full], "test"))
    contexts = sums ** 0.75
    blocks = result([submit(client, ppmi_block, f, lo, sums, contexts, contexts.sum(), 1.0)
                     for f, lo in zip(full, bounds[:-1])], "test")
    expected = ppmi(one)
    got = sp.vstack(blocks).tocsr()
    assert got.nnz == expected.nnz
    assert np.allclose(got.toarray(), expected.toarray(), rtol=1e-12, atol=0)


def test_randomized_svd_on_blocks_matches_the_exact_svd(client, tmp_path, topics_corpus):
    from scipy.sparse.linalg import svds
    from wv_engine.cluster.svd import svd_vectors_on_cluster
    from wv_engine.svd import ppmi, svd_vectors

    _, corpus = topics_corpus  # 6 planted topics: a spectrum with 6 well separated directions
    path = tmp_path / "topics.txt"
    path.write_text("\n".join(" ".join(s) for s in corpus) + "\n")
    vocab = Vocabulary.build(str(path), 1)
    matrix = cooccur.count(str(path), vocab, 5)
    one = svd_vectors(matrix, dim=5)
    many = svd_vectors_on_cluster(client, str(path), vocab, 5, dim=5)
    assert many.shape == one.shape == (48, 5) and many.dtype == np.float32
    # the vectors are U S^0.5: the squared norm of each dimension is its singular value
    s_exact = np.sort(svds(ppmi(matrix), k=5)[1])[::-1]
    assert np.allclose(np.linalg.norm(many, axis=0) ** 2, s_exact, rtol=1e-5)
    # the same vectors up to the sign of each dimension
    signs = np.sign(np.sum(many * one, axis=0))
    assert np.allclose(many * signs, one, atol=1e-4)


def test_cli_svd_on_a_cluster_can_save_the_exact_matrix(tmp_path, topics_corpus):
    _, corpus = topics_corpus
    path = tmp_path / "topics.txt"
    path.write_text("\n".join(" ".join(s) for s in corpus) + "\n")
    saved = tmp_path / "x.npz"
    rc = main(["svd", str(path), "-o", str(tmp_path / "v.txt"), "--dim", "5", "--min-count", "1", "--window", "4",
               "--threads", "1", "--quiet", "--scheduler", "local:2", "--save-cooccurrence", str(saved)])
    assert rc == 0
    vocab = Vocabulary.build(str(path), 1)
    assert (cooccur.load_npz(saved) != cooccur.count(str(path), vocab, 4)).nnz == 0


def test_bad_cluster_training_settings_are_refused(client, tmp_path):
    path = tmp_path / "c.txt"
    path.write_bytes(zipf_text(200))
    m = Word2Vec(dim=8, min_count=1, epochs=1, threads=1).build_vocab(str(path))
    with pytest.raises(ValueError, match="lr_scale"):
        m.train(str(path), client=client, lr_scale=0)
    with pytest.raises(ValueError, match="sync_words"):
        m.train(str(path), client=client, sync_words=0)
