"""Moved to benchmarks.lab.bar_noise; kept so the command keeps working."""
from .lab.bar_noise import *  # noqa: F401,F403
from .lab.bar_noise import main

if __name__ == "__main__":
    raise SystemExit(main())
