"""What a command will read, opened, parsed and checked before its work
starts: the training text (and the phrase model it is read through), the
test sets of --eval-every, a checkpoint to --resume, a saved phrase model,
connector words and the directory of temporary files. A bad one is refused
in one line naming its flag (files.read_as), before the first word is
counted, so that no run fails an epoch in."""

from __future__ import annotations

from typing import Any, Callable

from ..files import check_directory, check_text, read_as


def read_input(args, client=None):
    """The training text of `wv-engine word2vec/glove/svd`, resolved once:
    with --phrases MODEL a Corpus read through that phrase model; given to
    a cluster (client), the path itself (the workers read it)."""
    from ..corpus import Corpus

    if getattr(args, "phrases", None) is None:
        return args.input if client is not None else read_as("INPUT", args.input, Corpus)
    if client is not None:
        raise ValueError("--phrases reads the text on this machine; drop --scheduler (or write the phrased text "
                         "with `wv-engine phrases` first)")
    from ..phrases import Phrases

    phrases = read_as("--phrases", args.phrases, Phrases.load)
    return read_as("INPUT", args.input, Corpus, phrases)


def check_tmp_dir(args) -> None:
    """--tmp-dir names an existing directory this process may write in."""
    check_directory(getattr(args, "tmp_dir", None), "--tmp-dir")


def resumed(args, saved_config: Callable[[str], dict], load: Callable[..., Any],
            overrides: Callable[[dict], dict]) -> Any:
    """The model of --resume PATH: its settings read first (the header
    only), turned by `overrides` into those the flags change (which checks
    the flags that may not), then the model loaded once."""
    saved = read_as("--resume", args.resume, saved_config)
    return read_as("--resume", args.resume, lambda path: load(path, **overrides(saved)))


def connector_words(value: str) -> frozenset[str]:
    """--connector-words: "english", "none" or a file of words, one a line
    (text: a binary file, or a line of several words, is refused)."""
    from ..phrases.settings import ENGLISH_CONNECTOR_WORDS

    if value == "english":
        return ENGLISH_CONNECTOR_WORDS
    if value == "none":
        return frozenset()
    return read_as("--connector-words", value, _word_list)


def _word_list(path: str) -> frozenset[str]:
    words = set()
    with open(check_text(path, "list of words"), encoding="utf-8", errors="surrogateescape") as f:
        for line_no, line in enumerate(f, 1):
            fields = line.split()
            if len(fields) > 1:
                raise ValueError(f"line {line_no}: {len(fields)} words, not one a line")
            words.update(fields)
    return frozenset(words)
