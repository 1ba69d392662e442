"""matplotlib, optional (the "plot" extra): imported only when a picture is
drawn, headless, with an ImportError that says how to install it."""

from __future__ import annotations

from typing import Any

PLOT_HINT = 'pip install "wv-engine[plot]"'


def pyplot() -> Any:
    """matplotlib.pyplot on the non-interactive Agg backend."""
    try:
        import matplotlib
    except ImportError:
        raise ImportError(f"drawing needs matplotlib: {PLOT_HINT}") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt
