"""Data-parallel word2vec on a cluster with periodic model averaging.

Each worker encodes its shards once and keeps the ids in memory. Training
runs in rounds: every worker starts from the same broadcast weights, trains
Hogwild (the C core, --threads threads) on its next slice of about
sync_words words, and returns how its weights moved. The new weights are the
average of the workers' models (base + the mean of the moves over all
workers), never their sum: summing is what blows vectors up in Spark MLlib
(SPARK-24666).

Averaging N models divides every move by N, so each worker trains with its
learning rate multiplied by lr_scale (default: the number of workers, at
most 4), the linear scaling rule: the average then moves a word as far as
one machine would over the same words, whether one worker saw it or all of
them. The schedule follows global progress: round r of R runs from
alpha(r/R) to alpha((r+1)/R), times lr_scale.

Per round and worker, the input and output matrices go out and their moves
come back: 2 x 2 x vocabulary x dim x 4 bytes over the network."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from ..corpus import EncodedCorpus
from ..epochs import EpochStats, TrainingStats
from ..progress import Progress
from .client import ClusterError, result, scatter, submit, tree_reduce, worker_addresses
from .shards import Shard, encode_chunks, iter_shard, plan_shards

SEED_STRIDE = 0x9E3779B97F4A7C15  # spreads the workers' seeds apart


MAX_LR_SCALE = 4  # a guard, not a measured limit: 4 x 0.025 is already twice CBOW's default rate

@dataclass
class Moves:
    """How the weights moved in one round, summed over `workers` workers."""

    d_input: np.ndarray    # float32, summed moves
    d_output: np.ndarray
    workers: int
    loss: float
    examples: int
    words: int


def encode_shards(shards: list[Shard], vocab) -> np.ndarray:
    """(worker) The ids of this worker's shards, one after the other (a
    sentence end between shards)."""
    words = vocab.words_as_bytes()
    parts = []
    for s in shards:
        parts += [encode_chunks(words, iter_shard(s)), np.array([-1], np.int32)]
    return np.concatenate(parts)


def count_words_in(ids: np.ndarray) -> int:
    """(worker) In-vocabulary words of an id stream."""
    return int(np.count_nonzero(ids >= 0))


def train_slice(ids: np.ndarray, weights: tuple[np.ndarray, np.ndarray], vocab, model_cls, config: dict,
                worker_index: int, round_index: int, part: int, parts: int,
                alpha_start: float, alpha_end: float) -> Moves:
    """(worker) Trains part `part` of `parts` of the worker's ids from the
    broadcast weights with alpha falling from alpha_start to alpha_end.
    model_cls is the caller's model class (Word2Vec), sent with the task."""
    lo, hi = len(ids) * part // parts, len(ids) * (part + 1) // parts
    piece = ids[lo:hi]
    n_words = count_words_in(piece)
    base_in, base_out = weights
    if n_words == 0:
        return Moves(np.zeros_like(base_in), np.zeros_like(base_out), 1, 0.0, 0, 0)
    cfg = dict(config, alpha=alpha_start, min_alpha=alpha_end, epochs=1, schedule="epochs",  # on the line
               seed=(config["seed"] + SEED_STRIDE * (worker_index + 1)) % 2**64)
    # The broadcast arrays are shared with other tasks: never write them. The
    # round index as epochs_trained varies the C core's per-round random streams.
    model = model_cls.from_weights(cfg, vocab, base_in.copy(), base_out.copy(), epochs_trained=round_index)
    stats = model.train(EncodedCorpus(ids=piece, tokens=n_words, words=n_words, oov=0, sentences=0),
                        epochs=1, progress=False)
    d_in = model.input_vectors - base_in
    d_out = model.output_vectors - base_out
    es = stats.epoch_stats[0]
    return Moves(d_in, d_out, 1, es.loss * es.examples, es.examples, es.words)


def add_moves(a: Moves, b: Moves) -> Moves:
    """(worker) Two workers' moves, summed (divided once, at the end)."""
    return Moves(a.d_input + b.d_input, a.d_output + b.d_output, a.workers + b.workers,
                 a.loss + b.loss, a.examples + b.examples, a.words + b.words)


def apply_mean(weights: tuple[np.ndarray, np.ndarray], moves: Moves) -> tuple[np.ndarray, np.ndarray]:
    """(worker) The average of the workers' models: base + the mean move."""
    base_in, base_out = weights
    new_in = base_in + moves.d_input / np.float32(moves.workers)
    new_out = base_out + moves.d_output / np.float32(moves.workers)
    return new_in.astype(np.float32, copy=False), new_out.astype(np.float32, copy=False)


def round_summary(moves: Moves) -> tuple[float, int, int]:
    """(worker) The round's (loss sum, examples, words): all the caller needs."""
    return moves.loss, moves.examples, moves.words


@dataclass
class _Placement:
    """What lives on the workers for training: their encoded shards and the
    broadcast vocabulary. Made again from the files after a failure."""

    workers: list[str]
    ids: list          # futures of each worker's id stream
    words_per_worker: list[int]
    vocab: object      # future of the Vocabulary

    @classmethod
    def make(cls, client, corpus, vocab) -> "_Placement":
        workers = worker_addresses(client)
        shards = plan_shards(corpus, len(workers))
        mine = [[s for i, s in enumerate(shards) if i % len(workers) == w] for w in range(len(workers))]
        [vocab_f] = scatter(client, [vocab], "sending the vocabulary")
        ids = [submit(client, encode_shards, mine[w], vocab_f, worker=workers[w]) for w in range(len(workers))
               if mine[w]]
        counts = result([submit(client, count_words_in, f) for f in ids], "encoding the corpus on the workers")
        return cls(workers[:len(ids)], ids, counts, vocab_f)


def _train_epoch(model, client, place: _Placement, weights, epoch: int, epochs: int, parts: int, lr_scale: float,
                 on_round) -> tuple[tuple[np.ndarray, np.ndarray], float, int, int, float]:
    """One epoch of `parts` rounds; returns (weights, loss sum, examples, words, last alpha)."""
    config = model.config()
    rounds = epochs * parts
    span = model.alpha - model.min_alpha
    loss_sum, examples, words, a1 = 0.0, 0, 0, model.alpha
    for p in range(parts):
        r = epoch * parts + p
        a0, a1 = model.alpha - span * r / rounds, model.alpha - span * (r + 1) / rounds
        moves = [submit(client, train_slice, f, weights, place.vocab, type(model), config, w,
                        model.epochs_trained * parts + p, p, parts, a0 * lr_scale, a1 * lr_scale,
                        worker=place.workers[w])
                 for w, f in enumerate(place.ids)]
        total = tree_reduce(client, moves, add_moves)
        weights = client.submit(apply_mean, weights, total, pure=False)
        loss, x, n = result(client.submit(round_summary, total, pure=False), "training word2vec")
        loss_sum, examples, words = loss_sum + loss, examples + x, words + n
        on_round(words, a1)
    return result(weights, "training word2vec"), loss_sum, examples, words, a1


def train_word2vec(model, client, corpus, epochs: int, sync_words: int = 250_000,
                   progress: bool | None = None, callbacks=(), lr_scale: float | None = None, retries: int = 2):
    """Trains model (vocabulary built, weights initialised) on the file(s)
    with the cluster's workers; returns TrainingStats. An epoch that a
    cluster failure interrupts (a worker lost with its data) is restarted
    from the weights it started with, up to `retries` times; then
    ClusterError. Ctrl-C keeps the weights of the last finished epoch.
    Uses only the model's public API: config(), vocab, the weights,
    set_weights, record_epoch and from_weights (on the workers)."""
    if sync_words < 1:
        raise ValueError(f"sync_words must be >= 1, got {sync_words}")
    if lr_scale is not None and not 0 < lr_scale <= 1000:
        raise ValueError(f"lr_scale must be in (0, 1000], got {lr_scale}")
    place = _Placement.make(client, corpus, model.vocab)
    corpus_words = sum(place.words_per_worker)
    if corpus_words == 0:
        raise ValueError("the corpus has no words in the vocabulary")
    stats = TrainingStats(corpus_words=corpus_words)
    model.last_stats = stats
    bar = Progress(epochs * corpus_words, f"{model.arch}-{model.loss} on {len(place.ids)} workers", progress)
    start = time.perf_counter()
    e = 0
    try:
        while e < epochs:
            t0 = time.perf_counter()
            parts = max(1, math.ceil(max(place.words_per_worker) / sync_words))
            scale = lr_scale if lr_scale is not None else min(len(place.ids), MAX_LR_SCALE)
            [weights] = scatter(client, [(model.input_vectors, model.output_vectors)], "sending the weights")
            try:
                (new_in, new_out), loss_sum, examples, words, alpha = _train_epoch(
                    model, client, place, weights, e, epochs, parts, scale,
                    lambda n, a: bar.update(e * corpus_words + n, epoch=f"{e + 1}/{epochs}", alpha=f"{a:.5f}"))
            except ClusterError as exc:
                if retries <= 0:
                    raise
                retries -= 1
                bar.write(f"epoch {e + 1}: {exc}; restarting the epoch on the workers left")
                client.wait_for_workers(1, timeout=120)
                place = _Placement.make(client, corpus, model.vocab)
                continue
            model.set_weights(new_in, new_out)
            es = EpochStats(epoch=model.epochs_trained, loss=loss_sum / max(examples, 1), examples=examples,
                            words=words, seconds=time.perf_counter() - t0, alpha=alpha)
            stats.syncs += parts
            e += 1
            model.record_epoch(stats, es, callbacks, bar.write,
                               f" ({len(place.ids)} workers, {parts} syncs, learning rate x{scale:g})")
    except BaseException:
        stats.interrupted = True
        raise
    finally:
        stats.train_seconds = time.perf_counter() - start
        bar.close()
    return stats
