"""Processes, signals and workers: everything paperplay does about Ctrl-C, SIGTERM and child processes.

The command line, the coach and the server share it:

- **Start-up** (`noting_signals`): while the command line's modules load, Ctrl-C and SIGTERM are only
  noted, then answered once loading is done (an interrupt raised inside the import machinery can land
  in a callback that Python ignores it in).
- **A run** (`RunSignals`): Ctrl-C and SIGTERM raise KeyboardInterrupt in the main thread, so that
  the run unwinds (temporary files removed) and ends in one line with 130 or 143; work an interrupt
  must not cut runs inside `fragile()` (numba compiling: llvmlite can be cut between freeing an LLVM
  object and marking it freed, and its destructor then frees it again), and a signal then ends the run
  from the handler; a watchdog ends it when the interrupt was swallowed (a callback from C).
- **Spawned workers** (`spawn_pool`: simulate --jobs, the server's photo readers): started with
  Ctrl-C ignored for the moment of their start, each with one BLAS thread.
- **Forked workers** (`forked_map`: the coach's depth-2 replies): forked with Ctrl-C and SIGTERM
  blocked, each then ignoring Ctrl-C; the parent stops them.

A spawned Python still importing (before a pool's initializer runs) prints a traceback for a Ctrl-C
that reaches the whole process group. An ignored signal stays ignored through exec and Python keeps
it so; so each spawned worker, and multiprocessing's resource tracker, is started with Ctrl-C ignored
for the moment of its start only (about a millisecond each). A Ctrl-C to this process in that moment
is lost: it is blocked meanwhile (Linux keeps a blocked signal pending even while it is ignored), but
starting a process unblocks it, which drops one that waited; after the start it is blocked again, so
that one pressed then waits for the handler. The parent keeps its handler the rest of the time and
stops the workers itself.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

if TYPE_CHECKING:  # imported where used: `paperplay` notes Ctrl-C before anything slow is imported
    from multiprocessing.pool import Pool

    from paperplay.errors import ExitCode

Job = TypeVar("Job")
Result = TypeVar("Result")

# Work an interrupt must not cut ------------------------------------------------------------------

_depth = 0


@contextmanager
def fragile() -> Iterator[None]:
    """Marks the work in the with block as not to be cut by an exception from a signal handler."""
    global _depth
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1


def inside() -> bool:
    """Whether fragile work is running."""
    return _depth > 0


# Start-up -----------------------------------------------------------------------------------------

def _signal_names(signum: int) -> tuple[str, ExitCode]:
    from paperplay.errors import ExitCode

    if signum == signal.SIGTERM:
        return "stopped (SIGTERM)", ExitCode.TERMINATED
    return "interrupted", ExitCode.INTERRUPTED


def noting_signals(load: Callable[[], Callable[[], None]]) -> Callable[[], None]:
    """Calls `load` (imports that take a while) with Ctrl-C and SIGTERM only noted, and returns what it
    returns; a signal that came meanwhile ends the process in one line. The noting handler stays until
    the run sets its own (and comes back after it): no moment is left where Ctrl-C prints a traceback."""
    caught: list[int] = []

    def note(signum: int, frame: Any) -> None:
        caught.append(signum)

    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            signal.signal(sig, note)
        except (ValueError, OSError):  # not the main thread: leave signals alone
            pass
    run: Callable[[], None] = lambda: None  # noqa: E731
    try:
        run = load()
    except KeyboardInterrupt:  # not the main thread: the default handler raised it
        caught.append(signal.SIGINT)
    if caught:
        words, code = _signal_names(caught[-1])
        sys.stderr.write(f"paperplay: {words}\n")
        sys.exit(code)
    return run


# A run of the command line ------------------------------------------------------------------------

SWALLOWED_GRACE = 5.0
"""Seconds after a signal before the run is ended from a timer thread, in case the interrupt raised
in the main thread was swallowed (by a callback from C that cannot raise, e.g. numba compiling)."""


class RunSignals:
    """Ctrl-C and SIGTERM for one run of the command line (one at a time: the handlers are the
    process's). `install` sets the handlers, `stop` ends a stopped run's work (its one line said by
    `say`), `restore` puts the previous handlers back; `leave` ends the process at once."""

    def __init__(self, say: Callable[[str], None], clean_up: Callable[[], None]) -> None:
        self.say = say
        self.clean_up = clean_up  # temporary files and empty folders removed
        self.signalled: list[int] = []
        self.ending = threading.Lock()  # held by whoever says the run was stopped: one line, never two
        self.watchdog: list[threading.Timer] = []
        self.previous: dict[int, Any] = {}
        self.unraisable: Callable[[Any], Any] = sys.unraisablehook

    @property
    def code(self) -> int:
        return _signal_names(self.signalled[-1] if self.signalled else signal.SIGINT)[1]

    def _say_stopped(self) -> None:
        self.say(_signal_names(self.signalled[-1] if self.signalled else signal.SIGINT)[0])

    def install(self) -> None:
        self.signalled.clear()
        for sig in (signal.SIGINT, signal.SIGTERM):
            try:
                self.previous[sig] = signal.signal(sig, self.on_signal)
            except (ValueError, OSError):  # not the main thread: leave signals alone
                pass
        self.unraisable, sys.unraisablehook = sys.unraisablehook, self.on_unraisable

    def on_signal(self, signum: int, frame: Any) -> None:
        self.signalled.append(signum)
        if self.ending.locked():  # the run is ending already, with its one line: a second Ctrl-C changes nothing
            return
        if inside():  # work an exception must not cut (numba compiling): end the run from here
            self.end_now()
            return
        if not self.watchdog:
            timer = threading.Timer(SWALLOWED_GRACE, self.end_now)
            timer.daemon = True
            self.watchdog.append(timer)
            timer.start()
        raise KeyboardInterrupt  # unwinds like Ctrl-C: temporary files are removed on the way out

    def on_unraisable(self, args: Any) -> None:
        """An interrupt raised where Python cannot pass it on (inside a callback from C) ends the run now.
        Once the run is stopped, any other error Python cannot pass on is dropped: it comes from an object
        the interrupt left half-built (llvmlite's destructors fail on one), and the run ends in one line.
        Before a signal, errors go to the usual hook."""
        if not self.signalled:
            sys.__unraisablehook__(args)
        elif args.exc_type is KeyboardInterrupt:
            self.end_now()

    def end_now(self) -> None:
        """Ends a run whose interrupt never reached the command line, or came during work it must not
        cut (see fragile): temporary files removed, one line, the code."""
        if not self.ending.acquire(blocking=False):  # the command line is ending it already
            return
        self.clean_up()
        self._say_stopped()
        leave(self.code)

    def stop(self) -> int:
        """Ends a run a signal stopped: its temporary files removed, its one line said; its exit code."""
        self.ending.acquire()  # waits (for good) if the watchdog is ending the run already
        self.clean_up()
        self._say_stopped()
        return self.code

    def restore(self, leaving: int | None = None) -> None:
        """Puts the previous handlers back; `leaving`: the command line is ending with that code, and
        another signal ends it at once, quietly (errors Python cannot pass on are dropped until then:
        they come from objects the interrupt left half-built)."""
        handlers: dict[int, Any] = self.previous
        if leaving is not None:
            handlers = {sig: (lambda signum, frame, code=leaving: leave(code)) for sig in self.previous}
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
        self.previous = {}
        for timer in self.watchdog:
            timer.cancel()
        self.watchdog.clear()
        self.signalled.clear()
        if self.ending.locked():
            self.ending.release()
        sys.unraisablehook = (lambda args: None) if leaving is not None else self.unraisable


def wraps_an_interrupt(exc: BaseException) -> bool:
    """Whether a KeyboardInterrupt caused `exc`: Python re-raises one from `__set_name__` while a class
    is made (a dataclass imported as Ctrl-C arrives) as a RuntimeError with the interrupt as its cause."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return True
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return False


def leave(code: int) -> NoReturn:
    """Ends a stopped run at once. Python's own shutdown is skipped: it puts the default signal
    handlers back, so an impatient second Ctrl-C could kill it half-way, and its clean-up would wait
    for workers; the workers are stopped here instead."""
    multiprocessing = sys.modules.get("multiprocessing")
    if multiprocessing is not None:
        try:
            for child in multiprocessing.active_children():
                child.terminate()
            _release_semaphores()
        except Exception:  # noqa: BLE001 - ending anyway; a worker that outlives us finds its pipe closed
            pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - a closed stream: nothing more can be said
            pass
    os._exit(code)


def _release_semaphores() -> None:
    """Unlinks the named semaphores of spawned pools, whose finalizers os._exit skips: else
    multiprocessing's resource tracker, a process of its own, warns of them on stderr as it ends."""
    util, synchronize = sys.modules.get("multiprocessing.util"), sys.modules.get("multiprocessing.synchronize")
    if util is None or synchronize is None:
        return
    for finalizer in list(getattr(util, "_finalizer_registry", {}).values()):
        if getattr(finalizer, "_callback", None) is synchronize.SemLock._cleanup:
            finalizer()


# Spawned workers ----------------------------------------------------------------------------------

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


@cache
def _quiet_pool() -> type[Pool]:
    # Made on first use: importing multiprocessing.pool at start-up widened the moment in which a
    # Ctrl-C printed a traceback (it came inside the import machinery, before the noting handler).
    # The classes are this module's _QuietProcess and _QuietPool, as pickle (spawn) finds them.
    from multiprocessing.context import SpawnProcess
    from multiprocessing.pool import Pool

    class _QuietProcess(SpawnProcess):
        def start(self) -> None:
            with interrupts_ignored_by_new_processes():
                super().start()

    class _QuietPool(Pool):
        @staticmethod
        def Process(ctx: Any, *args: Any, **kwds: Any) -> Any:  # noqa: N802 - Pool's own name
            return _QuietProcess(*args, **kwds)

    for made in (_QuietProcess, _QuietPool):
        made.__qualname__ = made.__name__
        globals()[made.__name__] = made
    return _QuietPool


def __getattr__(name: str) -> Any:
    # A spawned worker unpickles paperplay.processes._QuietProcess before anything made it.
    if name in ("_QuietProcess", "_QuietPool"):
        _quiet_pool()
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    from multiprocessing import get_context, resource_tracker

    with interrupts_ignored_by_new_processes():
        resource_tracker.ensure_running()  # started by the pool's first semaphore otherwise
    with one_blas_thread_each():
        return _quiet_pool()(processes, initializer=initializer, context=get_context("spawn"))


def ignore_interrupts() -> None:
    """A pool worker's initializer: Ctrl-C is the parent's to answer (it stops the workers)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


# Forked workers -----------------------------------------------------------------------------------

def cores() -> int:
    """The processors this process may run on (at most 8): how many processes work may be shared by."""
    try:
        count = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        count = os.cpu_count() or 1
    return max(1, min(8, count))


def can_fork() -> bool:
    """Forking is cheap and safe here: Linux, and not a daemonic worker (which may not have children)."""
    import multiprocessing

    return sys.platform.startswith("linux") and not multiprocessing.current_process().daemon


_forked: Callable[[Any], Any] | None = None  # what forked workers run (set before the pool forks)


def _run_forked(job: Any) -> Any:
    assert _forked is not None
    return _forked(job)


def _quiet_forked_worker() -> None:
    """Forked workers leave Ctrl-C and SIGTERM to the parent (which stops them): no traceback from each."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})  # blocked while forking


def forked_map(function: Callable[[Job], Result], jobs: list[Job], workers: int) -> list[Result]:
    """`function` of each job, in order: in `workers` processes forked from this one (they share what
    `function` holds, unpickled), or here when there are fewer than two or forking fails (the results
    are the same either way)."""
    global _forked
    if workers < 2:
        return [function(job) for job in jobs]
    import multiprocessing

    _forked = function
    for stream in (sys.stdout, sys.stderr):  # nothing half-written is copied into the workers
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    # Ctrl-C and SIGTERM wait while the workers are forked (each unblocks them once it ignores them),
    # so that no worker is stopped by the parent's handler and prints a traceback.
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        try:
            pool = multiprocessing.get_context("fork").Pool(workers, initializer=_quiet_forked_worker)
        except OSError:  # no semaphores (a container without /dev/shm) or no processes left: one process
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
            return [function(job) for job in jobs]
        with pool:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # a signal that came meanwhile arrives here
            return pool.map(_run_forked, jobs)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        _forked = None
