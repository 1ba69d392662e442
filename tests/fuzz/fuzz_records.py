"""Random files to Stanford's co-occurrence record reader."""

import sys

import atheris

with atheris.instrument_imports():
    from common import with_file
    from wv_engine import cooccur


def test_one(data: bytes) -> None:
    if not data:
        return
    vocab_size = 1 + data[0] % 50
    m = with_file(data[1:], lambda p: cooccur.read_records(p, vocab_size))
    if m is not None:
        assert m.shape == (vocab_size, vocab_size)
        assert m.nnz == 0 or m.data.min() > 0


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one)
    atheris.Fuzz()
