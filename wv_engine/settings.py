"""Checks and defaults shared by the trainers' settings, and the one policy
for how many threads a job runs on."""

from __future__ import annotations

import os

import numpy as np

MIN_WORK_PER_THREAD = 1000  # ids or records: below this a thread costs more to start than it saves
C_INT_MAX = 2**31 - 1  # the C cores take dim, window, epochs, threads... as C ints
INT64_MAX = 2**63 - 1


def check(name: str, value, ok: bool, rule: str) -> None:
    """Raises ValueError naming the setting, the rule and the value given."""
    if not ok:
        raise ValueError(f"{name} must be {rule}, got {value!r}")


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
    check("threads", threads, isinstance(threads, (int, np.integer)) and threads >= 1, "an integer >= 1")
    return int(threads)


def threads_for(threads: int, work: int) -> int:
    """Threads for one run over `work` items (ids, records): never more than
    one per MIN_WORK_PER_THREAD items, at least one."""
    return max(1, min(threads, work // MIN_WORK_PER_THREAD))
