"""A deterministic generator of large corpora with a natural vocabulary: token
frequencies follow the Zipf-Mandelbrot law p(r) ~ 1 / (r + 2.7) over `types`
ranks r = 1..T, the token of rank r is `w<r>`, and the text is `tokens`
tokens in lines of 1,000 (the last line may be shorter). The same
(tokens, types, seed) always gives the same bytes.

    python -m benchmarks.zipf OUT.txt --tokens 50000000 --types 5000000 [--seed 1]

Z50 (the word2vec scale mode's default) is 50M tokens over 5M types; Z1B is
1,000,000,000 tokens over 3M types (about 8.5 GB)."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time

import numpy as np

LINE_TOKENS = 1000
SHIFT = 2.7  # Mandelbrot's q
BLOCK_TOKENS = 20 * LINE_TOKENS * 1000  # 20M tokens per block: ~200 MB of scratch


def probabilities(types: int) -> np.ndarray:
    """p(r) for r = 1..types, normalised (float64)."""
    w = 1.0 / (np.arange(1, types + 1, dtype=np.float64) + SHIFT)
    return w / w.sum()


def _token_table(types: int, end: bytes) -> np.ndarray:
    """`w<r><end>` for every rank, as fixed-width byte strings (NUL padded)."""
    width = len(f"w{types}") + 1
    ranks = np.arange(1, types + 1)
    digits = np.char.mod("%d", ranks).astype(f"S{width - 2}")
    table = np.char.add(np.char.add(b"w", digits), end)
    return table.astype(f"S{width}")


@contextlib.contextmanager
def atomic_file(path: str, mode: str = "wb"):
    """A temporary file beside path (PATH.PID.part), renamed to path when the
    block ends, deleted when it raises."""
    tmp = f"{path}.{os.getpid()}.part"
    try:
        with open(tmp, mode) as f:
            yield f
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def show_progress(done: int, tokens: int, started: float) -> None:
    rate = done / max(time.perf_counter() - started, 1e-9)
    print(f"\r{done:,} / {tokens:,} tokens, {rate / 1e6:.1f}M tokens/s", end="", file=sys.stderr)


def generate(path: str, tokens: int, types: int, seed: int = 1, progress: bool = True) -> dict:
    """Writes the corpus (atomically: a temporary name, then a rename) and
    returns what was written."""
    if tokens < 1 or types < 1:
        raise ValueError("tokens and types must be >= 1")
    cdf = np.cumsum(probabilities(types))
    cdf[-1] = 1.0
    spaced, ended = _token_table(types, b" "), _token_table(types, b"\n")
    rng = np.random.default_rng(seed)
    written, started = 0, time.perf_counter()
    with atomic_file(path) as out:
        done = 0
        while done < tokens:
            n = min(BLOCK_TOKENS, tokens - done)
            ranks = np.searchsorted(cdf, rng.random(n), side="right")
            np.minimum(ranks, types - 1, out=ranks)
            words = spaced[ranks]
            line_end = (np.arange(done, done + n) % LINE_TOKENS) == LINE_TOKENS - 1
            if done + n == tokens:
                line_end[-1] = True
            words[line_end] = ended[ranks[line_end]]
            data = words.tobytes().replace(b"\x00", b"")
            out.write(data)
            written += len(data)
            done += n
            if progress:
                show_progress(done, tokens, started)
    if progress:
        print(file=sys.stderr)
    return {"path": path, "tokens": tokens, "types": types, "seed": seed, "bytes": written,
            "seconds": time.perf_counter() - started}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.zipf", description=__doc__.split("\n\n")[0])
    p.add_argument("out", metavar="OUT.txt")
    p.add_argument("--tokens", type=int, default=50_000_000)
    p.add_argument("--types", type=int, default=5_000_000)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args(argv)
    info = generate(a.out, a.tokens, a.types, a.seed)
    print(f"wrote {info['bytes']:,} bytes ({info['tokens']:,} tokens over {info['types']:,} types) "
          f"in {info['seconds']:.1f} s to {info['path']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
