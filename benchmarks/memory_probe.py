"""How fast this machine's caches and memory answer right now, read in about
half a second: the state a timed run starts in.

    python -m benchmarks.memory_probe [--count 10] [--every 5] [--json PATH]

A trainer's step updates rows of floats scattered over a large matrix, so its
speed follows the time one such update takes at each level of the memory
hierarchy, and on a shared virtual machine that time moves with the host's
other tenants. The probe updates random 100-float rows (400 bytes, a word
vector at dim 100) of a working set that fits the core's L2 (800 KB), one
that fits a shared L3 (8 MB) and one that fits neither (256 MB), and reports
nanoseconds per row update for each. The L2 figure follows the core's clock;
the other two follow the shared cache and memory.

The benchmark harness keeps one probe process alive for its whole
invocation (so that the 256 MB are allocated and touched once) and reads it
before and after every timed run (runs[].memory_probe in results.json).
Needs a C compiler (cc, or $CC)."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

LEVELS = ("l2_ns", "l3_ns", "dram_ns")

SOURCE = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#define DIM 100
static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
__attribute__((noinline)) static void axpy(float a, const float *x, float *y) {
    for (int i = 0; i < DIM; i++) y[i] += a * x[i];
}
/* ns per update of a random row of the first `rows` rows, over about `seconds` */
static double level(float *m, unsigned rows, double seconds, unsigned *state) {
    float g[DIM];
    for (int i = 0; i < DIM; i++) g[i] = 1e-7f;
    long done = 0;
    double start = now(), t;
    do {
        for (int k = 0; k < 4096; k++) {
            *state = *state * 1664525u + 1013904223u;
            axpy(1e-3f, g, m + (size_t)((*state >> 4) % rows) * DIM);
        }
        done += 4096;
    } while ((t = now()) - start < seconds);
    return (t - start) / (double)done * 1e9;
}
int main(int argc, char **argv) {
    const unsigned sizes[3] = {2000, 20000, 640000}; /* 800 KB, 8 MB, 256 MB of rows */
    double seconds = argc > 1 ? atof(argv[1]) : 0.15;
    float *m = malloc((size_t)sizes[2] * DIM * sizeof *m);
    if (!m) return 1;
    for (size_t i = 0; i < (size_t)sizes[2] * DIM; i++) m[i] = 1e-3f;
    unsigned state = 1;
    char line[64];
    while (fgets(line, sizeof line, stdin)) {
        double ns[3];
        for (int l = 0; l < 3; l++) ns[l] = level(m, sizes[l], seconds, &state);
        printf("%.2f %.2f %.2f\n", ns[0], ns[1], ns[2]);
        fflush(stdout);
    }
    free(m);
    return 0;
}
"""


class MemoryProbe:
    """A running probe process; read() takes one reading. Use as a context
    manager. unavailable() says why it cannot run here (None when it can)."""

    def __init__(self, seconds_per_level: float = 0.15):
        self.seconds_per_level = seconds_per_level
        self._folder = None
        self._proc = None

    @staticmethod
    def unavailable() -> str | None:
        cc = os.environ.get("CC", "cc")
        return None if shutil.which(cc) else f"no C compiler ({cc}) to build the memory probe"

    def __enter__(self) -> "MemoryProbe":
        self._folder = tempfile.mkdtemp(prefix="wv_memory_probe_")
        src, exe = os.path.join(self._folder, "probe.c"), os.path.join(self._folder, "probe")
        with open(src, "w") as f:
            f.write(SOURCE)
        subprocess.run([os.environ.get("CC", "cc"), "-O3", "-o", exe, src], check=True)
        self._proc = subprocess.Popen([exe, str(self.seconds_per_level)], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, text=True)
        return self

    def read(self) -> dict:
        """{"l2_ns", "l3_ns", "dram_ns": ns per row update, "at": unix time}."""
        if self._proc is None or self._proc.poll() is not None:
            raise RuntimeError("the memory probe is not running")
        at = time.time()
        self._proc.stdin.write("go\n")
        self._proc.stdin.flush()
        values = [float(v) for v in self._proc.stdout.readline().split()]
        if len(values) != len(LEVELS):
            raise RuntimeError("the memory probe stopped answering")
        return {**dict(zip(LEVELS, values)), "at": round(at, 3)}

    def __exit__(self, *exc) -> None:
        if self._proc is not None:
            self._proc.stdin.close()
            self._proc.wait(timeout=30)
            self._proc = None
        if self._folder:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.memory_probe", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--count", type=int, default=10, help="readings (default 10)")
    p.add_argument("--every", type=float, default=5.0, help="seconds from one reading's start to the next")
    p.add_argument("--json", metavar="PATH", help="write the readings here")
    a = p.parse_args(argv)
    why = MemoryProbe.unavailable()
    if why:
        print(why, file=sys.stderr)
        return 2
    readings = []
    with MemoryProbe() as probe:
        for k in range(a.count):
            start = time.perf_counter()
            r = probe.read()
            readings.append(r)
            print("  ".join(f"{name} {r[name]:.1f}" for name in LEVELS), flush=True)
            if k + 1 < a.count:
                time.sleep(max(0.0, a.every - (time.perf_counter() - start)))
    for name in LEVELS:
        values = [r[name] for r in readings]
        print(f"{name}: {min(values):.1f}-{max(values):.1f} ({max(values) / min(values):.2f}x)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"readings": readings}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
