"""The order FastText trains its n-gram rows in.

fastText's layout puts n-gram g at row V + hash(g) % bucket: a word's ~20
n-gram rows lie scattered over the whole bucket matrix (800 MB at the
defaults), so the rows one training step reads share no cache line and no
DRAM page. While it trains, FastText moves the rows some word uses to the
front of the bucket rows, in the order the subword table first names them
(words by id, most frequent first, each word's n-grams in turn): a frequent
word's rows are then side by side, and the rows training touches most are
packed together. The core gets the table in that order; before anything
else reads the matrix (callbacks, checkpoints, saves, the end of train) the
rows go back to fastText's layout. Both moves are in place, one cycle of
the permutation at a time (csrc/row_order.c): rows no word uses stay where
they are unless a used row takes their place."""

from __future__ import annotations

import numpy as np

from .. import _subwords

__all__ = ["TrainingOrder"]


class TrainingOrder:
    """The training order of a subword table's n-gram rows (rows past the
    V words' own): `rows` is the table renumbered into it; apply() and
    restore() move a matrix's rows into it and back, in place."""

    def __init__(self, rows: np.ndarray, vocab_size: int, matrix_rows: int):
        self.vocab_size = int(vocab_size)
        self.rows, self._cycles = _subwords.training_order(rows, self.vocab_size, int(matrix_rows) - self.vocab_size)
        self._moved = np.zeros(1, dtype=np.uint8)  # set with the move itself: a Ctrl-C cannot part them

    @property
    def applied(self) -> bool:
        """Whether the matrix's rows stand in training's order."""
        return bool(self._moved[0])

    def apply(self, matrix: np.ndarray) -> None:
        """matrix's n-gram rows into training's order (nothing if they are)."""
        _subwords.move_rows(matrix[self.vocab_size:], self._cycles, True, self._moved)

    def restore(self, matrix: np.ndarray) -> None:
        """matrix's n-gram rows back into fastText's layout (nothing if they are)."""
        _subwords.move_rows(matrix[self.vocab_size:], self._cycles, False, self._moved)
