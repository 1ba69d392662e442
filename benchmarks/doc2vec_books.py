"""Document classification with document vectors, against gensim's Doc2Vec:
which book a passage comes from.

    python -m benchmarks.doc2vec_books [--corpus gutenberg_pd.txt.gz] [--words 100] [--archs dbow]
        [--tools wv-engine,gensim-iter,gensim-file] [--seed 1,2,3] [--epochs 20] [--threads 2] [--out DIR]

The corpus is ../shared/data's gutenberg_pd: 13 public-domain books one
after another in one line, each opening with its title line (`emma by jane
austen one eight one six`, BOOKS below), where it is cut. Each book is cut
into passages of --words words (its shorter last piece dropped), a label a
book: three books each of Austen, Chesterton and Shakespeare make it more
than a matter of vocabulary. As in Le & Mikolov's IMDB set-up (and gensim's
tutorial of it, where PV-DBOW reaches 10-11% test error), every passage is
trained, unsupervised, at the tutorial's settings (dim 100, 5 negatives,
min_count 2, sample 0, 20 epochs); then a multinomial logistic regression
(L2 with C = 1 on standardised features, as scikit-learn's default; fit by
L-BFGS) learns the books from the vectors of a fixed half of the passages
(drawn per book with SPLIT_SEED, the same for every tool and seed), and
the measure is its error on the other half: with the passages' trained
vectors ("trained"), and with the test half's vectors inferred as unseen
documents ("inferred": wv-engine's Doc2Vec.infer, gensim's infer_vector).
Writes OUT/books.json and prints the medians; the tools alternate within
each seed."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

DEFAULT_CORPUS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), os.pardir, "shared",
                              "data", "corpora", "gutenberg_pd.txt.gz")
# The title lines that open the books, in the corpus's order (text8 layout: years spelled digit by digit).
BOOKS = (
    "emma by jane austen one eight one six",
    "persuasion by jane austen one eight one eight",
    "sense and sensibility by jane austen one eight one one",
    "poems by william blake one seven eight nine",
    "the ball and the cross by g k chesterton one nine zero nine",
    "the wisdom of father brown by g k chesterton one nine one four",
    "the man who was thursday by g k chesterton one nine zero eight",
    "moby dick by herman melville one eight five one",
    "paradise lost by john milton one six six seven",
    "the tragedie of julius caesar by william shakespeare one five nine nine",
    "the tragedie of hamlet by william shakespeare one five nine nine",
    "the tragedie of macbeth by william shakespeare one six zero three",
    "leaves of grass by walt whitman one eight five five",
)
SPLIT_SEED = 20261201
SETTINGS = {"dim": 100, "negative": 5, "min_count": 2, "sample": 0.0, "window": 5}


def split_books(words: list[str], titles=BOOKS) -> list[tuple[int, int]]:
    """The [start, end) word range of each book: from its title line to the
    next book's. Raises ValueError naming a title not found in order."""
    starts, at = [], 0
    for title in titles:
        t = title.split()
        i = at
        while i <= len(words) - len(t) and words[i:i + len(t)] != t:
            i += 1
        if i > len(words) - len(t):
            raise ValueError(f"the title line {title!r} is not in the corpus after word {at:,}")
        starts.append(i)
        at = i + len(t)
    return list(zip(starts, starts[1:] + [len(words)]))


def passages(words: list[str], ranges: list[tuple[int, int]], size: int) -> tuple[list[list[str]], np.ndarray]:
    """Each book's words cut into passages of `size` (the shorter last one
    dropped); (passages, label of each: its book's index)."""
    docs, labels = [], []
    for label, (lo, hi) in enumerate(ranges):
        for s in range(lo, hi - size + 1, size):
            docs.append(words[s:s + size])
            labels.append(label)
    return docs, np.asarray(labels, dtype=np.int64)


def split_half(labels: np.ndarray, seed: int = SPLIT_SEED) -> np.ndarray:
    """A boolean mask of the training half: half of each label's items
    (rounded down), drawn with `seed`."""
    rng = np.random.default_rng(seed)
    train = np.zeros(len(labels), dtype=bool)
    for k in np.unique(labels):
        idx = np.flatnonzero(labels == k)
        train[rng.permutation(idx)[:len(idx) // 2]] = True
    return train


def logistic_loss(w: np.ndarray, X: np.ndarray, Y: np.ndarray, C: float) -> tuple[float, np.ndarray]:
    """Multinomial logistic regression's objective C * sum of the log losses
    + |W|^2 / 2 (the biases not penalised) and its gradient; w holds W
    (d x k, row-major) then the k biases; Y one-hot."""
    d, k = X.shape[1], Y.shape[1]
    W, b = w[:d * k].reshape(d, k), w[d * k:]
    Z = X @ W + b
    Z -= Z.max(axis=1, keepdims=True)
    logp = Z - np.log(np.exp(Z).sum(axis=1, keepdims=True))
    R = np.exp(logp) - Y
    loss = -C * float((Y * logp).sum()) + 0.5 * float((W * W).sum())
    return loss, np.concatenate([(C * (X.T @ R) + W).ravel(), C * R.sum(axis=0)])


class Logistic:
    """Multinomial logistic regression with L2 (scikit-learn's default
    LogisticRegression: C = 1), on features standardised by the training
    set's mean and deviation, fit by L-BFGS."""

    def __init__(self, C: float = 1.0, max_iter: int = 2000):
        self.C, self.max_iter = C, max_iter

    def fit(self, X: np.ndarray, y: np.ndarray) -> "Logistic":
        from scipy.optimize import minimize

        X = np.asarray(X, dtype=np.float64)
        self.mean, self.scale = X.mean(axis=0), X.std(axis=0) + 1e-12
        Xs = (X - self.mean) / self.scale
        k, d = int(y.max()) + 1, X.shape[1]
        res = minimize(logistic_loss, np.zeros(d * k + k), args=(Xs, np.eye(k)[y], self.C), jac=True,
                       method="L-BFGS-B", options={"maxiter": self.max_iter})
        self.W, self.b = res.x[:d * k].reshape(d, k), res.x[d * k:]
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        Xs = (np.asarray(X, dtype=np.float64) - self.mean) / self.scale
        return np.argmax(Xs @ self.W + self.b, axis=1)


def error(train_X: np.ndarray, train_y: np.ndarray, test_X: np.ndarray, test_y: np.ndarray) -> float:
    """The test error of Logistic fit on the training vectors."""
    return float(np.mean(Logistic().fit(train_X, train_y).predict(test_X) != test_y))


def train_ours(docs, arch: str, epochs: int, threads: int, seed: int):
    """wv_engine's Doc2Vec on the passages (tag: its index); (model, trained vectors in passage order)."""
    from wv_engine import Doc2Vec

    m = Doc2Vec(arch=arch, epochs=epochs, threads=threads, seed=seed, **SETTINGS)
    m.fit([(words, [i]) for i, words in enumerate(docs)], progress=False)
    dv = m.dv
    return m, dv.vectors[[dv.get_index(str(i)) for i in range(len(docs))]]


def train_gensim(docs, mode: str, arch: str, epochs: int, threads: int, seed: int, work: str):
    """gensim's Doc2Vec, iterable ("iter") or corpus_file ("file", tags: line numbers)."""
    from gensim.models.doc2vec import Doc2Vec, TaggedDocument

    s = dict(dm=1 if arch == "dm" else 0, vector_size=SETTINGS["dim"], negative=SETTINGS["negative"], hs=0,
             min_count=SETTINGS["min_count"], sample=SETTINGS["sample"], window=SETTINGS["window"], epochs=epochs,
             workers=threads, seed=seed)
    if mode == "file":
        path = os.path.join(work, "passages.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(" ".join(words) + "\n" for words in docs)
        m = Doc2Vec(corpus_file=path, **s)
    else:
        m = Doc2Vec([TaggedDocument(words, [i]) for i, words in enumerate(docs)], **s)
    return m, np.stack([m.dv[i] for i in range(len(docs))])


def run_tool(tool: str, arch: str, docs, labels, train, args, seed: int) -> dict:
    t0 = time.perf_counter()
    test_docs = [d for d, keep in zip(docs, train) if not keep]
    if tool == "wv-engine":
        model, vectors = train_ours(docs, arch, args.epochs, args.threads, seed)
        train_s = time.perf_counter() - t0
        t1 = time.perf_counter()
        inferred = model.infer(test_docs, threads=args.threads)
    else:
        model, vectors = train_gensim(docs, tool.split("-")[1], arch, args.epochs, args.threads, seed, args.out)
        train_s = time.perf_counter() - t0
        t1 = time.perf_counter()
        inferred = np.stack([model.infer_vector(d) for d in test_docs])
    infer_s = time.perf_counter() - t1
    return {"train_s": train_s, "infer_s": infer_s,
            "trained_error": error(vectors[train], labels[train], vectors[~train], labels[~train]),
            "inferred_error": error(vectors[train], labels[train], inferred, labels[~train])}


def add_run_arguments(p: argparse.ArgumentParser) -> None:
    """The options of a comparison run, shared with benchmarks.doc2vec_labelled."""
    p.add_argument("--archs", default="dbow")
    p.add_argument("--tools", default="wv-engine,gensim-iter,gensim-file")
    p.add_argument("--seed", default="1,2,3")
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--threads", type=int, default=2)


def compare(docs, labels: np.ndarray, train: np.ndarray, args) -> list[dict]:
    """Every tool and architecture on the documents, seed by seed (the tools
    alternating within a seed); a row each, printed as it comes."""
    rows = []
    for seed in (int(s) for s in args.seed.split(",")):
        for arch in args.archs.split(","):
            for tool in args.tools.split(","):
                rows.append({"arch": arch, "tool": tool, "seed": seed,
                             **run_tool(tool, arch, docs, labels, train, args, seed)})
                print(json.dumps(rows[-1]), flush=True)
    return rows


def run_and_record(docs, labels: np.ndarray, train: np.ndarray, args, name: str, /, **facts) -> list[dict]:
    """compare, then OUT/name with the run's settings, `facts` and the rows; returns the rows."""
    os.makedirs(args.out, exist_ok=True)
    rows = compare(docs, labels, train, args)
    record = {"created": time.strftime("%Y-%m-%d %H:%M:%S %z"), "argv": sys.argv, **facts, "train": int(train.sum()),
              "epochs": args.epochs, "threads": args.threads, "settings": SETTINGS, "rows": rows}
    with open(os.path.join(args.out, name), "w") as f:
        json.dump(record, f, indent=2)
    return rows


def print_table(rows: list[dict], args) -> None:
    """The medians over the seeds, each seed's error beside them."""
    print("| arch | tool | train s | infer s | error, trained vectors % | error, inferred % |")
    print("|---|---|---|---|---|---|")
    for arch in args.archs.split(","):
        for tool in args.tools.split(","):
            rs = [r for r in rows if r["arch"] == arch and r["tool"] == tool]
            med = {k: float(np.median([r[k] for r in rs])) for k in ("train_s", "infer_s", "trained_error",
                                                                     "inferred_error")}
            each = " / ".join(f"{100 * r['trained_error']:.2f}" for r in rs)
            each_inf = " / ".join(f"{100 * r['inferred_error']:.2f}" for r in rs)
            print(f"| {arch} | {tool} | {med['train_s']:.1f} | {med['infer_s']:.2f} | "
                  f"{100 * med['trained_error']:.2f} ({each}) | {100 * med['inferred_error']:.2f} ({each_inf}) |")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.doc2vec_books", description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", default=DEFAULT_CORPUS, help="gutenberg_pd (.txt or .txt.gz)")
    p.add_argument("--words", type=int, default=100, help="words a passage")
    add_run_arguments(p)
    p.add_argument("--out", default="/tmp/wv_doc2vec_books")
    a = p.parse_args(argv)
    from wv_engine.files import open_input

    with open_input(a.corpus, "corpus") as f:
        words = f.read().decode("utf-8").split()
    docs, labels = passages(words, split_books(words), a.words)
    train = split_half(labels)
    rows = run_and_record(docs, labels, train, a, "books.json", passages=len(docs), words=a.words, books=len(BOOKS))
    print(f"\n{len(docs):,} passages of {a.words} words from {len(BOOKS)} books, {int(train.sum()):,} to learn from")
    print_table(rows, a)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
