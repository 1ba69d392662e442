"""What benchmarks.doc2vec runs in a process of its own: gensim's Doc2Vec,
and the inference of wv_engine's timed as gensim's is.

    python -m benchmarks.doc2vec_child train DOCS MODE ARCH EPOCHS THREADS OUT_DIR [SEED]
    python -m benchmarks.doc2vec_child infer OUT_DIR HELD N
    python -m benchmarks.doc2vec_child infer-ours MODEL HELD N THREADS OUT_DIR

train: MODE "file" (corpus_file) or "iter" (TaggedLineDocument), ARCH "dbow"
or "dm"; gensim's defaults otherwise (dim 100, window 5, 5 negatives,
min_count 5, sample 1e-3); writes OUT_DIR/model and OUT_DIR/dv.npy (row i:
line i). infer: infer_vector on each of the first N lines of HELD, one
after another as gensim offers it; writes OUT_DIR/inferred.npy and the
inference's seconds (model load excluded) to OUT_DIR/infer.json.
infer-ours: the same with wv_engine's Doc2Vec.infer, the N documents at
once on THREADS threads (the lines read and the model loaded first)."""

from __future__ import annotations

import json
import os
import sys
import time

import numpy as np


def train(docs: str, mode: str, arch: str, epochs: int, threads: int, out: str, seed: int = 1) -> None:
    from gensim.models.doc2vec import Doc2Vec, TaggedLineDocument

    settings = dict(dm=1 if arch == "dm" else 0, dbow_words=1 if arch == "dbow+w" else 0, vector_size=100, window=5,
                    negative=5, min_count=5, sample=1e-3, epochs=epochs, workers=threads, seed=seed)
    if mode == "file":
        model = Doc2Vec(corpus_file=docs, **settings)
    else:
        model = Doc2Vec(TaggedLineDocument(docs), **settings)
    model.save(os.path.join(out, "model"))
    np.save(os.path.join(out, "dv.npy"), np.stack([model.dv[i] for i in range(len(model.dv))]))
    model.wv.save_word2vec_format(os.path.join(out, "words.bin"), binary=True)


def infer(out: str, held: str, n: int) -> None:
    from gensim.models.doc2vec import Doc2Vec

    model = Doc2Vec.load(os.path.join(out, "model"))
    with open(held, encoding="utf-8") as f:
        docs = [line.split() for _, line in zip(range(n), f)]
    t0 = time.perf_counter()
    vectors = np.stack([model.infer_vector(words) for words in docs])
    seconds = time.perf_counter() - t0
    np.save(os.path.join(out, "inferred.npy"), vectors)
    with open(os.path.join(out, "infer.json"), "w") as f:
        json.dump({"documents": len(docs), "seconds": seconds}, f)


def infer_ours(model_path: str, held: str, n: int, threads: int, out: str) -> None:
    from wv_engine import Doc2Vec

    model = Doc2Vec.load(model_path)
    with open(held, encoding="utf-8") as f:
        docs = [line.split() for _, line in zip(range(n), f)]
    t0 = time.perf_counter()
    vectors = model.infer(docs, threads=threads)
    seconds = time.perf_counter() - t0
    np.save(os.path.join(out, "inferred.npy"), vectors)
    with open(os.path.join(out, "infer.json"), "w") as f:
        json.dump({"documents": len(docs), "seconds": seconds}, f)


if __name__ == "__main__":
    if sys.argv[1] == "infer-ours":
        infer_ours(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6])
    elif sys.argv[1] == "train":
        train(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6]), sys.argv[7],
              int(sys.argv[8]) if len(sys.argv) > 8 else 1)
    else:
        infer(sys.argv[2], sys.argv[3], int(sys.argv[4]))
