"""wv_engine on a dask.distributed cluster (optional extra: pip install
"wv-engine[dask]"): word counts, exact co-occurrence counts and data-parallel
word2vec with model averaging, with the same C core on every worker.

Most users reach it through the ordinary calls with a client:

    >>> from dask.distributed import Client
    >>> client = Client("tcp://scheduler:8786")
    >>> model = Word2Vec(threads=8).fit("/shared/corpus.txt", client=client)

or on the command line with --scheduler ADDRESS (or local:N)."""

from .client import ClusterError, close, connect

__all__ = ["ClusterError", "connect", "close"]
