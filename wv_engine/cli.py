"""The wv-engine command line: each command calls the library's pipeline
and holds only its messages and exit codes (its flags: cli_args.py). The
only place that prints.

Every expected error becomes one line on stderr and a non-zero exit, never a
traceback."""

from __future__ import annotations

import contextlib
import json
import signal
import sys
import time
from typing import Sequence

from . import cli_fasttext, cli_watch
from .cli_args import FORMATS, MATRIX_FORMATS, build_parser, typed_flags
from .cli_inputs import check_tmp_dir, read_input, resumed
from .cli_phrases import run_phrases
from .files import read_as, write_json
from .memory import peak_rss_bytes

EXIT_ERROR = 1
EXIT_INTERRUPTED = 130


@contextlib.contextmanager
def _cluster(args):
    """The dask client for --scheduler (closed on exit), or None."""
    if not args.scheduler:
        yield None
        return
    from .cluster import close, connect

    client = connect(args.scheduler, args.threads or 1)
    _say(args, f"dask cluster {args.scheduler}: {len(client.scheduler_info()['workers'])} worker(s)")
    try:
        yield client
    finally:
        close(client)


def _save_matrix_vectors(args, vectors, output: str | None = None) -> None:
    from .io import save_vectors

    kwargs = {"header": True} if args.format == "txt" and getattr(args, "header", False) else {}
    save_vectors(vectors, output or args.output, MATRIX_FORMATS[args.format], **kwargs)


def _save_cooccurrence(args, matrix) -> None:
    from . import cooccur

    if args.save_cooccurrence.endswith(".bin"):
        cooccur.write_records(matrix, args.save_cooccurrence)
    else:
        cooccur.save_npz(matrix, args.save_cooccurrence)


def run_glove(args) -> int:
    """`wv-engine glove`: vocabulary, co-occurrences, AdaGrad training, vectors."""
    from .glove import GloVe

    started = time.perf_counter()
    progress = False if args.quiet else None
    settings = dict(dim=args.dim, window=args.window, x_max=args.x_max, alpha=args.alpha, epochs=args.epochs,
                    eta=args.eta, min_count=args.min_count, threads=args.threads, seed=args.seed,
                    memory_limit=args.memory_limit, tmp_dir=args.tmp_dir,
                    max_vocab_size=args.max_vocab_size, output=args.output_vectors, exact_sqrt=args.exact_sqrt,
                    grid=args.grid, grid_rounds=args.grid_rounds)
    settings = {k: v for k, v in settings.items() if v is not None}
    _check_outputs(args, "output", "checkpoint", "stats_json", "save_cooccurrence")
    callbacks = cli_watch.training_callbacks(args)  # their test sets read before any work
    check_tmp_dir(args)
    with _cluster(args) as client:
        corpus = read_input(args, client)  # resolved once
        if args.resume:
            model = resumed(args, GloVe.saved_config, GloVe.load_checkpoint, lambda saved: _resume_overrides(
                args, saved, GLOVE_FIXED, {"output_vectors": "output", "output": None}))
            _say(args, f"resuming from {args.resume} after {model.epochs_trained} epoch(s); the settings given "
                       "agree with it; the co-occurrences are counted again (a checkpoint holds no records)")
        else:
            model = GloVe(**settings)
            _say(args, f"counting words in {args.input}")
            model.build_vocab(corpus, client=client)
        vocab = model.vocab
        _say(args, f"vocabulary: {len(vocab):,} words (min_count {model.min_count}); counting co-occurrences "
                   f"(window {model.window}, {model.threads} threads{' per worker' if client else ''})")
        save = (lambda matrix: _save_cooccurrence(args, matrix)) if args.save_cooccurrence else None
        vocab_seconds = time.perf_counter() - started
        nonzeros = model.prepare_training(corpus, progress=progress, client=client, on_cooccurrence=save)
    count_seconds = vocab_seconds + model.stage_seconds["count"]
    stage_seconds = {"count": count_seconds, "records": model.stage_seconds["records"]}
    where = (f"; out of core: {model.record_blocks} shuffled blocks of training records in "
             f"{model.tmp_dir or 'the temporary directory'}" if model.record_blocks else "")
    _say(args, f"{nonzeros:,} non-zeros in {count_seconds:.1f} s{where}")
    interrupted = False
    try:
        stats = model.train(progress=progress, checkpoint=args.checkpoint, checkpoint_every=args.checkpoint_every,
                            callbacks=callbacks)
    except KeyboardInterrupt:
        interrupted = True
        stats = model.last_stats
        _say(args, f"interrupted after {len(stats.epochs)} full epoch(s): saving what is trained")
    stage_seconds["train"] = stats.train_seconds
    watched = cli_watch.finish(callbacks, model, stats, score_last=not interrupted)
    output = _final_output(args, interrupted, len(stats.epochs))
    t0 = time.perf_counter()
    _save_matrix_vectors(args, model.vectors, output)
    ok = True
    if args.checkpoint and not interrupted:
        ok = _secondary(args, f"checkpoint {args.checkpoint}", lambda: model.save_checkpoint(args.checkpoint))
    stage_seconds["save"] = time.perf_counter() - t0
    total = time.perf_counter() - started
    _say(args, f"wrote {len(vocab):,} vectors to {output} ({total:.1f} s in all)")
    if args.stats_json:
        ok &= _secondary(args, f"stats file {args.stats_json}", lambda: write_json(args.stats_json, {
            "vocab_size": len(vocab), "nonzeros": nonzeros, "count_seconds": count_seconds,
            "train_seconds": stats.train_seconds, "total_seconds": total, "epoch_cost": stats.epoch_cost,
            "epochs": len(stats.epochs), "threads": model.threads, "interrupted": interrupted,
            "config": model.config(), "peak_rss_bytes": peak_rss_bytes(), "output": output,
            # count: vocabulary and co-occurrences; records: the shuffled training records (out of core:
            # the last merge writing the blocks); train; save: the vectors and the checkpoint
            "stage_seconds": stage_seconds, "out_of_core": stats.out_of_core, "blocks": stats.blocks,
            "grid_bands": stats.grid_bands, "grid_rounds": stats.grid_rounds,
            **watched,  # epoch_stats, epoch_scores (--eval-every)
            # memory_needed for this run (records aside: checked as they are made); compare peak_rss_bytes
            "memory_estimate_bytes": model.memory_needed(len(vocab), None, MATRIX_FORMATS[args.format])["total"],
        }))
    return EXIT_INTERRUPTED if interrupted else 0 if ok else EXIT_ERROR


def run_svd(args) -> int:
    """`wv-engine svd`: vocabulary, co-occurrences, PPMI + truncated SVD, vectors."""
    from .ppmi import ppmi_svd

    started = time.perf_counter()
    _check_outputs(args, "output", "save_cooccurrence")
    check_tmp_dir(args)
    with _cluster(args) as client:
        vectors = ppmi_svd(read_input(args, client), dim=args.dim, window=args.window, min_count=args.min_count,
                           max_vocab_size=args.max_vocab_size, cds=args.cds, shift=args.shift, eig=args.eig,
                           threads=args.threads, memory_limit=args.memory_limit, tmp_dir=args.tmp_dir,
                           client=client, progress=False if args.quiet else None,
                           on_cooccurrence=(lambda m: _save_cooccurrence(args, m)) if args.save_cooccurrence else None,
                           report=lambda message: _say(args, message))
    _save_matrix_vectors(args, vectors)
    _say(args, f"wrote {len(vectors):,} vectors to {args.output} ({time.perf_counter() - started:.1f} s in all)")
    return 0


def run_convert(args) -> int:
    """`wv-engine convert`: gensim's saved model or vectors into ours."""
    from .gensim import pickled
    from .gensim.convert import convert

    _check_outputs(args, "output")
    record = read_as("INPUT", args.input, pickled.read)
    _say(args, f"wrote {convert(args.input, args.output, FORMATS[args.format] if args.format else None, record)}")
    return 0


def run_demo(args) -> int:
    """`wv-engine demo`: train on the shipped corpus and show the result."""
    from . import demo

    demo.run(args.out, threads=args.threads, progress=False if args.quiet else None)
    return 0


def _say(args, message: str) -> None:
    if not getattr(args, "quiet", False):
        print(message, file=sys.stderr)


def _check_outputs(args, *names: str) -> None:
    """Every file the command will write, checked before any work starts."""
    from .files import check_writable

    what = {"output": "output", "checkpoint": "checkpoint", "stats_json": "stats file",
            "save_vocab": "vocabulary file", "save_cooccurrence": "co-occurrence file"}
    for name in names:
        path = getattr(args, name, None)
        if path:
            check_writable(path, what[name])


def _final_output(args, interrupted: bool, epochs_done: int) -> str:
    """Where the vectors go: -o, unless the run was interrupted before one
    epoch of its own finished; then beside it, so that a good file at -o is
    never replaced by a barely trained one."""
    if interrupted and epochs_done == 0:
        from .files import sibling_path

        partial = sibling_path(args.output, ".partial")
        _say(args, f"interrupted before the first epoch ended: {args.output} is left as it was; "
                   f"the partial vectors go to {partial}")
        return partial
    return args.output


def _secondary(args, what: str, write) -> bool:
    """Writes a file after the vectors; a failure is reported, not fatal to
    what was already saved. True when it was written."""
    try:
        write()
        return True
    except OSError as exc:
        print(f"wv-engine: error: the vectors were saved, but the {what} was not: {exc}", file=sys.stderr)
        return False


# Settings a checkpoint fixes: a flag given on --resume must agree with it.
WORD2VEC_FIXED = ("arch", "loss", "dim", "window", "negative", "min_count", "sample", "epochs", "alpha",
                  "min_alpha", "schedule", "seed", "max_vocab_size", "max_final_vocab", "ns_exponent",
                  "max_sentence_length", "shared_negatives", "init_range")
WORD2VEC_FLAGS = WORD2VEC_FIXED + ("threads", "tmp_dir", "ids_on_disk", "regions")  # Word2Vec's settings too
GLOVE_FIXED = ("dim", "window", "x_max", "alpha", "eta", "min_count", "seed", "max_vocab_size")


def _given(args, name: str):
    """The value of a flag the user typed, or None where it was left out
    (a value typed equal to the default is given all the same)."""
    return getattr(args, name) if name in getattr(args, "given", ()) else None


def _resume_overrides(args, config: dict, fixed: Sequence[str], flag_names: dict[str, str | None] | None = None) -> dict:
    """The settings the user's flags change on --resume: a flag that fixes
    the model (`fixed`) must agree with the checkpoint; the others (threads,
    memory, files) replace the checkpoint's values."""
    flag_names = flag_names or {}
    overrides = {}
    for dest, value in vars(args).items():
        key = flag_names.get(dest, dest)
        if key is None or key not in config or _given(args, dest) is None:
            continue
        if key in fixed and value != config[key]:
            flag = "--" + dest.replace("_", "-")
            raise ValueError(f"--resume {args.resume}: the checkpoint was trained with {key}={config[key]!r}, "
                             f"but {flag} asks for {value!r}; drop the flag to continue, or start afresh")
        overrides[key] = value
    return overrides


def run_word2vec(args, trainer=None, settings: dict | None = None, write=None) -> int:
    """`wv-engine word2vec` (`fasttext`: its trainer, settings, writer): vocabulary, encoding, training, stats."""
    from .io import save_vectors
    from .word2vec import Word2Vec

    trainer, settings = trainer or Word2Vec, settings or {}
    write = write or (lambda model, path, fmt: save_vectors(model.vectors, path, FORMATS[fmt]))

    started = time.perf_counter()
    progress = None if not args.quiet else False
    interrupted = False
    _check_outputs(args, "output", "checkpoint", "stats_json", "save_vocab")
    callbacks = cli_watch.training_callbacks(args)  # their test sets read before any work
    check_tmp_dir(args)
    with _cluster(args) as client:
        source = read_input(args, client)  # with --phrases, read through the phrase model
        if args.resume:
            if client is not None:
                raise ValueError("--resume trains on this machine; drop --scheduler")
            model = resumed(args, trainer.saved_config, trainer.load,
                            lambda saved: _resume_overrides(args, saved, WORD2VEC_FIXED + tuple(settings)))
            left = model.unfinished_epochs
            _say(args, f"resuming from {args.resume}: {model.epochs_trained} epoch(s) trained, "
                       + (f"{left} of the run's {model.schedule_state['epochs']} left" if left else "its run complete")
                       + "; the settings given agree with it")
        else:
            model = trainer(**{name: getattr(args, name) for name in WORD2VEC_FLAGS}, **settings)
            _say(args, f"counting words in {args.input}")
            model.build_vocab(source, client=client, progress=progress)
        vocab = model.vocab
        count_seconds = time.perf_counter() - started
        _say(args, f"vocabulary: {len(vocab):,} words (min_count {model.min_count}) of "
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
            from .epochs import TrainingStats

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
                _say(args, f"interrupted after {stats.epochs} full epoch(s): saving the vectors trained so far"
                           + (f" (checkpoint: {args.checkpoint})" if args.checkpoint else ""))
    watched = cli_watch.finish(callbacks, model, stats, score_last=not interrupted)
    t0 = time.perf_counter()
    output = _final_output(args, interrupted, stats.epochs)
    write(model, output, args.format)
    ok = True
    if args.checkpoint and not interrupted:
        ok = _secondary(args, f"checkpoint {args.checkpoint}", lambda: model.save(args.checkpoint))
    save_seconds = time.perf_counter() - t0
    total = time.perf_counter() - started
    _say(args, f"wrote {len(vocab):,} vectors of dim {model.dim} to {output} "
               f"({stats.words_per_sec:,.0f} words/s, {total:.1f} s in all)")
    if args.stats_json:
        ok &= _secondary(args, f"stats file {args.stats_json}", lambda: write_json(args.stats_json, {
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


def run_fasttext(args) -> int:  # word2vec's command with FastText (cli_fasttext.py)
    return run_word2vec(args, cli_fasttext.FastText, cli_fasttext.settings(args), cli_fasttext.write_vectors)


def run_eval(args) -> int:
    """`wv-engine eval`: analogies and word-pair correlations of a vectors file."""
    from .epoch_scores import evaluate_sets
    from .evaluate import read_analogies, read_pairs

    analogies = read_as("--analogies", args.analogies, read_analogies) if args.analogies else None
    pairs = [read_as("--pairs", path, read_pairs) for path in args.pairs or ()]
    results = evaluate_sets(_vectors(args), analogies, pairs, args.restrict_vocab)
    names = [name for name in results if name != "analogy"]
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    a = results["analogy"]
    print(f"analogy ({a['method']}, top {a['restrict_vocab']:,} words, case-insensitive): "
          f"{_pct(a['accuracy'], '.2f')} of {a['total']:,} answered questions "
          f"(coverage {_pct(a['coverage'], '.1f')} of {a['questions']:,})")
    for s in a["sections"]:
        print(f"  {s['section']:<32} {_pct(s['accuracy'], '6.2f')}  ({s['correct']}/{s['total']})")
    for name in names:
        r = results[name]
        print(f"{name}: Spearman {_num(r['spearman'])}, Pearson {_num(r['pearson'])} "
              f"({r['pairs']} pairs, OOV {_pct(r['oov_ratio'], '.1f')})")
    return 0


def _pct(value, spec: str) -> str:
    """A share as a percentage, or n/a where nothing could be measured."""
    return "n/a" if value is None else f"{value * 100:{spec}}%"


def _num(value) -> str:
    return "n/a" if value is None or value != value else f"{value:.3f}"


def _vectors(args):
    """The vectors of VECTORS (load_vectors), a failure naming it."""
    from .io import load_vectors

    return read_as("VECTORS", args.vectors, load_vectors)


def _print_neighbours(pairs) -> None:
    for word, score in pairs:
        print(f"{score:.4f}  {word}")


def run_similar(args) -> int:
    """`wv-engine similar`: nearest neighbours of a word."""
    _print_neighbours(_vectors(args).most_similar(args.word, topn=args.n))
    return 0


def run_analogy(args) -> int:
    """`wv-engine analogy`: A is to B as C is to ?"""
    _print_neighbours(_vectors(args).analogy(args.a, args.b, args.c, topn=args.n))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the wv-engine console script; returns the exit status."""
    args = build_parser().parse_args(argv)
    args.given = typed_flags(argv)
    previous = _terminate_like_ctrl_c()
    try:
        return COMMANDS[args.command](args)
    except KeyboardInterrupt:
        print("wv-engine: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except MemoryError as exc:
        print(f"wv-engine: error: {_memory_message(args, exc)}", file=sys.stderr)
        return EXIT_ERROR
    except (ValueError, KeyError, OSError, RuntimeError, FloatingPointError, ImportError) as exc:
        # a bare KeyError's str() is its repr; ours (UnknownWordError) reads well
        message = exc.args[0] if type(exc) is KeyError and exc.args else exc
        if isinstance(exc, FileNotFoundError) and exc.filename:
            message = f"file not found: {exc.filename}"
        print(f"wv-engine: error: {message}", file=sys.stderr)
        return EXIT_ERROR
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _terminate_like_ctrl_c():
    """SIGTERM (timeout, systemd, Slurm) stops a run as Ctrl-C does: the
    threads are joined, the checkpoint and what was trained are saved.
    Returns the handler it replaced (None off the main thread)."""
    def handler(signum, frame):
        raise KeyboardInterrupt

    try:
        return signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread
        return None


def _memory_message(args, exc: MemoryError) -> str:
    """A MemoryError as one line that says what ran out and what to change."""
    detail = str(exc).strip()
    if detail:
        return detail
    matrix = "raise --min-count, lower --memory-limit or --window, or set --max-vocab-size"
    advice = {"word2vec": "raise --min-count, set --max-vocab-size or --max-final-vocab, or lower --dim",
              "glove": matrix, "svd": matrix, "phrases": "set --memory-limit or --max-vocab-size"}
    return (f"out of memory during `wv-engine {args.command}`; "
            + advice.get(args.command, "free memory or use a smaller input"))


COMMANDS = {"word2vec": run_word2vec, "fasttext": run_fasttext, "glove": run_glove, "svd": run_svd, "eval": run_eval,
            "phrases": run_phrases, "report": cli_watch.run_report, "map": cli_watch.run_map,
            "similar": run_similar, "analogy": run_analogy, "convert": run_convert, "demo": run_demo}


if __name__ == "__main__":
    sys.exit(main())
