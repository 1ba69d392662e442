"""wv_engine.gensim's Phrases / FrozenPhrases: gensim 4's names, arguments
and results, checked against the independent reference of gensim's
algorithm (tests/phrase_references.py) rather than against gensim itself."""

import pickle

import pytest

from wv_engine import FormatError
from wv_engine.gensim import ENGLISH_CONNECTOR_WORDS, FrozenPhrases, Phraser, Phrases
from wv_engine.gensim.phrases import npmi_scorer, original_scorer


def always_one(worda_count, wordb_count, bigram_count, len_vocab, min_count, corpus_word_count):
    return 1


def test_the_module_paths_and_names_are_gensims():
    import wv_engine.gensim.models.phrases as by_path

    assert by_path.Phrases is Phrases and by_path.FrozenPhrases is FrozenPhrases and Phraser is FrozenPhrases
    assert by_path.ENGLISH_CONNECTOR_WORDS is ENGLISH_CONNECTOR_WORDS
    assert ENGLISH_CONNECTOR_WORDS == frozenset(
        "a an the for of with without at from to in on by and or".split())


@pytest.mark.parametrize("scoring,threshold", [("default", 2.0), ("npmi", 0.3)])
@pytest.mark.parametrize("connectors", [frozenset(), ENGLISH_CONNECTOR_WORDS])
def test_counts_scores_and_joins_match_the_reference(refs, scoring, threshold, connectors):
    lines = refs.planted_corpus(seed=3, connectors=True)
    expected_phrases, expected_lines = refs.gensim_reference(lines, 4, threshold, scoring, connectors)
    model = Phrases(lines, min_count=4, threshold=threshold, scoring=scoring, connector_words=connectors)
    assert model.corpus_word_count == sum(map(len, lines))
    exported = model.export_phrases()
    assert exported == expected_phrases  # the same floats
    frozen = model.freeze()
    assert frozen.phrasegrams == expected_phrases
    assert [model[line] for line in lines] == expected_lines
    assert [frozen[line] for line in lines] == expected_lines
    assert list(frozen[lines]) == expected_lines  # a corpus, re-iterable
    assert list(model[iter(lines)]) == expected_lines


def test_vocab_and_add_vocab(refs):
    lines = refs.planted_corpus(seed=1)
    model = Phrases(lines[:100], min_count=1, threshold=1)
    model.add_vocab(lines[100:])
    whole = Phrases(lines, min_count=1, threshold=1)
    assert model.vocab == whole.vocab and model.corpus_word_count == whole.corpus_word_count
    assert model.vocab["new_york"] == sum(" ".join(line).count("new york") for line in lines)
    assert model.export_phrases() == whole.export_phrases()


def test_custom_scorer_and_a_delimiter_with_a_space(refs):
    lines = refs.planted_corpus(seed=2)
    model = Phrases(lines, min_count=1, threshold=0.5, scoring=always_one)
    assert set(model.export_phrases().values()) == {1}
    spaced = Phrases(lines, min_count=3, threshold=2.0, delimiter=" ")
    assert "new york" in spaced.export_phrases() and spaced[["new", "york"]] == ["new york"]
    underscored = Phrases(lines, min_count=3, threshold=2.0)
    assert {k.replace(" ", "_"): v for k, v in spaced.export_phrases().items()} == underscored.export_phrases()
    with pytest.raises(ValueError, match="missing expected parameters"):
        Phrases(lines, scoring=lambda a, b: 1)


@pytest.mark.parametrize("kwargs", [dict(min_count=0), dict(threshold=-1), dict(scoring="npmi", threshold=2),
                                    dict(scoring="pmi")])
def test_bad_parameters(kwargs):
    with pytest.raises(ValueError):
        Phrases([["a", "b"]], **kwargs)


def test_scorers_are_gensims_formulas():
    assert original_scorer(4, 2, 3, 10, 1, 0) == (3 - 1) / 8 * 10
    assert original_scorer(0, 2, 3, 10, 1, 0) == float("-inf")
    assert npmi_scorer(4, 4, 3, 0, 5, 10) == float("-inf")
    # p(a) = p(b) = 0.4, p(ab) = 0.3: ln(0.3 / 0.16) / -ln(0.3) = 0.6286 / 1.2040
    assert npmi_scorer(4, 4, 3, 0, 1, 10) == pytest.approx(0.52211, abs=1e-5)


def test_save_and_load_without_pickle(refs, tmp_path):
    lines = refs.planted_corpus(seed=4, connectors=True)
    model = Phrases(lines, min_count=2, threshold=1.0, connector_words={"of"})
    model.save(tmp_path / "p.model")
    back = Phrases.load(tmp_path / "p.model")
    assert back.vocab == model.vocab and back.export_phrases() == model.export_phrases()
    assert back.connector_words == frozenset({"of"}) and back.corpus_word_count == model.corpus_word_count
    frozen = model.freeze()
    frozen.save(tmp_path / "f.model")
    again = FrozenPhrases.load(tmp_path / "f.model")
    assert again.phrasegrams == frozen.phrasegrams and again[["bank", "of", "america"]] == ["bank_of_america"]
    custom = Phrases(lines, min_count=1, threshold=0.5, scoring=always_one)
    custom.save(tmp_path / "c.model")
    assert Phrases.load(tmp_path / "c.model").scoring is always_one
    with pytest.raises(FormatError, match="not a FrozenPhrases"):
        FrozenPhrases.load(tmp_path / "p.model")
    (tmp_path / "g.pkl").write_bytes(pickle.dumps({"gensim": "model"}))
    with pytest.raises(FormatError, match="pickle"):
        Phrases.load(tmp_path / "g.pkl")
