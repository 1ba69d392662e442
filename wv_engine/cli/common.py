"""What the commands share: their messages and exit codes, the outputs
checked before the work, where vectors go when a run is interrupted, the
dask client of --scheduler, and the flags --resume must agree with."""

from __future__ import annotations

import contextlib
import sys
from typing import Sequence

EXIT_ERROR = 1
EXIT_USAGE = 2  # a command line that cannot be read, as argparse exits
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE: what a C tool's shell status is when its reader goes
EXIT_INTERRUPTED = 130


@contextlib.contextmanager
def dask_client(args):
    """The dask client for --scheduler (closed on exit), or None."""
    if not args.scheduler:
        yield None
        return
    from ..scaleout import close, connect

    client = connect(args.scheduler, args.threads or 1)
    say(args, f"dask cluster {args.scheduler}: {len(client.scheduler_info()['workers'])} worker(s)")
    try:
        yield client
    finally:
        close(client)


def say(args, message: str) -> None:
    """A message on stderr, unless --quiet."""
    if not getattr(args, "quiet", False):
        print(message, file=sys.stderr)


def check_outputs(args, *names: str) -> None:
    """Every file the command will write, checked before any work starts."""
    from ..files import check_writable

    what = {"output": "output", "checkpoint": "checkpoint", "stats_json": "stats file",
            "save_vocab": "vocabulary file", "save_cooccurrence": "co-occurrence file", "vectors": "vectors file",
            "word_vectors": "word vectors file"}
    for name in names:
        path = getattr(args, name, None)
        if path:
            check_writable(path, what[name])


def final_output(args, interrupted: bool, epochs_done: int) -> str:
    """Where the vectors go: -o, unless the run was interrupted before one
    epoch of its own finished; then beside it, so that a good file at -o is
    never replaced by a barely trained one."""
    if interrupted and epochs_done == 0:
        from ..files import sibling_path

        partial = sibling_path(args.output, ".partial")
        say(args, f"interrupted before the first epoch ended: {args.output} is left as it was; "
                   f"the partial vectors go to {partial}")
        return partial
    return args.output


def secondary(args, what: str, write) -> bool:
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


def given(args, name: str):
    """The value of a flag the user typed, or None where it was left out
    (a value typed equal to the default is given all the same)."""
    return getattr(args, name) if name in getattr(args, "given", ()) else None


def resume_overrides(args, config: dict, fixed: Sequence[str], flag_names: dict[str, str | None] | None = None) -> dict:
    """The settings the user's flags change on --resume: a flag that fixes
    the model (`fixed`) must agree with the checkpoint; the others (threads,
    memory, files) replace the checkpoint's values."""
    flag_names = flag_names or {}
    overrides = {}
    for dest, value in vars(args).items():
        key = flag_names.get(dest, dest)
        if key is None or key not in config or given(args, dest) is None:
            continue
        if key in fixed and value != config[key]:
            flag = "--" + dest.replace("_", "-")
            raise ValueError(f"--resume {args.resume}: the checkpoint was trained with {key}={config[key]!r}, "
                             f"but {flag} asks for {value!r}; drop the flag to continue, or start afresh")
        overrides[key] = value
    return overrides
