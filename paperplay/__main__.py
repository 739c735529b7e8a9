"""Runs the paperplay command line as ``python -m paperplay``."""

from paperplay.cli.entry import main

main()
