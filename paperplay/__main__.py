"""Runs the paperplay command line as ``python -m paperplay``."""

from paperplay.cli.app import main

main()
