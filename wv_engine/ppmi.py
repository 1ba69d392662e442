"""PPMI + SVD vectors from a corpus, the whole pipeline: vocabulary,
co-occurrence counts, positive PMI, truncated SVD (the maths: svd.py). On
one machine, or with a dask client on its workers, where the matrix stays
in row blocks (wv_engine.cluster.svd, reached through scaleout)."""

from __future__ import annotations

from typing import Callable

import scipy.sparse as sp

from . import cooccur, scaleout
from .corpus import Corpus, CorpusSource
from .files import check_directory
from .settings import bounded, resolve_threads
from .svd import svd_vectors
from .vectors import Vectors
from .vocab import Vocabulary


def ppmi_svd(corpus: CorpusSource | Corpus, *, dim: int = 100, window: int = 10, min_count: int = 5,
             max_vocab_size: int | None = None, cds: float = 0.75, shift: float = 1.0, eig: float = 0.5,
             threads: int | None = None, memory_limit: int | str | None = None, tmp_dir: str | None = None,
             client=None, progress: bool | None = None,
             on_cooccurrence: Callable[[sp.csr_matrix], object] | None = None,
             report: Callable[[str], object] | None = None) -> Vectors:
    """Word vectors from PPMI (context smoothing `cds`, shift log k) of the
    corpus's co-occurrence matrix, factorised by truncated SVD to `dim`
    dimensions with eigenvalue weighting `eig`. on_cooccurrence(matrix) sees
    the matrix (e.g. to save it; with a client it is then gathered here);
    report(message) is told of each stage."""
    threads = resolve_threads(threads)
    dim, window, min_count = bounded("dim", dim), bounded("window", window), bounded("min_count", min_count)
    max_vocab_size = bounded("max_vocab_size", max_vocab_size, none=True)
    cds, shift, eig = bounded("cds", cds), bounded("shift", shift), bounded("eig", eig)
    memory_limit, tmp_dir = cooccur.memory_budget(memory_limit), check_directory(tmp_dir)
    say = report or (lambda message: None)
    if client is None:
        corpus = Corpus.of(corpus)  # resolved once for both passes
    vocab = Vocabulary.build(corpus, min_count, max_vocab_size, client=client, threads=threads)
    say(f"vocabulary: {len(vocab):,} words; counting co-occurrences (window {window})")
    if client is not None and on_cooccurrence is None:
        say(f"PPMI + randomized SVD to {dim} dimensions, the matrix in row blocks on the workers")
        matrix_vectors = scaleout.svd_vectors(client, corpus, vocab, window, threads,
                                              cooccur.memory_budget(memory_limit), tmp_dir, dim, cds, shift, eig,
                                              progress)
    else:
        matrix = cooccur.count(corpus, vocab, window, True, threads, memory_limit, tmp_dir, progress=progress,
                               client=client)
        if on_cooccurrence is not None:
            on_cooccurrence(matrix)
        say(f"{matrix.nnz:,} non-zeros; PPMI + SVD to {dim} dimensions")
        matrix_vectors = svd_vectors(matrix, dim, cds, shift, eig)
    return Vectors(vocab.words, matrix_vectors, vocab.counts,
                   metadata={"trainer": "ppmi-svd", "window": window, "cds": cds, "shift": shift, "eig": eig})
