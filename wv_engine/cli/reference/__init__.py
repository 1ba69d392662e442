"""The reference tools' own command lines, run by wv-engine's trainers:
word2vec.c's word2vec, word2phrase, distance, word-analogy and
compute-accuracy (word2vec_c.py), fastText's skipgram, cbow,
print-word-vectors, nn, analogies and dump (fasttext_c.py), and Stanford
GloVe's vocab_count, cooccur and shuffle (glove_counting.py) and glove
(glove_training.py; their flags in glove_c.py), each spelled
as its tool spells it (flags.py reads the flags).

`wv-engine word2vec` and `wv-engine glove` keep their own flags and take
the tool's when a single-dash word (-train, -input-file) shows the tool's
spelling; `wv-engine fasttext` takes fastText's when its first word is one
of fastText's commands; the other programs are commands of their own. Each
runner takes the words after the program's name and returns the exit
status; it translates into the same calls our own flags make."""

from __future__ import annotations

import importlib
from typing import Callable, Sequence

from .flags import UsageError, looks_like_flag

# program -> (module, runner)
PROGRAMS = {
    "word2phrase": ("word2vec_c", "run_word2phrase"),
    "distance": ("word2vec_c", "run_distance"),
    "word-analogy": ("word2vec_c", "run_word_analogy"),
    "compute-accuracy": ("word2vec_c", "run_compute_accuracy"),
    "vocab_count": ("glove_counting", "run_vocab_count"),
    "cooccur": ("glove_counting", "run_cooccur"),
    "shuffle": ("glove_counting", "run_shuffle"),
}
# commands wv-engine has of its own, which take the tool's flags when spelled its way
SHARED = {"word2vec": ("word2vec_c", "run_word2vec"), "glove": ("glove_training", "run_glove")}
FASTTEXT = ("fasttext_c", "run_fasttext")
FASTTEXT_COMMANDS = ("skipgram", "cbow", "print-word-vectors", "nn", "analogies", "dump")
# fastText's other commands: refused in one line rather than read as ours
FASTTEXT_UNOFFERED = ("supervised", "quantize", "test", "test-label", "predict", "predict-prob",
                      "print-sentence-vectors", "print-ngrams")

HELP = ("the reference tools' own command lines also run, with only the program's name replaced: "
        "wv-engine word2vec -train ... (word2vec.c), word2phrase, distance, word-analogy, compute-accuracy; "
        "wv-engine fasttext skipgram|cbow|print-word-vectors|nn|analogies|dump ...; "
        "wv-engine vocab_count, cooccur, shuffle, glove -input-file ... (Stanford GloVe); "
        "see docs/coming-from-tools.md")

__all__ = ["FASTTEXT_COMMANDS", "HELP", "PROGRAMS", "UsageError", "looks_like_flag", "runner"]


def runner(argv: Sequence[str]) -> Callable[[list[str]], int] | None:
    """The runner of the reference program `argv` asks for, or None when it
    is one of wv-engine's own command lines."""
    if not argv:
        return None
    name, rest = argv[0], list(argv[1:])
    if name in PROGRAMS:
        where = PROGRAMS[name]
    elif name in SHARED and any(looks_like_flag(token) for token in rest):
        where = SHARED[name]
    elif name == "fasttext" and rest and rest[0] in FASTTEXT_COMMANDS + FASTTEXT_UNOFFERED:
        where = FASTTEXT
    else:
        return None
    module = importlib.import_module(f"{__name__}.{where[0]}")
    return getattr(module, where[1])
