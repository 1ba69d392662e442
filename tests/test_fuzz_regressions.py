"""Inputs the fuzzers (tests/fuzz/) found that once escaped as the wrong
exception; each must now give a clear ValueError/FormatError."""

import base64
import struct

import pytest

from wv_engine import Vocabulary, cooccur
from wv_engine.io import FormatError


def test_vocabulary_count_beyond_64_bits(tmp_path):
    # fuzz_vocab_file: OverflowError from numpy
    path = tmp_path / "vocab.txt"
    path.write_bytes(base64.b64decode(
        "dHSb38bzYyAzCmhlIDkKYyAzCmUgOQpjIDMKaGUgOQpjIDMxMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExCg=="))
    with pytest.raises(ValueError, match="does not fit in 64 bits"):
        Vocabulary.load(path)


@pytest.mark.parametrize("value", [5e-324, 1e300])
def test_record_values_outside_float32(tmp_path, value):
    # fuzz_records: a denormal double became 0.0 in float32 and passed as a count
    path = tmp_path / "c.bin"
    path.write_bytes(struct.pack("<iid", 1, 2, value))
    with pytest.raises(FormatError, match="outside the range of float32"):
        cooccur.read_records(path, 2)
