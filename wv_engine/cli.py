"""The wv-engine command line: the only place that parses flags and prints.

Every expected error becomes one line on stderr and a non-zero exit, never a
traceback. Flags named in the issues are a contract: add, never rename."""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import signal
import sys
import time
from typing import Callable, Sequence

EXIT_ERROR = 1
EXIT_INTERRUPTED = 130

FORMATS = {"bin": "word2vec-bin", "txt": "word2vec-txt", "native": "native"}
# GloVe and SVD vectors: txt is GloVe's own text format (no header).
MATRIX_FORMATS = {"bin": "word2vec-bin", "txt": "glove-txt", "native": "native"}


# ---- argument types: bad values are rejected by the parser with the range --
def _number(kind: Callable[[str], float], low: float | None, high: float | None,
            low_open: bool = False) -> Callable[[str], float]:
    def parse(text: str):
        """Parses and range-checks one value."""
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {kind.__name__}, got {text!r}") from None
        if isinstance(value, float) and not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
        bad_low = low is not None and (value <= low if low_open else value < low)
        bad_high = high is not None and value > high
        if bad_low or bad_high:
            lo = "" if low is None else (f"> {low}" if low_open else f">= {low}")
            hi = "" if high is None else f"<= {high}"
            raise argparse.ArgumentTypeError(f"must be {' and '.join(x for x in (lo, hi) if x)}, got {text}")
        return value
    parse.__name__ = kind.__name__
    return parse


positive_int = _number(int, 1, None)
nonneg_int = _number(int, 0, None)
positive_float = _number(float, 0, None, low_open=True)


def sample_rate(text: str) -> float:
    """argparse type: a subsampling threshold in [0, 1)."""
    value = _number(float, 0, None)(text)
    if value >= 1:
        raise argparse.ArgumentTypeError(f"must be >= 0 and < 1, got {text}")
    return value


def _add_scheduler(p) -> None:
    p.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="run on a dask.distributed cluster: a scheduler address (tcp://host:8786) or "
                        "local:N for N local worker processes; --threads is then per worker "
                        '(needs pip install "wv-engine[dask]"; the input must be readable by every worker)')


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


def _add_word2vec(sub) -> None:
    p = sub.add_parser("word2vec", help="train word2vec vectors on a text file",
                       description="Train skip-gram or CBOW vectors on a text file (plain, .gz, .bz2, "
                                   ".xz; whitespace-separated tokens, a newline ends a sentence).")
    p.add_argument("input", metavar="INPUT", help="training text file")
    p.add_argument("-o", "--output", required=True, metavar="OUTPUT", help="where to write the vectors")
    p.add_argument("--arch", choices=["skipgram", "cbow"], default="skipgram")
    p.add_argument("--loss", choices=["ns", "hs", "softmax"], default="ns",
                   help="negative sampling, hierarchical softmax, or exact softmax (small vocabularies)")
    p.add_argument("--dim", type=positive_int, default=100)
    p.add_argument("--window", type=positive_int, default=5)
    p.add_argument("--negative", type=nonneg_int, default=5,
                   help="negative samples per positive (>= 1 with --loss ns; ignored otherwise)")
    p.add_argument("--min-count", type=positive_int, default=5)
    p.add_argument("--sample", type=sample_rate, default=1e-3, help="subsampling threshold, 0 to disable")
    p.add_argument("--epochs", type=positive_int, default=5)
    p.add_argument("--alpha", type=positive_float, default=None,
                   help="initial learning rate (default 0.025 skip-gram, 0.05 CBOW)")
    p.add_argument("--min-alpha", type=_number(float, 0, None), default=None,
                   help="final learning rate (default: set by --schedule)")
    p.add_argument("--schedule", choices=["epochs", "word2vec"], default=None,
                   help="'epochs': the learning rate falls on a line from alpha to min-alpha, by default "
                        "alpha / (2 x epochs); 'word2vec': as word2vec.c, alpha x (1 - progress) floored at "
                        "min-alpha, by default alpha * 1e-4 (default: 'epochs' with --loss ns, else 'word2vec', "
                        "and with --loss hs --arch cbow floored at alpha / (3 x epochs))")
    p.add_argument("--threads", type=positive_int, default=None, help="default: the usable cores")
    p.add_argument("--seed", type=_number(int, 0, 2**64 - 1), default=1)
    p.add_argument("--format", choices=list(FORMATS), default="bin",
                   help="bin / txt: word2vec.c's formats; native: ours (mmap-able, keeps counts)")
    p.add_argument("--max-vocab-size", type=positive_int, default=None,
                   help="prune rare words while counting past this many distinct words")
    p.add_argument("--max-final-vocab", type=positive_int, default=None)
    p.add_argument("--ns-exponent", type=_number(float, None, None), default=0.75)
    p.add_argument("--max-sentence-length", type=positive_int, default=1000)
    p.add_argument("--init-range", type=positive_float, default=1.0,
                   help="input vectors start uniform in [-R/dim, R/dim): 1.0 as gensim (default), 0.5 as "
                        "word2vec.c")
    p.add_argument("--regions", type=positive_int, default=None,
                   help="an epoch takes the corpus in chunks from this many regions in turn (default: "
                        "max(threads, 16), and with --loss hs one more in each later epoch); a count given "
                        "holds for every epoch, and as many as --threads is word2vec.c's and gensim's order")
    negatives = p.add_mutually_exclusive_group()
    negatives.add_argument("--shared-negatives", dest="shared_negatives", action="store_true", default=None,
                           help="skip-gram NS: one negative set per window, trained as small matrices (the "
                                "default for skip-gram NS; measured quality in docs/performance.md)")
    negatives.add_argument("--exact-negatives", dest="shared_negatives", action="store_false", default=None,
                           help="skip-gram NS: word2vec.c's per-pair kernel, fresh negatives for every pair")
    p.add_argument("--save-vocab", metavar="PATH", help="also write the vocabulary as 'word count' lines")
    p.add_argument("--tmp-dir", default=None, metavar="DIR",
                   help="where the encoded corpus goes when it is kept on disk (default: the system's "
                        "temporary directory; the file is unlinked at creation)")
    p.add_argument("--ids-on-disk", dest="ids_on_disk", action="store_true", default=None,
                   help="keep the encoded corpus (4 bytes a token) in a temporary file; the default does so "
                        "when it would take more than 512 MiB or an eighth of the memory available")
    _add_checkpoints(p, "the whole training state (both matrices, vocabulary, settings, learning-rate schedule)")
    p.add_argument("--stats-json", metavar="PATH", help="write timings and per-epoch loss as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar or messages")
    _add_scheduler(p)
    p.add_argument("--sync-words", type=positive_int, default=250_000, metavar="N",
                   help="with --scheduler: words each worker trains between two model averages "
                        "(default 250,000; see docs/CLUSTER.md)")
    p.add_argument("--lr-scale", type=_number(float, 0, 1000, low_open=True), default=None, metavar="X",
                   help="with --scheduler: each worker's learning rate times X (default: the number of "
                        "workers, at most 4, so the averaged model moves as one machine's would)")
    p.set_defaults(run=run_word2vec)


def _add_checkpoints(p, what: str) -> None:
    p.add_argument("--checkpoint", metavar="PATH",
                   help=f"save {what} here atomically every --checkpoint-every minutes, on Ctrl-C and at the "
                        "end, to continue with --resume")
    p.add_argument("--checkpoint-every", type=positive_float, default=30.0, metavar="MINUTES",
                   help="minutes between two checkpoints (default 30; saved at the next epoch's end)")
    p.add_argument("--resume", metavar="PATH",
                   help="continue from a checkpoint (its vocabulary, settings and state) after checking that "
                        "the flags given and the corpus agree with it")


def _add_queries(sub) -> None:
    p = sub.add_parser("eval", help="evaluate vectors on analogies and word-pair similarity")
    p.add_argument("vectors", metavar="VECTORS")
    p.add_argument("--analogies", metavar="FILE", help="questions-words format (default: the shipped set)")
    p.add_argument("--pairs", metavar="FILE", nargs="+",
                   help="word-pair files (default: the shipped WordSim-353 and SimLex-999)")
    p.add_argument("--restrict-vocab", type=positive_int, default=30000)
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.set_defaults(run=run_eval)

    p = sub.add_parser("similar", help="nearest neighbours of a word")
    p.add_argument("vectors", metavar="VECTORS")
    p.add_argument("word", metavar="WORD")
    p.add_argument("-n", type=positive_int, default=10)
    p.set_defaults(run=run_similar)

    p = sub.add_parser("analogy", help="A is to B as C is to ? (3CosAdd)")
    p.add_argument("vectors", metavar="VECTORS")
    p.add_argument("a", metavar="A")
    p.add_argument("b", metavar="B")
    p.add_argument("c", metavar="C")
    p.add_argument("-n", type=positive_int, default=10)
    p.set_defaults(run=run_analogy)


def memory_size(text: str) -> int:
    """argparse type: a size such as 512M or 2G, in bytes."""
    from .cooccur import parse_size

    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _add_matrix_common(p, window: int) -> None:
    p.add_argument("input", metavar="INPUT", help="training text file")
    p.add_argument("-o", "--output", required=True, metavar="OUTPUT", help="where to write the vectors")
    p.add_argument("--dim", type=positive_int, default=100)
    p.add_argument("--window", type=positive_int, default=window)
    p.add_argument("--min-count", type=positive_int, default=5)
    p.add_argument("--threads", type=positive_int, default=None, help="default: the usable cores")
    p.add_argument("--memory-limit", type=memory_size, default=None, metavar="SIZE",
                   help="cap on the counting buffers, e.g. 512M or 2G (default: min(RAM/4, 1G)); "
                        "past it counts spill to temporary files, and GloVe's training records (with "
                        "the matrix, 28 bytes a non-zero) go to shuffled blocks on disk, trained as streamed")
    p.add_argument("--tmp-dir", default=None, metavar="DIR", help="where spilled counts, large encoded corpora "
                                                                   "and GloVe's record blocks go (default: the "
                                                                   "system's temporary directory)")
    p.add_argument("--max-vocab-size", type=positive_int, default=None)
    p.add_argument("--format", choices=list(MATRIX_FORMATS), default="txt",
                   help="txt: GloVe text (no header); bin: word2vec binary; native: ours")
    p.add_argument("--save-cooccurrence", metavar="PATH",
                   help="also write the co-occurrence matrix (.npz, or Stanford's records if PATH ends in .bin)")
    p.add_argument("--quiet", action="store_true", help="no progress bar or messages")
    _add_scheduler(p)


def _add_glove(sub) -> None:
    p = sub.add_parser("glove", help="train GloVe vectors on a text file",
                       description="Count co-occurrences (memory-bounded, multithreaded) and train GloVe "
                                   "with AdaGrad, as Stanford's glove.c.")
    _add_matrix_common(p, window=10)
    p.add_argument("--x-max", type=positive_float, default=100.0, help="weighting cutoff (Stanford's demo: 10)")
    p.add_argument("--alpha", type=positive_float, default=0.75, help="weighting exponent")
    p.add_argument("--epochs", type=positive_int, default=25)
    p.add_argument("--eta", type=positive_float, default=0.05, help="AdaGrad's initial learning rate")
    p.add_argument("--exact-sqrt", action="store_true", default=None,
                   help="divide each step by sqrt(accumulator) as glove.c does, instead of multiplying by a "
                        "refined reciprocal square root (within a few float ulps, faster)")
    p.add_argument("--grid", type=_number(int, 0, 256), default=0, metavar="B",
                   help="train on a B x B grid of (word band, context band) cells, threads never sharing a "
                        "band (FPSG; B of about 4 x threads); 0 (default): one shuffled order split into a "
                        "range per thread, as glove.c")
    p.add_argument("--seed", type=_number(int, 0, 2**63 - 1), default=1)
    p.add_argument("--output-vectors", choices=["sum", "word", "concat"], default="sum",
                   help="W + W~ (default), W only, or W and W~ side by side")
    p.add_argument("--header", action="store_true", help="write a 'V D' header line in txt format")
    _add_checkpoints(p, "parameters and AdaGrad state")
    p.add_argument("--stats-json", metavar="PATH", help="write timings and per-epoch cost as JSON")
    p.set_defaults(run=run_glove)


def _add_svd(sub) -> None:
    p = sub.add_parser("svd", help="PPMI + truncated SVD vectors from co-occurrence counts",
                       description="Positive PMI (context smoothing 0.75, optional shift log k) of the "
                                   "co-occurrence matrix, factorised by truncated SVD.")
    _add_matrix_common(p, window=10)
    p.add_argument("--cds", type=positive_float, default=0.75, help="context distribution smoothing")
    p.add_argument("--shift", type=_number(float, 1, None), default=1.0, help="k of the shift log k")
    p.add_argument("--eig", type=_number(float, 0, None), default=0.5, help="eigenvalue weighting p")
    p.set_defaults(run=run_svd)


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
                    grid=args.grid)
    settings = {k: v for k, v in settings.items() if v is not None}
    _check_outputs(args, "output", "checkpoint", "stats_json", "save_cooccurrence")
    with _cluster(args) as client:
        if args.resume:
            model = GloVe.load_checkpoint(args.resume)
            overrides = _resume_overrides(args, model.config(), GLOVE_FIXED, {"output_vectors": "output", "output": None})
            model = GloVe.load_checkpoint(args.resume, **overrides)
            _say(args, f"resuming from {args.resume} after {model.epochs_trained} epoch(s); the settings given "
                       "agree with it; the co-occurrences are counted again (a checkpoint holds no records)")
        else:
            model = GloVe(**settings)
            _say(args, f"counting words in {args.input}")
            model.build_vocab(args.input, client=client)
        vocab = model.vocab
        _say(args, f"vocabulary: {len(vocab):,} words (min_count {model.min_count}); counting co-occurrences "
                   f"(window {model.window}, {model.threads} threads{' per worker' if client else ''})")
        # the matrix itself is wanted, or comes from the cluster; else straight to training records
        whole_matrix = bool(args.save_cooccurrence) or client is not None
        if whole_matrix:
            matrix = model.count(args.input, progress=progress, client=client)
            count_seconds = time.perf_counter() - started
            nonzeros = matrix.nnz
        else:  # on disk when they would not fit in --memory-limit
            nonzeros = model.count_records(args.input, progress=progress)
            count_seconds = time.perf_counter() - started - model.records_seconds
    where = (f"; out of core: {model.record_blocks} shuffled blocks of training records in "
             f"{model.tmp_dir or 'the temporary directory'}" if model.record_blocks else "")
    _say(args, f"{nonzeros:,} non-zeros in {count_seconds:.1f} s{where}")
    if whole_matrix:
        if args.save_cooccurrence:
            _save_cooccurrence(args, matrix)
        del matrix
        t0 = time.perf_counter()
        model.prepare_records(drop_cooccurrence=True)  # the records replace the matrix: lower peak memory
        records_seconds = time.perf_counter() - t0
    else:
        records_seconds = model.records_seconds
    stage_seconds = {"count": count_seconds, "records": records_seconds}
    interrupted = False
    try:
        stats = model.train(progress=progress, checkpoint=args.checkpoint, checkpoint_every=args.checkpoint_every)
    except KeyboardInterrupt:
        interrupted = True
        stats = model.last_stats
        _say(args, f"interrupted after {len(stats.epochs)} full epoch(s): saving what is trained")
    stage_seconds["train"] = stats.train_seconds
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
        ok &= _secondary(args, f"stats file {args.stats_json}", lambda: _atomic_json(args.stats_json, {
            "vocab_size": len(vocab), "nonzeros": nonzeros, "count_seconds": count_seconds,
            "train_seconds": stats.train_seconds, "total_seconds": total, "epoch_cost": stats.epoch_cost,
            "epochs": len(stats.epochs), "threads": model.threads, "interrupted": interrupted,
            "config": model.config(), "peak_rss_bytes": _peak_rss(), "output": output,
            # count: vocabulary and co-occurrences; records: the shuffled training records (out of core:
            # the last merge writing the blocks); train; save: the vectors and the checkpoint
            "stage_seconds": stage_seconds, "out_of_core": stats.out_of_core, "blocks": stats.blocks,
            "grid_bands": stats.grid_bands,
            # memory_needed for this run (records aside: checked as they are made); compare peak_rss_bytes
            "memory_estimate_bytes": model.memory_needed(len(vocab), None, MATRIX_FORMATS[args.format])["total"],
        }))
    return EXIT_INTERRUPTED if interrupted else 0 if ok else EXIT_ERROR


def run_svd(args) -> int:
    """`wv-engine svd`: vocabulary, co-occurrences, PPMI + truncated SVD, vectors."""
    from . import cooccur
    from .svd import svd_vectors
    from .vectors import Vectors
    from .vocab import Vocabulary
    from .settings import resolve_threads

    started = time.perf_counter()
    progress = False if args.quiet else None
    threads = resolve_threads(args.threads)
    _check_outputs(args, "output", "save_cooccurrence")
    with _cluster(args) as client:
        vocab = Vocabulary.build(args.input, args.min_count, args.max_vocab_size, client=client, threads=threads)
        _say(args, f"vocabulary: {len(vocab):,} words; counting co-occurrences (window {args.window})")
        if client is not None and not args.save_cooccurrence:
            from .cluster.svd import svd_vectors_on_cluster

            _say(args, f"PPMI + randomized SVD to {args.dim} dimensions, the matrix in row blocks on the workers")
            matrix_vectors = svd_vectors_on_cluster(
                client, args.input, vocab, args.window, threads, args.memory_limit or cooccur.default_memory_limit(),
                args.tmp_dir, args.dim, args.cds, args.shift, args.eig, progress=progress)
        else:
            matrix = cooccur.count(args.input, vocab, args.window, True, threads, args.memory_limit, args.tmp_dir,
                                   progress=progress, client=client)
            if args.save_cooccurrence:
                _save_cooccurrence(args, matrix)
            _say(args, f"{matrix.nnz:,} non-zeros; PPMI + SVD to {args.dim} dimensions")
            matrix_vectors = svd_vectors(matrix, args.dim, args.cds, args.shift, args.eig)
    vectors = Vectors(vocab.words, matrix_vectors, vocab.counts,
                      metadata={"trainer": "ppmi-svd", "window": args.window, "cds": args.cds,
                                "shift": args.shift, "eig": args.eig})
    _save_matrix_vectors(args, vectors)
    _say(args, f"wrote {len(vocab):,} vectors to {args.output} ({time.perf_counter() - started:.1f} s in all)")
    return 0


def _add_demo(sub) -> None:
    p = sub.add_parser("demo", help="train on the shipped demo corpus and show what the vectors know",
                       description="Trains skip-gram on Emma + Moby-Dick (shipped, public domain), prints "
                                   "neighbours and analogies, writes demo_vectors.bin and a PNG picture.")
    p.add_argument("--out", default=".", metavar="DIR", help="where to write the files (default: here)")
    p.add_argument("--threads", type=positive_int, default=None)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=run_demo)


def run_demo(args) -> int:
    """`wv-engine demo`: train on the shipped corpus and show the result."""
    from . import demo

    demo.run(args.out, threads=args.threads, progress=False if args.quiet else None)
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    from . import __version__

    parser = argparse.ArgumentParser(prog="wv-engine", description="Fast word2vec and GloVe training.")
    parser.add_argument("--version", action="version", version=f"wv-engine {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _add_word2vec(sub)
    _add_glove(sub)
    _add_svd(sub)
    _add_queries(sub)
    _add_demo(sub)
    return parser


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


def _peak_rss() -> int:
    from .memory import peak_rss_bytes

    return peak_rss_bytes()


def _atomic_json(path: str, data: dict) -> None:
    from .files import atomic_write

    with atomic_write(path, "w") as f:
        json.dump(data, f, indent=2)
        f.write("\n")


# Settings a checkpoint fixes: a flag given on --resume must agree with it.
WORD2VEC_FIXED = ("arch", "loss", "dim", "window", "negative", "min_count", "sample", "epochs", "alpha",
                  "min_alpha", "schedule", "seed", "max_vocab_size", "max_final_vocab", "ns_exponent",
                  "max_sentence_length", "shared_negatives", "init_range")
GLOVE_FIXED = ("dim", "window", "x_max", "alpha", "eta", "min_count", "seed", "max_vocab_size")


def _given(args, name: str):
    """The value of a flag the user typed, or None where it was left out
    (a value typed equal to the default is given all the same)."""
    return getattr(args, name) if name in getattr(args, "given", ()) else None


def _typed_flags(argv: Sequence[str] | None) -> set[str]:
    """The destinations of the flags on the command line: argv parsed again
    by a parser whose every default is SUPPRESS, so that only what was typed
    appears in the namespace."""
    parser = build_parser()
    for action in _all_actions(parser):
        if action.dest not in ("help", "version", "command"):
            action.default = argparse.SUPPRESS
    return set(vars(parser.parse_args(argv))) - {"command", "run"}


def _all_actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """A parser's actions and its subcommands' actions."""
    actions = list(parser._actions)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                actions += _all_actions(sub)
    return actions


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


def run_word2vec(args) -> int:
    """`wv-engine word2vec`: vocabulary, encoding, training, vectors, stats."""
    from .io import save_vectors
    from .word2vec import Word2Vec

    started = time.perf_counter()
    progress = None if not args.quiet else False
    interrupted = False
    _check_outputs(args, "output", "checkpoint", "stats_json", "save_vocab")
    with _cluster(args) as client:
        if args.resume:
            if client is not None:
                raise ValueError("--resume trains on this machine; drop --scheduler")
            saved = Word2Vec.saved_config(args.resume)  # the header only: the weights are loaded once
            model = Word2Vec.load(args.resume, **_resume_overrides(args, saved, WORD2VEC_FIXED))
            left = model.unfinished_epochs
            _say(args, f"resuming from {args.resume}: {model.epochs_trained} epoch(s) trained, "
                       + (f"{left} of the run's {model.schedule_state['epochs']} left" if left else "its run complete")
                       + "; the settings given agree with it")
        else:
            model = Word2Vec(arch=args.arch, loss=args.loss, dim=args.dim, window=args.window,
                             negative=args.negative, min_count=args.min_count, sample=args.sample,
                             epochs=args.epochs, alpha=args.alpha, min_alpha=args.min_alpha,
                             schedule=args.schedule, threads=args.threads, seed=args.seed,
                             max_vocab_size=args.max_vocab_size,
                             max_final_vocab=args.max_final_vocab, ns_exponent=args.ns_exponent,
                             max_sentence_length=args.max_sentence_length,
                             shared_negatives=args.shared_negatives, tmp_dir=args.tmp_dir,
                             ids_on_disk=args.ids_on_disk, init_range=args.init_range,
                             regions=args.regions)
            _say(args, f"counting words in {args.input}")
            model.build_vocab(args.input, client=client, progress=progress)
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
        corpus = args.input if client or finished else model.encode(args.input, progress=progress)
        encode_seconds = time.perf_counter() - t0
        if finished:  # nothing left to train: the corpus is not even read
            from .epochs import TrainingStats

            state = model.schedule_state
            stats = TrainingStats(corpus_words=state["corpus_words"] if state else 0)
        else:
            try:
                stats = model.train(corpus, progress=progress, client=client, sync_words=args.sync_words,
                                    lr_scale=args.lr_scale, checkpoint=args.checkpoint,
                                    checkpoint_every=args.checkpoint_every)
            except KeyboardInterrupt:
                interrupted = True
                stats = model.last_stats
                _say(args, f"interrupted after {stats.epochs} full epoch(s): saving the vectors trained so far"
                           + (f" (checkpoint: {args.checkpoint})" if args.checkpoint else ""))
    t0 = time.perf_counter()
    output = _final_output(args, interrupted, stats.epochs)
    save_vectors(model.vectors, output, FORMATS[args.format])
    ok = True
    if args.checkpoint and not interrupted:
        ok = _secondary(args, f"checkpoint {args.checkpoint}", lambda: model.save(args.checkpoint))
    save_seconds = time.perf_counter() - t0
    total = time.perf_counter() - started
    _say(args, f"wrote {len(vocab):,} vectors of dim {model.dim} to {output} "
               f"({stats.words_per_sec:,.0f} words/s, {total:.1f} s in all)")
    if args.stats_json:
        ok &= _secondary(args, f"stats file {args.stats_json}", lambda: _atomic_json(args.stats_json, {
            "vocab_size": len(vocab),
            "corpus_words": stats.corpus_words,  # in-vocabulary tokens: what each epoch trains on
            "corpus_tokens": vocab.total_tokens,  # every token in the file, out-of-vocabulary ones too
            "epochs": stats.epochs,
            "threads": model.threads,
            "count_seconds": count_seconds,
            "encode_seconds": encode_seconds,
            "train_seconds": stats.train_seconds,
            "save_seconds": save_seconds,
            "total_seconds": total,
            "peak_rss_bytes": _peak_rss(),
            # memory_needed for this run (its threads, its output format); compare peak_rss_bytes
            "memory_estimate_bytes": model.memory_needed(vocab, None, FORMATS[args.format])["total"],
            "words_per_sec": stats.words_per_sec,
            "epoch_loss": stats.epoch_loss,
            "interrupted": interrupted,
            "resumed_from": args.resume,
            "config": model.config(),
            "scheduler": args.scheduler,
            "sync_words": args.sync_words if args.scheduler else None,
            "output": output,
        }))
    return EXIT_INTERRUPTED if interrupted else 0 if ok else EXIT_ERROR


def run_eval(args) -> int:
    """`wv-engine eval`: analogies and word-pair correlations of a vectors file."""
    from . import evaluate
    from .io import load_vectors

    vectors = load_vectors(args.vectors)
    results = {"analogy": evaluate.evaluate_analogies(vectors, args.analogies,
                                                      restrict_vocab=args.restrict_vocab)}
    pair_files = args.pairs or [None, None]
    names = ["wordsim353", "simlex999"] if not args.pairs else [os.path.basename(p) for p in args.pairs]
    for name, path in zip(names, pair_files):
        if path is None:
            from . import datasets

            path = datasets.path(name)
        results[name] = evaluate.evaluate_word_pairs(vectors, path)
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


def _print_neighbours(pairs) -> None:
    for word, score in pairs:
        print(f"{score:.4f}  {word}")


def run_similar(args) -> int:
    """`wv-engine similar`: nearest neighbours of a word."""
    from .io import load_vectors

    _print_neighbours(load_vectors(args.vectors).most_similar(args.word, topn=args.n))
    return 0


def run_analogy(args) -> int:
    """`wv-engine analogy`: A is to B as C is to ?"""
    from .io import load_vectors

    _print_neighbours(load_vectors(args.vectors).analogy(args.a, args.b, args.c, topn=args.n))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the wv-engine console script; returns the exit status."""
    args = build_parser().parse_args(argv)
    args.given = _typed_flags(argv)
    previous = _terminate_like_ctrl_c()
    try:
        return args.run(args)
    except KeyboardInterrupt:
        print("wv-engine: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except MemoryError as exc:
        print(f"wv-engine: error: {_memory_message(args, exc)}", file=sys.stderr)
        return EXIT_ERROR
    except (ValueError, KeyError, OSError, MemoryError, RuntimeError, FloatingPointError, ImportError) as exc:
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
    advice = {"word2vec": "raise --min-count, set --max-vocab-size or --max-final-vocab, or lower --dim",
              "glove": "raise --min-count, lower --memory-limit or --window, or set --max-vocab-size",
              "svd": "raise --min-count, lower --memory-limit or --window, or set --max-vocab-size"}
    return (f"out of memory during `wv-engine {args.command}`; "
            + advice.get(args.command, "free memory or use a smaller input"))


if __name__ == "__main__":
    sys.exit(main())
