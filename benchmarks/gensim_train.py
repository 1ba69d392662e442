"""Trains gensim Word2Vec in corpus_file mode and saves word2vec binary
(with --fasttext: gensim's FastText, saved as fastText's .bin).

Run as a subprocess by the benchmark (python -m benchmarks.gensim_train ...)
so that the whole process is timed and its peak RSS measured like every other
tool. Prints one JSON line with its own build_vocab and train seconds.

The corpus must have lines of at most 10,000 words: gensim's corpus_file mode
silently truncates longer lines (the benchmark passes a copy split into lines
of 1,000 words)."""

from __future__ import annotations

import argparse
import json
import sys
import time


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--corpus", required=True)
    p.add_argument("--output", required=True)
    p.add_argument("--sg", type=int, choices=(0, 1), required=True)
    p.add_argument("--hs", type=int, choices=(0, 1), required=True)
    p.add_argument("--negative", type=int, required=True)
    p.add_argument("--dim", type=int, default=100)
    p.add_argument("--window", type=int, default=5)
    p.add_argument("--sample", type=float, default=1e-4)
    p.add_argument("--min-count", type=int, default=5)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--alpha", type=float, required=True)
    p.add_argument("--min-alpha", type=float, required=True)
    p.add_argument("--workers", type=int, required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--fasttext", action="store_true",
                   help="gensim's FastText (character n-grams), saved with save_facebook_model")
    p.add_argument("--ns-exponent", type=float, default=0.75)
    p.add_argument("--minn", type=int, default=3)
    p.add_argument("--maxn", type=int, default=6)
    p.add_argument("--bucket", type=int, default=2_000_000)
    a = p.parse_args(argv)

    t0 = time.perf_counter()
    from gensim.models import FastText, Word2Vec
    from gensim.models.fasttext import save_facebook_model
    import_s = time.perf_counter() - t0

    settings = dict(vector_size=a.dim, window=a.window, negative=a.negative, hs=a.hs, sample=a.sample,
                    min_count=a.min_count, epochs=a.epochs, workers=a.workers, sg=a.sg, alpha=a.alpha,
                    min_alpha=a.min_alpha, seed=a.seed, ns_exponent=a.ns_exponent)
    if a.fasttext:
        model = FastText(min_n=a.minn, max_n=a.maxn, bucket=a.bucket, **settings)
    else:
        model = Word2Vec(**settings)
    t1 = time.perf_counter()
    model.build_vocab(corpus_file=a.corpus)
    t2 = time.perf_counter()
    model.train(corpus_file=a.corpus, total_words=model.corpus_total_words,
                total_examples=model.corpus_count, epochs=a.epochs)
    t3 = time.perf_counter()
    if a.fasttext:
        save_facebook_model(model, a.output)
    else:
        model.wv.save_word2vec_format(a.output, binary=True)
    t4 = time.perf_counter()
    print(json.dumps({
        "import_seconds": import_s,
        "build_vocab_seconds": t2 - t1,
        "train_seconds": t3 - t2,
        "save_seconds": t4 - t3,
        "corpus_words": int(model.corpus_total_words),
        "corpus_lines": int(model.corpus_count),
        "vocab_size": len(model.wv),
        "workers": a.workers,
    }))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
