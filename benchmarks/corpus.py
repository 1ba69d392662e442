"""Preparing the corpus once, outside every tool's timing.

1. plain: the corpus decompressed (gzip / bzip2 / xz, by magic bytes) into
   OUT/corpus/NAME.txt, so every tool reads the same plain file. A corpus that
   is already plain is used where it is (nothing copied).
2. split: a copy with lines of at most 1,000 words (existing line breaks are
   kept) for gensim, whose corpus_file mode silently trains on only the first
   10,000 words of each line: on a one-line corpus (text8 layout) it would
   train on 10,000 words.

Both times are recorded separately. A marker file lets a later run with the
same --out reuse the prepared files when the source has not changed."""

from __future__ import annotations

import json
import os
import time

from wv_engine.corpus import open_binary

from .runners import Corpus
from .text_files import CHUNK, chunks_at_whitespace, stem
SPLIT_WORDS = 1000
_WS = b" \t\n\r\f\v"


def relined(path: str, words_per_line: int = SPLIT_WORDS, counts: dict | None = None):
    """The file's words (plain or compressed) as lines (bytes, no newline) of
    at most words_per_line words joined by single spaces; the file's own line
    breaks are kept, its empty lines dropped. When the file has been read to
    its end, counts (if given) gets "words" and "newlines" (of the file)."""
    words = newlines = 0
    line: list[bytes] = []      # words already on the current output line
    for chunk in chunks_at_whitespace(path):
        segments = chunk.split(b"\n")
        newlines += len(segments) - 1
        for k, seg in enumerate(segments):
            toks = seg.split()
            words += len(toks)
            i = 0
            if line:
                i = min(words_per_line - len(line), len(toks))
                line += toks[:i]
                if len(line) == words_per_line:
                    yield b" ".join(line)
                    line = []
            while len(toks) - i >= words_per_line:
                yield b" ".join(toks[i:i + words_per_line])
                i += words_per_line
            if i < len(toks):
                line = toks[i:]
            if k < len(segments) - 1 and line:   # a line break of the file
                yield b" ".join(line)
                line = []
    if line:
        yield b" ".join(line)
    if counts is not None:
        counts.update(words=words, newlines=newlines)


def _decompress(source: str, dest: str) -> None:
    tmp = dest + ".tmp"
    with open_binary(source) as fin, open(tmp, "wb") as fout:
        while True:
            data = fin.read(CHUNK)
            if not data:
                break
            fout.write(data)
    os.replace(tmp, dest)


def _split_and_count(plain: str, dest: str) -> tuple[int, int]:
    """Writes the split copy; returns (words, lines of the plain file)."""
    counts: dict = {}
    tmp = dest + ".tmp"
    with open(tmp, "wb") as out:
        for line in relined(plain, SPLIT_WORDS, counts):
            out.write(line + b"\n")
    os.replace(tmp, dest)
    return counts["words"], counts["newlines"]


def rotated(plain: str, part: int, parts: int, dest: str) -> str:
    """Writes to dest the plain file's text begun `part / parts` of the way
    through its bytes (at the next whitespace: no word is cut), the text
    before that point following a line break after the end: the same words,
    read from another place, so that a study can tell what the order of the
    text does from what the tools do. Returns dest."""
    if not 0 < part < parts:
        raise ValueError(f"rotation {part} of {parts}: it must lie in 1..{parts - 1}")
    size = os.path.getsize(plain)
    tmp = dest + ".tmp"
    with open(plain, "rb") as fin, open(tmp, "wb") as fout:
        fin.seek(size * part // parts)
        cut = fin.tell()
        while (c := fin.read(1)) and c not in _WS:
            cut += 1
        fin.seek(cut)
        _copy(fin, fout, size - cut)
        fout.write(b"\n")
        fin.seek(0)
        _copy(fin, fout, cut)
        fout.write(b"\n")
    os.replace(tmp, dest)
    return dest


def _copy(fin, fout, n: int) -> None:
    while n > 0:
        data = fin.read(min(CHUNK, n))
        if not data:
            break
        fout.write(data)
        n -= len(data)


def prepare(source: str, out_dir: str, log=print) -> Corpus:
    source = os.path.abspath(source)
    st = os.stat(source)
    cdir = os.path.join(out_dir, "corpus")
    os.makedirs(cdir, exist_ok=True)
    name = stem(source)
    with open(source, "rb") as f:
        head = f.read(6)
    compressed = head.startswith((b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00"))
    plain = os.path.join(cdir, name + ".txt") if compressed else source
    split = os.path.join(cdir, name + f".lines{SPLIT_WORDS}.txt")
    marker = os.path.join(cdir, "prepared.json")
    key = {"source": source, "size": st.st_size, "mtime": st.st_mtime, "split_words": SPLIT_WORDS}
    if os.path.exists(marker):
        try:
            with open(marker) as f:
                old = json.load(f)
            if old.get("key") == key and os.path.exists(old["plain"]) and os.path.exists(old["split"]):
                log(f"corpus: reusing prepared files in {cdir}")
                c = Corpus(**old["corpus"])
                return c
        except (OSError, ValueError, KeyError, TypeError):
            pass

    t0 = time.perf_counter()
    if compressed:
        log(f"corpus: decompressing {source} -> {plain}")
        _decompress(source, plain)
    plain_s = time.perf_counter() - t0 if compressed else 0.0
    log(f"corpus: writing a copy split into lines of {SPLIT_WORDS} words for gensim -> {split}")
    t1 = time.perf_counter()
    words, lines = _split_and_count(plain, split)
    split_s = time.perf_counter() - t1
    corpus = Corpus(source=source, plain=plain, split=split, words=words, lines=lines,
                    plain_prep_s=plain_s, split_prep_s=split_s)
    with open(marker, "w") as f:
        json.dump({"key": key, "plain": plain, "split": split, "corpus": corpus.__dict__}, f, indent=1)
    log(f"corpus: {words:,} words; decompress {plain_s:.1f} s, split copy {split_s:.1f} s")
    return corpus
