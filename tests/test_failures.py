"""The failures a long run must survive (issue "Nothing lost, nothing
wasted"): each case as a user meets it, through the CLI or the API."""

import json
import os
import signal
import subprocess
import sys
import threading

import numpy as np
import pytest

from wv_engine import FormatError, Vectors, load_vectors
from wv_engine.cli import main


@pytest.fixture
def corpus(topics_corpus, text_file):
    _, sentences = topics_corpus
    return text_file([" ".join(s) for s in sentences])


W2V = ["--dim", "8", "--epochs", "2", "--min-count", "1", "--threads", "1", "--quiet"]


def test_ctrl_c_in_the_first_epoch_keeps_the_old_output(corpus, tmp_path, monkeypatch, capsys):
    from wv_engine.word2vec import Word2Vec

    out = tmp_path / "v.bin"
    assert main(["word2vec", corpus, "-o", str(out), *W2V]) == 0
    good = out.read_bytes()

    def ctrl_c(self, *args, **kwargs):  # before any epoch is booked
        raise KeyboardInterrupt

    monkeypatch.setattr(Word2Vec, "record_epoch", ctrl_c)
    assert main(["word2vec", corpus, "-o", str(out), *W2V[:-1]]) == 130
    assert out.read_bytes() == good
    assert load_vectors(str(out) + ".partial").dim == 8
    assert f"{out} is left as it was" in capsys.readouterr().err


def test_output_locations_are_checked_before_any_work(corpus, tmp_path, capsys):
    missing = tmp_path / "no" / "such" / "dir"
    for flag in ("-o", "--checkpoint", "--stats-json", "--save-vocab"):
        argv = ["word2vec", corpus, "-o", str(tmp_path / "v.bin"), *W2V]
        if flag == "-o":
            argv[3] = str(missing / "v.bin")
        else:
            argv += [flag, str(missing / "f")]
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and str(missing) in err and ".tmp" not in err
        assert not (tmp_path / "v.bin").exists()  # failed before training, not after
    assert main(["glove", corpus, "-o", str(missing / "g.txt"), "--quiet", "--min-count", "1"]) == 1
    assert main(["svd", corpus, "-o", str(tmp_path / "s.txt"), "--quiet", "--min-count", "1",
                 "--save-cooccurrence", str(missing / "c.npz")]) == 1


def test_a_failing_secondary_file_does_not_lose_the_vectors(corpus, tmp_path, monkeypatch, capsys):
    from wv_engine.word2vec import Word2Vec

    def full_disk(self, path):
        raise OSError(28, f"cannot write {path}: No space left on device")

    monkeypatch.setattr(Word2Vec, "save", full_disk)
    out, ckpt = tmp_path / "v.bin", tmp_path / "run.ckpt"
    assert main(["word2vec", corpus, "-o", str(out), *W2V, "--checkpoint", str(ckpt),
                 "--stats-json", str(tmp_path / "s.json")]) == 1
    assert load_vectors(out).dim == 8 and json.loads((tmp_path / "s.json").read_text())["epochs"] == 2
    err = capsys.readouterr().err
    assert "the vectors were saved, but the checkpoint" in err and str(ckpt) in err


def test_eval_with_no_coverage_prints_n_a(tmp_path, capsys):
    path = tmp_path / "v.bin"
    Vectors(["zzq", "qqz"], np.ones((2, 3), np.float32)).save(path, format="word2vec-bin")
    assert main(["eval", str(path)]) == 0
    out = capsys.readouterr().out
    assert "n/a of 0 answered questions" in out and "Spearman n/a" in out


def test_glove_resume_keeps_the_checkpoint_settings_unless_a_flag_is_given(corpus, tmp_path, capsys):
    ckpt = tmp_path / "g.ckpt"
    common = ["--min-count", "1", "--quiet", "--epochs", "1"]
    assert main(["glove", corpus, "-o", str(tmp_path / "a.txt"), "--dim", "6", "--window", "4", "--x-max", "7",
                 "--checkpoint", str(ckpt), *common]) == 0
    stats = tmp_path / "s.json"
    assert main(["glove", corpus, "-o", str(tmp_path / "b.txt"), "--resume", str(ckpt), "--stats-json",
                 str(stats), *common]) == 0
    config = json.loads(stats.read_text())["config"]
    assert (config["dim"], config["window"], config["x_max"]) == (6, 4, 7.0)
    assert main(["glove", corpus, "-o", str(tmp_path / "b.txt"), "--resume", str(ckpt), "--window", "9",
                 *common]) == 1
    assert "trained with window=4, but --window asks for 9" in capsys.readouterr().err


def test_damaged_glove_checkpoints_give_one_line(corpus, tmp_path, capsys):
    from wv_engine.glove import GloVe

    model = GloVe(dim=4, window=3, min_count=1, epochs=1, threads=1)
    model.fit(corpus, progress=False)
    ckpt = tmp_path / "g.npz"
    model.save_checkpoint(ckpt)
    z = dict(np.load(ckpt))
    meta = json.loads(z["meta"].tobytes())
    for damage in ({**meta, "config": {**meta["config"], "dim": "four"}},
                   {**meta, "config": {**meta["config"], "colour": 1}},
                   {**meta, "epochs_trained": None}, [1, 2]):
        bad = tmp_path / "bad.npz"
        np.savez(bad, **{**z, "meta": np.frombuffer(json.dumps(damage).encode(), np.uint8)})
        with pytest.raises(FormatError):
            GloVe.load_checkpoint(bad)
        assert main(["glove", corpus, "-o", str(tmp_path / "o.txt"), "--resume", str(bad), "--quiet"]) == 1
        err = capsys.readouterr().err
        assert err.startswith("wv-engine: error:") and err.count("\n") == 1 and "bad.npz" in err
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(FormatError, match="not a GloVe checkpoint"):
        GloVe.load_checkpoint(tmp_path / "junk.npz")


def test_memory_errors_say_what_to_change(corpus, tmp_path, monkeypatch, capsys):
    from wv_engine.vocab import Vocabulary

    def no_memory(*args, **kwargs):
        raise MemoryError()

    monkeypatch.setattr(Vocabulary, "build", no_memory)
    assert main(["word2vec", corpus, "-o", str(tmp_path / "v.bin"), *W2V]) == 1
    err = capsys.readouterr().err
    assert "out of memory during `wv-engine word2vec`" in err and "--min-count" in err


@pytest.mark.skipif("asan" in os.environ.get("LD_PRELOAD", ""),
                    reason="under the sanitizers the child needs ASan's runtime, which reserves more address "
                           "space than the limit this test sets; the plain stage runs it")
def test_the_memory_check_honours_the_address_space_limit(tmp_path):
    code = ("import resource; from wv_engine import memory; "
            "resource.setrlimit(resource.RLIMIT_AS, (4 << 30, resource.RLIM_INFINITY)); "
            "print(memory.available_memory())")
    env = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(__import__("wv_engine").__file__))}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=tmp_path,
                         env=env)
    assert run.returncode == 0, run.stderr
    assert 0 < int(run.stdout) < 4 << 30


def test_sigterm_stops_like_ctrl_c_and_saves_the_checkpoint(tmp_path):
    lines = [" ".join(f"w{(i * 7 + j) % 500}" for j in range(50)) for i in range(10000)]
    corpus = tmp_path / "c.txt"
    corpus.write_text("\n".join(lines) + "\n")
    ckpt, out = tmp_path / "run.ckpt", tmp_path / "v.bin"
    proc = subprocess.Popen([sys.executable, "-m", "wv_engine.cli", "word2vec", str(corpus), "-o", str(out),
                             "--dim", "32", "--epochs", "200", "--threads", "1", "--checkpoint", str(ckpt)],
                            stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                            env={**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(
                                __import__("wv_engine").__file__))})
    seen_epoch = threading.Event()

    def watch():
        for line in proc.stderr:
            if line.startswith("epoch 1:"):
                seen_epoch.set()

    threading.Thread(target=watch, daemon=True).start()
    assert seen_epoch.wait(120), "no epoch finished"
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(120) == 130
    assert ckpt.exists() and load_vectors(out).dim == 32
    assert [p for p in os.listdir(tmp_path) if p.endswith(".tmp")] == []


def test_killed_writers_leave_no_visible_file_after_the_next_save(tmp_path):
    from wv_engine.files import atomic_write

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / f".v.bin.{dead.pid}.abcd.tmp"  # what a SIGKILLed save leaves (no O_TMPFILE here)
    stale.write_bytes(b"x" * 1000)
    with atomic_write(tmp_path / "v.bin") as f:
        f.write(b"new")
    assert sorted(os.listdir(tmp_path)) == ["v.bin"]


def test_vectors_from_a_pipe_are_refused_at_once(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(FormatError, match="cannot read vectors from a pipe"):
        load_vectors(fifo)
    with pytest.raises(FormatError, match="cannot read vectors from a pipe"):
        from wv_engine.io import detect_format
        detect_format(fifo)


def test_native_sections_inside_the_header_and_deep_nesting_are_refused(tmp_path):
    import struct

    v = Vectors(["a", "b"], np.ones((2, 3), np.float32))
    path = tmp_path / "v.wv"
    v.save(path)
    data = path.read_bytes()
    head_len = struct.unpack("<I", data[12:16])[0]
    doc = json.loads(data[16:16 + head_len])
    doc["sections"]["vectors"]["offset"] = 16  # inside the header: would load the header's bytes
    head = json.dumps(doc).encode()
    (tmp_path / "inside.wv").write_bytes(data[:12] + struct.pack("<I", len(head)) + head + data[16 + len(head):])
    with pytest.raises(FormatError, match="inside the header"):
        load_vectors(tmp_path / "inside.wv")
    nested = b"[" * 100000 + b"]" * 100000
    (tmp_path / "deep.wv").write_bytes(data[:12] + struct.pack("<I", len(nested)) + nested)
    with pytest.raises(FormatError, match="nested too deeply|damaged JSON header"):
        load_vectors(tmp_path / "deep.wv")


def test_a_tiny_max_vocab_size_is_a_clear_error_and_pruned_counts_say_so(corpus, tmp_path, capsys):
    for command in ("word2vec", "glove", "svd"):
        assert main([command, corpus, "-o", str(tmp_path / "o.txt"), "--max-vocab-size", "1", "--quiet",
                     "--min-count", "1"]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "max_vocab_size=1 pruned away every word" in err
    assert main(["word2vec", corpus, "-o", str(tmp_path / "v.bin"), "--max-vocab-size", "30", "--min-count", "1",
                 "--dim", "4", "--epochs", "1", "--threads", "1"]) == 0
    assert "at least" in capsys.readouterr().err  # not the number held presented as the corpus's
