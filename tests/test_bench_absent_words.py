"""benchmarks/absent_words.py and the suite's subword modes on planted data:
which words are held out, the corpus copy without them, the pair files, and
the scoring of every pair with subword vectors (no shared corpus, no peer
binaries; gensim only where it is installed)."""

import gzip
import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from wv_engine import Vectors
from wv_engine.fasttext import SubwordVectors, ngram_rows
from benchmarks import absent_words, report, runners  # the package imported by conftest.py

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PAIRS = [  # (w1, w2, score, set)
    ("cat", "dog", 8.0, "wordsim353"), ("cat", "rare", 2.0, "wordsim353"),
    ("dog", "rarer", 3.0, "simlex999"), ("tiger", "cat", 7.0, "simlex999"),
    ("ghost", "dog", 1.0, "simlex999"),            # ghost: never in the corpus
]


def test_held_out_words_are_the_rarest_until_the_target():
    kept = {"cat", "dog", "rare", "rarer", "tiger"}
    tokens = {"cat": 50, "dog": 40, "rare": 6, "rarer": 5, "tiger": 9}
    # ghost's pair is absent already; rarer (5 tokens) then rare (6) add one pair each
    assert absent_words.choose_held_out(PAIRS, kept, tokens, target=3) == ["rarer", "rare"]
    assert absent_words.choose_held_out(PAIRS, kept, tokens, target=1) == []
    # a protected word is never held out; ties of tokens go by the word
    assert absent_words.choose_held_out(PAIRS, kept, tokens, 3, protected={"rarer"}) == ["rare", "tiger"]
    # more than the pairs allow: every candidate, no error
    assert len(absent_words.choose_held_out(PAIRS, kept, tokens, 99)) == 5


def test_absence_is_after_min_count_and_case_folded():
    counts = {b"Cat": 3, b"cat": 3, b"dog": 5, b"Tiger": 5, b"rare": 4}
    kept, tokens = absent_words.folded_counts(counts, min_count=5)
    assert kept == {"dog", "tiger"}           # cat: 3 + 3 tokens, but no spelling reaches 5
    assert tokens["cat"] == 6 and tokens["tiger"] == 5
    assert absent_words.absent_pairs(PAIRS, kept) == PAIRS    # every pair has cat, rare, rarer or ghost
    assert absent_words.absent_pairs(PAIRS, {"cat", "dog", "tiger"}) == [PAIRS[1], PAIRS[2], PAIRS[4]]


@pytest.mark.parametrize("compressed", [False, True])
def test_the_copy_loses_whole_tokens_only(tmp_path, compressed):
    text = b"the Rare cat rare\nrarest rare.cat rare\n\nrare a  rare\trare b\nrare"
    src = tmp_path / ("c.txt.gz" if compressed else "c.txt")
    src.write_bytes(gzip.compress(text) if compressed else text)
    dest = str(tmp_path / "out.txt")
    assert absent_words.write_without(str(src), dest, ["rare"]) == 7
    out = open(dest, "rb").read()
    assert out.split(b"\n") == [b"the cat ", b"rarest rare.cat ", b"", b" a b", b""]
    assert out.split() == [t for t in text.split() if t.lower() != b"rare"]


def planted_corpus(path):
    # dog 10, cat 10, tiger 6, rare 5, rarer 8 (3 rarer, 5 Rarer: kept through its second spelling); no ghost
    words = ["dog", "cat"] * 10 + ["tiger"] * 6 + ["rare"] * 5 + ["rarer"] * 3 + ["Rarer"] * 5
    path.write_text(" ".join(words[:20]) + "\n" + " ".join(words[20:]) + "\n")
    return str(path)


def test_make_writes_the_copy_and_the_pairs(tmp_path):
    corpus = planted_corpus(tmp_path / "c.txt")
    info = absent_words.make(corpus, str(tmp_path / "abs"), target=3, min_count=5, pairs=PAIRS,
                             protected={"tiger"}, log=lambda *_: None)
    assert info["held_out"] == ["rare", "rarer"]    # the rarest first (5, then 8 tokens); tiger protected
    assert info["tokens_removed"] == 13 and info["tokens_before"] == 39
    assert info["pairs_absent_naturally"] == 1 and info["pairs"] == 3
    assert info["absent_words"] == ["ghost", "rare", "rarer"]
    copy = open(info["corpus"]).read().split()
    assert sorted(set(copy)) == ["cat", "dog", "tiger"] and len(copy) == 26
    paths = absent_words.pairs_paths(str(tmp_path / "abs"))
    assert absent_words.read_pairs(paths["all"], "x") == [(w1, w2, s, "x") for w1, w2, s, _ in
                                                         (PAIRS[1], PAIRS[2], PAIRS[4])]
    assert len(absent_words.read_pairs(paths["wordsim353"], "x")) == 1
    assert len(absent_words.read_pairs(paths["simlex999"], "x")) == 2
    assert absent_words.absent_in(paths) == info["absent_words"]
    with open(tmp_path / "abs" / "absent.json") as f:
        assert json.load(f)["held_out_tokens"] == {"rare": 5, "rarer": 8}


def test_target_zero_keeps_the_corpus(tmp_path):
    corpus = planted_corpus(tmp_path / "c.txt")
    info = absent_words.make(corpus, str(tmp_path / "abs"), target=0, min_count=5, pairs=PAIRS,
                             protected=set(), log=lambda *_: None)
    assert info["corpus"] == os.path.abspath(corpus) and info["held_out"] == [] and info["pairs"] == 1


def pair_files(tmp_path, pairs):
    paths = absent_words.pairs_paths(str(tmp_path))
    absent_words._write_pairs(paths["all"], pairs, "planted")
    for name in absent_words.SETS:
        absent_words._write_pairs(paths[name], [p for p in pairs if p[3] == name], "planted")
    return paths


def spearman(gold, model):
    """An independent Spearman: scipy's."""
    from scipy.stats import spearmanr

    return spearmanr(gold, model).statistic


def test_every_pair_is_scored_with_ngram_vectors(tmp_path):
    rng = np.random.default_rng(3)
    words = ["cat", "dog", "tiger"]
    ngrams = rng.normal(size=(50, 8)).astype(np.float32)
    v = SubwordVectors(words, rng.normal(size=(3, 8)), ngrams, minn=3, maxn=4)
    pairs = [("cat", "dog", 8.0, "wordsim353"), ("cat", "rare", 2.0, "wordsim353"),
             ("dog", "rarer", 3.0, "simlex999"), ("tiger", "unseenword", 7.0, "simlex999"),
             ("ghost", "rare", 1.0, "simlex999")]
    r = absent_words.score(v, pair_files(tmp_path, pairs))
    assert r["absent_pairs"] == 5 and r["absent_wordsim353_pairs"] == 2 and r["absent_simlex999_pairs"] == 3
    assert r["absent_zero_vector_words"] == []

    def vec(w):  # by hand: a vocabulary row, else the mean of the n-gram rows
        return v.vectors[words.index(w)] if w in words else ngrams[ngram_rows(w, 3, 4, 50)].mean(axis=0)

    cos = [float(vec(a) @ vec(b) / np.linalg.norm(vec(a)) / np.linalg.norm(vec(b))) for a, b, _, _ in pairs]
    assert r["absent_spearman"] == pytest.approx(spearman([p[2] for p in pairs], cos))
    assert r["absent_simlex999"] == pytest.approx(spearman([p[2] for p in pairs[2:]], cos[2:]))


def test_a_word_without_ngrams_is_a_zero_vector_tied_at_cosine_zero(tmp_path):
    # maxn 0: no n-gram rows, so every word outside the vocabulary has a zero vector (fastText's answer)
    v = SubwordVectors(["cat", "dog", "tiger"], [[1, 0], [1, 1], [0, 1]], np.zeros((0, 2)), minn=3, maxn=0)
    pairs = [("cat", "dog", 8.0, "wordsim353"), ("cat", "tiger", 1.0, "wordsim353"),
             ("dog", "xx", 5.0, "simlex999"), ("yy", "cat", 3.0, "simlex999"), ("dog", "tiger", 6.0, "simlex999")]
    r = absent_words.score(v, pair_files(tmp_path, pairs))
    assert r["absent_pairs"] == 5 and r["absent_zero_vector_words"] == ["xx", "yy"]
    cos = [2 ** -0.5, 0.0, 0.0, 0.0, 2 ** -0.5]   # the zero vectors' pairs tie with cat-tiger at 0
    assert r["absent_spearman"] == pytest.approx(spearman([p[2] for p in pairs], cos))


def test_vectors_without_ngrams_are_refused(tmp_path):
    paths = pair_files(tmp_path, [("cat", "dog", 8.0, "wordsim353"), ("cat", "x", 2.0, "simlex999")])
    with pytest.raises(TypeError, match="subword vectors"):
        absent_words.score(Vectors(["cat", "dog"], [[1, 0], [0, 1]]), paths)


def test_the_subword_modes_commands(tmp_path):
    corpus = runners.Corpus("src", "plain.txt", "split.txt", 10, 1, 0.0, 0.0)
    s = runners.Settings(epochs=5)
    tools = {type(t).__name__: t for t in runners.make_tools(None, "/bin/fasttext")}
    for mode, arch in (("sg-sub", "skipgram"), ("cbow-sub", "cbow")):
        ours = tools["WvEngineFastText"].job(mode, 2, s, corpus, "P")
        assert ours.cmd[3:7] == ["fasttext", "plain.txt", "-o", "P.bin"] and ours.vectors == "P.bin"
        assert " ".join(ours.cmd).count(f"--arch {arch} ") == 1 and "--bucket 2000000" in " ".join(ours.cmd)
        ft = tools["FastTextSubword"].job(mode, 2, s, corpus, "P")
        assert ft.cmd[:2] == ["/bin/fasttext", arch] and ft.vectors == "P.bin"
        assert "-minn 3 -maxn 6 -bucket 2000000" in " ".join(ft.cmd) and "-epoch 5" in " ".join(ft.cmd) and "-seed 1 " in " ".join(ft.cmd)
        g = tools["GensimFastText"].job(mode, 2, s, corpus, "P")
        assert "split.txt" in g.cmd and g.vectors == "P.bin"
        assert "--fasttext --ns-exponent 0.5 --minn 3 --maxn 6 --bucket 2000000" in " ".join(g.cmd)
        assert f"--sg {int(arch == 'skipgram')}" in " ".join(g.cmd) and "--alpha 0.05" in " ".join(g.cmd)
    # the word2vec tools are not asked to run a subword mode, nor the subword tools a word2vec mode
    for t in tools.values():
        assert set(t.modes) <= set(runners.SUBWORD_MODES) or not set(t.modes) & set(runners.SUBWORD_MODES)


def test_the_table_shows_the_absent_pairs_score():
    def run(tool, absent):
        return {"tool": tool, "mode": "sg-sub", "threads": 2, "repeat": 0, "ok": True, "wall_s": 10.0,
                "words_per_sec": 1e6, "peak_rss_mib": 900.0,
                "quality": {"analogy_pct": 40.0, "ws353": 0.5, "simlex": 0.25, "absent_spearman": absent,
                            "absent_pairs": 210}}
    runs = [run("wv-engine", 0.31), run("fastText", 0.30)]
    results = {"runs": runs, "summary": report.summarize(runs), "settings": runners.Settings().to_dict(),
               "config": {"repeats": 1}, "skipped": {},
               "machine": {"cpu_model": "cpu", "usable_cores": 2, "ram_gib": 8, "os": "os", "python": "3",
                           "versions": {}},
               "corpus": {"source": "c.txt", "words": 10, "plain_prep_s": 0, "split_prep_s": 0},
               "absent_words": {"pairs": 210, "pairs_per_set": {"wordsim353": 60, "simlex999": 150},
                                "pairs_absent_naturally": 9, "held_out": ["a", "b"], "tokens_removed": 12,
                                "corpus": "c.absent.txt"}}
    results["comparisons"] = report.comparisons(results["summary"])
    md = report.markdown(results)
    assert "absent ρ (pairs)" in md and "| 0.310 (210) |" in md and "+0.0 / +0.000 / +0.000 / +0.010" in md
    assert "210 WS353 + SimLex pairs" in md


@pytest.mark.skipif(importlib.util.find_spec("gensim") is None, reason="gensim is not installed")
def test_gensims_fasttext_run_writes_a_bin_read_as_subword_vectors(tmp_path):
    text = tmp_path / "c.txt"
    text.write_text(("the cat sat on the mat while the dog ran " * 40 + "\n") * 5)
    out = str(tmp_path / "g.bin")
    cmd = [sys.executable, "-m", "benchmarks.gensim_train", "--corpus", str(text), "--output", out, "--sg", "1",
           "--hs", "0", "--negative", "5", "--dim", "8", "--alpha", "0.05", "--min-alpha", "5e-06",
           "--workers", "1", "--fasttext", "--ns-exponent", "0.5", "--bucket", "1000"]
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    subprocess.run(cmd, check=True, cwd=ROOT, env=env, capture_output=True, timeout=300)
    from gensim.models.fasttext import load_facebook_vectors

    v = absent_words.load_subword_vectors(out)
    own = load_facebook_vectors(out)[["cat", "unseen"]]
    assert v.bucket == 1000 and "cat" in v and "unseen" not in v
    assert absent_words.own_difference(v, ["cat", "unseen"], own) < 1e-6
