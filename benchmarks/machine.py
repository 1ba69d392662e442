"""What the benchmark ran on: CPU, cores, RAM, OS, and library versions."""

from __future__ import annotations

import os
import platform
import subprocess
import sys


def cpu_model() -> str | None:
    """The CPU's model name from /proc/cpuinfo (platform.processor() elsewhere)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def _cpu_flags() -> list[str]:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    return sorted(f for f in flags if f in {"sse4_2", "avx", "avx2", "fma", "avx512f"})
    except OSError:
        pass
    return []


def _ram_gib() -> float | None:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) / 1024 / 1024
    except OSError:
        pass
    return None


def _os_name() -> str:
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    return line.split("=", 1)[1].strip().strip('"') + f" (kernel {platform.release()})"
    except OSError:
        pass
    return platform.platform()


def _version(module: str) -> str | None:
    try:
        mod = __import__(module)
        return getattr(mod, "__version__", "?")
    except Exception:  # not installed, or broken: record that it is absent
        return None


def _git(repo: str) -> dict:
    def run(*args):
        try:
            return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True,
                                  timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""
    return {"commit": run("rev-parse", "HEAD") or None,
            "dirty": bool(run("status", "--porcelain", "--untracked-files=no"))}


def describe(repo_root: str) -> dict:
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    return {
        "cpu_model": cpu_model(),
        "cpu_flags": _cpu_flags(),
        "logical_cores": os.cpu_count(),
        "usable_cores": usable,
        "ram_gib": _ram_gib(),
        "os": _os_name(),
        "python": sys.version.split()[0],
        "python_executable": sys.executable,
        "versions": {m: _version(m) for m in ("numpy", "scipy", "wv_engine", "gensim", "matplotlib")},
        "wv_engine_git": _git(repo_root),
    }
