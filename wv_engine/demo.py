"""The demo: skip-gram on the shipped public-domain corpus (Austen's Emma and
Melville's Moby-Dick), nearest neighbours, analogies, and a 2-D picture."""

from __future__ import annotations

import os

from . import datasets
from .maps import draw_map
from .vectors import Vectors
from .word2vec import Word2Vec

QUERY_WORDS = ["whale", "ship", "captain", "emma", "father", "happy", "morning", "three"]
ANALOGIES = [("he", "his", "she"), ("man", "woman", "he"), ("day", "days", "year"), ("one", "two", "three")]
# Groups drawn in the picture: words of one group should sit together.
PICTURE_GROUPS = {
    "the sea": ["whale", "ship", "boat", "sea", "harpoon", "sperm", "leviathan", "crew", "deck", "ocean"],
    "Moby-Dick's crew": ["ahab", "stubb", "starbuck", "queequeg", "flask", "peleg", "bildad"],
    "Emma's circle": ["emma", "harriet", "knightley", "weston", "elton", "woodhouse"],
    "numbers": ["two", "three", "four", "five", "six", "ten", "twenty", "hundred"],
}


def corpus_path() -> str:
    """Path of the shipped demo corpus (gzipped text)."""
    return str(datasets.path("demo-corpus"))


def train(threads: int | None = None, progress: bool | None = None, seed: int = 1) -> Word2Vec:
    """Skip-gram with word2vec.c's defaults on the demo corpus (a few seconds)."""
    return Word2Vec(threads=threads, seed=seed).fit(corpus_path(), progress=progress)


def draw_picture(vectors: Vectors, path: str) -> str:
    """Writes a labelled PCA scatter of PICTURE_GROUPS to path (PNG). Needs
    matplotlib (pip install "wv-engine[plot]"); raises ImportError without it."""
    groups = {g: [w for w in members if w in vectors] for g, members in PICTURE_GROUPS.items()}
    draw_map(vectors, {g: ws for g, ws in groups.items() if ws}, path,
             title="wv-engine demo: skip-gram vectors of Emma + Moby-Dick (PCA of unit vectors)")
    return path


def run(out_dir: str = ".", threads: int | None = None, progress: bool | None = None,
        print_fn=print) -> dict:
    """Trains, prints neighbours and analogies, writes demo_vectors.bin and
    demo_vectors.png into out_dir. Returns what it printed and wrote."""
    os.makedirs(out_dir, exist_ok=True)
    model = train(threads=threads, progress=progress)
    vectors = model.vectors
    stats = model.last_stats
    print_fn(f"trained skip-gram on {stats.corpus_words:,} words ({len(vectors):,} distinct kept) "
             f"in {stats.train_seconds:.1f} s: {stats.words_per_sec:,.0f} words/s")
    neighbours = {w: vectors.most_similar(w, topn=6) for w in QUERY_WORDS if w in vectors}
    print_fn("\nnearest neighbours:")
    for w, near in neighbours.items():
        print_fn(f"  {w:>8}: " + ", ".join(x for x, _ in near))
    analogies = {}
    print_fn("\nanalogies (a : b :: c : ?):")
    for a, b, c in ANALOGIES:
        if all(x in vectors for x in (a, b, c)):
            answer = vectors.analogy(a, b, c, topn=3)
            analogies[f"{a}:{b}::{c}"] = answer
            print_fn(f"  {a} : {b} :: {c} : " + ", ".join(x for x, _ in answer))
    result = {"neighbours": neighbours, "analogies": analogies,
              "vectors": os.path.join(out_dir, "demo_vectors.bin"), "picture": None}
    vectors.save(result["vectors"], format="word2vec-bin")
    print_fn(f"\nwrote {result['vectors']}")
    try:
        result["picture"] = draw_picture(vectors, os.path.join(out_dir, "demo_vectors.png"))
        print_fn(f"wrote {result['picture']}")
    except ImportError:
        print_fn('no picture: matplotlib is not installed (pip install "wv-engine[plot]")')
    return result
