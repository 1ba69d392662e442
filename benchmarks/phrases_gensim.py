"""gensim's Phrases + FrozenPhrases over a text file, as a gensim user runs
them: learn (Phrases over LineSentence), freeze, apply to every sentence and
write the text; --passes 2 learns the second pass over the first's output.

Run as a subprocess by benchmarks.phrases so that the whole process is timed
and its peak RSS measured like the other tools. Prints one JSON line with
each phase's seconds; --phrases-json writes the last pass's phrasegrams.

The corpus should have lines of at most 10,000 words (LineSentence cuts
longer lines there; benchmarks.phrases passes a copy so cut)."""

from __future__ import annotations

import argparse
import json
import time


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", required=True)
    p.add_argument("--output", required=True)
    p.add_argument("--passes", type=int, default=1)
    p.add_argument("--min-count", type=int, default=5)
    p.add_argument("--threshold", type=float, default=10.0)
    p.add_argument("--scoring", default="default")
    p.add_argument("--phrases-json", default=None)
    a = p.parse_args(argv)

    from gensim.models.phrases import FrozenPhrases, Phrases
    from gensim.models.word2vec import LineSentence

    sentences = LineSentence(a.corpus)
    phases = {"learn_seconds": 0.0, "freeze_seconds": 0.0, "apply_seconds": 0.0}
    layers = []
    for _ in range(a.passes):
        source = sentences
        for layer in layers:
            source = layer[source]
        t0 = time.perf_counter()
        model = Phrases(source, min_count=a.min_count, threshold=a.threshold, scoring=a.scoring)
        t1 = time.perf_counter()
        layers.append(FrozenPhrases(model))
        t2 = time.perf_counter()
        phases["learn_seconds"] += t1 - t0
        phases["freeze_seconds"] += t2 - t1
    t0 = time.perf_counter()
    with open(a.output, "w", encoding="utf-8") as out:
        for sentence in sentences:
            for layer in layers:
                sentence = layer[sentence]
            out.write(" ".join(sentence) + "\n")
    phases["apply_seconds"] = time.perf_counter() - t0
    if a.phrases_json:
        with open(a.phrases_json, "w", encoding="utf-8") as f:
            json.dump(layers[-1].phrasegrams, f)
    print(json.dumps({**phases, "phrases": [len(layer.phrasegrams) for layer in layers]}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
