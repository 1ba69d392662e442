"""The C tokenizer, counter and encoder against pure-Python truths."""

import collections
import os

import numpy as np
import pytest

from wv_engine import _tokenize

TEXT = (b"the quick brown fox\njumps over the lazy dog\n\n  the end\t of\r\nthe  story"
        b" caf\xc3\xa9 \xff\xfe bytes\n")


def python_counts(text: bytes):
    return collections.Counter(text.split())


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 64, 10**6])
def test_counts_do_not_depend_on_chunking(chunk):
    c = _tokenize.WordCounter()
    for i in range(0, len(TEXT), chunk):
        c.feed(TEXT[i:i + chunk])
    c.feed(b"", final=True)
    words, counts = c.sorted_words(1)
    assert dict(zip(words, counts.tolist())) == python_counts(TEXT)
    assert c.tokens == len(TEXT.split())
    assert c.newlines == TEXT.count(b"\n")


def test_sorted_by_count_then_bytes():
    c = _tokenize.WordCounter()
    c.feed(b"b a c b a d d d", final=True)
    words, counts = c.sorted_words(1)
    assert words == [b"d", b"a", b"b", b"c"]
    assert counts.tolist() == [3, 2, 2, 1]
    assert c.sorted_words(2)[0] == [b"d", b"a", b"b"]


def test_token_without_final_newline_is_counted():
    c = _tokenize.WordCounter()
    c.feed(b"alpha bet")
    c.feed(b"a", final=True)
    assert c.sorted_words(1)[0] == [b"alpha", b"beta"]


def test_pruning_bounds_the_table_like_word2vec_c():
    # 3 frequent words and many hapaxes: with max_size 50, hapaxes are pruned
    # but frequent words keep exact counts.
    text = b" ".join([b"x y z"] * 200 + [b"u%d" % i for i in range(1000)])
    c = _tokenize.WordCounter(max_size=50)
    c.feed(text, final=True)
    assert c.prunes > 0
    assert c.distinct <= 50
    words, counts = c.sorted_words(1)
    assert dict(zip(words[:3], counts[:3].tolist())) == {b"x": 200, b"y": 200, b"z": 200}


def test_long_token_is_cut_at_a_utf8_boundary():
    limit = _tokenize.MAX_TOKEN_BYTES
    word = "é".encode() * limit  # 2 bytes per character: the cut must not split one
    c = _tokenize.WordCounter()
    for i in range(0, len(word), 999):
        c.feed(word[i:i + 999])
    c.feed(b" next", final=True)
    words, _ = c.sorted_words(1)
    long_word = max(words, key=len)
    assert len(long_word) <= limit
    long_word.decode("utf-8")  # a whole number of characters
    assert c.truncated == 1
    assert b"next" in words


def test_encoder_ids_sentence_ends_and_oov():
    e = _tokenize.Encoder([b"the", b"fox", b"dog"])
    text = b"the fox\n\n\nunknown\nthe dog the"
    ids = np.concatenate([e.encode(text[:9]), e.encode(text[9:], final=True)])
    # repeated or empty lines give a single boundary; unknown words vanish
    assert ids.tolist() == [0, 1, -1, 0, 2, 0]
    assert e.oov == 1
    assert e.tokens == 6


def test_encoder_rejects_duplicates():
    with pytest.raises(ValueError, match="duplicate"):
        _tokenize.Encoder([b"a", b"b", b"a"])


def test_memory_stays_bounded_on_a_huge_line_without_spaces(tmp_path):
    # 512 MiB of one "word" fed in 8 MiB chunks: the counter must hold at most
    # MAX_TOKEN_BYTES of it, so the process grows by far less than one chunk.
    import subprocess
    import sys

    import wv_engine

    script = """
import resource, sys
from wv_engine import _tokenize
chunk = b"x" * (8 << 20)
c = _tokenize.WordCounter()
c.feed(b"start ")
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
for _ in range(64):
    c.feed(chunk)
c.feed(b" end", final=True)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
words, counts = c.sorted_words(1)
assert c.truncated == 1 and len(max(words, key=len)) == _tokenize.MAX_TOKEN_BYTES, (c.truncated, words)
print(after - before)
"""
    env = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(wv_engine.__file__))}
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert int(r.stdout) < 4 * 1024  # KiB: less than 4 MiB of growth for 512 MiB of input
