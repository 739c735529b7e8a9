"""Commands that reveal or call a seed's draw: draw and call."""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import sys
import textwrap
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import typer

from paperplay.cli import options as opt
from paperplay.cli.common import SHORT_HELP, guarded, only_with, print_json, size_text, variant_file
from paperplay.errors import InputError
from paperplay.games import checked_seed, find_game
from paperplay.messages import printable
from paperplay.seeds import display_code, game_code


def draw(
    game: opt.GameArgument,
    seed: opt.RequiredSeed,
    players: opt.Players = None,
    card_set: opt.CardSet = None,
    numbers: opt.Numbers = None,
    level: opt.Level = None,
    variant: opt.Variant = None,
    as_json: opt.Json = False,
) -> None:
    """Shows what a seed deals: Streams' tiles; Streetcar's cards per seat and bag; Sequence's board and deck.

    Streams takes --variant; Streetcar takes --players (2-6, default 4) and --set (2 or 3);
    Sequence takes --numbers and --level, as its kit did. This reveals the draw: it is for the
    organiser, or for checking
    after the game.

    Examples:

    \b
      paperplay draw streams --seed 7KQ2-M9XD --json
      paperplay draw streetcar --seed 7KQ2-M9XD --players 4 --set 3
      paperplay draw sequence --seed 7KQ2-M9XD --level add
    """
    info = find_game(game)
    given = {"players": players, "set": card_set, "numbers": numbers, "level": level, "variant": variant}
    options = info.checked_options("draw", given, prefix="--")
    dealt = info.game_api().draw(checked_seed(seed), options)
    if as_json:
        print_json(dealt.to_json())
        return
    for line in dealt.text_lines():
        typer.echo(line)


def write_caller_page(path: Path, seed: str, force: bool, variant: str | None = None, lang: str = "en") -> None:
    """Writes the projector caller of a Streams seed and says who may see it."""
    from paperplay.html.page import check_page_path, write_page

    started = time.perf_counter()
    check_page_path(path, force)
    code, page = caller_page_of(path, seed, variant, lang)
    write_page(path, page, force)
    report_caller_page(path, code, len(page), started)


def caller_page_of(path: Path, seed: str, variant: str | None, lang: str) -> tuple[str, bytes]:
    """The game code and the projector caller page of a Streams seed, to be written at `path`."""
    from paperplay.files import check_not_an_input
    from paperplay.html.caller import caller_page
    from paperplay.i18n import translator
    from paperplay.streams.api import variant_rules
    from paperplay.streams.rules import draw as streams_draw

    check_not_an_input(path, "--html", [variant_file(variant)])
    code = game_code("streams", seed)
    rules = variant_rules(variant)
    return code, caller_page(code, streams_draw(seed, rules), rules, translator(lang))


def report_caller_page(path: Path, code: str, size: int, started: float) -> None:
    """Says what the projector caller page holds and who may see it."""
    typer.echo(f"Wrote {printable(str(path))} (projector caller, {size_text(size)}, "
               f"{time.perf_counter() - started:.2f} s)")
    typer.echo(f"For the organiser only: the file holds the whole draw of game {display_code(code)}. Open it in "
               "a browser on the projector's laptop (no network needed): Space next, ← back, F full screen, H help.")


_BIG = {
    "0": [" ### ", "#   #", "#   #", "#   #", " ### "],
    "1": ["  #  ", " ##  ", "  #  ", "  #  ", " ### "],
    "2": [" ### ", "#   #", "  ## ", " #   ", "#####"],
    "3": ["#### ", "    #", " ### ", "    #", "#### "],
    "4": ["#   #", "#   #", "#####", "    #", "    #"],
    "5": ["#####", "#    ", "#### ", "    #", "#### "],
    "6": [" ### ", "#    ", "#### ", "#   #", " ### "],
    "7": ["#####", "    #", "   # ", "  #  ", "  #  "],
    "8": [" ### ", "#   #", " ### ", "#   #", " ### "],
    "9": [" ### ", "#   #", " ####", "    #", " ### "],
    "*": ["# # #", " ### ", "#####", " ### ", "# # #"],
}


def big_text(text: str) -> list[str]:
    """Returns text in a five-line block font, so a room can read it off a screen."""
    rows = []
    for r in range(5):
        rows.append("  ".join(_BIG[ch][r] for ch in text).replace("#", "█"))
    return rows


def call(
    game: opt.CallableGameArgument,
    seed: opt.RequiredSeed,
    start: Annotated[
        int | None,
        typer.Option(
            "--from", click_type=opt.WHOLE, help="Resume at this turn (1-20, or the variant's number of tiles).",
            show_default=False
        ),
    ] = None,
    html: Annotated[
        Path | None,
        typer.Option(
            "--html",
            help="Write a projector page (one HTML file) instead of "
            "calling in the terminal. It holds the draw: for the organiser only.",
            click_type=opt.FILE,
            show_default=False,
        ),
    ] = None,
    force: opt.Force = False,
    variant: opt.Variant = None,
    lang: opt.PageLang = None,
) -> None:
    """Calls the draw one tile at a time in the terminal: Enter shows the next tile.

    Keys: Enter for the next tile, b then Enter to go back one, q then Enter to stop.
    Stopped early? Resume later with --from K.

    With --html FILE, writes a page for a projector instead: open it in a browser (no network
    needed); Space or → shows the next tile, ← goes back, F full screen, H help. It keeps its
    position across a reload. The file holds the whole draw: keep it to yourself.

    Examples:

    \b
      paperplay call streams --seed 7KQ2-M9XD --from 12
      paperplay call streams --seed 7KQ2-M9XD --html caller.html --lang da

    --lang chooses the projector page's language (the terminal caller speaks English).
    """
    from paperplay.streams.api import variant_rules

    canonical = checked_seed(seed)
    rules = variant_rules(variant)
    only_with("--html", html is not None, force=(force, "to replace an existing page"),
              lang=(lang, "the page's language; the terminal caller speaks English"))
    if html is not None:
        if start is not None:
            raise InputError("--from: is for the terminal caller; the --html page keeps its own position")
        write_caller_page(html, canonical, force, variant, opt.lang_or_locale(lang))
        return
    from paperplay.streams.rules import draw as streams_draw

    tiles = streams_draw(canonical, rules)
    start = 1 if start is None else start
    if not 1 <= start <= len(tiles):
        raise InputError(f"--from: is {start}; expected a turn 1-{len(tiles)}")
    # the variant goes into every command the caller suggests: without it they would call the published game
    also = "" if variant is None or rules.standard else f" --variant {shlex.quote(variant)}"
    named = "" if rules.standard else f" (variant {rules.name})"
    code = display_code(game_code("streams", canonical))
    typer.echo(f"Calling Streams{named}, game {code}. Enter: next tile · b: back · q: quit")
    _call_in_terminal(tiles, start, code, canonical, also)


def _call_in_terminal(tiles: Sequence[int], start: int, code: str, seed: str, also: str) -> None:
    """The terminal caller from turn `start`: Enter shows the next tile, b goes back, q (or the end of
    input) stops with the line that resumes it; `also` holds the options every suggested command repeats."""
    clear = sys.stdout.isatty() and os.environ.get("TERM") not in (None, "dumb")
    turn = start
    # the game is over when it is shown: its seed may be revealed now, so anyone can check the draw
    score_hint = f"Time to score: paperplay score SHEET.json --seed {display_code(seed)}{also}"

    def stopped() -> None:
        typer.echo(f"\nStopped before turn {turn}. Resume with: paperplay call streams --seed {seed}{also} "
                   f"--from {turn}")

    try:
        while True:
            try:
                typed = input(f"[Enter for turn {turn}/{len(tiles)}] " if turn <= len(tiles) else "").strip()
            except (EOFError, RuntimeError, OSError):  # end of input, or no standard input at all (closed)
                typed = "q"
            answer = typed.lower()
            if answer == "q":
                if turn <= len(tiles):
                    stopped()
                return
            if answer not in ("", "b"):  # a typo does not call the next tile
                typer.echo(f"  {typed!r} is not a key here: Enter for the next tile, b to go back, q to quit.")
                continue
            if answer == "b":
                if turn == 1:
                    typer.echo("  No tile has been called yet.")
                    continue
                if turn == 2:
                    typer.echo("  Tile 1 is the first: here it is again.")
                turn = max(1, turn - 2)
            if turn > len(tiles):
                typer.echo(f"All {len(tiles)} tiles are called. {score_hint}")
                return
            _show_tile(tiles, turn, code, clear)
            turn += 1
            if turn > len(tiles):
                typer.echo(f"That was the last tile. {score_hint}")
                return
    except KeyboardInterrupt:  # Ctrl-C (or SIGTERM) at any moment: the resume line, then 130 (143) as any stopped run
        with contextlib.suppress(OSError):  # `| cat` that the same Ctrl-C ended: 130 all the same, not 141
            stopped()
        raise


def _show_tile(tiles: Sequence[int], turn: int, code: str, clear: bool) -> None:
    """The terminal caller's screen for one turn: the tile in large digits and the tiles called so far."""
    from paperplay.streams.rules import WILD

    tile = tiles[turn - 1]
    if clear:
        typer.echo("\033[2J\033[H", nl=False)
    typer.echo(f"\n  Game {code}    turn {turn}/{len(tiles)}\n")
    for row in big_text("*" if tile == WILD else str(tile)):
        typer.echo("    " + row)
    typer.echo(f"\n  {'WILD' if tile == WILD else tile}" + ("  (the wild: any one number)" if tile == WILD else ""))
    done = ", ".join("*" if t == WILD else str(t) for t in tiles[:turn])
    # wrapped between numbers to the terminal's width (a phone's is about 40 columns), never inside one
    width = max(30, shutil.get_terminal_size().columns - 1)
    typer.echo(textwrap.fill(f"called so far: {done}", width, initial_indent="  ", subsequent_indent="    ",
                             break_long_words=False, break_on_hyphens=False) + "\n")


def register(app: typer.Typer) -> None:
    app.command(cls=opt.OnceCommand, short_help=SHORT_HELP["draw"])(guarded(draw))
    app.command(cls=opt.OnceCommand, short_help=SHORT_HELP["call"])(guarded(call))
