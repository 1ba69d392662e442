"""`wv-engine doc2vec` and `wv-engine infer`: document vectors trained on a
file of one document a line, and inferred for unseen ones (flags:
args.py)."""

from __future__ import annotations

import time

from ..files import read_as, write_json
from ..io import save_vectors
from ..memory import peak_rss_bytes
from ..vectors import Vectors
from .args import FORMATS
from .common import EXIT_ERROR, check_outputs, say, secondary

DOC2VEC_FLAGS = ("arch", "loss", "dim", "window", "negative", "min_count", "sample", "epochs", "alpha", "min_alpha",
                 "threads", "seed", "max_vocab_size", "max_final_vocab", "dm_mean", "dm_concat", "dm_tag_count",
                 "dbow_words", "shared_negatives")


def run_doc2vec(args) -> int:
    """`wv-engine doc2vec`: vocabulary, documents, training, the model and the vectors asked for."""
    from ..doc2vec import Doc2Vec, Documents

    started = time.perf_counter()
    progress = False if args.quiet else None
    check_outputs(args, "output", "vectors", "word_vectors", "stats_json")
    model = Doc2Vec(**{name: getattr(args, name) for name in DOC2VEC_FLAGS})
    documents = read_as("INPUT", args.input, Documents, model.threads)
    say(args, f"counting words in {args.input}")
    model.build_vocab(documents, progress=progress)
    count_seconds = time.perf_counter() - started
    say(args, f"{documents.n_docs:,} documents, {len(model.tag_keys):,} tags, vocabulary of {len(model.vocab):,} "
              f"words ({count_seconds:.1f} s)")
    stats = model.train(documents, progress=progress)
    t0 = time.perf_counter()
    model.save(args.output)
    ok = True
    for path, vectors in ((args.vectors, model.dv), (args.word_vectors, model.wv)):
        if path:
            ok &= secondary(args, f"file {path}", lambda p=path, v=vectors: save_vectors(v, p, FORMATS[args.format]))
    total = time.perf_counter() - started
    say(args, f"wrote the model to {args.output} ({stats.words_per_sec:,.0f} words/s, {total:.1f} s in all)")
    if args.stats_json:
        ok &= secondary(args, f"stats file {args.stats_json}", lambda: write_json(args.stats_json, {
            "documents": documents.n_docs, "tags": len(model.tag_keys), "vocab_size": len(model.vocab),
            "corpus_words": stats.corpus_words, "epochs": stats.epochs, "threads": model.threads,
            "count_seconds": count_seconds, "train_seconds": stats.train_seconds,
            "save_seconds": time.perf_counter() - t0, "total_seconds": total, "words_per_sec": stats.words_per_sec,
            "epoch_loss": stats.epoch_loss, "peak_rss_bytes": peak_rss_bytes(), "config": model.config(),
            "output": args.output,
        }))
    return 0 if ok else EXIT_ERROR


def run_infer(args) -> int:
    """`wv-engine infer`: a vector for each line of INPUT, named as its tags name it."""
    from ..doc2vec import Doc2Vec, Documents

    started = time.perf_counter()
    check_outputs(args, "output")
    model = read_as("MODEL", args.model, Doc2Vec.load)
    if args.threads is not None:
        model.threads = args.threads
    documents = read_as("INPUT", args.input, Documents, model.threads)
    vectors = model.infer(documents, epochs=args.epochs, alpha=args.alpha, min_alpha=args.min_alpha,
                          threads=args.threads, progress=False if args.quiet else None)
    save_vectors(Vectors(_line_names(documents), vectors), args.output, FORMATS[args.format])
    say(args, f"wrote {len(vectors):,} inferred vectors to {args.output} ({time.perf_counter() - started:.1f} s)")
    return 0


def _line_names(documents) -> list[str]:
    """Each line's name: its first tag (its number where it has none), or
    every line its number where two lines would share a name."""
    encoded = documents.encode(None)
    first = [encoded.keys[encoded.tags[encoded.tag_start[d]]] if encoded.tag_start[d + 1] > encoded.tag_start[d]
             else str(d) for d in range(encoded.n_docs)]
    return first if len(set(first)) == len(first) else [str(d) for d in range(encoded.n_docs)]
