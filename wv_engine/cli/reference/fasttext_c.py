"""fastText's unsupervised commands: skipgram and cbow translated into
`wv-engine fasttext` (the same run as its own flags give), writing
PREFIX.bin and PREFIX.vec as fastText does; print-word-vectors, nn,
analogies and dump reading its .bin and printing as it prints."""

from __future__ import annotations

import difflib
import sys
from typing import Iterator

import numpy as np

from ...settings import C_INT_MAX, Range, default_threads
from . import FASTTEXT_COMMANDS
from .flags import Flag, UsageError, integer, parse, usage
from .word2vec_c import _own_command, path, setting

TRAIN = {
    "-input": Flag(path, None, "training file path"),
    "-output": Flag(path, None, "output file path: PREFIX.bin and PREFIX.vec are written"),
    "-lr": Flag(setting("alpha"), 0.05, "learning rate, falling on a line to 0 over the run"),
    "-lrUpdateRate": Flag(integer, 100, "read, no effect: the rate here falls with every word, not in steps"),
    "-dim": Flag(setting("dim"), 100, "size of word vectors"),
    "-ws": Flag(setting("window"), 5, "size of the context window"),
    "-epoch": Flag(setting("epochs"), 5, "number of epochs"),
    "-minCount": Flag(setting("min_count", Range(0, C_INT_MAX)), 5, "minimal number of word occurences (0: 1)"),
    "-neg": Flag(setting("negative"), 5, "number of negatives sampled"),
    "-wordNgrams": Flag(setting("epochs"), 1, "read, no effect: fastText trains word n-grams in classifiers only"),
    "-loss": Flag(str, "ns", "loss function: ns, hs or softmax"),
    "-bucket": Flag(setting("bucket"), 2_000_000, "number of buckets"),
    "-minn": Flag(setting("minn"), 3, "min length of char ngram (0: as 1)"),
    "-maxn": Flag(setting("maxn"), 6, "max length of char ngram (0, or under -minn: none)"),
    "-thread": Flag(setting("threads"), 12, "number of threads (at most the usable cores are used)"),
    "-t": Flag(setting("sample"), 1e-4, "sampling threshold"),
    "-verbose": Flag(integer, 2, "0: no messages"),
    "-pretrainedVectors": Flag(path, None, "a .vec whose words' rows start training"),
    "-saveOutput": Flag(None, False, "also write the output matrix as PREFIX.output"),
    "-seed": Flag(setting("seed"), 0, "random seed"),
}
SUPERVISED_ONLY = ("-label", "-minCountLabel", "-cutoff", "-dsub", "-qnorm", "-qout", "-retrain",
                   "-autotune-validation", "-autotune-metric", "-autotune-predictions", "-autotune-duration",
                   "-autotune-modelsize")


def run_fasttext(argv: list[str]) -> int:
    """`wv-engine fasttext COMMAND ...` for fastText's unsupervised commands."""
    command, rest = argv[0], argv[1:]
    if command not in FASTTEXT_COMMANDS:
        raise UsageError(f"fastText's {command} is not offered: wv-engine's fastText commands are those of word "
                         f"vectors ({', '.join(FASTTEXT_COMMANDS)}), not classifiers")
    if command in ("skipgram", "cbow"):
        return _train(command, rest)
    return {"print-word-vectors": _print_word_vectors, "nn": _nn, "analogies": _analogies, "dump": _dump}[command](rest)


def _train(command: str, argv: list[str]) -> int:
    from ...fasttext import FastText
    from ..word2vec import fasttext_settings, run_word2vec

    if not argv or argv in (["-h"], ["-help"], ["--help"]):
        print(usage(TRAIN, f"wv-engine fasttext {command} -input FILE -output PREFIX [flags] (fastText's flags)"))
        return 0
    v = read_flags(command, argv)
    prefix = v["output"]
    args = _own_command("fasttext", own_argv(command, v))

    def write(model, output: str, fmt: str) -> None:
        from ...formats import save_word2vec

        model.save_fasttext(output)
        save_word2vec(model.vectors, prefix + ".vec", binary=False, significant=5)  # fastText's .vec, byte for byte
        if v["saveOutput"]:
            _save_output(model, prefix + ".output")
    return run_word2vec(args, FastText, fasttext_settings(args), write)


def read_flags(command: str, argv: list[str]) -> dict:
    """skipgram's or cbow's flags read and checked, each refusal one line
    naming fastText's flag; a value fastText reads as another (-minCount 0,
    -minn 0, -minn past -maxn) is given as that one."""
    refused = next((a for a in argv if a in SUPERVISED_ONLY), None)
    if refused:
        raise UsageError(f"{refused} is for fastText's classifiers and quantization; {command} trains word vectors")
    try:
        v, _ = parse(f"fasttext {command}", TRAIN, argv)
    except UsageError as exc:
        raise UsageError(_with_guess(str(exc))) from None
    for name in ("input", "output"):
        if v[name] is None:
            raise UsageError(f"-{name} is required")
    if v["input"] == "-":
        raise UsageError("-input -: training reads its file more than once, so not from stdin (nor does fastText)")
    if v["loss"] not in ("ns", "hs", "softmax"):
        raise UsageError(f"-loss {v['loss']}: {command} trains with ns, hs or softmax"
                         + (" (ova is for classifiers)" if v["loss"] in ("ova", "one-vs-all") else ""))
    v["minCount"] = max(1, v["minCount"])  # fastText keeps every word seen at least 0 times: once
    if v["maxn"] and v["minn"] > v["maxn"]:
        v["maxn"] = 0  # fastText then makes no n-gram of any word: words' own rows only, as -maxn 0
    if v["maxn"]:
        v["minn"] = max(1, v["minn"])  # its n-grams start at 1 character: -minn 0 makes those of -minn 1
        if v["bucket"] == 0:
            raise UsageError(f"-bucket 0 leaves the n-grams of -minn {v['minn']} to -maxn {v['maxn']} characters "
                             "no rows: give -bucket N, or -maxn 0 for no n-grams")
    if v["loss"] == "ns" and v["neg"] < 1:
        raise UsageError(f"-neg {v['neg']}: -loss ns needs 1 negative or more here (fastText trains the "
                         "positive words alone)")
    if v["loss"] == "ns" and v["maxn"] and v["neg"] > 63:
        raise UsageError(f"-neg {v['neg']}: the n-gram model here takes at most 63 negatives (-maxn 0: any number)")
    if v["pretrainedVectors"]:  # fastText's empty path: none
        _check_pretrained(v["pretrainedVectors"], v["dim"])
    return v


def own_argv(command: str, v: dict) -> list[str]:
    """Our own `wv-engine fasttext` command line of read_flags' values:
    fastText's defaults spelled out, its rate falling on a line to 0
    (word2vec.c's schedule with a floor of 0), -thread at most the usable
    cores."""
    own = [v["input"], "-o", v["output"] + ".bin", "--format", "bin", "--arch", command,
           "--loss", v["loss"], "--alpha", repr(v["lr"]), "--schedule", "word2vec", "--min-alpha", "0",
           "--dim", str(v["dim"]), "--window", str(v["ws"]), "--epochs", str(v["epoch"]),
           "--min-count", str(v["minCount"]), "--negative", str(v["neg"]), "--bucket", str(v["bucket"]),
           "--minn", str(v["minn"]), "--maxn", str(v["maxn"]), "--threads", str(min(v["thread"], default_threads())),
           "--sample", repr(v["t"]), "--seed", str(v["seed"])]
    if v["pretrainedVectors"]:
        own += ["--pretrained-vectors", v["pretrainedVectors"], "--add-pretrained-words"]
    if v["verbose"] == 0:
        own.append("--quiet")
    return own


def _with_guess(message: str) -> str:
    """parse's 'unknown flag -X (...)' with the flag it likely meant."""
    if not message.startswith("unknown flag "):
        return message
    token = message.split()[2]
    lowered = {name.lower(): name for name in TRAIN}
    close = difflib.get_close_matches(token.lower(), list(lowered), n=1, cutoff=0.75)
    return message.replace(token, f"{token}; did you mean {lowered[close[0]]}?", 1) if close else message


def _check_pretrained(file: str, dim: int) -> None:
    """-pretrainedVectors' dimension (its header's second number) against
    -dim before any work, as fastText refuses them when they differ."""
    with open(file, "rb") as fh:
        header = fh.readline(256).split()
    if len(header) == 2 and all(x.isdigit() for x in header) and int(header[1]) != dim:
        raise ValueError(f"-pretrainedVectors {file} holds vectors of dimension {int(header[1])}, "
                         f"and -dim is {dim}: they must agree")


def _save_output(model, file: str) -> None:
    """fastText's PREFIX.output: the output matrix's first rows, one a word."""
    from ...io import save_vectors
    from ...vectors import Vectors

    rows = model.output_vectors[:len(model.vocab)]
    save_vectors(Vectors(list(model.vocab.words), -rows if model.loss == "hs" else rows), file, "word2vec-txt")


def _check_arguments(argv: list[str], usage_line: str, extra: int) -> None:
    """MODEL.bin and at most `extra` more arguments, or the usage line."""
    if not argv or len(argv) > 1 + extra or argv[0] in ("-h", "-help", "--help"):
        raise UsageError(f"usage: {usage_line}")


def _model(argv: list[str], usage_line: str, extra: int):
    """The vectors of MODEL.bin, and the remaining arguments (at most `extra`)."""
    from ...fasttext import FastText
    from ...files import read_as

    _check_arguments(argv, usage_line, extra)
    model = read_as("MODEL", argv[0], lambda p: FastText.load_fasttext(p, _vectors_only=True))
    _bytes_as_they_come()
    return model.vectors, argv[1:]


def _bytes_as_they_come() -> None:
    """Words on stdin and stdout are bytes to fastText: any that are not
    UTF-8 pass through as the model's own words do (surrogateescape), not
    refused by a strict locale."""
    for stream in (sys.stdin, sys.stdout):
        if getattr(stream, "errors", None) == "strict" and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="surrogateescape")


def _tokens() -> Iterator[str]:
    """Whitespace-separated words of stdin as each line comes (std::cin >> word)."""
    for line in sys.stdin:
        yield from line.split()


def _prompt(text: str) -> None:
    """A prompt shown before stdin is read (cin is tied to cout in fastText)."""
    sys.stdout.write(text)
    sys.stdout.flush()


def _g(x: float, digits: int) -> str:
    """A float as C++ streams print it at setprecision(digits): %g."""
    return f"{x:.{digits}g}"


def _print_word_vectors(argv: list[str]) -> int:
    """Each word on stdin, then its vector (OOV words from their n-grams)."""
    vectors, _ = _model(argv, "wv-engine fasttext print-word-vectors MODEL.bin < words", 0)
    out = sys.stdout
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        rows = vectors[words]
        out.write("".join(f"{w} " + "".join(_g(float(x), 5) + " " for x in row) + "\n" for w, row in zip(words, rows)))
        out.flush()
    return 0


def _count(argv: list[str], usage_line: str) -> int:
    """k of `MODEL.bin [k]` (default 10), the arguments checked."""
    _check_arguments(argv, usage_line, 1)
    try:
        k = int(argv[1]) if len(argv) > 1 else 10
    except ValueError:
        raise UsageError(f"k {argv[1]!r}: not a whole number") from None
    if k <= 0:
        raise UsageError("k needs to be 1 or higher")
    return k


def _nearest(vectors, query: np.ndarray, k: int, banned: set[str]) -> list[tuple[float, str]]:
    """getNN: the k words whose unit vectors have the largest dot with the
    query over its norm (1 if about 0), the banned words left out."""
    norm = float(np.linalg.norm(query))
    scores = vectors.unit_vectors @ (query / (norm if abs(norm) >= 1e-8 else 1.0))
    for word in banned:
        row = vectors.key_to_index.get(word)
        if row is not None:
            scores[row] = -np.inf
    take = min(k, int(np.isfinite(scores).sum()))
    best = np.argpartition(-scores, take - 1)[:take] if take else np.zeros(0, dtype=np.int64)
    best = best[np.lexsort((best, -scores[best]))]
    return [(float(scores[i]), vectors.word(int(i))) for i in best]


def _show(pairs: list[tuple[float, str]]) -> None:
    sys.stdout.write("".join(f"{word} {_g(score, 6)}\n" for score, word in pairs))


def _nn(argv: list[str]) -> int:
    """`nn MODEL.bin [k]`: 'Query word? ', then its k nearest words."""
    usage_line = "wv-engine fasttext nn MODEL.bin [k] < words"
    k = _count(argv, usage_line)
    vectors, _ = _model(argv, usage_line, 1)
    prompt = "Query word? "
    _prompt(prompt)
    for word in _tokens():
        _show(_nearest(vectors, vectors[word], k, {word}))
        _prompt(prompt)
    return 0  # as fastText, the last prompt stays unanswered


def _analogies(argv: list[str]) -> int:
    """`analogies MODEL.bin [k]`: for 'A B C', the k words nearest A - B + C
    (each word's vector over its norm)."""
    usage_line = "wv-engine fasttext analogies MODEL.bin [k] < triplets"
    k = _count(argv, usage_line)
    _prompt(f"Loading model {argv[0]}\n")
    vectors, _ = _model(argv, usage_line, 1)
    prompt = "Query triplet (A - B + C)? "
    _prompt(prompt)
    triplet: list[str] = []
    for word in _tokens():  # answered as each third word comes, across lines as cin reads them
        triplet.append(word)
        if len(triplet) < 3:
            continue
        a, b, c = triplet
        triplet = []
        query = sum(sign * vectors[w] / (np.linalg.norm(vectors[w]) + 1e-8) for sign, w in ((1, a), (-1, b), (1, c)))
        _show(_nearest(vectors, query, k, {a, b, c}))
        _prompt(prompt)
    return 0  # fastText asks again for ever at the end of its input; an unfinished triplet is left


def _dump(argv: list[str]) -> int:
    """`dump MODEL.bin args|dict|input|output`, printed as fastText prints them."""
    from ...fasttext import bin_file
    from ...files import read_as

    if len(argv) != 2 or argv[1] not in ("args", "dict", "input", "output"):
        raise UsageError("usage: wv-engine fasttext dump MODEL.bin args|dict|input|output")
    data = read_as("MODEL", argv[0], lambda p: bin_file.read_fasttext_bin(p, output=argv[1] == "output"))
    _bytes_as_they_come()
    out = sys.stdout
    if argv[1] == "args":
        a = data["args"]
        model = {"skipgram": "sg", "cbow": "cbow"}[data["arch"]]
        for name, value in (("dim", a["dim"]), ("ws", a["ws"]), ("epoch", a["epoch"]), ("minCount", a["minCount"]),
                            ("neg", a["neg"]), ("wordNgrams", a["wordNgrams"]), ("loss", data["loss"]),
                            ("model", model), ("bucket", a["bucket"]), ("minn", a["minn"]), ("maxn", a["maxn"]),
                            ("lrUpdateRate", a["lrUpdateRate"]), ("t", _g(a["t"], 6))):
            out.write(f"{name} {value}\n")
    elif argv[1] == "dict":
        out.write(f"{len(data['words'])}\n")
        out.write("".join(f"{w} {c} word\n" for w, c in zip(data["words"], data["counts"].tolist())))
    else:
        matrix = data["input_matrix" if argv[1] == "input" else "output_matrix"]
        out.write(f"{matrix.shape[0]} {matrix.shape[1]}\n")
        for row in matrix:
            out.write(" ".join(_g(float(x), 6) for x in row) + "\n")
    return 0
