"""PPMI + truncated SVD on the co-occurrence matrix (Levy, Goldberg & Dagan
2015): the matrix view of what skip-gram with negative sampling factorises
implicitly, for comparing methods on one corpus.

PMI(i, j) = log( X_ij * sum_k c_k^a / (X_i. * c_j^a) ) - log(shift), with the
context counts c smoothed by a = 0.75 (context distribution smoothing); only
positive values are kept. The vectors are U_d * S_d^p (eigenvalue weighting,
p = 0.5 by default)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import svds


def check_ppmi_settings(cds: float, shift: float) -> None:
    """Refuses a context smoothing that is not > 0 or a shift below 1
    (ValueError naming it)."""
    if not cds > 0:
        raise ValueError(f"cds must be > 0, got {cds}")
    if not shift >= 1:
        raise ValueError(f"shift (k of log k) must be >= 1, got {shift}")


def ppmi_rows(block: sp.spmatrix, first_row: int, row_sums: np.ndarray, contexts: np.ndarray,
              total_contexts: float, shift: float) -> sp.csr_matrix:
    """PPMI of rows first_row.. of a co-occurrence matrix (block holds them,
    float64, zeros removed), given the whole matrix's row sums and smoothed
    context counts: what ppmi computes, one row block at a time (cluster)."""
    coo = block.tocoo()
    with np.errstate(divide="ignore"):
        values = (np.log(coo.data) + np.log(total_contexts) - np.log(row_sums[coo.row + first_row])
                  - np.log(contexts[coo.col]) - np.log(shift))
    keep = values > 0
    return sp.csr_matrix((values[keep], (coo.row[keep], coo.col[keep])), shape=block.shape)


def ppmi(matrix: sp.spmatrix, cds: float = 0.75, shift: float = 1.0) -> sp.csr_matrix:
    """Positive (shifted) PMI of a co-occurrence matrix, sparse, float64."""
    check_ppmi_settings(cds, shift)
    m = sp.csr_matrix(matrix, dtype=np.float64)
    m.eliminate_zeros()
    rows = np.asarray(m.sum(axis=1)).ravel()
    contexts = np.asarray(m.sum(axis=0)).ravel() ** cds
    return ppmi_rows(m, 0, rows, contexts, contexts.sum(), shift)


def weighted_vectors(u: np.ndarray, s: np.ndarray, dim: int, eig: float) -> np.ndarray:
    """U_d * S_d^eig (float32) with the singular values in descending order."""
    order = np.argsort(-s)[:dim]
    return (u[:, order] * s[order] ** eig).astype(np.float32)


def svd_vectors(matrix: sp.spmatrix, dim: int = 100, cds: float = 0.75, shift: float = 1.0,
                eig: float = 0.5, seed: int = 1) -> np.ndarray:
    """float32 word vectors (rows in the matrix's order) from PPMI + SVD."""
    if dim < 1:
        raise ValueError(f"dim must be >= 1, got {dim}")
    p = ppmi(matrix, cds, shift)
    if dim >= min(p.shape):
        raise ValueError(f"dim={dim} must be smaller than the vocabulary ({min(p.shape)} words)")
    if p.nnz == 0:
        raise ValueError("the PPMI matrix is empty: no pair's PMI is above log(shift)"
                         + (f" (shift={shift:g}): lower shift" if shift > 1 else ": the corpus is too small"))
    v0 = np.random.default_rng(seed).standard_normal(min(p.shape))
    u, s, _ = svds(p, k=dim, v0=v0)
    return weighted_vectors(u, s, dim, eig)
