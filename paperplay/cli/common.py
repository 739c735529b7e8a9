"""What every command shares: seed and paper options, output paths, and the one error channel."""

from __future__ import annotations

import enum
import json
import sys
from pathlib import Path
from typing import Any, NoReturn

import typer

from paperplay.errors import InputError
from paperplay.seeds import canonical_seed, generate_seed


class Game(str, enum.Enum):
    streams = "streams"
    streetcar = "streetcar"
    sequence = "sequence"


class Level(str, enum.Enum):
    add = "add"
    add_sub = "add-sub"
    mul_div = "mul-div"
    mixed = "mixed"


class Paper(str, enum.Enum):
    a4 = "a4"
    letter = "letter"


class KitPaper(str, enum.Enum):
    a4 = "a4"
    letter = "letter"
    a3 = "a3"


def fail(message: str) -> NoReturn:
    """Reports an input error on stderr and exits with code 2."""
    from paperplay.messages import one_line

    typer.echo(f"paperplay: error: {one_line(message)}", err=True)
    raise typer.Exit(2)


def seed_or_new(seed: str | None) -> tuple[str, bool]:
    """Returns the canonical seed, or a fresh one (and whether it was generated)."""
    if seed is None:
        return generate_seed(), True
    return canonical_seed(seed), False


def output_path(out: Path | None, game: str, seed: str, what: str) -> Path:
    """Returns --out, or the default output/<game>-<SEED>-<what>.pdf under the current folder."""
    if out is not None:
        return out
    return Path("output") / f"{game}-{seed}-{what}.pdf"


def print_json(document: Any) -> None:
    """Prints one JSON document on stdout (the only thing --json prints there)."""
    sys.stdout.write(json.dumps(document, ensure_ascii=False) + "\n")


def size_text(n: int) -> str:
    return f"{n / 1024:.0f} KB" if n >= 1024 else f"{n} bytes"


SEED_HELP = "Seed (1-32 letters and digits; punctuation is ignored). A new one is made when omitted."
OUT_HELP = "Output PDF. Default: output/<game>-<SEED>-<what>.pdf"
FORCE_HELP = "Overwrite the output file if it exists."


def guarded(func: Any) -> Any:
    """Wraps a command so that a project InputError exits 2 with one line on stderr, no traceback."""
    import functools

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except InputError as exc:
            fail(str(exc))

    return wrapper
