"""fastText's .bin both ways and `wv-engine fasttext`: a tiny .bin written
byte by byte here from fastText's documented layout, round trips, and
damaged, foreign or lying files refused with FormatError."""

import struct

import numpy as np
import pytest

from wv_engine import FastText, FormatError, load_vectors
from wv_engine.cli import main
from wv_engine.fasttext import read_fasttext_bin
from wv_engine.gensim.fasttext import load_facebook_model



def fasttext_bin_bytes(words, counts, inp, out, *, minn=3, maxn=4, bucket=10, model=2, loss=2, version=12,
                       nlabels=0, quant=0, pruned=-1, magic=793712314, word_ngrams=1):
    """A .bin as fastText writes one (src/fasttext.cc saveModel, args.cc, dictionary.cc, densematrix.cc)."""
    dim = inp.shape[1]
    b = struct.pack("<ii", magic, version)
    b += struct.pack("<12id", dim, 5, 5, 1, 5, word_ngrams, loss, model, bucket, minn, maxn, 100, 1e-4)
    b += struct.pack("<iiiqq", len(words), len(words) - nlabels, nlabels, sum(counts), pruned)
    for w, c in zip(words, counts):
        b += w.encode() + b"\0" + struct.pack("<qb", c, 0)
    for q, m in ((quant, inp), (0, out)):
        b += struct.pack("<b", q) + struct.pack("<qq", *m.shape) + m.astype("<f4").tobytes()
    return b


@pytest.fixture
def tiny_bin(tmp_path):
    words, counts = ["hello", "</s>"], [7, 3]
    rng = np.random.default_rng(0)
    inp = rng.normal(size=(2 + 10, 4)).astype(np.float32)
    out = rng.normal(size=(2, 4)).astype(np.float32)
    path = tmp_path / "tiny.bin"
    path.write_bytes(fasttext_bin_bytes(words, counts, inp, out))
    return path, inp, out


def test_a_bin_written_by_the_layout_gives_fastTexts_vectors(tiny_bin, truth):
    path, inp, out = tiny_bin
    model = FastText.load_fasttext(path)
    assert model.vocab.words == ["hello", "</s>"] and list(model.vocab.counts) == [7, 3]
    assert (model.minn, model.maxn, model.bucket, model.dim, model.arch) == (3, 4, 10, 4, "skipgram")
    grams = [2 + truth.fnv1a(g) % 10 for g in truth.ngrams("hello", 3, 4)]
    np.testing.assert_allclose(model.vectors["hello"], inp[[0] + grams].mean(axis=0), rtol=1e-6)
    np.testing.assert_array_equal(model.vectors["</s>"], inp[1])  # fastText gives "</s>" no n-grams
    unseen = [2 + truth.fnv1a(g) % 10 for g in truth.ngrams("héllo", 3, 4)]
    np.testing.assert_allclose(model.vectors["héllo"], inp[unseen].mean(axis=0), rtol=1e-6)
    np.testing.assert_array_equal(model.output_vectors, out)


def test_our_bin_round_trips_for_seen_and_unseen_words(tmp_path, truth):
    _, lines = truth.morphology(sentences=300)
    model = FastText(dim=12, min_count=1, bucket=3000, threads=1, epochs=1, arch="cbow").fit(lines, progress=False)
    path = tmp_path / "m.bin"
    model.save_fasttext(path)
    back = FastText.load_fasttext(path)
    np.testing.assert_array_equal(back.input_vectors, model.input_vectors)
    np.testing.assert_array_equal(back.output_vectors, model.output_vectors)
    for word in (model.vocab.words[3], "luminescent", "x"):
        np.testing.assert_array_equal(back.vectors[word], model.vectors[word])
    assert back.arch == "cbow" and back.config()["bucket"] == 3000
    back.train(lines, epochs=1, progress=False)  # a loaded .bin trains on


def damaged(tiny):
    data = tiny.read_bytes()
    words = fasttext_bin_bytes(["hello", "</s>"], [7, 3], np.zeros((12, 4), np.float32), np.zeros((2, 4), np.float32))
    assert len(words) == len(data)
    cases = {
        "empty": b"",
        "foreign": b"\x7fELF" + data[4:],
        "version": data[:4] + struct.pack("<i", 99) + data[8:],
        "truncated header": data[:30],
        "truncated dictionary": data[:70],
        "truncated matrix": data[:-5],
        "trailing bytes": data + b"xx",
        "lying dictionary size": data[:64] + struct.pack("<i", 2**31 - 1) + data[68:],
    }
    # the header says 1,000 buckets where the matrix holds 10
    cases["lying bucket"] = data[:8 + 32] + struct.pack("<i", 1000) + data[8 + 36:]
    cases["lying dim"] = data[:8] + struct.pack("<i", 40000) + data[12:]
    return cases


@pytest.mark.parametrize("case", ["empty", "foreign", "version", "truncated header", "truncated dictionary",
                                  "truncated matrix", "trailing bytes", "lying dictionary size", "lying bucket",
                                  "lying dim"])
def test_damaged_foreign_or_lying_files_are_format_errors(tiny_bin, tmp_path, case):
    path, _, _ = tiny_bin
    bad = tmp_path / "bad.bin"
    bad.write_bytes(damaged(path)[case])
    with pytest.raises(FormatError):
        read_fasttext_bin(bad)


@pytest.mark.parametrize("kw,message", [(dict(model=3, nlabels=1), "supervised"), (dict(quant=1), "quantized"),
                                        (dict(pruned=5), "pruned"),
                                        (dict(loss=4), "one-vs-all")])
def test_models_that_are_not_plain_word_vectors_are_refused(tmp_path, kw, message):
    path = tmp_path / "other.bin"
    path.write_bytes(fasttext_bin_bytes(["a", "b"], [2, 1], np.zeros((12, 3), np.float32),
                                        np.zeros((2, 3), np.float32), **kw))
    with pytest.raises(FormatError, match=message):
        FastText.load_fasttext(path)


def test_a_supervised_bin_is_not_implemented_as_gensim_says(tmp_path):
    path = tmp_path / "classifier.bin"
    path.write_bytes(fasttext_bin_bytes(["a", "b"], [2, 1], np.zeros((12, 3), np.float32),
                                        np.zeros((2, 3), np.float32), model=3, nlabels=1))
    with pytest.raises(NotImplementedError, match="supervised") as err:
        load_facebook_model(path)
    assert isinstance(err.value, FormatError)


def test_a_bin_fastText_wrote_with_hs_loads(tmp_path):
    """A .bin laid out byte by byte as fastText writes one with -loss hs."""
    rng = np.random.default_rng(0)
    words, counts = ["the", "cat", "sat", "</s>"], [9, 5, 3, 2]
    inp = rng.normal(0, 0.3, size=(4 + 10, 4)).astype(np.float32)
    out = rng.normal(0, 0.3, size=(4, 4)).astype(np.float32)
    path = tmp_path / "theirs.bin"
    path.write_bytes(fasttext_bin_bytes(words, counts, inp, out, loss=1, model=1))
    model = FastText.load_fasttext(path, threads=1, sample=0)
    assert (model.loss, model.arch) == ("hs", "cbow")
    np.testing.assert_array_equal(model.output_vectors, -out)  # fastText's bits mean the opposite of word2vec.c's
    model.train([["the", "cat", "sat"]] * 20, epochs=1, progress=False)
    assert not np.array_equal(model.output_vectors[:3], -out[:3])
    np.testing.assert_array_equal(model.output_vectors[3], -out[3])  # fastText's unused last row stays


@pytest.fixture
def morph_file(tmp_path, truth):
    _, lines = truth.morphology(sentences=400)
    path = tmp_path / "morph.txt"
    path.write_text("\n".join(" ".join(line) for line in lines) + "\n")
    return str(path)


def test_cli_fasttext_writes_bin_vec_and_native(morph_file, tmp_path, capsys):
    common = ["--dim", "10", "--epochs", "1", "--min-count", "1", "--bucket", "2000", "--threads", "1", "--quiet"]
    assert main(["fasttext", morph_file, "-o", str(tmp_path / "m.bin"), *common]) == 0
    model = FastText.load_fasttext(tmp_path / "m.bin")
    assert model.bucket == 2000 and model.minn == 3 and model.maxn == 6 and model.sample == 1e-4
    assert main(["fasttext", morph_file, "-o", str(tmp_path / "m.vec"), "--format", "txt", *common]) == 0
    vec = load_vectors(tmp_path / "m.vec")
    np.testing.assert_allclose(vec["luminer"], model.vectors["luminer"], rtol=1e-5, atol=1e-6)
    assert main(["fasttext", morph_file, "-o", str(tmp_path / "m.wv"), "--format", "native", *common]) == 0
    np.testing.assert_array_equal(FastText.load(tmp_path / "m.wv").vectors["zzz"], model.vectors["zzz"])
    assert main(["fasttext", morph_file, "-o", str(tmp_path / "hs.bin"), "--loss", "hs", *common]) == 0
    assert FastText.load_fasttext(tmp_path / "hs.bin").loss == "hs"


def test_cli_fasttext_resumes_a_checkpoint_exactly(morph_file, tmp_path):
    common = ["--dim", "10", "--min-count", "1", "--bucket", "2000", "--threads", "1", "--quiet"]
    assert main(["fasttext", morph_file, "-o", str(tmp_path / "two.bin"), "--epochs", "2", *common]) == 0
    ckpt = tmp_path / "ckpt.wv"

    def save_after_first(model, es):
        if es.epoch == 0:
            model.save(ckpt)

    FastText(dim=10, min_count=1, bucket=2000, threads=1, epochs=2).fit(morph_file, callbacks=[save_after_first],
                                                                        progress=False)
    assert main(["fasttext", morph_file, "-o", str(tmp_path / "resumed.bin"), "--resume", str(ckpt), "--quiet"]) == 0
    straight, resumed = (FastText.load_fasttext(tmp_path / name) for name in ("two.bin", "resumed.bin"))
    np.testing.assert_array_equal(resumed.input_vectors, straight.input_vectors)
    np.testing.assert_array_equal(resumed.output_vectors, straight.output_vectors)


@pytest.mark.parametrize("argv,message", [
    (["--minn", "5", "--maxn", "3"], "minn"),
    (["--bucket", "0"], "bucket"),
    (["--bucket", "2000000000", "--dim", "100000"], "--bucket"),
])
def test_cli_fasttext_bad_settings_are_one_line_errors(morph_file, tmp_path, capsys, argv, message):
    assert main(["fasttext", morph_file, "-o", str(tmp_path / "x.bin"), "--quiet", *argv]) == 1
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
    assert not (tmp_path / "x.bin").exists()


@pytest.mark.parametrize("maxn,bucket", [(6, 10), (0, 10)])
def test_a_skipgram_bin_trained_with_word_ngrams_loads_as_without(tmp_path, maxn, bucket):
    """fastText's skipgram and cbow read -wordNgrams and train no word
    n-gram (only its classifiers do); with -maxn 0 it then keeps its bucket
    rows, never trained. The vectors are those of the same file with
    wordNgrams 1 (and, at maxn 0, no bucket rows)."""
    rng = np.random.default_rng(0)
    words, counts = ["a", "b", "c"], [3, 2, 1]
    rows = rng.normal(size=(3 + bucket, 4)).astype(np.float32)
    out = rng.normal(size=(3, 4)).astype(np.float32)
    with_ngrams = tmp_path / "w2.bin"
    with_ngrams.write_bytes(fasttext_bin_bytes(words, counts, rows, out, word_ngrams=2, maxn=maxn, bucket=bucket))
    plain = tmp_path / "w1.bin"
    plain.write_bytes(fasttext_bin_bytes(words, counts, rows if maxn else rows[:3], out, maxn=maxn,
                                         bucket=bucket if maxn else 0))
    a, b = FastText.load_fasttext(with_ngrams).vectors, FastText.load_fasttext(plain).vectors
    assert a.words == b.words and np.array_equal(a.vectors, b.vectors)
