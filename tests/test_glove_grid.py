"""GloVe on a grid (FPSG-style scheduling, csrc/glove_grid.c): the records
of a grid are exactly make_records' records, sorted into the cells of bands
of about equal work that each hold frequent and rare ids; training cell by
cell on several threads visits every record once an epoch, converges as the
single shuffled order does (one grid too, on a small vocabulary), recovers
planted groups, is reproducible on one thread, and stops when asked."""

import heapq
import math

import numpy as np
import pytest

from wv_engine import _glove, cooccur
from wv_engine.glove import GloVe


@pytest.fixture(scope="module")
def sentences(make_zipf_sentences):
    return make_zipf_sentences(n_lines=2000, vocab=400, seed=3)


def csr_of(sentences, model):
    m = cooccur.count(sentences, model.vocab, model.window, progress=False).tocsr().astype(np.float32)
    m.sort_indices()
    return m.indptr.astype(np.int64), m.indices.astype(np.int32), m.data


def model(**kw):
    return GloVe(**{**dict(dim=10, window=5, epochs=6, min_count=1, x_max=10, seed=5, threads=1), **kw})


def dealt_bands(indptr, B):
    """The bands of the ids dealt in id order, each to the band with the
    fewest records so far (ties to the lower band), by heapq."""
    heap, band_of = [(0, b) for b in range(B)], []
    for i in range(len(indptr) - 1):
        load, b = heapq.heappop(heap)
        band_of.append(b)
        heapq.heappush(heap, (load + int(indptr[i + 1] - indptr[i]), b))
    return np.array(band_of)


def test_grid_records_are_the_records_sorted_into_cells_of_dealt_bands(sentences, record_set):
    m = model()
    m.build_vocab(sentences)
    csr = csr_of(sentences, m)
    plain = _glove.make_records(*csr, 10.0, 0.75, 5)
    B = 6
    records, cells = _glove.make_grid_records(*csr, 10.0, 0.75, 5, B)
    assert cells.shape == (B * B + 1,) and cells[0] == 0 and cells[-1] == len(plain)
    np.testing.assert_array_equal(record_set(records), record_set(plain))
    cell_of = np.repeat(np.arange(B * B), np.diff(cells))
    rb, cb = cell_of // B, cell_of % B
    # each id in the band dealing gives it, alike for rows and columns
    band_of = dealt_bands(csr[0], B)
    np.testing.assert_array_equal(band_of[records["row"]], rb)
    np.testing.assert_array_equal(band_of[records["col"]], cb)
    # about equal work per row band, although the counts are Zipfian; frequent and rare ids in every band
    work, per_id = np.bincount(rb, minlength=B), np.diff(csr[0])
    assert work.max() - work.min() <= per_id.max()
    assert sorted(band_of[:B]) == list(range(B))
    assert set(band_of[len(band_of) // 2:]) == set(range(B))
    # within a cell the order is shuffled, not the CSR order
    first = records[cells[0]:cells[1]]
    assert not np.all(np.diff(first["row"].astype(np.int64) * 10**6 + first["col"]) > 0)


def test_cell_by_cell_training_converges_as_the_single_order_and_sees_every_record(sentences):
    """On 4 threads every record is trained once an epoch and the cost
    falls; the final cost is compared with the single order's at one thread,
    where both runs are deterministic (on 4 threads sharing 2 loaded cores
    the two Hogwild runs' costs spread past the 5%: 1.00-1.05 here)."""
    grid = model(threads=4, grid=5).fit(sentences, progress=False)
    assert grid._cells is not None
    n = len(grid._records)
    assert [e.records for e in grid.last_stats.epochs] == [n] * 6 and grid._core.words_done == n
    a = grid.last_stats.epoch_cost
    assert a[-1] < 0.95 * a[0]
    one, plain = (model(threads=1, grid=g).fit(sentences, progress=False) for g in (5, 0))
    assert one._cells is not None and plain._cells is None
    a, b = one.last_stats.epoch_cost, plain.last_stats.epoch_cost
    assert abs(a[-1] - b[-1]) < 0.05 * b[-1]


def test_grid_recovers_planted_groups():
    rng = np.random.default_rng(1)
    groups = [[f"g{t}w{w}" for w in range(6)] for t in range(5)]
    every = [w for g in groups for w in g]
    corpus = [[g[rng.integers(6)] if rng.random() < 0.7 else every[rng.integers(30)] for _ in range(10)]
              for g in (groups[rng.integers(5)] for _ in range(3000))]
    m = GloVe(dim=10, window=5, min_count=1, epochs=15, x_max=10, threads=3, grid=4).fit(corpus, progress=False)
    hits = sum(x in g for g in groups for w in g for x, _ in m.vectors.most_similar(w, topn=5))
    assert hits / (5 * 6 * 5) > 0.9


def test_one_thread_on_a_grid_is_reproducible(sentences):
    """(Resuming on a grid: test_glove.py's checkpoint test.)"""
    straight = model(grid=3, epochs=3).fit(sentences, progress=False)
    again = model(grid=3, epochs=3).fit(sentences, progress=False)
    for k in straight.params:
        np.testing.assert_array_equal(straight.params[k], again.params[k], err_msg=k)


def test_the_default_is_the_rule_and_glove_c_order_one_setting_away(sentences):
    two = model(threads=2).fit(sentences, progress=False)
    assert two.grid is None and two.last_stats.grid_bands == 32 and two.last_stats.grid_rounds == 1
    assert len(two._cells) == 32 * 32 + 1
    one = model(threads=1).fit(sentences, progress=False)
    assert one._cells is None and one.last_stats.grid_bands == 0
    plain = model(threads=2, grid=0).fit(sentences, progress=False)
    assert plain._cells is None and plain.last_stats.grid_bands == plain.last_stats.grid_rounds == 0


def objective(m):
    """glove.c's cost of the model's parameters over every non-zero, in
    float64: the mean of f(x) (w.c + b + b~ - log x)^2 / 2."""
    x = m.cooccurrence.tocoo()
    p = {k: v.astype(np.float64) for k, v in m.params.items()}
    d = (np.einsum("ij,ij->i", p["word"][x.row], p["context"][x.col]) + p["word_bias"][x.row]
         + p["context_bias"][x.col] - np.log(x.data))
    return float(np.mean(0.5 * np.minimum(1.0, (x.data / m.x_max) ** m.alpha) * d * d))


def test_the_objective_is_glove_c_cost_of_the_parameters_over_every_non_zero(sentences):
    """GloVe.objective, read in chunks, against the formula above, against a
    loop over the non-zeros one by one, and it falls as training goes on."""
    m = model(threads=1, epochs=2).fit(sentences, progress=False, keep_cooccurrence=True)
    assert m.objective(chunk=7) == pytest.approx(objective(m), rel=1e-6)  # the formula takes log x in float32
    x = m.cooccurrence.tocoo()
    P = {k: v.astype(np.float64) for k, v in m.params.items()}
    one_by_one = [min(1.0, (v / 10) ** 0.75) * (P["word"][i] @ P["context"][j] + P["word_bias"][i]
                                                + P["context_bias"][j] - np.log(v)) ** 2 / 2
                  for i, j, v in zip(x.row[:500], x.col[:500], x.data[:500].astype(np.float64))]
    head = x.copy()
    head.data[500:] = 0
    head.eliminate_zeros()
    assert m.objective(head) == pytest.approx(np.mean(one_by_one), rel=1e-9)
    before = m.objective()
    m.train(epochs=2, progress=False)
    assert m.objective() < before
    with pytest.raises(ValueError, match="shape|vocabulary"):
        m.objective(x.tocsr()[:5, :5])


def test_one_grid_converges_as_glove_c_order_on_a_small_vocabulary(sentences):
    """On a 400-word corpus the grid's cost, as training reports it and as
    the objective of the final parameters, ends within 1% of glove.c's
    order's, in one round or in many. (Bands of consecutive ids, the most
    frequent words all in band 0, stalled here in one round: a word's
    records in a cell then come from one stratum of frequencies.) One
    thread: every run deterministic."""
    runs = {r: model(threads=1, grid=8, grid_rounds=r, epochs=15).fit(sentences, progress=False,
                                                                      keep_cooccurrence=True) for r in (1, 32)}
    order = model(threads=1, grid=0, epochs=15).fit(sentences, progress=False, keep_cooccurrence=True)
    final = order.last_stats.epoch_cost[-1]
    for run in runs.values():
        assert abs(run.last_stats.epoch_cost[-1] - final) < 0.01 * final
        assert abs(objective(run) - objective(order)) < 0.01 * objective(order)


def test_rounds_split_the_records_at_random_into_grids_of_the_same_bands(sentences, record_set):
    m = model()
    m.build_vocab(sentences)
    csr = csr_of(sentences, m)
    B, R = 4, 8
    one, cells1 = _glove.make_grid_records(*csr, 10.0, 0.75, 5, B)
    records, cells = _glove.make_grid_records(*csr, 10.0, 0.75, 5, B, R)
    np.testing.assert_array_equal(record_set(records), record_set(one))
    assert cells.shape == (R * B * B + 1,) and cells[-1] == len(one)
    cell_of = np.repeat(np.arange(R * B * B), np.diff(cells))
    rnd, rb, cb = cell_of // (B * B), cell_of // B % B, cell_of % B
    band_of_cell1 = np.repeat(np.arange(B * B), np.diff(cells1))
    # the same bands as one round: each id keeps its band, on both sides
    for side, band, band1 in (("row", rb, band_of_cell1 // B), ("col", cb, band_of_cell1 % B)):
        band_of_id = dict(zip(one[side].tolist(), band1.tolist()))
        assert [band_of_id[i] for i in records[side].tolist()] == band.tolist()
    # each round a random share of about 1/R of every cell
    per_round = np.bincount(rnd, minlength=R)
    assert per_round.min() > 0.8 * len(records) / R and per_round.max() < 1.2 * len(records) / R


def test_a_stop_ends_a_grid_epoch(sentences):
    m = model(threads=4, grid=8, epochs=1)
    m.build_vocab(sentences)
    m.count_records(sentences, progress=False)
    core = _glove.GloVeCore(eta=m.eta, **m.params)
    core.set_records(m._records, m._cells, 1, 8)
    core.start_epoch(4, 1)
    core.request_stop()
    assert core.wait(30.0)
    core.join_epoch()


@pytest.mark.parametrize("grid", [-1, 257, 2.5, "4"])
def test_bad_grid_is_refused(grid):
    with pytest.raises(ValueError, match="grid"):
        GloVe(grid=grid)



@pytest.mark.parametrize("rounds", [0, 1025, 2.5, "4"])
def test_bad_grid_rounds_are_refused(rounds):
    with pytest.raises(ValueError, match="grid_rounds"):
        GloVe(grid_rounds=rounds)


def test_cells_that_do_not_fit_the_records_are_refused(sentences):
    m = model(grid=3)
    m.build_vocab(sentences)
    m.count_records(sentences, progress=False)
    core = _glove.GloVeCore(eta=m.eta, **m.params)
    for bad in (m._cells[:-1], m._cells[::-1], np.append(m._cells[:-1], len(m._records) + 1)):
        with pytest.raises(ValueError, match="cells"):
            core.set_records(m._records, bad)
    with pytest.raises(ValueError, match="bands"):
        _glove.make_grid_records(*csr_of(sentences, m), 10.0, 0.75, 5, 0)
    with pytest.raises(ValueError, match="rounds"):
        _glove.make_grid_records(*csr_of(sentences, m), 10.0, 0.75, 5, 3, 0)


def test_out_of_core_blocks_are_whole_cells_of_one_grid(sentences, tmp_path):
    """Out of core on a grid, the bands are dealt before the count from each
    word's estimated records (its count times the window's two sides, at
    most the vocabulary), as many as asked while each block gets 16 cells,
    and the cells are dealt to the blocks at random, as many to each; each
    block holds whole cells, so an epoch's blocks make one grid: every
    record once an epoch on two threads, and costs near the in-memory
    grid's."""
    ooc = model(threads=2, memory_limit="1M", tmp_dir=str(tmp_path), epochs=6, grid=16)
    ooc.build_vocab(sentences)
    n = ooc.count_records(sentences, progress=False)
    K = ooc.record_blocks
    B = max(16, math.ceil(math.sqrt(16 * K)))  # 16 asked, more if a block would hold fewer than 16 cells
    assert K >= 2 and ooc._records.bands == B
    counts = np.asarray(ooc.vocab.counts, dtype=np.int64)
    band_of = dealt_bands(np.concatenate([[0], np.cumsum(np.minimum(counts * 10, len(counts)))]), B)
    blocks = [ooc._records.block(k) for k in range(K)]
    cells = [set(band_of[b["row"]] * B + band_of[b["col"]]) for b in blocks]
    assert sum(map(len, cells)) == len(set().union(*cells)) == B * B  # every cell in one block
    assert all(B * B // K <= len(c) <= -(-B * B // K) for c in cells)  # as many each (all non-empty here)
    assert max(map(len, blocks)) * 16 <= (1 << 20) * 7 / 16  # two blocks fit the limit
    more = model(threads=2, memory_limit="600K", tmp_dir=str(tmp_path), grid=8)
    more.build_vocab(sentences)
    more.count_records(sentences, progress=False)
    assert more.record_blocks >= 5 and more._records.bands == math.ceil(math.sqrt(16 * more.record_blocks)) > 8
    mem = model(threads=2, memory_limit="64M", epochs=6, grid=B)
    mem.build_vocab(sentences)
    assert mem.count_records(sentences, progress=False) == n
    a, b = ooc.train(progress=False), mem.train(progress=False)
    assert a.out_of_core and a.grid_bands == b.grid_bands == B and a.grid_rounds == b.grid_rounds == 1
    assert [e.records for e in a.epochs] == [n] * 6 and ooc._core.words_done == n
    # two Hogwild threads interleave differently each run: the first epoch's cost moves by ~2% (2.2% seen under ASan)
    np.testing.assert_allclose(a.epoch_cost[0], b.epoch_cost[0], rtol=0.04)
    np.testing.assert_allclose(a.epoch_cost[1:], b.epoch_cost[1:], rtol=0.02)
    ooc.grid = B  # its own bands are no change
    assert ooc.train(epochs=1, progress=False).grid_bands == B
    with pytest.raises(ValueError, match=f"grid of {B} bands, not 3"):
        ooc.grid = 3
        ooc.train(epochs=1, progress=False)
    # such blocks train on their grid; glove.c's order asks for a new count, rounds split each block's cells
    again = model(threads=2, memory_limit="1M", tmp_dir=str(tmp_path), epochs=1, grid_rounds=3)
    again.build_vocab(sentences)
    again.count_records(sentences, progress=False)
    again.grid = 0
    with pytest.raises(ValueError, match="count the corpus again with grid=0"):
        again.train(progress=False)
    again.grid = None
    stats = again.train(progress=False)
    assert stats.grid_rounds == 3 and stats.epochs[0].records == n
