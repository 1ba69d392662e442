"""How close each trainer comes to what this machine's cores can do (issue
#60's limit table), in one command:

    python -m benchmarks.limits --corpus wiki_17m.txt [--glove-corpus wiki_medium.txt] [--threads 2]
        [--repeats 3] [--json PATH] [--markdown]

Work. Every word2vec-family trainer, and GloVe, spends its time in one unit
step: a dot product of two D-float rows, then each row moved along the
other (skip-gram's and CBOW's step for the target or a negative or a node of
the Huffman path; a GloVe record is two of them, its rows and their AdaGrad
sums). The steps per in-vocabulary corpus word follow from the vocabulary
and the settings alone, counted here without timing anything:
- kept = the share of the words subsampling keeps (word2vec.c's formula);
  contexts = window + 1 on average (a reduced window drawn in 1..window on
  each side; sentence edges ignored, which counts a little too much work);
- skip-gram NS: kept x contexts x (1 + negative); HS: kept x contexts x the
  mean Huffman code length of the kept words;
- CBOW: kept x (1 + negative, or the code length) plus the context rows
  gathered into their mean and the gradient scattered back, 2/3 of a step a
  context row (a sum and an axpy against a dot and two axpys);
- subwords (skip-gram, fastText's n-grams): skip-gram NS's steps plus each
  kept centre word's row and n-gram rows gathered and scattered once;
- GloVe: two steps a record (a record per non-zero of the co-occurrence
  matrix, an epoch), counted in records/s;
- phrases: every byte of the text looked at and every token and pair
  hashed, then two counter increments a token (the word, the pair with the
  word before) at random in a table of the words and pairs; joining the
  phrases afterwards is left out (a second read: the bound is generous).
Each flop and byte of a step is D FMAs for the dot and 2D for the axpys
(6D flops), rows of 4D bytes read and written.

Rates. A C probe runs steps six at a time in their best shape (one input
row against six output rows: the six dots in one pass with six independent
sums, then the six rows moved and their gradient summed in a second, the sum
added to the input row; six steps a row load, no chain of dependent FMAs)
with every core busy, the rows at random in a working set that fits L1 (the
arithmetic limit: loads, stores and FMAs, nothing from farther away), L2, L3
and memory; counter increments at random in a table the size of phrases'
one; and the text read from memory, each token and pair hashed.

Limit and share. best words/s = steps/s of the machine at L1 / steps per
word: no trainer can be faster, whatever its cache behaviour. The table
gives each trainer's measured words/s (the training phase and the whole
command, medians of --repeats runs of wv-engine's own command at the suite's
settings) as a share of that best, and the best at the L3 and memory rates:
where the share at L1 is low but the measured rate sits near the L3 or
memory bound, the rows' fetches bound it, not the arithmetic."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

PROBE = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static uint64_t next(uint64_t *s) { *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17; return *s; }
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
/* six steps at once, the best shape of skip-gram NS's work: one input row against six output rows, the
   six dots in one pass (six independent sums), then each output row moved and their gradient summed in
   a second pass, the sum added to the input row */
static double steps(long rows, int D, long n) {
    float *m = aligned_alloc(64, (size_t)rows * D * sizeof(float) + 64);
    if (!m) return -1;
    for (long i = 0; i < rows * D; i++) m[i] = (float)((i * 2654435761u) % 1000) * 1e-6f;
    uint64_t s = 88172645463325252ull;
    double t0 = now();
    for (long g = 0; g < n / 6; g++) {
        float *in = m + (next(&s) % rows) * D;
        float *o0 = m + (next(&s) % rows) * D, *o1 = m + (next(&s) % rows) * D, *o2 = m + (next(&s) % rows) * D;
        float *o3 = m + (next(&s) % rows) * D, *o4 = m + (next(&s) % rows) * D, *o5 = m + (next(&s) % rows) * D;
        float f0 = 0, f1 = 0, f2 = 0, f3 = 0, f4 = 0, f5 = 0;
        #pragma omp simd reduction(+:f0,f1,f2,f3,f4,f5)
        for (int i = 0; i < D; i++) {
            float x = in[i];
            f0 += x * o0[i]; f1 += x * o1[i]; f2 += x * o2[i]; f3 += x * o3[i]; f4 += x * o4[i]; f5 += x * o5[i];
        }
        float g0 = 1e-6f * (1 - f0), g1 = 1e-6f * (1 - f1), g2 = 1e-6f * (1 - f2);
        float g3 = 1e-6f * (1 - f3), g4 = 1e-6f * (1 - f4), g5 = 1e-6f * (1 - f5);
        #pragma omp simd
        for (int i = 0; i < D; i++) {
            float x = in[i];
            float e = g0 * o0[i] + g1 * o1[i] + g2 * o2[i] + g3 * o3[i] + g4 * o4[i] + g5 * o5[i];
            o0[i] += g0 * x; o1[i] += g1 * x; o2[i] += g2 * x; o3[i] += g3 * x; o4[i] += g4 * x; o5[i] += g5 * x;
            in[i] = x + e;
        }
    }
    double t = now() - t0;
    volatile float sink = m[0];
    (void)sink;
    free(m);
    return t;
}
static double increments(long slots, long n) {
    uint64_t *c = calloc(slots, sizeof(uint64_t));
    if (!c) return -1;
    uint64_t s = 88172645463325252ull;
    double t0 = now();
    for (long i = 0; i < n; i++) c[next(&s) % slots]++;
    double t = now() - t0;
    volatile uint64_t sink = c[0];
    (void)sink;
    free(c);
    return t;
}
/* the least a phrase count does with the text: every byte looked at, every token and pair hashed (FNV-1a) */
static double tokens(const char *path, long *count) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *text = malloc(size + 1);
    if (!text || fread(text, 1, size, f) != (size_t)size) return -1;
    fclose(f);
    double t0 = now();
    uint64_t h = 14695981039346656037ull, previous = 0, sum = 0;
    long n = 0;
    for (long i = 0; i <= size; i++) {
        unsigned char c = i < size ? text[i] : ' ';
        if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
            if (h != 14695981039346656037ull) { sum += h ^ (previous * 1099511628211ull); previous = h; n++; }
            h = 14695981039346656037ull;
        } else {
            h = (h ^ c) * 1099511628211ull;
        }
    }
    double t = now() - t0;
    volatile uint64_t sink = sum;
    (void)sink;
    free(text);
    *count = n;
    return t;
}
int main(int argc, char **argv) {
    long size = atol(argv[2]), n = atol(argv[4]);
    double t;
    if (argv[1][0] == 't') {
        t = tokens(argv[2], &n);
        printf("%.9f %ld\n", t, n);
        return t < 0;
    }
    t = argv[1][0] == 's' ? steps(size, atoi(argv[3]), n) : increments(size, n);
    printf("%.9f\n", t);
    return t < 0;
}
"""

# rows of the step probe's working set: L1 (16 KB at dim 100), L2 (800 KB), L3 (8 MB), memory (400 MB)
LEVELS = {"L1": 40, "L2": 2_000, "L3": 20_000, "memory": 1_000_000}
STEPS_A_PROBE = {"L1": 60_000_000, "L2": 30_000_000, "L3": 20_000_000, "memory": 6_000_000}
SETTINGS = dict(dim=100, window=5, negative=5, sample=1e-4, min_count=5)
FASTTEXT = dict(minn=3, maxn=6)


def build_probe(folder: str) -> str:
    src, exe = os.path.join(folder, "limits_probe.c"), os.path.join(folder, "limits_probe")
    with open(src, "w") as f:
        f.write(PROBE)
    subprocess.run([os.environ.get("CC", "cc"), "-std=gnu11", "-O3", "-march=native", "-fopenmp-simd", "-o", exe,
                    src], check=True)
    return exe


def probe_rate(exe: str, kind: str, size: int | str, dim: int, n: int, copies: int) -> float:
    """Operations a second of `copies` probes run together (one per core)."""
    procs = [subprocess.Popen([exe, kind, str(size), str(dim), str(n)], stdout=subprocess.PIPE, text=True)
             for _ in range(copies)]
    outputs = [p.communicate()[0].split() for p in procs]
    if any(p.returncode for p in procs):
        raise RuntimeError(f"the {kind} probe failed")
    n = int(outputs[0][1]) if kind == "tokens" else n
    return copies * n / statistics.median(float(out[0]) for out in outputs)


def machine_rates(threads: int, dim: int, phrase_slots: int, text: str, repeats: int) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        exe = build_probe(folder)
        rates = {f"steps_{level}": statistics.median(
            probe_rate(exe, "steps", rows, dim, STEPS_A_PROBE[level], threads) for _ in range(repeats))
            for level, rows in LEVELS.items()}
        rates["increments"] = statistics.median(
            probe_rate(exe, "count", phrase_slots, 0, 20_000_000, threads) for _ in range(repeats))
        rates["tokens"] = statistics.median(probe_rate(exe, "tokens", text, 0, 0, threads) for _ in range(repeats))
    return rates


def ngrams_of(word: str, minn: int, maxn: int) -> int:
    """How many character n-grams fastText gives `word`: every run of minn
    to maxn characters of <word>, the whole of it too when short enough."""
    n = len(word) + 2
    return sum(max(0, n - k + 1) for k in range(minn, maxn + 1))


def work_per_word(vocab, window: int, negative: int, sample: float) -> dict:
    """Steps per in-vocabulary corpus word of each word2vec-family trainer."""
    counts = vocab.counts.astype(np.float64)
    kept_counts = counts * vocab.keep_probabilities(sample)
    kept = kept_counts.sum() / counts.sum()
    code_length = vocab.huffman()[0].astype(np.float64)
    path = float((kept_counts * code_length).sum() / kept_counts.sum())
    grams = np.array([ngrams_of(w, FASTTEXT["minn"], FASTTEXT["maxn"]) for w in vocab.words], dtype=np.float64)
    rows_a_centre = float((kept_counts * (grams + 1)).sum() / kept_counts.sum())
    contexts = window + 1
    gather = 2 / 3
    return {
        "kept": kept, "path": path, "rows_a_centre": rows_a_centre,
        "sg-ns": kept * contexts * (1 + negative),
        "cbow-ns": kept * ((1 + negative) + contexts * gather),
        "sg-hs": kept * contexts * path,
        "cbow-hs": kept * (path + contexts * gather),
        "sg-sub": kept * (contexts * (1 + negative) + rows_a_centre * gather),
    }


def run_trainer(mode: str, corpus: str, threads: int, folder: str) -> dict:
    """One run of wv-engine's own command at the suite's settings; its stats."""
    stats = os.path.join(folder, f"{mode}.json")
    common = ["--threads", str(threads), "--stats-json", stats, "--quiet"]
    s = SETTINGS
    w2v = ["--dim", str(s["dim"]), "--window", str(s["window"]), "--negative", str(s["negative"]),
           "--sample", str(s["sample"]), "--min-count", str(s["min_count"]), "--epochs", "1"]
    commands = {
        "sg-ns": ["word2vec", corpus, "-o", os.path.join(folder, "v.bin"), "--arch", "skipgram", *w2v],
        "cbow-ns": ["word2vec", corpus, "-o", os.path.join(folder, "v.bin"), "--arch", "cbow", "--alpha", "0.05", *w2v],
        "sg-hs": ["word2vec", corpus, "-o", os.path.join(folder, "v.bin"), "--arch", "skipgram", "--loss", "hs", *w2v],
        "cbow-hs": ["word2vec", corpus, "-o", os.path.join(folder, "v.bin"), "--arch", "cbow", "--loss", "hs",
                    "--alpha", "0.05", *w2v],
        "sg-sub": ["fasttext", corpus, "-o", os.path.join(folder, "v.bin"), *w2v],
        "glove": ["glove", corpus, "-o", os.path.join(folder, "g.txt"), "--dim", "100", "--window", "10",
                  "--x-max", "10", "--epochs", "15"],
        "phrases": ["phrases", corpus, "-o", os.path.join(folder, "p.txt")],
    }
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "wv_engine.cli", *commands[mode], *common], check=True)
    wall = time.perf_counter() - started
    with open(stats) as f:
        data = json.load(f)
    data["wall_seconds"] = wall
    return data


def measured(mode: str, data: dict) -> tuple[float, float, float]:
    """(units trained, units/s in training, units/s whole command): corpus
    words for word2vec and phrases (tokens), records for GloVe."""
    if mode == "glove":
        units = data["nonzeros"] * data["epochs"]
        return units, units / data["train_seconds"], units / data["wall_seconds"]
    if mode == "phrases":
        units = data["passes"][0]["corpus_words"]
        return units, units / data["learn_seconds"], units / data["wall_seconds"]
    units = data["corpus_words"] * data["epochs"]
    return units, units / data["train_seconds"], units / data["wall_seconds"]


def best_rates(mode: str, steps: float, rates: dict) -> dict:
    """The most units/s a trainer can reach with its rows in L1, L3 and
    memory: the probe's step rate over its steps a unit; phrases' one bound
    (each token read and hashed, then two counts) whatever the level."""
    if mode == "phrases":
        bound = 1 / (1 / rates["tokens"] + 2 / rates["increments"])
        return {level: bound for level in ("L1", "L3", "memory")}
    return {level: rates[f"steps_{level}"] / steps for level in ("L1", "L3", "memory")}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.limits", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--corpus", required=True, help="plain text (wiki_17m.txt)")
    p.add_argument("--glove-corpus", help="GloVe's text (default: --corpus)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--modes", default="sg-ns,cbow-ns,sg-hs,cbow-hs,sg-sub,glove,phrases")
    p.add_argument("--json", metavar="PATH")
    p.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    a = p.parse_args(argv)
    from wv_engine.corpus import Corpus
    from wv_engine.vocab import Vocabulary

    modes = a.modes.split(",")
    vocab = Vocabulary.build(Corpus(a.corpus), SETTINGS["min_count"], threads=a.threads)
    work = work_per_word(vocab, SETTINGS["window"], SETTINGS["negative"], SETTINGS["sample"])
    runs: dict[str, list[dict]] = {m: [] for m in modes}
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(a.repeats):
            for mode in modes:
                corpus = a.glove_corpus or a.corpus if mode == "glove" else a.corpus
                runs[mode].append(run_trainer(mode, corpus, a.threads, folder))
    phrase_keys = max([r["passes"][0]["distinct_keys"] for r in runs.get("phrases", [])] or [1 << 22])
    rates = machine_rates(a.threads, SETTINGS["dim"], phrase_keys, a.corpus, a.repeats)
    rows = []
    for mode in modes:
        per = [measured(mode, r) for r in runs[mode]]
        train_rate = statistics.median(x[1] for x in per)
        whole_rate = statistics.median(x[2] for x in per)
        steps = 2.0 if mode in ("glove", "phrases") else work[mode]
        best = best_rates(mode, steps, rates)
        unit = {"phrases": "tokens", "glove": "records"}.get(mode, "words")
        rows.append({"mode": mode, "unit": unit, "steps_per_unit": steps,
                     "flops_per_unit": None if mode == "phrases" else 6 * SETTINGS["dim"] * steps,
                     "bytes_per_unit": None if mode == "phrases" else 2 * 2 * 4 * SETTINGS["dim"] * steps,
                     "train_rate": train_rate, "whole_rate": whole_rate, "best": best,
                     "share_train": train_rate / best["L1"], "share_whole": whole_rate / best["L1"],
                     "runs": runs[mode]})
    result = {"threads": a.threads, "corpus": a.corpus, "glove_corpus": a.glove_corpus, "work": work,
              "rates": rates, "rows": rows}
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1, default=str)
    print(markdown(result) if a.markdown else json.dumps({k: v for k, v in result.items() if k != "rows"}, indent=1))
    if not a.markdown:
        print(markdown(result))
    return 0


def markdown(result: dict) -> str:
    r = result["rates"]
    lines = [f"probe, {result['threads']} cores busy: {r['steps_L1'] / 1e6:.1f}M steps/s at L1, "
             f"{r['steps_L2'] / 1e6:.1f}M at L2, {r['steps_L3'] / 1e6:.1f}M at L3, {r['steps_memory'] / 1e6:.1f}M "
             f"from memory; {r['increments'] / 1e6:.0f}M counter increments/s in phrases' table; the text "
             f"read and hashed at {r['tokens'] / 1e6:.0f}M tokens/s",
             "",
             "| trainer | steps / unit | flops / unit | best at L1 | at L3 | from memory | ours, training | "
             "share | ours, whole command | share |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for row in result["rows"]:
        b = row["best"]
        flops = "" if row["flops_per_unit"] is None else f"{row['flops_per_unit']:,.0f}"
        lines.append(f"| {row['mode']} ({row['unit']}) | {row['steps_per_unit']:.2f} | {flops} | "
                     f"{b['L1'] / 1e6:.2f}M | {b['L3'] / 1e6:.2f}M | {b['memory'] / 1e6:.2f}M | "
                     f"{row['train_rate'] / 1e6:.2f}M | {row['share_train']:.0%} | {row['whole_rate'] / 1e6:.2f}M | "
                     f"{row['share_whole']:.0%} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
