"""Random files to Vocabulary.load ("word count" lines)."""

import sys

import atheris

with atheris.instrument_imports():
    from common import with_file
    from wv_engine import Vocabulary


def test_one(data: bytes) -> None:
    v = with_file(data, Vocabulary.load, ".txt")
    if v is not None:
        assert len(v) > 0 and (v.counts > 0).all()
        assert list(v.counts) == sorted(v.counts, reverse=True)


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one)
    atheris.Fuzz()
