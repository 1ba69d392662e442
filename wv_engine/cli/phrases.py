"""`wv-engine phrases`: learn phrases (or load them), save the model, write
the text with the phrases joined, and the stats (flags: args.py)."""

from __future__ import annotations

import time

from ..files import check_writable, read_as, write_json
from ..memory import peak_rss_bytes
from .common import say
from .inputs import check_tmp_dir, connector_words


def _pass_line(i: int, stats: dict) -> str:
    line = (f"pass {i + 1}: {stats['phrases']:,} phrases among {stats['distinct_keys']:,} words and pairs "
            f"of {stats['corpus_words']:,} tokens ({stats['count_seconds'] + stats['score_seconds']:.1f} s)")
    if stats["prunes"]:
        line += (f"; memory bounded: rare words and pairs pruned {stats['prunes']} time(s), so those seen fewer "
                 f"than {stats['min_reduce']} times may be missing (raise --memory-limit to keep more)")
    return line


def run_phrases(args) -> int:
    """`wv-engine phrases`: learn (or --model), --save-model, -o, --stats-json."""
    from ..corpus import Corpus
    from ..phrases import Phrases

    started = time.perf_counter()
    if not args.output and not args.save_model:
        raise ValueError("nothing to write: give -o OUTPUT (the text with the phrases joined), --save-model PATH, "
                         "or both")
    for path, what in ((args.output, "output"), (args.save_model, "phrase model"), (args.stats_json, "stats file")):
        if path:
            check_writable(path, what)
    check_tmp_dir(args)
    corpus = read_as("INPUT", args.input, Corpus)
    progress = False if args.quiet else None
    if args.model:
        phrases = read_as("--model", args.model, lambda path: Phrases.load(path, threads=args.threads))
        phrases.progress = progress
        say(args, f"{args.model}: {len(phrases.layers)} pass(es), {len(phrases.phrases()):,} phrases")
    else:
        threshold = args.threshold[0] if args.threshold and len(args.threshold) == 1 else args.threshold
        phrases = Phrases(min_count=args.min_count, threshold=threshold, scoring=args.scoring,
                          delimiter=args.delimiter, connector_words=connector_words(args.connector_words),
                          max_vocab_size=args.max_vocab_size, memory_limit=args.memory_limit, threads=args.threads,
                          progress=progress)
        say(args, f"learning phrases in {args.input} ({args.passes} pass(es), {args.scoring} scoring, "
                   f"{phrases.threads} threads)")
        phrases.fit(corpus, args.passes)
        for i, stats in enumerate(phrases.stats):
            say(args, _pass_line(i, stats))
    learned = time.perf_counter()
    if args.save_model:
        phrases.save(args.save_model)
        say(args, f"wrote the phrase model to {args.save_model}")
    applied = {}
    if args.output:
        applied = phrases.apply_file(corpus, args.output, tmp_dir=args.tmp_dir)
        say(args, f"wrote {args.output} ({applied['apply_seconds']:.1f} s)")
    total = time.perf_counter() - started
    if args.stats_json:
        write_json(args.stats_json, {
            "passes": phrases.stats, "phrases": len(phrases.phrases()), "threads": phrases.threads,
            "settings": [layer.settings for layer in phrases.layers], "model": args.model,
            "learn_seconds": learned - started, "apply_seconds": applied.get("apply_seconds"),
            "total_seconds": total, "peak_rss_bytes": peak_rss_bytes(), "output": args.output,
            "saved_model": args.save_model,
        })
    return 0
