"""The wv-engine command line: main() parses the flags (args.py), runs the
command's module and turns every expected error into one line on stderr
and a non-zero exit, never a traceback. The commands: word2vec.py
(word2vec, fasttext), glove.py (glove, svd), phrases.py, queries.py (eval,
similar, analogy), watch.py (report, map), convert and demo below; the
only package that prints."""

from __future__ import annotations

import os
import signal
import sys
from typing import Sequence

from ..files import read_as
from . import reference, watch
from .args import FORMATS, build_parser, typed_flags
from .common import (
    EXIT_BROKEN_PIPE,
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    check_outputs,
    say,
)
from .doc2vec import run_doc2vec, run_infer
from .glove import run_glove, run_svd
from .phrases import run_phrases
from .queries import run_analogy, run_eval, run_index, run_similar
from .word2vec import run_fasttext, run_word2vec


def run_convert(args) -> int:
    """`wv-engine convert`: gensim's saved model or vectors into ours."""
    from ..gensim import pickled
    from ..gensim.convert import convert

    check_outputs(args, "output")
    record = read_as("INPUT", args.input, pickled.read)
    say(args, f"wrote {convert(args.input, args.output, FORMATS[args.format] if args.format else None, record)}")
    return 0


def run_demo(args) -> int:
    """`wv-engine demo`: train on the shipped corpus and show the result."""
    from .. import demo

    demo.run(args.out, threads=args.threads, progress=False if args.quiet else None)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the wv-engine console script; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    tool = reference.runner(argv)
    if tool is not None:  # a reference tool's own command line (reference/)
        return _guarded(f"wv-engine {argv[0]}", None, lambda: tool(argv[1:]))
    parser = build_parser()
    _refuse_single_dash_words(parser, argv)
    args = parser.parse_args(argv)
    args.given = typed_flags(argv)
    return _guarded("wv-engine", args, lambda: COMMANDS[args.command](args))


def _guarded(program: str, args, run) -> int:
    """Runs a command, every expected error one line on stderr and an exit
    status, never a traceback."""
    previous = _terminate_like_ctrl_c()
    try:
        return run()
    except KeyboardInterrupt:
        print("wv-engine: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `... | head`: the reader left, as C tools end there, quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except reference.UsageError as exc:
        print(f"{program}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
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


def _refuse_single_dash_words(parser, argv: list[str]) -> None:
    """argparse would read `-output x` as `-o utput`: a single-dash word on
    one of our command lines (whose flags are --name) is refused by name."""
    for token in argv[1:argv.index("--") if "--" in argv else len(argv)]:
        if reference.looks_like_flag(token):
            command = f"wv-engine {argv[0]}" if argv[0] in COMMANDS else "wv-engine"
            parser.exit(EXIT_USAGE, f"{command}: error: unknown flag {token} (wv-engine's own flags are spelled "
                                    f"--name; see {command} --help)\n")


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


COMMANDS = {"word2vec": run_word2vec, "fasttext": run_fasttext, "doc2vec": run_doc2vec, "infer": run_infer,
            "glove": run_glove, "svd": run_svd, "eval": run_eval,
            "phrases": run_phrases, "report": watch.run_report, "map": watch.run_map,
            "similar": run_similar, "index": run_index, "analogy": run_analogy, "convert": run_convert, "demo": run_demo}
