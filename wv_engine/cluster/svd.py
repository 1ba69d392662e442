"""PPMI + truncated SVD with the matrix left on the cluster in row blocks.

The exact counts come as upper-triangle row blocks (cooccur.count_blocks);
each block is completed into full rows with the transposed entries of the
blocks above it, turned into PPMI rows with the global marginals (a vector of
vocabulary size), and never leaves its worker. The SVD is randomized
(Halko, Martinsson & Tropp 2011) with power iterations: every step is P @ X
(block rows, concatenated here) or P^T @ X (partial products summed in a tree
on the workers) with X a dense vocabulary x (dim + oversample) matrix, the
only thing that crosses the network besides the marginals."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..svd import check_ppmi_settings, ppmi_rows, weighted_vectors
from .client import result, scatter, submit, tree_reduce
from .cooccur import UpperPart, count_blocks


def full_rows(bounds: list[int], block: int, vocab_size: int, *uppers: UpperPart) -> sp.csr_matrix:
    """(worker) Rows bounds[block]..bounds[block+1] of the symmetric float32
    matrix (the values cooccur.count gives, float64 here) from the upper
    blocks 0..block (the last one is this block's own)."""
    lo, hi = bounds[block], bounds[block + 1]
    own = uppers[-1]
    rows, cols, vals = [own.rows - lo], [own.cols], [_values(own, diagonal_twice=True)]
    for up in uppers:  # entries (i, j), i < j, with j in this block: row j gets (j, i)
        sel = (up.cols >= lo) & (up.cols < hi) & (up.rows != up.cols)
        rows.append(up.cols[sel] - lo)
        cols.append(up.rows[sel])
        vals.append(_values(up, sel))
    m = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                      shape=(hi - lo, vocab_size))
    m.eliminate_zeros()
    return m


def _values(part: UpperPart, select=None, diagonal_twice: bool = False) -> np.ndarray:
    """float32 values rounded as the C routine rounds them, then float64."""
    units = part.units if select is None else part.units[select]
    x = units / float(part.unit)
    if diagonal_twice:
        x = np.where(part.rows == part.cols, 2.0 * x, x)
    return x.astype(np.float32).astype(np.float64)


def row_sums(block: sp.csr_matrix) -> np.ndarray:
    """(worker)"""
    return np.asarray(block.sum(axis=1)).ravel()


def ppmi_block(block: sp.csr_matrix, first_row: int, sums: np.ndarray, contexts: np.ndarray, total: float,
               shift: float) -> sp.csr_matrix:
    """(worker)"""
    return ppmi_rows(block, first_row, sums, contexts, total, shift)


def times(block: sp.csr_matrix, x: np.ndarray) -> np.ndarray:
    """(worker) block @ x: this block's rows of P @ X."""
    return block @ x


def transposed_times(block: sp.csr_matrix, x_rows: np.ndarray) -> np.ndarray:
    """(worker) block^T @ x_rows: this block's share of P^T @ X."""
    return block.T @ x_rows


def add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(worker)"""
    return a + b


def nonzeros(block: sp.csr_matrix) -> int:
    """(worker)"""
    return block.nnz


class _BlockMatrix:
    """P kept on the workers as row-block futures."""

    def __init__(self, client, bounds: list[int], blocks: list):
        self.client, self.bounds, self.blocks = client, bounds, blocks

    def dot(self, x: np.ndarray) -> np.ndarray:
        [xf] = scatter(self.client, [x], "sending the SVD's dense block")
        parts = [submit(self.client, times, b, xf) for b in self.blocks]
        return np.vstack(result(parts, "multiplying by the PPMI matrix"))

    def tdot(self, x: np.ndarray) -> np.ndarray:
        parts = [submit(self.client, transposed_times, b, x[lo:hi])
                 for b, lo, hi in zip(self.blocks, self.bounds[:-1], self.bounds[1:])]
        return result(tree_reduce(self.client, parts, add), "multiplying by the PPMI matrix")


def randomized_svd(p: _BlockMatrix, k: int, n: int, oversample: int = 10, power_iters: int = 5,
                   seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """(U_k, s_k) of the n x n operator p, with power iterations (the PPMI
    spectrum decays slowly, so they matter)."""
    rng = np.random.default_rng(seed)
    q, _ = np.linalg.qr(p.dot(rng.standard_normal((n, k + oversample))))
    for _ in range(power_iters):
        z, _ = np.linalg.qr(p.tdot(q))
        q, _ = np.linalg.qr(p.dot(z))
    b_t = p.tdot(q)  # B^T = P^T Q (n x l): B = Q^T P
    v, s, ub_t = np.linalg.svd(b_t, full_matrices=False)  # B^T = V S Ub^T  =>  B = Ub S V^T
    return q @ ub_t.T[:, :k], s[:k]


def svd_vectors_on_cluster(client, corpus, vocab, window: int = 10, threads: int = 1,
                           memory_limit: int = 1 << 30, tmp_dir: str | None = None, dim: int = 100,
                           cds: float = 0.75, shift: float = 1.0, eig: float = 0.5, seed: int = 1,
                           power_iters: int = 5, progress: bool | None = None) -> np.ndarray:
    """float32 PPMI-SVD vectors of the file(s); the co-occurrence and PPMI
    matrices stay on the workers in row blocks."""
    check_ppmi_settings(cds, shift)
    V = len(vocab)
    if not 1 <= dim < V:
        raise ValueError(f"dim={dim} must be >= 1 and smaller than the vocabulary ({V} words)")
    bounds, uppers = count_blocks(client, corpus, vocab, window, True, threads, memory_limit, tmp_dir, progress)
    n_blocks = len(bounds) - 1
    full = [submit(client, full_rows, bounds, c, V, *uppers[:c + 1]) for c in range(n_blocks)]
    sums = np.concatenate(result([submit(client, row_sums, f) for f in full], "summing co-occurrence rows"))
    contexts = sums ** cds  # the matrix is symmetric: column sums are the row sums
    [sums_f, contexts_f] = scatter(client, [sums, contexts], "sending the marginals")
    blocks = [submit(client, ppmi_block, f, lo, sums_f, contexts_f, float(contexts.sum()), shift)
              for f, lo in zip(full, bounds[:-1])]
    del full, uppers
    if sum(result([submit(client, nonzeros, b) for b in blocks], "computing PPMI")) == 0:
        raise ValueError("the PPMI matrix is empty: the corpus is too small")
    u, s = randomized_svd(_BlockMatrix(client, bounds, blocks), dim, V, power_iters=power_iters, seed=seed)
    return weighted_vectors(u, s, dim, eig)
