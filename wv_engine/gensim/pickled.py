"""Reading the models and vectors gensim saved (its SaveLoad pickles, with the
large arrays in `.npy` files beside them) without running their code.

A pickle names the functions it calls to rebuild its objects; this reader
admits only what a gensim Word2Vec or KeyedVectors holds: gensim's model
classes (rebuilt as plain records of their attributes, none of gensim's code
runs, gensim need not be installed), numpy's arrays and dtypes, and a few
builtin containers. Random generators and functions stored in the model are
read as nothing. Anything else stops the read with a FormatError naming it.
The `.npy` files are read with allow_pickle=False. The records are then
turned into wv_engine.gensim objects (gensim_model / gensim_vectors)."""

from __future__ import annotations

import codecs
import collections
import contextlib
import copyreg
import io
import os
import pickle
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..errors import FormatError

_NUMPY = {("numpy", "ndarray"), ("numpy", "dtype"), ("numpy.core.multiarray", "_reconstruct"),
          ("numpy._core.multiarray", "_reconstruct"), ("numpy.core.multiarray", "scalar"),
          ("numpy._core.multiarray", "scalar")}
_BUILTINS = {("collections", "defaultdict"): collections.defaultdict,
             ("collections", "OrderedDict"): collections.OrderedDict,
             ("copyreg", "_reconstructor"): copyreg._reconstructor, ("copy_reg", "_reconstructor"): copyreg._reconstructor,
             ("_codecs", "encode"): codecs.encode,  # how a Python 3 pickle spells bytes for Python 2
             **{(module, name): value for module in ("builtins", "__builtin__") for name, value in (
                 ("int", int), ("float", float), ("set", set), ("frozenset", frozenset), ("object", object),
                 ("long", int), ("unicode", str), ("str", str), ("bytes", bytes), ("list", list), ("dict", dict),
                 ("tuple", tuple), ("bool", bool), ("complex", complex))}}
# what a model holds but a reader does not need: random generators, its hash function, gensim helpers
_IGNORED_MODULES = ("numpy.random", "gensim.utils", "random")
_IGNORED = {("builtins", "hash"), ("__builtin__", "hash")}


class Record:
    """A gensim object as the attributes it was saved with (`gensim_class`
    names its class); none of gensim's code runs."""

    gensim_class = ""

    def __setstate__(self, state: Any) -> None:
        if isinstance(state, tuple) and len(state) == 2:  # (dict, slots)
            state = {**(state[0] or {}), **(state[1] or {})}
        if not isinstance(state, dict):
            raise pickle.UnpicklingError(f"{self.gensim_class}: state of type {type(state).__name__}")
        self.__dict__.update(state)


class _Ignored:
    """What a random generator or a function stored in a model reads as."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __setstate__(self, state: Any) -> None:
        pass


_RECORDS: dict[str, type] = {}


def _record_class(module: str, name: str) -> type:
    full = f"{module}.{name}"
    if full not in _RECORDS:
        _RECORDS[full] = type(name, (Record,), {"gensim_class": full})
    return _RECORDS[full]


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if module.startswith("gensim.models.") and name[:1].isupper():
            return _record_class(module, name)
        if (module, name) in _NUMPY:
            return super().find_class(module, name)
        if (module, name) in _BUILTINS:
            return _BUILTINS[(module, name)]
        if (module, name) in _IGNORED or module.startswith(_IGNORED_MODULES):
            return _Ignored
        raise pickle.UnpicklingError(f"{module}.{name} is not something a gensim model holds")


def read(path: str | os.PathLike, mmap: str | None = None) -> Record:
    """The object gensim's SaveLoad.save wrote to `path`, with the arrays it
    stored beside it read back in (mmap='r': mapped read-only, as gensim's
    load(..., mmap='r'), its pages shared with every process mapping them).
    FormatError for anything else."""
    path = os.fspath(path)
    compressed = path.endswith((".gz", ".bz2"))
    from ..files import open_input

    with open_input(path, "gensim file") as f:
        data = f.read()
    try:
        obj = _Unpickler(io.BytesIO(data), encoding="latin1").load()
    except Exception as exc:  # noqa: BLE001 - a damaged stream raises anything; only admitted callables ran
        raise FormatError(path, f"not a gensim model this reader admits: {type(exc).__name__}: {exc}") from None
    if not isinstance(obj, Record):
        raise FormatError(path, f"not a gensim model (a {type(obj).__name__})")
    _load_beside(obj, path, compressed, mmap)
    return obj


def _load_beside(obj: Record, fname: str, compressed: bool, mmap: str | None) -> None:
    """SaveLoad's arrays stored in files of their own: `fname.attr.npy`
    (`.npz` when the model was compressed), objects recursively."""
    state = obj.__dict__
    for attr in state.get("__recursive_saveloads", []) or []:
        child = state.get(attr)
        if isinstance(child, Record):
            _load_beside(child, f"{fname}.{attr}", compressed, mmap)
    for attr in state.get("__numpys", []) or []:
        where = f"{fname}.{attr}.{'npz' if compressed else 'npy'}"
        try:
            value = np.load(where, allow_pickle=False, mmap_mode=None if compressed else mmap)
            state[attr] = value["val"] if compressed else value
        except (OSError, ValueError, KeyError) as exc:
            raise FormatError(where, f"cannot read the array {attr!r} stored beside {fname}: {exc}") from None
    for attr in state.get("__scipys", []) or []:
        raise FormatError(fname, f"sparse attribute {attr!r}: not part of a Word2Vec or KeyedVectors")
    for attr in state.get("__ignoreds", []) or []:
        state[attr] = None


def read_vectors(path: str | os.PathLike, record: Record | None = None, mmap: str | None = None
                 ) -> tuple[list[str], np.ndarray | None, np.ndarray]:
    """vectors_of the KeyedVectors gensim saved at `path`, or of a saved
    Word2Vec's (its `wv`; before gensim 1, the model held them itself);
    `record`: the file read already; `mmap`: as in read."""
    record = read(path, mmap) if record is None else record
    return vectors_of(os.fspath(path), _attr(record, "wv", default=record))


def looks_pickled(path: str | os.PathLike) -> bool:
    """Whether a file starts as a pickle does (gensim's save; gzip'd too)."""
    from ..files import open_input

    with open_input(path, "gensim file") as f:
        return f.read(1) == b"\x80"


# ---------------------------------------------------------------- gensim's records -> wv_engine's objects


@contextlib.contextmanager
def _damage_named(path: str, what: str) -> Iterator[None]:
    """What a record of the wrong types raises while it is converted, as a FormatError."""
    try:
        yield
    except FormatError:
        raise
    except (TypeError, AttributeError, IndexError, KeyError, ValueError, OverflowError) as exc:
        raise FormatError(path, f"damaged gensim {what}: {type(exc).__name__}: {exc}") from None


def _attr(record: Any, *names: str, default: Any = None) -> Any:
    """The first of `names` the record has (gensim renamed attributes between versions)."""
    state = getattr(record, "__dict__", {})
    for name in names:
        if name in state and state[name] is not None:
            return state[name]
    return default


def vectors_of(path: str, kv: Any) -> tuple[list[str], np.ndarray | None, np.ndarray]:
    """(words in row order, counts or None, the float32 matrix) of a gensim
    KeyedVectors record: gensim 4's index_to_key and expandos, or gensim
    1-3's index2word and vocab entries."""
    with _damage_named(path, "vectors"):
        return _vectors_of(path, kv)


def _vectors_of(path: str, kv: Any) -> tuple[list[str], np.ndarray | None, np.ndarray]:
    matrix = _attr(kv, "vectors", "syn0")
    words = _attr(kv, "index_to_key", "index2word", "index2entity")
    if not isinstance(matrix, np.ndarray) or matrix.ndim != 2 or not isinstance(words, list):
        raise FormatError(path, "a gensim KeyedVectors without its vectors and words")
    if len(words) != matrix.shape[0] or not all(isinstance(w, str) for w in words):
        raise FormatError(path, f"{len(words)} words for {matrix.shape[0]} vectors, or words that are not text")
    counts = (_attr(kv, "expandos", default={}) or {}).get("count")
    vocab = _attr(kv, "vocab")
    if counts is None and isinstance(vocab, dict):
        counts = [getattr(vocab.get(w), "count", None) for w in words]
        counts = None if any(c is None for c in counts) else counts
    counts = None if counts is None else np.asarray(counts, dtype=np.int64)
    return words, counts, np.ascontiguousarray(matrix, dtype=np.float32)


def _tree_of(kv: Any, words: list[str]) -> tuple[list, list] | None:
    """gensim's Huffman codes and points per word, when the record has them."""
    expandos = _attr(kv, "expandos", default={}) or {}
    if "code" in expandos and "point" in expandos:
        return list(expandos["code"]), list(expandos["point"])
    vocab = _attr(kv, "vocab")
    if isinstance(vocab, dict) and all(hasattr(vocab.get(w), "code") for w in words):
        return [vocab[w].code for w in words], [vocab[w].point for w in words]
    return None


def hs_rows(path: str, gensim_tree: tuple[list, list] | None, syn1: np.ndarray, vocab: Any) -> np.ndarray:
    """gensim's inner-node rows (syn1) for our model. Where its Huffman tree
    has the shape of word2vec.c's over the same counts, its nodes are
    renumbered as ours; where ties among counts gave gensim's heap another
    shape, the model keeps gensim's tree (vocab.tree, saved with it)."""
    from ..word2vec.state import checked_tree

    if gensim_tree is None:
        raise FormatError(path, "a hierarchical-softmax model without its Huffman codes")
    g_codes, g_points = ([np.asarray(c, dtype=np.int64) for c in part] for part in gensim_tree)
    V = len(g_codes)
    if syn1.shape[0] < V - 1:
        raise FormatError(path, f"syn1 has {syn1.shape[0]} rows for a tree of {V - 1} inner nodes")
    lengths, codes, points = vocab.huffman()
    mapping: dict[int, int] = {}
    same = all(len(g_codes[w]) == lengths[w] and np.array_equal(g_codes[w], codes[w, :lengths[w]])
               for w in range(V))
    for w in range(V if same else 0):
        for g, o in zip(g_points[w].tolist(), points[w, :lengths[w]].tolist()):
            same = same and mapping.setdefault(g, o) == o
    if not same:  # gensim's own tree, in the C core's layout
        most = codes.shape[1]
        if max((len(c) for c in g_codes), default=0) > most:
            raise FormatError(path, f"a Huffman code longer than {most}")
        tree = (np.array([len(c) for c in g_codes]), np.zeros((V, most), np.int64), np.zeros((V, most), np.int64))
        for w in range(V):
            tree[1][w, :len(g_codes[w])], tree[2][w, :len(g_points[w])] = g_codes[w], g_points[w]
        vocab.tree = checked_tree(path, tree, V)
        out = np.zeros((V, syn1.shape[1]), dtype=np.float32)
        out[:min(V, len(syn1))] = syn1[:V]
        return out
    out = np.zeros((V, syn1.shape[1]), dtype=np.float32)
    for g, o in mapping.items():
        out[o] = syn1[g]
    return out


def gensim_word2vec(cls: Any, path: str, record: Record | None = None) -> Any:
    """A wv_engine.gensim.Word2Vec (`cls`) from a Word2Vec gensim saved: its
    settings, vocabulary, vectors and output weights, ready to train on;
    `record`: the file read already."""
    with _damage_named(path, "model"):
        return _gensim_word2vec(cls, path, read(path) if record is None else record)


def _gensim_word2vec(cls: Any, path: str, record: Record) -> Any:
    from .. import word2vec as core
    from ..vocab import Vocabulary

    if not record.gensim_class.endswith(".Word2Vec"):
        raise FormatError(path, f"a gensim {record.gensim_class.rsplit('.', 1)[-1]}, not a Word2Vec "
                                "(KeyedVectors.load reads saved vectors)")
    kv = _attr(record, "wv", default=record)  # before gensim 1, the model held its vectors itself
    words, counts, matrix = vectors_of(path, kv)
    if counts is None or np.any(np.diff(counts) > 0) or np.any(counts <= 0):
        raise FormatError(path, "the vocabulary's counts are missing or not sorted (sorted_vocab=0)")
    vocabulary, trainables = _attr(record, "vocabulary"), _attr(record, "trainables")  # gensim 3's parts
    hs = int(bool(_attr(record, "hs", default=0)))
    setting = lambda *names, default=None: _attr(record, *names, default=_attr(vocabulary, *names,  # noqa: E731
                                                                              default=default))
    model = cls(vector_size=matrix.shape[1], alpha=setting("alpha", default=0.025),
                window=setting("window", default=5), min_count=setting("min_count", default=5),
                max_vocab_size=setting("max_vocab_size"), sample=setting("sample", default=1e-3),
                seed=setting("seed", default=1), workers=setting("workers", default=3),
                min_alpha=setting("min_alpha", default=1e-4), sg=setting("sg", default=0), hs=hs,
                negative=0 if hs else setting("negative", default=5),
                ns_exponent=setting("ns_exponent", default=0.75), cbow_mean=setting("cbow_mean", default=1),
                epochs=setting("epochs", "iter", default=5), max_final_vocab=setting("max_final_vocab"),
                shrink_windows=setting("shrink_windows", default=True))
    vocab = Vocabulary(words, counts, total_tokens=setting("corpus_total_words"))
    output = _attr(record, "syn1" if hs else "syn1neg", default=_attr(trainables, "syn1" if hs else "syn1neg"))
    if not isinstance(output, np.ndarray) or output.ndim != 2 or output.shape[1] != matrix.shape[1]:
        raise FormatError(path, "a Word2Vec without its output weights (syn1neg / syn1)")
    output = np.ascontiguousarray(output, dtype=np.float32)
    if hs:
        output = hs_rows(path, _tree_of(kv, words), output, vocab)
    elif output.shape[0] != len(words):
        raise FormatError(path, f"syn1neg has {output.shape[0]} rows for {len(words)} words")
    engine = core.Word2Vec.from_weights(model._model.config(), vocab, matrix, output,
                                        int(setting("train_count", default=0) or 0))
    model._model = engine
    model.wv = type(model.wv)(engine.dim)
    model._attach_wv()
    model.effective_min_count = engine.min_count
    model.corpus_count = setting("corpus_count")
    model.corpus_total_words = setting("corpus_total_words")
    model.running_training_loss = float(setting("running_training_loss", default=0.0))
    model.compute_loss = bool(setting("compute_loss", default=False))
    model.train_count = int(setting("train_count", default=0) or 0)
    model.comment = setting("comment")
    return model

