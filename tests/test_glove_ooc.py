"""GloVe out of core: records written to shuffled blocks on disk by the
count and streamed by training, against the in-memory path (the same
records, close costs), reproducibility and resume, ids read from a file,
and nothing left in tmp_dir after success, an error or Ctrl-C."""

import _thread
import gc
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

from wv_engine import Vocabulary, cooccur
from wv_engine._glove import RecordBlocks
from wv_engine.corpus import encode
from wv_engine.glove import GloVe


@pytest.fixture(scope="module")
def sentences(make_zipf_sentences):
    return make_zipf_sentences()


def all_block_records(blocks: RecordBlocks):
    return np.concatenate([blocks.block(k) for k in range(blocks.n_blocks)])


def model(tmp_path, **kw):
    settings = dict(dim=10, window=5, epochs=5, threads=1, min_count=1, x_max=10, memory_limit="1M",
                    tmp_dir=str(tmp_path))
    return GloVe(**{**settings, **kw})


def test_blocks_hold_exactly_the_in_memory_records_and_train_as_well(sentences, tmp_path, record_set):
    ooc = model(tmp_path)
    ooc.build_vocab(sentences)
    n = ooc.count_records(sentences, progress=False)  # 1M cannot hold the records: chosen, not forced
    assert ooc.record_blocks >= 2 and n == len(ooc._records)
    # the files exist while the model holds them, unlinked: nothing to see in tmp_dir
    assert os.listdir(tmp_path) == []
    mem = model(tmp_path, memory_limit="64M")
    mem.build_vocab(sentences)
    assert mem.count_records(sentences, progress=False) == n and mem.record_blocks == 0
    # the same records as the CSR path, byte for byte, as a multiset
    expected, _ = mem._make_records(cooccur.count(sentences, mem.vocab, 5, progress=False))
    np.testing.assert_array_equal(record_set(all_block_records(ooc._records)), record_set(expected))
    np.testing.assert_array_equal(record_set(mem._records), record_set(expected))
    # the blocks are a random split: none holds (nearly) all, each is below 7/16 of the limit
    sizes = [len(ooc._records.block(k)) for k in range(ooc.record_blocks)]
    assert max(sizes) * 16 <= (1 << 20) * 7 / 16 and min(sizes) > 0
    a, b = ooc.train(progress=False), mem.train(progress=False)
    assert a.out_of_core and a.blocks == ooc.record_blocks and not b.out_of_core
    assert all(x > y for x, y in zip(a.epoch_cost, a.epoch_cost[1:]))  # converging
    for x, y in zip(a.epoch_cost, b.epoch_cost):
        assert abs(x - y) / y < 0.05  # the same records in an equally random order
    assert a.epoch_cost[-1] < 0.8 * a.epoch_cost[0]


def test_forcing_either_path_and_the_in_memory_path_is_unchanged(sentences, tmp_path):
    """fit() with room for everything trains exactly as train(count(...))."""
    fitted = model(tmp_path, memory_limit="64M", epochs=2).fit(sentences, progress=False)
    old = model(tmp_path, memory_limit="64M", epochs=2)
    old.build_vocab(sentences)
    old.train(old.count(sentences, progress=False), progress=False)
    for k in old.params:
        np.testing.assert_array_equal(old.params[k], fitted.params[k], err_msg=k)
    forced = model(tmp_path, memory_limit="64M")
    forced.build_vocab(sentences)
    forced.count_records(sentences, progress=False, out_of_core=True)
    assert forced.record_blocks == 1
    kept = model(tmp_path)
    kept.build_vocab(sentences)
    kept.count_records(sentences, progress=False, out_of_core=False)
    assert kept.record_blocks == 0 and isinstance(kept._records, np.ndarray)


def test_one_thread_out_of_core_is_reproducible_and_resumes_exactly(sentences, tmp_path):
    straight = model(tmp_path, epochs=4, seed=3).fit(sentences, progress=False)
    again = model(tmp_path, epochs=4, seed=3).fit(sentences, progress=False)
    for k in straight.params:
        np.testing.assert_array_equal(straight.params[k], again.params[k], err_msg=k)
    first = model(tmp_path, epochs=2, seed=3).fit(sentences, progress=False)
    first.save_checkpoint(tmp_path / "ck.npz")
    resumed = GloVe.load_checkpoint(tmp_path / "ck.npz")
    resumed.count_records(sentences, progress=False)  # a checkpoint holds no records: count again
    assert resumed.record_blocks >= 2
    resumed.train(epochs=2, progress=False)
    for k in straight.params:
        np.testing.assert_array_equal(straight.params[k], resumed.params[k], err_msg=k)
    os.remove(tmp_path / "ck.npz")
    del straight, again, first, resumed
    gc.collect()
    assert os.listdir(tmp_path) == []


def test_each_epoch_draws_a_new_order_unless_kept(sentences, tmp_path):
    costs = {}
    for reshuffle in (True, False):
        m = model(tmp_path, epochs=3, threads=1)
        m.reshuffle_blocks = reshuffle
        costs[reshuffle] = m.fit(sentences, progress=False).last_stats.epoch_cost
    # the first epoch's order is drawn the same way; later ones differ
    assert costs[True][0] != costs[False][0] or costs[True][1] != costs[False][1]
    np.testing.assert_allclose(costs[True], costs[False], rtol=0.05)


def test_two_threads_stream_every_record_once_per_epoch(sentences, tmp_path):
    m = model(tmp_path, threads=2, epochs=3)
    m.build_vocab(sentences)
    n = m.count_records(sentences, progress=False)
    stats = m.train(progress=False)
    assert [e.records for e in stats.epochs] == [n] * 3
    assert m._core.words_done == n  # progress counted every record of the last epoch
    assert np.isfinite(m.vectors.vectors).all()


def test_ids_read_from_a_file_count_the_same(sentences, tmp_path):
    vocab = Vocabulary.build(sentences, min_count=1)
    on_disk = encode(sentences, vocab.words_as_bytes(), on_disk=True, tmp_dir=str(tmp_path))
    assert on_disk.file is not None
    from_file = cooccur.count(on_disk, vocab, 7, threads=2, memory_limit="1M", progress=False)
    in_memory = cooccur.count(sentences, vocab, 7, threads=2, memory_limit="1M", progress=False)
    assert (from_file != in_memory).nnz == 0 and from_file.nnz == in_memory.nnz
    # a damaged file: an id outside the vocabulary is found as it is read
    os.pwrite(on_disk.file.fileno(), np.array([len(vocab) + 5], dtype=np.int32).tobytes(), 40)
    with pytest.raises(ValueError, match="outside the vocabulary"):
        cooccur.count(on_disk, vocab, 7, threads=1, memory_limit="1M", progress=False)


def test_ctrl_c_while_training_from_blocks_leaves_nothing(tmp_path, sigint_raises, make_zipf_sentences):
    sents = make_zipf_sentences(n_lines=20000, vocab=2000, seed=1)
    m = model(tmp_path, dim=50, epochs=500, threads=2)
    m.build_vocab(sents)
    m.count_records(sents, progress=False)
    assert m.record_blocks >= 2
    timer = threading.Timer(0.5, _thread.interrupt_main)
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        m.train(progress=False)
    timer.cancel()
    assert m.last_stats.interrupted and len(m.last_stats.epochs) < 500
    assert np.isfinite(m.vectors.vectors).all()
    m.train(epochs=1, progress=False)  # the blocks are still usable
    m.count(sents, progress=False)  # a new count releases them
    assert os.listdir(tmp_path) == []


FULL_DISK = r"""
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG) instead of killing
resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 10, 64 << 10))
from wv_engine.glove import GloVe  # the installed package (a source checkout may be unbuilt)
sys.path.insert(0, sys.argv[2])
from conftest import zipf_sentences
sents = zipf_sentences()
m = GloVe(dim=10, window=5, min_count=1, threads=1, memory_limit="4M", tmp_dir=sys.argv[1])
m.build_vocab(sents)
try:
    m.count_records(sents, progress=False, out_of_core=True)
except OSError as exc:
    print("OSError", exc)
"""


def test_a_full_disk_while_writing_blocks_is_a_clear_error_and_leaves_nothing(tmp_path):
    """The file size limit stands in for a full disk: the counting stays in
    memory, the blocks cannot be written."""
    spill = tmp_path / "spill"
    spill.mkdir()
    tests = os.path.dirname(os.path.abspath(__file__))
    run = subprocess.run([sys.executable, "-c", FULL_DISK, str(spill), tests],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "OSError" in run.stdout and "training blocks" in run.stdout and str(spill) in run.stdout, run.stdout
    assert os.listdir(spill) == []


def test_without_a_memory_limit_the_records_stay_in_memory_while_they_fit(sentences, tmp_path, monkeypatch):
    # The default memory_limit caps the counting buffers; the choice of blocks
    # is made against half the memory available unless a limit is given.
    import wv_engine.cooccur as cooccur_module
    import wv_engine.glove.model as glove_module

    monkeypatch.setattr(cooccur_module, "default_memory_limit", lambda: 1 << 20)  # 1M: blocks if it counted
    unset = GloVe(dim=10, window=5, epochs=1, threads=1, min_count=1, tmp_dir=str(tmp_path))
    unset.count_records(sentences, progress=False)
    assert unset.record_blocks == 0
    monkeypatch.setattr(glove_module, "available_memory", lambda: 0)  # nothing available: the limit decides
    starved = GloVe(dim=10, window=5, epochs=1, threads=1, min_count=1, tmp_dir=str(tmp_path))
    starved.count_records(sentences, progress=False)
    assert starved.record_blocks >= 2
