"""The one seam between the core and the cluster layer.

The core's entry points take `client=` (a dask.distributed Client); when one
is given they hand the work to wv_engine.cluster through these functions and
nowhere else. The cluster layer is imported here on first use only, so the
core runs without dask installed, and the cluster layer in turn uses only
the core's public API (it never imports the modules that call this one)."""

from __future__ import annotations

from typing import Any


def connect(address: str, threads: int):
    """A Client of the scheduler at `address` (or local:N):
    wv_engine.cluster.connect (the command line's --scheduler)."""
    from .cluster import connect as connect_to

    return connect_to(address, threads)


def close(client) -> None:
    """Closes a client connect() made: wv_engine.cluster.close."""
    from .cluster import close as close_client

    close_client(client)


def count_words(client, corpus, max_vocab_size: int | None):
    """(raw words, counts, total tokens, distinct words or None) of the file(s),
    counted by the workers: wv_engine.cluster.vocab.count_words."""
    from .cluster.vocab import count_words as count

    return count(client, corpus, max_vocab_size)


def count_cooccurrence(client, corpus, vocab, window: int, distance_weighting: bool, threads: int,
                       memory_limit: int, tmp_dir: str | None, progress: bool | None):
    """The co-occurrence matrix of the file(s), counted by the workers:
    wv_engine.cluster.cooccur.count_cooccurrence."""
    from .cluster.cooccur import count_cooccurrence as count

    return count(client, corpus, vocab, window, distance_weighting, threads, memory_limit, tmp_dir, progress)


def svd_vectors(client, corpus, vocab, window: int, threads: int, memory_limit: int, tmp_dir: str | None,
                dim: int, cds: float, shift: float, eig: float, progress: bool | None):
    """PPMI + randomized SVD vectors with the matrix in row blocks on the
    workers: wv_engine.cluster.svd.svd_vectors_on_cluster."""
    from .cluster.svd import svd_vectors_on_cluster

    return svd_vectors_on_cluster(client, corpus, vocab, window, threads, memory_limit, tmp_dir, dim, cds, shift,
                                  eig, progress=progress)


def train_word2vec(model, client, corpus, epochs: int, sync_words: int, progress: bool | None,
                   callbacks, lr_scale: float | None) -> Any:
    """Trains `model` data-parallel on the workers: wv_engine.cluster.word2vec."""
    from .cluster.word2vec import train_word2vec as train

    return train(model, client, corpus, epochs, sync_words, progress, callbacks, lr_scale)
