"""The C co-occurrence counter alone, under AddressSanitizer with leak
detection (tests/c/cooccur_leaks.c): the pytest run cannot check leaks,
because Python's own allocations would hide them."""

import os
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_cooccurrence_counter_frees_everything_and_agrees_across_threads(tmp_path):
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler")
    exe = tmp_path / "cooccur_leaks"
    sources = [os.path.join(ROOT, "tests", "c", "cooccur_leaks.c")] + [
        os.path.join(ROOT, "csrc", name) for name in ("cooccur.c", "cooc_csr.c", "parallel.c")]
    build = subprocess.run([cc, "-std=c11", "-O1", "-g", "-Wall", "-Wextra", "-Werror",
                            "-fsanitize=address,undefined", "-fno-omit-frame-pointer",
                            "-I", os.path.join(ROOT, "csrc"), *sources, "-o", str(exe), "-pthread"],
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
    assert run.stdout.count("spilled runs") == 6 and " 0 spilled runs" in run.stdout
    assert os.listdir(spill) == []
