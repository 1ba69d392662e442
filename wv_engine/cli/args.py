"""The wv-engine command line's flags: every subcommand's arguments, their
types and ranges (a bad value is refused by the parser, naming the range),
and which flags a command line typed. Flags named in the issues are a
contract: add, never rename."""

from __future__ import annotations

import argparse
from typing import Callable, Sequence

from ..settings import RANGES, Range

FORMATS = {"bin": "word2vec-bin", "txt": "word2vec-txt", "native": "native"}


# GloVe and SVD vectors: txt is GloVe's own text format (no header).
MATRIX_FORMATS = {"bin": "word2vec-bin", "txt": "glove-txt", "native": "native"}


# ---- argument types: bad values are refused by the parser, naming the range -
def bounded(name: str, admitted: Range | None = None) -> Callable[[str], float]:
    """argparse type of a numeric flag: the range of the setting `name`
    (settings.RANGES, the one table the trainers check too) unless given."""
    admitted = admitted or RANGES[name]

    def parse(text: str):
        """Parses and range-checks one value."""
        try:
            value = int(text) if admitted.integer else float(text)
        except ValueError:
            value = None
        if not admitted.admits(value):
            raise argparse.ArgumentTypeError(f"must be {admitted}, got {text!r}")
        return value
    parse.__name__ = "integer" if admitted.integer else "number"
    return parse


class Parser(argparse.ArgumentParser):
    """An argument parser whose every error is one line: the command, the
    flag, what it takes (the usage of a command of forty flags would bury
    it), and where the flags are listed."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _add_scheduler(p) -> None:
    p.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="run on a dask.distributed cluster: a scheduler address (tcp://host:8786) or "
                        "local:N for N local worker processes; --threads is then per worker "
                        '(needs pip install "wv-engine[dask]"; the input must be readable by every worker)')


def _add_word2vec(sub, name: str = "word2vec", what: str = "word2vec vectors", description: str = ""):
    p = sub.add_parser(name, help=f"train {what} on a text file",
                       description="Train skip-gram or CBOW vectors on a text file (plain, .gz, .bz2, "
                                   ".xz; whitespace-separated tokens, a newline ends a sentence)." + description)
    p.add_argument("input", metavar="INPUT", help="training text file")
    p.add_argument("-o", "--output", required=True, metavar="OUTPUT", help="where to write the vectors")
    p.add_argument("--arch", choices=["skipgram", "cbow"], default="skipgram")
    p.add_argument("--loss", choices=["ns", "hs", "softmax"], default="ns",
                   help="negative sampling, hierarchical softmax, or exact softmax (small vocabularies)")
    p.add_argument("--dim", type=bounded("dim"), default=100)
    p.add_argument("--window", type=bounded("window"), default=5)
    p.add_argument("--negative", type=bounded("negative"), default=5,
                   help="negative samples per positive (>= 1 with --loss ns; ignored otherwise)")
    p.add_argument("--min-count", type=bounded("min_count"), default=5)
    p.add_argument("--sample", type=bounded("sample"), default=1e-3, help="subsampling threshold, 0 to disable")
    p.add_argument("--epochs", type=bounded("epochs"), default=5)
    p.add_argument("--alpha", type=bounded("alpha"), default=None,
                   help="initial learning rate (default 0.025 skip-gram, 0.05 CBOW)")
    p.add_argument("--min-alpha", type=bounded("min_alpha", Range(0, 10, integer=False)), default=None,
                   help="final learning rate (default: set by --schedule)")
    p.add_argument("--schedule", choices=["epochs", "word2vec"], default=None,
                   help="'epochs': the learning rate falls on a line from alpha to min-alpha, by default "
                        "alpha / (2 x epochs); 'word2vec': as word2vec.c, alpha x (1 - progress) floored at "
                        "min-alpha, by default alpha * 1e-4 (default: 'epochs' with --loss ns, else 'word2vec', "
                        "and with --loss hs --arch cbow floored at alpha / (3 x epochs))")
    p.add_argument("--threads", type=bounded("threads"), default=None, help="default: the usable cores")
    p.add_argument("--seed", type=bounded("seed"), default=1)
    p.add_argument("--format", choices=list(FORMATS), default="bin",
                   help="bin / txt: word2vec.c's formats; native: ours (mmap-able, keeps counts)")
    p.add_argument("--max-vocab-size", type=bounded("max_vocab_size"), default=None,
                   help="prune rare words while counting past this many distinct words")
    p.add_argument("--max-final-vocab", type=bounded("max_final_vocab"), default=None)
    p.add_argument("--ns-exponent", type=bounded("ns_exponent"), default=0.75)
    p.add_argument("--max-sentence-length", type=bounded("max_sentence_length"), default=1000)
    p.add_argument("--init-range", type=bounded("init_range"), default=1.0,
                   help="input vectors start uniform in [-R/dim, R/dim): 1.0 as gensim (default), 0.5 as "
                        "word2vec.c")
    p.add_argument("--regions", type=bounded("regions"), default=None,
                   help="an epoch takes the corpus in chunks from this many regions in turn (default: "
                        "max(threads, 16), and with --loss hs one more in each later epoch); a count given "
                        "holds for every epoch, and as many as --threads is word2vec.c's and gensim's order")
    negatives = p.add_mutually_exclusive_group()
    negatives.add_argument("--shared-negatives", dest="shared_negatives", action="store_true", default=None,
                           help="skip-gram NS: one negative set per window, trained as small matrices (the "
                                "default for skip-gram NS; measured quality in docs/performance.md)")
    negatives.add_argument("--exact-negatives", dest="shared_negatives", action="store_false", default=None,
                           help="skip-gram NS: word2vec.c's per-pair kernel, fresh negatives for every pair")
    p.add_argument("--save-vocab", metavar="PATH", help="also write the vocabulary as 'word count' lines")
    p.add_argument("--pretrained-vectors", metavar="PATH",
                   help="start the rows of the words these vectors hold (any format load_vectors reads, the same "
                        "--dim) from them, as fastText's -pretrainedVectors; the other words start at random")
    p.add_argument("--add-pretrained-words", action="store_true",
                   help="with --pretrained-vectors: the words only the file holds join the vocabulary too (each "
                        "counted once more, as fastText's -pretrainedVectors adds them), their rows from the file")
    p.add_argument("--read-vocab", metavar="PATH",
                   help="take the vocabulary from 'word count' lines (--save-vocab's, word2vec.c's -save-vocab, "
                        "GloVe's vocab_count) instead of counting INPUT: words under --min-count and word2vec.c's "
                        "line-end word </s> are left out")
    _add_phrase_model(p)
    p.add_argument("--tmp-dir", default=None, metavar="DIR",
                   help="where the encoded corpus goes when it is kept on disk (default: the system's "
                        "temporary directory; the file is unlinked at creation)")
    p.add_argument("--ids-on-disk", dest="ids_on_disk", action="store_true", default=None,
                   help="keep the encoded corpus (4 bytes a token) in a temporary file; the default does so "
                        "when it would take more than 512 MiB or an eighth of the memory available")
    _add_checkpoints(p, "the whole training state (both matrices, vocabulary, settings, learning-rate schedule)")
    _add_watching(p)
    p.add_argument("--stats-json", metavar="PATH", help="write timings and per-epoch loss as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar or messages")
    _add_scheduler(p)
    p.add_argument("--sync-words", type=bounded("sync_words"), default=250_000, metavar="N",
                   help="with --scheduler: words each worker trains between two model averages "
                        "(default 250,000; see docs/CLUSTER.md)")
    p.add_argument("--lr-scale", type=bounded("lr_scale"), default=None, metavar="X",
                   help="with --scheduler: each worker's learning rate times X (default: the number of "
                        "workers, at most 4, so the averaged model moves as one machine's would)")
    return p


def _add_fasttext(sub) -> None:
    """word2vec's flags with fastText's defaults (wv_engine.fasttext.FASTTEXT_DEFAULTS), and its n-grams'."""
    p = _add_word2vec(sub, "fasttext", "fastText subword vectors",
                      " A word's input vector is the mean of its own row and its character n-grams' rows "
                      "(fastText's model; defaults are fastText's: --sample 1e-4, --alpha 0.05 falling to 0, "
                      "--ns-exponent 0.5). --format bin writes fastText's .bin (readable by fastText and "
                      "gensim), txt its .vec, native the whole training state.")
    p.add_argument("--minn", type=bounded("minn"), default=3, help="fewest characters of an n-gram (fastText's -minn)")
    p.add_argument("--maxn", type=bounded("maxn"), default=6,
                   help="most characters of an n-gram (fastText's -maxn); 0: no n-grams, plain word2vec")
    p.add_argument("--bucket", type=bounded("bucket"), default=2_000_000,
                   help="rows the n-grams are hashed into (fastText's -bucket); they take bucket x dim x 4 bytes")
    p.set_defaults(sample=1e-4, alpha=0.05, ns_exponent=0.5, max_sentence_length=1024, schedule="word2vec")


def _add_doc2vec(sub) -> None:
    p = sub.add_parser("doc2vec", help="train document vectors (Doc2Vec) on a file of one document a line",
                       description="Train paragraph vectors (gensim's Doc2Vec): a vector for each document's tags "
                                   "(the text before a TAB on its line, else its line number, 0 first), with the "
                                   "word vectors. Writes the whole model (native: `wv-engine infer` and "
                                   "Doc2Vec.load read it; load_vectors reads its document vectors). Defaults are "
                                   "gensim's Doc2Vec's.")
    p.add_argument("input", metavar="INPUT", help="text file, one document a line ('TAGS<TAB>words' or words)")
    p.add_argument("-o", "--output", required=True, metavar="MODEL", help="where to write the model")
    p.add_argument("--arch", choices=["dm", "dbow"], default="dm",
                   help="dm: PV-DM, the window's words and the document predict the centre word (default); "
                        "dbow: PV-DBOW, the document predicts each of its words")
    p.add_argument("--dm-sum", dest="dm_mean", action="store_false", help="PV-DM: the sum, not the mean")
    p.add_argument("--dm-concat", action="store_true",
                   help="PV-DM: the document's and the window's vectors side by side, not averaged")
    p.add_argument("--dm-tag-count", type=bounded("dm_tag_count"), default=1,
                   help="--dm-concat: the tags of each document (documents with another number are skipped)")
    p.add_argument("--dbow-words", action="store_true", help="PV-DBOW: train the word vectors too (skip-gram)")
    p.add_argument("--shared-negatives", action="store_true", default=None,
                   help="PV-DBOW with --loss ns: each 8 words of a document share one negative set, read once")
    p.add_argument("--loss", choices=["ns", "hs"], default="ns")
    p.add_argument("--dim", type=bounded("dim"), default=100)
    p.add_argument("--window", type=bounded("window"), default=5)
    p.add_argument("--negative", type=bounded("negative"), default=5)
    p.add_argument("--min-count", type=bounded("min_count"), default=5)
    p.add_argument("--sample", type=bounded("sample"), default=1e-3)
    p.add_argument("--epochs", type=bounded("epochs"), default=10)
    p.add_argument("--alpha", type=bounded("alpha"), default=0.025)
    p.add_argument("--min-alpha", type=bounded("min_alpha", Range(0, 10, integer=False)), default=0.0001)
    p.add_argument("--threads", type=bounded("threads"), default=None, help="default: the usable cores")
    p.add_argument("--seed", type=bounded("seed"), default=1)
    p.add_argument("--max-vocab-size", type=bounded("max_vocab_size"), default=None)
    p.add_argument("--max-final-vocab", type=bounded("max_final_vocab"), default=None)
    p.add_argument("--vectors", metavar="PATH", help="also write the document vectors, in --format")
    p.add_argument("--word-vectors", metavar="PATH", help="also write the word vectors, in --format")
    p.add_argument("--format", choices=list(FORMATS), default="bin",
                   help="of --vectors and --word-vectors: word2vec.c's bin / txt, or native")
    _add_checkpoints(p, "the whole model (the vectors, the vocabulary, the tags, the settings)")
    p.add_argument("--eval-every", type=bounded("every"), default=None, metavar="N",
                   help="with --eval-documents: score the document vectors every N epochs and after the last")
    p.add_argument("--eval-documents", metavar="FILE",
                   help="'TAG<TAB>words' lines (or words alone: the line number is the tag), each a text of the "
                        "trained document TAG: inferred, how often it finds its own document (top 1, top 10)")
    p.add_argument("--stats-json", metavar="PATH", help="write timings and per-epoch loss as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar or messages")

    p = sub.add_parser("infer", help="vectors of unseen documents from a Doc2Vec model",
                       description="Infers a vector for each line of INPUT (a tag column before a TAB names it, "
                                   "else its line number) with a model `wv-engine doc2vec` wrote: every document "
                                   "at once on every thread, the model frozen.")
    p.add_argument("model", metavar="MODEL", help="a model written by `wv-engine doc2vec`")
    p.add_argument("input", metavar="INPUT", help="text file, one document a line")
    p.add_argument("-o", "--output", required=True, metavar="OUTPUT", help="where to write the vectors")
    p.add_argument("--format", choices=list(FORMATS), default="txt", help="word2vec.c's txt / bin, or native")
    p.add_argument("--epochs", type=bounded("epochs"), default=None, help="passes a document (default: the model's)")
    p.add_argument("--alpha", type=bounded("alpha"), default=None)
    p.add_argument("--min-alpha", type=bounded("min_alpha", Range(0, 10, integer=False)), default=None)
    p.add_argument("--threads", type=bounded("threads"), default=None, help="default: the usable cores")
    p.add_argument("--quiet", action="store_true", help="no progress bar or messages")


def _add_watching(p) -> None:
    p.add_argument("--eval-every", type=bounded("every"), default=None, metavar="N",
                   help="score the vectors every N epochs and after the last, as `wv-engine eval` does (analogy "
                        "accuracy, word-pair Spearman): printed with the epoch, kept in --stats-json (epoch_scores)")
    p.add_argument("--eval-analogies", metavar="FILE", help="with --eval-every: a questions-words file "
                                                            "(default: the shipped set)")
    p.add_argument("--eval-pairs", metavar="FILE", nargs="+",
                   help="with --eval-every: word-pair files (default: the shipped WordSim-353 and SimLex-999)")
    p.add_argument("--snapshots", metavar="DIR",
                   help="after every epoch, draw a map of the --snapshot-words to DIR/epoch_NN.png (needs "
                        'matplotlib: pip install "wv-engine[plot]")')
    p.add_argument("--snapshot-words", metavar="WORD", nargs="+",
                   help="the words of the snapshots (default: capitals, countries, male and female words of the "
                        "shipped analogy set that are among the 30,000 most frequent)")


def _add_phrase_model(p) -> None:
    p.add_argument("--phrases", metavar="MODEL", default=None,
                   help="read the text through this phrase model (`wv-engine phrases --save-model`): its phrases "
                        "are joined as the text is read, no phrased copy is written")


def _add_checkpoints(p, what: str) -> None:
    p.add_argument("--checkpoint", metavar="PATH",
                   help=f"save {what} here atomically every --checkpoint-every minutes, on Ctrl-C and at the "
                        "end, to continue with --resume")
    p.add_argument("--checkpoint-every", type=bounded("checkpoint_every"), default=30.0, metavar="MINUTES",
                   help="minutes between two checkpoints (default 30; word2vec saves between two chunks of "
                        "the corpus, GloVe at the next epoch's end)")
    p.add_argument("--resume", metavar="PATH",
                   help="continue from a checkpoint (its vocabulary, settings and state) after checking that "
                        "the flags given and the corpus agree with it")


def _add_queries(sub) -> None:
    p = sub.add_parser("eval", help="evaluate vectors on analogies and word-pair similarity")
    p.add_argument("vectors", metavar="VECTORS")
    p.add_argument("--analogies", metavar="FILE", help="questions-words format (default: the shipped set)")
    p.add_argument("--pairs", metavar="FILE", nargs="+",
                   help="word-pair files (default: the shipped WordSim-353 and SimLex-999)")
    p.add_argument("--restrict-vocab", type=bounded("restrict_vocab"), default=30000)
    p.add_argument("--json", action="store_true", help="print the results as JSON")

    p = sub.add_parser("similar", help="nearest neighbours of words (many at once: one pass over the vectors)")
    p.add_argument("vectors", metavar="VECTORS")
    p.add_argument("word", metavar="WORD", nargs="*", help="the words to answer (or --words FILE)")
    p.add_argument("-n", type=bounded("topn"), default=10)
    p.add_argument("--words", metavar="FILE", help="a file of query words, one a line ('-': standard input)")
    p.add_argument("--restrict-vocab", type=bounded("restrict_vocab"), default=None, metavar="N",
                   help="search only the N most frequent words")
    p.add_argument("--skip-unknown", action="store_true",
                   help="answer the words the vectors know, naming the others on stderr (default: refuse them)")
    p.add_argument("--json", action="store_true", help="print {word: [[neighbour, cosine], ...]} as JSON")
    p.add_argument("--approximate", action="store_true",
                   help="answer from the approximate index beside VECTORS (VECTORS.hnsw, made by wv-engine index)")
    p.add_argument("--index", metavar="FILE", help="the approximate index (default: VECTORS.hnsw); implies --approximate")
    p.add_argument("--ef", type=bounded("ef"), default=None, metavar="N",
                   help="how wide an approximate query searches (default: the index's)")

    p = sub.add_parser("index", help="an approximate-neighbour index (HNSW) of vectors, saved beside them")
    p.add_argument("vectors", metavar="VECTORS")
    p.add_argument("-o", "--output", metavar="FILE", help="default: VECTORS.hnsw (and FILE.json)")
    p.add_argument("--m", type=bounded("hnsw_m"), default=32, help="links a node (default 32)")
    p.add_argument("--ef-construction", type=bounded("ef_construction"), default=200,
                   help="search width while building (default 200)")
    p.add_argument("--ef", type=bounded("ef"), default=128, help="query width saved with the index (default 128)")
    p.add_argument("--threads", type=bounded("threads"), default=None, help="default: the usable cores")
    p.add_argument("--seed", type=bounded("seed"), default=1)

    p = sub.add_parser("analogy", help="A is to B as C is to ? (3CosAdd)")
    p.add_argument("vectors", metavar="VECTORS")
    p.add_argument("a", metavar="A")
    p.add_argument("b", metavar="B")
    p.add_argument("c", metavar="C")
    p.add_argument("-n", type=bounded("topn"), default=10)


def memory_size(text: str) -> int:
    """argparse type: a size such as 512M or 2G, in bytes."""
    from ..memory import parse_size

    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("memory_limit ")) from None


def _add_matrix_common(p, window: int) -> None:
    p.add_argument("input", metavar="INPUT", help="training text file")
    p.add_argument("-o", "--output", required=True, metavar="OUTPUT", help="where to write the vectors")
    p.add_argument("--dim", type=bounded("dim"), default=100)
    p.add_argument("--window", type=bounded("window"), default=window)
    p.add_argument("--min-count", type=bounded("min_count"), default=5)
    p.add_argument("--threads", type=bounded("threads"), default=None, help="default: the usable cores")
    p.add_argument("--memory-limit", type=memory_size, default=None, metavar="SIZE",
                   help="cap on the counting buffers, e.g. 512M or 2G (default: min(RAM/4, 1G)); "
                        "past it counts spill to temporary files, and GloVe's training records (with "
                        "the matrix, 28 bytes a non-zero) go to shuffled blocks on disk, trained as streamed")
    p.add_argument("--tmp-dir", default=None, metavar="DIR", help="where spilled counts, large encoded corpora "
                                                                   "and GloVe's record blocks go (default: the "
                                                                   "system's temporary directory)")
    p.add_argument("--max-vocab-size", type=bounded("max_vocab_size"), default=None)
    _add_phrase_model(p)
    p.add_argument("--format", choices=list(MATRIX_FORMATS), default="txt",
                   help="txt: GloVe text (no header); bin: word2vec binary; native: ours")
    p.add_argument("--save-cooccurrence", metavar="PATH",
                   help="also write the co-occurrence matrix (.npz, or Stanford's records if PATH ends in .bin)")
    p.add_argument("--quiet", action="store_true", help="no progress bar or messages")
    _add_scheduler(p)


def _add_glove(sub) -> None:
    p = sub.add_parser("glove", help="train GloVe vectors on a text file",
                       description="Count co-occurrences (memory-bounded, multithreaded) and train GloVe "
                                   "with AdaGrad, as Stanford's glove.c.")
    _add_matrix_common(p, window=10)
    p.add_argument("--x-max", type=bounded("x_max"), default=100.0, help="weighting cutoff (Stanford's demo: 10)")
    p.add_argument("--alpha", type=bounded("alpha", RANGES["glove_alpha"]), default=0.75, help="weighting exponent")
    p.add_argument("--epochs", type=bounded("epochs"), default=25)
    p.add_argument("--eta", type=bounded("eta"), default=0.05, help="AdaGrad's initial learning rate")
    p.add_argument("--exact-sqrt", action="store_true", default=None,
                   help="divide each step by sqrt(accumulator) as glove.c does, instead of multiplying by a "
                        "refined reciprocal square root (within a few float ulps, faster)")
    p.add_argument("--grid", type=bounded("grid", Range(0, 256)), default=None, metavar="B",
                   help="train on a B x B grid of (word band, context band) cells, threads never sharing a "
                        "band (FPSG); default: 16 bands a thread on 2 threads or more, glove.c's order on one; "
                        "0: one shuffled order split into a range per thread, as glove.c")
    p.add_argument("--grid-rounds", type=bounded("grid_rounds", Range(1, 1024)), default=None, metavar="R",
                   help="the grid's records split at random into R rounds, each on its own cells, trained in "
                        "turn (default 1: one grid)")
    p.add_argument("--seed", type=bounded("seed", RANGES["glove_seed"]), default=1)
    p.add_argument("--output-vectors", choices=["sum", "word", "concat"], default="sum",
                   help="W + W~ (default), W only, or W and W~ side by side")
    p.add_argument("--header", action="store_true", help="write a 'V D' header line in txt format")
    _add_checkpoints(p, "parameters and AdaGrad state")
    _add_watching(p)
    p.add_argument("--stats-json", metavar="PATH", help="write timings and per-epoch cost as JSON")


def _add_svd(sub) -> None:
    p = sub.add_parser("svd", help="PPMI + truncated SVD vectors from co-occurrence counts",
                       description="Positive PMI (context smoothing 0.75, optional shift log k) of the "
                                   "co-occurrence matrix, factorised by truncated SVD.")
    _add_matrix_common(p, window=10)
    p.add_argument("--cds", type=bounded("cds"), default=0.75, help="context distribution smoothing")
    p.add_argument("--shift", type=bounded("shift"), default=1.0, help="k of the shift log k")
    p.add_argument("--eig", type=bounded("eig"), default=0.5, help="eigenvalue weighting p")


def _add_convert(sub) -> None:
    p = sub.add_parser("convert", help="read a model or vectors gensim saved, write ours",
                       description="Reads a Word2Vec or KeyedVectors that gensim's save() wrote (without running "
                                   "its code: only what such a model holds is admitted) and writes a Word2Vec as "
                                   "our whole training state (wv_engine.Word2Vec.load reads it and trains it on), "
                                   "or vectors in --format.")
    p.add_argument("input", metavar="INPUT", help="the file gensim's save() wrote (its .npy files beside it)")
    p.add_argument("-o", "--output", required=True, metavar="OUTPUT", help="where to write")
    p.add_argument("--format", choices=list(FORMATS), default=None,
                   help="write only the vectors, in this format (default: a Word2Vec's whole state, native; "
                        "a KeyedVectors' vectors, native)")
    p.add_argument("--quiet", action="store_true", help="no messages")


def _add_pictures(sub) -> None:
    p = sub.add_parser("report", help="draw the loss, speed and scores per epoch of one or more runs",
                       description="Reads the --stats-json files of word2vec or glove runs and draws their loss "
                                   "(cost), words/s and --eval-every scores per epoch, the runs side by side.")
    p.add_argument("stats", metavar="STATS", nargs="+", help="--stats-json files")
    p.add_argument("-o", "--output", required=True, metavar="OUTPUT", help="report.png, or report.html (with tables)")
    p.add_argument("--labels", metavar="LABEL", nargs="+", help="one name a run (default: the file names)")

    p = sub.add_parser("map", help="draw word vectors in 2-D, or export them to TensorBoard's projector",
                       description="Projects the chosen words' vectors to 2-D (PCA; t-SNE or UMAP with scikit-learn "
                                   "or umap-learn installed) and draws them labelled; --projector writes them in "
                                   "TensorBoard's projector format. Default words: capitals, countries, male and "
                                   "female words of the shipped analogy set (or the 100 most frequent).")
    p.add_argument("vectors", metavar="VECTORS")
    p.add_argument("-o", "--output", metavar="OUTPUT", help="the picture (PNG)")
    p.add_argument("--words", metavar="WORD", nargs="+", help="these words")
    p.add_argument("--top", type=bounded("topn"), metavar="N", help="the N most frequent words")
    p.add_argument("--neighbours", metavar="WORD", nargs="+", help="these words and their nearest neighbours")
    p.add_argument("--per-word", type=bounded("per_word"), default=8, metavar="K", help="neighbours per word (default 8)")
    p.add_argument("--method", choices=["pca", "tsne", "umap"], default="pca")
    p.add_argument("--projector", metavar="DIR", help="write vectors.tsv, metadata.tsv and projector_config.pbtxt")


def _add_demo(sub) -> None:
    p = sub.add_parser("demo", help="train on the shipped demo corpus and show what the vectors know",
                       description="Trains skip-gram on Emma + Moby-Dick (shipped, public domain), prints "
                                   "neighbours and analogies, writes demo_vectors.bin and a PNG picture.")
    p.add_argument("--out", default=".", metavar="DIR", help="where to write the files (default: here)")
    p.add_argument("--threads", type=bounded("threads"), default=None)
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def phrase_delimiter(text: str) -> str:
    """argparse type: a phrase delimiter (no whitespace: tokens are whitespace-separated)."""
    if not text or any(c.isspace() for c in text):
        raise argparse.ArgumentTypeError(f"must be non-empty and hold no whitespace, got {text!r}")
    return text


def _add_phrases(sub) -> None:
    p = sub.add_parser("phrases", help="learn phrases (new_york_times) and join them in a text",
                       description="Count words and word pairs, keep the pairs that score above the threshold "
                                   "(word2phrase.c's score, or gensim's default or npmi) and join them: "
                                   "word2phrase run --passes times, on all threads.")
    p.add_argument("input", metavar="INPUT", help="text file (plain, .gz, .bz2, .xz)")
    p.add_argument("-o", "--output", metavar="OUTPUT", help="write the text with the phrases joined")
    p.add_argument("--save-model", metavar="PATH", help="write the phrase model (for --phrases MODEL in training)")
    p.add_argument("--model", metavar="PATH", help="apply this saved phrase model instead of learning one")
    p.add_argument("--passes", type=bounded("passes"), default=1,
                   help="passes over the text, each joining the phrases of those before (2: word2phrase run twice)")
    p.add_argument("--min-count", type=bounded("min_count"), default=5)
    p.add_argument("--threshold", type=bounded("threshold"), nargs="+", default=None, metavar="T",
                   help="score a pair must pass (default 100 word2phrase, 10 default, 0.5 npmi); several: one "
                        "per pass, the last repeated")
    p.add_argument("--scoring", choices=["word2phrase", "default", "npmi"], default="word2phrase",
                   help="word2phrase.c's score (x corpus words), gensim's default (x words and pairs counted) "
                        "or gensim's npmi")
    p.add_argument("--delimiter", type=phrase_delimiter, default="_")
    p.add_argument("--connector-words", default="none", metavar="english|none|FILE",
                   help="words that may stand inside a phrase (bank_of_america): gensim's English set, none "
                        "(default, as word2phrase), or a file of words, one a line")
    p.add_argument("--max-vocab-size", type=bounded("max_vocab_size", RANGES["phrase_max_vocab_size"]),
                   default=None, help="prune rare words and pairs while counting past this many")
    p.add_argument("--memory-limit", type=memory_size, default=None, metavar="SIZE",
                   help="cap on the counts (e.g. 2G): past it rare words and pairs are pruned, and the output says so")
    p.add_argument("--threads", type=bounded("threads"), default=None, help="default: the usable cores")
    p.add_argument("--tmp-dir", default=None, metavar="DIR",
                   help="where the threads' pieces of the output go (default: beside OUTPUT)")
    p.add_argument("--stats-json", metavar="PATH", help="write the counts, phrases and timings as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar or messages")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    from .. import __version__
    from .reference import HELP

    parser = Parser(prog="wv-engine", description="Fast word2vec and GloVe training.", epilog=HELP)
    parser.add_argument("--version", action="version", version=f"wv-engine {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _add_word2vec(sub)
    _add_fasttext(sub)
    _add_doc2vec(sub)
    _add_glove(sub)
    _add_svd(sub)
    _add_phrases(sub)
    _add_queries(sub)
    _add_convert(sub)
    _add_pictures(sub)
    _add_demo(sub)
    return parser


def typed_flags(argv: Sequence[str] | None) -> set[str]:
    """The destinations of the flags on the command line: argv parsed again
    by a parser whose every default is SUPPRESS, so that only what was typed
    appears in the namespace."""
    parser = build_parser()
    for action in _all_actions(parser):
        if action.dest not in ("help", "version", "command"):
            action.default = argparse.SUPPRESS
    return set(vars(parser.parse_args(argv))) - {"command"}


def _all_actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """A parser's actions and its subcommands' actions."""
    actions = list(parser._actions)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                actions += _all_actions(sub)
    return actions
