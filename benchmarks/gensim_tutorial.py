"""gensim's "Word2Vec Model" tutorial, run unchanged except for the import,
with gensim and with wv_engine.gensim, timed; prints the speed ratio.

    python -m benchmarks.gensim_tutorial [--corpus /tmp/wiki_medium.txt]
    python -m benchmarks.gensim_tutorial --only wv_engine.gensim   # one side

The corpus is text8-style (one long line), read with Text8Corpus as
gensim's docs do for text8; the analogy and word-pair files are the ones
wv_engine ships (the same files gensim's tutorial uses). Each side runs in
its own process with the same settings (gensim's defaults where the tutorial
gives none)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

# The tutorial's code; IMPORT is the one line that differs.
TUTORIAL = '''
IMPORT
import tempfile

t0 = time.perf_counter()
sentences = Text8Corpus(CORPUS)
model = Word2Vec(sentences=sentences)                     # training on a corpus, gensim's defaults
train_seconds = time.perf_counter() - t0

vec_king = model.wv['king']
for index, word in enumerate(model.wv.index_to_key):
    if index == 10:
        break
    print(f"word #{index}/{len(model.wv.index_to_key)} is {word}")
print(model.wv.most_similar(positive=['car', 'truck'], topn=5))   # 'minivan' is not in this corpus
print(model.wv.doesnt_match(['fire', 'water', 'land', 'sea', 'air', 'car']))
pairs = [('car', 'truck'), ('car', 'bicycle'), ('car', 'airplane'), ('car', 'cereal'), ('car', 'communism')]
for w1, w2 in pairs:
    print('%r\\t%r\\t%.2f' % (w1, w2, model.wv.similarity(w1, w2)))

with tempfile.NamedTemporaryFile(prefix='gensim-model-', delete=False) as tmp:   # storing and loading
    temporary_filepath = tmp.name
    model.save(temporary_filepath)
    new_model = Word2Vec.load(temporary_filepath)

print(model.wv.evaluate_word_analogies(QUESTIONS)[0])   # evaluating
print(model.wv.evaluate_word_pairs(WORDSIM))

model = Word2Vec.load(temporary_filepath)                 # online training
more_sentences = [
    ['Advanced', 'users', 'can', 'load', 'a', 'model',
     'and', 'continue', 'training', 'it', 'with', 'more', 'sentences'],
]
model.build_vocab(more_sentences, update=True)
model.train(more_sentences, total_examples=model.corpus_count, epochs=model.epochs)
os.unlink(temporary_filepath)

t1 = time.perf_counter()                                  # training loss
model_with_loss = Word2Vec(sentences, min_count=1, compute_loss=True, hs=0, sg=1, seed=42)
training_loss = model_with_loss.get_latest_training_loss()
loss_seconds = time.perf_counter() - t1
print(training_loss)
'''

IMPORTS = {
    "gensim": "from gensim.models import Word2Vec\nfrom gensim.models.word2vec import Text8Corpus",
    "wv_engine.gensim": "from wv_engine.gensim import Word2Vec, Text8Corpus",
}


def run_one(impl: str, corpus: str) -> dict:
    from wv_engine.datasets import path as dataset_path

    code = TUTORIAL.replace("IMPORT", IMPORTS[impl])
    env = {"CORPUS": corpus, "QUESTIONS": dataset_path("questions-words"), "WORDSIM": dataset_path("wordsim353"),
           "time": time, "os": os, "__name__": "__tutorial__"}
    start = time.perf_counter()
    exec(compile(code, f"<tutorial with {impl}>", "exec"), env)
    return {"impl": impl, "total_seconds": time.perf_counter() - start, "train_seconds": env["train_seconds"],
            "loss_model_seconds": env["loss_seconds"], "vocab": len(env["new_model"].wv),
            "training_loss": float(env["training_loss"])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="/tmp/wiki_medium.txt")
    ap.add_argument("--only", choices=sorted(IMPORTS))
    args = ap.parse_args()
    if args.only:
        print("RESULT " + json.dumps(run_one(args.only, args.corpus)), flush=True)
        return
    results = {}
    for impl in IMPORTS:
        out = subprocess.run([sys.executable, "-m", "benchmarks.gensim_tutorial", "--corpus", args.corpus, "--only", impl],
                             check=True, capture_output=True, text=True).stdout
        print(f"---- {impl}\n" + "".join(l + "\n" for l in out.splitlines() if not l.startswith("RESULT ")))
        results[impl] = json.loads(next(l for l in out.splitlines() if l.startswith("RESULT "))[7:])
    g, w = results["gensim"], results["wv_engine.gensim"]
    for key in ("total_seconds", "train_seconds", "loss_model_seconds"):
        print(f"{key:>20}: gensim {g[key]:8.2f}  wv_engine.gensim {w[key]:8.2f}  ratio {g[key] / w[key]:6.2f}x")
    print(f"{'vocabulary':>20}: gensim {g['vocab']:,}  wv_engine.gensim {w['vocab']:,}")


if __name__ == "__main__":
    main()
