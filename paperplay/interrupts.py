"""Work that an interrupt must not cut part-way.

A Ctrl-C arrives as an exception raised wherever the main thread happens to be. Most work unwinds
from that cleanly; some does not: numba compiling (llvmlite) can be cut between freeing an LLVM
object and marking it freed, and its destructor then frees it again (the process aborts). Such work
runs inside `fragile()`; a signal handler that finds `inside()` true must not raise. The command
line ends the run at once instead: nothing of that work needs undoing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

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
