"""One BLAS/OpenMP thread per process, the rule of every door (the web and worker processes, the ``kakurega``
command and its pool's processes). Kakurega runs one process per core, and numerical libraries threading inside
each fight for the cores (inspect was several times slower under load: bench_inspect.py). One thread also sums
floats in one order everywhere: a default model the command trains is bit for bit the one the bootstrap trains
(with two threads, the US model's classifier came out different), and a post scores the same through every door."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def prefer_one_thread() -> None:
    """One thread, unless the environment says otherwise. Effective only before numpy is first imported."""
    for name in THREAD_VARIABLES:
        os.environ.setdefault(name, "1")


def hold_one_thread() -> None:
    """The numerical libraries held to one thread from now on in this process (a forked pool process, whose
    parent imported numpy)."""
    from threadpoolctl import threadpool_limits  # scikit-learn's dependency, pinned in requirements.txt

    threadpool_limits(1)


@contextmanager
def one_thread() -> Iterator[None]:
    """The numerical libraries held to one thread while the block runs, whenever numpy was imported (a notebook
    that imported it first): for results that must be the same bytes through every door."""
    from threadpoolctl import threadpool_limits  # scikit-learn's dependency, pinned in requirements.txt

    with threadpool_limits(1):
        yield
