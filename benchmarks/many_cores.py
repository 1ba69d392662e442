"""Thread scaling on a many-core machine in one go (a lent machine is held
for minutes, so everything runs from one command):

    python -m benchmarks.many_cores OUT_DIR CORPUS [--max-threads N] [--no-build] [--dry-run]

1. builds the compiled modules in place (build_ext --inplace --force:
   setuptools does not notice a changed header, and a kept build may be
   stale), log in OUT_DIR/build.log;
2. benchmarks.cpu_probe: what the cores give with nothing shared (the clock
   under load, hyperthread pairs) -> cpu_probe.json;
3. benchmarks.thread_scaling: SG-NS (3 repeats) -> scaling_sg_ns.json, CBOW-NS
   and SG-HS (1 repeat) -> scaling_cbow_hs.json, at 1, 2, 4, 8, 12, 16, 24,
   32, 48, 64 threads up to N, and N;
4. benchmarks.glove_scaling: counting and one epoch, on the grid and without -> glove_scaling.json;
5. benchmarks.plot_scaling -> scaling.png, when matplotlib is importable.

Every step prints its table and goes on if the one before failed; the exit
status is 1 if any failed. --dry-run prints the commands and runs nothing."""

from __future__ import annotations

import argparse
import importlib.util
import os
import shlex
import subprocess
import sys

from .runners import REPO_ROOT

CURVE = (2, 4, 8, 12, 16, 24, 32, 48, 64)


def thread_counts(max_threads: int) -> str:
    """1, the counts of CURVE up to max_threads, and max_threads itself."""
    counts = [1, *(t for t in CURVE if t <= max_threads)]
    if max_threads not in counts:
        counts.append(max_threads)
    return ",".join(map(str, counts))


def steps(out: str, corpus: str, max_threads: int, probe_seconds: float) -> list[tuple[str, list[str]]]:
    """(name, argv) of every step after the build, in order."""
    curve = thread_counts(max_threads)
    copies = ",".join(map(str, sorted({1, max(1, max_threads // 2), max_threads})))
    py = [sys.executable, "-m"]
    run = [
        ("cpu_probe", py + ["benchmarks.cpu_probe", "--copies", copies, "--seconds", str(probe_seconds),
                            "--json", os.path.join(out, "cpu_probe.json")]),
        ("sg-ns curve", py + ["benchmarks.thread_scaling", "--corpus", corpus, "--threads", curve,
                              "--repeats", "3", "--modes", "sg-ns",
                              "--json", os.path.join(out, "scaling_sg_ns.json")]),
        ("cbow-ns, sg-hs curves", py + ["benchmarks.thread_scaling", "--corpus", corpus, "--threads", curve,
                                        "--repeats", "1", "--modes", "cbow-ns,sg-hs",
                                        "--json", os.path.join(out, "scaling_cbow_hs.json")]),
        ("glove curve", py + ["benchmarks.glove_scaling", "--corpus", corpus, "--threads", curve,
                              "--grid", "4x,0", "--json", os.path.join(out, "glove_scaling.json")]),
    ]
    if importlib.util.find_spec("matplotlib") is not None:
        run.append(("plot", py + ["benchmarks.plot_scaling", os.path.join(out, "scaling.png"),
                                  os.path.join(out, "scaling_sg_ns.json"),
                                  os.path.join(out, "scaling_cbow_hs.json")]))
    return run


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.many_cores", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out", metavar="OUT_DIR")
    p.add_argument("corpus", metavar="CORPUS")
    p.add_argument("--max-threads", type=int, default=os.cpu_count() or 1,
                   help="the largest thread count (default: this machine's cores)")
    p.add_argument("--probe-seconds", type=float, default=1.0,
                   help="about how long one cpu_probe copy runs alone (default 1)")
    p.add_argument("--no-build", action="store_true", help="use the compiled modules as they are")
    p.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    a = p.parse_args(argv)
    if a.max_threads < 1:
        p.error("--max-threads must be >= 1")
    out, corpus = os.path.abspath(a.out), os.path.abspath(a.corpus)
    build = [sys.executable, "setup.py", "build_ext", "--inplace", "--force"]
    plan = steps(out, corpus, a.max_threads, a.probe_seconds)
    if a.dry_run:
        if not a.no_build:
            print(f"(cd {shlex.quote(REPO_ROOT)} && {shlex.join(build)} > {shlex.quote(out)}/build.log)")
        for _, cmd in plan:
            print(shlex.join(cmd))
        return 0
    if not os.path.isfile(corpus):
        p.error(f"CORPUS {a.corpus}: no such file")
    os.makedirs(out, exist_ok=True)
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    if not a.no_build:
        log = os.path.join(out, "build.log")
        with open(log, "w") as f:
            done = subprocess.run(build, cwd=REPO_ROOT, stdout=f, stderr=subprocess.STDOUT, env=env)
        if done.returncode:
            with open(log) as f:
                print("".join(f.readlines()[-20:]), file=sys.stderr)
            return 1
    failed = []
    for name, cmd in plan:
        print(f"\n## {name}: {shlex.join(cmd)}", flush=True)
        if subprocess.run(cmd, cwd=REPO_ROOT, env=env).returncode:
            failed.append(name)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
