"""One BLAS thread for the local exact vector searches.

A search is one matrix-vector product over a subject's vectors: memory-bound, so a second BLAS
thread buys little even on an idle machine, and the context read already runs the belief and
the passage searches on two threads at once. On the shared 2-core dev machine under load,
OpenBLAS's own threads made it far worse: in one process, alternating, a product over 10,000
vectors took 19-24 ms at numpy's default (2 threads) and 7-8 ms on one; over 50,000, 44-51 ms
against 23-26 ms. The limit is the process's (BLAS has no per-thread setting), set once when the
first local vector index is built. Results are the same to the bit: OpenBLAS splits a product
by rows."""

from __future__ import annotations

import functools

from threadpoolctl import threadpool_limits


@functools.cache
def single_threaded_blas() -> None:
    """Limit every loaded BLAS library to one thread for the rest of the process; idempotent."""
    threadpool_limits(limits=1, user_api="blas")
