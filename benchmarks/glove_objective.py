"""GloVe in memory against out of core, judged by the objective: after each
epoch, GloVe.objective of the parameters over every non-zero (which, unlike
the printed cost, does not depend on the order), and the printed cost, for
each seed. Stanford's demo settings (dim 100, window 15, x_max 10, min_count
5) unless told otherwise.

    python -m benchmarks.glove_objective --corpus wiki_17m.txt --memory-limit 512M --seeds 1,2,3 \
        [--epochs 3] [--threads 2] [--memory-grid B] [--tmp-dir T] [--json OUT.json]

--memory-grid B trains in memory on B bands (default: the rule, as out of
core), e.g. on the bands out of core settled on, to compare at equal bands.
"""

from __future__ import annotations

import argparse
import json
import statistics

from wv_engine.corpus import Corpus
from wv_engine.glove import GloVe


def run(corpus: Corpus, matrix, seed: int, args, **kw) -> dict:
    m = GloVe(dim=100, window=args.window, x_max=10.0, min_count=5, epochs=args.epochs, threads=args.threads,
              seed=seed, **kw)
    objective = []
    m.fit(corpus, progress=False, callbacks=[lambda model, epoch: objective.append(model.objective(matrix))])
    s = m.last_stats
    return {"seed": seed, "blocks": s.blocks, "grid_bands": s.grid_bands, "grid_rounds": s.grid_rounds,
            "printed": s.epoch_cost, "objective": objective}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.glove_objective", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--corpus", required=True)
    p.add_argument("--memory-limit", default="512M", help="out of core's limit")
    p.add_argument("--seeds", default="1,2,3")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--window", type=int, default=15)
    p.add_argument("--memory-grid", type=int, default=None, metavar="B", help="in memory's bands (default: the rule)")
    p.add_argument("--tmp-dir", default=None)
    p.add_argument("--json", metavar="PATH")
    args = p.parse_args(argv)
    corpus = Corpus.of(args.corpus)
    counter = GloVe(window=args.window, min_count=5)
    counter.build_vocab(corpus)
    matrix = counter.count(corpus, progress=False)  # the objective's non-zeros, counted once
    rows = []
    for seed in (int(s) for s in args.seeds.split(",")):
        memory = run(corpus, matrix, seed, args, grid=args.memory_grid)
        disk = run(corpus, matrix, seed, args, memory_limit=args.memory_limit, tmp_dir=args.tmp_dir)
        rows.append({"seed": seed, "memory": memory, "out_of_core": disk})
        print(json.dumps(rows[-1]), flush=True)
    print(f"\nout of core ({rows[0]['out_of_core']['blocks']} blocks, {rows[0]['out_of_core']['grid_bands']} bands) "
          f"against in memory ({rows[0]['memory']['grid_bands']} bands), medians over seeds, % above:")
    for key in ("objective", "printed"):
        above = [statistics.median(r["out_of_core"][key][e] / r["memory"][key][e] - 1 for r in rows) * 100
                 for e in range(args.epochs)]
        print(f"{key}: " + " / ".join(f"{a:+.2f}" for a in above))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"corpus": args.corpus, "memory_limit": args.memory_limit, "runs": rows}, f, indent=1)


if __name__ == "__main__":
    main()
