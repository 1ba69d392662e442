"""gensim 4's KeyedVectors, over wv_engine.Vectors.

The state has gensim's shape (index_to_key, key_to_index, vectors, expandos,
norms); queries, evaluation and files go to a wv_engine.Vectors over the same
matrix (no copy for float32) and to wv_engine.evaluate / wv_engine.formats.
What differs from gensim is listed in docs/GENSIM.md."""

from __future__ import annotations

import logging
import os
import warnings
from collections.abc import Iterable
from numbers import Integral
from typing import Any, Callable

import numpy as np

from .. import file_checks, formats
from . import pickled
from ..errors import FormatError
from ..evaluate import evaluate_analogies, evaluate_word_pairs
from ..files import atomic_write, check_input
from .._vectors import row_norms
from ..settings import INT64_MAX, default_threads
from ..vectors import Vectors

__all__ = ["KeyedVectors", "REAL", "pseudorandom_weak_vector", "load_word2vec_format"]

logger = logging.getLogger(__name__)

REAL = np.float32
_KEY_TYPES = (str, int, np.integer)

def _ensure_list(value: Any) -> list:
    """A single key or 1-D vector as a list of one; a 2-D array as a list of rows (gensim's rule)."""
    if value is None:
        return []
    if isinstance(value, _KEY_TYPES) or (isinstance(value, np.ndarray) and value.ndim == 1):
        return [value]
    if isinstance(value, np.ndarray) and value.ndim == 2:
        return list(value)
    return list(value)


def _unitvec(vec: np.ndarray) -> np.ndarray:
    """vec / its L2 norm, the squares summed in double as gensim's BLAS nrm2
    does (without importing scipy.linalg, a third of a second, on a first query)."""
    vec = np.asarray(vec, dtype=REAL)
    wide = vec.astype(np.float64).ravel()
    norm = np.float32(np.sqrt(wide @ wide)) if vec.size else 0.0
    return vec / norm if norm > 0 else vec


def pseudorandom_weak_vector(size: int, seed_string: str | None = None, hashfxn=hash) -> np.ndarray:
    """A random vector in [-1/size, 1/size) (gensim's helper), seeded by seed_string when given."""
    rng = np.random.default_rng(None if seed_string is None else abs(hashfxn(seed_string)) % 2**32)
    return ((rng.random(size) - 0.5) * (2.0 / size)).astype(REAL)


def _check_unsupported(**given: Any) -> None:
    for name, value in given.items():
        if value not in (None, 0, False, (), ""):
            raise NotImplementedError(f"wv_engine.gensim: {name}={value!r} is not supported")


# gensim 3 names that gensim 4 removed, and what replaces each (AttributeError says so)
_GENSIM3 = {
    "vocab": "key_to_index (key -> row), index_to_key (row -> key) and get_vecattr(key, 'count') / "
             "set_vecattr(key, 'count', n) for the counts",
    "index2word": "index_to_key", "index2entity": "index_to_key", "syn0": "vectors",
    "syn0norm": "get_normed_vectors()", "vectors_norm": "get_normed_vectors()", "wv": "the KeyedVectors itself",
}


def gensim3_hint(owner: str, name: str, renamed: dict[str, str]) -> AttributeError:
    """The AttributeError for a gensim 3 attribute gensim 4 removed: what to use instead."""
    return AttributeError(f"{owner}.{name} was removed in gensim 4.0.0 (and wv_engine.gensim follows gensim 4): "
                          f"use {renamed[name]} instead; gensim's wiki page 'Migrating from Gensim 3.x to 4' "
                          "lists every change")


class KeyedVectors:
    """gensim.models.KeyedVectors: vectors by key, with gensim's methods."""

    def __getattr__(self, name: str) -> Any:
        if name in _GENSIM3:  # only reached when normal lookup fails
            raise gensim3_hint("KeyedVectors", name, _GENSIM3)
        raise AttributeError(f"'KeyedVectors' object has no attribute {name!r}")

    def __init__(self, vector_size: int, count: int = 0, dtype: Any = REAL, mapfile_path: str | None = None):
        _check_unsupported(mapfile_path=mapfile_path)
        self.vector_size = int(vector_size)
        self._core: Vectors | None = None  # the wv_engine.Vectors the queries run on
        self._core_of: tuple | None = None
        self._keys: list | None = [None] * int(count)  # None: the core's words, until asked for
        self._index: dict | None = {}  # None: the core's table, until asked for
        self.next_index = 0
        self.vectors = np.zeros((int(count), self.vector_size), dtype=dtype)
        self.norms: np.ndarray | None = None
        self.expandos: dict[str, np.ndarray] = {}
        self.mapfile_path = None

    # The keys of vectors loaded from a file stay the core's (bytes behind a
    # table, no Python object per key) until index_to_key or key_to_index is
    # read; the state check below then still sees the same core.
    def _from_core(self, attr: str, core_attr: str) -> Any:
        """self.<attr>, taken from the core on first use (the state check then still sees it)."""
        if getattr(self, attr) is None:
            synced = self._synced()
            setattr(self, attr, getattr(self._core, core_attr))
            if synced:
                self._core_of = self._state()
        return getattr(self, attr)

    @property
    def index_to_key(self) -> list:
        return self._from_core("_keys", "words")

    @index_to_key.setter
    def index_to_key(self, keys: list) -> None:
        self._keys = keys

    @property
    def key_to_index(self) -> dict:
        return self._from_core("_index", "key_to_index")

    @key_to_index.setter
    def key_to_index(self, index: dict) -> None:
        self._index = index

    def _synced(self) -> bool:
        return self._core is not None and self._core_of == self._state()

    # ---- building from wv_engine objects --------------------------------------------------
    @classmethod
    def from_vectors(cls, vectors: Vectors) -> "KeyedVectors":
        """A KeyedVectors over a wv_engine.Vectors (sharing its matrix and query caches)."""
        kv = cls(vectors.dim)
        kv._attach(vectors)
        return kv

    def _attach(self, vectors: Vectors, huffman: Callable | None = None) -> None:
        """Shows `vectors`; `huffman`: the model's tree (Vocabulary.huffman), for gensim's
        "code" and "point" attributes of a hierarchical-softmax model."""
        self.vector_size = vectors.dim
        self._keys = None
        self._index = None
        self.vectors = vectors.vectors
        self.next_index = len(vectors)
        self.expandos = _Expandos({} if vectors.counts is None else {"count": vectors.counts}, huffman)
        self.norms = None
        self._core, self._core_of = vectors, self._state()

    def to_vectors(self) -> Vectors:
        """This KeyedVectors as a wv_engine.Vectors (shares the matrix when it is float32)."""
        return self._vec()

    def _state(self) -> tuple:
        keys = self._keys
        return id(self.vectors), id(keys), -1 if keys is None else len(keys), id(self._index)

    def _vec(self) -> Vectors:
        if not self._synced():
            if None in self.index_to_key[:len(self)]:
                raise ValueError("this KeyedVectors has unfilled slots (add_vector fills them)")
            counts = self.expandos.get("count")
            self._core = Vectors([str(k) for k in self.index_to_key], self.vectors, counts=counts)
            self._core_of = self._state()
        return self._core

    def _changed(self) -> None:
        self.norms = None
        self._drop_core()

    def _drop_core(self) -> None:
        """Lets the core go (what it answered from has changed), keeping the
        keys that were still its own (index_to_key, key_to_index)."""
        if self._core is not None:
            if self._keys is None:
                self._keys = self._core.words
            if self._index is None:
                self._index = self._core.key_to_index
        self._core = None

    def __str__(self) -> str:
        return f"KeyedVectors<vector_size={self.vector_size}, {len(self)} keys>"

    __repr__ = __str__

    # ---- keys and vectors ------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._keys) if self._keys is not None else len(self.vectors)

    def get_index(self, key: Any, default: int | None = None) -> int:
        if self._index is None and self._synced():  # the core's table, no dict built
            val = self._core._find(key) if isinstance(key, str) else -1
        else:
            val = self.key_to_index.get(key, -1) if isinstance(key, (str, int, np.integer)) else -1
        if val >= 0:
            return val
        if isinstance(key, (int, np.integer)) and 0 <= key < len(self):
            return int(key)
        if default is not None:
            return default
        raise KeyError(f"Key '{key}' not present")

    def has_index_for(self, key: Any) -> bool:
        return self.get_index(key, -1) >= 0

    def __contains__(self, key: Any) -> bool:
        return self.has_index_for(key)

    def get_vector(self, key: Any, norm: bool = False) -> np.ndarray:
        """The key's vector: a read-only view, as gensim returns it (so that `v *= 0` cannot change
        the model by accident), or its unit vector (a new array) with norm=True."""
        index = self.get_index(key)
        if norm:
            self.fill_norms()
            return self.vectors[index] / self.norms[index]
        view = self.vectors[index]
        view.setflags(write=False)
        return view

    word_vec = get_vector

    def __getitem__(self, key_or_keys: Any) -> np.ndarray:
        if isinstance(key_or_keys, _KEY_TYPES):
            return self.get_vector(key_or_keys)
        return np.vstack([self.get_vector(key) for key in key_or_keys])

    def allocate_vecattrs(self, attrs: Iterable[str] | None = None, types: Iterable[Any] | None = None) -> None:
        attrs = list(self.expandos) if attrs is None else list(attrs)
        types = [self.expandos[a].dtype for a in attrs] if types is None else list(types)
        for attr, t in zip(attrs, types):
            have = self.expandos.get(attr)
            if have is None:
                self.expandos[attr] = np.zeros(len(self), dtype=t)
            elif len(have) < len(self):
                grown = np.zeros(len(self), dtype=have.dtype)
                grown[:len(have)] = have
                self.expandos[attr] = grown

    def set_vecattr(self, key: Any, attr: str, val: Any) -> None:
        self.allocate_vecattrs(attrs=[attr], types=[type(val)])
        self.expandos[attr][self.get_index(key)] = val
        if attr == "count":
            self._drop_core()

    def get_vecattr(self, key: Any, attr: str) -> Any:
        value = self.expandos[attr][self.get_index(key)]
        return value.item() if isinstance(value, np.generic) else value

    def add_vector(self, key: Any, vector: np.ndarray) -> int:
        """Puts `vector` in the next preallocated slot, or appends it."""
        target = self.next_index
        if target >= len(self) or self.index_to_key[target] is not None:
            target = len(self)
            self.add_vectors([key], [vector])
            self.allocate_vecattrs()
        else:
            self.index_to_key[target] = key
            self.key_to_index[key] = target
            self.vectors[target] = vector
            self._changed()
        self.next_index = target + 1
        return target

    def add_vectors(self, keys: Any, weights: Any, extras: dict | None = None, replace: bool = False) -> None:
        """Appends keys and vectors; keys already present keep their vector unless replace=True."""
        if isinstance(keys, _KEY_TYPES):
            keys = [keys]
            weights = np.array(weights).reshape(1, -1)
        weights = np.asarray(weights)
        keys = list(keys)
        present = np.array([k in self.key_to_index for k in keys], dtype=bool)
        index_to_key = list(self.index_to_key)
        key_to_index = dict(self.key_to_index)
        for k in (k for k, p in zip(keys, present) if not p):
            key_to_index[k] = len(index_to_key)
            index_to_key.append(k)
        vectors = np.vstack((self.vectors, weights[~present].astype(self.vectors.dtype)))
        if replace and present.any():
            vectors[[key_to_index[k] for k, p in zip(keys, present) if p]] = weights[present]
        self.index_to_key, self.key_to_index, self.vectors = index_to_key, key_to_index, vectors
        self.allocate_vecattrs()
        for attr, extra in (extras or {}).items():
            self.allocate_vecattrs([attr], [np.asarray(extra).dtype])
            self.expandos[attr][[key_to_index[k] for k in keys]] = extra
        self._changed()

    def __setitem__(self, keys: Any, weights: Any) -> None:
        if not isinstance(keys, list):
            keys = [keys]
            weights = np.asarray(weights).reshape(1, -1)
        self.add_vectors(keys, weights, replace=True)

    def resize_vectors(self, seed: int = 0) -> None:
        raise NotImplementedError("wv_engine.gensim: resize_vectors is not supported; use add_vectors")

    def sort_by_descending_frequency(self) -> None:
        """Reorders keys (and their rows) by the 'count' attribute, most frequent first."""
        if "count" not in self.expandos:
            raise ValueError("need the 'count' vector attribute to sort by frequency")
        order = np.argsort(-self.expandos["count"], kind="stable")
        self.index_to_key = [self.index_to_key[i] for i in order]
        self.key_to_index = {k: i for i, k in enumerate(self.index_to_key)}
        self.vectors = self.vectors[order]
        self.expandos = {a: v[order] for a, v in self.expandos.items()}
        self._changed()

    # ---- norms ---------------------------------------------------------------------------
    def fill_norms(self, force: bool = False) -> None:
        if self.norms is None or force:
            if force and self._core is not None:
                self._core.vectors_changed()
            # the core's norms: stored in a native file, computed while loading, or on every core
            if self._synced():
                self.norms = self._core.norms
            elif self.vectors.dtype == np.float32 and self.vectors.ndim == 2:
                self.norms = row_norms(np.ascontiguousarray(self.vectors), default_threads())  # as the core's
            else:
                self.norms = np.linalg.norm(self.vectors, axis=1)

    def get_normed_vectors(self) -> np.ndarray:
        self.fill_norms()
        return self.vectors / self.norms[..., np.newaxis]

    def unit_normalize_all(self) -> None:
        """Scales every vector to unit length, in place (the raw vectors are lost)."""
        self.fill_norms()
        self.vectors /= self.norms[..., np.newaxis]
        self.norms = np.ones(len(self.vectors))
        if self._core is not None:
            self._core.vectors_changed()

    def init_sims(self, replace: bool = False) -> None:
        warnings.warn("init_sims is deprecated (as in gensim 4): use fill_norms()", DeprecationWarning, stacklevel=2)
        self.fill_norms()
        if replace:
            self.unit_normalize_all()

    # ---- queries -------------------------------------------------------------------------
    def get_mean_vector(self, keys: Any, weights: Any = None, pre_normalize: bool = True,
                        post_normalize: bool = False, ignore_missing: bool = True) -> np.ndarray:
        if len(keys) == 0:
            raise ValueError("cannot compute mean with no input")
        weights = np.ones(len(keys), dtype=REAL) if weights is None else np.asarray(weights, dtype=REAL)
        if len(keys) != weights.shape[0]:
            raise ValueError("keys and weights array must have same number of elements")
        mean = np.zeros(self.vector_size, REAL)
        total = 0.0
        for key, w in zip(keys, weights):
            if isinstance(key, np.ndarray):
                mean += w * key
            elif key in self:
                mean += w * self.get_vector(key, norm=pre_normalize)
            elif not ignore_missing:
                raise KeyError(f"Key '{key}' not present in vocabulary")
            else:
                continue
            total += abs(w)
        if total > 0:
            mean = mean / total
        return _unitvec(mean).astype(REAL) if post_normalize else mean

    def _query(self, positive: Any, negative: Any) -> tuple[list, np.ndarray, set[int]]:
        """gensim's (key or vector, weight) terms -> (terms, weights, row indices to exclude)."""
        positive, negative = _ensure_list(positive), _ensure_list(negative)
        terms, weights = [], []
        for sign, items in ((1.0, positive), (-1.0, negative)):
            for item in items:
                if isinstance(item, (*_KEY_TYPES, np.ndarray)):
                    terms.append(item)
                    weights.append(sign)
                else:
                    terms.append(item[0])
                    weights.append(float(item[1]))
        return terms, np.asarray(weights, dtype=REAL), self._rows_of(terms)

    def _rows_of(self, terms: list) -> set[int]:
        """The rows of the vocabulary keys among `terms` (vectors and unknown keys have none)."""
        return {self.get_index(t) for t in terms if isinstance(t, _KEY_TYPES) and self.has_index_for(t)}

    def _ranked(self, scores_or_list: Any, topn: int, exclude: set[int], first: int = 0) -> list[tuple[Any, float]]:
        """The found (key, score) pairs as gensim gives them: each key as it was added (an int
        stays an int), rows in `exclude` or before `first` left out."""
        core = self._vec()
        found = ((core.get_index(w), s) for w, s in scores_or_list)
        key = core.word if self._keys is None else self._keys.__getitem__
        return [(key(r), s) for r, s in found if r not in exclude and r >= first][:topn]

    def _restrict(self, clip_start: int, clip_end: int | None, restrict_vocab: int | None) -> int | None:
        """The rows a query searches: the first clip_end (or restrict_vocab); those before clip_start
        are left out of its answer (_ranked)."""
        if clip_end is not None:
            return int(clip_end)
        return restrict_vocab or None

    def most_similar(self, positive: Any = None, negative: Any = None, topn: int | None = 10, clip_start: int = 0,
                     clip_end: int | None = None, restrict_vocab: int | None = None, indexer: Any = None):
        """Top-N keys by cosine to the weighted mean of the unit vectors of `positive` (weight 1,
        or (key, weight) pairs) and `negative` (weight -1): [(key, cosine)] best first, or with
        topn=None the cosines of every key. `indexer`: an approximate index (its
        most_similar(vector, topn), as gensim's AnnoyIndexer; ours is
        wv_engine.gensim.similarities.HnswIndexer) answers instead, the query words
        not left out, as in gensim."""
        if isinstance(topn, Integral) and topn < 1:
            return []
        limit = self._restrict(clip_start, clip_end, restrict_vocab)
        terms, weights, exclude = self._query(positive, negative)
        mean = self.get_mean_vector(terms, weights, pre_normalize=True, post_normalize=True, ignore_missing=False)
        if indexer is not None and isinstance(topn, Integral):
            return indexer.most_similar(mean, int(topn))
        if not topn:
            scores = self._vec().most_similar([mean], topn=None, restrict_vocab=limit)
            return scores[clip_start:] if clip_start else scores
        found = self._vec().most_similar([mean], topn=int(topn) + len(exclude) + int(clip_start),
                                         restrict_vocab=limit)
        return self._ranked(found, int(topn), exclude, int(clip_start))

    def most_similar_cosmul(self, positive: Any = None, negative: Any = None, topn: int | None = 10,
                            restrict_vocab: int | None = None):
        """Levy & Goldberg's 3CosMul: [(key, score)] best first, or the scores with topn=None."""
        if isinstance(topn, Integral) and topn < 1:
            return []
        pos, neg = _ensure_list(positive), _ensure_list(negative)
        if not pos:
            raise ValueError("cannot compute similarity with no input")
        exclude = self._rows_of(pos + neg)
        pos = [self.get_vector(t, norm=True) if isinstance(t, _KEY_TYPES) else t for t in pos]
        neg = [self.get_vector(t, norm=True) if isinstance(t, _KEY_TYPES) else t for t in neg]
        if not topn:
            return self._vec().most_similar_cosmul(pos, neg, topn=None, restrict_vocab=restrict_vocab)
        found = self._vec().most_similar_cosmul(pos, neg, topn=int(topn) + len(exclude),
                                                restrict_vocab=restrict_vocab)
        return self._ranked(found, int(topn), exclude)

    def similar_by_key(self, key: Any, topn: int | None = 10, restrict_vocab: int | None = None):
        return self.most_similar(positive=[key], topn=topn, restrict_vocab=restrict_vocab)

    similar_by_word = similar_by_key

    def similar_by_vector(self, vector: np.ndarray, topn: int | None = 10, restrict_vocab: int | None = None):
        return self.most_similar(positive=[vector], topn=topn, restrict_vocab=restrict_vocab)

    def similarity(self, w1: Any, w2: Any) -> np.float32:
        return np.dot(_unitvec(self[w1]), _unitvec(self[w2]))

    def distance(self, w1: Any, w2: Any) -> np.float32:
        return 1 - self.similarity(w1, w2)

    def n_similarity(self, ws1: Any, ws2: Any) -> np.float32:
        if not (len(ws1) and len(ws2)):
            raise ZeroDivisionError("At least one of the passed list is empty.")
        mean1 = self.get_mean_vector(ws1, pre_normalize=False)
        mean2 = self.get_mean_vector(ws2, pre_normalize=False)
        return np.dot(_unitvec(mean1), _unitvec(mean2))

    @staticmethod
    def cosine_similarities(vector_1: np.ndarray, vectors_all: np.ndarray) -> np.ndarray:
        norm = np.linalg.norm(vector_1)
        all_norms = np.linalg.norm(vectors_all, axis=1)
        return np.dot(vectors_all, vector_1) / (norm * all_norms)

    def distances(self, word_or_vector: Any, other_words: Iterable = ()) -> np.ndarray:
        vec = self.get_vector(word_or_vector) if isinstance(word_or_vector, _KEY_TYPES) else word_or_vector
        others = self.vectors if not other_words else self[list(other_words)]
        return 1 - self.cosine_similarities(vec, others)

    def closer_than(self, key1: Any, key2: Any) -> list:
        dists = self.distances(key1)
        i1, i2 = self.get_index(key1), self.get_index(key2)
        return [self.index_to_key[i] for i in np.where(dists < dists[i2])[0] if i != i1]

    words_closer_than = closer_than

    def rank(self, key1: Any, key2: Any) -> int:
        return len(self.closer_than(key1, key2)) + 1

    def most_similar_to_given(self, key1: Any, keys_list: list) -> Any:
        return keys_list[int(np.argmax([self.similarity(key1, k) for k in keys_list]))]

    def relative_cosine_similarity(self, wa: Any, wb: Any, topn: int = 10) -> float:
        sims = self.similar_by_word(wa, topn)
        if not sims:
            raise ValueError("Cannot calculate relative cosine similarity without any similar words.")
        return self.similarity(wa, wb) / sum(s for _, s in sims)

    def rank_by_centrality(self, words: list, use_norm: bool = True) -> list[tuple[float, Any]]:
        used = self._known(words)
        vecs = np.vstack([self.get_vector(w, norm=use_norm) for w in used]).astype(REAL)
        mean = self.get_mean_vector(vecs, post_normalize=True)
        return sorted(zip(np.dot(vecs, mean), used), reverse=True)

    def _known(self, words: list) -> list:
        used = [w for w in words if w in self]
        if len(used) != len(words):
            logger.warning("vectors for words %s are not present in the model, ignoring these words",
                           set(words) - set(used))
        if not used:
            raise ValueError("cannot select a word from an empty list")
        return used

    def doesnt_match(self, words: list) -> Any:
        """The key furthest from the mean of the keys' unit vectors (missing keys ignored)."""
        used = self._known(list(words))
        units = np.vstack([self.get_vector(w, norm=True) for w in used]).astype(REAL)
        return used[int(np.argmin(units @ _unitvec(units.mean(axis=0))))]

    def vectors_for_all(self, keys: Iterable, allow_inference: bool = True,
                        copy_vecattrs: bool = False) -> "KeyedVectors":
        """A new KeyedVectors with the keys among `keys` that have a vector: with
        allow_inference=False only those of the vocabulary (a FastTextKeyedVectors infers
        the others from their n-grams)."""
        has = self.__contains__ if allow_inference else self.has_index_for
        found = list(dict.fromkeys(k for k in keys if has(k)))
        kv = KeyedVectors(self.vector_size, dtype=self.vectors.dtype)
        kv.add_vectors(found, self[found] if found else np.zeros((0, self.vector_size)))
        for attr, values in self.expandos.items():  # the same attributes; their values only if asked
            kv.allocate_vecattrs([attr], [values.dtype])
            if copy_vecattrs:
                kv.expandos[attr][:] = values[[self.get_index(k) for k in found]]
        return kv

    def wmdistance(self, document1: Any, document2: Any, norm: bool = True) -> float:
        raise NotImplementedError("wv_engine.gensim: wmdistance is not supported (use gensim with POT)")

    # ---- evaluation ----------------------------------------------------------------------
    def evaluate_word_analogies(self, analogies: str | os.PathLike, restrict_vocab: int = 300000,
                                case_insensitive: bool = True, dummy4unknown: bool = False,
                                similarity_function: str = "most_similar") -> tuple[float, list[dict]]:
        """gensim's result: (accuracy, [{'section', 'correct': [(a, b, c, d)], 'incorrect': [...]}]
        with a last 'Total accuracy' section). similarity_function 'most_similar_cosmul' uses
        3CosMul (gensim 4.4 ignores the argument and always uses 3CosAdd)."""
        methods = {"most_similar": "3cosadd", "most_similar_cosmul": "3cosmul"}
        if similarity_function not in methods:
            raise ValueError(f"similarity_function must be one of {sorted(methods)}, got {similarity_function!r}")
        res = evaluate_analogies(self._vec(), analogies, restrict_vocab=restrict_vocab,
                                 case_insensitive=case_insensitive, method=methods[similarity_function],
                                 questions=True)

        def fold(qs: list) -> list:
            return [tuple(w.upper() for w in q) if case_insensitive else tuple(q) for q in qs]

        sections = []
        for s in res["sections"]:
            wrong = fold(s["incorrect_questions"]) + (fold(s["oov_questions"]) if dummy4unknown else [])
            sections.append({"section": s["section"], "correct": fold(s["correct_questions"]), "incorrect": wrong})
        total = {"section": "Total accuracy", "correct": [q for s in sections for q in s["correct"]],
                 "incorrect": [q for s in sections for q in s["incorrect"]]}
        n = len(total["correct"]) + len(total["incorrect"])
        score = len(total["correct"]) / n if n else 0.0
        logger.info("%s: %.1f%% (%i/%i)", total["section"], 100.0 * score, len(total["correct"]), n)
        return score, sections + [total]

    def evaluate_word_pairs(self, pairs: str | os.PathLike, delimiter: str = "\t", encoding: str = "utf8",
                            restrict_vocab: int = 300000, case_insensitive: bool = True,
                            dummy4unknown: bool = False) -> tuple[tuple[float, float], tuple[float, float], float]:
        """gensim's result: ((pearson, p-value), (spearman, p-value), OOV pairs in percent)."""
        if delimiter != "\t" or encoding.lower().replace("-", "") != "utf8" or dummy4unknown:
            raise NotImplementedError("wv_engine.gensim: evaluate_word_pairs reads UTF-8 'w1 w2 score' lines "
                                      "(tab or space separated); other delimiter, encoding and "
                                      "dummy4unknown=True are not supported")
        res = evaluate_word_pairs(self._vec(), pairs, restrict_vocab=restrict_vocab,
                                  case_insensitive=case_insensitive)
        if not res["pairs"]:
            raise ValueError(f"No valid similarity judgements found in {pairs}: either invalid format or "
                             f"all are out-of-vocabulary in {self}")
        oov = 100.0 * res["oov_ratio"] if res["oov_ratio"] is not None else 0.0
        return (res["pearson"], res["pearson_pvalue"]), (res["spearman"], res["spearman_pvalue"]), oov

    # ---- files ---------------------------------------------------------------------------
    def save(self, fname: str | os.PathLike, *args: Any, **kwargs: Any) -> None:
        """Writes wv_engine's native format (one file, no pickle); KeyedVectors.load reads it."""
        if args or kwargs:
            raise NotImplementedError("wv_engine.gensim: save takes only a file name (pickle options such as "
                                      "separately/sep_limit/ignore do not apply to the native format)")
        self._vec().save(fname, format="native")

    @classmethod
    def load(cls, fname: str | os.PathLike, mmap: str | None = None) -> "KeyedVectors":
        """Reads a file written by save() (wv_engine's native format; mmap='r' maps the matrix
        read-only), or one gensim's KeyedVectors.save or Word2Vec.save wrote (its vectors), read
        without running its code (wv_engine.gensim.pickled)."""
        if mmap not in (None, "r"):
            raise NotImplementedError("wv_engine.gensim: only mmap=None or 'r' is supported")
        if pickled.looks_pickled(fname):
            words, counts, matrix = pickled.read_vectors(fname, mmap=mmap)
            vectors = Vectors(words, matrix, counts=counts)
            vectors.norms  # noqa: B018 - now, on every core: the first query costs what the next does
            return cls.from_vectors(vectors)
        return cls.from_vectors(Vectors.load(fname, format="native", mmap=mmap == "r"))

    @classmethod
    def load_npy(cls, npy_path: str | os.PathLike, keys: Iterable[str], mmap: str | None = None) -> "KeyedVectors":
        """gensim's `<name>.vectors.npy` sidecar (read with allow_pickle=False) with its keys in
        row order (the keys live in gensim's pickle, which is not read)."""
        matrix = np.load(check_input(npy_path, ".npy file"), allow_pickle=False, mmap_mode=mmap)
        keys = list(keys)
        if matrix.ndim != 2 or matrix.shape[0] != len(keys):
            raise ValueError(f"{os.fspath(npy_path)}: {getattr(matrix, 'shape', None)} rows for {len(keys)} keys")
        kv = cls(matrix.shape[1], dtype=matrix.dtype)
        kv.add_vectors(keys, matrix)
        return kv

    def save_word2vec_format(self, fname: str | os.PathLike, fvocab: str | None = None, binary: bool = False,
                             total_vec: int | None = None, write_header: bool = True, prefix: str = "",
                             append: bool = False, sort_attr: str = "count") -> None:
        """word2vec.c's format; text values are written with full float32 precision."""
        _check_unsupported(total_vec=total_vec, prefix=prefix, append=append)
        keys = list(self.index_to_key)
        if sort_attr in self.expandos:
            keys = [keys[i] for i in np.argsort(-self.expandos[sort_attr], kind="stable")]
        elif fvocab is not None:
            raise ValueError(f"cannot write fvocab: no '{sort_attr}' vector attribute")
        if fvocab is not None:
            with atomic_write(fvocab, "wb") as f:
                for key in keys:
                    f.write(f"{key} {self.get_vecattr(key, sort_attr)}\n".encode("utf8"))
        ordered = Vectors([str(k) for k in keys], self[keys] if keys else self.vectors)
        if binary:
            if not write_header:
                raise NotImplementedError("wv_engine.gensim: binary files always have a header")
            formats.save_word2vec(ordered, fname, binary=True)
            return
        with atomic_write(fname, "wb") as f:
            if write_header:
                f.write(f"{len(keys)} {self.vector_size}\n".encode("utf8"))
            for key, row in zip(ordered.words, ordered.vectors):
                f.write((key + " " + " ".join("%.9g" % v for v in row.tolist()) + "\n").encode("utf8"))

    @classmethod
    def load_word2vec_format(cls, fname: str | os.PathLike, fvocab: str | None = None, binary: bool = False,
                             encoding: str = "utf8", unicode_errors: str = "strict", limit: int | None = None,
                             datatype: Any = REAL, no_header: bool = False) -> "KeyedVectors":
        """word2vec.c's binary or text format (no_header: GloVe-style text), optionally
        compressed; fvocab: a 'word count' file whose counts become the 'count' attribute."""
        fmt = "glove-txt" if no_header else ("word2vec-bin" if binary else "word2vec-txt")
        try:
            got = formats.read_loaded(fname, format=fmt, limit=limit)
        except FormatError as exc:
            if any(s in exc.problem for s in ("truncated", "ends", "fewer", "expected")):
                raise _TruncatedFile(exc.path, exc.problem) from None
            raise
        core = Vectors._loaded(got)
        as_read = encoding.lower().replace("-", "").replace("_", "") in ("utf8", "u8") and (
            got.table is not None and formats.valid_utf8_words(got.table))
        if as_read and np.dtype(datatype) == np.float32:  # the keys are the words as read: no copy of anything
            kv = cls.from_vectors(core)
        else:
            def decode(w: str) -> str:
                raw = w.encode("utf-8", "surrogateescape")
                return raw.decode(encoding, unicode_errors)

            keys = [decode(w) for w in core.words]
            kv = cls(core.dim, dtype=datatype)
            kv.add_vectors(keys, np.asarray(core.vectors, dtype=datatype))
        kv.allocate_vecattrs(["count"], [np.int64])
        kv.expandos["count"][:] = np.arange(len(kv), 0, -1)  # gensim's stand-in counts: rank order
        if fvocab is not None:
            counts = {}
            with open(check_input(fvocab, "vocabulary file"), "rb") as f:
                for n, line in enumerate(f, 1):
                    parts = line.rstrip(b"\n").split(b" ")
                    if len(parts) == 2:
                        raw = parts[1].strip()  # a count as text unless plain digits: checked_number names it
                        count = int(raw) if raw.isdigit() and len(raw) <= 40 else raw[:40].decode("latin-1")
                        counts[parts[0].decode(encoding, unicode_errors)] = file_checks.checked_number(
                            fvocab, f"line {n}: the count", count, 0, INT64_MAX)
            for key in kv.index_to_key:
                if key in counts:
                    kv.set_vecattr(key, "count", counts[key])
        return kv

    def intersect_word2vec_format(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError("wv_engine.gensim: intersect_word2vec_format is not supported")


class _TruncatedFile(FormatError, EOFError):
    """A word2vec file shorter than its header says (gensim raises EOFError; this is both)."""


def load_word2vec_format(*args: Any, **kwargs: Any) -> KeyedVectors:
    return KeyedVectors.load_word2vec_format(*args, **kwargs)


def _load_word2vec_format(cls: type = KeyedVectors, fname: str | os.PathLike = "", fvocab: str | None = None,
                          binary: bool = False, encoding: str = "utf8", unicode_errors: str = "strict",
                          limit: int | None = None, datatype: Any = REAL, no_header: bool = False,
                          binary_chunk_size: int = 100 * 1024) -> KeyedVectors:
    """gensim's module-level reader (binary_chunk_size is a gensim buffer size: not needed here)."""
    return cls.load_word2vec_format(fname, fvocab, binary, encoding, unicode_errors, limit, datatype, no_header)


Word2VecKeyedVectors = KeyedVectors


class _Expandos(dict):
    """gensim's per-key attributes. A hierarchical-softmax model's "code"
    and "point" (each word's Huffman code and inner nodes, as gensim keeps
    them: arrays of uint8 and int32) are built on first use."""

    def __init__(self, attrs: dict, huffman: Callable | None = None) -> None:
        super().__init__(attrs)
        self._huffman = huffman

    def __missing__(self, attr: str) -> np.ndarray:
        if attr not in ("code", "point") or self._huffman is None:
            raise KeyError(attr)
        lengths, codes, points = self._huffman()
        table, dtype = (codes, np.uint8) if attr == "code" else (points, np.int32)
        values = np.empty(len(lengths), dtype=object)
        for i, n in enumerate(lengths.tolist()):
            values[i] = table[i, :n].astype(dtype)
        self[attr] = values
        return values
