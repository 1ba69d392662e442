"""Checks and defaults shared by the trainers' settings."""

from __future__ import annotations

import os


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
