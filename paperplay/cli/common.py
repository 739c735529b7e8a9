"""What every command shares: seeds, output paths, JSON output, and the one error channel."""

from __future__ import annotations

import functools
import json
import sys
import time
from pathlib import Path
from typing import Any, NoReturn

import typer

from paperplay.errors import ExitCode, InputError
from paperplay.games import checked_seed
from paperplay.messages import counted, printable
from paperplay.seeds import display_code, game_code, generate_seed, seed_warning


def fail(message: str) -> NoReturn:
    """Reports an input error on stderr and exits with code 2."""
    from paperplay.messages import one_line

    typer.echo(f"paperplay: error: {one_line(message)}", err=True)
    raise typer.Exit(ExitCode.BAD_INPUT)


def seed_or_new(seed: str | None) -> tuple[str, bool]:
    """Returns the canonical seed, or a fresh one (and whether it was generated)."""
    if seed is None:
        return generate_seed(), True
    return checked_seed(seed), False


def output_path(out: Path | None, game: str, seed: str, what: str) -> Path:
    """Returns --out, or the default output/<game>-<SEED>-<what>.pdf under the current folder."""
    if out is not None:
        return out
    return Path("output") / f"{game}-{seed}-{what}.pdf"


def print_json(document: Any) -> None:
    """Prints one JSON document on stdout (the only thing --json prints there): UTF-8 as it is, and
    any other encoding with \\u escapes (Python's own escapes for what it cannot encode are no JSON)."""
    text = json.dumps(document, ensure_ascii=not stdout_is_utf8()) + "\n"
    # In pieces, each flushed: one large write that a reader leaves part-way (`| head -c 10`) was cut
    # without an error (exit 0); a piece written after the reader has gone fails, and exits 141.
    for start in range(0, len(text), JSON_PIECE):
        sys.stdout.write(text[start:start + JSON_PIECE])
        sys.stdout.flush()


JSON_PIECE = 8192
"""Characters of a JSON document written (and flushed) at a time."""


def stdout_is_utf8() -> bool:
    encoding = getattr(sys.stdout, "encoding", None) or ""
    return encoding.lower().replace("-", "").replace("_", "") in ("utf8", "utf8sig")


SHORT_HELP = {
    "sheets": "Prints Streams score sheets, one page per player (1-200).",
    "kit": "Prints a game's whole print-and-play kit.",
    "draw": "Shows what a seed deals: tiles, cards, a board.",
    "call": "Calls a Streams draw tile by tile, or writes a projector page.",
    "score": "Checks and scores Streams sheets, and ranks the players.",
    "verify": "Referees game records of any of the three games.",
    "route": "Checks a Streetcar line's route on a board state.",
    "schema": "Prints the JSON Schema of an input file, or lists them.",
    "advise": "Says where to write the Streams tile just drawn.",
    "simulate": "Plays seeded Streams games to compare strategies.",
    "review": "Replays a finished Streams game against the coach.",
    "scan": "Reads filled-in Streams sheets from photos.",
    "serve": "Runs a game night server: host, phones, projector.",
    "worker": "Reads a PostgreSQL game night's photos.",
}
"""Each command's line in `paperplay --help` (click cuts a docstring's first sentence off at 45 letters)."""


def size_text(n: int) -> str:
    return f"{n / 1024:.0f} KB" if n >= 1024 else f"{n} bytes"


def report_written(path: Path, size: int, pages: int, seed: str, generated: bool, game: str, started: float) -> None:
    """Says what was written, the game code players may see, and the seed for the organiser."""
    typer.echo(f"Wrote {printable(str(path))} ({counted(pages, 'page')}, {size_text(size)}, "
               f"{time.perf_counter() - started:.2f} s)")
    typer.echo(f"Game code: {display_code(game_code(game, seed))}  (printed on every page; players may see it)")
    typer.echo(f"Seed:      {display_code(seed)}  ({'new; ' if generated else ''}for the organiser only: "
               "reveal it after the game so anyone can check the draw)")
    warning = None if generated else seed_warning(seed)
    if warning is not None:
        typer.echo(f"paperplay: warning: {warning}; leave out --seed for a new seed", err=True)


def guarded(func: Any) -> Any:
    """Wraps a command so that a project InputError exits 2 with one line on stderr, no traceback.

    An error that names its field (``players``) is reported as that option (``--players: …``).
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except InputError as exc:
            if exc.field is not None:
                exc = exc.where("--" + exc.field.replace("_", "-"))
            fail(str(exc))

    return wrapper


def variant_file(variant: str | None) -> str | None:
    """The file a --variant names, when it names one (an input no output may replace)."""
    return variant if variant is not None and variant.lower().endswith(".json") else None


def only_with(needed: str, given: bool, **options: tuple[Any, str]) -> None:
    """Refuses an option that means nothing without `needed` (not `given`): each option's value
    (None or False when not given) and what it is for, e.g. lang=(lang, "the page's language")."""
    if given:
        return
    for name, (value, purpose) in options.items():
        if value is not None and value is not False:
            raise InputError(f"is for {needed} ({purpose}); without {needed} it does nothing", field=name)
