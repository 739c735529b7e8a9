"""The `paperplay` command: a Ctrl-C even while the program is still starting up ends in one line."""

from __future__ import annotations

import sys


def main() -> None:
    """Imports the command line (the slow part of starting) and runs it; see paperplay.cli.app.main."""
    try:
        from paperplay.cli.app import main as run
    except KeyboardInterrupt:
        sys.stderr.write("paperplay: interrupted\n")
        sys.exit(130)
    run()
