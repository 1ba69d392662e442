"""atomic_write(direct=True): large model files written past the page cache
(wv_engine.direct_write) give the same bytes as a plain write, fall back to
plain writes where O_DIRECT is refused, and stay atomic."""

import errno
import os

import numpy as np
import pytest

from wv_engine import direct_write
from wv_engine.files import atomic_write


def _pieces():
    """Odd-sized pieces around more than two buffers of floats: every write
    straddles a buffer edge somewhere, and the total is no block multiple."""
    rng = np.random.default_rng(0)
    big = rng.standard_normal((direct_write.BUFFER_BYTES // 4) * 2 + 12345, dtype=np.float32)
    return [b"\x01header", bytes(range(256)) * 3, big, big[:7], b"", b"tail!"]


def _expected():
    return b"".join(bytes(memoryview(p).cast("B")) for p in _pieces())


def _write(path, **kw):
    with atomic_write(path, "wb", **kw) as fh:
        for piece in _pieces():
            assert fh.write(piece) == memoryview(piece).nbytes


def test_direct_write_gives_the_bytes_of_a_plain_write(tmp_path):
    _write(tmp_path / "direct.bin", direct=True)
    _write(tmp_path / "plain.bin")
    assert (tmp_path / "direct.bin").read_bytes() == (tmp_path / "plain.bin").read_bytes() == _expected()


@pytest.mark.parametrize("root", ["/dev/shm", None])
def test_direct_write_where_o_direct_may_be_refused(tmp_path, root):
    """tmpfs (/dev/shm) refuses O_DIRECT on many kernels: the writer goes on plainly."""
    if root is not None and not os.path.isdir(root):
        pytest.skip(f"no {root}")
    base = tmp_path if root is None else root
    path = os.path.join(base, f"wv_direct_{os.getpid()}.bin")
    try:
        _write(path, direct=True)
        with open(path, "rb") as fh:
            assert fh.read() == _expected()
    finally:
        if os.path.exists(path):
            os.unlink(path)


def test_a_refused_direct_write_continues_plainly(tmp_path, monkeypatch):
    real_write, calls = os.write, []

    def refusing(fd, data):
        calls.append(len(data))
        if len(calls) == 1:  # the first whole buffer: refused as a file system without O_DIRECT would
            raise OSError(errno.EINVAL, "Invalid argument")
        return real_write(fd, data)

    monkeypatch.setattr(direct_write.os, "write", refusing)
    _write(tmp_path / "v.bin", direct=True)
    assert (tmp_path / "v.bin").read_bytes() == _expected()
    assert len(calls) > 1


def test_a_failing_direct_write_leaves_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "v.bin"
    target.write_bytes(b"previous")

    def full(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(direct_write.os, "write", full)
    with pytest.raises(OSError, match="v.bin"):
        _write(target, direct=True)
    assert target.read_bytes() == b"previous"
    assert sorted(os.listdir(tmp_path)) == ["v.bin"]


def test_an_interrupt_inside_a_direct_write_leaves_the_old_file(tmp_path):
    target = tmp_path / "v.bin"
    target.write_bytes(b"previous")
    with pytest.raises(KeyboardInterrupt):
        with atomic_write(target, "wb", direct=True) as fh:
            fh.write(np.ones(direct_write.BUFFER_BYTES, np.float32))
            raise KeyboardInterrupt
    assert target.read_bytes() == b"previous"
    assert sorted(os.listdir(tmp_path)) == ["v.bin"]


def test_without_o_direct_the_writer_writes_plainly(tmp_path, monkeypatch):
    """No O_DIRECT at all (Windows, or a file system whose fcntl refuses it): plain writes, same bytes."""
    monkeypatch.setattr(direct_write, "_set_direct", lambda fd, on: False)
    _write(tmp_path / "v.bin", direct=True)
    assert (tmp_path / "v.bin").read_bytes() == _expected()
