"""Memory the machine has, and a check made before large allocations, so
that an impossible request fails at once with the numbers instead of being
killed by the kernel halfway through."""

from __future__ import annotations

import math
import numbers
import os


def total_memory() -> int:
    """Physical memory in bytes (0 if unknown)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 0


def _proc_bytes(path: str, key: str) -> int:
    """A "Key:   N kB" field of a /proc file, in bytes; 0 if absent or unreadable."""
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _meminfo_available() -> int:
    return _proc_bytes("/proc/meminfo", "MemAvailable")


def _read_int(path: str) -> int | None:
    try:
        with open(path) as f:
            text = f.read().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _cgroup_room() -> int:
    """Bytes this process's memory cgroup (v2, else v1) still allows; 0 if
    there is no limit or it cannot be read."""
    try:
        with open("/proc/self/cgroup") as f:
            lines = f.read().splitlines()
    except OSError:
        return 0
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        hierarchy, controllers, path = parts
        if hierarchy == "0" and controllers == "":  # cgroup v2
            base = "/sys/fs/cgroup" + path.rstrip("/")
            limit, usage = _read_int(base + "/memory.max"), _read_int(base + "/memory.current")
        elif "memory" in controllers.split(","):  # cgroup v1
            base = "/sys/fs/cgroup/memory" + path.rstrip("/")
            limit, usage = _read_int(base + "/memory.limit_in_bytes"), _read_int(base + "/memory.usage_in_bytes")
        else:
            continue
        if limit is not None and limit < 1 << 60:  # v1 writes a huge number for "no limit"
            return max(limit - (usage or 0), 1)
    return 0


def _rlimit_room() -> int:
    """Bytes the address-space and data rlimits still allow; 0 if unlimited."""
    try:
        import resource
    except ImportError:
        return 0
    status = {}
    try:
        with open("/proc/self/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key in ("VmSize", "VmData"):
                    status[key] = int(value.split()[0]) * 1024
    except (OSError, ValueError, IndexError):
        return 0
    room = 0
    for limit, used in ((resource.RLIMIT_AS, "VmSize"), (getattr(resource, "RLIMIT_DATA", None), "VmData")):
        if limit is None:
            continue
        soft, _ = resource.getrlimit(limit)
        if soft != resource.RLIM_INFINITY and used in status:
            left = max(soft - status[used], 1)
            room = left if room == 0 else min(room, left)
    return room


def available_memory() -> int:
    """Memory available to new allocations: the least of MemAvailable, what
    the process's memory cgroup still allows and what its rlimits (address
    space, data) still allow; the total if none is known."""
    known = [n for n in (_meminfo_available(), _cgroup_room(), _rlimit_room()) if n > 0]
    return min(known) if known else total_memory()


def gib(n: int) -> str:
    """Bytes as GiB for messages."""
    return f"{n / 2**30:.2f} GiB"


def check_fits(what: str, needed: int, advice: str) -> None:
    """Raises MemoryError naming what needs how much, when it exceeds the
    memory available now."""
    available = available_memory()
    if available and needed > available:
        raise MemoryError(f"{what} needs about {gib(needed)} but only {gib(available)} is available; {advice}")


MAX_SIZE = 1 << 50  # sizes reach C as 64-bit byte counts; no machine has a petabyte of memory


def parse_size(text: str | int | float) -> int:
    """Bytes from a size as users write it: 1500000, '512M', '2G', '2.5GB',
    '64k' (powers of 1024). The one parser of sizes (--memory-limit,
    memory_limit=)."""
    admitted = "a size in [1 byte, 1P] (examples: 512M, 2G, 1500000)"
    if isinstance(text, numbers.Real) and not isinstance(text, bool):
        if not isinstance(text, numbers.Integral) and not math.isfinite(text):
            raise ValueError(f"memory_limit must be {admitted}, got {text!r}")
        value = int(text)
    elif not isinstance(text, str):
        raise ValueError(f"memory_limit must be {admitted}, got {text!r}")
    else:
        s = text.strip().upper().removesuffix("B").removesuffix("I")
        scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40, "P": 1 << 50}.get(s[-1:], 1)
        number = s[:-1] if s[-1:] in "KMGTP" and s[-1:] else s
        try:
            value = int(float(number) * scale)
        except (ValueError, OverflowError):  # OverflowError: inf
            raise ValueError(f"memory_limit must be {admitted}, got {text!r}") from None
    if not 1 <= value <= MAX_SIZE:
        raise ValueError(f"memory_limit must be {admitted}, got {text!r}")
    return value


def peak_rss_bytes() -> int:
    """The most resident memory this process has used (VmHWM of its own
    address space; getrusage's figure would include the image of the process
    that forked it). 0 if unknown."""
    hwm = _proc_bytes("/proc/self/status", "VmHWM")
    if hwm:
        return hwm
    try:
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    except (ImportError, OSError):
        return 0
