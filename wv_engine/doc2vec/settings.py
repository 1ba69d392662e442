"""Doc2Vec's settings: their defaults (gensim's Doc2Vec's), their checks (the
ranges of settings.RANGES), and the memory a model takes, estimated before
anything is allocated."""

from __future__ import annotations

from typing import Any

from .. import _doc2vec
from ..memory import check_fits, gib
from ..settings import Range, bounded, resolve_threads
from ..settings import check as _check

ARCHS = ("dbow", "dm")
LOSSES = ("ns", "hs")
MAX_DOCUMENT_WORDS = 10_000  # words a document trains in one piece (gensim's MAX_DOCUMENT_LEN; longer ones go on)
# a distinct tag in memory while documents are encoded: its key (a str), its dict entry, its document's
# list of tags (measured: 1M distinct tags took 500-550 bytes each)
KEY_BYTES = 600

# every setting, in the order config() gives them
NAMES = ("arch", "loss", "dim", "window", "negative", "min_count", "sample", "epochs", "alpha", "min_alpha",
         "threads", "seed", "max_vocab_size", "max_final_vocab", "ns_exponent", "dm_mean", "dm_concat",
         "dm_tag_count", "dbow_words", "shrink_windows", "max_sentence_length", "shared_negatives", "hot_rows")


def resolve(*, arch, loss, dim, window, negative, min_count, sample, epochs, alpha, min_alpha, threads, seed,
            max_vocab_size, max_final_vocab, ns_exponent, dm_mean, dm_concat, dm_tag_count, dbow_words,
            shrink_windows, max_sentence_length, shared_negatives=None, hot_rows=None) -> dict:
    """The settings checked (ValueError naming the setting and its range)
    and completed, as Doc2Vec keeps them."""
    _check("arch", arch, arch in ARCHS, f"one of {ARCHS}")
    _check("loss", loss, loss in LOSSES, f"one of {LOSSES}")
    out = {name: bounded(name, value) for name, value in (
        ("dim", dim), ("window", window), ("negative", negative), ("min_count", min_count), ("sample", sample),
        ("epochs", epochs), ("alpha", alpha), ("seed", seed), ("ns_exponent", ns_exponent),
        ("max_sentence_length", max_sentence_length))}
    _check("negative", negative, out["negative"] >= 1 or loss != "ns", "an integer >= 1 with loss='ns'")
    out["min_alpha"] = bounded("min_alpha", min_alpha, Range(0, out["alpha"], integer=False))
    out["dm_tag_count"] = bounded("dm_tag_count", dm_tag_count)
    out["max_vocab_size"] = bounded("max_vocab_size", max_vocab_size, none=True)
    out["max_final_vocab"] = bounded("max_final_vocab", max_final_vocab, none=True)
    for name, value in (("dm_mean", dm_mean), ("dm_concat", dm_concat), ("dbow_words", dbow_words),
                        ("shrink_windows", shrink_windows)):
        _check(name, value, value in (True, False, 0, 1), "True or False")
        out[name] = bool(value)
    out.update(arch=arch, loss=loss, threads=resolve_threads(threads))
    _check("shared_negatives", shared_negatives, shared_negatives in (None, True, False), "None, True or False")
    out["shared_negatives"] = bool(shared_negatives) and arch == "dbow" and loss == "ns"
    if hot_rows is None:  # word2vec's defaults: fewer for HS, whose top rows take many more updates each
        hot_rows = 256 if loss == "hs" else 1024
    out["hot_rows"] = bounded("hot_rows", hot_rows)
    if out["dm_concat"] and arch != "dm":
        raise ValueError("dm_concat applies to arch='dm' only")
    if out["dbow_words"] and arch != "dbow":
        raise ValueError("dbow_words applies to arch='dbow' only (PV-DM trains the words already)")
    return out


def mode(settings: Any) -> str:
    """The core's mode: "dbow", "dm" or "dm_concat"."""
    return "dm_concat" if settings.arch == "dm" and settings.dm_concat else settings.arch


def layer_size(settings: Any) -> int:
    """The output rows' width: dim, or with dm_concat the tag and window rows side by side."""
    return _doc2vec.layer_size(mode(settings), settings.dim, settings.window, settings.dm_tag_count)


def memory_needed(settings: Any, words: int, tags: int, doc_words: int, docs: int, threads: int) -> dict[str, int]:
    """Bytes a model of `words` words and `tags` tag vectors takes, trained
    on `docs` documents of `doc_words` words in all: the word, tag and
    output rows, the encoded documents, the tags' keys and the threads'
    buffers; "total" is their sum."""
    dim, layer = settings.dim, layer_size(settings)
    est = {
        "word_vectors": (words + 1) * dim * 4,
        "doc_vectors": tags * dim * 4,
        "output_vectors": words * layer * 4,
        "documents": doc_words * 4 + docs * 16 + tags * 4,
        "tag_keys": tags * KEY_BYTES,
        "training_threads": _doc2vec.worker_bytes(
            mode=mode(settings), loss=settings.loss, vector_size=dim, window=settings.window,
            negative=settings.negative, max_sentence_length=settings.max_sentence_length,
            dm_tag_count=settings.dm_tag_count, vocab_size=min(words, 2**31 - 1), threads=threads),
    }
    est["total"] = sum(est.values())
    return est


def check_model_fits(settings: Any, words: int, tags: int, doc_words: int, docs: int) -> None:
    """MemoryError, with the numbers and what to change, for a model that
    would not fit in the memory available."""
    needed = memory_needed(settings, words, tags, doc_words, docs, settings.threads)
    check_fits(f"a Doc2Vec of {words:,} words and {tags:,} document vectors of dim {settings.dim} (vectors "
               f"{gib(needed['word_vectors'] + needed['doc_vectors'] + needed['output_vectors'])}, documents "
               f"{gib(needed['documents'] + needed['tag_keys'])})", needed["total"],
               "lower dim, raise min_count, or train on fewer documents at once")
