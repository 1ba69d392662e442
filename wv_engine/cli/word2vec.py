"""`wv-engine word2vec` and `wv-engine fasttext`: vocabulary, encoding,
training, the vectors and the stats (flags: args.py); fasttext is word2vec's
command with the FastText trainer, its n-gram settings and its files."""

from __future__ import annotations

import time

import numpy as np

from ..fasttext import FastText
from ..files import read_as, write_json
from ..io import save_vectors
from ..memory import peak_rss_bytes
from ..vocab import Vocabulary
from . import watch
from .args import FORMATS
from .common import (
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    WORD2VEC_FIXED,
    WORD2VEC_FLAGS,
    check_outputs,
    dask_client,
    final_output,
    resume_overrides,
    say,
    secondary,
)
from .inputs import check_tmp_dir, read_input, resumed


def run_word2vec(args, trainer=None, settings: dict | None = None, write=None) -> int:
    """`wv-engine word2vec` (`fasttext`: its trainer, settings, writer): vocabulary, encoding, training, stats."""
    from ..io import save_vectors
    from ..word2vec import Word2Vec

    trainer, settings = trainer or Word2Vec, settings or {}
    write = write or (lambda model, path, fmt: save_vectors(model.vectors, path, FORMATS[fmt]))

    started = time.perf_counter()
    progress = None if not args.quiet else False
    interrupted = False
    check_outputs(args, "output", "checkpoint", "stats_json", "save_vocab")
    if args.add_pretrained_words and not args.pretrained_vectors:
        raise ValueError("--add-pretrained-words needs --pretrained-vectors")
    callbacks = watch.training_callbacks(args)  # their test sets read before any work
    check_tmp_dir(args)
    with dask_client(args) as client:
        source = read_input(args, client)  # with --phrases, read through the phrase model
        if args.resume:
            if client is not None:
                raise ValueError("--resume trains on this machine; drop --scheduler")
            model = resumed(args, trainer.saved_config, trainer.load,
                            lambda saved: resume_overrides(args, saved, WORD2VEC_FIXED + tuple(settings)))
            left = model.unfinished_epochs
            say(args, f"resuming from {args.resume}: {model.epochs_trained} epoch(s) trained, "
                       + (f"{left} of the run's {model.schedule_state['epochs']} left" if left else "its run complete")
                       + "; the settings given agree with it")
        else:
            model = trainer(**{name: getattr(args, name) for name in WORD2VEC_FLAGS}, **settings)
            if args.read_vocab:
                vocab = read_as("--read-vocab", args.read_vocab, Vocabulary.load).kept(args.min_count,
                                                                                       without=("</s>",))
                say(args, f"vocabulary read from {args.read_vocab}")
                model.build_vocab(source, vocab=vocab, client=client, progress=progress)
            else:
                say(args, f"counting words in {args.input}")
                model.build_vocab(source, client=client, progress=progress)
            if args.pretrained_vectors:
                from ..io import load_vectors

                pretrained = read_as("--pretrained-vectors", args.pretrained_vectors, load_vectors)
                if args.add_pretrained_words:  # fastText's: each of the file's words counted once more
                    model.add_vocab(vocab=Vocabulary(pretrained.words, np.ones(len(pretrained), np.int64)),
                                    min_count=1)
                known = model.start_from(pretrained)
                say(args, f"{known:,} of the {len(model.vocab):,} words start from {args.pretrained_vectors}")
        vocab = model.vocab
        count_seconds = time.perf_counter() - started
        say(args, f"vocabulary: {len(vocab):,} words (min_count {model.min_count}) of "
                   + (f"at least {vocab.distinct_words:,} distinct (rare words pruned while counting)"
                      if vocab.pruned else f"{vocab.distinct_words:,} distinct")
                   + f"; {vocab.total_tokens:,} tokens ({count_seconds:.1f} s)")
        if args.save_vocab:
            vocab.save(args.save_vocab)
        t0 = time.perf_counter()
        finished = bool(args.resume) and model.unfinished_epochs == 0
        corpus = source if client or finished else model.encode(source, progress=progress)
        encode_seconds = time.perf_counter() - t0
        if finished:  # nothing left to train: the corpus is not even read
            from ..epochs import TrainingStats

            state = model.schedule_state
            stats = TrainingStats(corpus_words=state["corpus_words"] if state else 0)
        else:
            try:
                stats = model.train(corpus, progress=progress, client=client, sync_words=args.sync_words,
                                    lr_scale=args.lr_scale, checkpoint=args.checkpoint,
                                    checkpoint_every=args.checkpoint_every, callbacks=callbacks)
            except KeyboardInterrupt:
                interrupted = True
                stats = model.last_stats
                say(args, f"interrupted after {stats.epochs} full epoch(s): saving the vectors trained so far"
                           + (f" (checkpoint: {args.checkpoint})" if args.checkpoint else ""))
    watched = watch.finish(callbacks, model, stats, score_last=not interrupted)
    t0 = time.perf_counter()
    output = final_output(args, interrupted, stats.epochs)
    write(model, output, args.format)
    ok = True
    if args.checkpoint and not interrupted:
        ok = secondary(args, f"checkpoint {args.checkpoint}", lambda: model.save(args.checkpoint))
    save_seconds = time.perf_counter() - t0
    total = time.perf_counter() - started
    say(args, f"wrote {len(vocab):,} vectors of dim {model.dim} to {output} "
               f"({stats.words_per_sec:,.0f} words/s, {total:.1f} s in all)")
    if args.stats_json:
        ok &= secondary(args, f"stats file {args.stats_json}", lambda: write_json(args.stats_json, {
            "vocab_size": len(vocab),
            "corpus_words": stats.corpus_words,  # in-vocabulary tokens: what each epoch trains on
            "corpus_tokens": vocab.total_tokens,  # every token in the file, out-of-vocabulary ones too
            "epochs": stats.epochs, "threads": model.threads,
            "count_seconds": count_seconds,
            "encode_seconds": encode_seconds,
            "train_seconds": stats.train_seconds,
            "save_seconds": save_seconds,
            "total_seconds": total,
            "peak_rss_bytes": peak_rss_bytes(),
            # memory_needed for this run (its threads, its output format); compare peak_rss_bytes
            "memory_estimate_bytes": model.memory_needed(vocab, None, FORMATS[args.format])["total"],
            "words_per_sec": stats.words_per_sec,
            "epoch_loss": stats.epoch_loss,
            **watched,  # epoch_stats, epoch_scores (--eval-every)
            "interrupted": interrupted,
            "resumed_from": args.resume,
            "config": model.config(),
            "scheduler": args.scheduler,
            "sync_words": args.sync_words if args.scheduler else None,
            "output": output,
        }))
    return EXIT_INTERRUPTED if interrupted else 0 if ok else EXIT_ERROR


def run_fasttext(args) -> int:
    """`wv-engine fasttext`: run_word2vec with FastText, its settings and its files."""
    return run_word2vec(args, FastText, fasttext_settings(args), write_fasttext)


def fasttext_settings(args) -> dict:
    """FastText's settings beyond Word2Vec's, from the command line."""
    return {"minn": args.minn, "maxn": args.maxn, "bucket": args.bucket}


def write_fasttext(model: FastText, path: str, fmt: str) -> None:
    """--format bin: fastText's .bin; txt: its .vec (word2vec text: every
    vocabulary word's vector); native: the whole training state (read by
    FastText.load, and by load_vectors as the words' vectors)."""
    if fmt == "bin":
        model.save_fasttext(path)
    elif fmt == "txt":
        save_vectors(model.vectors, path, "word2vec-txt")
    else:
        model.save(path)
