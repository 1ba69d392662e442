"""A vocabulary's words as bytes end to end: one UTF-8 blob, the offsets
where each word starts, and a slot table from word to row
(wv_engine._vectors.WordTable, csrc/wordtable.c). Files are written from
this form, the native format stores it, and a loaded or mapped file is
queried through it without a Python object per word until one is asked
for.

Words are encoded with 'surrogateescape', so tokens that were not valid
UTF-8 in the corpus come back byte for byte."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ._vectors import DamagedTable, WordTable, table_slots

__all__ = ["Words", "WordTable", "DamagedTable", "table_of", "table_slots", "HASH_NAME"]

# The stored slot table's hash (csrc/strtab.c's wv_hash_bytes over the
# bytes, read as little-endian words): a file says which it was built with.
HASH_NAME = "wv64le"

_WHITESPACE = b" \t\n\r\x0b\x0c"  # bytes.split()'s: what ends a word in word2vec/GloVe files


def _encode_word(word: str, i: int, plain: bool) -> bytes:
    """UTF-8 bytes of `word` (surrogateescape: raw corpus bytes come back unchanged).

    `plain` formats (word2vec, GloVe) separate fields by whitespace, so such words are refused.
    """
    try:
        raw = word.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as exc:
        raise ValueError(
            f"word {i} ({word!r}) contains a lone surrogate that does not stand for a raw "
            f"byte and cannot be written: {exc.reason}"
        ) from None
    if plain:
        if not raw:
            raise ValueError(f"word {i} is empty; word2vec/GloVe files cannot hold it")
        if any(ch in raw for ch in _WHITESPACE) or b"\0" in raw:
            raise ValueError(
                f"word {i} ({word!r}) contains whitespace or a NUL byte; word2vec/GloVe files "
                "separate fields by whitespace and cannot hold it (use the native format)"
            )
    return raw


class Words:
    """The words of a vocabulary as one UTF-8 byte blob with offsets, made
    without a Python loop over the words; a word the format cannot hold is
    found (and named) by _encode_word only when there is one. `plain`:
    for word2vec/GloVe files, which cannot hold empty words, whitespace or
    NUL."""

    def __init__(self, words: Sequence[str], plain: bool):
        n = len(words)
        bad = False
        try:
            blob = "\n".join(words).encode("utf-8", "surrogateescape")
            one_per_line = blob.count(b"\n") == n - 1  # no word holds a newline
            if plain:
                bad = (not one_per_line or b"\n\n" in blob or blob.startswith(b"\n")
                       or blob.endswith(b"\n") or any(ch in blob for ch in (b" ", b"\t", b"\r", b"\x0b",
                                                                              b"\x0c", b"\0")))
            if plain or one_per_line:  # the words' lengths from the newlines, no object per word
                lengths = np.diff(np.flatnonzero(np.frombuffer(blob + b"\n", np.uint8) == 10), prepend=-1) - 1
                blob = blob.replace(b"\n", b"")
            else:
                encoded = list(map(_surrogateescape_utf8, words))
                blob = b"".join(encoded)
                lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=n)
        except UnicodeEncodeError:
            bad = True
        if bad or (plain and n == 0):
            encoded = [_encode_word(w, i, plain) for i, w in enumerate(words)]  # raises, naming the word
            blob = b"".join(encoded)
            lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=n)
        self.blob = np.frombuffer(blob, dtype=np.uint8)
        self.lengths = lengths.astype(np.int64, copy=False)
        self.offsets = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(self.lengths, out=self.offsets[1:])

    @classmethod
    def from_table(cls, table: WordTable, plain: bool) -> "Words":
        """The words a table holds (no decoding: its blob as it is), checked
        for what a plain format cannot hold."""
        blob, offsets, _ = table.arrays
        self = cls.__new__(cls)
        n = len(table)
        self.offsets = np.asarray(offsets[:n + 1], dtype=np.int64)
        self.blob = np.asarray(blob[:self.offsets[-1]], dtype=np.uint8)
        self.lengths = np.diff(self.offsets)
        if self.offsets[0] != 0 or (self.lengths < 0).any():
            raise DamagedTable("word offsets do not fit the words' bytes")
        if plain and ((self.lengths == 0).any() or np.isin(self.blob, np.frombuffer(_WHITESPACE + b"\0", np.uint8)).any()):
            cls(table.words(), plain=True)  # raises, naming the word
        return self


def _surrogateescape_utf8(word: str) -> bytes:
    return word.encode("utf-8", "surrogateescape")


def table_of(blob: np.ndarray, offsets: np.ndarray, visible: int | None = None) -> tuple[WordTable, np.ndarray]:
    """A WordTable over the words (blob, offsets) and the mask of words
    that repeat an earlier one (left out of the table: a lookup finds the
    first)."""
    slots, dup = WordTable.build(blob, offsets)
    return WordTable(blob, offsets, slots, -1 if visible is None else visible), dup
