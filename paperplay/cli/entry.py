"""The `paperplay` command: a Ctrl-C even while the program is still starting up ends in one line."""

from __future__ import annotations

from collections.abc import Callable


def _load() -> Callable[[], None]:
    from paperplay.cli.app import main as run

    return run


def main() -> None:
    """Imports the command line (the slow part of starting) and runs it; see paperplay.cli.app.main.

    While the modules load, Ctrl-C and SIGTERM are only noted, then answered once loading is done
    (paperplay.processes.noting_signals)."""
    from paperplay.processes import noting_signals

    noting_signals(_load)()
