"""Repeated real text: a large corpus made of a real one (e.g. wiki_17m), its
tokens written over and over until there are `tokens` of them. Each copy is
the source re-lined as the suite's split copy is (benchmarks/corpus.py): lines
of at most 1,000 tokens joined by single spaces, the source's own line breaks
kept (wiki_17m has none: one 17M-token line becomes 17,006 lines, the last
of each copy 207 tokens long); the last copy is cut after `tokens` tokens.
The same (source, tokens) always gives the same bytes.

    python -m benchmarks.repeat_text --source wiki_17m.txt.gz --tokens 200000000 OUT.txt

The source (plain, .gz, .bz2 or .xz) is read at most twice, streamed: the
first copy is written from it, every further whole copy is copied from the
output's own first bytes (copy_file_range), and a last partial copy is read
from the source again. Memory stays bounded (8 MiB chunks). Unlike the Zipf
corpora (benchmarks/zipf.py), the types and distinct co-occurrence pairs are
the re-lined source's, whatever the size: counting grows with the tokens,
GloVe's training (a pass over the distinct pairs per epoch) only as far as
the copies lift rare words past min_count (from 5 copies at min_count 5,
every type is kept)."""

from __future__ import annotations

import argparse
import os
import sys
import time

from .corpus import SPLIT_WORDS, relined
from .zipf import atomic_file, show_progress

COPY_BYTES = 1 << 24


def _write_prefix(out, source: str, limit: int) -> tuple[int, int, bool]:
    """Writes the re-lined source's first `limit` tokens (all of it when it
    has no more); returns (tokens, bytes) written and whether that was the
    whole source."""
    tokens = size = 0
    for line in relined(source, SPLIT_WORDS):
        if tokens == limit:
            return tokens, size, False
        n = line.count(b" ") + 1
        whole = tokens + n <= limit
        if not whole:
            line, n = b" ".join(line.split()[: limit - tokens]), limit - tokens
        out.write(line + b"\n")
        tokens += n
        size += len(line) + 1
        if not whole:
            return tokens, size, False
    return tokens, size, True


def _append_head(fd: int, nbytes: int) -> None:
    """Appends the file's first nbytes to its end (in the kernel when it can)."""
    end = os.lseek(fd, 0, os.SEEK_END)
    done = 0
    while done < nbytes:
        want = min(COPY_BYTES, nbytes - done)
        try:
            n = os.copy_file_range(fd, fd, want, done, end + done)
        except (AttributeError, OSError):   # no such call, or not between these offsets
            n = os.pwrite(fd, os.pread(fd, want, done), end + done)
        if n <= 0:
            raise OSError(f"could not copy bytes {done}..{done + want} of the output to its end")
        done += n


def repeat_text(source: str, path: str, tokens: int, progress: bool = True) -> dict:
    """Writes the corpus (atomically: a temporary name, then a rename) and
    returns what was written."""
    if tokens < 1:
        raise ValueError("tokens must be >= 1")
    started = time.perf_counter()
    with atomic_file(path, "w+b") as out:
        copy_tokens, copy_bytes, whole = _write_prefix(out, source, tokens)
        if copy_tokens == 0:
            raise ValueError(f"{source}: no tokens")
        out.flush()
        done, size, copies = copy_tokens, copy_bytes, int(whole)
        while whole and tokens - done >= copy_tokens:
            _append_head(out.fileno(), copy_bytes)
            done, size, copies = done + copy_tokens, size + copy_bytes, copies + 1
            if progress:
                show_progress(done, tokens, started)
        if done < tokens:
            out.seek(0, os.SEEK_END)   # past what the kernel appended
            t, b, _ = _write_prefix(out, source, tokens - done)
            done, size = done + t, size + b
    if progress:
        print(file=sys.stderr)
    return {"path": path, "source": source, "tokens": done, "source_tokens": copy_tokens if whole else None,
            "whole_copies": copies, "bytes": size,
            "seconds": time.perf_counter() - started}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.repeat_text", description=__doc__.split("\n\n")[0])
    p.add_argument("out", metavar="OUT.txt")
    p.add_argument("--source", required=True, help="the real text (plain, .gz, .bz2 or .xz)")
    p.add_argument("--tokens", type=int, required=True, help="tokens to write, e.g. 200000000")
    a = p.parse_args(argv)
    if a.tokens < 1:
        p.error("--tokens must be >= 1")
    info = repeat_text(a.source, a.out, a.tokens)
    copies = (f"{info['whole_copies']} whole copies of the source's {info['source_tokens']:,}, then the rest"
              if info["source_tokens"] else "the source's first")
    print(f"wrote {info['bytes']:,} bytes ({info['tokens']:,} tokens: {copies}) in {info['seconds']:.1f} s "
          f"to {info['path']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
