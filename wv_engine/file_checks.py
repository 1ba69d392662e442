"""Checks of what is read from a file, before anything uses it: numbers in
range (checked_number, and over a dict's or a list's fields), JSON without
Python's NaN and Infinity (parse_json), and the magic, version and header
length that open our binary files (checked_prefix). Every reader of numbers
from files imports them from here; a failure is a FormatError naming the
file, the field and the value."""

from __future__ import annotations

import json
import math
import os
import struct
from collections.abc import Sequence
from typing import Any, BinaryIO

import numpy as np

from .errors import FormatError

__all__ = ["MAX_FILE_INT", "PREFIX", "checked_entries", "checked_fields", "checked_number", "checked_prefix",
           "parse_json"]

MAX_FILE_INT = 2**62  # past any count, size or offset a real file holds; within int64
PREFIX = struct.Struct("<8sII")  # what opens our binary files: magic, version, JSON header length


def _bound(n: int | float) -> str:
    """A range's end as written in messages: 2**62 and 2**31-1 rather than their digits."""
    if isinstance(n, int) and n >= 1 << 16:
        if n & (n - 1) == 0:
            return f"2**{n.bit_length() - 1}"
        if (n + 1) & n == 0:
            return f"2**{n.bit_length()}-1"
    return str(n)


def checked_number(path: str | os.PathLike, field: str, value: Any, low: int | float = 0,
                   high: int | float = MAX_FILE_INT, *, integer: bool = True) -> Any:
    """`value`, the number `field` read from the file `path`, checked before
    anything uses it: an int in low..high, or (integer=False) a finite float
    in low..high. Anything else raises FormatError naming the field and the
    value: a bool, a string, None, a float where an integer belongs (our
    writers write integers as JSON integers, so 3.0 is damage), NaN, and
    infinity (what JSON reads 1e400 as), which would otherwise surface later
    as an OverflowError, a MemoryError or a wrong result."""
    ok = not isinstance(value, bool) and isinstance(
        value, (int, np.integer) if integer else (int, float, np.integer, np.floating))
    number = value
    if ok and not integer:
        try:
            number = float(value)
        except OverflowError:  # an integer past the float range
            ok = False
        ok = ok and math.isfinite(number)
    if ok and low <= number <= high:
        return int(number) if integer else number
    if integer:
        rule = f"an integer in {_bound(low)}..{_bound(high)}"
    else:
        rule = "a finite number" + ("" if low == -math.inf and high == math.inf else
                                    f" >= {low}" if high == math.inf else f" in {low}..{high}")
    shown = repr(value)
    shown = shown[:40] + ("..." if len(shown) > 40 else "")
    if isinstance(value, float) and math.isinf(value):
        shown += " (a number past the float range, such as 1e400)"
    raise FormatError(path, f"{field} must be {rule}, got {shown}")


def checked_fields(path: str | os.PathLike, where: str, doc: dict[str, Any],
                   ints: dict[str, tuple[int, int]] | None = None,
                   floats: dict[str, tuple[float, float]] | None = None,
                   nullable: Sequence[str] = ()) -> dict[str, Any]:
    """`doc` (a dict read from the file `path`) with each field named in
    `ints` or `floats` (name: (low, high)) checked by checked_number and
    named "{where} field 'name'" in its error, and stored back as the int
    or float it returned. A field may be absent (its reader's default, or
    its KeyError, decides) and None where `nullable` says so. Returns `doc`."""
    for table, integer in ((ints or {}, True), (floats or {}, False)):
        for name, (low, high) in table.items():
            if name in doc and not (doc[name] is None and name in nullable):
                doc[name] = checked_number(path, f"{where} field {name!r}", doc[name], low, high, integer=integer)
    return doc


def checked_entries(path: str | os.PathLike, where: str, entries: Any, ints: dict[str, tuple[int, int]],
                    floats: dict[str, tuple[float, float]] | None = None) -> None:
    """checked_fields on each entry of a list read from `path` (a saved
    history), each named "{where}[i]"; FormatError for an entry that is not
    a JSON object. Anything but a list is left to its reader."""
    for i, entry in enumerate(entries if isinstance(entries, list) else []):
        if not isinstance(entry, dict):
            raise FormatError(path, f"{where}[{i}] is not a JSON object")
        checked_fields(path, f"{where}[{i}]", entry, ints, floats)


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def parse_json(text: str | bytes) -> Any:
    """json.loads without Python's extensions NaN, Infinity and -Infinity
    (ValueError): they are not JSON, save_native never writes them, and a
    number read from a file must be finite (1e400, which parses as
    infinity, is refused by checked_number)."""
    return json.loads(text, parse_constant=_refuse_constant)


def checked_prefix(path: str, fh: BinaryIO, size: int, magic: bytes, version: int, kind: str,
                   advice: str) -> int:
    """Reads the 16 bytes that open our binary files (magic, version, JSON
    header length: little-endian uint32s) and returns the header's length,
    checked against the file's size; FormatError names what is wrong. kind
    names the file ("native", "phrase model"), advice what to do about
    another version."""
    prefix = fh.read(PREFIX.size)
    if len(prefix) < PREFIX.size:
        raise FormatError(path, f"truncated {kind} header")
    found, found_version, head_len = PREFIX.unpack(prefix)
    if found != magic:
        raise FormatError(path, f"not a wv_engine {kind} file (bad magic bytes)")
    if found_version != version:
        raise FormatError(path, f"{kind} format version {found_version} is not supported "
                                f"(this wv_engine reads version {version}); {advice}")
    if head_len > size - PREFIX.size:
        raise FormatError(path, f"header length {head_len} exceeds the file size {size}")
    return head_len
