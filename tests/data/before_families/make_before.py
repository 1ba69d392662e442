"""Writes the files tests/test_moved_paths.py loads: models, a checkpoint,
a phrase model and pickles, by the commit before the family folders
(53a1f40), run as: PYTHONPATH=<a build of 53a1f40> python make_before.py OUT."""
import pickle
import sys

import numpy as np

from wv_engine import FastText, GloVe, Phrases, Word2Vec

out = sys.argv[1]
rng = np.random.default_rng(0)
sentences = [[f"t{t}w{w}" for w in rng.integers(6, size=8)] for t in rng.integers(3, size=120)]
small = dict(dim=4, min_count=1, epochs=1, threads=1, seed=3)
w2v = Word2Vec(**small).fit(sentences)
w2v.save(f"{out}/word2vec.wv")
w2v.vectors.save(f"{out}/word2vec.txt", format="word2vec-txt")
ft = FastText(**small, bucket=20, minn=2, maxn=3).fit(sentences)
ft.save(f"{out}/fasttext.wv")
ft.vectors.save(f"{out}/fasttext.txt", format="word2vec-txt")
glove = GloVe(**small)
glove.fit(sentences)
glove.save_checkpoint(f"{out}/glove.npz")
glove.vectors.save(f"{out}/glove.txt", format="word2vec-txt")
phrases = Phrases(sentences, min_count=1, threshold=1.0)
phrases.save(f"{out}/model.phrases")
with open(f"{out}/phrases.txt", "w") as f:
    f.write("".join(f"{k}\t{v!r}\n" for k, v in sorted(phrases.phrases().items())))
for name, obj in (("word2vec", w2v), ("fasttext", ft), ("glove", glove), ("phrases", phrases)):
    with open(f"{out}/{name}.pickle", "wb") as f:
        pickle.dump(obj, f, protocol=4)
