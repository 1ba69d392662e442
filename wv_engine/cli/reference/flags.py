"""The reference tools' own flag syntax: `-name value` pairs (word2vec.c's
ArgPos, GloVe's find_arg, fastText's Args::parseArgs), read against one
table per program. Unlike those programs, an unknown, repeated or valueless
flag and a stray word are refused in one line naming them, never skipped."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence


class UsageError(ValueError):
    """A reference-spelled command line that cannot be read: one line."""


@dataclass(frozen=True)
class Flag:
    """One flag: how its value reads (None: a switch that takes no value),
    its default, and the line its program's usage gives it."""
    kind: Callable[[str], object] | None
    default: object
    help: str = ""


def integer(text: str) -> int:
    """A whole number as the C tools read one (atoi/atoll), but refused
    rather than read as 0 when it is not one."""
    return int(text)


def real(text: str) -> float:
    """A number as atof reads one, refused rather than read as 0."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def looks_like_flag(token: str) -> bool:
    """A single-dash word (-train, -minCount): the reference tools'
    spelling, never one of ours (ours are --name, or -o / -n / -h)."""
    return len(token) > 2 and token[0] == "-" and token[1] != "-" and token[1].isalpha()


def parse(program: str, table: dict[str, Flag], argv: Sequence[str],
          positional: Sequence[str] = ()) -> tuple[dict[str, object], list[str]]:
    """The values of `table`'s flags (name without its dash -> value; the
    default where not given) and the positional words, which must come
    before the first flag and number at most len(positional). `program`
    (the reference tool's name) is for the messages."""
    values = {name.lstrip("-"): flag.default for name, flag in table.items()}
    words: list[str] = []
    seen: set[str] = set()
    i = 0
    while i < len(argv):
        token = argv[i]
        if not token.startswith("-") or token == "-":
            if seen or len(words) >= len(positional):
                raise UsageError(f"unexpected argument {token!r}" + (f" after {argv[i - 1]}" if i else "")
                                 + _known(program, table))
            words.append(token)
            i += 1
            continue
        flag = table.get(token)
        if flag is None:
            raise UsageError(f"unknown flag {token}" + _known(program, table))
        if token in seen:
            raise UsageError(f"{token} is given twice")
        seen.add(token)
        if flag.kind is None:
            values[token.lstrip("-")] = True
            i += 1
            continue
        if i + 1 >= len(argv):
            raise UsageError(f"{token} needs a value ({flag.help or flag.kind.__name__})")
        text = argv[i + 1]
        try:
            values[token.lstrip("-")] = flag.kind(text)
        except ValueError as exc:
            # a range check says what it takes; int() and float() only that they failed
            detail = str(exc).split(", got ")[0] if str(exc).startswith("must") else f"not {_a(flag.kind)}"
            raise UsageError(f"{token} {text!r}: {detail}") from None
        i += 2
    return values, words


def _a(kind: Callable[[str], object]) -> str:
    return {"integer": "a whole number", "real": "a number"}.get(kind.__name__, f"a valid {kind.__name__}")


def _known(program: str, table: dict[str, Flag]) -> str:
    return f" ({program}'s flags: {' '.join(table)})"


def usage(table: dict[str, Flag], synopsis: str) -> str:
    """The program's help: its synopsis and a line a flag with its default."""
    lines = [f"usage: {synopsis}", ""]
    for name, flag in table.items():
        default = "" if flag.kind is None or flag.default is None else f" (default {flag.default})"
        lines.append(f"  {name:<20} {flag.help}{default}")
    return "\n".join(lines)
