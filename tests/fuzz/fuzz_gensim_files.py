"""Random files to the gensim layer's Word2Vec.load and KeyedVectors.load
(gensim's pickles, read by wv_engine.gensim.pickled's restricted unpickler)."""

import sys

import atheris

with atheris.instrument_imports():
    from common import with_file
    from wv_engine.gensim import KeyedVectors, Word2Vec


def test_one(data: bytes) -> None:
    # the first byte picks the loader; a pickle must start with 0x80, so keep one at the front
    load = (Word2Vec.load, KeyedVectors.load)[data[:1] == b"\x01"] if data else Word2Vec.load
    with_file(b"\x80" + data[1:], load, ".model")


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one)
    atheris.Fuzz()
