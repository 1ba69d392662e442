"""Module paths from before the family folders (cli/, word2vec/, fasttext/,
phrases/, glove/), kept for one release: importing one warns
(DeprecationWarning, naming the new path) and gives the new module's
names. No file stands at the old path: a finder at the end of sys.meta_path
answers for exactly these names."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

OLD_PATHS = {
    "wv_engine.cli_args": "wv_engine.cli.args",
    "wv_engine.cli_fasttext": "wv_engine.cli.word2vec",
    "wv_engine.cli_phrases": "wv_engine.cli.phrases",
    "wv_engine.cli_watch": "wv_engine.cli.watch",
    "wv_engine.word2vec_settings": "wv_engine.word2vec.settings",
    "wv_engine.word2vec_state": "wv_engine.word2vec.state",
    "wv_engine.fasttext_bin": "wv_engine.fasttext.bin_file",
    "wv_engine.subword_order": "wv_engine.fasttext.row_order",
    "wv_engine.subword_vectors": "wv_engine.fasttext.vectors",
    "wv_engine.phrase_settings": "wv_engine.phrases.settings",
    "wv_engine.phrases_file": "wv_engine.phrases.file",
    "wv_engine.glove_state": "wv_engine.glove.state",
}


class _OldPath(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        return importlib.util.spec_from_loader(name, self) if name in OLD_PATHS else None

    def create_module(self, spec):
        return None  # a module of its own: the new one's __spec__ stays its own

    def exec_module(self, module) -> None:
        new_path = OLD_PATHS[module.__name__]
        warnings.warn(f"{module.__name__} is now {new_path} (the family folders); the old path goes in the next "
                      "release", DeprecationWarning, stacklevel=2)
        new = importlib.import_module(new_path)
        module.__dict__.update({k: v for k, v in vars(new).items() if not k.startswith("__") or k == "__all__"})
        module.__getattr__ = lambda name: getattr(new, name)  # what the new module gains later, too


def install() -> None:
    """Puts the finder at the end of sys.meta_path, once."""
    if not any(isinstance(f, _OldPath) for f in sys.meta_path):
        sys.meta_path.append(_OldPath())
