"""Commands that print kits: sheets and kit."""

from __future__ import annotations

import time
from pathlib import Path

import typer

from paperplay.cli.app import app
from paperplay.cli.common import (
    FORCE_HELP, OUT_HELP, SEED_HELP, Game, KitPaper, Level, Paper, guarded, output_path, seed_or_new, size_text,
)
from paperplay.errors import InputError
from paperplay.seeds import display_code, game_code

MAX_PLAYERS = 200
SCANNABLE_HELP = ("Sheets that paperplay scan can read from photos: corner marks and two digit cells per box "
                  "(tens | units).")


def _names(names: str | None) -> list[str]:
    if not names:
        return []
    return [n.strip() for n in names.split(",")]


def _players(players: int | None, names: list[str], low: int = 1, high: int = MAX_PLAYERS) -> int:
    if players is None:
        if not names:
            raise InputError("--players: missing; say how many players, e.g. --players 8 (or give --names)")
        players = len(names)
    if not low <= players <= high:
        raise InputError(f"--players: is {players}; expected {low}-{high}")
    if len(names) > players:
        raise InputError(f"--names: gives {len(names)} names for {players} players")
    return players


def _offset(text: str) -> tuple[float, float]:
    try:
        x, y = (float(v) for v in text.split(","))
    except ValueError:
        raise InputError(f"--back-offset: is {text!r}; expected X,Y in mm, e.g. 1.5,-0.5") from None
    if abs(x) > 20 or abs(y) > 20:
        raise InputError(f"--back-offset: {text!r} is more than 20 mm; expected a small drift such as 1.5,-0.5")
    return x, y


def _report(path: Path, size: int, pages: int, seed: str, generated: bool, game: str, started: float) -> None:
    typer.echo(f"Wrote {path} ({pages} page{'s' if pages != 1 else ''}, {size_text(size)}, "
               f"{time.perf_counter() - started:.2f} s)")
    typer.echo(f"Game code: {display_code(game_code(game, seed))}  (printed on every page; players may see it)")
    typer.echo(f"Seed:      {display_code(seed)}  ({'new; ' if generated else ''}for the organiser only: "
               "reveal it after the game so anyone can check the draw)")


@app.command()
@guarded
def sheets(
    players: int = typer.Option(None, "--players", "-n", help="Number of players, 1-200: one page each."),
    seed: str = typer.Option(None, "--seed", "-s", help=SEED_HELP),
    names: str = typer.Option(None, "--names", help="Player names, comma-separated, printed on the sheets."),
    paper: Paper = typer.Option(Paper.a4, "--paper", help="Paper size."),
    out: Path = typer.Option(None, "--out", "-o", help=OUT_HELP, dir_okay=False),
    force: bool = typer.Option(False, "--force", "-f", help=FORCE_HELP),
    scannable: bool = typer.Option(False, "--scannable", help=SCANNABLE_HELP),
) -> None:
    """Prints Streams score sheets, one page per player.

    Each page has the train of 20 boxes, the scoring table, the game code and a QR code; never
    the seed or the draw. Same seed and options give a byte-identical PDF.

    Example: paperplay sheets --players 8 --names "Ann,Bob,Søren" --seed 7KQ2-M9XD

             paperplay sheets --players 30 --scannable   (then: paperplay scan photos/*.jpg --seed S)
    """
    from paperplay.render.pdf import check_writable, write_pdf
    from paperplay.streams.pages import sheets_document

    started = time.perf_counter()
    name_list = _names(names)
    count = _players(players, name_list)
    canonical, generated = seed_or_new(seed)
    path = output_path(out, "streams", canonical, "sheets")
    check_writable(path, force)
    if scannable:
        from paperplay.streams.scansheet import scan_sheets_document as sheets_document
    doc = sheets_document(game_code("streams", canonical), count, name_list, paper.value)
    size = write_pdf(doc, path, force)
    _report(path, size, len(doc.pages), canonical, generated, "streams", started)


@app.command()
@guarded
def kit(
    game: Game = typer.Argument(..., help="Which game: streams, streetcar or sequence."),
    players: int = typer.Option(None, "--players", "-n", help="Number of players (Streams: one sheet each)."),
    seed: str = typer.Option(None, "--seed", "-s", help=SEED_HELP),
    names: str = typer.Option(None, "--names", help="Player names, comma-separated (Streams sheets)."),
    paper: KitPaper = typer.Option(KitPaper.a4, "--paper", help="Paper size (a3: Streetcar's board whole)."),
    card_set: int = typer.Option(2, "--set", help="Streetcar: route cards dealt, 2 or 3 stops."),
    out: Path = typer.Option(None, "--out", "-o", help=OUT_HELP, dir_okay=False),
    force: bool = typer.Option(False, "--force", "-f", help=FORCE_HELP),
    numbers: str = typer.Option("1-48", "--numbers", help="Sequence: board numbers: 1-48, 0-47, times-tables "
                                "or 48 numbers separated by commas."),
    level: Level = typer.Option(Level.mixed, "--level", help="Sequence: equation level."),
    poster: bool = typer.Option(False, "--poster", help="Sequence: also print the board as a tiled poster."),
    ink_saver: bool = typer.Option(False, "--ink-saver", help="White backgrounds and outlines instead of fills."),
    back_offset: str = typer.Option("0,0", "--back-offset", help="Shift card backs by X,Y mm (duplex drift)."),
    scannable: bool = typer.Option(False, "--scannable", help="Streams: " + SCANNABLE_HELP),
) -> None:
    """Prints a game's whole print-and-play kit.

    Streams: the caller's sheet (seed and draw, for the organiser only), the 40 tiles to cut
    out for a physical bag, and one score sheet per player.

    Sequence: the organiser's page (seed, deck order), the board, 100 equation cards nine to a
    page with mirrored duplex backs, chips in three colours and shapes, and the rules.

    Streetcar: the deal master (organiser) and deal slips, the board (tiled over pages with
    overlap, or whole on --paper a3), 6 line and 12 route cards with mirrored backs, the 126
    tiles (starting hands first), 13 stop signs, the speed track and the rules.

    Examples: paperplay kit streams --players 4 --seed 7KQ2-M9XD

              paperplay kit streetcar --players 3 --set 3 --paper a3

              paperplay kit sequence --level add-sub --numbers 0-47 --poster
    """
    from paperplay.render.pdf import check_writable, write_pdf

    started = time.perf_counter()
    canonical, generated = seed_or_new(seed)
    path = output_path(out, game.value, canonical, "kit")
    if paper is KitPaper.a3 and game is not Game.streetcar:
        raise InputError("--paper a3 is for the Streetcar board; use a4 or letter")
    if game is Game.streetcar:
        from paperplay.streetcar.deal import deal as streetcar_deal
        from paperplay.streetcar.pages import kit_document as streetcar_kit

        seats = streetcar_deal(canonical, players if players is not None else 4, card_set)
        offset = _offset(back_offset)
        check_writable(path, force)
        doc = streetcar_kit(canonical, game_code("streetcar", canonical), seats, card_set, paper.value, ink_saver,
                            offset)
        size = write_pdf(doc, path, force)
        _report(path, size, len(doc.pages), canonical, generated, game.value, started)
        return
    if game is Game.sequence:
        from paperplay.sequence.pages import kit_document as sequence_kit
        from paperplay.sequence.rules import make_board, make_deck, number_set, number_set_name

        values = number_set(numbers)
        offset = _offset(back_offset)
        check_writable(path, force)
        doc = sequence_kit(canonical, game_code("sequence", canonical), make_board(canonical, values),
                           make_deck(canonical, values, level.value), number_set_name(values), level.value,
                           paper.value, poster, ink_saver, offset)
        size = write_pdf(doc, path, force)
        _report(path, size, len(doc.pages), canonical, generated, game.value, started)
        return
    from paperplay.streams.pages import kit_document
    from paperplay.streams.rules import draw

    name_list = _names(names)
    count = _players(players if players is not None or name_list else 4, name_list)
    check_writable(path, force)
    if scannable:
        from paperplay.streams.scansheet import scan_kit_document as kit_document
    doc = kit_document(canonical, game_code("streams", canonical), draw(canonical), count, name_list, paper.value)
    size = write_pdf(doc, path, force)
    _report(path, size, len(doc.pages), canonical, generated, game.value, started)
