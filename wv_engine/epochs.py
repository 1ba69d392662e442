"""Running one epoch of a C trainer from Python: start the threads, report the
atomic progress counter for the progress bar while waiting on the workers
(the wait wakes as soon as the last one finishes, so a short epoch is not
rounded up to a poll interval), and on Ctrl-C (or any error)
ask the workers to stop and join them before re-raising, so the shared
matrices are never left with threads still writing to them.

A core is any object with start_epoch(...), wait(seconds), words_done,
request_stop() and join_epoch(): the word2vec and GloVe bindings both are."""

from __future__ import annotations

from typing import Any, Callable

POLL_SECONDS = 0.05


def run_epoch(core: Any, start: Callable[[], None], on_progress: Callable[[int], None]) -> Any:
    """Starts the epoch with start(), reports core.words_done to
    on_progress while it runs, and returns core.join_epoch()."""
    try:
        start()  # inside the try: Ctrl-C may land just after the threads started
        while not core.wait(POLL_SECONDS):
            on_progress(core.words_done)
    except BaseException:
        core.request_stop()
        core.join_epoch()
        raise
    result = core.join_epoch()
    on_progress(core.words_done)
    return result
