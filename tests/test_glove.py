"""GloVe: co-occurrence counts against a pure-Python count, the spill path
against the in-memory path, AdaGrad steps against numpy, planted structure,
Stanford's record format, checkpoints, SVD, and bad input."""

import _thread
import os
import threading

import numpy as np
import pytest
import scipy.sparse as sp

from wv_engine import Vocabulary, cooccur
from wv_engine.glove import GloVe
from wv_engine.io import FormatError
from wv_engine.svd import ppmi, svd_vectors


def zipf_text(n_lines=300, vocab=200, seed=0):
    rng = np.random.default_rng(seed)
    p = 1 / np.arange(1, vocab + 1)
    p /= p.sum()
    lines = []
    for _ in range(n_lines):
        n = rng.integers(0, 40)
        lines.append(" ".join(f"w{i}" for i in rng.choice(vocab, size=n, p=p)))
    return lines


def reference_counts(lines, vocab, window, weighting=True):
    """Stanford's cooccur.c rules, written plainly: OOV removed first, left
    context within the line, 1/d both ways (so self-pairs count twice)."""
    V = len(vocab)
    X = np.zeros((V, V))
    for line in lines:
        ids = [vocab.index[w] for w in line.split() if w in vocab.index]
        for j in range(len(ids)):
            for d in range(1, window + 1):
                if j - d < 0:
                    break
                w = 1.0 / d if weighting else 1.0
                X[ids[j - d], ids[j]] += w
                X[ids[j], ids[j - d]] += w
    return X


@pytest.fixture(scope="module")
def zipf_corpus():
    lines = zipf_text()
    vocab = Vocabulary.build([line.split() for line in lines], min_count=8)
    return lines, vocab


@pytest.mark.parametrize("window,weighting,threads", [(5, True, 1), (3, False, 2), (15, True, 2), (20, True, 1)])
def test_counts_equal_a_python_count(zipf_corpus, window, weighting, threads):
    lines, vocab = zipf_corpus
    assert 20 < len(vocab) < 200  # some words are out of vocabulary
    X = cooccur.count([ln.split() for ln in lines], vocab, window, weighting, threads, progress=False)
    expected = reference_counts(lines, vocab, window, weighting)
    assert isinstance(X, sp.csr_matrix) and X.dtype == np.float32
    np.testing.assert_allclose(X.toarray(), expected, rtol=2e-6)
    assert (X != X.T).nnz == 0


def test_tiny_memory_cap_spills_and_gives_exactly_the_in_memory_result(tmp_path):
    lines = zipf_text(n_lines=2000, vocab=400, seed=3)
    corpus = [ln.split() for ln in lines]
    vocab = Vocabulary.build(corpus, min_count=1)
    big = cooccur.count(corpus, vocab, 10, threads=1, memory_limit="256M", progress=False)
    job_dir = tmp_path / "spill"
    job_dir.mkdir()
    small = cooccur.count(corpus, vocab, 10, threads=2, memory_limit=2 * 4 * 16 * 4096, tmp_dir=str(job_dir),
                          progress=False)
    assert (big != small).nnz == 0  # bitwise equal, not just close
    assert np.array_equal(big.indptr, small.indptr) and np.array_equal(big.data, small.data)
    assert os.listdir(job_dir) == []  # spilled runs are gone


def test_spilling_really_happens_and_fan_in_is_bounded(tmp_path):
    from wv_engine import _glove
    from wv_engine.corpus import encode

    lines = zipf_text(n_lines=7000, vocab=3000, seed=5)
    corpus = [ln.split() for ln in lines]
    vocab = Vocabulary.build(corpus, min_count=1)
    enc = encode(corpus, vocab.words_as_bytes())
    job = _glove.CooccurrenceCount(enc.ids, len(vocab), 10, True, 1, 4 * 16 * 4096, str(tmp_path))
    job.run()
    job.check()
    assert job.spilled_runs > 32 and job.merge_passes >= 1
    rows, cols, values = job.upper()
    full = reference_counts(lines, vocab, 10)
    np.testing.assert_allclose(values, np.triu(full)[rows, cols] / np.where(rows == cols, 2, 1), rtol=1e-9)


def numpy_upper_counts(ids, window):
    """Unweighted upper-triangle counts keyed row * V + col, from numpy alone:
    pairs at distance d within a sentence (-1 ends one), self-pairs once."""
    sentence = np.cumsum(ids < 0)
    keys = []
    for d in range(1, window + 1):
        a, b = ids[:-d], ids[d:]
        ok = (a >= 0) & (b >= 0) & (sentence[:-d] == sentence[d:])
        lo, hi = np.minimum(a[ok], b[ok]).astype(np.int64), np.maximum(a[ok], b[ok]).astype(np.int64)
        keys.append((lo << 32) | hi)
    return np.unique(np.concatenate(keys), return_counts=True)


@pytest.mark.parametrize("threads,memory_limit", [(1, 1 << 28), (3, 1 << 28), (4, 4 * 16 * 4096 * 4)])
def test_large_vocabulary_counts_equal_numpy_on_any_thread_count(tmp_path, threads, memory_limit):
    """Ids up to 2^18 need five radix digits to sort, and the last merge is
    split by rows over the threads (reading spilled runs at several places
    at once with the small cap)."""
    from wv_engine import _glove

    V, window = 200_000, 6
    rng = np.random.default_rng(7)
    ids = np.where(rng.random(300_000) < 0.5, rng.integers(0, 300, 300_000), rng.integers(0, V, 300_000))
    ids[rng.random(ids.size) < 0.01] = -1
    ids = ids.astype(np.int32)
    job = _glove.CooccurrenceCount(ids, V, window, False, threads, memory_limit, str(tmp_path))
    job.run()
    job.check()
    assert (job.spilled_runs > 32) == (memory_limit < 1 << 24)
    rows, cols, values = job.upper()
    keys, counts = numpy_upper_counts(ids, window)
    assert np.array_equal((rows.astype(np.int64) << 32) | cols, keys)  # sorted, each cell once
    np.testing.assert_array_equal(values, counts)  # a self-pair is one record
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("V,window,memory_limit", [(200_000, 20, 1 << 28), (300_000, 20, 1 << 28),
                                                   (300_000, 20, 4 * 16 * 4096 * 4), (300, 3, 4 * 16 * 4096 * 4)])
def test_weighted_units_equal_numpy_whether_records_pack_or_not(tmp_path, V, window, memory_limit):
    """The sort holds a record in 8 bytes when its key and value fit in 64
    bits (ids below 2^18 with window 20's 28-bit unit), else in 16 (ids past
    2^18); the sums in units are the same either way, with runs kept in
    memory or spilled and merged."""
    from wv_engine import _glove

    rng = np.random.default_rng(11)
    n = 200_000
    ids = np.where(rng.random(n) < 0.5, rng.integers(0, min(V, 300), n), rng.integers(0, V, n))
    ids[rng.random(n) < 0.01] = -1
    ids = ids.astype(np.int32)
    job = _glove.CooccurrenceCount(ids, V, window, True, 2, memory_limit, str(tmp_path))
    job.run()
    rows, cols, units, unit = job.upper_units()
    sentence = np.cumsum(ids < 0)
    keys, weights = [], []
    for d in range(1, window + 1):
        a, b = ids[:-d], ids[d:]
        ok = (a >= 0) & (b >= 0) & (sentence[:-d] == sentence[d:])
        lo, hi = np.minimum(a[ok], b[ok]).astype(np.int64), np.maximum(a[ok], b[ok]).astype(np.int64)
        keys.append((lo << 32) | hi)
        weights.append(np.full(len(lo), (unit + d // 2) // d, np.int64))
    expected_keys, inverse = np.unique(np.concatenate(keys), return_inverse=True)
    expected = np.zeros(len(expected_keys), np.int64)
    np.add.at(expected, inverse, np.concatenate(weights))
    assert np.array_equal((rows.astype(np.int64) << 32) | cols, expected_keys)
    np.testing.assert_array_equal(units, expected)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_dense_cells_past_32_bits_stay_exact(tmp_path, threads):
    """At window 20 a unit is 1/232,792,560, so a frequent pair's sum fills
    a dense cell's 32 bits within a few dozen pairs (and two threads'
    cells can overflow when summed): what goes past goes to the sort, and
    the integer sums are exact."""
    from wv_engine import _glove

    window = 20
    ids = np.array(([0, 1, 2] * 40 + [-1]) * 50, dtype=np.int32)
    job = _glove.CooccurrenceCount(ids, 3, window, True, threads, 1 << 24, str(tmp_path))
    job.run()
    rows, cols, units, unit = job.upper_units()
    assert unit == 232_792_560
    expected = {}
    sentence = np.cumsum(ids < 0)
    for d in range(1, window + 1):
        for a, b in zip(ids[:-d][sentence[:-d] == sentence[d:]], ids[d:][sentence[:-d] == sentence[d:]]):
            if a >= 0 and b >= 0:
                key = (int(min(a, b)), int(max(a, b)))
                expected[key] = expected.get(key, 0) + (unit + d // 2) // d
    assert max(expected.values()) > 2**32
    assert {(int(r), int(c)): int(u) for r, c, u in zip(rows, cols, units)} == expected


def test_full_matrix_is_the_same_on_any_thread_count():
    """The upper triangle mirrored into CSR equals scipy's U + U.T, bit for
    bit, whether one thread writes it or more threads than rows."""
    from wv_engine import _glove

    rng = np.random.default_rng(3)
    V = 7
    dense = np.triu(rng.integers(0, 4, (V, V)) * rng.integers(1, 50, (V, V)))
    rows, cols = np.nonzero(dense)
    units = dense[rows, cols].astype(np.int64)
    unit = 60
    upper = sp.coo_matrix((units / unit, (rows, cols)), shape=(V, V)).toarray()
    expected = (upper + upper.T).astype(np.float32)  # the stored diagonal is X[w][w] / 2
    for threads in (1, 2, 3, 16):
        indptr, indices, data = _glove.csr_from_upper(rows.astype(np.int32), cols.astype(np.int32), units, unit,
                                                      V, threads)
        X = sp.csr_matrix((data, indices, indptr), shape=(V, V))
        assert X.has_sorted_indices
        np.testing.assert_array_equal(X.toarray(), expected)


def test_a_count_asked_to_stop_before_it_runs_does_nothing(tmp_path):
    """Ctrl-C can land while the counting thread is being started: the stop
    request then comes first, and the run must not begin (no spill file, not
    one position counted)."""
    from wv_engine import _glove

    ids = np.random.default_rng(0).integers(0, 3000, 2_000_000, dtype=np.int32)
    job = _glove.CooccurrenceCount(ids, 3000, 10, True, 1, 4 * 16 * 4096, str(tmp_path))
    job.request_stop()
    job.run()
    with pytest.raises(_glove.CooccurrenceStopped):
        job.check()
    assert job.positions_done == 0 and job.spilled_runs == 0
    assert os.listdir(tmp_path) == []


def test_memory_limit_too_small_is_a_clear_error(zipf_corpus):
    lines, vocab = zipf_corpus
    with pytest.raises(ValueError, match="too small to make progress"):
        cooccur.count([ln.split() for ln in lines], vocab, 5, memory_limit=1000, progress=False)


def make_model(V=5, D=4, seed=0):
    rng = np.random.default_rng(seed)
    m = GloVe(dim=D, threads=1, x_max=10, alpha=0.75, eta=0.05)
    m.build_vocab(vocab=Vocabulary([f"w{i}" for i in range(V)], np.arange(V, 0, -1) * 10))
    m.params["word"][:] = rng.normal(0, 0.3, (V, D))
    m.params["context"][:] = rng.normal(0, 0.3, (V, D))
    return m


def reference_step(p, i, j, x, x_max, alpha, eta):
    """glove.c's update in float32 numpy."""
    f32 = np.float32
    wi, wj = p["word"][i], p["context"][j]
    diff = f32(np.dot(wi, wj)) + p["word_bias"][i] + p["context_bias"][j] - f32(np.log(x))
    fdiff = f32(1.0 if x > x_max else (x / x_max) ** alpha) * diff
    t1 = np.clip(fdiff * wj, -100, 100) * f32(eta)
    t2 = np.clip(fdiff * wi, -100, 100) * f32(eta)
    ui, uj = t1 / np.sqrt(p["word_gradsq"][i]), t2 / np.sqrt(p["context_gradsq"][j])
    p["word_gradsq"][i] += t1 * t1
    p["context_gradsq"][j] += t2 * t2
    wi -= ui
    wj -= uj
    p["word_bias"][i] -= fdiff / np.sqrt(p["word_bias_gradsq"][i])
    p["context_bias"][j] -= fdiff / np.sqrt(p["context_bias_gradsq"][j])
    p["word_bias_gradsq"][i] += fdiff * fdiff
    p["context_bias_gradsq"][j] += fdiff * fdiff
    return 0.5 * float(fdiff) * float(diff)


@pytest.mark.parametrize("dim", [4, 21])
@pytest.mark.parametrize("exact_sqrt", [True, False])
def test_adagrad_steps_equal_a_numpy_reference(dim, exact_sqrt):
    """Both steps (division by sqrt, and the refined reciprocal square root
    on AVX2 machines, whose lanes cover dim 21 but 4) against glove.c's."""
    from wv_engine import _glove

    m = make_model(D=dim)
    ref = {k: v.copy() for k, v in m.params.items()}
    core = _glove.GloVeCore(eta=m.eta, exact_sqrt=exact_sqrt, **m.params)
    for i, j, x in [(0, 1, 3.0), (2, 2, 25.0), (1, 0, 0.5), (0, 1, 3.0), (4, 3, 10.0)]:
        cost = core.step(i, j, x, m.x_max, m.alpha)
        expected = reference_step(ref, i, j, x, m.x_max, m.alpha, m.eta)
        assert cost == pytest.approx(expected, rel=1e-5)
        for k in ref:
            np.testing.assert_allclose(m.params[k], ref[k], rtol=1e-6, atol=1e-7, err_msg=k)


def test_interleaved_tables_train_like_separate_arrays():
    from wv_engine import _glove

    m = make_model(V=40, D=19)  # a dim that leaves padding in the interleaved rows
    assert m.params["word"].strides[0] > m.params["word"].shape[1] * 4  # the model's own layout is interleaved
    separate = {k: np.ascontiguousarray(v) for k, v in m.params.items()}
    records = _glove.make_records(np.arange(0, 41 * 3, 3)[:41].astype(np.int64),
                                  np.tile(np.arange(3, dtype=np.int32), 40) * 13 % 40,
                                  np.linspace(0.5, 30.0, 120).astype(np.float32), 10.0, 0.75, 7)
    for params in (m.params, separate):
        core = _glove.GloVeCore(eta=0.05, **params)
        core.set_records(records)
        core.start_epoch(1)
        core.join_epoch()
    for k in separate:
        np.testing.assert_array_equal(m.params[k], separate[k], err_msg=k)


def test_mismatched_strides_are_refused():
    from wv_engine import _glove

    m = make_model()
    bad = dict(m.params, context=np.ascontiguousarray(m.params["context"]))
    with pytest.raises(ValueError, match="row stride"):
        _glove.GloVeCore(eta=0.05, **bad)


def test_gradient_is_clipped_like_glove_c():
    from wv_engine import _glove

    m = make_model(V=2, D=2)
    m.params["word"][:] = 50.0
    m.params["context"][:] = 50.0
    core = _glove.GloVeCore(eta=0.05, **m.params)
    core.step(0, 1, 1.0, 10.0, 0.75)  # fdiff * w is far above 100: each component is clipped
    np.testing.assert_allclose(m.params["word"][0], 50.0 - 100 * 0.05 / 1.0, rtol=1e-6)


@pytest.fixture(scope="module")
def topics():
    """Sentences of one group's words plus 30% words of any group. GloVe fits
    only the non-zero counts, so the groups must differ in how often they
    co-occur (not just whether): the noise gives the contrast."""
    rng = np.random.default_rng(1)
    groups = [[f"g{t}w{w}" for w in range(6)] for t in range(5)]
    every = [w for g in groups for w in g]
    corpus = []
    for _ in range(3000):
        g = groups[rng.integers(5)]
        corpus.append([g[rng.integers(6)] if rng.random() < 0.7 else every[rng.integers(30)] for _ in range(10)])
    return groups, corpus


def test_cost_falls_and_planted_groups_are_recovered(topics):
    groups, corpus = topics
    m = GloVe(dim=10, window=5, min_count=1, epochs=15, x_max=10, threads=2).fit(corpus, progress=False)
    cost = m.last_stats.epoch_cost
    assert cost[-1] < 0.5 * cost[0] and all(isinstance(c, float) for c in cost)
    v = m.vectors
    hits = sum(x in g for g in groups for w in g for x, _ in v.most_similar(w, topn=5))
    assert hits / (5 * 6 * 5) > 0.9


def test_output_modes_and_single_thread_reproducibility(topics):
    _, corpus = topics
    a = GloVe(dim=6, min_count=1, epochs=2, threads=1, seed=4).fit(corpus, progress=False)
    b = GloVe(dim=6, min_count=1, epochs=2, threads=1, seed=4).fit(corpus, progress=False)
    np.testing.assert_array_equal(a.vectors.vectors, b.vectors.vectors)
    W, C = a.params["word"], a.params["context"]
    np.testing.assert_allclose(a.vectors.vectors, W + C)
    a.output = "concat"
    assert a.vectors.dim == 12
    a.output = "word"
    np.testing.assert_array_equal(a.vectors.vectors, W)


@pytest.mark.parametrize("grid", [0, 3])
def test_checkpoint_resume_equals_training_straight_through(topics, tmp_path, grid):
    _, corpus = topics
    straight = GloVe(dim=6, min_count=1, epochs=4, threads=1, seed=2, grid=grid).fit(corpus, progress=False)
    first = GloVe(dim=6, min_count=1, epochs=2, threads=1, seed=2, grid=grid)
    first.fit(corpus, progress=False)
    first.save_checkpoint(tmp_path / "ck.npz")
    resumed = GloVe.load_checkpoint(tmp_path / "ck.npz")
    assert resumed.epochs_trained == 2 and resumed.grid == grid
    assert not resumed._limit_given  # no memory_limit given: the resumed run takes the default, as the first
    limited = GloVe(dim=6, min_count=1, epochs=1, threads=1, memory_limit="64M")
    limited.fit(corpus, progress=False)
    limited.save_checkpoint(tmp_path / "limited.npz")
    again = GloVe.load_checkpoint(tmp_path / "limited.npz")
    assert again._limit_given and again.memory_limit == 64 << 20
    resumed.train(resumed.count(corpus, progress=False), epochs=2, progress=False)
    for k in straight.params:
        np.testing.assert_array_equal(straight.params[k], resumed.params[k], err_msg=k)


def test_ctrl_c_leaves_a_usable_model(sigint_raises):
    V = 400
    X = sp.random(V, V, density=0.9, random_state=1, format="csr", dtype=np.float32)
    X.data += 0.5
    m = GloVe(dim=50, threads=2, epochs=500)
    m.build_vocab(vocab=Vocabulary([f"w{i}" for i in range(V)], np.arange(V, 0, -1)))
    timer = threading.Timer(0.5, _thread.interrupt_main)
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        m.train(X + X.T, progress=False)
    timer.cancel()
    assert m.last_stats.interrupted and len(m.last_stats.epochs) < 500
    assert np.isfinite(m.vectors.vectors).all()


def test_stanford_record_format_round_trip(tmp_path, zipf_corpus):
    lines, vocab = zipf_corpus
    X = cooccur.count([ln.split() for ln in lines], vocab, 5, progress=False)
    path = tmp_path / "cooccurrence.bin"
    cooccur.write_records(X, path)
    assert os.path.getsize(path) == 16 * X.nnz
    raw = np.fromfile(path, dtype=[("w1", "<i4"), ("w2", "<i4"), ("v", "<f8")])
    assert raw["w1"].min() == 1  # 1-based, as Stanford's tools expect
    back = cooccur.read_records(path, len(vocab))
    assert (back != X).nnz == 0


def test_reading_a_file_written_in_stanfords_layout(tmp_path):
    # three records, written byte by byte as cooccur.c's CREC (int, int, double)
    import struct

    data = b"".join(struct.pack("<iid", a, b, v) for a, b, v in [(1, 2, 0.5), (2, 1, 0.5), (3, 3, 2.0)])
    (tmp_path / "c.bin").write_bytes(data)
    X = cooccur.read_records(tmp_path / "c.bin", 3).toarray()
    np.testing.assert_array_equal(X, [[0, 0.5, 0], [0.5, 0, 0], [0, 0, 2.0]])
    (tmp_path / "bad.bin").write_bytes(data[:-3])
    with pytest.raises(FormatError, match="whole number"):
        cooccur.read_records(tmp_path / "bad.bin", 3)
    with pytest.raises(FormatError, match="outside 1..2"):
        cooccur.read_records(tmp_path / "c.bin", 2)


def test_ppmi_matches_the_formula_and_svd_finds_groups(topics):
    groups, corpus = topics
    X = np.array([[0, 4, 1], [4, 2, 0], [1, 0, 6]], dtype=float)
    P = ppmi(sp.csr_matrix(X), cds=0.75, shift=1).toarray()
    c = X.sum(0) ** 0.75
    with np.errstate(divide="ignore"):
        expected = np.log(X * c.sum() / (X.sum(1)[:, None] * c[None, :]))
    np.testing.assert_allclose(P, np.where(expected > 0, expected, 0), atol=1e-12)
    vocab = Vocabulary.build(corpus, min_count=1)
    M = cooccur.count(corpus, vocab, 5, progress=False)
    from wv_engine import Vectors

    v = Vectors(vocab.words, svd_vectors(M, dim=8))
    hits = sum(x in g for g in groups for w in g for x, _ in v.most_similar(w, topn=5))
    assert hits / (5 * 6 * 5) > 0.9


@pytest.mark.parametrize("kwargs,match", [(dict(x_max=0), "x_max"), (dict(alpha=-1), "alpha"),
                                          (dict(eta=0), "eta"), (dict(dim=0), "dim"), (dict(output="x"), "output")])
def test_bad_settings(kwargs, match):
    with pytest.raises(ValueError, match=match):
        GloVe(**kwargs)


def test_empty_corpus(text_file):
    from wv_engine import CorpusError

    with pytest.raises(CorpusError, match="no words"):
        GloVe().fit(text_file([], data=b"\n\n"))


def test_cli_glove_and_svd(tmp_path, topics, text_file):
    import json

    from wv_engine import load_vectors
    from wv_engine.cli import main

    _, corpus = topics
    path = text_file([" ".join(s) for s in corpus])
    out, stats = tmp_path / "g.txt", tmp_path / "g.json"
    assert main(["glove", path, "-o", str(out), "--dim", "8", "--window", "4", "--epochs", "3", "--x-max", "10",
                 "--min-count", "1", "--threads", "2", "--memory-limit", "64M", "--stats-json", str(stats),
                 "--quiet", "--save-cooccurrence", str(tmp_path / "c.bin"), "--grid", "3"]) == 0
    data = json.loads(stats.read_text())
    assert data["grid_bands"] == 3 and data["config"]["grid"] == 3
    for key in ("vocab_size", "nonzeros", "count_seconds", "train_seconds", "total_seconds", "epoch_cost"):
        assert key in data
    assert data["vocab_size"] == 30 and len(data["epoch_cost"]) == 3
    first = out.read_text().split("\n", 1)[0].split()
    assert len(first) == 9 and first[0].startswith("g")  # GloVe text: no header
    assert len(load_vectors(out)) == 30
    assert os.path.getsize(tmp_path / "c.bin") == 16 * data["nonzeros"]
    assert main(["svd", path, "-o", str(tmp_path / "s.bin"), "--dim", "5", "--min-count", "1",
                 "--format", "bin", "--quiet"]) == 0
    assert load_vectors(tmp_path / "s.bin").dim == 5
    with pytest.raises(SystemExit):
        main(["glove", path, "-o", str(out), "--memory-limit", "lots", "--quiet"])


def test_ctrl_c_during_counting_leaves_no_temporary_files(tmp_path, sigint_raises):
    from wv_engine import EncodedCorpus

    rng = np.random.default_rng(0)
    n, V = 20_000_000, 5000
    ids = rng.integers(0, V, n, dtype=np.int32)
    vocab = Vocabulary([f"w{i}" for i in range(V)], np.arange(V, 0, -1))
    corpus = EncodedCorpus(ids=ids, tokens=n, words=n, oov=0, sentences=1)
    spill = tmp_path / "spill"
    spill.mkdir()
    timer = threading.Timer(1.0, _thread.interrupt_main)
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        # a small cap: runs are spilling to spill/ when the interrupt comes
        cooccur.count(corpus, vocab, 15, threads=2, memory_limit="2M", tmp_dir=str(spill), progress=False)
    timer.cancel()
    assert os.listdir(spill) == []


def test_glove_is_exported_from_the_package():
    import wv_engine
    from wv_engine.glove import GloVe as Direct

    assert wv_engine.GloVe is Direct and "GloVe" in wv_engine.__all__
