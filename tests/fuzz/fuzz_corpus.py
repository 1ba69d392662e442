"""Random corpus files (plain or compressed-looking bytes) through the
vocabulary builder, the encoder and one tiny training epoch of each kind."""

import sys

import atheris

with atheris.instrument_imports():
    import numpy as np

    from common import with_file
    from wv_engine import Word2Vec
    from wv_engine.glove import GloVe

KINDS = [("skipgram", "ns"), ("cbow", "hs"), ("skipgram", "softmax")]


def train(path: str, kind: int) -> None:
    if kind == 3:
        m = GloVe(dim=4, window=3, min_count=1, epochs=1, threads=2, memory_limit=1 << 20)
        m.fit(path, progress=False)
    else:
        arch, loss = KINDS[kind]
        m = Word2Vec(arch=arch, loss=loss, dim=4, window=2, min_count=1, epochs=1, threads=2,
                     max_sentence_length=7)
        m.fit(path, progress=False)
    assert np.isfinite(m.vectors.vectors).all()


def test_one(data: bytes) -> None:
    if not data:
        return
    with_file(data[1:], lambda p: train(p, data[0] % 4), ".txt")


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one)
    atheris.Fuzz()
