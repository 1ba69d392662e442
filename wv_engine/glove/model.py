"""GloVe: weighted least squares on the co-occurrence matrix, trained with
AdaGrad in C threads (Hogwild), as Stanford's glove.c does it.

    model = GloVe(dim=100, window=10).fit("corpus.txt")
    model.vectors.most_similar("king")
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable

import numpy as np
import scipy.sparse as sp

from .. import _glove, cooccur, formats, pickling
from ..corpus import Corpus, CorpusSource, EncodedCorpus
from ..epochs import Checkpoints, run_epochs
from ..files import check_directory
from ..memory import available_memory, check_fits, gib
from ..progress import Progress
from ..settings import RANGES, Range, bounded, resolve_threads, threads_for
from ..settings import check as _check
from ..vectors import Vectors
from ..vocab import Vocabulary
from . import state as glove_state

OUTPUTS = ("sum", "word", "concat")


@dataclass
class GloVeEpoch:
    """One epoch: its mean cost per record (glove.c's figure), float64."""

    epoch: int
    cost: float
    records: int
    seconds: float


@dataclass
class GloVeStats:
    """Totals of one fit/train call."""

    vocab_size: int = 0
    nonzeros: int = 0
    count_seconds: float = 0.0
    train_seconds: float = 0.0
    interrupted: bool = False
    out_of_core: bool = False  # the records were streamed from blocks on disk
    blocks: int = 0
    grid_bands: int = 0  # trained on a grid of this many bands per side (0: none)
    grid_rounds: int = 0  # in this many rounds an epoch (out of core: over all its blocks)
    epochs: list[GloVeEpoch] = field(default_factory=list)
    epoch_scores: list[dict] = field(default_factory=list)  # an EpochScores callback's (epoch_scores.py)

    @property
    def epoch_cost(self) -> list[float]:
        """Mean cost per record of each epoch."""
        return [e.cost for e in self.epochs]


def table_stride(D: int) -> int:
    """Floats per interleaved row: 2 * D + 2, rounded up to 16 (64 bytes)."""
    return -(-(2 * D + 2) // 16) * 16


def interleaved_side(side: str, V: int, D: int) -> dict[str, np.ndarray]:
    """The parameters of one side (word or context) as views into one table
    whose row i holds vector i, its AdaGrad accumulators, bias and bias
    accumulator, padded to whole 64-byte lines and 64-byte aligned: a
    record's update then touches one region per side (csrc/glove.h)."""
    stride = table_stride(D)
    raw = np.zeros(V * stride + 16, dtype=np.float32)
    start = (-raw.ctypes.data % 64) // 4
    table = raw[start:start + V * stride].reshape(V, stride)
    return {side: table[:, :D], f"{side}_gradsq": table[:, D:2 * D],
            f"{side}_bias": table[:, 2 * D], f"{side}_bias_gradsq": table[:, 2 * D + 1]}


class GloVe:
    """Trains GloVe vectors.

    Defaults are the GloVe paper's and glove.c's: window 10 (Stanford's demo
    uses 15), x_max 100 (the demo uses 10), alpha 0.75, eta 0.05, 25 epochs,
    min_count 5 (vocab_count's default is 1, the demo's 5). output='sum'
    gives W + W~ (glove.c's -model 2); 'word' W alone; 'concat' [W, W~].
    Parameters are float32. `seed` makes single-thread runs reproducible.

    Out of core: fit() keeps the training records (16 bytes a non-zero)
    and the matrix in memory when together they fit in memory_limit, or,
    when no memory_limit is given, in half the memory available (the
    records are shuffled once with the seed and every epoch sees that one
    order, as glove.c reads its shuffled file). Past it, the last merge of
    the count writes each record to one of B block files in tmp_dir (the
    block a seeded hash of the pair; the files are unlinked at creation) with
    B such that two blocks fit in memory_limit, and each epoch reads the
    blocks in a seeded order, shuffles each in memory and trains on it while
    a reader thread loads the next. That order is also a uniformly random
    permutation of the records (random blocks, each shuffled, in random
    order), and by default every epoch sees the same one, as in memory; so
    the two paths train on the same records in equally random orders, not
    in the same one, and their costs and analogy scores agree within seed
    noise (docs/performance.md). Setting reshuffle_blocks = True draws a new
    order each epoch from (seed, epoch). With one thread an out-of-core run
    is reproducible too (resumed or not).

    Many cores (the grid; grid=None, the default, takes the rule of
    grid_plan: 16 bands a thread on two threads or more, glove.c's order on
    one): the ids are dealt into B bands of about equal numbers of records,
    each with frequent and rare words alike (each id in turn, most frequent
    first, to the band with the fewest records so far), the records sorted
    into the B x B cells of (word band, context band), each cell shuffled.
    Each thread trains one cell at a time, taken from those whose bands no
    other thread holds, in an order drawn from (seed, epoch), as FPSG /
    LIBMF schedule matrix factorisation. No two threads update one row at
    once, so a frequent word's row stays in one core's cache, and a cell's
    rows are few enough to stay in the last-level cache; a word's records in
    one cell are a fair sample of all of its records. The update rule and
    the cost are glove.c's. grid_rounds=R (default 1) splits the records at
    random into R rounds (a hash of their ids), each on its own cells,
    trained in turn. Out of core on a grid, the bands are dealt before the
    count (from each word's estimated records) and each block holds whole
    cells of the grid, a random share of them, as many in each, so an
    epoch's blocks make one grid, as in memory (B grows past B x B / 16
    blocks, 64 at 32 bands, for each to hold 16 cells); each block is sorted
    into its cells (and R rounds) as it is read, and such blocks train on
    their grid whatever the threads (grid=0 then asks for a new count).
    grid=0 keeps glove.c's one shuffled order split into a range per thread
    (docs/performance.md, "GloVe on a grid")."""

    def __init__(self, *, dim: int = 100, window: int = 10, x_max: float = 100.0, alpha: float = 0.75,
                 epochs: int = 25, eta: float = 0.05, min_count: int = 5, threads: int | None = None,
                 seed: int = 1, memory_limit: int | str | None = None, tmp_dir: str | None = None,
                 max_vocab_size: int | None = None, output: str = "sum", distance_weighting: bool = True,
                 exact_sqrt: bool = False, grid: int | None = None, grid_rounds: int | None = None):
        dim, window, epochs, min_count = (bounded(name, v) for name, v in [
            ("dim", dim), ("window", window), ("epochs", epochs), ("min_count", min_count)])
        x_max, eta = bounded("x_max", x_max), bounded("eta", eta)
        alpha, seed = bounded("alpha", alpha, RANGES["glove_alpha"]), bounded("seed", seed, RANGES["glove_seed"])
        max_vocab_size = bounded("max_vocab_size", max_vocab_size, none=True)
        _check("output", output, output in OUTPUTS, f"one of {OUTPUTS}")
        grid = bounded("grid", grid, Range(0, _glove.MAX_BANDS), none=True)
        grid_rounds = bounded("grid_rounds", grid_rounds, Range(1, _glove.MAX_ROUNDS), none=True)
        threads = resolve_threads(threads)
        self.dim, self.window, self.x_max, self.alpha = int(dim), int(window), float(x_max), float(alpha)
        self.epochs, self.eta, self.min_count, self.threads = int(epochs), float(eta), int(min_count), int(threads)
        self.seed, self.tmp_dir, self.max_vocab_size = int(seed), tmp_dir, max_vocab_size
        self.memory_limit = cooccur.memory_budget(memory_limit)
        # Without a limit given, the default caps the counting buffers only: the
        # training records stay in memory while they fit in what is available.
        self._limit_given = memory_limit is not None
        self.output, self.distance_weighting = output, bool(distance_weighting)
        self.exact_sqrt = bool(exact_sqrt)  # glove.c's division; else a refined rsqrt (csrc/glove.h)
        self.grid = None if grid is None else int(grid)
        self.grid_rounds = None if grid_rounds is None else int(grid_rounds)
        self._bands = 0  # the bands of the records held (0: glove.c's order)
        self._block_rounds, self._plan_for = 1, None  # out of core: each block's rounds, and whose
        self._asked_bands = 0  # out of core: the bands grid_plan gave (blocks written by bands may have more)
        self.vocab: Vocabulary | None = None
        self.cooccurrence: sp.csr_matrix | None = None
        self.params: dict[str, np.ndarray] | None = None
        self.epochs_trained = 0
        self.history: list[GloVeEpoch] = []
        self.last_stats = GloVeStats()
        self._records = None
        self._cells = None  # with a grid: the offsets of the records' cells
        self._core = None
        self.count_seconds = self.records_seconds = 0.0  # the last count's stages (count_records)
        self.stage_seconds: dict[str, float] = {}  # prepare_training's stages
        # Out of core: False keeps one order for every epoch, as in memory and
        # glove.c; True draws a new one each epoch (docs/performance.md).
        self.reshuffle_blocks = False

    def config(self) -> dict:
        """The settings as a JSON-serialisable dict."""
        return {k: getattr(self, k) for k in (
            "dim", "window", "x_max", "alpha", "epochs", "eta", "min_count", "threads", "seed",
            "memory_limit", "max_vocab_size", "output", "distance_weighting", "exact_sqrt", "grid", "grid_rounds")}

    def memory_needed(self, vocab_size: int, threads: int | None = None,
                      output_format: str | None = None) -> dict[str, int]:
        """Bytes a model of `vocab_size` words takes beyond what the process
        holds already, training records aside (they are checked against
        memory_limit as they are made): the parameters with their AdaGrad
        state; the most of what comes and goes beside them (a V x dim
        temporary while they are initialised, the threads' buffers while
        training, the output matrix and the scratch of writing it at the
        end, in output_format, None for the costliest); "total" is their
        sum at the worst moment."""
        V, D = vocab_size, self.dim
        out_dim = 2 * D if self.output == "concat" else D
        est = {
            "parameters": 4 * 2 * V * table_stride(D),
            "initialising": 4 * V * D,
            "training_threads": _glove.worker_bytes(D, threads or self.threads, True),
            "output": 4 * V * out_dim + formats.save_scratch_bytes(V, out_dim, output_format),
        }
        est["total"] = est["parameters"] + max(est["initialising"], est["training_threads"], est["output"])
        return est

    # ---- counting -------------------------------------------------------------
    def build_vocab(self, corpus: CorpusSource | None = None, *, vocab: Vocabulary | None = None,
                    client=None) -> "GloVe":
        """Counts words (or takes a ready Vocabulary) and initialises the
        parameters as glove.c does: uniform in [-0.5/dim, 0.5/dim) for
        vectors and biases, AdaGrad accumulators at 1."""
        check_directory(self.tmp_dir)  # where the counts spill: checked before they are made
        if vocab is None:
            if corpus is None:
                raise ValueError("build_vocab needs a corpus or a vocabulary")
            vocab = Vocabulary.build(corpus, self.min_count, self.max_vocab_size, client=client,
                                     threads=self.threads)
        V, D = len(vocab), self.dim
        needed = self.memory_needed(V)
        check_fits(f"GloVe for {V:,} words x {D} dimensions on {self.threads} thread(s) (parameters and "
                   f"AdaGrad state {gib(needed['parameters'])})", needed["total"],
                   "raise min_count, or lower dim or threads")
        self.vocab = vocab
        rng = np.random.default_rng(self.seed)

        def uniform(*shape):
            a = rng.random(shape, dtype=np.float32)
            a -= 0.5
            a /= D
            return a

        self.params = {**interleaved_side("word", V, D), **interleaved_side("context", V, D)}
        for name, shape in (("word", (V, D)), ("context", (V, D)), ("word_bias", (V,)), ("context_bias", (V,))):
            self.params[name][...] = uniform(*shape)  # one at a time: a single V x D temporary
        for name in ("word_gradsq", "context_gradsq", "word_bias_gradsq", "context_bias_gradsq"):
            self.params[name][...] = 1.0
        self.epochs_trained = 0
        self.history = []
        self._core = None
        self._records = None
        return self

    def count(self, corpus: CorpusSource | EncodedCorpus, progress: bool | None = None,
              client=None) -> sp.csr_matrix:
        """The co-occurrence matrix of the corpus over this model's vocabulary
        (building the vocabulary first if needed); also kept as
        self.cooccurrence. With a dask.distributed client the workers count
        (the result is the same, bit for bit); training stays here."""
        if self.vocab is None:
            if isinstance(corpus, EncodedCorpus):
                raise ValueError("an encoded corpus needs a vocabulary: call build_vocab first")
            self.build_vocab(corpus, client=client)
        assert self.vocab is not None
        self.cooccurrence = cooccur.count(corpus, self.vocab, self.window, self.distance_weighting,
                                          self.threads, self.memory_limit, self.tmp_dir, progress,
                                          client=client)
        self._drop_records()
        return self.cooccurrence

    # ---- training -------------------------------------------------------------
    def fit(self, corpus: CorpusSource, *, progress: bool | None = None, keep_cooccurrence: bool = False,
            callbacks: Iterable[Callable[["GloVe", GloVeEpoch], object]] = (), client=None) -> "GloVe":
        """Vocabulary, co-occurrence counts, then `epochs` epochs of training.
        The matrix is dropped once the training records are made unless
        keep_cooccurrence=True (it can be larger than the model; then it and
        the records are made in memory). Without it, records that do not fit
        memory_limit go to disk (count_records)."""
        t0 = time.perf_counter()
        corpus = corpus if client is not None else Corpus.of(corpus)  # resolved once for every step
        self.build_vocab(corpus, client=client)
        self.prepare_training(corpus, progress=progress, client=client, keep_cooccurrence=keep_cooccurrence)
        count_seconds = time.perf_counter() - t0 - self.stage_seconds["records"]
        self.train(progress=progress, callbacks=callbacks)
        self.last_stats.count_seconds = count_seconds
        return self

    def prepare_training(self, corpus: CorpusSource | Corpus | EncodedCorpus, *, progress: bool | None = None,
                         client=None, keep_cooccurrence: bool = False,
                         on_cooccurrence: Callable[[sp.csr_matrix], object] | None = None) -> int:
        """Counts the corpus into this model's training records (building
        the vocabulary first if it has none) and returns their number (the
        non-zeros): through the whole matrix when it is wanted (kept with
        keep_cooccurrence, or handed to on_cooccurrence, e.g. to save it) or
        counted by a cluster's workers; else straight into records
        (count_records: in memory, or in shuffled blocks on disk past
        memory_limit). The seconds of each stage go to self.stage_seconds
        ("count", "records")."""
        t0 = time.perf_counter()
        if client is None and not isinstance(corpus, EncodedCorpus):
            corpus = Corpus.of(corpus)
        if keep_cooccurrence or on_cooccurrence is not None or client is not None:
            matrix = self.count(corpus, progress, client=client)
            nonzeros = matrix.nnz
            count_seconds = time.perf_counter() - t0
            if on_cooccurrence is not None:
                on_cooccurrence(matrix)
            del matrix
            t1 = time.perf_counter()
            self.prepare_records(drop_cooccurrence=not keep_cooccurrence)  # the matrix goes first: lower peak
            records_seconds = time.perf_counter() - t1
        else:
            nonzeros = self.count_records(corpus, progress)
            records_seconds = self.records_seconds
            count_seconds = time.perf_counter() - t0 - records_seconds
        self.stage_seconds = {"count": count_seconds, "records": records_seconds}
        return nonzeros

    def count_records(self, corpus: CorpusSource | EncodedCorpus, progress: bool | None = None,
                      out_of_core: bool | None = None) -> int:
        """Counts the corpus straight into training records (building the
        vocabulary first if needed) and returns their number (the non-zeros):
        in memory when they and the matrix fit in memory_limit, else in
        shuffled blocks in tmp_dir (the class docstring); out_of_core=True or
        False forces one or the other. The matrix is not kept."""
        if self.vocab is None:
            if isinstance(corpus, EncodedCorpus):
                raise ValueError("an encoded corpus needs a vocabulary: call build_vocab first")
            self.build_vocab(corpus)
        assert self.vocab is not None
        self._drop_records()
        self.cooccurrence = None
        t0 = time.perf_counter()
        bands = self.grid_plan()[0]
        got = cooccur.count_records(corpus, self.vocab, self.window, self.distance_weighting, self.threads,
                                    self.memory_limit, self.tmp_dir, progress, x_max=self.x_max,
                                    alpha=self.alpha, seed=self.seed, out_of_core=out_of_core,
                                    records_limit=None if self._limit_given else
                                    max(self.memory_limit, available_memory() // 2),
                                    bands=bands, band_weights=self._band_weights() if bands else None)
        if isinstance(got, _glove.RecordBlocks):
            self._records = got
            self.records_seconds = got.write_seconds
        else:
            self.cooccurrence = got
            t1 = time.perf_counter()
            self.prepare_records(drop_cooccurrence=True)
            self.records_seconds = time.perf_counter() - t1
        self.count_seconds = time.perf_counter() - t0 - self.records_seconds
        return len(self._records)

    @property
    def record_blocks(self) -> int:
        """Blocks on disk holding the training records (0: in memory or none)."""
        return self._records.n_blocks if isinstance(self._records, _glove.RecordBlocks) else 0

    def _drop_records(self) -> None:
        if isinstance(self._records, _glove.RecordBlocks):
            self._core = None  # it holds the blocks' stream
            self._records.close()
        self._records = self._cells = self._plan_for = None
        self._bands = 0

    def prepare_records(self, drop_cooccurrence: bool = False) -> None:
        """Makes the shuffled training records from self.cooccurrence; with
        drop_cooccurrence the matrix is released first thing after, so the
        two never outlive each other (peak memory)."""
        if self.cooccurrence is None:
            raise ValueError("no co-occurrence matrix: count a corpus first")
        self._drop_records()
        self._records, self._cells = self._make_records(self.cooccurrence)
        if drop_cooccurrence:
            self.cooccurrence = None

    def grid_plan(self, threads: int | None = None) -> tuple[int, int]:
        """(bands, rounds) of the grid the records are trained on: `grid`
        and `grid_rounds` when given, else the rule (docs/performance.md):
        on two threads or more, 16 bands a thread; on one, glove.c's order
        (0 bands). Rounds: 1 (one grid)."""
        threads = self.threads if threads is None else threads
        bands = self.grid if self.grid is not None else min(16 * threads, _glove.MAX_BANDS) if threads > 1 else 0
        if not bands:
            return 0, 1
        return bands, 1 if self.grid_rounds is None else self.grid_rounds

    def _band_weights(self) -> np.ndarray:
        """Each word's records estimated before counting, to deal the bands
        of blocks written by bands: its count times the window's two sides,
        at most one per word of the vocabulary (it deals wiki_17m's bands
        within 3% of those dealt by the records themselves)."""
        counts = np.asarray(self.vocab.counts, dtype=np.int64)
        return np.minimum(counts * (2 * self.window), len(counts))

    def _vocabulary_square(self, m: sp.spmatrix) -> sp.spmatrix:
        """m, when it is vocabulary x vocabulary; else a ValueError."""
        if m.shape != (len(self.vocab), len(self.vocab)):
            raise ValueError(f"the matrix is {m.shape}, the vocabulary has {len(self.vocab)} words")
        return m

    def _make_records(self, matrix: sp.spmatrix) -> tuple[np.ndarray, np.ndarray | None]:
        """The training records of the matrix, shuffled; with a grid, sorted
        into its cells (and their offsets), else None."""
        check_fits(f"training records for {matrix.nnz:,} non-zeros", 16 * matrix.nnz,
                   "raise min_count or lower the window")
        m = self._vocabulary_square(sp.csr_matrix(matrix, dtype=np.float32))
        m.sort_indices()
        csr = (m.indptr.astype(np.int64, copy=False), m.indices.astype(np.int32, copy=False), m.data)
        bands, rounds = self.grid_plan()
        self._bands = bands
        if bands:
            return _glove.make_grid_records(*csr, self.x_max, self.alpha, self.seed, bands, rounds)
        return _glove.make_records(*csr, self.x_max, self.alpha, self.seed), None

    def train(self, matrix: sp.spmatrix | None = None, *, epochs: int | None = None,
              progress: bool | None = None,
              callbacks: Iterable[Callable[["GloVe", GloVeEpoch], object]] = (),
              checkpoint: str | os.PathLike | None = None, checkpoint_every: float = 30.0) -> GloVeStats:
        """Trains `epochs` more epochs on the matrix (default: the one counted
        last). The non-zeros are shuffled once with the seed and split into
        one contiguous range per thread, as glove.c reads its shuffled file,
        or, with a grid, trained cell by cell (see the class).
        Ctrl-C stops at once, leaves the parameters usable, and re-raises.
        checkpoint: a path where save_checkpoint writes the whole state every
        checkpoint_every minutes (at the next epoch's end) and on Ctrl-C."""
        if self.vocab is None or self.params is None:
            raise RuntimeError("build the vocabulary first (fit, build_vocab or load_checkpoint)")
        epochs = self.epochs if epochs is None else epochs
        epochs = bounded("epochs", epochs)
        if matrix is not None:
            self._drop_records()
            self._records, self._cells = self._make_records(matrix)
        elif self._records is None:
            if self.cooccurrence is None:
                raise ValueError("train needs a co-occurrence matrix (count a corpus first)")
            self.prepare_records()
        records = self._records
        if len(records) == 0:
            raise ValueError("the co-occurrence matrix is empty: nothing to train on")
        if self._core is None:
            self._core = _glove.GloVeCore(eta=self.eta, exact_sqrt=self.exact_sqrt, **self.params)
        core = self._core
        blocks = isinstance(records, _glove.RecordBlocks)
        if blocks:
            if self._plan_for is not records:  # blocks keep the grid of their first epoch (another is refused)
                self._asked_bands, rounds = self.grid_plan()
                if records.bands and self.grid == 0:
                    raise ValueError(f"these record blocks were written for a grid of {records.bands} bands: count "
                                     "the corpus again with grid=0 for glove.c's order")
                self._bands = records.bands or self._asked_bands  # written by bands: theirs, on any thread count
                # written by bands, an epoch's blocks make one grid; else each block is a grid of its own
                self._block_rounds = rounds if records.bands else -(-rounds // records.n_blocks)
                self._plan_for = records
            elif self.grid is not None and self.grid not in (self._asked_bands, self._bands):
                raise ValueError(f"these record blocks train on a grid of {self._bands} bands, not {self.grid}: "
                                 "count the corpus again to change it")
            core.set_blocks(records, self._bands, self._block_rounds)
        else:
            core.set_records(records, self._cells, self.seed, self._bands)
        threads = threads_for(self.threads, len(records))
        check_fits(f"the buffers of {threads} training thread(s) at dim {self.dim}",  # a resume may add threads
                   _glove.worker_bytes(self.dim, threads, blocks), "lower threads or dim")
        if not self._bands:
            rounds = 0
        elif blocks:
            rounds = self._block_rounds * (1 if records.bands else records.n_blocks)  # by bands: one grid
        else:
            rounds = (len(self._cells) - 1) // self._bands ** 2
        stats = GloVeStats(vocab_size=len(self.vocab), nonzeros=len(records), out_of_core=blocks,
                           blocks=records.n_blocks if blocks else 0, grid_bands=self._bands, grid_rounds=rounds)
        self.last_stats = stats
        bar = Progress(epochs * len(records), "glove", progress)

        def finish(e: int, cost: float, seconds: float) -> None:
            ep = GloVeEpoch(self.epochs_trained, cost / len(records), len(records), seconds)
            self.epochs_trained += 1
            self.history.append(ep)
            stats.epochs.append(ep)
            bar.write(f"epoch {self.epochs_trained}: cost {ep.cost:.6f}")
            for cb in callbacks:
                cb(self, ep)

        checkpoints = Checkpoints(None if checkpoint is None else os.fspath(checkpoint), checkpoint_every,
                                  self.save_checkpoint)
        def start(e: int) -> None:  # the blocks' order is drawn from (seed, epoch) unless kept; cells' always
            new_order = self.reshuffle_blocks or stats.grid_bands > 0
            core.start_epoch(threads, self.epochs_trained + 1 if new_order else 0)

        run_epochs(core, epochs, bar, stats, start=start,
                   on_progress=lambda e, done: bar.update(e * len(records) + done, epoch=f"{e + 1}/{epochs}"),
                   finish=finish, checkpoints=checkpoints)
        return stats

    # ---- results --------------------------------------------------------------
    def objective(self, matrix: sp.spmatrix | None = None, *, chunk: int = 1 << 20) -> float:
        """The GloVe objective of the parameters as they are now over every
        non-zero of `matrix` (default: the matrix kept by count or
        keep_cooccurrence), in float64: the mean of f(x) (w.c + b + b~ -
        log x)^2 / 2. An epoch's printed cost is this mean taken along the
        way, each record just before its own update, so it depends on the
        order; this figure does not (docs/performance.md, "Judge an order by
        the objective"). Read `chunk` non-zeros at a time."""
        if self.params is None:
            raise RuntimeError("the model has no parameters yet: call fit or build_vocab")
        matrix = self.cooccurrence if matrix is None else matrix
        if matrix is None:
            raise ValueError("no co-occurrence matrix: pass one, or count with keep_cooccurrence=True")
        _check("chunk", chunk, isinstance(chunk, (int, np.integer)) and chunk >= 1, "an integer >= 1")
        m = self._vocabulary_square(sp.coo_matrix(matrix))
        if m.nnz == 0 or not (np.all(np.isfinite(m.data)) and np.all(m.data > 0)):
            raise ValueError("the matrix must hold non-zeros, each finite and > 0")
        W, C, bw, bc = (self.params[k] for k in ("word", "context", "word_bias", "context_bias"))
        total = 0.0
        for a in range(0, m.nnz, chunk):
            i, j, x = m.row[a:a + chunk], m.col[a:a + chunk], m.data[a:a + chunk].astype(np.float64)
            d = (np.einsum("ij,ij->i", W[i], C[j], dtype=np.float64) + bw[i].astype(np.float64) + bc[j]
                 - np.log(x))
            total += 0.5 * float(np.dot(np.minimum(1.0, (x / self.x_max) ** self.alpha), d * d))
        return total / m.nnz

    @property
    def vectors(self) -> Vectors:
        """W + W~ (output='sum'), W ('word') or [W, W~] ('concat'), as Vectors."""
        if self.vocab is None or self.params is None:
            raise RuntimeError("the model has no vocabulary yet: call fit or build_vocab")
        W, C = self.params["word"], self.params["context"]
        matrix = W + C if self.output == "sum" else W.copy() if self.output == "word" else np.hstack([W, C])
        meta = {"trainer": "glove", "config": self.config(), "epochs_trained": self.epochs_trained,
                "epoch_cost": [e.cost for e in self.history]}
        return Vectors._indexed(self.vocab.words, matrix, self.vocab.counts, meta)

    def save_checkpoint(self, path: str | os.PathLike) -> None:
        """Parameters, AdaGrad accumulators, vocabulary and settings in one
        .npz (no pickle), written atomically: load_checkpoint resumes."""
        if self.vocab is None or self.params is None:
            raise RuntimeError("nothing to save: the model has no parameters yet")
        glove_state.save_checkpoint(self, path)

    def __reduce__(self):
        """pickle and copy.deepcopy through the checkpoint file (pickling.py)."""
        return pickling.reduce(self, self.save_checkpoint, type(self).load_checkpoint,
                               self.config() if self.params is None else None)

    @classmethod
    def saved_config(cls, path: str | os.PathLike) -> dict:
        """The settings of a checkpoint, reading its metadata only (to
        check a resume's flags before the parameters are loaded)."""
        return glove_state.saved_config(cls, path)

    @classmethod
    def load_checkpoint(cls, path: str | os.PathLike, **overrides) -> "GloVe":
        """A model from save_checkpoint, ready to train more epochs
        (overrides change settings such as threads or epochs). Raises
        FormatError, naming the file and the problem, for a damaged one."""
        return glove_state.load_checkpoint(cls, path, GloVeEpoch, **overrides)
