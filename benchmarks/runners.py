"""How each tool is invoked: the exact command line for one (mode, threads)
run, where its vectors land, and how its training throughput is read back.
Word2vec modes (MODES) run wv-engine, gensim, word2vec.c and fastText; the
subword modes (SUBWORD_MODES: fastText's model with character n-grams) run
`wv-engine fasttext`, gensim's FastText and fastText; the GloVe mode (GLOVE)
runs wv-engine's GloVe and Stanford GloVe's four stages.

Every tool gets the same settings (Settings) and the same plain-text corpus
(gensim gets a copy of it split into lines of 1,000 words, see corpus.py)."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import sys
from dataclasses import asdict, dataclass

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# mode -> architecture / loss. alpha: 0.025 for skip-gram, 0.05 for CBOW, for every tool.
MODES: dict[str, dict] = {
    "sg-ns": {"arch": "skipgram", "loss": "ns", "sg": 1, "hs": 0, "alpha": 0.025},
    "cbow-ns": {"arch": "cbow", "loss": "ns", "sg": 0, "hs": 0, "alpha": 0.05},
    "sg-hs": {"arch": "skipgram", "loss": "hs", "sg": 1, "hs": 1, "alpha": 0.025},
    "cbow-hs": {"arch": "cbow", "loss": "hs", "sg": 0, "hs": 1, "alpha": 0.05},
}

# fastText's unsupervised model at fastText's defaults (src/args.cc): negative sampling, n-grams of 3 to 6
# characters hashed into 2M rows, lr 0.05 falling on a line to 0 (gensim: to alpha x 1e-4, as wv-engine's
# floor), noise distribution count^0.5; dim, window, negative, sample 1e-4, min_count and epochs from Settings.
SUBWORD_MODES: dict[str, dict] = {
    "sg-sub": {"arch": "skipgram", "loss": "ns", "sg": 1, "hs": 0, "alpha": 0.05},
    "cbow-sub": {"arch": "cbow", "loss": "ns", "sg": 0, "hs": 0, "alpha": 0.05},
}
NGRAMS = {"minn": 3, "maxn": 6, "bucket": 2_000_000}
SUBWORD_NS_EXPONENT = 0.5


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


def mode_settings(mode: str) -> dict:
    """The architecture, loss and alpha of a word2vec or subword mode."""
    return MODES[mode] if mode in MODES else SUBWORD_MODES[mode]


def negatives(mode: str, s: Settings) -> int:
    return 0 if mode_settings(mode)["hs"] else s.negative


def min_alpha(mode: str) -> float:
    return mode_settings(mode)["alpha"] * 1e-4   # word2vec.c's floor, given to gensim (wv-engine: its --schedule)


class Tool:
    name = "?"
    aliases: tuple = ()
    modes: tuple = tuple(MODES)   # the modes this tool runs

    def execute(self, job: "Job", mode: str, threads: int, s, corpus: "Corpus", prefix: str,
                timeout: float | None, env: dict, cwd: str):
        """Runs the job, measured (one process by default)."""
        from .measure import run_measured
        return run_measured(job.cmd, stdout_path=prefix + ".stdout", stderr_path=prefix + ".stderr",
                            timeout=timeout, env=env, cwd=cwd)

    def unavailable(self) -> str | None:
        """None when the tool can run, else why it is skipped."""
        return None

    def shortfall(self, stdout_path: str, s, threads: int) -> str | None:
        """Why a run that exited 0 still did not do the work asked (its
        result would not count), or None."""
        return None

    def job(self, mode: str, threads: int, s: Settings, corpus: Corpus, prefix: str) -> Job:
        raise NotImplementedError

    def own_vectors(self, job: Job, words: list[str]):
        """The tool's own vectors of `words` (a float32 array, one row a word)
        for a check of the vectors the suite reads from its file; None: no
        other way to get them (subword modes only)."""
        return None

    def results(self, job: Job, corpus: Corpus, s, m, stdout_path: str) -> dict:
        """What the run reports beyond the measurement (m): throughput() by
        default; the GloVe tools add count_seconds, stage_seconds, epoch_cost."""
        return self.throughput(job, corpus, s, m.wall_s, stdout_path)

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
    extra_args: list = []  # --wv-args: appended to every word2vec command

    def job(self, mode, threads, s, corpus, prefix):
        m = MODES[mode]
        out, stats = prefix + ".bin", prefix + ".stats.json"
        cmd = [sys.executable, "-m", "wv_engine.cli", "word2vec", corpus.plain, "-o", out,
               "--arch", m["arch"], "--loss", m["loss"], "--dim", str(s.dim), "--window", str(s.window),
               "--sample", repr(s.sample),
               "--min-count", str(s.min_count), "--epochs", str(s.epochs), "--alpha", repr(m["alpha"]),
               "--threads", str(threads), "--seed", str(s.seed),
               "--format", "bin", "--stats-json", stats, "--quiet"]  # its default schedule (--schedule)
        if not m["hs"]:
            # with --loss hs the core uses no negatives; the CLI rejects --negative 0 (>= 1 only)
            cmd[cmd.index("--sample"):cmd.index("--sample")] = ["--negative", str(s.negative)]
        return Job(cmd + list(self.extra_args), out, stats)

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
        m = mode_settings(mode)
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


# word2vec.c's stdout at its default -debug 2: its word count, then a progress line every 10,000 words a thread
_W2V_WORDS = re.compile(r"Words in train file: *([0-9]+)")
_W2V_PROGRESS = re.compile(r"Progress: *([0-9.]+)%")


def word2vec_c_shortfall(stdout: str, epochs: int, threads: int) -> str | None:
    """Why a word2vec.c run did not train all of its -iter epochs, or None.

    tmikolov/word2vec never clears its end-of-file flag when a thread goes
    back to its shard's start for the next epoch (its issue #47): a thread
    that reaches the end of the file trains once, whatever -iter says. At one
    thread that is every run with -iter > 1; at more, the last thread when
    its shard holds fewer words than its share. Its progress then stops
    short of 100% by that thread's lost epochs. The last line printed may lag
    the end by 10,000 words a thread, which is allowed for."""
    words, found = _W2V_WORDS.search(stdout), _W2V_PROGRESS.findall(stdout)
    if epochs <= 1 or not words or not found:
        return None  # one epoch cannot be cut short; without its output there is nothing to go by
    progress = float(found[-1]) / 100
    slack = threads * 10_001 / (epochs * max(int(words.group(1)), 1)) + 0.005
    if 1 - progress <= slack:
        return None
    return (f"word2vec.c trained {100 * progress:.1f}% of its {epochs}-epoch schedule: a thread that "
            "reaches the end of the file stops after one epoch (tmikolov/word2vec issue #47: its eof "
            "flag is not cleared when the thread rewinds); rebuild it with that flag reset, or use more threads")


class Word2VecC(BinaryTool):
    name = "word2vec.c"
    flag = "word2vec-bin"

    def shortfall(self, stdout_path: str, s: Settings, threads: int) -> str | None:
        with open(stdout_path, errors="replace") as f:
            return word2vec_c_shortfall(f.read(), s.epochs, threads)

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


class WvEngineFastText(WvEngine):
    """`wv-engine fasttext` (fastText's model), writing fastText's .bin."""
    modes = tuple(SUBWORD_MODES)

    def job(self, mode, threads, s, corpus, prefix):
        m = SUBWORD_MODES[mode]
        out, stats = prefix + ".bin", prefix + ".stats.json"
        cmd = [sys.executable, "-m", "wv_engine.cli", "fasttext", corpus.plain, "-o", out, "--arch", m["arch"],
               "--dim", str(s.dim), "--window", str(s.window), "--negative", str(s.negative),
               "--sample", repr(s.sample), "--min-count", str(s.min_count), "--epochs", str(s.epochs),
               "--alpha", repr(m["alpha"]), "--ns-exponent", repr(SUBWORD_NS_EXPONENT),
               "--minn", str(NGRAMS["minn"]), "--maxn", str(NGRAMS["maxn"]), "--bucket", str(NGRAMS["bucket"]),
               "--threads", str(threads), "--seed", str(s.seed), "--format", "bin", "--stats-json", stats, "--quiet"]
        return Job(cmd, out, stats)


class GensimFastText(Gensim):
    """gensim's FastText (corpus_file), saved as fastText's .bin (save_facebook_model)."""
    modes = tuple(SUBWORD_MODES)

    def job(self, mode, threads, s, corpus, prefix):
        job = super().job(mode, threads, s, corpus, prefix)
        job.vectors = prefix + ".bin"
        job.cmd += ["--fasttext", "--ns-exponent", repr(SUBWORD_NS_EXPONENT),
                    *(x for k, v in NGRAMS.items() for x in (f"--{k}", str(v)))]
        return job

    def own_vectors(self, job, words):
        from gensim.models.fasttext import load_facebook_vectors

        kv = load_facebook_vectors(job.vectors)
        return kv[words]


class FastTextSubword(FastText):
    """fastText's skipgram / cbow with its n-grams; its .bin is evaluated."""
    modes = tuple(SUBWORD_MODES)

    def job(self, mode, threads, s, corpus, prefix):
        m = SUBWORD_MODES[mode]
        cmd = [self.binary, m["arch"], "-input", corpus.plain, "-output", prefix,
               "-minn", str(NGRAMS["minn"]), "-maxn", str(NGRAMS["maxn"]), "-bucket", str(NGRAMS["bucket"]),
               "-dim", str(s.dim), "-ws", str(s.window), "-neg", str(s.negative), "-loss", "ns",
               "-t", repr(s.sample), "-minCount", str(s.min_count), "-epoch", str(s.epochs),
               "-thread", str(threads), "-lr", repr(m["alpha"]), "-seed", str(s.seed), "-verbose", "0"]
        return Job(cmd, prefix + ".bin")   # PREFIX.bin: the model with its n-gram rows (PREFIX.vec: words only)

    def own_vectors(self, job, words):
        from .absent_words import fasttext_own_vectors

        return fasttext_own_vectors(self.binary, job.vectors, words)


GLOVE = "glove"   # the GloVe mode: wv-engine's GloVe against Stanford GloVe


@dataclass
class GloVeSettings:
    """Stanford's demo.sh settings (except epochs: 15 like the demo, 3 with --quick)."""
    dim: int = 100
    window: int = 15
    x_max: float = 10.0
    alpha: float = 0.75
    eta: float = 0.05
    epochs: int = 15
    min_count: int = 5
    memory_gb: float = 4.0   # Stanford's -memory (cooccur, shuffle); wv-engine keeps its default cap
    seed: int = 1

    def to_dict(self) -> dict:
        return asdict(self)


_COST_LINE = re.compile(r"iter:\s*(\d+),\s*cost:\s*([-+0-9.eEnaifNAIF]+)")


def parse_stanford_costs(text: str) -> list[float]:
    """The per-iteration cost of glove's log lines ('iter: 001, cost: 0.068830',
    newer versions prefix a time stamp), in iteration order."""
    costs = {}
    for m in _COST_LINE.finditer(text):
        costs[int(m.group(1))] = float(m.group(2))
    return [costs[k] for k in sorted(costs)]


_COUNT_LINES = {"tokens": ("vocab_count", re.compile(r"Processed (\d+) tokens")),
                "vocab_size": ("vocab_count", re.compile(r"Using vocabulary of size (\d+)")),
                "nonzeros": ("glove", re.compile(r"Read (\d+) lines"))}


def parse_stanford_counts(logs: dict[str, str]) -> dict:
    """{"tokens", "vocab_size", "nonzeros"} from the stages' stderr logs
    (stage -> text): vocab_count's 'Processed N tokens.' and 'Using vocabulary
    of size N.', glove's 'Read N lines.' (co-occurrence records); a count not
    found is left out."""
    out = {}
    for key, (stage, pattern) in _COUNT_LINES.items():
        found = pattern.findall(logs.get(stage, ""))
        if found:
            out[key] = int(found[-1])
    return out


class WvEngineGloVe(Tool):
    """wv-engine's GloVe (`python -m wv_engine.cli glove`), one process."""
    name = "wv-engine"
    modes = (GLOVE,)
    extra_args: list = []  # appended to every glove command (the scale mode's --memory-limit, --tmp-dir)

    def job(self, mode, threads, s, corpus, prefix):
        g: GloVeSettings = s
        out, stats = prefix + ".txt", prefix + ".stats.json"
        cmd = [sys.executable, "-m", "wv_engine.cli", "glove", corpus.plain, "-o", out,
               "--dim", str(g.dim), "--window", str(g.window), "--x-max", repr(g.x_max),
               "--alpha", repr(g.alpha), "--epochs", str(g.epochs), "--eta", repr(g.eta),
               "--min-count", str(g.min_count), "--threads", str(threads), "--seed", str(g.seed),
               "--format", "txt", "--stats-json", stats, "--quiet"]
        return Job(cmd + list(self.extra_args), out, stats)

    def throughput(self, job, corpus, s, wall_s, stdout_path):
        with open(job.stats) as f:
            st = json.load(f)
        count, train = st.get("count_seconds"), st.get("train_seconds")
        other = wall_s - (count or 0) - (train or 0) if wall_s else None
        return {"words_per_sec": None, "basis": "not used for GloVe (compare wall and stage seconds)",
                "train_seconds": train, "count_seconds": count,
                "stage_seconds": {"count": count, "train": train, "other": other},
                "epoch_cost": st.get("epoch_cost"), "tool_stats": st}


class StanfordGloVe(Tool):
    """Stanford GloVe's four programs from --glove-dir, run as its demo.sh
    does, each measured on its own (wall = sum, peak RSS = max over stages).
    Every stage runs in a scratch folder PREFIX.work, or NAME.work in tmp_dir
    when one is given (their temporary files land in the working directory),
    which is deleted afterwards; the vectors (vectors.txt, with Stanford's
    trailing <unk> row) move to PREFIX.txt."""
    name = "Stanford GloVe"
    aliases = ("stanford", "glove", "stanford-glove")
    modes = (GLOVE,)
    BINARIES = ("vocab_count", "cooccur", "shuffle", "glove")

    def __init__(self, glove_dir: str | None, tmp_dir: str | None = None):
        self.glove_dir = glove_dir
        self.tmp_dir = tmp_dir
        self.bin_dir = None
        if glove_dir:
            for d in (glove_dir, os.path.join(glove_dir, "build")):
                if all(os.path.isfile(os.path.join(d, b)) and os.access(os.path.join(d, b), os.X_OK)
                       for b in self.BINARIES):
                    self.bin_dir = os.path.abspath(d)
                    break

    def unavailable(self):
        if not self.glove_dir:
            return "no --glove-dir given (a folder with Stanford's built vocab_count, cooccur, shuffle, glove)"
        if self.bin_dir is None:
            return (f"--glove-dir {self.glove_dir}: needs the executables {', '.join(self.BINARIES)} "
                    "in it (or in its build/)")
        return None

    def stages(self, threads: int, g: GloVeSettings, corpus: Corpus, work: str) -> list[dict]:
        """[{name, cmd, stdin, stdout}] in order, as demo.sh runs them (paths in work)."""
        b = lambda name: os.path.join(self.bin_dir, name)   # noqa: E731
        w = lambda name: os.path.join(work, name)            # noqa: E731
        mem = repr(g.memory_gb)
        return [
            {"name": "vocab_count", "stdin": corpus.plain, "stdout": w("vocab.txt"),
             "cmd": [b("vocab_count"), "-min-count", str(g.min_count), "-verbose", "2"]},
            {"name": "cooccur", "stdin": corpus.plain, "stdout": w("cooccurrence.bin"),
             "cmd": [b("cooccur"), "-memory", mem, "-vocab-file", w("vocab.txt"), "-verbose", "2",
                     "-window-size", str(g.window)]},
            {"name": "shuffle", "stdin": w("cooccurrence.bin"), "stdout": w("cooccurrence.shuf.bin"),
             "cmd": [b("shuffle"), "-memory", mem, "-verbose", "2", "-seed", str(g.seed)]},
            {"name": "glove", "stdin": None, "stdout": None,
             "cmd": [b("glove"), "-save-file", w("vectors"), "-threads", str(threads),
                     "-input-file", w("cooccurrence.shuf.bin"), "-x-max", repr(g.x_max),
                     "-iter", str(g.epochs), "-vector-size", str(g.dim), "-binary", "2",
                     "-vocab-file", w("vocab.txt"), "-verbose", "2", "-alpha", repr(g.alpha),
                     "-eta", repr(g.eta), "-seed", str(g.seed)]},
        ]

    def work_dir(self, prefix: str) -> str:
        if self.tmp_dir:
            return os.path.join(os.path.abspath(self.tmp_dir), os.path.basename(prefix) + ".work")
        return prefix + ".work"

    def job(self, mode, threads, s, corpus, prefix):
        work = self.work_dir(prefix)
        stages = self.stages(threads, s, corpus, work)
        shown = []
        for st in stages:
            shown += list(st["cmd"]) + (["<", st["stdin"]] if st["stdin"] else []) \
                + ([">", st["stdout"]] if st["stdout"] else []) + ["&&"]
        return Job(shown[:-1], prefix + ".txt", None)

    def execute(self, job, mode, threads, s, corpus, prefix, timeout, env, cwd):
        from .measure import Measurement, run_measured

        work = self.work_dir(prefix)
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        total = Measurement(cmd=job.cmd, wall_s=0.0, cpu_s=0.0, returncode=0)
        stage_recs, peaks, busy = [], [], 0.0
        try:
            for st in self.stages(threads, s, corpus, work):
                left = None if not timeout else timeout - total.wall_s
                if left is not None and left <= 0:
                    total.timed_out, total.error = True, f"timed out after {timeout:.0f} s before {st['name']}"
                    break
                log = f"{prefix}.{st['name']}"
                m = run_measured(st["cmd"], stdout_path=st["stdout"] or log + ".stdout",
                                 stderr_path=log + ".stderr", stdin_path=st["stdin"],
                                 timeout=left, env=env, cwd=work)
                stage_recs.append({"stage": st["name"], "cmd": m.cmd, "stdin": st["stdin"],
                                   "stdout": st["stdout"], "returncode": m.returncode, "wall_s": m.wall_s,
                                   "cpu_s": m.cpu_s, "peak_rss_mib": m.peak_rss_mib,
                                   "other_cpu_cores": m.other_cpu_cores, "error": m.error,
                                   "stderr_path": m.stderr_path})
                total.wall_s += m.wall_s or 0.0
                total.cpu_s += m.cpu_s or 0.0
                busy += (m.other_cpu_cores or 0.0) * (m.wall_s or 0.0)
                if m.peak_rss_mib is not None:
                    peaks.append(m.peak_rss_mib)
                total.stderr_path, total.stdout_path, total.stderr_tail = m.stderr_path, m.stdout_path, m.stderr_tail
                if not m.ok:
                    total.returncode, total.timed_out = m.returncode, m.timed_out
                    total.error = f"{st['name']}: {m.error or 'failed'}"
                    break
            if total.error is None:
                vec = os.path.join(work, "vectors.txt")
                if os.path.exists(vec):
                    os.replace(vec, job.vectors)
                else:
                    total.error = f"glove exited 0 but wrote no {vec}"
        finally:
            # the temporary files (vocab, co-occurrences, shuffled, vectors.bin, spills) go
            shutil.rmtree(work, ignore_errors=True)
        total.peak_rss_mib = max(peaks) if peaks else None
        total.other_cpu_cores = busy / total.wall_s if total.wall_s else None
        total.extra = {"stages": stage_recs}
        return total

    def results(self, job, corpus, s, m, stdout_path):
        stages = {r["stage"]: r["wall_s"] for r in m.extra.get("stages", [])}
        logs = {}
        for r in m.extra.get("stages", []):
            if r.get("stderr_path") and os.path.exists(r["stderr_path"]):
                with open(r["stderr_path"], errors="replace") as f:
                    logs[r["stage"]] = f.read()
        count = sum(stages.get(k) or 0.0 for k in ("vocab_count", "cooccur", "shuffle"))
        return {"words_per_sec": None, "basis": "not used for GloVe (compare wall and stage seconds)",
                "train_seconds": stages.get("glove"), "count_seconds": count,
                "stage_seconds": stages, "epoch_cost": parse_stanford_costs(logs.get("glove", "")),
                "tool_stats": {"stages": m.extra.get("stages", []), **parse_stanford_counts(logs)}}


def make_tools(word2vec_bin: str | None, fasttext_bin: str | None, glove_dir: str | None = None) -> list[Tool]:
    return [WvEngine(), Gensim(), Word2VecC(word2vec_bin), FastText(fasttext_bin),
            WvEngineFastText(), GensimFastText(), FastTextSubword(fasttext_bin),
            WvEngineGloVe(), StanfordGloVe(glove_dir)]
