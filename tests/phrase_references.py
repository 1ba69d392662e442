"""Independent references for the phrase tests, written from the
algorithms' descriptions (one table of word and pair counts, the scores,
greedy left-to-right joining), not from either tool's code."""

import math

import numpy as np


def w2p_reference(lines, min_count, threshold):
    """word2phrase.c's algorithm: words and "a_b" pairs in one table, pairs
    running on across line ends; a pair joins when (count(ab) - min_count) /
    count(a) / count(b) x words > threshold in float32 arithmetic, all three
    counts >= min_count, greedily from the left; lines never join."""
    counts, total, last = {}, 0, None
    for line in lines:
        for w in line:
            total += 1
            counts[w] = counts.get(w, 0) + 1
            if last is not None:
                counts[last + "_" + w] = counts.get(last + "_" + w, 0) + 1
            last = w
    f = np.float32

    def joins(a, b):
        pa, pb, pab = counts.get(a, 0), counts.get(b, 0), counts.get(a + "_" + b, 0)
        if min(pa, pb, pab) < min_count:
            return False
        return f(pab - min_count) / f(pa) / f(pb) * f(total) > f(threshold)

    out = []
    for line in lines:
        res, i = [], 0
        while i < len(line):
            if i + 1 < len(line) and joins(line[i], line[i + 1]):
                res.append(line[i] + "_" + line[i + 1])
                i += 2
            else:
                res.append(line[i])
                i += 1
        out.append(res)
    return out


def gensim_reference(lines, min_count, threshold, scoring, connectors=frozenset()):
    """gensim 4's Phrases + FrozenPhrases: counts of non-connector words and
    of candidates (a word, connector words, a word) joined by "_", within a
    line; default score (count(ab) - min_count) / (count(a) count(b)) x
    distinct keys, npmi; applied left to right."""
    counts, total = {}, 0
    for line in lines:
        start, between = None, []
        for w in line:
            total += 1
            if w in connectors:
                if start is not None:
                    between.append(w)
                continue
            counts[w] = counts.get(w, 0) + 1
            if start is not None:
                key = "_".join([start] + between + [w])
                counts[key] = counts.get(key, 0) + 1
            start, between = w, []

    def score(key):
        parts = key.split("_")
        a, b, ab = counts.get(parts[0], 0), counts.get(parts[-1], 0), counts[key]
        if a <= 0 or b <= 0:
            return None
        if scoring == "default":
            s = (ab - min_count) / float(a * b) * len(counts)
        else:
            if ab < min_count:
                return None
            pa, pb, pab = a / total, b / total, ab / total
            s = math.log(pab / (pa * pb)) / -math.log(pab)
        return s if s > threshold else None

    phrases = {k: score(k) for k in counts if "_" in k}
    phrases = {k: s for k, s in phrases.items() if s is not None}
    out = []
    for line in lines:
        res, start, between = [], None, []
        for w in line:
            if w in connectors:
                if start is None:
                    res.append(w)
                else:
                    between.append(w)
                continue
            if start is not None:
                key = "_".join([start] + between + [w])
                if key in phrases:
                    res.append(key)
                    start, between = None, []
                    continue
                res += [start] + between
            start, between = w, []
        if start is not None:
            res += [start] + between
        out.append(res)
    return phrases, out


def planted_corpus(n_lines=400, seed=0, connectors=False):
    """Random words with planted pairs: "new york" (often "new york times"),
    "bank of america" (when connectors) and a frequent word that is no phrase."""
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(60)]
    lines = []
    for _ in range(n_lines):
        line = [vocab[i] for i in rng.integers(0, 60, rng.integers(3, 15))]
        r = rng.random()
        pos = int(rng.integers(0, len(line)))
        if r < 0.3:
            line[pos:pos] = ["new", "york"] + (["times"] if rng.random() < 0.6 else [])
        elif r < 0.5 and connectors:
            line[pos:pos] = ["bank", "of", "america"]
        elif r < 0.7:
            line[pos:pos] = ["the"] * int(rng.integers(1, 3))
        lines.append(line)
    return lines


def write(tmp_path, lines, name="c.txt"):
    path = tmp_path / name
    path.write_text("\n".join(" ".join(line) for line in lines) + "\n")
    return str(path)


def read_tokens(path):
    return [line.split() for line in open(path).read().splitlines()]
