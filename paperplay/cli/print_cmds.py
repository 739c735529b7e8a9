"""Commands that print kits: sheets and kit."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Annotated

import typer

from paperplay.cli import options as opt
from paperplay.cli.common import SHORT_HELP, guarded, output_path, report_written, seed_or_new, variant_file
from paperplay.errors import InputError
from paperplay.files import check_not_an_input
from paperplay.games import find_game


def _variant_part(variant: str | None) -> str:
    """'NAME-' for a variant's default output name (output/streams-SEED-NAME-kit.pdf), so that it
    does not collide with the published game's kit of the same seed; '' for the published game."""
    if variant is None:
        return ""
    from paperplay.streams.api import variant_rules

    rules = variant_rules(variant)
    return "" if rules.standard else f"{rules.name}-"


def sheets(
    players: opt.Players = None,
    seed: opt.Seed = None,
    names: opt.Names = None,
    paper: opt.SheetPaper = None,
    out: opt.Out = None,
    force: opt.Force = False,
    variant: opt.Variant = None,
    lang: opt.Lang = None,
    scannable: opt.Scannable = None,
) -> None:
    """Prints Streams score sheets, one page per player (1-200).

    Each page has the train of 20 boxes, the scoring table, the game code and a QR code; never
    the seed or the draw. Same seed and options give a byte-identical PDF.

    With --scannable, the sheets carry corner marks and two digit cells per box, so that
    paperplay scan can read them from photos (standard game, printed in English).

    Examples (the second prints sheets for scanning; the third reads their photos):

    \b
      paperplay sheets --players 8 --names "Ann,Bob,Søren" --seed 7KQ2-M9XD --lang da
      paperplay sheets --players 30 --scannable --seed 7KQ2-M9XD
      paperplay scan photos/*.jpg --seed 7KQ2-M9XD
    """
    from paperplay.render.pdf import write_pdf
    from paperplay.streams.api import sheets as sheets_document

    started = time.perf_counter()
    given = {"players": players, "names": opt.names_list(names), "paper": paper, "variant": variant, "lang": lang,
             "scannable": scannable}
    options = find_game("streams").checked_options("kit", given, prefix="--") | {"lang": opt.lang_or_locale(lang)}
    canonical, generated = seed_or_new(seed)
    path = output_path(out, "streams", canonical, _variant_part(variant) + "sheets")
    check_not_an_input(path, "--out", [variant_file(variant)])
    doc = sheets_document(canonical, options)
    size = write_pdf(doc, path, force)
    report_written(path, size, len(doc.pages), canonical, generated, "streams", started)


def kit(
    game: opt.GameArgument,
    players: opt.Players = None,
    seed: opt.Seed = None,
    names: opt.Names = None,
    paper: opt.Paper = None,
    card_set: opt.CardSet = None,
    out: opt.Out = None,
    force: opt.Force = False,
    numbers: opt.Numbers = None,
    level: opt.Level = None,
    poster: bool | None = typer.Option(None, "--poster", help="Sequence: also print the board as a tiled poster.",
                                       show_default=False),
    ink_saver: opt.InkSaver = None,
    back_offset: opt.BackOffset = None,
    variant: opt.Variant = None,
    html: Annotated[Path | None, typer.Option("--html", help="Streams: also write the projector caller page (HTML; "
                                              "holds the draw, for the organiser only).", click_type=opt.FILE,
                                              show_default=False)] = None,
    lang: opt.Lang = None,
    scannable: opt.Scannable = None,
) -> None:
    """Prints a game's whole print-and-play kit.

    Streams (--players, --names, --variant, --html, --scannable): the caller's sheet (seed and draw,
    for the organiser only), the 40 tiles to cut out for a physical bag, and one score sheet per
    player (as many as --names gives, else 4; --scannable prints sheets paperplay scan reads).

    Streetcar (--players 2-6, --set 2|3, --paper a4|letter|a3, --ink-saver, --back-offset): the
    deal master (organiser) and deal slips, the board (two landscape sheets glued at a grid line,
    or whole on --paper a3), 6 line and 12 route cards with mirrored backs, the 126 tiles (a
    starting hand per seat first), 13 stop signs, the six streetcars, the speed track with its
    marker, and the rules.

    Sequence (--players 2|3|4|6, --numbers, --level, --poster, --ink-saver, --back-offset): the
    organiser's page (seed, deck order; with --players, how they play), the board, 100 equation
    cards nine to a page (six on Letter) with mirrored duplex backs, the rules (with the last card
    and its back on A4), and chips in three colours and shapes (the colours the players use, with
    --players).

    Every kit prints in English, Danish or German (--lang en|da|de; default: the locale's language).
    Options that do not apply to the chosen game are refused.

    Examples:

    \b
      paperplay kit streams --players 4 --seed 7KQ2-M9XD
      paperplay kit streetcar --players 3 --set 3 --paper a3
      paperplay kit sequence --level add-sub --numbers 0-47 --poster
      paperplay kit streams --players 8 --html caller.html
      paperplay kit sequence --lang da
    """
    from paperplay.render.pdf import write_pdf

    started = time.perf_counter()
    info = find_game(game)
    names_given = opt.names_list(names) if "names" in info.kit_options else names  # else refused as it is
    given = {"players": players, "names": names_given, "paper": paper, "set": card_set, "numbers": numbers,
             "level": level, "poster": poster, "ink_saver": ink_saver, "back_offset": back_offset, "variant": variant,
             "html": html, "lang": lang, "scannable": scannable}
    options = info.checked_options("kit", given, prefix="--") | {"lang": opt.lang_or_locale(lang)}
    canonical, generated = seed_or_new(seed)
    path = output_path(out, game, canonical, _variant_part(variant) + "kit")
    check_not_an_input(path, "--out", [variant_file(variant)])
    check_not_an_input(html, "--html", [variant_file(variant)])
    if html is not None:
        from paperplay.html.page import check_page_path

        if os.path.realpath(html) == os.path.realpath(path):
            raise InputError(f"is {str(html)!r}, the kit's PDF too; give the page another name", field="html")
        check_page_path(html, force)  # both outputs are checked before either is written
    doc = info.game_api().kit(canonical, options)
    if html is None:
        size = write_pdf(doc, path, force)
        report_written(path, size, len(doc.pages), canonical, generated, game, started)
        return
    from paperplay.cli.draw_cmds import caller_page_of, report_caller_page
    from paperplay.files import OUT_HINT, write_together
    from paperplay.html.page import PAGE_HINT
    from paperplay.render.pdf import render_bytes

    data = render_bytes(doc)
    code, page = caller_page_of(html, canonical, variant, opt.lang_or_locale(lang))
    write_together([(path, data, OUT_HINT), (html, page, PAGE_HINT)], force)  # both or neither
    report_written(path, len(data), len(doc.pages), canonical, generated, game, started)
    report_caller_page(html, code, len(page), started)


def register(app: typer.Typer) -> None:
    app.command(cls=opt.OnceCommand, short_help=SHORT_HELP["sheets"])(guarded(sheets))
    app.command(cls=opt.OnceCommand, short_help=SHORT_HELP["kit"])(guarded(kit))
