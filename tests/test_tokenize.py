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


def test_sorted_by_count_then_first_seen():
    """Count descending, words of equal count in the order the text first
    shows them (word2vec.c's and gensim's order): b before a."""
    c = _tokenize.WordCounter()
    c.feed(b"b a c b a d d d", final=True)
    words, counts, firsts = c.sorted_words(1, with_firsts=True)
    assert words == [b"d", b"b", b"a", b"c"]
    assert counts.tolist() == [3, 2, 2, 1] and firsts.tolist() == [5, 0, 1, 2]
    assert c.sorted_words(2)[0] == [b"d", b"b", b"a"]


def test_counters_of_consecutive_parts_merge_into_the_first_seen_order():
    """Each part's counter numbers its tokens from its origin: merged, words
    of equal count keep the order of the whole text; counters whose
    positions overlap (the same origin) fall back on the bytes."""
    from wv_engine.shards import position_origin
    from wv_engine.wordcount import merge_counters

    parts = [b"z y", b"x w z", b"v x y w v"]  # z y x w v: first seen in that order, 2 each
    fed = [_tokenize.WordCounter(0, 2, position_origin(i)) for i in range(3)]
    for counter, text in zip(fed, parts):
        counter.feed(text, final=True)
    merged = merge_counters(fed)
    assert merged.sorted_words(1)[0] == [b"z", b"y", b"x", b"w", b"v"]
    same_origin = [_tokenize.WordCounter(0, 2) for _ in range(2)]
    same_origin[0].feed(b"b c", final=True)
    same_origin[1].feed(b"a d", final=True)  # a and b both at position 0, c and d at 1
    assert merge_counters(same_origin).sorted_words(1)[0] == [b"a", b"b", b"c", b"d"]


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


def test_sorted_blob_is_sorted_words_joined():
    c = _tokenize.WordCounter()
    c.feed(TEXT, final=True)
    for min_count in (1, 2, 99):
        words, counts = c.sorted_words(min_count)
        blob, blob_counts = c.sorted_blob(min_count)
        assert blob == b"\n".join(words)
        assert blob_counts.tolist() == counts.tolist()


def test_encoder_from_joined_words_and_copies_encode_alike():
    words = [b"the", b"fox", b"caf\xc3\xa9", b"\xff\xfe", b"dog"]
    text = b"the fox\n\ncaf\xc3\xa9 unknown \xff\xfe\nthe dog the"
    expected = _tokenize.Encoder(words).encode(text, final=True).tolist()
    assert expected == [0, 1, -1, 2, 3, -1, 0, 4, 0]
    joined = _tokenize.Encoder(b"\n".join(words))
    assert joined.encode(text, final=True).tolist() == expected
    original = _tokenize.Encoder(words)
    original.encode(b"the fox", final=False)  # a copy starts afresh, whatever the original read
    copy = original.copy()
    assert copy.encode(text, final=True).tolist() == expected
    assert copy.oov == 1 and copy.tokens == 8
    # mid_sentence: a newline before the first word ends the sentence begun before
    assert original.copy(mid_sentence=True).encode(b"\nfox", final=True).tolist() == [-1, 1]
    with pytest.raises(ValueError, match="duplicate"):
        _tokenize.Encoder(b"a\nb\na")


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


def _messy_bytes(rng, n_tokens):
    """Tokens that stress the sorted selection: shared 8-byte prefixes,
    NUL and high bytes, invalid UTF-8, lengths around 8 and up to the cap."""
    stems = [b"", b"a", b"abcdefgh", b"abcdefg", b"abcdefghi", b"\x00", b"\xff\xfe", b"caf\xc3\xa9", b"\x80" * 9]
    tokens = []
    for _ in range(n_tokens):
        stem = stems[rng.integers(len(stems))]
        tail = bytes(rng.integers(0, 256, rng.integers(0, 4)).tolist())
        tok = (stem + tail).translate(None, b" \t\n\r\v\f") or b"x"
        if rng.random() < 0.01:  # a few past the 1,024-byte cap (ASCII: cut exactly there)
            tok = b"L" * int(rng.integers(1000, 1100)) + tok.hex().encode()
        tokens.append(tok)
    seps = [b" ", b"\n", b"\t", b"  ", b"\r\n"]
    return b"".join(t + seps[rng.integers(len(seps))] for t in tokens)


def _python_sorted(counts: collections.Counter, min_count: int):
    """By count descending; a Counter of the text's tokens holds its words in
    first-seen order, which the stable sort keeps among equal counts."""
    kept = [(w, n) for w, n in counts.items() if n >= min_count]
    kept.sort(key=lambda wn: -wn[1])
    return [w for w, _ in kept], [n for _, n in kept]


@pytest.mark.parametrize("seed", range(4))
def test_min_count_selection_in_c_equals_python(seed):
    """sorted_words(min_count) against Python's sort of Python's counts, for
    every min_count up to past the largest count; distinct and max_count."""
    rng = np.random.default_rng(seed)
    text = _messy_bytes(rng, 20_000)
    c = _tokenize.WordCounter()
    c.feed(text, final=True)
    truth = collections.Counter(w[:_tokenize.MAX_TOKEN_BYTES] for w in text.split())
    assert c.truncated > 0 and c.distinct == len(truth) and c.max_count == max(truth.values())
    for min_count in (1, 2, 3, 5, 17, 100, max(truth.values()), max(truth.values()) + 1):
        words, counts = c.sorted_words(min_count)
        assert (words, counts.tolist()) == _python_sorted(truth, min_count)


def test_large_vocabulary_grows_tables_and_merges_by_part():
    """300,000 distinct words (every table grows many times) counted in 5
    pieces into 4 parts, merged part by part: the counts one counter gives,
    and Python's."""
    from wv_engine.shards import position_origin
    from wv_engine.wordcount import count_chunks, merge_counters

    rng = np.random.default_rng(3)
    ids = np.minimum(rng.zipf(1.3, 900_000), 299_999)
    ids[:300_000] = np.arange(300_000)  # every id at least once
    rng.shuffle(ids)
    tokens = [b"w%x" % i for i in ids.tolist()]
    pieces = [b" ".join(tokens[i::5]) + b"\n" for i in range(5)]
    one = count_chunks(pieces)
    counters = [count_chunks([p[:len(p) // 2], p[len(p) // 2:]], parts=4, origin=position_origin(i))
                for i, p in enumerate(pieces)]
    merged = merge_counters(counters)
    assert merged.parts == 4 and merged.distinct == one.distinct == 300_000
    assert (merged.tokens, merged.newlines, merged.max_count) == (one.tokens, one.newlines, one.max_count)
    words, counts = merged.sorted_words(1)
    in_piece_order = [t for i in range(5) for t in tokens[i::5]]
    assert (words, counts.tolist()) == _python_sorted(collections.Counter(in_piece_order), 1)
    w1, c1 = one.sorted_words(2)
    w2, c2 = merged.sorted_words(2)
    assert w1 == w2 and c1.tolist() == c2.tolist()
    assert sum(c.distinct for c in counters) < 300_000 * 5  # some tables were taken over


def test_encoder_batches_keep_sentence_ends_in_order():
    """Tokens are looked up a batch at a time: ids and sentence ends still
    come out in text order, across batch and chunk boundaries."""
    words = [b"w%d" % i for i in range(100)]
    enc = _tokenize.Encoder(words)
    rng = np.random.default_rng(0)
    lines = [[b"w%d" % i if i < 100 else b"x%d" % i for i in rng.integers(0, 130, rng.integers(0, 80))]
             for _ in range(300)]
    text = b"\n".join(b" ".join(line) for line in lines) + b"\n"
    ids = np.concatenate([enc.encode(text[i:i + 997]) for i in range(0, len(text), 997)] + [enc.encode(b"", final=True)])
    expected = []
    for line in lines:
        known = [int(w[1:]) for w in line if w.startswith(b"w")]
        expected += known + ([-1] if known else [])
    assert ids.tolist() == expected


def test_encoder_takes_words_longer_than_any_token():
    """A vocabulary word past MAX_TOKEN_BYTES (past what a table slot can
    hold, even) can never be met, but keeps its place in the ids."""
    enc = _tokenize.Encoder([b"x" * 70_000, b"a", b"y" * 2_000, b"b"])
    assert enc.encode(b"b a x y\n", final=True).tolist() == [3, 1, -1]


def test_encode_into_writes_what_encode_returns():
    words = [b"the", b"fox", b"dog"]
    text = b"the fox\n\nunknown dog\nthe"
    expected = _tokenize.Encoder(words).encode(text, final=True)
    out = np.full(len(text) + 2, 99, dtype=np.int32)
    k = _tokenize.Encoder(words).encode_into(text, out, final=True)
    assert out[:k].tolist() == expected.tolist() and np.all(out[k:] == 99)
    with pytest.raises(Exception, match="overflow"):  # a buffer too small is refused, not overrun
        _tokenize.Encoder(words).encode_into(text, np.zeros(2, np.int32), final=True)


@pytest.mark.parametrize("seed", range(3))
def test_provisional_ids_resolve_to_the_encoders_ids(seed):
    """Counters fed byte ranges with feed_ids, merged by part, numbered with
    the merged vocabulary: each range's resolved ids are what an Encoder of
    that vocabulary writes for it (mid-sentence ranges included), on text
    with invalid UTF-8, NUL bytes, CRLF and tokens cut at the cap."""
    from wv_engine.wordcount import merge_counters

    rng = np.random.default_rng(seed)
    text = _messy_bytes(rng, 4000)
    for parts in (1, 2, 3, 4):
        cuts = sorted(int(c) for c in rng.integers(0, len(text), parts - 1))
        ranges = [text[a:b] for a, b in zip([0] + cuts, cuts + [len(text)])]
        counters, ids = [], []
        for r in ranges:
            counter = _tokenize.WordCounter(0, parts)
            out = np.empty(len(r) + 2, np.int32)
            n = 0
            for i in range(0, len(r), 61):
                n += counter.feed_ids(r[i:i + 61], out[n:])
            n += counter.feed_ids(b"", out[n:], final=True)
            counters.append(counter)
            ids.append(out[:n])
        merged = merge_counters(counters) if parts > 1 else counters[0]
        blob, _ = merged.sorted_blob(2)
        merged.number(blob)
        for i, (counter, r) in enumerate(zip(counters, ranges)):
            kept, oov, eos = counter.resolve_ids(merged, ids[i], mid_sentence=i > 0)
            encoder = _tokenize.Encoder(blob, mid_sentence=i > 0)
            truth = np.concatenate([encoder.encode(r), encoder.encode(b"", final=True)])
            np.testing.assert_array_equal(ids[i][:kept], truth)
            assert (oov, eos) == (encoder.oov, int(np.count_nonzero(truth == -1)))


def test_provisional_ids_refuse_what_they_cannot_resolve():
    """Pruning counters cannot write ids; ids resolved twice, ids from
    elsewhere and a word the count never saw are clear errors."""
    pruning = _tokenize.WordCounter(10)
    with pytest.raises(ValueError, match="prunes"):
        pruning.feed_ids(b"a b c", np.empty(8, np.int32))
    counter = _tokenize.WordCounter(0, 2)
    ids = np.empty(16, np.int32)
    n = counter.feed_ids(b"a b a\nc d", ids, final=True)
    with pytest.raises(ValueError, match="does not hold"):
        counter.number(b"a\nzebra")
    counter.number(b"a\nb")
    with pytest.raises(ValueError, match="provisional ids"):
        counter.resolve_ids(counter, np.array([123456789], np.int32))
    kept, oov, eos = counter.resolve_ids(counter, ids[:n])
    assert ids[:kept].tolist() == [0, 1, 0, -1] and (oov, eos) == (2, 1)
    other = _tokenize.WordCounter(0, 2)
    other.feed_ids(b"a b", ids, final=True)
    with pytest.raises(ValueError, match="provisional ids"):  # counted apart, never merged into counter
        other.resolve_ids(counter, ids[:2])
