"""Maps of word vectors: which words to show (named, the most frequent, the
neighbours of a few, or groups from the shipped analogy set), their 2-D
projection (PCA; t-SNE or UMAP where scikit-learn or umap-learn is
installed), a labelled picture (matplotlib, the "plot" extra), and the
vectors with their words in TensorBoard's projector format."""

from __future__ import annotations

import errno
import os
from typing import Any, Sequence

import numpy as np

from .plotting import pyplot
from .vectors import UnknownWordError

__all__ = ["choose_words", "analogy_groups", "project", "draw_map", "write_projector", "EpochMaps", "METHODS"]

METHODS = ("pca", "tsne", "umap")
# Sections of the shipped analogy set whose two sides make clear groups: a
# question "a b c d" pairs a word of one side (a, c) with one of the other (b, d).
GROUP_SECTIONS = {"capital-common-countries": ("capitals", "countries"), "family": ("male", "female")}


def choose_words(vectors: Any, words: Sequence[str] | None = None, top: int | None = None,
                 neighbours: Sequence[str] | None = None, per_word: int = 8) -> list[str]:
    """The words of a map: those named, the `top` most frequent, and each of
    `neighbours` with its per_word nearest neighbours (in that order, each
    word once). An unknown word is an UnknownWordError; fewer than 3 words
    a ValueError (a plane through fewer says nothing)."""
    chosen: list[str] = []
    for w in list(words or []) + list(neighbours or []):
        if w not in vectors:
            raise UnknownWordError(w, len(vectors))
    chosen += list(words or [])
    if top:
        chosen += list(vectors.words[:top])
    for w in neighbours or []:
        chosen += [w] + [n for n, _ in vectors.most_similar(w, topn=per_word)]
    unique = list(dict.fromkeys(chosen))
    if len(unique) < 3:
        raise ValueError(f"a map needs at least 3 distinct words, got {len(unique)}: {unique}")
    return unique


def analogy_groups(vectors: Any, restrict_vocab: int = 30000, most: int = 15) -> dict[str, list[str]]:
    """Groups of words from the shipped analogy set that the vectors know
    (case-folded, as the analogy evaluation matches) among their
    restrict_vocab most frequent (capitals / countries,
    male / female), at most `most` a group: a map of them shows whether the
    vectors have learned those relations. Groups with fewer than 2 words are
    left out."""
    from .datasets import path as dataset_path
    from .evaluate import _questions

    parsed = _questions(dataset_path("questions-words")).sections
    known: dict[str, str] = {}  # as the analogy evaluation matches: case-folded, the most frequent spelling
    for w in vectors.words[:restrict_vocab]:
        known.setdefault(w.upper(), w)
    groups: dict[str, list[str]] = {}
    for section, questions in parsed:
        if section not in GROUP_SECTIONS:
            continue
        sides = GROUP_SECTIONS[section]
        for _, (a, b, c, d) in questions:
            for side, w in ((0, a), (1, b), (0, c), (1, d)):
                members = groups.setdefault(sides[side], [])
                word = known.get(w.upper())
                if word is not None and word not in members and len(members) < most:
                    members.append(word)
    return {g: ws for g, ws in groups.items() if len(ws) >= 2}


def project(matrix: np.ndarray, method: str = "pca", seed: int = 1, previous: np.ndarray | None = None
            ) -> np.ndarray:
    """The rows in 2-D. pca: the first two principal components (with
    `previous` points of the same rows, each axis's sign is the one that
    agrees with them, so that maps of successive epochs do not flip);
    tsne / umap: scikit-learn's t-SNE or umap-learn's UMAP (ImportError
    naming the package when missing)."""
    matrix = np.asarray(matrix, dtype=np.float64)
    if method == "pca":
        centred = matrix - matrix.mean(axis=0)
        _, _, vt = np.linalg.svd(centred, full_matrices=False)
        points = centred @ vt[:2].T
        if previous is not None:
            signs = np.sign(np.sum(points * previous, axis=0))
            points *= np.where(signs == 0, 1.0, signs)
        return points
    if method == "tsne":
        try:
            from sklearn.manifold import TSNE
        except ImportError:
            raise ImportError("method 'tsne' needs scikit-learn: pip install scikit-learn") from None
        return TSNE(n_components=2, perplexity=min(30.0, (len(matrix) - 1) / 3), init="pca",
                    random_state=seed).fit_transform(matrix)
    if method == "umap":
        try:
            import umap
        except ImportError:
            raise ImportError("method 'umap' needs umap-learn: pip install umap-learn") from None
        return umap.UMAP(n_components=2, n_neighbors=min(15, len(matrix) - 1), random_state=seed
                         ).fit_transform(matrix)
    raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")


def draw_map(vectors: Any, words: Sequence[str] | dict[str, Sequence[str]], path: str | os.PathLike,
             method: str = "pca", title: str | None = None, seed: int = 1,
             previous: np.ndarray | None = None) -> np.ndarray:
    """Writes a labelled scatter of the words' unit vectors in 2-D to `path`
    (PNG, atomically) and returns the points. `words`: a list, or
    {group: words} drawn in one colour a group with a legend. `previous`:
    see project."""
    from .files import atomic_write

    groups = dict(words) if isinstance(words, dict) else {"": list(words)}
    flat = [w for ws in groups.values() for w in ws]
    choose_words(vectors, flat)  # the same checks: known words, at least 3
    plt = pyplot()
    points = project(vectors.unit_vectors[[vectors.get_index(w) for w in flat]], method, seed, previous)
    fig, ax = plt.subplots(figsize=(10, 8), dpi=110)
    labels, at = [], 0
    for k, (group, members) in enumerate(groups.items()):
        sel = range(at, at + len(members))
        at += len(members)
        ax.scatter(points[sel, 0], points[sel, 1], s=36, color=f"C{k}", label=group or None)
        for i in sel:
            labels.append(ax.annotate(flat[i], points[i], xytext=(4, 3), textcoords="offset points",
                                      fontsize=10, color=f"C{k}"))
    ax.set_title(title or f"{len(flat)} words, {method.upper() if method == 'pca' else method} of unit vectors")
    if method == "pca":
        ax.set_xlabel("first principal component")
        ax.set_ylabel("second principal component")
    if len(groups) > 1 or "" not in groups:
        ax.legend(loc="best", fontsize=10)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    spread_labels(fig, labels)
    with atomic_write(path, "wb") as f:
        fig.savefig(f, format="png")
    plt.close(fig)
    return points


# Where a label may go relative to its point (points of offset, alignment),
# tried in order until it overlaps no label placed before it.
_LABEL_SPOTS = [((4, 3), "left"), ((4, -12), "left"), ((-4, 3), "right"), ((-4, -12), "right"),
                ((4, 13), "left"), ((-4, 13), "right"), ((4, -22), "left"), ((-4, -22), "right"),
                ((4, 23), "left"), ((-4, 23), "right"), ((4, -32), "left"), ((-4, -32), "right")]


def spread_labels(fig: Any, labels: Sequence[Any]) -> None:
    """Moves each label to the first nearby spot where it overlaps no earlier
    label, so crowded clusters stay readable."""
    renderer = fig.canvas.get_renderer()
    placed = []
    for label in labels:
        for offset, align in _LABEL_SPOTS:
            label.xyann = offset
            label.set_horizontalalignment(align)
            box = label.get_window_extent(renderer)
            if not any(box.overlaps(other) for other in placed):
                break
        else:
            label.xyann, _ = _LABEL_SPOTS[0]
            label.set_horizontalalignment("left")
            box = label.get_window_extent(renderer)
        placed.append(box)


def write_projector(vectors: Any, words: Sequence[str], directory: str | os.PathLike) -> list[str]:
    """The words' vectors in TensorBoard's projector format, in `directory`:
    vectors.tsv (one row of tab-separated floats a word), metadata.tsv (one
    label a line, the same order; a single column has no header) and
    projector_config.pbtxt pointing at both (`tensorboard --logdir DIR`, or
    load the two TSVs at projector.tensorflow.org). Tabs and newlines in a
    word become spaces. Returns the paths written (each atomically)."""
    from .files import atomic_write

    choose_words(vectors, words)
    os.makedirs(directory, exist_ok=True)
    rows = vectors.vectors[[vectors.get_index(w) for w in words]]
    out = {name: os.path.join(directory, name) for name in ("vectors.tsv", "metadata.tsv", "projector_config.pbtxt")}
    with atomic_write(out["vectors.tsv"], "w") as f:
        for row in rows:
            f.write("\t".join(f"{x:.9g}" for x in row.tolist()) + "\n")
    with atomic_write(out["metadata.tsv"], "wb") as f:  # the words' own bytes (surrogateescape)
        for w in words:
            f.write((w.replace("\t", " ").replace("\n", " ").replace("\r", " ") + "\n").encode(
                "utf-8", "surrogateescape"))
    with atomic_write(out["projector_config.pbtxt"], "w") as f:
        f.write('embeddings {\n  tensor_path: "vectors.tsv"\n  metadata_path: "metadata.tsv"\n}\n')
    return list(out.values())


class EpochMaps:
    """A training callback that draws a map of the same words after every
    epoch, to directory/epoch_NN.png: a random cloud at first, groups as
    the vectors learn. `words`: a list, or {group: words} (default:
    analogy_groups, or the 60 most frequent words where those are too few).
    Each epoch's axes keep the signs of the last one's (project), so the
    pictures read as a sequence. Needs matplotlib."""

    def __init__(self, directory: str | os.PathLike, words: Sequence[str] | dict[str, Sequence[str]] | None = None,
                 method: str = "pca", seed: int = 1):
        if method not in METHODS:
            raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
        if os.path.lexists(directory) and not os.path.isdir(directory):
            raise NotADirectoryError(errno.ENOTDIR, "not a directory", os.fspath(directory))
        pyplot()  # without matplotlib, say so before training starts
        os.makedirs(directory, exist_ok=True)
        self.directory, self.words, self.method, self.seed = os.fspath(directory), words, method, seed
        self.paths: list[str] = []
        self._previous: np.ndarray | None = None

    def __call__(self, model: Any, epoch: Any) -> None:
        vectors = model.vectors  # current: Word2Vec.record_epoch drops what the last epoch cached
        if self.words is None:
            groups = analogy_groups(vectors)
            self.words = groups if sum(map(len, groups.values())) >= 3 else list(vectors.words[:60])
        path = os.path.join(self.directory, f"epoch_{model.epochs_trained:02d}.png")
        self._previous = draw_map(vectors, self.words, path, self.method,
                                  title=f"epoch {model.epochs_trained}", seed=self.seed, previous=self._previous)
        vectors.vectors_changed()  # draw_map cached every unit row: not kept through the next epoch
        self.paths.append(path)
