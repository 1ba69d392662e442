"""The C co-occurrence counter, the external sort and the GloVe record blocks alone, under
AddressSanitizer with leak detection (tests/c/*.c): the pytest run cannot
check leaks, because Python's own allocations would hide them."""

import os
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_sanitized(tmp_path, test, csrc_sources):
    """Builds tests/c/<test>.c with csrc_sources under ASan/UBSan, runs it
    with a fresh spill directory as its argument (leak detection on) and
    returns (stdout, the spill directory)."""
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler")
    exe = tmp_path / test
    sources = [os.path.join(ROOT, "tests", "c", f"{test}.c")] + [
        os.path.join(ROOT, "csrc", name) for name in csrc_sources]
    build = subprocess.run([cc, "-std=c11", "-O1", "-g", "-Wall", "-Wextra", "-Werror",
                            "-fsanitize=address,undefined", "-fno-omit-frame-pointer",
                            "-I", os.path.join(ROOT, "csrc"), *sources, "-o", str(exe), "-pthread", "-lm"],
                           capture_output=True, text=True)
    if build.returncode != 0 and "sanitize" in build.stderr:
        pytest.skip(f"the compiler has no ASan: {build.stderr.strip()[:200]}")
    assert build.returncode == 0, build.stderr
    spill = tmp_path / "spill"
    spill.mkdir()
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1", UBSAN_OPTIONS="halt_on_error=1")
    env.pop("LD_PRELOAD", None)
    run = subprocess.run([str(exe), str(spill)], capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout, spill


def test_cooccurrence_counter_frees_everything_and_agrees_across_threads(tmp_path):
    out, spill = run_sanitized(tmp_path, "cooccur_leaks", ("cooccur.c", "extsort.c", "cooc_csr.c", "parallel.c", "hugepages.c"))
    assert out.count("spilled runs") == 6 and " 0 spilled runs" in out
    assert os.listdir(spill) == []


def test_external_sort_sums_spills_and_frees_everything(tmp_path):
    out, spill = run_sanitized(tmp_path, "extsort_test", ("extsort.c", "hugepages.c"))
    assert out.rstrip().endswith("ok")
    assert os.listdir(spill) == []


def test_glove_blocks_stream_every_record_once_and_free_everything(tmp_path):
    """Record blocks written by two writers, streamed over two epochs by a
    reader and two training threads (double-buffered), then a stopped
    epoch: every record once per epoch, no leak, no file left; blocks
    written by bands hold whole cells of the grid, as many in each."""
    out, spill = run_sanitized(tmp_path, "glove_blocks_test", ("glove_blocks.c", "glove_grid.c"))
    assert "every record once" in out and "stopped epoch returned" in out and out.rstrip().endswith("ok")
    assert "blocks by bands: whole cells" in out
    assert os.listdir(spill) == []


def test_word_counter_merges_by_part_and_frees_everything(tmp_path):
    """One counter against four counters of four parts merged part by part on
    four threads (200,000 distinct words), then pruning, encoding, and
    provisional ids resolved to the encoder's."""
    out, _ = run_sanitized(tmp_path, "counter_leaks", ("vocab.c", "strtab.c", "tokenize.c", "hugepages.c"))
    assert "200000 distinct" in out and ": same" in out and "pruned" in out and "resolved alike" in out


def test_glove_grid_cells_and_scheduler_free_everything(tmp_path):
    """Grid records of a skewed matrix, each once in its cell, bands of about
    equal work; the in-place sort of a block into cells agrees; four threads
    taking cells over two epochs: every cell once an epoch, no band held by
    two threads at once; a stop ends the epoch."""
    out, _ = run_sanitized(tmp_path, "glove_grid_test", ("glove_grid.c",))
    assert "records in their cells" in out and "sorted in place alike" in out
    assert "no band held twice" in out and "stopped epoch" in out
    assert out.rstrip().endswith("ok")
