"""Phrases (wv_engine.phrases): learned and applied as word2phrase.c and
gensim's Phrases do, checked against small independent references written
here from the algorithms' descriptions (docs/research anchors: one table of
word and pair counts, the scores, greedy left-to-right joining), against
hand-computed scores, and on planted structure."""

import math

import numpy as np
import pytest

from wv_engine import FormatError, Phrases
from wv_engine.phrases import ENGLISH_CONNECTOR_WORDS


# ---------------------------------------------------------------- learning and applying
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_word2phrase_scoring_matches_the_reference_algorithm(refs, tmp_path, seed):
    lines = refs.planted_corpus(seed=seed)
    path = refs.write(tmp_path, lines)
    model = Phrases(path, min_count=3, threshold=5.0, threads=1)
    out = tmp_path / "out.txt"
    model.apply_file(path, out)
    assert refs.read_tokens(out) == refs.w2p_reference(lines, 3, 5.0)
    assert "new_york" in model.phrases()


@pytest.mark.parametrize("scoring,threshold", [("default", 2.0), ("npmi", 0.3)])
@pytest.mark.parametrize("connectors", [frozenset(), ENGLISH_CONNECTOR_WORDS])
def test_gensim_scorings_match_the_reference_algorithm(refs, tmp_path, scoring, threshold, connectors):
    lines = refs.planted_corpus(seed=3, connectors=True)
    phrases, expected = refs.gensim_reference(lines, 4, threshold, scoring, connectors)
    model = Phrases(lines, min_count=4, threshold=threshold, scoring=scoring, connector_words=connectors)
    found = model.phrases()
    assert found.keys() == phrases.keys() and all(found[k] == phrases[k] for k in found)  # same floats
    assert [model[line] for line in lines] == expected
    assert ("bank_of_america" in found) == bool(connectors)


def test_hand_computed_scores():
    # "a b" x3, "a c", "b c": a=4, b=4, c=2, a_b=3, a_c=1, b_c=1 (word2phrase pairs also cross lines)
    lines = [["a", "b"], ["a", "b"], ["a", "b"], ["a", "c"], ["b", "c"]]
    words = 10
    default = Phrases(lines, min_count=1, threshold=0.01, scoring="default").phrases()
    keys = 3 + 3  # a b c, a_b a_c b_c
    assert default["a_b"] == (3 - 1) / 16 * keys
    assert "a_c" not in default  # its score, (1 - 1) / 8 x 6 = 0, is not above the threshold
    npmi = Phrases(lines, min_count=1, threshold=-1, scoring="npmi").phrases()
    pab, pa, pb = 3 / words, 4 / words, 4 / words
    assert npmi["a_b"] == pytest.approx(math.log(pab / (pa * pb)) / -math.log(pab), rel=1e-12)
    w2p = Phrases(lines, min_count=1, threshold=0.01, scoring="word2phrase").phrases()
    # the text as one stream of pairs: a_b 3, b_a 3 (across line ends), a_c, c_b, b_c 1
    assert w2p["a_b"] == pytest.approx((3 - 1) / 4 / 4 * words, rel=1e-6)
    assert "b_a" in w2p  # counted across line ends, as word2phrase.c does


def test_two_passes_form_longer_phrases(refs, tmp_path):
    lines = refs.planted_corpus(n_lines=600, seed=5)
    path = refs.write(tmp_path, lines)
    one = Phrases(path, min_count=3, threshold=5.0)
    two = Phrases(path, passes=2, min_count=3, threshold=5.0)
    assert "new_york_times" not in one.phrases() and "new_york_times" in two.phrases()
    assert two[["new", "york", "times"]] == ["new_york_times"]
    # the second pass learned from the first pass's output, as word2phrase run twice
    out1 = tmp_path / "p1.txt"
    one.apply_file(path, out1)
    second = Phrases(str(out1), min_count=3, threshold=5.0)
    assert second.layers[0].phrases() == two.layers[1].phrases()


@pytest.mark.parametrize("scoring", ["word2phrase", "default"])
def test_threads_and_byte_ranges_give_exactly_one_pass(refs, tmp_path, monkeypatch, scoring):
    import wv_engine.corpus
    import wv_engine.phrases.model

    monkeypatch.setattr(wv_engine.corpus, "PARALLEL_MIN_BYTES", 1)
    monkeypatch.setattr(wv_engine.phrases.model, "LEAD_BYTES", 64)  # lead-ins and lead-outs much shorter than the text
    lines = refs.planted_corpus(n_lines=1500, seed=7, connectors=True)
    # long lines too, so ranges cut inside lines
    lines = [sum(lines[i:i + 20], []) for i in range(0, len(lines), 20)]
    path = refs.write(tmp_path, lines)
    settings = dict(passes=2, min_count=3, threshold=5.0 if scoring == "word2phrase" else 2.0, scoring=scoring,
                    connector_words=ENGLISH_CONNECTOR_WORDS if scoring == "default" else ())
    one = Phrases(path, threads=1, **settings)
    many = Phrases(path, threads=4, **settings)
    assert [layer.phrases() for layer in one.layers] == [layer.phrases() for layer in many.layers]
    one.apply_file(path, tmp_path / "a.txt", threads=1)
    many.apply_file(path, tmp_path / "b.txt", threads=4)
    assert (tmp_path / "a.txt").read_bytes() == (tmp_path / "b.txt").read_bytes()
    assert len(one.phrases()) > 2


def test_pruning_bounds_the_count_and_is_reported():
    rng = np.random.default_rng(0)
    lines = [[f"r{i}" for i in rng.integers(0, 5000, 20)] + ["new", "york"] for _ in range(500)]
    full = Phrases(lines, min_count=5, threshold=1.0)
    pruned = Phrases(lines, min_count=5, threshold=1.0, max_vocab_size=2000)
    assert full.stats[0]["prunes"] == 0 and pruned.stats[0]["prunes"] > 0
    assert pruned.stats[0]["min_reduce"] >= 1 and pruned.stats[0]["distinct_keys"] <= 2000
    assert "new_york" in pruned.phrases()
    assert Phrases(lines, min_count=5, threshold=1.0, memory_limit="1M").max_vocab_size == (1 << 20) // 256


def test_token_lists_and_edge_sentences(refs):
    model = Phrases(refs.planted_corpus(seed=1), min_count=3, threshold=5.0)
    assert model[["new", "york"]] == ["new_york"]
    assert model[[]] == []
    assert list(model[[["new", "york"], ["x"]]]) == [["new_york"], ["x"]]
    with pytest.raises(ValueError, match="whitespace"):
        model[["new york"]]
    with pytest.raises(TypeError):
        model["new york"]


def test_delimiter_and_connectors_in_output(refs, tmp_path):
    lines = refs.planted_corpus(seed=2, connectors=True)
    model = Phrases(lines, min_count=3, threshold=1.0, scoring="default", delimiter="::",
                    connector_words=ENGLISH_CONNECTOR_WORDS)
    assert model[["bank", "of", "america"]] == ["bank::of::america"]
    assert model[["of", "new", "york", "the"]] == ["of", "new::york", "the"]


@pytest.mark.parametrize("kwargs,match", [
    (dict(min_count=0), "min_count"), (dict(min_count=2.5), "min_count"),
    (dict(threshold=0), "threshold"), (dict(threshold=-3, scoring="default"), "threshold"),
    (dict(threshold=1.5, scoring="npmi"), "-1..1"), (dict(threshold=float("nan")), r"a number in \["),
    (dict(delimiter=" "), "whitespace"), (dict(delimiter=""), "delimiter"), (dict(delimiter="a\tb"), "whitespace"),
    (dict(scoring="pmi"), "scoring"), (dict(connector_words=["of the"]), "connector"),
])
def test_bad_settings_are_clear_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Phrases(**kwargs)


# ---------------------------------------------------------------- the model file
def test_save_load_round_trip(refs, tmp_path):
    lines = refs.planted_corpus(seed=4, connectors=True)
    model = Phrases(lines, passes=2, min_count=3, threshold=[2.0, 1.0], scoring="default",
                    connector_words=ENGLISH_CONNECTOR_WORDS)
    path = tmp_path / "m.phrases"
    model.save(path)
    back = Phrases.load(path)
    assert [layer.phrases() for layer in back.layers] == [layer.phrases() for layer in model.layers]
    assert [layer.settings for layer in back.layers] == [layer.settings for layer in model.layers]
    assert all(back[line] == model[line] for line in lines)
    assert back.layers[1].settings["threshold"] == 1.0


def _damage(data: bytes, how: str) -> bytes:
    if how == "truncated":
        return data[:-5]
    if how == "magic":
        return b"X" + data[1:]
    if how == "trailing":
        return data + b"\0"
    if how == "json":
        return data[:20] + b"{" + data[21:]
    if how == "count":
        return data.replace(b'"phrases": ', b'"phrases": 9', 1)
    if how == "version":
        return data[:8] + b"\x07" + data[9:]
    raise AssertionError(how)


@pytest.mark.parametrize("how", ["truncated", "magic", "trailing", "json", "count", "version"])
def test_a_damaged_model_file_is_a_format_error(refs, tmp_path, how):
    path = tmp_path / "m.phrases"
    Phrases(refs.planted_corpus(seed=0), min_count=3, threshold=5.0).save(path)
    path.write_bytes(_damage(path.read_bytes(), how))
    with pytest.raises(FormatError):
        Phrases.load(path)


def test_random_bytes_never_crash_the_reader(refs, tmp_path):
    path = tmp_path / "m.phrases"
    Phrases(refs.planted_corpus(seed=0), min_count=3, threshold=5.0).save(path)
    data = bytearray(path.read_bytes())
    rng = np.random.default_rng(0)
    for _ in range(200):
        damaged = bytearray(data)
        for i in rng.integers(0, len(data), 3):
            damaged[i] = int(rng.integers(0, 256))
        path.write_bytes(bytes(damaged))
        try:
            Phrases.load(path)
        except FormatError:
            pass


# ---------------------------------------------------------------- the command line
def test_cli_learns_saves_applies_and_reports(refs, tmp_path, capsys):
    import json

    from wv_engine.cli import main

    lines = refs.planted_corpus(n_lines=600, seed=5)
    path = refs.write(tmp_path, lines)
    out, model, stats = tmp_path / "p.txt", tmp_path / "m.phrases", tmp_path / "s.json"
    assert main(["phrases", path, "-o", str(out), "--save-model", str(model), "--passes", "2", "--min-count", "3",
                 "--threshold", "5", "--threads", "2", "--stats-json", str(stats)]) == 0
    assert "new_york_times" in out.read_text().split()
    report = json.loads(stats.read_text())
    assert len(report["passes"]) == 2 and report["passes"][0]["prunes"] == 0
    assert report["phrases"] == len(Phrases.load(model).phrases())
    again = tmp_path / "q.txt"
    assert main(["phrases", path, "--model", str(model), "-o", str(again), "--quiet"]) == 0
    assert again.read_bytes() == out.read_bytes()
    assert main(["phrases", path, "-o", str(tmp_path / "r.txt"), "--max-vocab-size", "200", "--min-count", "3",
                 "--threshold", "5"]) == 0
    assert "pruned" in capsys.readouterr().err


@pytest.mark.parametrize("flags,message", [
    (["--delimiter", " "], "no whitespace"), (["--scoring", "npmi", "--threshold", "3"], "-1..1"),
    (["--min-count", "0"], "must be an integer in [1, "), (["--threshold", "0"], "threshold must be > 0"),
])
def test_cli_refuses_bad_settings(refs, tmp_path, capsys, flags, message):
    from wv_engine.cli import main

    path = refs.write(tmp_path, refs.planted_corpus(seed=0))
    try:
        status = main(["phrases", path, "-o", str(tmp_path / "o.txt")] + flags)
    except SystemExit as exc:  # the parser's own checks
        status = exc.code
    assert status != 0 and message in capsys.readouterr().err


def test_cli_damaged_model_and_nothing_to_write(refs, tmp_path, capsys):
    from wv_engine.cli import main

    path = refs.write(tmp_path, refs.planted_corpus(seed=0))
    bad = tmp_path / "bad.phrases"
    bad.write_bytes(b"\x89WVP\r\n\x1a\n\x01\x00\x00\x00\xff\x00\x00\x00{")
    assert main(["phrases", path, "--model", str(bad), "-o", str(tmp_path / "o.txt")]) == 1
    assert "bad.phrases" in capsys.readouterr().err and not (tmp_path / "o.txt").exists()
    assert main(["phrases", path]) == 1
    assert "nothing to write" in capsys.readouterr().err


# ---------------------------------------------------------------- training on a text read through phrases
def test_training_through_phrases_equals_training_on_the_phrased_file(refs, tmp_path):
    from wv_engine import Corpus, Word2Vec

    lines = refs.planted_corpus(n_lines=800, seed=6)
    path = refs.write(tmp_path, lines)
    model = Phrases(path, passes=2, min_count=3, threshold=5.0)
    phrased = tmp_path / "phrased.txt"
    model.apply_file(path, phrased)
    settings = dict(dim=16, epochs=2, min_count=2, threads=1, seed=3)
    on_file = Word2Vec(**settings).fit(str(phrased))
    through = Word2Vec(**settings).fit(Corpus(path, phrases=model))
    assert through.vocab.words == on_file.vocab.words and "new_york_times" in through.vocab.words
    assert np.array_equal(through.vectors.vectors, on_file.vectors.vectors)  # the same ids, bit for bit
    tokens = [model[line] for line in lines]  # token lists are read through the model too
    assert Word2Vec(**settings).fit(Corpus(tokens, phrases=model)).vocab.words == on_file.vocab.words
    with pytest.raises(TypeError, match="phrase model"):
        Corpus(path, phrases="model.phrases")


def test_a_phrased_text_is_counted_and_encoded_in_byte_ranges_exactly_as_one_pass(refs, tmp_path, monkeypatch):
    import wv_engine.corpus
    import wv_engine.phrases.model
    from wv_engine import Corpus, Vocabulary
    from wv_engine.corpus import encode
    from wv_engine.wordcount import count_with_ids

    monkeypatch.setattr(wv_engine.corpus, "PARALLEL_MIN_BYTES", 1)
    monkeypatch.setattr(wv_engine.phrases.model, "LEAD_BYTES", 64)  # lead-ins and lead-outs much shorter than the text
    lines = refs.planted_corpus(n_lines=1500, seed=8)
    lines = [sum(lines[i:i + 20], []) for i in range(0, len(lines), 20)]  # ranges cut inside lines too
    path = refs.write(tmp_path, lines)
    model = Phrases(path, passes=2, min_count=3, threshold=5.0)
    phrased = tmp_path / "phrased.txt"
    model.apply_file(path, phrased, threads=1)
    through = Corpus(path, phrases=model)
    assert through.splittable
    truth = Vocabulary.build(str(phrased), min_count=2, threads=1)
    vocab = Vocabulary.build(through, min_count=2, threads=4)
    assert vocab.words == truth.words and np.array_equal(vocab.counts, truth.counts)
    assert "new_york_times" in vocab.words
    ids = np.asarray(encode(str(phrased), truth.words_joined(), threads=1).ids)
    assert np.array_equal(np.asarray(encode(through, truth.words_joined(), threads=4).ids), ids)
    counter, counted = count_with_ids(through, 4, 1 << 30)
    assert counted is not None and np.array_equal(np.asarray(counted.encode(truth.words_joined()).ids), ids)


@pytest.mark.parametrize("command", ["word2vec", "glove", "svd"])
def test_cli_trains_with_phrases(refs, tmp_path, command):
    from wv_engine.cli import main
    from wv_engine.io import load_vectors

    path = refs.write(tmp_path, refs.planted_corpus(n_lines=800, seed=6))
    model = tmp_path / "m.phrases"
    assert main(["phrases", path, "--save-model", str(model), "--min-count", "3", "--threshold", "5", "--quiet"]) == 0
    out = tmp_path / "v.txt"
    extra = ["--epochs", "1"] if command != "svd" else []
    assert main([command, path, "-o", str(out), "--phrases", str(model), "--dim", "8", "--min-count", "2",
                 "--format", "txt", "--quiet"] + extra) == 0
    assert "new_york" in load_vectors(str(out)).words


def test_where_word2phrase_differs_is_pinned(refs, tmp_path):
    """docs/phrases.md, "Where the references differ": word2phrase.c cuts
    words at 59 bytes and drops a last word that no newline ends; we keep
    both (words up to 1,024 bytes, as everywhere in wv_engine)."""
    long_word = "x" * 80
    lines = refs.planted_corpus(seed=0) + [["new", "york", long_word, "tail"]]
    path = tmp_path / "c.txt"
    path.write_text("\n".join(" ".join(line) for line in lines))  # no newline at the end
    out = tmp_path / "o.txt"
    Phrases(str(path), min_count=3, threshold=5.0).apply_file(str(path), out)
    assert out.read_text().split()[-3:] == ["new_york", long_word, "tail"]


@pytest.mark.parametrize("seed", range(3))
def test_two_passes_match_word2phrase_run_twice(refs, tmp_path, seed):
    # a small vocabulary and a low threshold: pass 2 meets keys such as "a_b_c" that are the pair
    # ("a_b", "c") of the text and also cut as ("a", "b_c") with "b_c" a count of pairs, never a word of the
    # text: only the cuts the text shows may join (seed 0 failed when any cut of such a key joined)
    rng = np.random.default_rng(seed)
    lines = [[f"w{i}" for i in rng.zipf(1.5, rng.integers(5, 30)) % 25] for _ in range(1500)]
    path = refs.write(tmp_path, lines)
    out = tmp_path / "out.txt"
    Phrases(path, passes=2, min_count=2, threshold=1.0).apply_file(path, out)
    once = refs.w2p_reference(lines, 2, 1.0)
    assert refs.read_tokens(out) == refs.w2p_reference(once, 2, 1.0)
