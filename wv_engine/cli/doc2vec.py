"""`wv-engine doc2vec` and `wv-engine infer`: document vectors trained on a
file of one document a line, and inferred for unseen ones (flags:
args.py)."""

from __future__ import annotations

import sys
import time

from ..files import read_as, write_json
from ..io import save_vectors
from ..memory import peak_rss_bytes
from ..vectors import Vectors
from .args import FORMATS
from .common import EXIT_ERROR, EXIT_INTERRUPTED, check_outputs, final_output, resume_overrides, say, secondary
from .inputs import resumed

DOC2VEC_FLAGS = ("arch", "loss", "dim", "window", "negative", "min_count", "sample", "epochs", "alpha", "min_alpha",
                 "threads", "seed", "max_vocab_size", "max_final_vocab", "dm_mean", "dm_concat", "dm_tag_count",
                 "dbow_words", "shared_negatives")
# Settings a checkpoint fixes: a flag typed on --resume must agree with it.
DOC2VEC_FIXED = tuple(name for name in DOC2VEC_FLAGS if name != "threads")


def run_doc2vec(args) -> int:
    """`wv-engine doc2vec`: vocabulary, documents, training, the model and the vectors asked for."""
    from ..doc2vec import Doc2Vec, Documents

    started = time.perf_counter()
    progress = False if args.quiet else None
    check_outputs(args, "output", "checkpoint", "vectors", "word_vectors", "stats_json")
    callbacks = _scores(args)  # the test set read before any work
    if args.resume:  # its settings, but for the threads; a fixed setting typed must agree with it
        model = resumed(args, Doc2Vec.saved_config, Doc2Vec.load,
                        lambda saved: resume_overrides(args, saved, DOC2VEC_FIXED))
        documents = read_as("INPUT", args.input, Documents, model.threads)
        say(args, f"resuming from {args.resume}: {model.epochs_trained} epoch(s) trained, "
                  f"{model.unfinished_epochs or model.epochs} to train")
    else:
        model = Doc2Vec(**{name: getattr(args, name) for name in DOC2VEC_FLAGS})
        documents = read_as("INPUT", args.input, Documents, model.threads)
        say(args, f"counting words in {args.input}")
        model.build_vocab(documents, progress=progress)
        say(args, f"{documents.n_docs:,} documents, {len(model.tag_keys):,} tags, vocabulary of "
                  f"{len(model.vocab):,} words ({time.perf_counter() - started:.1f} s)")
    count_seconds = time.perf_counter() - started
    interrupted = False
    try:
        stats = model.train(documents, progress=progress, checkpoint=args.checkpoint,
                            checkpoint_every=args.checkpoint_every, callbacks=callbacks)
    except KeyboardInterrupt:
        interrupted, stats = True, model.last_stats
        say(args, f"interrupted after {stats.epochs} full epoch(s): saving what is trained"
                  + (f" (checkpoint: {args.checkpoint})" if args.checkpoint else ""))
    for cb in callbacks:  # the last epoch, where --eval-every skipped it
        last = cb.scores[-1]["epoch"] if cb.scores else None
        if not interrupted and model.epochs_trained and last != model.epochs_trained:
            cb.score(model)
    t0 = time.perf_counter()
    output = final_output(args, interrupted, stats.epochs)
    model.save(output)
    ok = True
    if args.checkpoint and not interrupted:
        ok = secondary(args, f"checkpoint {args.checkpoint}", lambda: model.save(args.checkpoint))
    for path, vectors in ((args.vectors, model.dv), (args.word_vectors, model.wv)):
        if path:
            ok &= secondary(args, f"file {path}", lambda p=path, v=vectors: save_vectors(v, p, FORMATS[args.format]))
    total = time.perf_counter() - started
    say(args, f"wrote the model to {output} ({stats.words_per_sec:,.0f} words/s, {total:.1f} s in all)")
    if args.stats_json:
        ok &= secondary(args, f"stats file {args.stats_json}", lambda: write_json(args.stats_json, {
            "documents": documents.n_docs, "tags": len(model.tag_keys), "vocab_size": len(model.vocab),
            "corpus_words": stats.corpus_words, "epochs": stats.epochs, "threads": model.threads,
            "count_seconds": count_seconds, "train_seconds": stats.train_seconds,
            "save_seconds": time.perf_counter() - t0, "total_seconds": total, "words_per_sec": stats.words_per_sec,
            "epoch_loss": stats.epoch_loss, "peak_rss_bytes": peak_rss_bytes(), "config": model.config(),
            "output": output, "interrupted": interrupted, "resumed_from": args.resume,
            "epoch_scores": stats.epoch_scores,
        }))
    return EXIT_INTERRUPTED if interrupted else 0 if ok else EXIT_ERROR


def _scores(args) -> list:
    """The DocumentScores callback --eval-every and --eval-documents ask for."""
    if not args.eval_documents:
        if args.eval_every:
            raise ValueError("--eval-every needs --eval-documents FILE (the documents to find)")
        return []
    from ..doc2vec import DocumentScores

    report = None if args.quiet else (lambda line: print(line, file=sys.stderr))
    return [read_as("--eval-documents", args.eval_documents, DocumentScores, args.eval_every or 1, report)]


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
