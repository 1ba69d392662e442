"""Watching training: scores every few epochs (EpochScores, --eval-every),
the report of runs, maps of words (and per-epoch snapshots), the projector
export, and the errors of each. Pictures are opened and looked at: their
size, that they are not blank, and the colours of what they draw."""

import json
import sys

import numpy as np
import pytest

from wv_engine import GloVe, Word2Vec, load_vectors
from wv_engine.cli import main
from wv_engine.epoch_scores import EpochScores, evaluate_sets, summary
from wv_engine.errors import FormatError

matplotlib = pytest.importorskip("matplotlib")  # the "plot" extra; the test extra installs it
from matplotlib import image as mpimg  # noqa: E402

BLUE, ORANGE = (31, 119, 180), (255, 127, 14)  # matplotlib's C0 and C1


@pytest.fixture
def sets(topics_corpus, tmp_path):
    """A corpus file of planted topics and test sets about it: word pairs
    scored 10 within a topic and 0 across topics (a model that learned the
    topics ranks them so), and analogy questions within topics."""
    topics, corpus = topics_corpus
    text = tmp_path / "corpus.txt"
    text.write_text("\n".join(" ".join(s) for s in corpus) + "\n")
    pairs = tmp_path / "pairs.txt"
    lines = [f"{topics[t][0]} {topics[t][w]} 10" for t in range(6) for w in range(1, 4)]
    lines += [f"{topics[t][0]} {topics[(t + 1) % 6][w]} 0" for t in range(6) for w in range(1, 4)]
    pairs.write_text("\n".join(lines) + "\n")
    questions = tmp_path / "questions.txt"
    questions.write_text(": topics\n" + "\n".join(f"{topics[t][0]} {topics[t][1]} {topics[t][2]} {topics[t][3]}"
                                                   for t in range(6)) + "\n")
    return str(text), str(pairs), str(questions)


def _pixels(path):
    """The picture as 0-255 RGB, with its size."""
    img = mpimg.imread(str(path))
    assert img.ndim == 3 and img.shape[0] >= 300 and img.shape[1] >= 400, img.shape
    return (img[..., :3] * 255).round().astype(int)


def _has_colour(rgb, colour, at_least=30):
    return int(np.all(np.abs(rgb - np.array(colour)) <= 8, axis=-1).sum()) >= at_least


def test_epoch_scores_every_n_epochs_equal_an_evaluation_of_the_vectors(sets):
    text, pairs, questions = sets
    lines = []
    scores = EpochScores(every=2, analogies=questions, pairs=[pairs], report=lines.append)
    model = Word2Vec(dim=16, epochs=4, min_count=1, threads=2, seed=3)
    model.fit(text, callbacks=[scores])
    assert [e["epoch"] for e in scores.scores] == [2, 4] and model.last_stats.epoch_scores == scores.scores
    assert set(scores.scores[-1]) == {"epoch", "analogy", "pairs.txt", "seconds"}
    assert scores.scores[-1] | {"seconds": 0} == {"epoch": 4, **summary(evaluate_sets(
        model.vectors, questions, [pairs])), "seconds": 0}
    assert scores.scores[-1]["pairs.txt"] > 0.5  # the planted topics were learned
    assert lines[0].startswith("epoch 2: analogy ") and "pairs.txt " in lines[0]
    with pytest.raises(ValueError, match="every"):
        EpochScores(every=0)
    with pytest.raises(FileNotFoundError, match="nope.txt"):
        EpochScores(pairs=["nope.txt"])


def test_eval_every_in_the_cli_scores_the_last_epoch_as_eval_does(sets, tmp_path, capsys):
    text, pairs, questions = sets
    out, stats = tmp_path / "v.bin", tmp_path / "s.json"
    assert main(["word2vec", text, "-o", str(out), "--dim", "16", "--epochs", "3", "--min-count", "1",
                 "--eval-every", "2", "--eval-analogies", questions, "--eval-pairs", pairs,
                 "--stats-json", str(stats)]) == 0
    err = capsys.readouterr().err
    assert "epoch 2: analogy" in err and "epoch 3: analogy" in err
    data = json.loads(stats.read_text())
    assert [e["epoch"] for e in data["epoch_scores"]] == [2, 3]  # every 2, and the last
    assert [e["epoch"] for e in data["epoch_stats"]] == [0, 1, 2] and len(data["epoch_stats"]) == 3
    assert main(["eval", str(out), "--analogies", questions, "--pairs", pairs, "--json"]) == 0
    evaluated = json.loads(capsys.readouterr().out)
    last = data["epoch_scores"][-1]
    assert last["analogy"] == evaluated["analogy"]["accuracy"]
    assert last["pairs.txt"] == evaluated["pairs.txt"]["spearman"]


def test_glove_eval_every_keeps_a_score_per_epoch(sets, tmp_path):
    text, pairs, questions = sets
    stats = tmp_path / "s.json"
    assert main(["glove", text, "-o", str(tmp_path / "g.txt"), "--dim", "8", "--epochs", "3", "--min-count", "1",
                 "--eval-every", "1", "--eval-pairs", pairs, "--eval-analogies", questions, "--quiet",
                 "--stats-json", str(stats)]) == 0
    data = json.loads(stats.read_text())
    assert [e["epoch"] for e in data["epoch_scores"]] == [1, 2, 3]
    assert [round(e["cost"], 9) for e in data["epoch_stats"]] == [round(c, 9) for c in data["epoch_cost"]]


def test_eval_flags_without_eval_every_are_refused(sets, tmp_path, capsys):
    text, pairs, _ = sets
    assert main(["word2vec", text, "-o", str(tmp_path / "v.bin"), "--eval-pairs", pairs, "--quiet"]) == 1
    assert "--eval-every" in capsys.readouterr().err


def _two_runs(sets, tmp_path):
    text, pairs, questions = sets
    files = []
    for name, arch in (("sg", "skipgram"), ("cbow", "cbow")):
        stats = tmp_path / f"{name}.json"
        assert main(["word2vec", text, "-o", str(tmp_path / f"{name}.bin"), "--dim", "16", "--epochs", "3",
                     "--arch", arch, "--min-count", "1", "--eval-every", "1", "--eval-pairs", pairs,
                     "--eval-analogies", questions, "--quiet", "--stats-json", str(stats)]) == 0
        files.append(str(stats))
    return files


def test_the_report_draws_each_run_and_lists_its_numbers(sets, tmp_path):
    files = _two_runs(sets, tmp_path)
    png, page = tmp_path / "r.png", tmp_path / "r.html"
    assert main(["report", *files, "-o", str(png)]) == 0
    rgb = _pixels(png)
    assert rgb.std() > 10  # not blank
    assert _has_colour(rgb, BLUE, 200) and _has_colour(rgb, ORANGE, 200)  # both runs' lines
    assert main(["report", *files, "-o", str(page), "--labels", "skip-gram", "CBOW"]) == 0
    html = page.read_text()
    assert "data:image/png;base64," in html and "<h2>skip-gram</h2>" in html and "<h2>CBOW</h2>" in html
    assert html.count("<tr><td>") == 6  # three epochs of each run


def test_the_report_refuses_what_is_not_a_run(sets, tmp_path, capsys):
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({"vocab_size": 3, "epoch_loss": []}))
    with pytest.raises(FormatError, match="no epochs"):
        from wv_engine.report import draw_report
        draw_report([str(empty)], tmp_path / "r.png")
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    assert main(["report", str(broken), "-o", str(tmp_path / "r.png")]) == 1
    assert "not a JSON stats file" in capsys.readouterr().err
    assert main(["report", str(empty), "-o", str(tmp_path / "r.pdf")]) == 1
    assert ".png or .html" in capsys.readouterr().err


def test_a_map_labels_the_chosen_words(sets, tmp_path, capsys):
    text, _, _ = sets
    vectors = tmp_path / "v.bin"
    main(["word2vec", text, "-o", str(vectors), "--dim", "16", "--min-count", "1", "--quiet"])
    png = tmp_path / "map.png"
    assert main(["map", str(vectors), "-o", str(png), "--neighbours", "t0w0", "t3w0", "--per-word", "4"]) == 0
    rgb = _pixels(png)
    assert rgb.std() > 10 and _has_colour(rgb, BLUE, 100)
    assert "10 words" in capsys.readouterr().err
    assert main(["map", str(vectors), "-o", str(png), "--words", "t0w0", "nonesuch", "t1w1"]) == 1
    assert "nonesuch" in capsys.readouterr().err
    assert main(["map", str(vectors), "-o", str(png), "--words", "t0w0", "t1w1"]) == 1
    assert "at least 3" in capsys.readouterr().err
    assert main(["map", str(vectors)]) == 1
    assert "-o" in capsys.readouterr().err


def test_the_projector_export_reads_back_as_tensorboard_reads_it(sets, tmp_path):
    """vectors.tsv: a row of tab-separated floats a point; metadata.tsv: one
    label a line (one column: no header); the config names both."""
    text, _, _ = sets
    path = tmp_path / "v.bin"
    main(["word2vec", text, "-o", str(path), "--dim", "16", "--min-count", "1", "--quiet"])
    out = tmp_path / "proj"
    assert main(["map", str(path), "--projector", str(out), "--top", "20"]) == 0
    rows = [[float(x) for x in line.split("\t")] for line in (out / "vectors.tsv").read_text().splitlines()]
    labels = (out / "metadata.tsv").read_text().splitlines()
    v = load_vectors(path)
    assert labels == v.words[:20] and len(rows) == 20 and all(len(r) == 16 for r in rows)
    np.testing.assert_allclose(np.array(rows), v.vectors[:20], rtol=1e-7)
    config = (out / "projector_config.pbtxt").read_text()
    assert 'tensor_path: "vectors.tsv"' in config and 'metadata_path: "metadata.tsv"' in config


def test_snapshots_draw_a_map_per_epoch_that_keeps_its_axes(sets, tmp_path):
    from wv_engine.maps import project

    text, _, _ = sets
    snaps = tmp_path / "snaps"
    words = [f"t{t}w{w}" for t in range(3) for w in range(3)]
    assert main(["word2vec", text, "-o", str(tmp_path / "v.bin"), "--dim", "16", "--epochs", "3", "--min-count",
                 "1", "--quiet", "--snapshots", str(snaps), "--snapshot-words", *words]) == 0
    assert sorted(p.name for p in snaps.iterdir()) == ["epoch_01.png", "epoch_02.png", "epoch_03.png"]
    assert all(_pixels(p).std() > 10 for p in snaps.iterdir())
    m = np.random.default_rng(0).standard_normal((9, 16))
    first = project(m)
    np.testing.assert_allclose(project(m, previous=-first), -first, atol=1e-12)  # signs follow the last map


def test_without_matplotlib_the_pictures_say_how_to_get_it_and_scores_still_land(sets, tmp_path, monkeypatch,
                                                                                capsys):
    text, pairs, _ = sets
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    stats = tmp_path / "s.json"
    assert main(["word2vec", text, "-o", str(tmp_path / "v.bin"), "--dim", "8", "--epochs", "2", "--min-count", "1",
                 "--quiet", "--eval-every", "1", "--eval-pairs", pairs, "--stats-json", str(stats)]) == 0
    assert len(json.loads(stats.read_text())["epoch_scores"]) == 2
    assert main(["report", str(stats), "-o", str(tmp_path / "r.png")]) != 0
    assert 'pip install "wv-engine[plot]"' in capsys.readouterr().err
    assert main(["word2vec", text, "-o", str(tmp_path / "v.bin"), "--quiet", "--snapshots", str(tmp_path)]) != 0
    assert 'pip install "wv-engine[plot]"' in capsys.readouterr().err


def test_glove_and_word2vec_models_take_the_callbacks_in_python(sets, tmp_path):
    text, pairs, _ = sets
    from wv_engine.maps import EpochMaps

    scores, maps = EpochScores(pairs=[pairs]), EpochMaps(tmp_path / "m", ["t0w0", "t1w0", "t2w0", "t3w0"])
    model = GloVe(dim=8, epochs=2, min_count=1, threads=1)
    model.fit(text, callbacks=[scores, maps])
    assert [e["epoch"] for e in model.last_stats.epoch_scores] == [1, 2] and len(maps.paths) == 2


def test_the_default_map_groups_come_from_the_analogy_set():
    from wv_engine import Vectors
    from wv_engine.maps import analogy_groups

    words = ["athens", "greece", "baghdad", "iraq", "boy", "girl", "brother", "sister", "whale", "ship"]
    v = Vectors(words, np.random.default_rng(0).standard_normal((len(words), 8)).astype(np.float32))
    assert analogy_groups(v) == {"capitals": ["athens", "baghdad"], "countries": ["greece", "iraq"],
                                 "male": ["boy", "brother"], "female": ["girl", "sister"]}
    assert analogy_groups(v, restrict_vocab=4) == {"capitals": ["athens", "baghdad"], "countries": ["greece", "iraq"]}


def test_fasttext_epoch_scores_see_each_epochs_vectors(sets, tmp_path):
    """FastText's vectors are made from its rows (a copy): a callback gets
    them as each epoch left them, and the last scores are those of the
    trained model's vectors."""
    from wv_engine import FastText

    text, pairs, questions = sets
    scores = EpochScores(analogies=questions, pairs=[pairs])
    model = FastText(dim=8, epochs=3, min_count=1, threads=1, bucket=2000, seed=2)
    seen = []
    model.fit(text, callbacks=[scores, lambda m, e: seen.append(m.vectors.vectors.copy())])
    assert not np.array_equal(seen[0], seen[1]) and not np.array_equal(seen[1], seen[2])
    assert scores.scores[-1] | {"seconds": 0} == {"epoch": 3, **summary(evaluate_sets(
        model.vectors, questions, [pairs])), "seconds": 0}
