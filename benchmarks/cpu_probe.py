"""What a machine's cores give when all of them are busy, measured apart
from any trainer: the ceiling that thread scaling is judged against.

    python -m benchmarks.cpu_probe [--copies 1,8,16] [--seconds 2] [--json PATH]

Runs independent copies of two small C loops at once (separate processes,
nothing shared) and reports each copy's speed against one copy alone:
- latency: one dependent chain of integer multiply-adds. It uses a sliver
  of a core, so it slows down only when the clock does (turbo lost under
  load, or a host that time-slices the virtual CPUs).
- throughput: eight independent AVX2 FMA chains, as many as a core's two
  FMA ports keep busy. Two virtual CPUs that are hyperthreads of one
  physical core share those ports, so with both busy each runs at about
  half speed; a virtual machine's own topology (lscpu) does not say so.
Needs a C compiler (cc) and an x86-64 CPU with AVX2 for the second loop."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

SOURCE = r"""
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
static unsigned long latency(unsigned long n) {
    unsigned long x = 1;
    for (unsigned long i = 0; i < n; i++) x = x * 6364136223846793005UL + 1442695040888963407UL;
    return x;
}
__attribute__((target("avx2,fma"))) static float throughput(unsigned long n) {
    __m256 a[8], m = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-7f);
    for (int k = 0; k < 8; k++) a[k] = _mm256_set1_ps((float)k);
    for (unsigned long i = 0; i < n; i++)
        for (int k = 0; k < 8; k++) a[k] = _mm256_fmadd_ps(a[k], m, c);
    float out[8], s = 0.0f;
    for (int k = 0; k < 8; k++) { _mm256_storeu_ps(out, a[k]); s += out[0]; }
    return s;
}
int main(int argc, char **argv) {
    unsigned long n = strtoul(argv[2], NULL, 10);
    if (argv[1][0] == 'l') printf("%lu\n", latency(n) & 1);
    else printf("%f\n", throughput(n));
    return 0;
}
"""

# iterations per copy for about one second on a ~3 GHz core
ITERATIONS = {"latency": 750_000_000, "throughput": 750_000_000}


def build(folder: str) -> str:
    src, exe = os.path.join(folder, "probe.c"), os.path.join(folder, "probe")
    with open(src, "w") as f:
        f.write(SOURCE)
    subprocess.run([os.environ.get("CC", "cc"), "-O2", "-o", exe, src], check=True)
    return exe


def run_copies(exe: str, kernel: str, copies: int, iterations: int) -> list[float]:
    """Wall seconds of each of `copies` processes started together."""
    start = time.perf_counter()
    procs = [subprocess.Popen([exe, kernel, str(iterations)], stdout=subprocess.DEVNULL) for _ in range(copies)]
    ends = []
    pending = list(procs)
    while pending:
        for p in list(pending):
            if p.poll() is not None:
                ends.append(time.perf_counter() - start)
                pending.remove(p)
        time.sleep(0.002)
    if any(p.returncode for p in procs):
        raise RuntimeError(f"a {kernel} copy failed")
    return ends


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.cpu_probe", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    n = os.cpu_count() or 1
    p.add_argument("--copies", default=",".join(str(c) for c in sorted({1, max(1, n // 2), n})))
    p.add_argument("--seconds", type=float, default=2.0, help="about how long one copy alone runs")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--json", metavar="PATH")
    args = p.parse_args(argv)
    copies = [int(c) for c in args.copies.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        exe = build(folder)
        for kernel, base_iters in ITERATIONS.items():
            iters = int(base_iters * args.seconds)
            alone = statistics.median(max(run_copies(exe, kernel, 1, iters)) for _ in range(args.repeats))
            for c in copies:
                walls = [statistics.median(run_copies(exe, kernel, c, iters)) for _ in range(args.repeats)]
                per_copy = alone / statistics.median(walls)
                rows.append({"kernel": kernel, "copies": c, "alone_seconds": alone,
                             "median_copy_seconds": statistics.median(walls),
                             "speed_per_copy": per_copy, "aggregate": per_copy * c})
                print(f"{kernel} copies={c}: each at {per_copy:.2f}x of one alone, "
                      f"{per_copy * c:.1f}x in all", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cores": n, "runs": rows}, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
