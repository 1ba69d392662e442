"""word2vec.c's programs: word2vec and word2phrase translated into our own
command lines (the same run as `wv-engine word2vec` / `wv-engine phrases`
with the equivalent flags), and distance, word-analogy and compute-accuracy
with their prompts and reports as they print them."""

from __future__ import annotations

import argparse
import sys
from typing import Iterator

import numpy as np

from ...settings import C_INT_MAX, Range, default_threads
from ..args import bounded
from .flags import Flag, UsageError, integer, parse, usage

N_SHOWN = 40  # distance and word-analogy show this many words


def setting(name: str, admitted=None):
    """A flag's value read and range-checked as our flag of setting `name`."""
    check = bounded(name, admitted)

    def parse_value(text: str):
        try:
            return check(text)
        except argparse.ArgumentTypeError as exc:
            raise ValueError(str(exc)) from None
    parse_value.__name__ = check.__name__
    return parse_value


def switch(text: str) -> int:
    """A 0/1 flag (-cbow, -hs, -binary)."""
    if text not in ("0", "1"):
        raise ValueError("must be 0 or 1")
    return int(text)


def path(text: str) -> str:
    return text


WORD2VEC = {
    "-train": Flag(path, None, "the training text"),
    "-output": Flag(path, None, "where the vectors (or with -classes, the classes) go"),
    "-size": Flag(setting("dim"), 100, "dimension of the vectors"),
    "-window": Flag(setting("window"), 5, "largest distance between a word and its contexts"),
    "-sample": Flag(setting("sample"), 1e-3, "subsampling threshold of frequent words, 0 for none"),
    "-hs": Flag(switch, 0, "1: hierarchical softmax"),
    "-negative": Flag(setting("negative"), 5, "negative samples, 0 for none"),
    "-threads": Flag(setting("threads"), 12, "threads (at most the usable cores are used)"),
    "-iter": Flag(setting("epochs"), 5, "passes over the text"),
    "-min-count": Flag(setting("min_count", Range(0, C_INT_MAX)), 5, "words seen fewer times are dropped (0: as 1)"),
    "-alpha": Flag(setting("alpha"), None, "starting learning rate (0.025 skip-gram, 0.05 CBOW)"),
    "-classes": Flag(integer, 0, "write K word classes (k-means) instead of vectors"),
    "-debug": Flag(integer, 2, "0: no messages"),
    "-binary": Flag(switch, 0, "1: vectors in the binary format"),
    "-save-vocab": Flag(path, None, "also write the vocabulary as 'word count' lines"),
    "-read-vocab": Flag(path, None, "take the vocabulary from this file instead of counting the text"),
    "-cbow": Flag(switch, 1, "1: CBOW, 0: skip-gram"),
}

WORD2PHRASE = {
    "-train": Flag(path, None, "the text"),
    "-output": Flag(path, None, "the text with the phrases joined by _"),
    "-min-count": Flag(setting("min_count"), 5, "words and pairs seen fewer times are not scored"),
    "-threshold": Flag(setting("threshold"), 100.0, "score a pair must pass to become a phrase"),
    "-debug": Flag(integer, 2, "0: no messages"),
}


def _own_command(name: str, argv: list[str]) -> argparse.Namespace:
    """Our command line `argv` parsed as `wv-engine` parses it."""
    from ..args import build_parser, typed_flags

    args = build_parser().parse_args([name, *argv])
    args.given = typed_flags([name, *argv])
    return args


def _required(values: dict, program: str, *names: str) -> None:
    for name in names:
        if values[name] is None:
            raise UsageError(f"-{name} is required (see wv-engine {program} -help)")


def _helped(argv: list[str], table: dict, synopsis: str) -> bool:
    """word2vec.c's programs answer no flags (or -help) with their usage."""
    if not argv or argv in (["-help"], ["-h"], ["--help"]):
        print(usage(table, synopsis))
        return True
    return False


def run_word2vec(argv: list[str]) -> int:
    """`wv-engine word2vec -train ...`: word2vec.c's flags and defaults
    (CBOW, its learning-rate schedule and initial range), one run of
    `wv-engine word2vec`."""
    from ..word2vec import run_word2vec as run_own

    if _helped(argv, WORD2VEC, "wv-engine word2vec -train FILE -output FILE [flags] (word2vec.c's flags)"):
        return 0
    v, _ = parse("word2vec", WORD2VEC, argv)
    _required(v, "word2vec", "train")
    if v["classes"] < 0:
        raise UsageError(f"-classes {v['classes']}: must be >= 0")
    if v["hs"] and v["negative"]:
        raise UsageError(f"-hs 1 with -negative {v['negative']}: word2vec.c then trains both objectives at once; "
                         "wv-engine trains one: add -negative 0 for hierarchical softmax, or -hs 0")
    if not v["hs"] and not v["negative"]:
        raise UsageError("-hs 0 with -negative 0 trains nothing: give -hs 1 or -negative N")
    if v["output"] is None:  # word2vec.c then only counts (and saves) the vocabulary
        return _vocabulary_only(v)
    cbow = v["cbow"] == 1
    own = [v["train"], "-o", v["output"], "--arch", "cbow" if cbow else "skipgram",
           "--loss", "hs" if v["hs"] else "ns", "--dim", str(v["size"]), "--window", str(v["window"]),
           "--sample", repr(v["sample"]), "--threads", str(min(v["threads"], default_threads())),
           "--epochs", str(v["iter"]), "--min-count", str(max(1, v["min-count"])),
           "--alpha", repr(v["alpha"] if v["alpha"] is not None else 0.05 if cbow else 0.025),
           "--schedule", "word2vec", "--init-range", "0.5", "--format", "bin" if v["binary"] else "txt"]
    if v["negative"]:
        own += ["--negative", str(v["negative"])]
    for name in ("save-vocab", "read-vocab"):
        if v[name] is not None:
            own += [f"--{name}", v[name]]
    if v["debug"] == 0:
        own.append("--quiet")
    def classes(model, output: str, fmt: str) -> None:
        _write_classes(model.vectors, output, v["classes"])
    return run_own(_own_command("word2vec", own), write=classes if v["classes"] else None)


def _vocabulary_only(v: dict) -> int:
    """word2vec.c without -output: the vocabulary counted (or read), saved
    with -save-vocab, nothing trained."""
    from ...corpus import Corpus
    from ...files import read_as
    from ...vocab import Vocabulary

    if v["read-vocab"] is not None:
        vocab = read_as("-read-vocab", v["read-vocab"], Vocabulary.load).kept(max(1, v["min-count"]),
                                                                             without=("</s>",))
    else:
        vocab = Vocabulary.build(read_as("-train", v["train"], Corpus), max(1, v["min-count"]),
                                 threads=default_threads())
    if v["debug"]:
        print(f"Vocab size: {len(vocab)}\nWords in train file: {vocab.train_words}", file=sys.stderr)
    if v["save-vocab"] is not None:
        vocab.save(v["save-vocab"])
    return 0


def _write_classes(vectors, output: str, k: int) -> None:
    """-classes K: 'word class' lines in vocabulary order, as word2vec.c writes them."""
    from ...files import atomic_write
    from ...word_classes import word_classes

    classes = word_classes(vectors.vectors, k)
    with atomic_write(output, "wb") as f:
        for word, cls in zip(vectors.words, classes.tolist()):
            f.write(word.encode("utf-8", "surrogateescape") + b" %d\n" % cls)


def run_word2phrase(argv: list[str]) -> int:
    """`wv-engine word2phrase -train ... -output ...`: one pass of
    `wv-engine phrases` with word2phrase's score, delimiter and defaults."""
    from ..phrases import run_phrases

    if _helped(argv, WORD2PHRASE, "wv-engine word2phrase -train FILE -output FILE [flags] (word2phrase's flags)"):
        return 0
    v, _ = parse("word2phrase", WORD2PHRASE, argv)
    _required(v, "word2phrase", "train", "output")
    own = [v["train"], "-o", v["output"], "--passes", "1", "--scoring", "word2phrase", "--delimiter", "_",
           "--min-count", str(v["min-count"]), "--threshold", repr(v["threshold"])]
    if v["debug"] == 0:
        own.append("--quiet")
    return run_phrases(_own_command("phrases", own))


# ---- distance and word-analogy: interactive, reading lines from stdin ----
def _vectors_of(program: str, argv: list[str]):
    """The vectors of `program FILE` (any format wv-engine reads; word2vec.c's
    binary is what these programs read), or None after printing the usage."""
    from ...files import read_as
    from ...io import load_vectors

    if len(argv) != 1 or argv[0] in ("-help", "-h", "--help"):
        if len(argv) > 1:
            raise UsageError(f"one vectors file, got {len(argv)} arguments: {' '.join(argv)}")
        print(f"Usage: wv-engine {program} <FILE>\nwhere FILE contains word projections "
              "(word2vec.c's binary or text, or wv-engine's native file)")
        return None
    return read_as("FILE", argv[0], load_vectors)


def _queries(prompt: str) -> Iterator[list[str]]:
    """The words of each line typed after `prompt`, until EXIT or the end of
    the input (word2vec.c's programs loop on forever there)."""
    while True:
        sys.stdout.write(prompt)
        sys.stdout.flush()
        line = sys.stdin.readline()
        if not line:
            sys.stdout.write("\n")
            return
        line = line.rstrip("\n")
        if line == "EXIT":
            return
        yield line.split() or [""]


def _known(vectors, words: list[str]) -> list[int] | None:
    """Each word's row, printed as word2vec.c prints them; None (after
    'Out of dictionary word!') at the first unknown one."""
    rows = []
    for word in words:
        row = vectors.key_to_index.get(word, -1)
        sys.stdout.write(f"\nWord: {word}  Position in vocabulary: {row}\n")
        if row < 0:
            sys.stdout.write("Out of dictionary word!\n")
            return None
        rows.append(row)
    return rows


def _show(vectors, query: np.ndarray, exclude: list[int], floor: float, header: str) -> None:
    """The N_SHOWN rows of largest cosine with `query` above `floor`, ties to
    the earlier row, padded with empty lines at `floor` as word2vec.c's."""
    sys.stdout.write(f"\n{'Word':>50}{header}\n{'-' * 72}\n")
    length = np.linalg.norm(query)
    scores = vectors.unit_vectors @ (query / length if length else query)
    scores[exclude] = -np.inf
    take = min(N_SHOWN, len(scores))
    best = np.argpartition(-scores, take - 1)[:take] if take else np.zeros(0, dtype=np.int64)
    best = best[np.lexsort((best, -scores[best]))]
    shown = [(vectors.word(int(i)), float(scores[i])) for i in best if scores[i] > floor]
    shown += [("", floor)] * (N_SHOWN - len(shown))
    sys.stdout.write("".join(f"{word:>50}\t\t{score:f}\n" for word, score in shown))
    sys.stdout.flush()


def run_distance(argv: list[str]) -> int:
    """`wv-engine distance FILE`: the 40 words closest to a word or to the
    mean of several, for each line typed."""
    vectors = _vectors_of("distance", argv)
    if vectors is None:
        return 0
    units = vectors.unit_vectors
    for words in _queries("Enter word or sentence (EXIT to break): "):
        rows = _known(vectors, words)
        if rows is not None:
            _show(vectors, units[rows].sum(axis=0), rows, -1.0, "       Cosine distance")
    return 0


def run_word_analogy(argv: list[str]) -> int:
    """`wv-engine word-analogy FILE`: for 'A B C', the 40 words closest to
    B - A + C (unit rows), the three excluded."""
    vectors = _vectors_of("word-analogy", argv)
    if vectors is None:
        return 0
    units = vectors.unit_vectors
    for words in _queries("Enter three words (EXIT to break): "):
        if len(words) < 3:
            sys.stdout.write(f"Only {len(words)} words were entered.. three words are needed at the input to "
                             "perform the calculation\n")
            continue
        rows = _known(vectors, words)
        if rows is not None:
            a, b, c = rows[:3]
            _show(vectors, units[b] - units[a] + units[c], rows[:3], 0.0, "              Distance")
    return 0


# ---- compute-accuracy VECTORS [THRESHOLD] < questions ----
def _ascii_upper(word: str) -> str:
    """toupper over the bytes, as compute-accuracy compares words."""
    return word.translate(_UPPER)


_UPPER = {c: c - 32 for c in range(ord("a"), ord("z") + 1)}


def _percent(part: int, whole: int) -> str:
    """part / (float)whole * 100 printed with %.2f, as a C float (0/0 is -nan)."""
    if whole == 0:
        return "-nan" if part == 0 else "inf"
    return f"{float(np.float32(part) / np.float32(whole) * np.float32(100)):.2f}"


def run_compute_accuracy(argv: list[str]) -> int:
    """`wv-engine compute-accuracy VECTORS [THRESHOLD] < questions-words.txt`:
    3CosAdd over the first THRESHOLD words (0: all), words upper-cased,
    compute-accuracy's report: per section, then the totals (sections 1-5
    semantic, the rest syntactic)."""
    from ...files import read_as
    from ...io import load_vectors

    if not argv or len(argv) > 2 or argv[0] in ("-help", "-h", "--help"):
        if len(argv) > 2:
            raise UsageError(f"expected VECTORS [THRESHOLD], got {len(argv)} arguments")
        print("Usage: wv-engine compute-accuracy <FILE> <threshold>\nwhere FILE contains word projections, and "
              "threshold is used to reduce vocabulary of the model for fast approximate evaluation (0 = off, "
              "otherwise typical value is 30000)")
        return 0
    threshold = 0
    if len(argv) == 2:
        try:
            threshold = int(argv[1])
        except ValueError:
            raise UsageError(f"THRESHOLD {argv[1]!r}: not a whole number") from None
        if threshold < 0:
            raise UsageError(f"THRESHOLD {threshold}: must be >= 0 (0: the whole vocabulary)")
    vectors = read_as("VECTORS", argv[0], lambda p: load_vectors(p, limit=threshold or None))
    index: dict[str, int] = {}
    for i, word in enumerate(vectors.words):
        index.setdefault(_ascii_upper(word), i)  # the first of words equal once upper-cased, as a scan finds
    units = vectors.unit_vectors
    report = _Accuracy(units, index, [_ascii_upper(w) for w in vectors.words])
    report.run(sys.stdin.read().split())
    return 0


class _Accuracy:
    """compute-accuracy's counters and its reading of the question stream."""

    def __init__(self, units: np.ndarray, index: dict[str, int], upper: list[str]):
        self.units, self.index, self.upper = units, index, upper
        self.seen = self.total = 0  # questions answered / read
        self.all_right = self.all_answered = 0
        self.semantic = [0, 0]  # right, answered
        self.syntactic = [0, 0]

    def run(self, tokens: list[str]) -> None:
        out = sys.stdout
        section = 0
        pending: list[tuple[int, int, int, int]] = []
        i, n = 0, len(tokens)
        while True:
            head = _ascii_upper(tokens[i]) if i < n else None
            if head is None or head in (":", "EXIT"):
                if section:
                    right = self._answer(pending, section)
                    out.write(f"ACCURACY TOP1: {_percent(right, len(pending) or 1)} %  ({right} / {len(pending) or 1})\n")
                    out.write(f"Total accuracy: {_percent(self.all_right, self.all_answered)} %   "
                              f"Semantic accuracy: {_percent(*self.semantic)} %   "
                              f"Syntactic accuracy: {_percent(*self.syntactic)} % \n")
                pending = []
                section += 1
                if head is None or i + 1 >= n:
                    break
                out.write(f"{tokens[i + 1]}:\n")
                i += 2
                continue
            question = [_ascii_upper(t) for t in tokens[i:i + 4]]
            i += 4
            self.total += 1
            rows = [self.index.get(w) for w in question]
            if len(question) == 4 and None not in rows:
                pending.append(tuple(rows))
                self.seen += 1
        total = self.total or 1
        out.write(f"Questions seen / total: {self.seen} {self.total}   {_percent(self.seen, total)} % \n")

    def _answer(self, questions: list[tuple[int, int, int, int]], section: int) -> int:
        """The section's questions answered together; the counters updated."""
        right = 0
        for start in range(0, len(questions), 1024):
            block = np.array(questions[start:start + 1024], dtype=np.int64)
            a, b, c, expected = block.T
            queries = (self.units[b] - self.units[a]) + self.units[c]
            scores = queries @ self.units.T
            rows = np.arange(len(block))
            for excluded in (a, b, c):
                scores[rows, excluded] = -np.inf
            best = np.argmax(scores, axis=1)  # ties: the earlier row, as its scan keeps the first
            hit = (scores[rows, best] > 0) & (best == expected)
            # a word equal to the expected one once upper-cased counts too (the scan compares strings)
            hit |= (scores[rows, best] > 0) & np.array([self.upper[x] == self.upper[y] for x, y in zip(best, expected)])
            right += int(hit.sum())
        counters = self.semantic if section <= 5 else self.syntactic
        counters[0] += right
        counters[1] += len(questions)
        self.all_right += right
        self.all_answered += len(questions)
        return right
