"""gensim's Word2Vec.score: the log-probability a hierarchical-softmax model
gives each sentence (Taddy's "document classification by inversion of
distributed language representations"), computed with numpy.

Each word of a sentence in the vocabulary is predicted from its whole window
(no shrinking, no subsampling): skip-gram sums log p(word | context word)
over the window's words, CBOW takes log p(word | the context's mean or sum).
The log-sigmoids are exact where gensim's look-up table leaves out terms
beyond +-6."""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np

_CENTRES = 256  # centre words scored at once (bounds the gathered rows)


def score_sentences(model: Any, sentences: Iterable, total_sentences: int) -> np.ndarray:
    """float32 log-probabilities of the first total_sentences sentences."""
    engine = model.engine
    if engine.loss != "hs":
        raise RuntimeError("We have currently only implemented score for the hierarchical softmax scheme, "
                           "so you need to have run word2vec with hs=1 and negative=0 for this to work.")
    tree = engine.vocab.huffman()
    index = model.wv.key_to_index
    scores = []
    for sentence in sentences:
        if len(scores) >= total_sentences:
            break
        ids = np.fromiter((index[w] for w in sentence if w in index), dtype=np.int64)
        scores.append(_sentence_score(engine, tree, ids))
    return np.array(scores, dtype=np.float32)


def _sentence_score(engine: Any, tree: tuple, ids: np.ndarray) -> float:
    n, window = len(ids), engine.window
    inp, out = engine.input_vectors, engine.output_vectors
    total = 0.0
    if engine.arch == "cbow":
        prefix = np.vstack([np.zeros((1, engine.dim)), np.cumsum(inp[ids], axis=0, dtype=np.float64)])
    for first in range(0, n, _CENTRES):
        centres = np.arange(first, min(n, first + _CENTRES))
        if engine.arch == "skipgram":
            offsets = np.r_[-window:0, 1:window + 1]
            centre = np.repeat(centres, len(offsets))
            context = centre + np.tile(offsets, len(centres))
            inside = (context >= 0) & (context < n)
            centre, hidden = centre[inside], inp[ids[context[inside]]]
        else:
            lo, hi = np.maximum(centres - window, 0), np.minimum(centres + window, n - 1)
            counts = hi - lo
            hidden = prefix[hi + 1] - prefix[lo] - inp[ids[centres]]
            if engine.cbow_mean:
                hidden /= np.maximum(counts, 1)[:, None]
            centre, hidden = centres[counts > 0], hidden[counts > 0]
        total += _path_log_probability(tree, ids[centre], hidden, out)
    return total


def _path_log_probability(tree: tuple, words: np.ndarray, hidden: np.ndarray, out: np.ndarray) -> float:
    """sum over k of log p(words[k] | hidden[k]): the sigmoids along each word's Huffman path."""
    lengths, codes, points = tree
    length = lengths[words].astype(np.int64)
    k = np.repeat(np.arange(len(words)), length)
    step = np.arange(length.sum()) - np.repeat(np.cumsum(length) - length, length)
    node, code = points[words[k], step], codes[words[k], step]
    f = np.einsum("ij,ij->i", hidden[k], out[node], dtype=np.float64)
    return float(-np.logaddexp(0.0, np.where(code == 1, f, -f)).sum())
