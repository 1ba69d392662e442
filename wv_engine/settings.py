"""Checks and defaults shared by the trainers' settings, and the one policy
for how many threads a job runs on."""

from __future__ import annotations

import math
import os
from typing import NamedTuple

import numpy as np

MIN_WORK_PER_THREAD = 1000  # ids or records: below this a thread costs more to start than it saves
C_INT_MAX = 2**31 - 1  # the C cores take dim, window, epochs, threads... as C ints
INT64_MAX = 2**63 - 1


def check(name: str, value, ok: bool, rule: str) -> None:
    """Raises ValueError naming the setting, the rule and the value given."""
    if not ok:
        raise ValueError(f"{name} must be {rule}, got {value!r}")


class Range(NamedTuple):
    """The values a numeric setting admits: an integer or a finite number
    between two ends, each closed unless said open."""
    low: float
    high: float
    integer: bool = True
    low_open: bool = False
    high_open: bool = False

    def __str__(self) -> str:
        def end(x: float) -> str:
            return f"{int(x):,}" if self.integer or (float(x).is_integer() and abs(x) < 1e7) else f"{x:g}"
        return (f"{'an integer' if self.integer else 'a number'} in {'(' if self.low_open else '['}"
                f"{end(self.low)}, {end(self.high)}{')' if self.high_open else ']'}")

    def admits(self, value) -> bool:
        """Whether `value` is of the kind and within the ends (never for
        bool, nan or inf)."""
        if isinstance(value, (bool, np.bool_)):
            return False
        if self.integer:
            if not isinstance(value, (int, np.integer)):
                return False
        elif not isinstance(value, (int, np.integer)) and not (
                isinstance(value, (float, np.floating)) and math.isfinite(value)):
            return False
        above = value > self.low if self.low_open else value >= self.low
        below = value < self.high if self.high_open else value <= self.high
        return bool(above and below)


def bounded(name: str, value, admitted: Range | None = None, none: bool = False):
    """`value` as int or float once `admitted` (by default RANGES[name])
    admits it; None passes where `none`. Otherwise ValueError naming the
    setting and its range: every number is bounded here before it reaches
    the C core, whose ints are 32 bits and whose counts 64."""
    admitted = admitted or RANGES[name]
    if value is None and none:
        return None
    check(name, value, admitted.admits(value), f"{admitted}{' or None' if none else ''}")
    return int(value) if admitted.integer else float(value)


# The range of every numeric setting of the trainers and the command line
# (whose flags take their types from here): wide enough for any real run,
# narrow enough that no product of them overflows in C and that no run is
# asked to last for ever. What fits in memory is checked apart, from these.
COUNT = Range(1, C_INT_MAX)  # counts of words: ids are 32-bit
RANGES = {
    "dim": Range(1, 10_000_000),
    "window": Range(1, 1_000_000),
    "epochs": Range(1, 1_000_000),
    "threads": Range(1, 4096),
    "min_count": COUNT,
    "max_vocab_size": COUNT,
    "max_final_vocab": COUNT,
    "restrict_vocab": COUNT,
    "topn": COUNT,
    "negative": Range(0, 10_000),
    "sample": Range(0, 1, integer=False, high_open=True),
    "alpha": Range(0, 10, integer=False, low_open=True, high_open=True),  # word2vec's learning rate
    "ns_exponent": Range(-10, 10, integer=False),
    "max_sentence_length": Range(1, 10_000_000),
    "init_range": Range(0, 1000, integer=False, low_open=True),
    "regions": Range(1, 1_000_000),
    "hot_rows": Range(0, 1_000_000),
    "seed": Range(0, 2**64 - 1),
    "every": Range(1, 1_000_000),  # epochs between two scorings (--eval-every)
    "checkpoint_every": Range(0, 1_000_000, integer=False, low_open=True),  # minutes
    "sync_words": Range(1, 2**40),
    "lr_scale": Range(0, 1000, integer=False, low_open=True),
    # fastText's n-grams
    "minn": Range(0, 1024),
    "maxn": Range(0, 1024),
    "bucket": Range(0, C_INT_MAX),
    # GloVe's
    "x_max": Range(0, 1e18, integer=False, low_open=True),
    "glove_alpha": Range(0, 100, integer=False, low_open=True),  # the weighting's exponent
    "eta": Range(0, 1000, integer=False, low_open=True),
    "glove_seed": Range(0, INT64_MAX),
    # PPMI + SVD's
    "cds": Range(0, 10, integer=False, low_open=True),
    "shift": Range(1, 1e12, integer=False),
    "eig": Range(0, 10, integer=False),
    # phrases'
    "passes": Range(1, 1000),
    "threshold": Range(-1e30, 1e30, integer=False),
    "phrase_max_vocab_size": Range(1, INT64_MAX),  # words and pairs, 64-bit counts
    "per_word": Range(1, 1_000_000),
    # Doc2Vec's
    "dm_tag_count": Range(1, 1000),
    # an approximate index's (wv_engine.approximate)
    "hnsw_m": Range(2, 200),
    "ef_construction": Range(1, 100_000),
    "ef": Range(1, 100_000),
}


def default_threads() -> int:
    """Cores this process may use (honours CPU affinity)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def resolve_threads(threads: int | None) -> int:
    """The thread count a trainer or a count uses: the one asked for (an
    integer >= 1), or every core this process may use. On a cluster it is
    the count per worker."""
    if threads is None:
        return default_threads()
    return bounded("threads", threads)


def threads_for(threads: int, work: int) -> int:
    """Threads for one run over `work` items (ids, records): never more than
    one per MIN_WORK_PER_THREAD items, at least one."""
    return max(1, min(threads, work // MIN_WORK_PER_THREAD))
