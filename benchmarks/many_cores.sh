#!/usr/bin/env bash
# Thread scaling on a many-core machine in one go (a lent machine is held for
# minutes, so everything runs from one command):
#
#     bash benchmarks/many_cores.sh OUT_DIR CORPUS [MAX_THREADS]
#
# 1. cpu_probe.py: what the cores give with nothing shared (clock under load,
#    hyperthread pairs);
# 2. thread_scaling.py: SG-NS, CBOW-NS and SG-HS at 1..MAX_THREADS;
# 3. the hot-row merge interval at MAX_THREADS: this build against one with
#    CFLAGS=-DWV_HOT_SYNC_WORDS=4096 (csrc/w2v.c), runs alternated;
# 4. glove_scaling.py.
# Builds in place first (build_ext --inplace --force: setuptools does not
# notice a changed header, and a kept build may be stale). Every step
# writes JSON into OUT_DIR and prints its table.
set -uo pipefail
out=${1:?OUT_DIR}; corpus=$(realpath "${2:?CORPUS}"); max=${3:-$(nproc)}
mkdir -p "$out"; out=$(realpath "$out")
here=$(cd "$(dirname "$0")/.." && pwd)
export PYTHONUNBUFFERED=1
cd "$here"
python3 setup.py build_ext --inplace --force > "$out/build.log" 2>&1 || { tail -20 "$out/build.log"; exit 1; }

curve=1
for t in 2 4 8 12 16 24 32 48 64; do [ "$t" -le "$max" ] && curve="$curve,$t"; done
[[ ",$curve," == *",$max,"* ]] || curve="$curve,$max"

python3 benchmarks/cpu_probe.py --copies "1,$((max / 2)),$max" --seconds 1 --json "$out/cpu_probe.json"
python3 benchmarks/thread_scaling.py --corpus "$corpus" --threads "$curve" --repeats 3 --modes sg-ns \
    --json "$out/scaling_sg_ns.json"
python3 benchmarks/thread_scaling.py --corpus "$corpus" --threads "$curve" --repeats 1 --modes cbow-ns,sg-hs \
    --json "$out/scaling_cbow_hs.json"

# the merge interval: a second build of the same tree with the override
alt=$(mktemp -d)
tar --exclude=./build --exclude='*.so' --exclude=./.git --exclude=./.bench_data -cf - . | tar -xf - -C "$alt"
(cd "$alt" && CFLAGS=-DWV_HOT_SYNC_WORDS=4096 python3 setup.py build_ext --inplace > build.log 2>&1) || exit 1
for r in 1 2 3; do
    for build in default sync4096; do
        dir=$here; [ "$build" = sync4096 ] && dir=$alt
        (cd "$dir" && python3 benchmarks/thread_scaling.py --corpus "$corpus" --threads "$max" --repeats 1 \
            --json "$alt/$build-$r.json" | grep "words/s$" | sed "s/^/$build: /")
    done
done
python3 - "$alt" "$out/sync_ab.json" <<'PY'
import glob, json, os, sys
runs = []
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*-*.json"))):
    build, rnd = os.path.basename(path)[:-5].rsplit("-", 1)
    for run in json.load(open(path))["runs"]:
        runs.append(dict(run, build=build, round=int(rnd)))
json.dump({"what": "WV_HOT_SYNC_WORDS 1024 (default) against 4096, alternated", "runs": runs},
          open(sys.argv[2], "w"), indent=1)
PY
rm -rf "$alt"

python3 benchmarks/glove_scaling.py --corpus "$corpus" --threads "$curve" --json "$out/glove_scaling.json"
