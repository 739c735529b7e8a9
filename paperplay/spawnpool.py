"""A pool of spawned worker processes that start ignoring Ctrl-C.

A terminal's Ctrl-C reaches the whole process group, and a spawned Python still importing (before a
pool's initializer runs) prints a traceback for it. An ignored signal stays ignored through exec and
Python keeps it so; so each worker, and multiprocessing's resource tracker, is started with Ctrl-C
ignored for the moment of its start only (about a millisecond each). A Ctrl-C to this process in
that moment is lost: it is blocked meanwhile (Linux keeps a blocked signal pending even while it is
ignored), but starting a process unblocks it, which drops one that waited; after the start it is
blocked again, so that one pressed then waits for the handler. The parent keeps its handler the
rest of the time and stops the workers itself.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from multiprocessing import get_context, resource_tracker
from multiprocessing.context import SpawnProcess
from multiprocessing.pool import Pool
from typing import Any


@contextmanager
def interrupts_ignored_by_new_processes() -> Iterator[None]:
    """Ctrl-C ignored while a process is started, so that it starts ignoring it (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})  # a Ctrl-C now waits, ignored or not
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})  # starting a process unblocks it
        signal.signal(signal.SIGINT, previous)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # a Ctrl-C that waited arrives here


class _QuietProcess(SpawnProcess):
    def start(self) -> None:
        with interrupts_ignored_by_new_processes():
            super().start()


class _QuietPool(Pool):
    @staticmethod
    def Process(ctx: Any, *args: Any, **kwds: Any) -> Any:  # noqa: N802 - Pool's own name
        return _QuietProcess(*args, **kwds)


BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
"""The variables that set numpy's matrix library's thread count, read when a worker loads numpy."""


@contextmanager
def one_blas_thread_each() -> Iterator[None]:
    """Processes started meanwhile run numpy's matrix products on one thread (unless the caller set a
    count): a pool already has a process per core, and OpenBLAS's threads then wait on each other
    (a forward pass of the digit reader took 73 ms instead of 6 ms with both cores busy)."""
    unset = [name for name in BLAS_THREADS if name not in os.environ]
    for name in unset:
        os.environ[name] = "1"
    try:
        yield
    finally:
        for name in unset:
            os.environ.pop(name, None)


def spawn_pool(processes: int, initializer: Callable[[], None] | None = None) -> Pool:
    """A pool of `processes` spawned workers whose start a Ctrl-C cannot interrupt (see above), each
    with one BLAS thread."""
    with interrupts_ignored_by_new_processes():
        resource_tracker.ensure_running()  # started by the pool's first semaphore otherwise
    with one_blas_thread_each():
        return _QuietPool(processes, initializer=initializer, context=get_context("spawn"))
