"""A report of training runs from their --stats-json files: the loss (GloVe's
cost), the words per second and the scores (--eval-every) epoch by epoch,
several runs side by side so that two settings compare at a glance. PNG
(matplotlib, the "plot" extra) or HTML (the same figure, and the numbers
as tables)."""

from __future__ import annotations

import base64
import html
import io
import json
import os
from dataclasses import dataclass, field
from typing import Sequence

from .errors import FormatError
from .files import check_input

__all__ = ["Run", "read_run", "draw_report", "report_kind"]


@dataclass
class Run:
    """One training run's figures per epoch, as a stats file gives them."""

    label: str
    epochs: list[int]
    loss: list[float]
    loss_name: str  # "loss" (word2vec) or "cost" (GloVe)
    words_per_sec: list[float] | None = None  # word2vec: corpus words per second of each epoch
    scores: dict[str, list[tuple[int, float | None]]] = field(default_factory=dict)  # name -> (epoch, value)


def read_run(path: str | os.PathLike, label: str | None = None) -> Run:
    """The per-epoch figures of a `wv-engine word2vec|glove --stats-json`
    file. FormatError when it is not one or holds no epoch."""
    path = check_input(path, "stats file")
    try:
        with open(path, encoding="utf-8") as f:
            stats = json.load(f)
    except (ValueError, UnicodeDecodeError) as exc:
        raise FormatError(path, f"not a JSON stats file ({exc})") from None
    if not isinstance(stats, dict):
        raise FormatError(path, "not a stats file of wv-engine word2vec or glove (--stats-json)")
    per_epoch = stats.get("epoch_stats")
    if isinstance(per_epoch, list) and per_epoch and all(isinstance(e, dict) for e in per_epoch):
        try:
            first = int(per_epoch[0]["epoch"]) + 1
            glove = "cost" in per_epoch[0]
            loss = [float(e["cost"] if glove else e["loss"]) for e in per_epoch]
            speed = None if glove else [float(e["words"]) / max(float(e["seconds"]), 1e-9) for e in per_epoch]
        except (KeyError, TypeError, ValueError) as exc:
            raise FormatError(path, f"damaged epoch_stats: {exc}") from None
    else:  # files written before epoch_stats: the loss or cost alone
        loss = stats.get("epoch_loss") if "epoch_loss" in stats else stats.get("epoch_cost")
        if not isinstance(loss, list) or not loss:
            raise FormatError(path, "the stats file has no epochs (no epoch_stats, epoch_loss or epoch_cost): "
                                    "was training interrupted before its first epoch ended?")
        glove, first, speed = "epoch_cost" in stats, 1, None
        loss = [float(x) for x in loss]
    scores: dict[str, list[tuple[int, float | None]]] = {}
    for entry in stats.get("epoch_scores") or []:
        if not isinstance(entry, dict) or "epoch" not in entry:
            raise FormatError(path, "damaged epoch_scores: each entry needs its epoch")
        for name, value in entry.items():
            if name not in ("epoch", "seconds"):
                scores.setdefault(name, []).append((int(entry["epoch"]), None if value is None else float(value)))
    return Run(label or os.path.splitext(os.path.basename(path))[0], list(range(first, first + len(loss))),
               loss, "cost" if glove else "loss", speed, scores)


def _figure(runs: Sequence[Run]):
    from .plotting import pyplot

    plt = pyplot()
    names = sorted({name for run in runs for name in run.scores}, key=lambda n: (n != "analogy", n))
    panels = [("loss", "mean loss per prediction (GloVe: cost per record)")]
    if any(run.words_per_sec for run in runs):
        panels.append(("speed", "words per second"))
    panels += [(name, "analogy accuracy" if name == "analogy" else f"{name} (Spearman)") for name in names]
    columns = min(len(panels), 3)
    rows = -(-len(panels) // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(5.2 * columns, 3.8 * rows), dpi=100, squeeze=False)
    for ax, (key, title) in zip(axes.flat, panels):
        for k, run in enumerate(runs):
            if key == "loss":
                xs, ys = run.epochs, run.loss
            elif key == "speed":
                xs, ys = (run.epochs, run.words_per_sec) if run.words_per_sec else ([], [])
            else:
                points = [(e, v) for e, v in run.scores.get(key, []) if v is not None]
                xs, ys = [e for e, _ in points], [v for _, v in points]
            if xs:
                ax.plot(xs, ys, marker="o", color=f"C{k}", label=run.label)
        ax.set_title(title, fontsize=11)
        ax.set_xlabel("epoch")
        ax.grid(alpha=0.3)
        ax.xaxis.get_major_locator().set_params(integer=True)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_visible(False)
    axes.flat[0].legend(fontsize=9)
    fig.tight_layout()
    return plt, fig


def report_kind(path: str | os.PathLike) -> str:
    """".png", ".html" or ".htm", by the report's name; ValueError otherwise."""
    kind = os.path.splitext(os.fspath(path))[1].lower()
    if kind not in (".png", ".html", ".htm"):
        raise ValueError(f"the report is written as .png or .html, not {kind or 'a file without extension'!r}")
    return kind


def draw_report(stats_files: Sequence[str | os.PathLike], path: str | os.PathLike,
                labels: Sequence[str] | None = None) -> list[Run]:
    """Draws the runs of `stats_files` side by side to `path`: .png, or .html
    (the figure and a table of each run's numbers). Returns the runs read.
    Needs matplotlib (ImportError saying how to get it)."""
    from .files import atomic_write

    if not stats_files:
        raise ValueError("a report needs at least one stats file")
    path = os.fspath(path)
    kind = report_kind(path)
    runs = [read_run(p, labels[i] if labels else None) for i, p in enumerate(stats_files)]
    plt, fig = _figure(runs)
    picture = io.BytesIO()
    fig.savefig(picture, format="png")
    plt.close(fig)
    with atomic_write(path, "wb") as f:
        f.write(picture.getvalue() if kind == ".png" else _html(runs, picture.getvalue()).encode("utf-8"))
    return runs


def _html(runs: Sequence[Run], png: bytes) -> str:
    parts = ["<!doctype html><meta charset='utf-8'><title>wv-engine report</title>",
             "<style>body{font-family:sans-serif;margin:2em}td,th{padding:2px 10px;text-align:right}"
             "table{border-collapse:collapse;margin-bottom:1.5em}tr:nth-child(even){background:#f3f3f3}</style>",
             "<h1>Training report</h1>",
             f"<img alt='loss, speed and scores per epoch' src='data:image/png;base64,{base64.b64encode(png).decode()}'>"]
    for run in runs:
        names = list(run.scores)
        head = ["epoch", run.loss_name] + (["words/s"] if run.words_per_sec else []) + names
        parts.append(f"<h2>{html.escape(run.label)}</h2><table><tr>"
                     + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>")
        for i, epoch in enumerate(run.epochs):
            cells = [str(epoch), f"{run.loss[i]:.6f}"]
            if run.words_per_sec:
                cells.append(f"{run.words_per_sec[i]:,.0f}")
            for name in names:
                value = dict(run.scores[name]).get(epoch)
                cells.append("" if value is None else f"{value:.4f}")
            parts.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
        parts.append("</table>")
    return "\n".join(parts) + "\n"
