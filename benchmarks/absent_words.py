"""Quality on words never seen in training: word pairs (WordSim-353,
SimLex-999) with at least one word absent from the training vocabulary,
scored with subword vectors, no pair skipped (issue #39).

A real corpus leaves few such pairs (wiki_17m at min_count 5: 2 of
WordSim-353's, 7 of SimLex-999's), too few for a rank correlation. So
`make` writes a copy of the corpus with chosen evaluation words taken out
(held out), until at least `--pairs` pairs have an absent word:

1. the pair words are lowercased; a word is *absent* when no token that
   lowercases to it occurs min_count times or more (the tools' vocabulary
   after min_count, case-folded);
2. pairs with a word already absent count first; then the present pair words
   are held out one by one, rarest first (ties by the word), until the pairs
   with an absent or held-out word reach the target: rare words are the ones
   a real corpus leaves out, and they take the fewest tokens from the text.
   Words of the analogy set (questions-words) are never held out, so the
   analogy score keeps its questions;
3. every token that lowercases to a held-out word is deleted from the copy
   (runs of spaces left by a deletion become one space; line breaks stay);
4. the copy is counted again and the pairs with an absent word are written
   (all of them, and per set), with the held-out words, their token counts
   and the tokens removed in absent.json.

`score` rates any subword vectors on those pairs with
`wv_engine.evaluate.evaluate_word_pairs` (restrict_vocab None): a
vocabulary word gets its own vector, any other word the mean of its n-gram
rows, and a word with no n-gram at all (fastText's answer: a zero vector)
has cosine 0 with everything, so its pairs tie at 0 and take the mean rank
of the ties (Spearman's convention): every pair is scored. The pairs
in both sets (WordSim-353's splits into similarity and relatedness are
subsets of it and add no pair) are one list, whose Spearman is the headline
figure; each set's is given too.

    python -m benchmarks.absent_words make --corpus wiki_17m.txt --out DIR [--pairs 200] [--min-count 5]
    python -m benchmarks.absent_words score --pairs DIR MODEL.bin [MODEL.bin ...] [--fasttext-bin PATH]

MODEL.bin: fastText's .bin, from fastText, gensim (save_facebook_model) or
`wv-engine fasttext`, read by `wv_engine.FastText.load_fasttext`. With
--fasttext-bin each model's vectors for the pair words are also printed by
fastText itself (`print-word-vectors`) and the largest difference is shown."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter

import numpy as np

SETS = ("wordsim353", "simlex999")
DEFAULT_PAIRS = 200
MIN_COUNT = 5
PAIRS_FILE = "absent_pairs.tsv"
INFO_FILE = "absent.json"


def read_pairs(path: str, name: str) -> list[tuple[str, str, float, str]]:
    """[(w1, w2, score, set)] of a pair file, words lowercased."""
    from wv_engine.evaluate import _parse_pairs

    return [(w1.lower(), w2.lower(), score, name) for _, w1, w2, score in _parse_pairs(path)]


def shipped_pairs() -> list[tuple[str, str, float, str]]:
    from wv_engine import datasets

    return [p for name in SETS for p in read_pairs(str(datasets.path(name)), name)]


def analogy_words() -> set[str]:
    """The lowercased words of the shipped questions-words set."""
    from wv_engine import datasets

    words = set()
    with open(datasets.path("questions-words"), encoding="utf-8") as f:
        for line in f:
            if not line.startswith(":"):
                words.update(w.lower() for w in line.split())
    return words


def count_tokens(path: str) -> Counter:
    """Every whitespace token of the file (plain or compressed) and its count."""
    from .text_files import chunks_at_whitespace

    counts: Counter = Counter()
    for chunk in chunks_at_whitespace(path):
        counts.update(chunk.split())
    return counts


def folded_counts(counts: Counter, min_count: int) -> tuple[set[str], Counter]:
    """(lowercased words with a token kept at min_count, tokens per lowercased word)."""
    kept, total = set(), Counter()
    for token, n in counts.items():
        word = token.decode("utf-8", "surrogateescape").lower()
        total[word] += n
        if n >= min_count:
            kept.add(word)
    return kept, total


def absent_pairs(pairs: list, kept: set[str]) -> list:
    """The pairs with a word not in `kept`."""
    return [p for p in pairs if p[0] not in kept or p[1] not in kept]


def choose_held_out(pairs: list, kept: set[str], tokens: Counter, target: int,
                    protected: set[str] = frozenset()) -> list[str]:
    """The words to take out of the corpus so that at least `target` pairs
    have an absent word: present pair words outside `protected`, rarest
    first (by their tokens, then the word), until the target is reached (or
    the candidates run out). [] when the corpus already leaves enough."""
    gone = set()
    reached = len(absent_pairs(pairs, kept))
    by_word: dict[str, list[int]] = {}
    for i, (w1, w2, _, _) in enumerate(pairs):
        for w in {w1, w2}:
            by_word.setdefault(w, []).append(i)
    hit = {i for i, p in enumerate(pairs) if p[0] not in kept or p[1] not in kept}
    held = []
    for w in sorted((w for w in by_word if w in kept and w not in protected), key=lambda w: (tokens[w], w)):
        if reached >= target:
            break
        held.append(w)
        gone.add(w)
        new = [i for i in by_word[w] if i not in hit]
        hit.update(new)
        reached += len(new)
    return held


def held_out_pattern(words: list[str]) -> re.Pattern:
    """Whole tokens that lowercase to one of `words` (bytes, UTF-8)."""
    alternatives = b"|".join(re.escape(w.encode("utf-8")) for w in sorted(words, key=len, reverse=True))
    return re.compile(rb"(?<!\S)(?:" + alternatives + rb")(?!\S)", re.IGNORECASE)


def write_without(source: str, dest: str, words: list[str]) -> int:
    """Copies source (plain or compressed) to dest without the tokens that
    lowercase to one of `words`; returns the tokens removed. The spaces a
    deletion leaves become one; line breaks are kept."""
    from .text_files import chunks_at_whitespace

    removed = 0
    pattern = held_out_pattern(words) if words else None
    spaces = re.compile(rb"[ \t]{2,}")
    tmp = dest + ".tmp"
    with open(tmp, "wb") as out:
        for chunk in chunks_at_whitespace(source):
            if pattern is not None:
                chunk, n = pattern.subn(b"", chunk)
                removed += n
                if n:
                    chunk = spaces.sub(b" ", chunk)
            out.write(chunk)
    os.replace(tmp, dest)
    return removed


def _write_pairs(path: str, pairs: list, header: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"# {header}\n# word1\tword2\tscore\tset\n")
        for w1, w2, score, name in pairs:
            f.write(f"{w1}\t{w2}\t{score:g}\t{name}\n")


def pairs_paths(out_dir: str) -> dict[str, str]:
    """{"all": ..., "wordsim353": ..., "simlex999": ...}: the pair files make() writes."""
    paths = {"all": os.path.join(out_dir, PAIRS_FILE)}
    for name in SETS:
        paths[name] = os.path.join(out_dir, PAIRS_FILE.replace(".tsv", f".{name}.tsv"))
    return paths


def make(corpus: str, out_dir: str, target: int = DEFAULT_PAIRS, min_count: int = MIN_COUNT,
         pairs: list | None = None, protected: set[str] | None = None, log=print) -> dict:
    """Writes OUT_DIR/NAME.absent.txt (the corpus without the held-out words;
    with target 0 nothing is held out and the corpus is used as it is),
    the pair files (pairs_paths) and absent.json; returns absent.json's
    content. A call with the same arguments on an unchanged corpus reuses
    what it wrote."""
    from .text_files import stem

    os.makedirs(out_dir, exist_ok=True)
    info_path = os.path.join(out_dir, INFO_FILE)
    st = os.stat(corpus)
    key = {"corpus": os.path.abspath(corpus), "size": st.st_size, "mtime": st.st_mtime, "target": target,
           "min_count": min_count, "sets": None if pairs is not None else list(SETS)}
    if pairs is None and os.path.exists(info_path):
        try:
            with open(info_path) as f:
                old = json.load(f)
            if old.get("key") == key and os.path.exists(old["corpus"]) and \
                    all(os.path.exists(p) for p in old["pairs_files"].values()):
                log(f"absent words: reusing {out_dir}")
                return old
        except (OSError, ValueError, KeyError, TypeError):
            pass
    pairs = shipped_pairs() if pairs is None else pairs
    protected = analogy_words() if protected is None else protected
    t0 = time.perf_counter()
    kept, tokens = folded_counts(count_tokens(corpus), min_count)
    natural = absent_pairs(pairs, kept)
    held = choose_held_out(pairs, kept, tokens, target, protected)
    if held:
        dest = os.path.join(out_dir, stem(corpus) + ".absent.txt")
        log(f"absent words: holding out {len(held)} words ({sum(tokens[w] for w in held):,} tokens) "
            f"-> {dest}")
        removed = write_without(corpus, dest, held)
        kept_after, _ = folded_counts(count_tokens(dest), min_count)
    else:
        dest, removed, kept_after = os.path.abspath(corpus), 0, kept
    found = absent_pairs(pairs, kept_after)
    still = [w for w in held if w in kept_after]
    if still:  # cannot happen unless the deletion missed a spelling: say so rather than score a seen word
        raise RuntimeError(f"held-out words still in the vocabulary of {dest}: {', '.join(still[:10])}")
    paths = pairs_paths(out_dir)
    header = (f"pairs of {', '.join(SETS)} with a word absent from {os.path.basename(dest)} at min_count "
              f"{min_count}")
    _write_pairs(paths["all"], found, header)
    for name in SETS:
        _write_pairs(paths[name], [p for p in found if p[3] == name], header + f": {name} only")
    absent = sorted({w for p in found for w in p[:2] if w not in kept_after})
    info = {
        "key": key, "corpus": dest, "source": os.path.abspath(corpus), "min_count": min_count,
        "target_pairs": target, "pairs": len(found), "pairs_per_set": {n: sum(p[3] == n for p in found) for n in SETS},
        "pairs_absent_naturally": len(natural), "held_out": held,
        "held_out_tokens": {w: tokens[w] for w in held}, "tokens_removed": removed,
        "tokens_before": sum(tokens.values()), "absent_words": absent,
        "pairs_files": paths, "seconds": time.perf_counter() - t0,
    }
    with open(info_path, "w") as f:
        json.dump(info, f, indent=1)
    log(f"absent words: {len(found)} pairs with an absent word ({len(natural)} absent in the corpus as it is, "
        f"{len(held)} words held out, {removed:,} of {info['tokens_before']:,} tokens removed)")
    return info


def score(vectors, paths: dict[str, str]) -> dict:
    """Spearman of the subword vectors on the pair files (pairs_paths):
    {"absent_spearman", "absent_pairs", "absent_zero_vector_words", and
    per set "absent_<set>", "absent_<set>_pairs"}; every pair is scored."""
    from wv_engine.evaluate import evaluate_word_pairs

    if not hasattr(vectors, "word_vector"):
        raise TypeError("scoring pairs with absent words needs subword vectors (SubwordVectors): "
                        f"got {type(vectors).__name__}, which would skip them")
    out: dict = {}
    for name, path in paths.items():
        r = evaluate_word_pairs(vectors, path, restrict_vocab=None, pvalues=False)
        if r["oov"]:
            raise RuntimeError(f"{path}: {r['oov']} pairs skipped")   # SubwordVectors never skip one
        base = "absent" if name == "all" else f"absent_{name}"
        out["absent_spearman" if name == "all" else base], out[base + "_pairs"] = r["spearman"], r["pairs"]
    out["absent_zero_vector_words"] = [w for w in pair_words(paths) if not vectors.has_vector(w)]
    return out


def pair_words(paths: dict[str, str]) -> list[str]:
    """The distinct words of the pairs (all of them, absent or not)."""
    return sorted({w for p in read_pairs(paths["all"], "all") for w in p[:2]})


def absent_in(paths: dict[str, str]) -> list[str]:
    """The absent words of the pairs, as make() recorded them (absent.json beside the pair files)."""
    with open(os.path.join(os.path.dirname(paths["all"]), INFO_FILE)) as f:
        return json.load(f)["absent_words"]


def fasttext_own_vectors(binary: str, model: str, words: list[str]) -> np.ndarray:
    """fastText's own vectors for `words` (`fasttext print-word-vectors MODEL`)."""
    proc = subprocess.run([binary, "print-word-vectors", model], input="\n".join(words) + "\n",
                          capture_output=True, text=True, check=True)
    rows = [line.split() for line in proc.stdout.splitlines() if line.strip()]
    if len(rows) != len(words):
        raise RuntimeError(f"fastText printed {len(rows)} vectors for {len(words)} words")
    return np.array([[float(x) for x in r[1:]] for r in rows], dtype=np.float32)


def own_difference(vectors, words: list[str], own: np.ndarray) -> float:
    """Largest absolute difference between `vectors`' and a tool's own vectors of `words`."""
    ours = np.stack([vectors.word_vector(w) for w in words]) if words else np.zeros((0, own.shape[1]))
    return float(np.abs(ours - own).max()) if len(words) else 0.0


def load_subword_vectors(path: str):
    """fastText's .bin (any of the three tools' writers) as SubwordVectors."""
    from wv_engine import FastText

    return FastText.load_fasttext(path).vectors


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.absent_words", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    m = sub.add_parser("make", help="the corpus copy without the held-out words, and the pair files")
    m.add_argument("--corpus", required=True, help="training text (plain, .gz, .bz2 or .xz)")
    m.add_argument("--out", required=True, help="folder for NAME.absent.txt, absent_pairs*.tsv, absent.json")
    m.add_argument("--pairs", type=int, default=DEFAULT_PAIRS,
                   help=f"pairs with an absent word to reach (default {DEFAULT_PAIRS}; 0: hold nothing out)")
    m.add_argument("--min-count", type=int, default=MIN_COUNT, help=f"the tools' min_count (default {MIN_COUNT})")
    s = sub.add_parser("score", help="Spearman of fastText .bin models on the pairs")
    s.add_argument("--pairs", required=True, help="the folder `make` wrote")
    s.add_argument("models", nargs="+", help="fastText .bin files")
    s.add_argument("--fasttext-bin", metavar="PATH", help="also compare with fastText's print-word-vectors")
    a = p.parse_args(argv)
    if a.command == "make":
        if a.pairs < 0 or a.min_count < 1:
            p.error("--pairs must be >= 0 and --min-count >= 1")
        info = make(a.corpus, a.out, a.pairs, a.min_count)
        print(json.dumps({k: info[k] for k in ("corpus", "pairs", "pairs_per_set", "pairs_absent_naturally",
                                               "tokens_removed")}, indent=1))
        return 0
    paths = pairs_paths(a.pairs)
    words = pair_words(paths)
    for model in a.models:
        v = load_subword_vectors(model)
        r = score(v, paths)
        line = (f"{model}: Spearman {r['absent_spearman']:.4f} over {r['absent_pairs']} pairs"
                + "".join(f"; {n} {r[f'absent_{n}']:.4f} ({r[f'absent_{n}_pairs']})" for n in SETS)
                + f"; words with a zero vector: {len(r['absent_zero_vector_words'])}")
        if a.fasttext_bin:
            diff = own_difference(v, words, fasttext_own_vectors(a.fasttext_bin, model, words))
            line += f"; largest difference from fastText's print-word-vectors {diff:.2e}"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
