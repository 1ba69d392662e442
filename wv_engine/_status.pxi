# The one place where a status from the C core (csrc/status.h) becomes a
# Python exception. Included by every binding module (_*.pyx); a caller says
# what was being done, or what to do about it, in `context`.

cdef extern from "status.h":
    ctypedef enum wv_status:
        WV_OK
        WV_ERR_NOMEM
        WV_ERR_THREAD
        WV_ERR_DIVERGED
        WV_ERR_BUSY
        WV_ERR_IO
        WV_ERR_STOPPED
        WV_ERR_MEMORY_LIMIT
        WV_ERR_INVALID
        WV_ERR_UNSORTED
        WV_ERR_CODE_TOO_LONG
        WV_ERR_DUPLICATE
        WV_ERR_OVERFLOW


class CooccurrenceStopped(Exception):
    """The count was stopped (Ctrl-C); nothing was kept. (Only the
    co-occurrence count can be stopped: wv_engine._glove.CooccurrenceStopped.)"""


_STATUS_ERRORS = {
    WV_ERR_NOMEM: (MemoryError, "out of memory"),
    WV_ERR_THREAD: (RuntimeError, "could not start a training thread"),
    WV_ERR_DIVERGED: (FloatingPointError, "training diverged (the loss became NaN or infinite); lower alpha"),
    WV_ERR_BUSY: (RuntimeError, "an epoch is already running on this model"),
    WV_ERR_IO: (OSError, "cannot write or read temporary files"),
    WV_ERR_STOPPED: (CooccurrenceStopped, "stopped on request"),
    WV_ERR_MEMORY_LIMIT: (ValueError, "memory_limit is too small to make progress"),
    WV_ERR_INVALID: (ValueError, "invalid input"),
    WV_ERR_UNSORTED: (ValueError, "counts must be sorted in descending order"),
    WV_ERR_CODE_TOO_LONG: (ValueError, "a Huffman code is too long"),
    WV_ERR_DUPLICATE: (ValueError, "duplicate word in vocabulary"),
    WV_ERR_OVERFLOW: (RuntimeError, "internal error: output buffer overflow"),
}


def raise_for(int status, context=""):
    """Raises the exception for `status` (nothing for WV_OK): the type and
    message of the table above, then ': ' and the context where there is
    one. context: text for any status, or a dict status -> text."""
    if status == WV_OK:
        return
    if isinstance(context, dict):
        context = context.get(status, "")
    exc, message = _STATUS_ERRORS.get(status, (RuntimeError, f"the C core failed (status {status})"))
    raise exc(f"{message}: {context}" if context else message)
