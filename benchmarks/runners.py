"""How each tool is invoked: the exact command line for one (mode, threads)
run, where its vectors land, and how its training throughput is read back.

Every tool gets the same settings (Settings) and the same plain-text corpus
(gensim gets a copy of it split into lines of 1,000 words, see corpus.py)."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from dataclasses import asdict, dataclass

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# mode -> architecture / loss. alpha: 0.025 for skip-gram, 0.05 for CBOW, for every tool.
MODES: dict[str, dict] = {
    "sg-ns": {"arch": "skipgram", "loss": "ns", "sg": 1, "hs": 0, "alpha": 0.025},
    "cbow-ns": {"arch": "cbow", "loss": "ns", "sg": 0, "hs": 0, "alpha": 0.05},
    "sg-hs": {"arch": "skipgram", "loss": "hs", "sg": 1, "hs": 1, "alpha": 0.025},
}


@dataclass
class Settings:
    dim: int = 100
    window: int = 5
    negative: int = 5
    sample: float = 1e-4
    min_count: int = 5
    epochs: int = 1
    seed: int = 1

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Corpus:
    """The prepared corpus: plain (every tool but gensim), split (gensim)."""
    source: str
    plain: str
    split: str
    words: int       # whitespace-separated tokens, in and out of the vocabulary
    lines: int
    plain_prep_s: float
    split_prep_s: float


@dataclass
class Job:
    cmd: list[str]
    vectors: str            # the file quality.py evaluates
    stats: str | None = None


def negatives(mode: str, s: Settings) -> int:
    return 0 if MODES[mode]["hs"] else s.negative


def min_alpha(mode: str) -> float:
    return MODES[mode]["alpha"] * 1e-4   # word2vec.c's and wv_engine's floor


class Tool:
    name = "?"

    def unavailable(self) -> str | None:
        """None when the tool can run, else why it is skipped."""
        return None

    def job(self, mode: str, threads: int, s: Settings, corpus: Corpus, prefix: str) -> Job:
        raise NotImplementedError

    def throughput(self, job: Job, corpus: Corpus, s: Settings, wall_s: float,
                   stdout_path: str) -> dict:
        """{"words_per_sec", "basis", "train_seconds", "tool_stats"}. Default:
        corpus words x epochs / whole-process wall time (the tool reports
        nothing better)."""
        return {"words_per_sec": corpus.words * s.epochs / wall_s if wall_s else None,
                "basis": "corpus words x epochs / whole-process wall time",
                "train_seconds": None, "tool_stats": None}


class WvEngine(Tool):
    name = "wv-engine"

    def job(self, mode, threads, s, corpus, prefix):
        m = MODES[mode]
        out, stats = prefix + ".bin", prefix + ".stats.json"
        cmd = [sys.executable, "-m", "wv_engine.cli", "word2vec", corpus.plain, "-o", out,
               "--arch", m["arch"], "--loss", m["loss"], "--dim", str(s.dim), "--window", str(s.window),
               "--sample", repr(s.sample),
               "--min-count", str(s.min_count), "--epochs", str(s.epochs), "--alpha", repr(m["alpha"]),
               "--min-alpha", repr(min_alpha(mode)), "--threads", str(threads), "--seed", str(s.seed),
               "--format", "bin", "--stats-json", stats, "--quiet"]
        if not m["hs"]:
            # with --loss hs the core uses no negatives; the CLI rejects --negative 0 (>= 1 only)
            cmd[cmd.index("--sample"):cmd.index("--sample")] = ["--negative", str(s.negative)]
        return Job(cmd, out, stats)

    def throughput(self, job, corpus, s, wall_s, stdout_path):
        with open(job.stats) as f:
            st = json.load(f)
        return {"words_per_sec": st.get("words_per_sec"),
                "basis": "wv-engine --stats-json words_per_sec (corpus tokens x epochs / train seconds)",
                "train_seconds": st.get("train_seconds"), "tool_stats": st}


class Gensim(Tool):
    name = "gensim"

    def unavailable(self):
        if importlib.util.find_spec("gensim") is None:
            return "gensim is not importable (pip install gensim)"
        return None

    def job(self, mode, threads, s, corpus, prefix):
        m = MODES[mode]
        out = prefix + ".bin"
        cmd = [sys.executable, "-m", "benchmarks.gensim_train", "--corpus", corpus.split, "--output", out,
               "--sg", str(m["sg"]), "--hs", str(m["hs"]), "--negative", str(negatives(mode, s)),
               "--dim", str(s.dim), "--window", str(s.window), "--sample", repr(s.sample),
               "--min-count", str(s.min_count), "--epochs", str(s.epochs), "--alpha", repr(m["alpha"]),
               "--min-alpha", repr(min_alpha(mode)), "--workers", str(threads), "--seed", str(s.seed)]
        return Job(cmd, out)

    def throughput(self, job, corpus, s, wall_s, stdout_path):
        st = None
        with open(stdout_path) as f:
            for line in f:
                line = line.strip()
                if line.startswith("{"):
                    st = json.loads(line)
        if not st or not st.get("train_seconds"):
            return super().throughput(job, corpus, s, wall_s, stdout_path)
        return {"words_per_sec": corpus.words * s.epochs / st["train_seconds"],
                "basis": "corpus words x epochs / gensim train() seconds",
                "train_seconds": st["train_seconds"], "tool_stats": st}


class BinaryTool(Tool):
    """A tool given as a path to its binary."""

    def __init__(self, binary: str | None):
        self.binary = binary

    def unavailable(self):
        if not self.binary:
            return f"no binary given (--{self.flag})"
        if not (os.path.isfile(self.binary) and os.access(self.binary, os.X_OK)):
            return f"--{self.flag} {self.binary}: not an executable file"
        return None


class Word2VecC(BinaryTool):
    name = "word2vec.c"
    flag = "word2vec-bin"

    def job(self, mode, threads, s, corpus, prefix):
        m = MODES[mode]
        out = prefix + ".bin"
        cmd = [self.binary, "-train", corpus.plain, "-output", out, "-cbow", str(1 - m["sg"]),
               "-size", str(s.dim), "-window", str(s.window), "-hs", str(m["hs"]),
               "-negative", str(negatives(mode, s)), "-sample", repr(s.sample),
               "-min-count", str(s.min_count), "-iter", str(s.epochs), "-threads", str(threads),
               "-binary", "1", "-alpha", repr(m["alpha"])]
        return Job(cmd, out)


class FastText(BinaryTool):
    name = "fastText"
    flag = "fasttext-bin"

    def job(self, mode, threads, s, corpus, prefix):
        m = MODES[mode]
        cmd = [self.binary, "skipgram" if m["sg"] else "cbow", "-input", corpus.plain, "-output", prefix,
               "-minn", "0", "-maxn", "0", "-dim", str(s.dim), "-ws", str(s.window),
               "-neg", str(s.negative), "-loss", "hs" if m["hs"] else "ns", "-t", repr(s.sample),
               "-minCount", str(s.min_count), "-epoch", str(s.epochs), "-thread", str(threads),
               "-lr", repr(m["alpha"]), "-verbose", "0"]
        return Job(cmd, prefix + ".vec")   # fastText writes PREFIX.bin (its model) and PREFIX.vec


class GloVe(Tool):
    """TODO: Stanford GloVe (vocab_count, cooccur, shuffle, glove from
    --glove-dir) against wv_engine's GloVe trainer, which is not written yet.
    Until both exist this runner is skipped; it never reports numbers."""
    name = "GloVe"

    def __init__(self, glove_dir: str | None):
        self.glove_dir = glove_dir

    def unavailable(self):
        return ("skipped: the GloVe comparison is a TODO (wv_engine has no GloVe trainer yet, so "
                "there is nothing to compare Stanford GloVe against)")


def make_tools(word2vec_bin: str | None, fasttext_bin: str | None) -> list[Tool]:
    return [WvEngine(), Gensim(), Word2VecC(word2vec_bin), FastText(fasttext_bin)]
