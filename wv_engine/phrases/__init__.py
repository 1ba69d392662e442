"""Phrases ("new_york_times"): word2phrase's and gensim's, learned and
joined in C on all threads. The model (model.py), its settings and their
checks (settings.py) and the model file (file.py)."""

from .file import load_phrases, read_phrase_file, save_phrases
from .model import PhraseLayer, Phrases
from .settings import (
           DEFAULT_THRESHOLDS,
           ENGLISH_CONNECTOR_WORDS,
           SCORINGS,
           check_settings,
)

__all__ = ["DEFAULT_THRESHOLDS", "ENGLISH_CONNECTOR_WORDS", "PhraseLayer", "Phrases", "SCORINGS", "check_settings",
           "load_phrases", "read_phrase_file", "save_phrases"]
