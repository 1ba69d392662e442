"""`wv-engine fasttext`: word2vec's command (cli.run_word2vec) with the
FastText trainer, its n-gram settings and its files (flags: cli_args.py)."""

from __future__ import annotations

from .fasttext import FastText
from .io import save_vectors

__all__ = ["FastText", "settings", "write_vectors"]


def settings(args) -> dict:
    """FastText's settings beyond Word2Vec's, from the command line."""
    return {"minn": args.minn, "maxn": args.maxn, "bucket": args.bucket}


def write_vectors(model: FastText, path: str, fmt: str) -> None:
    """--format bin: fastText's .bin; txt: its .vec (word2vec text: every
    vocabulary word's vector); native: the whole training state (read by
    FastText.load, and by load_vectors as the words' vectors)."""
    if fmt == "bin":
        model.save_fasttext(path)
    elif fmt == "txt":
        save_vectors(model.vectors, path, "word2vec-txt")
    else:
        model.save(path)
