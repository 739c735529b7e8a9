"""Runs the paperplay command line as ``python -m paperplay``."""

try:
    from paperplay.cli.entry import main
except KeyboardInterrupt:  # Ctrl-C while Python is still loading the first module
    import sys

    sys.stderr.write("paperplay: interrupted\n")
    sys.exit(130)  # paperplay.errors.ExitCode.INTERRUPTED, not imported yet

main()
