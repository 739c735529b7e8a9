"""The `paperplay` command: a Ctrl-C even while the program is still starting up ends in one line."""

from __future__ import annotations

import signal
import sys
from typing import Any


def main() -> None:
    """Imports the command line (the slow part of starting) and runs it; see paperplay.cli.app.main.

    While the modules load, Ctrl-C and SIGTERM are only noted, then answered once loading is done: an
    interrupt raised inside the import machinery can land in a callback that Python ignores it in
    (the command would then run to its end, a traceback printed on the way). The noting handler stays
    until run() sets its own (and comes back after it): no moment is left where Ctrl-C prints a
    traceback."""
    caught: list[int] = []

    def note(signum: int, frame: Any) -> None:
        caught.append(signum)

    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            signal.signal(sig, note)
        except (ValueError, OSError):  # not the main thread: leave signals alone
            pass
    try:
        from paperplay.cli.app import main as run
    except KeyboardInterrupt:  # not the main thread: the default handler raised it
        caught.append(signal.SIGINT)
    if caught:
        sigterm = caught[-1] == signal.SIGTERM
        sys.stderr.write("paperplay: stopped (SIGTERM)\n" if sigterm else "paperplay: interrupted\n")
        sys.exit(143 if sigterm else 130)
    run()
