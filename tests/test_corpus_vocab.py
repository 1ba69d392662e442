"""Reading corpora (compressed files, iterables, memory-mapped ids) and the
vocabulary's rules (max_final_vocab, save/load, memory estimate)."""

import bz2
import gzip
import lzma

import numpy as np
import pytest

from wv_engine import CorpusError, Vocabulary, Word2Vec
from wv_engine.corpus import collect_ids, encode, iter_chunks

LINES = ["the cat sat on the mat", "the dog ate the cat", "a b c d e f the"]


@pytest.mark.parametrize("opener,name", [(gzip.open, "c.txt.gz"), (bz2.open, "c.bz2"), (lzma.open, "c.xz"),
                                         (gzip.open, "misleading.txt")])
def test_compressed_corpora_read_like_plain_text(tmp_path, opener, name):
    text = ("\n".join(LINES) + "\n").encode()
    plain = tmp_path / "plain.txt"
    plain.write_bytes(text)
    packed = tmp_path / name
    with opener(packed, "wb") as f:
        f.write(text)
    a, b = Vocabulary.build(str(plain), min_count=1), Vocabulary.build(str(packed), min_count=1)
    assert a.words == b.words and a.counts.tolist() == b.counts.tolist()


def test_damaged_gzip_is_a_clear_error(tmp_path):
    from wv_engine import CorpusError

    path = tmp_path / "broken.gz"
    words = " ".join(f"w{i}" for i in np.random.default_rng(0).integers(0, 10**6, 20000))
    with gzip.open(path, "wb") as f:
        f.write(words.encode())
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(CorpusError, match="cannot read corpus"):
        Vocabulary.build(str(path), min_count=1)


def test_chunks_split_tokens_but_counts_do_not_change(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text("\n".join(LINES * 50) + "\n")
    chunks = list(iter_chunks(str(path), chunk_bytes=7))
    assert len(chunks) > 100 and b"".join(chunks) == path.read_bytes()
    assert Vocabulary.build(str(path), min_count=1).counts.sum() == sum(len(x.split()) for x in LINES) * 50


def test_max_final_vocab_raises_min_count_just_enough():
    corpus = [["a"] * 10 + ["b"] * 8 + ["c"] * 8 + ["d"] * 3 + ["e"] * 2]
    # b and c tie at 8: a cap of 2 cannot keep one without the other
    assert Vocabulary.build(corpus, min_count=1, max_final_vocab=2).words == ["a"]
    assert Vocabulary.build(corpus, min_count=1, max_final_vocab=3).words == ["a", "b", "c"]
    assert Vocabulary.build(corpus, min_count=1, max_final_vocab=4).words == ["a", "b", "c", "d"]
    assert Vocabulary.build(corpus, min_count=3, max_final_vocab=10).words == ["a", "b", "c", "d"]


@pytest.mark.parametrize("max_final_vocab", [None, 3])
def test_counted_words_decode_one_by_one_and_join_back(tmp_path, max_final_vocab):
    # bytes that are not UTF-8 (and a split character) decode with surrogateescape, word by word
    raw = [b"caf\xc3\xa9", b"\xff\xfe", b"plain", b"\xc3", b"x\xe2\x82"]
    text = b" ".join(w for i, w in enumerate(raw) for _ in range(10 - i)) + b"\n"
    (tmp_path / "c.txt").write_bytes(text)
    vocab = Vocabulary.build(str(tmp_path / "c.txt"), min_count=1, max_final_vocab=max_final_vocab)
    kept = raw[:len(vocab)]
    assert len(kept) == (3 if max_final_vocab else 5)
    assert vocab.words == [w.decode("utf-8", "surrogateescape") for w in kept]
    assert vocab.words_as_bytes() == kept
    assert vocab.words_joined() == b"\n".join(kept)
    same = Vocabulary(vocab.words, vocab.counts)  # not from a count: made from the str words
    assert same.words_joined() == vocab.words_joined() and same.words_as_bytes() == kept


def test_vocabulary_save_load_round_trip(tmp_path):
    v = Vocabulary.build([["x", "y", "y", "z", "z", "z", "caf\udce9"]], min_count=1)
    path = tmp_path / "vocab.txt"
    v.save(path)
    assert path.read_bytes().startswith(b"z 3\ny 2\n")
    w = Vocabulary.load(path)
    assert w.words == v.words and w.counts.tolist() == v.counts.tolist()
    path.write_text("a 3\nb notanumber\n")
    with pytest.raises(ValueError, match=":2: expected 'word count'"):
        Vocabulary.load(path)


def test_memory_mapped_ids_equal_in_memory_ids(tmp_path):
    corpus = [s.split() for s in LINES] * 20
    v = Vocabulary.build(corpus, min_count=1)
    in_memory = encode(corpus, v.words_as_bytes())
    mapped = encode(corpus, v.words_as_bytes(), cache_path=str(tmp_path / "ids.bin"))
    assert isinstance(mapped.ids, np.memmap)
    np.testing.assert_array_equal(in_memory.ids, mapped.ids)
    assert (in_memory.tokens, in_memory.words, in_memory.sentences) == (mapped.tokens, mapped.words, 60)
    m = Word2Vec(dim=8, min_count=1, epochs=1, threads=1)
    m.build_vocab(vocab=v)
    assert m.train(mapped, progress=False).corpus_words == mapped.words


def test_memory_estimate_counts_the_matrices():
    v = Vocabulary([f"w{i}" for i in range(1000)], np.arange(1000, 0, -1))
    est = v.memory_estimate(dim=100, loss="ns")
    assert est["input_vectors"] == est["output_vectors"] == 1000 * 100 * 4
    assert est["total"] >= 2 * 1000 * 100 * 4
    assert v.memory_estimate(dim=100, loss="hs")["output_vectors"] == 1000 * 100 * 4  # the last row unused, as gensim


def test_a_model_larger_than_memory_is_refused_before_allocating(monkeypatch):
    from wv_engine import memory

    monkeypatch.setattr(memory, "available_memory", lambda: 10 * 2**20)  # pretend 10 MiB are free
    v = Vocabulary([f"w{i}" for i in range(100_000)], np.arange(100_000, 0, -1))
    with pytest.raises(MemoryError, match=r"needs about 0\.\d\d GiB but only 0\.01 GiB is available; raise min_count"):
        Word2Vec(dim=300).build_vocab(vocab=v)


def test_ctrl_c_while_encoding_to_a_cache_file_leaves_nothing(tmp_path, monkeypatch):
    from wv_engine import corpus as corpus_module

    v = Vocabulary.build([s.split() for s in LINES], min_count=1)
    real = corpus_module.iter_chunks

    def interrupted(source, *args):
        yield from real(source, *args)
        raise KeyboardInterrupt  # as if Ctrl-C came after the first chunks were written

    monkeypatch.setattr(corpus_module, "iter_chunks", interrupted)
    with pytest.raises(KeyboardInterrupt):
        encode([s.split() for s in LINES], v.words_as_bytes(), cache_path=str(tmp_path / "ids.bin"))
    assert list(tmp_path.iterdir()) == []


def _messy_text(rng, n_lines):
    """Lines of vocabulary and unknown words with every kind of separator:
    blank lines, CRLF, tabs, runs of spaces, lines of unknown words only."""
    seps = [" ", "  ", "\t", " \t "]
    lines = []
    for _ in range(n_lines):
        kind = rng.random()
        if kind < 0.1:
            lines.append("")
        elif kind < 0.2:
            lines.append(" ".join(f"zz{rng.integers(100)}" for _ in range(rng.integers(1, 4))))
        else:
            words = [f"w{rng.integers(30)}" if rng.random() < 0.8 else f"zz{rng.integers(100)}"
                     for _ in range(rng.integers(1, 15))]
            lines.append("".join(w + seps[rng.integers(len(seps))] for w in words).rstrip())
    ends = ["\n", "\r\n", "\n\n", " \n"]
    head = "\n\n" if rng.random() < 0.5 else ""
    text = head + "".join(line + ends[rng.integers(len(ends))] for line in lines)
    return text if rng.random() < 0.5 else text.rstrip("\n")


@pytest.mark.parametrize("seed", range(6))
def test_encoding_on_several_threads_gives_the_one_pass_ids(tmp_path, monkeypatch, seed):
    """Byte ranges encoded at once and joined: the same ids, sentence ends
    included, as one pass, wherever the cuts fall (next to newlines, unknown
    words, blank lines) and whatever the chunk size."""
    import wv_engine.corpus as corpus_module

    monkeypatch.setattr(corpus_module, "PARALLEL_MIN_BYTES", 0)
    rng = np.random.default_rng(seed)
    path = tmp_path / "messy.txt"
    path.write_bytes(_messy_text(rng, 400).encode())
    words = [f"w{i}".encode() for i in range(30)]
    one = encode(str(path), words, chunk_bytes=1 << 20)
    assert one.words > 1000 and one.sentences > 100
    for threads in range(2, 12):
        for chunk_bytes in (7, 1 << 20):
            many = encode(str(path), words, chunk_bytes=chunk_bytes, threads=threads)
            np.testing.assert_array_equal(many.ids, one.ids)
            assert (many.tokens, many.words, many.oov, many.sentences) == \
                (one.tokens, one.words, one.oov, one.sentences)
    spill = tmp_path / "ids"
    spill.mkdir()
    for threads in (1, 2, 5, 11):  # ids written to disk by each thread, then joined there
        on_disk = encode(str(path), words, chunk_bytes=1 << 10, threads=threads, on_disk=True, tmp_dir=str(spill))
        assert isinstance(on_disk.ids, np.memmap) and on_disk.file is not None
        np.testing.assert_array_equal(on_disk.ids, one.ids)
        assert (on_disk.tokens, on_disk.words, on_disk.oov, on_disk.sentences) == \
            (one.tokens, one.words, one.oov, one.sentences)
        assert list(spill.iterdir()) == []  # unlinked at creation
        cached = encode(str(path), words, cache_path=str(tmp_path / f"c{threads}.ids"), threads=threads)
        np.testing.assert_array_equal(np.fromfile(tmp_path / f"c{threads}.ids", dtype=np.int32), one.ids)
        assert cached.sentences == one.sentences


@pytest.mark.parametrize("seed", range(4))
def test_counting_with_ids_encodes_as_a_second_pass_does(tmp_path, monkeypatch, seed):
    """The provisional ids kept while counting (count_with_ids), resolved for
    the vocabulary of that count: the same vocabulary as Vocabulary.build and
    the same ids, sentence ends and totals as encoding in a pass of its own,
    wherever the byte ranges and reads are cut."""
    import wv_engine.corpus as corpus_module
    import wv_engine.wordcount as wordcount_module
    from wv_engine.wordcount import count_with_ids

    monkeypatch.setattr(corpus_module, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(wordcount_module, "IDS_CHUNK_BYTES", 7 if seed % 2 else 1 << 20)
    rng = np.random.default_rng(seed)
    path = tmp_path / "messy.txt"
    path.write_bytes(_messy_text(rng, 500).encode())
    for threads in (2, 3, 5, 8):
        for min_count in (1, 4):
            counter, counted = count_with_ids(str(path), threads, 1 << 30)
            assert counted is not None
            vocab = Vocabulary.from_counter(counter, str(path), min_count)
            truth = Vocabulary.build(str(path), min_count=min_count)
            assert vocab.words == truth.words and vocab.counts.tolist() == truth.counts.tolist()
            got = counted.encode(vocab.words_joined())
            one = encode(str(path), vocab.words_joined())
            assert (one.oov > 0) == (min_count > 1) and one.sentences > 100
            np.testing.assert_array_equal(got.ids, one.ids)
            assert (got.tokens, got.words, got.oov, got.sentences) == (one.tokens, one.words, one.oov, one.sentences)
            with pytest.raises(RuntimeError, match="already encoded"):
                counted.encode(vocab.words_joined())


def test_counting_with_ids_past_their_room_counts_only(tmp_path, monkeypatch):
    """Ids that would take more than the room given are given up (the count
    is whole: encode in a pass of its own)."""
    import wv_engine.corpus as corpus_module
    from wv_engine.wordcount import count_with_ids

    monkeypatch.setattr(corpus_module, "PARALLEL_MIN_BYTES", 0)
    path = tmp_path / "c.txt"
    path.write_text(_messy_text(np.random.default_rng(9), 3000))
    counter, counted = count_with_ids(str(path), 2, 1024)
    assert counted is None
    vocab, truth = Vocabulary.from_counter(counter, str(path), 1), Vocabulary.build(str(path), min_count=1)
    assert vocab.words == truth.words and vocab.counts.tolist() == truth.counts.tolist()


def test_word2vec_encodes_while_counting(tmp_path, monkeypatch):
    """build_vocab on a plain file with threads encodes it from the ids kept
    while counting, and encode() of the unchanged file gives those: the ids
    of a pass of its own. A file changed in between, or ids asked on disk,
    are encoded from the text."""
    import wv_engine.corpus as corpus_module

    monkeypatch.setattr(corpus_module, "PARALLEL_MIN_BYTES", 0)
    rng = np.random.default_rng(3)
    path = tmp_path / "c.txt"
    path.write_text(_messy_text(rng, 2000))
    model = Word2Vec(dim=8, min_count=2, threads=3)
    model.build_vocab(str(path))
    kept = model._input._encoded  # encoded from the count's ids
    assert kept is not None
    got = model.encode(str(path))
    assert got is kept
    one = encode(str(path), model.vocab.words_joined())
    np.testing.assert_array_equal(got.ids, one.ids)
    assert (got.words, got.oov, got.sentences, got.source) == (one.words, one.oov, one.sentences, one.source)

    model.build_vocab(str(path))
    path.write_text(_messy_text(rng, 2000))  # changed after counting: its text is encoded again
    got = model.encode(str(path))
    np.testing.assert_array_equal(got.ids, encode(str(path), model.vocab.words_joined()).ids)

    on_disk = Word2Vec(dim=8, min_count=2, threads=3, ids_on_disk=True, tmp_dir=str(tmp_path))
    on_disk.build_vocab(str(path))
    assert on_disk._input._encoded is None
    assert isinstance(on_disk.encode(str(path)).ids, np.memmap)


@pytest.mark.parametrize("seed", range(3))
def test_counting_on_several_threads_gives_the_one_pass_vocabulary(tmp_path, monkeypatch, seed):
    """Byte ranges counted at once and added up: the same words, counts,
    order and token totals as one pass."""
    import wv_engine.corpus as corpus_module

    monkeypatch.setattr(corpus_module, "PARALLEL_MIN_BYTES", 0)
    rng = np.random.default_rng(seed)
    path = tmp_path / "messy.txt"
    path.write_bytes(_messy_text(rng, 600).encode())
    one = Vocabulary.build(str(path), min_count=1)
    assert len(one) > 100
    for threads in (2, 3, 5, 8):
        many = Vocabulary.build(str(path), min_count=1, threads=threads)
        assert many.words == one.words
        np.testing.assert_array_equal(many.counts, one.counts)
        assert (many.total_tokens, many.distinct_words) == (one.total_tokens, one.distinct_words)


def _word2vec_c_pruned_counts(tokens, max_size):
    """word2vec.c's counting with ReduceVocab, in Python: the model the C
    counter follows on each byte range."""
    counts, min_reduce = {}, 1
    for t in tokens:
        counts[t] = counts.get(t, 0) + 1
        if len(counts) > max_size:
            counts = {w: n for w, n in counts.items() if n > min_reduce}
            min_reduce += 1
    return counts


@pytest.mark.parametrize("threads", [2, 3, 4])
def test_pruning_on_several_threads(tmp_path, monkeypatch, threads):
    """max_vocab_size with threads: each byte range is pruned as word2vec.c
    prunes at max_vocab_size // threads words, then the counts add up. So
    at most max_vocab_size words are held, every count is a lower bound,
    the frequent words (on every line) are exact, and the result is the
    same at every run."""
    import collections

    import wv_engine.corpus as corpus_module
    from wv_engine.shards import iter_shard, make_shards
    from wv_engine.wordcount import count_corpus

    monkeypatch.setattr(corpus_module, "PARALLEL_MIN_BYTES", 0)
    rng = np.random.default_rng(threads)
    frequent = [f"f{i}" for i in range(8)]
    lines = [" ".join(frequent + [f"r{rng.integers(5000)}" for _ in range(rng.integers(1, 12))])
             for _ in range(3000)]
    path = tmp_path / "c.txt"
    path.write_text("\n".join(lines) + "\n")
    truth = collections.Counter(path.read_bytes().split())
    limit = 200
    counter = count_corpus(str(path), limit, threads)
    assert counter.prunes > 0 and counter.distinct <= limit and counter.parts == threads
    model = collections.Counter()
    for shard in make_shards(str(path), threads):
        model.update(_word2vec_c_pruned_counts(b"".join(iter_shard(shard)).split(), limit // threads))
    words, counts = counter.sorted_words(1)
    assert dict(zip(words, counts.tolist())) == dict(model)
    assert all(n <= truth[w] for w, n in zip(words, counts.tolist()))
    vocab = Vocabulary.build(str(path), min_count=1, max_vocab_size=limit, threads=threads)
    assert {w: int(n) for w, n in zip(vocab.words, vocab.counts) if w in frequent} == \
        {w: truth[w.encode()] for w in frequent}
    assert vocab.total_tokens == sum(truth.values()) and vocab.distinct_words == counter.distinct
    again = Vocabulary.build(str(path), min_count=1, max_vocab_size=limit, threads=threads)
    assert again.words == vocab.words and again.counts.tolist() == vocab.counts.tolist()


def test_counters_that_prune_are_not_merged():
    from wv_engine import _tokenize

    a, b = _tokenize.WordCounter(), _tokenize.WordCounter(10)
    a.feed(b"x y", final=True)
    b.feed(b"y z", final=True)
    with pytest.raises(ValueError, match="cannot be merged exactly"):
        a.merge(b)
    c = _tokenize.WordCounter()
    c.feed(b"y z z", final=True)
    a.merge(c)
    words, counts = a.sorted_words(1)
    assert dict(zip(words, counts.tolist())) == {b"x": 1, b"y": 2, b"z": 2} and a.tokens == 5


def test_collect_ids_equals_concatenation_across_growth():
    """The growing buffer against np.concatenate: pieces of 0 to 90,000 ids
    (the buffer starts at 65,536 and doubles), read once from a generator."""
    rng = np.random.default_rng(9)
    pieces = [rng.integers(-1, 1000, int(n)).astype(np.int32) for n in rng.integers(0, 90_000, 40)]
    pieces[3] = pieces[3][:0]
    out = collect_ids(p for p in pieces)
    assert out.dtype == np.int32 and out.flags.owndata
    np.testing.assert_array_equal(out, np.concatenate(pieces))
    assert len(collect_ids(iter([]))) == 0


def test_a_resolved_corpus_trains_as_its_path_does(tmp_path, topics_corpus):
    """Corpus(path) goes wherever a corpus goes, to the same vectors; it is
    checked once, where it is made (a missing file fails there)."""
    from wv_engine import Corpus, GloVe

    _, sentences = topics_corpus
    path = tmp_path / "c.txt"
    path.write_text("\n".join(" ".join(s) for s in sentences) + "\n")
    settings = dict(dim=8, epochs=1, min_count=1, threads=1, seed=3)
    by_path = Word2Vec(**settings).fit(str(path), progress=False)
    resolved = Corpus(str(path))
    assert (resolved.path, resolved.size, resolved.compressed) == (str(path), path.stat().st_size, False)
    by_corpus = Word2Vec(**settings).fit(resolved, progress=False)
    np.testing.assert_array_equal(by_path.input_vectors, by_corpus.input_vectors)
    glove = dict(dim=4, epochs=1, min_count=1, threads=1, window=3)
    np.testing.assert_array_equal(GloVe(**glove).fit(str(path), progress=False).vectors.vectors,
                                  GloVe(**glove).fit(resolved, progress=False).vectors.vectors)
    with pytest.raises(CorpusError, match="not found"):
        Corpus(str(tmp_path / "missing.txt"))
