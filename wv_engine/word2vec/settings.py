"""Word2Vec's settings: their defaults (word2vec.c's, but where measured
quality chose otherwise: docs, the word2vec guide) and their checks, in one
place for the trainer, the CLI and loaded models."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _word2vec, formats
from ..memory import check_fits, gib
from ..settings import Range, bounded, resolve_threads
from ..settings import check as _check

ARCHS = ("skipgram", "cbow")
LOSSES = ("ns", "hs", "softmax")
SOFTMAX_MAX_VOCAB = 20000  # the exact softmax is O(V) per prediction


SCHEDULES = ("epochs", "word2vec")  # how the learning rate falls (Word2Vec's docstring)


def default_min_alpha(arch: str, loss: str, schedule: str, asked: bool, alpha: float, epochs: int) -> float:
    """Where the learning rate ends when no min_alpha is given: on gensim's
    line, alpha / (2 x epochs); on word2vec.c's, its floor alpha x 1e-4, but
    alpha / (3 x epochs) when CBOW with hierarchical softmax takes that
    schedule by default, not `asked` for it (docs/performance.md, "Where
    HS's rate ends": skip-gram HS lost analogy with it)."""
    if schedule == "epochs":
        return alpha / (2 * epochs)
    if not asked and loss == "hs" and arch == "cbow":
        return alpha / (3 * epochs)
    return alpha * 1e-4


def check_vocabulary(settings: Any, words: int) -> None:
    """Refuses a vocabulary the loss cannot take: the exact softmax past
    SOFTMAX_MAX_VOCAB words."""
    if settings.loss == "softmax" and words > SOFTMAX_MAX_VOCAB:
        raise ValueError(
            f"loss='softmax' is the exact O(vocabulary) reference, meant for small vocabularies; "
            f"this one has {words:,} words (limit {SOFTMAX_MAX_VOCAB:,}): use 'ns' or 'hs', "
            "or raise min_count")


def check_weights(settings: Any, words: int, input_vectors: Any, output_vectors: Any) -> None:
    """Refuses weights a model of these settings over `words` words cannot
    train in place: writeable C-contiguous float32 of its shapes (FastText's
    input matrix has its n-gram buckets' rows after the words')."""
    input_rows = words + getattr(settings, "ngram_buckets", 0)
    for name, a, rows in (("input_vectors", input_vectors, input_rows), ("output_vectors", output_vectors, words)):
        if not (isinstance(a, np.ndarray) and a.dtype == np.float32 and a.flags.c_contiguous
                and a.flags.writeable and a.shape == (rows, settings.dim)):
            raise ValueError(f"{name} must be a writeable C-contiguous float32 array of shape "
                             f"({rows}, {settings.dim}), got {getattr(a, 'shape', None)} "
                             f"{getattr(a, 'dtype', type(a).__name__)}")
    check_vocabulary(settings, words)


def input_lock(lock: Any, words: int) -> np.ndarray | None:
    """Word2Vec.input_lock as the C core takes it: a float32 factor per word,
    or None when every word trains fully (one factor stands for all words)."""
    if lock is None:
        return None
    a = np.asarray(lock, dtype=np.float32).reshape(-1)
    if len(a) == 1:
        return None if a[0] == 1.0 else np.full(words, a[0], dtype=np.float32)
    if len(a) != words:
        raise ValueError(f"input_lock has {len(a):,} factors for a vocabulary of {words:,} words "
                         "(one per word, or one for all)")
    return np.ascontiguousarray(a)


def check_model_fits(settings: Any, vocab: Any) -> None:
    """Refuses a vocabulary the loss cannot take (check_vocabulary) or a
    model that would not fit in the memory available (MemoryError with the
    numbers and what to change)."""
    check_vocabulary(settings, len(vocab))
    needed = memory_needed(settings, vocab, settings.threads)
    check_fits(f"a {len(vocab):,}-word, {settings.dim}-dimensional model on {settings.threads} thread(s) "
               f"(matrices {gib(needed['input_vectors'] + needed['output_vectors'])}, the threads' buffers "
               f"{gib(needed['training_threads'])})", needed["total"],
               "raise min_count, set max_final_vocab, or lower dim or threads")


def memory_needed(settings: Any, vocab: Any, threads: int, output_format: str | None = None) -> dict[str, int]:
    """Bytes training on `vocab` takes beyond what the process holds
    already, by what takes them: the vocabulary's tables and the two
    matrices (Vocabulary.memory_estimate), the buffers of the training
    threads (as the C core allocates them: each keeps dim-sized vectors,
    its loss's scratch and private copies of hot output rows) and the
    scratch of writing the vectors out (in output_format, None for the
    costliest); "total" is their sum at the worst moment (the threads'
    buffers are freed before the vectors are written)."""
    est = vocab.memory_estimate(settings.dim, settings.loss)
    held = est.pop("total")
    est["training_threads"] = thread_bytes(settings, len(vocab), threads)
    est["saving"] = formats.save_scratch_bytes(len(vocab), settings.dim, output_format)
    est["total"] = held + max(est["training_threads"], est["saving"])
    return est


def thread_bytes(settings: Any, vocab_size: int, threads: int) -> int:
    """What the C core allocates for `threads` training threads (a
    FastText with n-gram rows, `ngram_buckets` > 0, trains fastText's model)."""
    return _word2vec.worker_bytes(
        arch=settings.arch, loss=settings.loss, dim=settings.dim, window=settings.window,
        negative=settings.negative, max_sentence_length=settings.max_sentence_length,
        hot_rows=settings.hot_rows, shared_negatives=settings.shared_negatives, vocab_size=vocab_size,
        threads=threads, subwords=getattr(settings, "ngram_buckets", 0) > 0)


# every setting, in the order config() gives them
NAMES = ("arch", "loss", "dim", "window", "negative", "min_count", "sample", "epochs", "alpha", "min_alpha",
         "schedule", "threads", "seed", "max_vocab_size", "max_final_vocab", "ns_exponent", "cbow_mean",
         "shrink_windows", "max_sentence_length", "hot_rows", "shared_negatives", "tmp_dir", "ids_on_disk",
         "init_range", "regions")


def resolve(*, arch, loss, dim, window, negative, min_count, sample, epochs, alpha, min_alpha, schedule,
            threads, seed, max_vocab_size, max_final_vocab, ns_exponent, cbow_mean, shrink_windows,
            max_sentence_length, hot_rows, shared_negatives, tmp_dir, ids_on_disk, init_range,
            regions) -> dict:
    """The settings checked (ValueError naming the setting and its range)
    and completed with their defaults, as Word2Vec keeps them."""
    _check("arch", arch, arch in ARCHS, f"one of {ARCHS}")
    _check("loss", loss, loss in LOSSES, f"one of {LOSSES}")
    dim, window, epochs, min_count, max_sentence_length, sample, negative, seed, ns_exponent, init_range = (
        bounded(name, value) for name, value in (
            ("dim", dim), ("window", window), ("epochs", epochs), ("min_count", min_count),
            ("max_sentence_length", max_sentence_length), ("sample", sample), ("negative", negative),
            ("seed", seed), ("ns_exponent", ns_exponent), ("init_range", init_range)))
    _check("negative", negative, negative >= 1 or loss != "ns", "an integer >= 1 with loss='ns'")
    max_vocab_size = bounded("max_vocab_size", max_vocab_size, none=True)
    max_final_vocab = bounded("max_final_vocab", max_final_vocab, none=True)
    regions = bounded("regions", regions, none=True)
    alpha = bounded("alpha", alpha if alpha is not None else 0.05 if arch == "cbow" else 0.025)
    asked = schedule is not None
    if schedule is None:
        schedule = "epochs" if loss == "ns" else "word2vec"
    _check("schedule", schedule, schedule in SCHEDULES, f"one of {SCHEDULES} or None")
    if min_alpha is None:
        min_alpha = default_min_alpha(arch, loss, schedule, asked, alpha, epochs)
    _check("min_alpha", min_alpha, Range(0, alpha, integer=False).admits(min_alpha), f"in [0, alpha={alpha}]")
    threads = resolve_threads(threads)
    if hot_rows is None:  # the default: fewer for HS, whose hot rows take many more updates each
        hot_rows = 256 if loss == "hs" else 1024
    hot_rows = bounded("hot_rows", hot_rows)
    fits = window <= 64 and negative <= 63
    if shared_negatives is None:  # the default: on where it applies
        shared_negatives = arch == "skipgram" and loss == "ns" and fits
    elif shared_negatives and not fits:
        raise ValueError("shared_negatives supports window <= 64 and negative <= 63")
    _check("ids_on_disk", ids_on_disk, ids_on_disk in (None, True, False), "None, True or False")
    return {"arch": arch, "loss": loss, "dim": dim, "window": window, "negative": negative,
            "min_count": min_count, "sample": sample, "epochs": epochs, "alpha": alpha,
            "min_alpha": float(min_alpha), "schedule": schedule, "threads": threads, "seed": seed,
            "max_vocab_size": max_vocab_size, "max_final_vocab": max_final_vocab,
            "ns_exponent": ns_exponent, "cbow_mean": bool(cbow_mean), "shrink_windows": bool(shrink_windows),
            "max_sentence_length": max_sentence_length, "hot_rows": hot_rows,
            "shared_negatives": bool(shared_negatives) and arch == "skipgram" and loss == "ns",
            "tmp_dir": tmp_dir, "ids_on_disk": ids_on_disk, "init_range": init_range, "regions": regions}
