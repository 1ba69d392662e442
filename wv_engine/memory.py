"""Memory the machine has, and a check made before large allocations, so
that an impossible request fails at once with the numbers instead of being
killed by the kernel halfway through."""

from __future__ import annotations

import os


def total_memory() -> int:
    """Physical memory in bytes (0 if unknown)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 0


def available_memory() -> int:
    """Memory available to new allocations (MemAvailable), else the total."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return total_memory()


def gib(n: int) -> str:
    """Bytes as GiB for messages."""
    return f"{n / 2**30:.2f} GiB"


def check_fits(what: str, needed: int, advice: str) -> None:
    """Raises MemoryError naming what needs how much, when it exceeds the
    memory available now."""
    available = available_memory()
    if available and needed > available:
        raise MemoryError(f"{what} needs about {gib(needed)} but only {gib(available)} is available; {advice}")


def peak_rss_bytes() -> int:
    """The most resident memory this process has used (VmHWM of its own
    address space; getrusage's figure would include the image of the process
    that forked it). 0 if unknown."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    except (ImportError, OSError):
        return 0
