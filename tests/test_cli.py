"""The wv-engine command line: flags (a contract), outputs, and errors as one
clear line with a non-zero exit."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from wv_engine import load_vectors
from wv_engine.cli import main



@pytest.fixture
def corpus_file(topics_corpus, text_file):
    _, corpus = topics_corpus
    return text_file([" ".join(s) for s in corpus])


def test_word2vec_trains_and_writes_stats(corpus_file, tmp_path, capsys):
    out, stats = tmp_path / "v.bin", tmp_path / "stats.json"
    rc = main(["word2vec", corpus_file, "-o", str(out), "--dim", "12", "--epochs", "2", "--min-count", "1",
               "--threads", "2", "--stats-json", str(stats), "--quiet", "--arch", "cbow", "--loss", "hs",
               "--window", "3", "--sample", "0", "--alpha", "0.05", "--seed", "3"])
    assert rc == 0
    data = json.loads(stats.read_text())
    for key in ("vocab_size", "corpus_words", "epochs", "threads", "train_seconds", "total_seconds",
                "words_per_sec", "epoch_loss", "count_seconds", "encode_seconds", "save_seconds"):
        assert key in data
    phases = data["count_seconds"] + data["encode_seconds"] + data["train_seconds"] + data["save_seconds"]
    assert 0 < phases <= data["total_seconds"]
    assert 10 << 20 < data["peak_rss_bytes"] < 64 << 30  # a process's own peak: tens of MB here
    assert data["vocab_size"] == 48 and data["epochs"] == 2 and data["threads"] == 2
    assert data["corpus_words"] == 3000 * 12
    assert len(data["epoch_loss"]) == 2
    assert data["words_per_sec"] == pytest.approx(2 * 36000 / data["train_seconds"])
    v = load_vectors(out)
    assert len(v) == 48 and v.dim == 12
    assert out.read_bytes().startswith(b"48 12\n")


@pytest.mark.parametrize("fmt,head", [("txt", b"48 8\n"), ("native", None)])
def test_formats(corpus_file, tmp_path, fmt, head):
    out = tmp_path / f"v.{fmt}"
    assert main(["word2vec", corpus_file, "-o", str(out), "--dim", "8", "--epochs", "1",
                 "--min-count", "1", "--format", fmt, "--quiet"]) == 0
    if head:
        assert out.read_bytes().startswith(head)
    assert load_vectors(out).dim == 8


def test_queries(corpus_file, tmp_path, capsys):
    out = tmp_path / "v.bin"
    main(["word2vec", corpus_file, "-o", str(out), "--dim", "16", "--min-count", "1", "--quiet"])
    capsys.readouterr()
    assert main(["similar", str(out), "t0w0", "-n", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 and all(line.split()[1].startswith("t0w") for line in lines)
    assert main(["analogy", str(out), "t0w0", "t0w1", "t1w0", "-n", "2"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 2
    assert main(["eval", str(out), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["analogy"]["total"] == 0 and "wordsim353" in result


@pytest.mark.parametrize("argv,message", [
    (["word2vec", "/no/such/file.txt", "-o", "x.bin"], "not found"),
    (["similar", "/no/such/vectors.bin", "king"], "not found"),
])
def test_errors_are_one_line(argv, message, capsys):
    assert main(argv) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("wv-engine: error:") and message in err[-1]
    assert "Traceback" not in "\n".join(err)


def test_unknown_word_and_empty_vocabulary(corpus_file, tmp_path, capsys, text_file):
    out = tmp_path / "v.bin"
    main(["word2vec", corpus_file, "-o", str(out), "--dim", "8", "--min-count", "1", "--quiet"])
    capsys.readouterr()
    assert main(["similar", str(out), "zebra"]) == 1
    assert "'zebra' is not in the vocabulary" in capsys.readouterr().err
    small = text_file(["a b c"], name="small.txt")
    assert main(["word2vec", small, "-o", str(out), "--quiet"]) == 1
    assert "min_count=5 left no words" in capsys.readouterr().err


@pytest.mark.parametrize("flag,value", [("--dim", "0"), ("--window", "-1"), ("--epochs", "x"),
                                        ("--threads", "0"), ("--sample", "-0.1"), ("--alpha", "0"),
                                        ("--negative", "-1"), ("--arch", "glove")])
def test_bad_flag_values_are_rejected_by_the_parser(flag, value, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["word2vec", "in.txt", "-o", "out.bin", flag, value])
    assert exc.value.code == 2
    assert flag in capsys.readouterr().err


def test_an_existing_output_survives_a_failed_run(corpus_file, tmp_path):
    out = tmp_path / "v.bin"
    out.write_bytes(b"precious")
    assert main(["word2vec", corpus_file, "-o", str(out), "--min-count", "100000", "--quiet"]) == 1
    assert out.read_bytes() == b"precious"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_console_script_entry_point(tmp_path):
    import wv_engine

    # run where the tests imported the package from (installed, or an in-place build)
    env = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(wv_engine.__file__))}
    script = os.path.join(os.path.dirname(sys.executable), "wv-engine")
    cmd = [script] if os.path.exists(script) else [sys.executable, "-m", "wv_engine.cli"]
    r = subprocess.run(cmd + ["--version"], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert r.returncode == 0 and r.stdout.startswith("wv-engine "), r.stderr


@pytest.mark.heavy_under_sanitizers  # the demo's training is the training the other tests run
def test_demo_runs_on_the_shipped_corpus(tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "whale:" in out and "he : his :: she :" in out
    v = load_vectors(tmp_path / "demo_vectors.bin")
    near = [w for w, _ in v.most_similar("whale", topn=10)]
    assert {"sperm", "leviathan"} & set(near)
    assert np.isfinite(v.vectors).all()


@pytest.mark.parametrize("flags,key,value", [
    ([], "init_range", 1.0), (["--init-range", "0.5"], "init_range", 0.5),
    ([], "regions", None), (["--regions", "2"], "regions", 2),
])
def test_model_setting_flags(corpus_file, tmp_path, flags, key, value):
    """--init-range sets where the input vectors start (default gensim's
    1.0), --regions how many regions an epoch reads side by side (default
    None: max(threads, 16), one more each epoch with HS);
    both land in the model's config."""
    stats = tmp_path / "s.json"
    assert main(["word2vec", corpus_file, "-o", str(tmp_path / "v.bin"), "--dim", "16", "--min-count", "1",
                 "--epochs", "1", "--quiet", *flags, "--stats-json", str(stats)]) == 0
    assert json.loads(stats.read_text())["config"][key] == value
    with pytest.raises(SystemExit):
        main(["word2vec", corpus_file, "-o", str(tmp_path / "v.bin"), "--" + key.replace("_", "-"), "0"])


@pytest.mark.parametrize("flags,shared", [([], True), (["--shared-negatives"], True),
                                          (["--exact-negatives"], False), (["--arch", "cbow"], False)])
def test_negatives_flags(corpus_file, tmp_path, flags, shared):
    """Shared negatives are skip-gram NS's default; --exact-negatives keeps word2vec.c's kernel."""
    out, stats = tmp_path / "v.bin", tmp_path / "s.json"
    assert main(["word2vec", corpus_file, "-o", str(out), "--dim", "16", "--min-count", "1", "--quiet",
                 *flags, "--stats-json", str(stats)]) == 0
    assert json.loads(stats.read_text())["config"]["shared_negatives"] is shared
    near = [w for w, _ in load_vectors(out).most_similar("t0w0", topn=5)]
    assert sum(w.startswith("t0w") for w in near) >= 4


def test_both_negatives_flags_are_refused(corpus_file, tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["word2vec", corpus_file, "-o", str(tmp_path / "v.bin"), "--shared-negatives", "--exact-negatives"])
    assert "not allowed with" in capsys.readouterr().err


def _zipf_text(path, tokens=60_000, types=3_000, seed=0):
    rng = np.random.default_rng(seed)
    p = 1.0 / (np.arange(1, types + 1) + 2.7)
    ranks = rng.choice(types, size=tokens, p=p / p.sum())
    lines = [" ".join(f"w{r}" for r in ranks[i:i + 100]) for i in range(0, tokens, 100)]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_checkpoint_on_ctrl_c_then_resume_gives_the_straight_run(tmp_path, monkeypatch):
    """2 epochs straight against: Ctrl-C after the first (the checkpoint is
    saved), then --resume for the second; at one thread with a seed the
    vectors are the same bytes."""
    from wv_engine.word2vec import Word2Vec

    corpus = _zipf_text(tmp_path / "z.txt")
    common = ["--dim", "16", "--epochs", "2", "--threads", "1", "--seed", "5", "--quiet", "--sample", "1e-3"]
    assert main(["word2vec", corpus, "-o", str(tmp_path / "straight.bin"), *common]) == 0

    real = Word2Vec.record_epoch

    def ctrl_c_after_first(self, *args, **kwargs):
        real(self, *args, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(Word2Vec, "record_epoch", ctrl_c_after_first)
    ckpt = tmp_path / "run.ckpt"
    partial = tmp_path / "partial.bin"
    assert main(["word2vec", corpus, "-o", str(partial), *common, "--checkpoint", str(ckpt)]) == 130
    assert ckpt.exists() and partial.exists()
    monkeypatch.setattr(Word2Vec, "record_epoch", real)
    assert Word2Vec.load(ckpt).unfinished_epochs == 1
    resumed = tmp_path / "resumed.bin"
    stats = tmp_path / "s.json"
    assert main(["word2vec", corpus, "-o", str(resumed), "--resume", str(ckpt), "--threads", "1", "--quiet",
                 "--stats-json", str(stats)]) == 0
    assert json.loads(stats.read_text())["epochs"] == 1
    assert resumed.read_bytes() == (tmp_path / "straight.bin").read_bytes()
    assert partial.read_bytes() != resumed.read_bytes()


def test_resuming_a_finished_run_writes_its_vectors_without_reading_the_corpus(tmp_path, monkeypatch):
    from wv_engine import load_vectors
    from wv_engine.word2vec import Word2Vec

    corpus = _zipf_text(tmp_path / "z.txt")
    ckpt = tmp_path / "done.ckpt"
    model = Word2Vec(dim=8, epochs=1, threads=1, min_count=1).fit(corpus)
    model.save(ckpt)
    monkeypatch.setattr(Word2Vec, "encode", lambda *a, **k: pytest.fail("the corpus was encoded again"))
    out, stats = tmp_path / "v.bin", tmp_path / "s.json"
    assert main(["word2vec", corpus, "-o", str(out), "--resume", str(ckpt), "--quiet",
                 "--stats-json", str(stats)]) == 0
    np.testing.assert_array_equal(load_vectors(out).vectors, model.vectors.vectors)
    assert json.loads(stats.read_text())["epochs"] == 0


def test_resume_checks_the_corpus_and_the_flags(tmp_path, capsys):
    from wv_engine.word2vec import Word2Vec

    corpus = _zipf_text(tmp_path / "z.txt")
    other = _zipf_text(tmp_path / "other.txt", seed=1)
    ckpt = tmp_path / "run.ckpt"
    model = Word2Vec(dim=8, epochs=3, threads=1, min_count=1)
    model.build_vocab(corpus)
    model.train(corpus, callbacks=[lambda m, es: m.save(ckpt) if es.epoch == 0 else None])
    assert main(["word2vec", other, "-o", str(tmp_path / "v.bin"), "--resume", str(ckpt), "--quiet"]) == 1
    assert "another corpus file" in capsys.readouterr().err
    assert main(["word2vec", corpus, "-o", str(tmp_path / "v.bin"), "--resume", str(ckpt), "--quiet",
                 "--window", "9"]) == 1
    assert "trained with window=5, but --window asks for 9" in capsys.readouterr().err
    assert main(["word2vec", corpus, "-o", str(tmp_path / "v.bin"), "--resume", str(ckpt), "--quiet",
                 "--threads", "2", "--dim", "8"]) == 0
