"""Running one command as a subprocess and measuring it: whole-process wall
time and peak resident memory (MiB).

Peak RSS, primary: a sampler thread polls /proc/PID/status VmHWM (the
kernel's high-water mark of the process's resident set since its exec) every
20 ms, and every 0.2 s the summed VmRSS of the whole live process tree (for
tools with helper processes). VmHWM is a high-water mark, so a short spike
between two polls is still seen; only a peak in the last poll interval of the
process's life could be missed.

Why not just os.wait4()/RUSAGE_CHILDREN ru_maxrss: on Linux, exec() folds the
high-water mark of the *pre-exec* memory image, which for a child forked (or
vforked) from this process is this process's own RSS, into the child's
ru_maxrss. After the orchestrator has loaded vectors for evaluation
(hundreds of MiB) every child would report at least that much. ru_maxrss is
still recorded (maxrss_wait4_mib), and used as well when it exceeds this
process's own high-water mark at spawn time (then it cannot be inherited: it
covers the child and every descendant it reaped)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass, field

POLL_SECONDS = 0.02


@dataclass
class Measurement:
    cmd: list[str]
    returncode: int | None = None
    wall_s: float | None = None
    peak_rss_mib: float | None = None      # see the module docstring
    hwm_polled_mib: float | None = None     # largest VmHWM of a process of the tree
    tree_rss_polled_mib: float | None = None  # largest summed VmRSS of the tree
    maxrss_wait4_mib: float | None = None   # may be inherited from this process
    parent_hwm_at_spawn_mib: float | None = None
    cpu_s: float | None = None              # user + system CPU of the child and its reaped children
    other_cpu_cores: float | None = None    # mean cores used by everything else meanwhile
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


def _machine_busy_s() -> float | None:
    """Busy CPU seconds of the whole machine since boot (all cores), from /proc/stat."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
        user, nice, system, _idle, _iowait, irq, softirq, steal = (int(x) for x in fields[1:9])
        return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


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


def _status_kib(pid: int | str, keys=(b"VmRSS:", b"VmHWM:")) -> dict[bytes, int]:
    out: dict[bytes, int] = {}
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(keys):
                    out[line[:6]] = int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return out


def _tree(root: int) -> list[int]:
    kids = _children_of()
    pids, stack, seen = [], [root], set()
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        pids.append(pid)
        stack.extend(kids.get(pid, ()))
    return pids


class _Sampler(threading.Thread):
    """Polls VmHWM of the root (every POLL_SECONDS) and, every tenth poll,
    VmHWM of each descendant and the summed VmRSS of the whole tree."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid = pid
        self.hwm_kib = 0       # largest VmHWM of any one process of the tree
        self.tree_kib = 0      # largest summed VmRSS of the tree at one poll
        self._halt = threading.Event()

    def run(self) -> None:
        n = 0
        while True:
            if n % 10 == 0:
                total = 0
                for pid in _tree(self.pid):
                    st = _status_kib(pid)
                    total += st.get(b"VmRSS:", 0)
                    self.hwm_kib = max(self.hwm_kib, st.get(b"VmHWM:", 0))
                self.tree_kib = max(self.tree_kib, total)
            else:
                self.hwm_kib = max(self.hwm_kib, _status_kib(self.pid).get(b"VmHWM:", 0))
            n += 1
            if self._halt.wait(POLL_SECONDS):
                return

    def stop(self) -> None:
        self._halt.set()
        self.join()


def run_measured(cmd: list[str], *, stdout_path: str, stderr_path: str, timeout: float | None = None,
                 env: dict | None = None, cwd: str | None = None, poll_proc: bool = True,
                 stdin_path: str | None = None) -> Measurement:
    """Runs cmd to completion; never raises for a failing command (the error
    is in the Measurement). The child gets its own session so a timeout kills
    the whole tree. stdin_path: a file the command reads as its standard input
    (default: /dev/null); stdout_path may be the command's data output (as for
    Stanford GloVe's stages, `tool < in > out`)."""
    m = Measurement(cmd=[str(c) for c in cmd], stdout_path=stdout_path, stderr_path=stderr_path)
    try:
        stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    except OSError as exc:
        m.error = f"cannot open the input {stdin_path}: {exc}"
        return m
    try:
        return _run(m, stdin, stdout_path, stderr_path, timeout, env, cwd, poll_proc)
    finally:
        if stdin_path:
            stdin.close()


def _run(m: Measurement, stdin, stdout_path: str, stderr_path: str, timeout: float | None,
         env: dict | None, cwd: str | None, poll_proc: bool) -> Measurement:
    # What the previous command left to write back (a peer's temporary files run to gigabytes)
    # goes to disk first: pending writeback slowed the next command's reading of a cached
    # corpus 3.5x on the development VM (docs/performance.md, "GloVe counting").
    os.sync()
    with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
        parent_hwm = _status_kib("self").get(b"VmHWM:")
        m.parent_hwm_at_spawn_mib = parent_hwm / 1024.0 if parent_hwm else None
        busy0 = _machine_busy_s()
        start = time.perf_counter()
        try:
            # Popen returns once the child has exec'd (it waits on a close-on-exec pipe),
            # so the sampler never sees the pre-exec image
            proc = subprocess.Popen(m.cmd, stdout=out, stderr=err, stdin=stdin, env=env,
                                    cwd=cwd, start_new_session=True)
        except OSError as exc:
            m.error = f"cannot start {m.cmd[0]}: {exc}"
            return m
        sampler = _Sampler(proc.pid) if poll_proc and os.path.isdir("/proc") else None
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
            busy1 = _machine_busy_s()
            if timer:
                timer.cancel()
            if sampler:
                sampler.stop()
        proc.returncode = os.waitstatus_to_exitcode(status)  # keep Popen from waiting again
    m.returncode = proc.returncode
    m.maxrss_wait4_mib = _maxrss_mib(usage.ru_maxrss)
    m.cpu_s = usage.ru_utime + usage.ru_stime
    if busy0 is not None and busy1 is not None and m.wall_s:
        m.other_cpu_cores = max(0.0, (busy1 - busy0 - m.cpu_s) / m.wall_s)
    candidates = []
    if sampler:
        m.hwm_polled_mib = sampler.hwm_kib / 1024.0
        m.tree_rss_polled_mib = sampler.tree_kib / 1024.0
        candidates += [m.hwm_polled_mib, m.tree_rss_polled_mib]
    if not candidates or (m.parent_hwm_at_spawn_mib is not None
                          and m.maxrss_wait4_mib > m.parent_hwm_at_spawn_mib):
        candidates.append(m.maxrss_wait4_mib)
    m.peak_rss_mib = max(candidates)
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
