"""Running one command as a subprocess and measuring it: whole-process wall
time and peak resident memory.

Peak RSS comes from os.wait4(): on Linux the rusage it returns for a reaped
child is that child's own usage merged with the usage of every descendant it
reaped (the kernel keeps the largest ru_maxrss of the tree), so a tool that
spawns helpers is covered. ru_maxrss is in KiB on Linux (bytes on macOS); we
report MiB. As a cross-check (and for tools whose helpers run concurrently),
a sampler thread also polls /proc for the summed RSS of the live process tree;
the larger of the two is reported as peak_rss_mib, both are kept."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass, field

POLL_SECONDS = 0.05


@dataclass
class Measurement:
    cmd: list[str]
    returncode: int | None = None
    wall_s: float | None = None
    peak_rss_mib: float | None = None      # max(wait4 ru_maxrss, polled tree sum)
    maxrss_wait4_mib: float | None = None
    tree_rss_polled_mib: float | None = None
    timed_out: bool = False
    error: str | None = None
    stdout_path: str | None = None
    stderr_path: str | None = None
    stderr_tail: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.error is None and self.returncode == 0

    def to_dict(self) -> dict:
        d = asdict(self)
        d["ok"] = self.ok
        return d


def _maxrss_mib(ru_maxrss: int) -> float:
    # Linux: KiB; macOS: bytes.
    return ru_maxrss / (1024.0 * 1024.0) if sys.platform == "darwin" else ru_maxrss / 1024.0


def _children_of() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return kids
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # the command name is in parentheses and may hold spaces: parse after the last ')'
        rest = stat[stat.rfind(b")") + 2:].split()
        if len(rest) > 1:
            kids.setdefault(int(rest[1]), []).append(int(name))
    return kids


def _rss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(b"VmRSS:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _tree_rss_kib(root: int) -> int:
    kids = _children_of()
    total, stack, seen = 0, [root], set()
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        total += _rss_kib(pid)
        stack.extend(kids.get(pid, ()))
    return total


class _TreeSampler(threading.Thread):
    """Polls the summed RSS of a process tree (the root and its live
    descendants). Walking all of /proc costs a little CPU, so the full tree is
    walked every tenth poll and the root alone in between."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid, self.peak_kib = pid, 0
        self._stop = threading.Event()

    def run(self) -> None:
        n = 0
        while not self._stop.is_set():
            kib = _tree_rss_kib(self.pid) if n % 10 == 0 else _rss_kib(self.pid)
            self.peak_kib = max(self.peak_kib, kib)
            n += 1
            self._stop.wait(POLL_SECONDS)

    def stop(self) -> None:
        self._stop.set()
        self.join()


def run_measured(cmd: list[str], *, stdout_path: str, stderr_path: str, timeout: float | None = None,
                 env: dict | None = None, cwd: str | None = None, poll_proc: bool = True) -> Measurement:
    """Runs cmd to completion; never raises for a failing command (the error
    is in the Measurement). The child gets its own session so a timeout kills
    the whole tree."""
    m = Measurement(cmd=[str(c) for c in cmd], stdout_path=stdout_path, stderr_path=stderr_path)
    with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
        start = time.perf_counter()
        try:
            proc = subprocess.Popen(m.cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env,
                                    cwd=cwd, start_new_session=True)
        except OSError as exc:
            m.error = f"cannot start {m.cmd[0]}: {exc}"
            return m
        sampler = _TreeSampler(proc.pid) if poll_proc and os.path.isdir("/proc") else None
        if sampler:
            sampler.start()
        timer = None
        if timeout:
            def kill() -> None:
                m.timed_out = True
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except OSError:
                    pass
            timer = threading.Timer(timeout, kill)
            timer.start()
        try:
            while True:
                try:
                    _, status, usage = os.wait4(proc.pid, 0)
                    break
                except InterruptedError:
                    continue
                except KeyboardInterrupt:
                    os.killpg(proc.pid, signal.SIGTERM)
                    raise
        finally:
            m.wall_s = time.perf_counter() - start
            if timer:
                timer.cancel()
            if sampler:
                sampler.stop()
        proc.returncode = os.waitstatus_to_exitcode(status)  # keep Popen from waiting again
    m.returncode = proc.returncode
    m.maxrss_wait4_mib = _maxrss_mib(usage.ru_maxrss)
    if sampler:
        m.tree_rss_polled_mib = sampler.peak_kib / 1024.0
    m.peak_rss_mib = max(m.maxrss_wait4_mib, m.tree_rss_polled_mib or 0.0)
    try:
        with open(stderr_path, "rb") as f:
            f.seek(max(0, os.path.getsize(stderr_path) - 2000))
            m.stderr_tail = f.read().decode("utf-8", "replace")
    except OSError:
        pass
    if m.timed_out:
        m.error = f"timed out after {timeout:.0f} s (killed)"
    elif m.returncode != 0:
        why = (f"killed by signal {-m.returncode}" if m.returncode < 0 else f"exit status {m.returncode}")
        last = m.stderr_tail.strip().splitlines()[-1:] or [""]
        m.error = f"{why}: {last[0][:300]}" if last[0] else why
    return m
