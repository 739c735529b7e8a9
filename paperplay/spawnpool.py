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


def spawn_pool(processes: int, initializer: Callable[[], None] | None = None) -> Pool:
    """A pool of `processes` spawned workers whose start a Ctrl-C cannot interrupt (see above)."""
    with interrupts_ignored_by_new_processes():
        resource_tracker.ensure_running()  # started by the pool's first semaphore otherwise
    return _QuietPool(processes, initializer=initializer, context=get_context("spawn"))
