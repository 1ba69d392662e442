"""Connecting to a dask.distributed cluster and running tasks on it with
clear errors: a worker that dies is retried by dask (its shards are re-read
from the files elsewhere); past dask's retry limit, or when the scheduler is
lost, the call raises ClusterError instead of hanging."""

from __future__ import annotations

import operator
from typing import Any, Callable, Sequence

from ..progress import Progress

NEEDS_DASK = 'the cluster features need dask.distributed: pip install "wv-engine[dask]"'


class ClusterError(RuntimeError):
    """A distributed job failed: a worker died too often, or the cluster went away."""


def _distributed():
    try:
        import distributed
    except ImportError:
        raise ImportError(NEEDS_DASK) from None
    return distributed


def connect(address: str, threads_per_worker: int = 1):
    """A Client for `address`: a scheduler address (tcp://host:8786) or
    local:N, which starts a LocalCluster of N worker processes on this
    machine (each runs one task at a time; the C code inside a task uses
    the --threads threads). The client closes the cluster it started."""
    distributed = _distributed()
    if address.startswith("local:"):
        try:
            n = int(address[len("local:"):])
        except ValueError:
            n = 0
        if n < 1:
            raise ValueError(f"--scheduler {address!r}: expected local:N with N >= 1 worker processes")
        cluster = distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                           dashboard_address=":0", memory_limit=0,
                                           env={"OMP_NUM_THREADS": str(threads_per_worker)})
        client = distributed.Client(cluster)
        client._wv_owned_cluster = cluster  # closed with the client, see close()
        return client
    try:
        return distributed.Client(address, timeout="30s")
    except (OSError, TimeoutError) as exc:
        raise ClusterError(f"cannot reach the dask scheduler at {address}: {exc}") from exc


def close(client) -> None:
    """Closes the client, and the LocalCluster it started for local:N."""
    cluster = getattr(client, "_wv_owned_cluster", None)
    client.close()
    if cluster is not None:
        cluster.close()


def worker_addresses(client) -> list[str]:
    """The workers now connected, in a stable order; raises if there are none."""
    workers = sorted(client.scheduler_info()["workers"])
    if not workers:
        raise ClusterError("the dask cluster has no workers")
    return workers


def submit(client, fn: Callable, *args, worker: str | None = None, **kwargs):
    """client.submit that prefers `worker` (where a shard's data lives) but
    may run elsewhere when that worker is gone."""
    where = {"workers": [worker], "allow_other_workers": True} if worker else {}
    return client.submit(fn, *args, pure=False, **where, **kwargs)


def result(future_or_futures, what: str) -> Any:
    """Waits for futures; turns dask's failures into ClusterError naming what
    was being done. Errors raised by our own code in a task pass through."""
    distributed = _distributed()
    try:
        if isinstance(future_or_futures, (list, tuple)):
            return [f.result() for f in future_or_futures]
        return future_or_futures.result()
    except distributed.KilledWorker as exc:
        raise ClusterError(f"{what}: dask workers died while running it ({exc}); "
                           "see the worker logs (out of memory?)") from exc
    except distributed.comm.CommClosedError as exc:
        raise ClusterError(f"{what}: lost the connection to the dask cluster ({exc})") from exc
    except (distributed.client.FutureCancelledError, TimeoutError) as exc:
        raise ClusterError(f"{what}: the dask cluster cancelled the job ({exc})") from exc


def scatter(client, objects: list, what: str) -> list:
    """Futures of objects copied to every worker (broadcast)."""
    distributed = _distributed()
    try:
        return client.scatter(objects, broadcast=True, hash=False)
    except (distributed.comm.CommClosedError, OSError, TimeoutError) as exc:
        raise ClusterError(f"{what}: could not send data to the workers ({exc})") from exc


def show_progress(futures: Sequence, weights: Sequence[int], desc: str, progress: bool | None,
                  unit: str) -> None:
    """Advances a progress bar by each future's weight as it finishes (what
    the caller sees of the workers' progress); returns when all are done."""
    from distributed import as_completed

    weight = {f.key: w for f, w in zip(futures, weights)}
    bar = Progress(sum(weights), desc, progress, unit=unit)
    try:
        done = 0
        for fut in as_completed(futures):
            done += weight[fut.key]
            bar.update(done)
    finally:
        bar.close()


def tree_reduce(client, futures: Sequence, combine: Callable, *args) -> Any:
    """Combines futures pairwise on the workers (log2 rounds, never all on
    one worker at once) into one future: combine(a, b, *args)."""
    level = list(futures)
    if not level:
        raise ValueError("nothing to reduce")
    while len(level) > 1:
        nxt = [client.submit(combine, a, b, *args, pure=False) for a, b in zip(level[::2], level[1::2])]
        if len(level) % 2:
            nxt.append(level[-1])
        level = nxt
    return level[0]


def pick(client, future, index: int, worker: str | None = None):
    """A future of future[index], computed where the future lives."""
    return submit(client, operator.getitem, future, index, worker=worker)
