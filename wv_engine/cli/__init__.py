"""The wv-engine command line (`wv-engine COMMAND ...`, `python -m
wv_engine.cli`): main() runs one command and returns its exit status;
build_parser() is every command's flags."""

from .args import build_parser
from .entry import main

__all__ = ["build_parser", "main"]
