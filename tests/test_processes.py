"""paperplay.processes: signals and workers (the command line's one line for Ctrl-C and SIGTERM, work an
interrupt must not cut, spawned and forked workers). The whole command's behaviour under signals is in
test_hardening.py."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from paperplay import processes
from test_hardening import _communicate


_SWALLOWED = """
import ctypes, os, signal, sys, time
from paperplay import processes
from paperplay.cli import app
processes.SWALLOWED_GRACE = {grace}
app.SIGNALS.install()
{swallow}
time.sleep(30)
print("still running")
"""


@pytest.mark.parametrize("how, grace", [
    # raised inside a callback from C (numba compiling with llvmlite): Python can only report it
    ("ctypes.CFUNCTYPE(None)(lambda: os.kill(os.getpid(), signal.SIGTERM))()", 30),
    # caught and dropped by code that should not have: the watchdog ends the run
    ("try:\n    os.kill(os.getpid(), signal.SIGTERM); time.sleep(1)\nexcept KeyboardInterrupt:\n    pass", 0.5),
    # the interrupt leaves an object half-built and its destructor fails (llvmlite's do): nothing printed
    ("class Half:\n    def __init__(self):\n        os.kill(os.getpid(), signal.SIGTERM); time.sleep(1)\n"
     "        self.handle = 1\n    def __del__(self):\n        del self.handle\n"
     "try:\n    Half()\nexcept KeyboardInterrupt:\n    pass", 0.5),
])
def test_a_signal_whose_interrupt_is_swallowed_still_ends_the_run(tmp_path, how, grace):
    process = subprocess.Popen([sys.executable, "-c", _SWALLOWED.format(grace=grace, swallow=how)], cwd=tmp_path,
                               text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = _communicate(process, timeout=20)
    assert process.returncode == 143 and out == "", (out, err)
    assert err == "paperplay: stopped (SIGTERM)\n"


_FRAGILE = """
import os, signal, time
from paperplay import processes
from paperplay.cli import app
app.SIGNALS.install()
with processes.fragile():
    try:
        os.kill(os.getpid(), signal.{name}); time.sleep(5)
    except KeyboardInterrupt:
        print("raised inside the fragile work")
print("went on")
"""


@pytest.mark.parametrize("sig, code, word", [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "SIGTERM")])
def test_a_signal_during_work_it_must_not_cut_ends_the_run_there(tmp_path, sig, code, word):
    """numba compiling (llvmlite) crashes when an interrupt cuts it part-way: a signal then ends the run
    at once from its handler, with the usual line and code, and nothing raised into the work."""
    process = subprocess.Popen([sys.executable, "-c", _FRAGILE.format(name=sig.name)], cwd=tmp_path, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = _communicate(process, timeout=20)
    assert (process.returncode, out) == (code, ""), err
    assert err == f"paperplay: {'stopped (SIGTERM)' if code == 143 else 'interrupted'}\n"


def test_the_kernel_compiles_as_fragile_work(monkeypatch):
    from paperplay import processes
    from paperplay.streams import kernel

    seen = []
    monkeypatch.setattr(kernel, "_tried", False)
    monkeypatch.setattr(kernel, "_compiled", None)
    monkeypatch.setattr(kernel, "_compile", lambda: seen.append(processes.inside()))
    monkeypatch.delenv("PAPERPLAY_NO_JIT", raising=False)
    kernel.load()
    assert seen == [True] and not processes.inside()


def test_processes_started_while_interrupts_are_ignored_ignore_them():
    import multiprocessing

    from paperplay.processes import interrupts_ignored_by_new_processes

    before = signal.getsignal(signal.SIGINT)
    with interrupts_ignored_by_new_processes():
        child = multiprocessing.get_context("spawn").Process(target=signal.pause)
        child.start()
    assert signal.getsignal(signal.SIGINT) is before
    try:
        os.kill(child.pid, signal.SIGINT)  # while it is still importing, and again once it pauses
        time.sleep(1.5)
        os.kill(child.pid, signal.SIGINT)
        time.sleep(0.3)
        assert child.is_alive()
    finally:
        child.terminate()
        child.join()


def _blas_threads(_: object) -> tuple[str | None, ...]:
    from paperplay.processes import BLAS_THREADS
    return tuple(os.environ.get(name) for name in BLAS_THREADS)


def test_pool_workers_run_one_blas_thread_unless_the_caller_chose(monkeypatch):
    from paperplay.processes import BLAS_THREADS, spawn_pool

    for name in BLAS_THREADS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MKL_NUM_THREADS", "3")
    with spawn_pool(1) as pool:
        seen = pool.map(_blas_threads, [0])[0]
    assert dict(zip(BLAS_THREADS, seen)) == {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
                                             "MKL_NUM_THREADS": "3"}
    assert [os.environ.get(name) for name in BLAS_THREADS] == [None, None, "3"]  # the parent's own is as it was


def test_forked_map_gives_the_results_in_order_whether_or_not_it_forks():
    jobs = list(range(12))
    shared = {"offset": 100}  # reached by the forked workers without pickling
    here = processes.forked_map(lambda n: n * n + shared["offset"], jobs, 1)
    forked = processes.forked_map(lambda n: n * n + shared["offset"], jobs, 2)
    assert here == forked == [n * n + 100 for n in jobs]
    assert processes._forked is None  # nothing of the map is left behind


def test_cores_is_between_one_and_eight():
    assert 1 <= processes.cores() <= 8
