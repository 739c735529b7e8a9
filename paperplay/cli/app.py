"""The paperplay command line: one typer app, commands from the modules beside this one."""

from __future__ import annotations

import sys

import typer

from paperplay import __version__
from paperplay.errors import InputError

app = typer.Typer(
    name="paperplay",
    help="Print seeded paper game kits (Streams, Streetcar, Sequence Numbers) and referee what was played.\n\n"
    "Examples:\n\n"
    "  paperplay sheets --players 8\n\n"
    "  paperplay score ann.json bob.json --seed 7KQ2-M9XD\n\n"
    "  paperplay draw streams --seed 7KQ2-M9XD\n\n"
    "  paperplay route board.json --line 2 --card 4\n\n"
    "  paperplay advise --cells \"3 _ _ 12 _ _ _ 15 _ _ _ _ 21 _ _ _ _ _ _ 29\" --tile 17",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"paperplay {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="Print the version and exit."),
) -> None:
    """Prints seeded paper game kits and referees what was played on paper."""


# Importing the modules registers their commands; --help lists them in this order.
from paperplay.cli import draw_cmds, print_cmds, referee_cmds  # noqa: E402, I001
from paperplay.cli import coach_cmds  # noqa: E402, I001
from paperplay.cli import scan_cmds  # noqa: E402, I001

del coach_cmds, draw_cmds, print_cmds, referee_cmds, scan_cmds


def main() -> None:
    """Runs the command line; project input errors become one line on stderr and exit code 2."""
    try:
        app()
    except InputError as exc:
        typer.echo(f"paperplay: error: {exc}", err=True)
        sys.exit(2)
