"""The scan command: Streams score sheets read from photos (needs the scan extra)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from paperplay.cli import options as opt
from paperplay.cli.common import SHORT_HELP, guarded, print_json
from paperplay.errors import InputError
from paperplay.games import checked_seed
from paperplay.messages import counted, one_line, printable
from paperplay.referee import Outcome
from paperplay.seeds import code_mismatch, display_code, full_code, game_code, written_code

INSTALL = ("paperplay scan needs the scan extra (numpy, OpenCV, zxing-cpp): in paperplay's folder, pip install "
           "'.[scan]' (or pip install 'paperplay[scan]' where it comes from a package index)")


SCAN_HINT = "another --out folder, or rename the photo"


def _need_extra() -> None:
    try:
        import cv2
        import numpy  # noqa: F401
        import zxingcpp  # noqa: F401
    except ImportError:
        raise InputError(INSTALL) from None
    # OpenCV's own warnings (a truncated PNG) would be a second line on stderr: the reader says what failed
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)


def _json_tile(tile: Any) -> Any:
    """A tile as a sheet file holds it (SPEC §5): a number, or "*" for the wild."""
    from paperplay.streams.rules import WILD

    return "*" if tile == WILD else tile


def _ask(photo: Path, reading: Any, crop_path: Path, blank: bool = False, err: bool = False) -> Any:
    """Asks on the terminal for one flagged box; Enter keeps the suggestion (a blank box has none). With
    `err` (--json: standard output holds the document only) the questions go to standard error."""
    from paperplay.streams.rules import tile_text
    from paperplay.streams.referee import parse_tiles

    suggestion = reading.value
    offer = "(type 1-30 or *)" if blank else f"[{tile_text(suggestion)}] (Enter keeps it, or type 1-30 or *)"
    while True:
        typer.echo(f"{printable(photo.name)} box {reading.box}: {reading.why}; image {printable(str(crop_path))}",
                   err=err)
        typer.echo(f"  box {reading.box} holds {offer}: ", nl=False, err=err)
        try:
            answer = input().strip()
        except (EOFError, RuntimeError, OSError):  # RuntimeError: no standard input at all (closed)
            raise InputError(f"--confirm: no answer on standard input for box {reading.box} of {photo}") from None
        if sys.stdin is None or not sys.stdin.isatty():  # a piped answer is not echoed: end the prompt's line
            typer.echo("", err=err)
        if not answer and not blank:
            return suggestion
        if not answer:
            continue
        try:
            return parse_tiles(answer, f"box {reading.box}", count=1)[0]
        except InputError as exc:
            typer.echo(f"  {exc}", err=err)


def _png(image: Any) -> bytes:
    import cv2

    ok, data = cv2.imencode(".png", image)
    return data.tobytes() if ok else b""


def _candidates(scan: Any, reading: Any, most: int = 4) -> list[Any]:
    """What a flagged box may hold, likeliest first: the draw's fit, the free reading, then the other values its
    cells make likely (1 % or more), at most `most`."""
    from paperplay.scan.match import VALUES

    out = [v for v in (reading.matched, reading.free) if v is not None]
    row = scan.probs[reading.box - 1]
    for i in sorted(range(len(VALUES)), key=lambda i: -row[i]):
        if len(out) >= most or row[i] < 0.01:
            break
        out.append(VALUES[i])
    return list(dict.fromkeys(out))[:most]


def _shown(value: Any) -> str:
    """A box's value in the page: the number, or the wild as a star."""
    from paperplay.html.page import star_svg
    from paperplay.streams.rules import WILD

    return star_svg("wild") if value == WILD else str(value)


def _contact_sheet(scan: Any, cells: list[Any], sheet: dict[str, Any] | None = None, name: str = "sheet") -> bytes:
    """An HTML page with every box's image, its reading and its flag, to check by eye (any screen width,
    light or dark; only the page's own style, script and images may load). A flagged box offers its
    candidates, one click each (or a typed value); the corrected sheet is saved as NAME.json, or copied
    as a `paperplay score --cells` line."""
    import base64

    from paperplay.html.page import STAR_SYMBOL, asset, document, star_svg, text

    sheet = dict(sheet or {"game": "streams", "cells": [_json_tile(t) for t in cells]})
    boxes = []
    for reading, crop, value in zip(scan.boxes, scan.crops, cells):
        src = "data:image/png;base64," + base64.b64encode(_png(crop)).decode()
        sure = reading.matched_p if reading.matched_p is not None else reading.free_p
        note = ("check: " + text(reading.why)) if reading.flagged else f"{sure:.0%} sure"
        pick = ""
        if reading.flagged:
            buttons = "".join(f'<button type="button" data-v="{text(_json_tile(v))}" aria-pressed="false" '
                              f'aria-label="box {reading.box} holds {"the wild" if _json_tile(v) == "*" else v}">'
                              f"{_shown(v)}</button>" for v in _candidates(scan, reading))
            pick = (f'<div class="pick">{buttons}<input aria-label="box {reading.box} holds (1-30 or *)" '
                    'placeholder="…" maxlength="2" inputmode="text"></div>')
        flag = f' class="flag" data-box="{reading.box}"' if reading.flagged else ""
        boxes.append(f'<li{flag}><img src="{src}" alt="box {reading.box} as photographed">'
                     f'<b>{reading.box}: <span class="v">{_shown(value)}</span></b><small>{note}</small>{pick}</li>')
    if scan.qr_read:
        title = f"{scan.photo.name}: sheet {scan.sheet}, game {display_code(scan.code)}"
    else:
        title = f"{scan.photo.name}: {sheet.get('player', scan.photo.stem)} (QR code unreadable)"
    flagged = sum(reading.flagged for reading in scan.boxes)
    check = (f"{flagged} flagged box{'es are' if flagged != 1 else ' is'} outlined in red: check "
             f"{'them' if flagged != 1 else 'it'} against the photo, and pick what the box holds." if flagged
             else "No box is flagged.")
    body = (f"{STAR_SYMBOL}<template id=\"wild\">{star_svg('wild')}</template>"
            f"<main><h1>{text(title)}</h1><p>Each box as photographed, with what was read. {check}</p><ol>"
            + "".join(boxes) + "</ol>"
            '<section aria-label="the corrected sheet"><p id="left"></p>'
            '<input id="line" readonly aria-label="the sheet as a paperplay score line">'
            f'<div class="acts"><a id="save" download="{text(name)}.json" href="#">Save the sheet ({text(name)}.json)'
            '</a><button type="button" id="copy">Copy the score line</button><span id="said" aria-live="polite">'
            "</span></div></section></main>")
    return document(title, asset("base.css") + asset("check.css"), body, script=asset("check.js"),
                    data={"sheet": sheet}, images=True)


def scan(
    photos: Annotated[list[Path], typer.Argument(help="Photos (JPEG or PNG) of scannable Streams sheets, one sheet "
                                                 "each.", show_default=False, click_type=opt.INPUT)],
    seed: Annotated[str | None, typer.Option("--seed", "-s", metavar="SEED",
                                             help="The game's seed: match the readings to its draw.",
                                             show_default=False)] = None,
    draw_list: Annotated[str | None, typer.Option("--draw", metavar="TILES",
                                                  help='The 20 tiles in draw order (a physical bag), e.g. '
                                                       '"11,3,*,…".', show_default=False)] = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for the sheet files and the pages to check them "
                                      "by eye.", click_type=opt.FOLDER)] = Path("output/scan"),
    as_json: opt.Json = False,
    confirm: Annotated[bool, typer.Option("--confirm", help="Ask on the terminal for every flagged box before "
                                          "scoring.")] = False,
    force: Annotated[bool, typer.Option("--force", "-f", help="Overwrite sheet files that exist.")] = False,
) -> None:
    """Reads filled-in Streams sheets from photos, writes sheet files and scores them.

    Sheets must be printed with --scannable. For each photo: the four corner marks (three are
    enough) and the QR code place the page, the 20 boxes are read, and a sheet file
    OUT/<photo>.json is written (player: the sheet number) with OUT/<photo>.check.html showing
    every box: pick a flagged box's value there in one click, then save the sheet or copy its
    'paperplay score --cells' line. With --seed or --draw the readings are matched to the draw,
    and every box where the free reading and the matched one disagree, or the reader is unsure,
    is flagged; --confirm asks for those. A sheet whose QR code is too small or blurred to read
    is read all the same with --seed or --draw (the player named after the photo). Then the
    ranking, as paperplay score prints it. A photo that cannot be read gets one line and exit
    code 2. The sheet should span at least 2 pixels a millimetre (a whole page in a 1,280-pixel
    photo); the photo's EXIF orientation is applied.

    Examples:

    \b
      paperplay scan photos/*.jpg --seed 7KQ2-M9XD
      paperplay scan sheet3.jpg --draw "11,3,5,17,27,25,6,4,13,15,16,1,28,15,7,18,23,8,20,24" --confirm
    """
    from paperplay.streams.rules import draw
    from paperplay.streams.referee import parse_tiles

    if seed is not None and draw_list is not None:
        raise InputError("--seed and --draw: give one source of the draw, not both")
    canonical = checked_seed(seed) if seed is not None else None
    drawn = parse_tiles(draw_list, "--draw") if draw_list is not None else (draw(canonical) if canonical else None)
    if draw_list is not None:  # the boxes are read as these tiles: a draw the bag cannot give reads them wrong
        from paperplay.streams.rules import check_draw

        for problem in check_draw(drawn or ()):
            raise InputError(f"--draw: {problem.message}")
    _need_extra()
    from paperplay.files import check_writable, input_at, write_atomic, write_together
    from paperplay.scan.pipeline import blank_message, read_photo
    from paperplay.scan.reader import ScanError

    targets = []
    named: dict[str, Path] = {}  # each photo's sheet file by the name it will have, to the photo
    for photo in photos:
        sheet_path, page_path = out / f"{photo.stem}.json", out / f"{photo.stem}.check.html"
        if not photo.is_file():  # reported with the photos' outcomes
            targets.append((photo, sheet_path, page_path))
            continue
        if sheet_path.name in named:
            raise InputError(f"{photo}: its sheet would be {sheet_path}, as {named[sheet_path.name]}'s is; give the "
                             "photos different names (or scan them with different --out folders)")
        named[sheet_path.name] = photo
        for path in (sheet_path, page_path):
            if input_at(path, photos) is not None:
                raise InputError(f"{photo}: its sheet files would be {sheet_path} and {page_path}, and {path} is "
                                 "a photo given to read; give another --out folder")
            check_writable(path, force, SCAN_HINT)
        targets.append((photo, sheet_path, page_path))
    outcomes: list[Outcome] = []
    scans: list[dict[str, Any]] = []
    shown: dict[tuple[str, str], Path] = {}  # the photo of each sheet read so far, by game code and sheet
    for photo, sheet_path, page_path in targets:
        if not photo.is_file():
            what = ("is a folder; expected a photo (JPEG or PNG)" if photo.is_dir() else
                    "is not a regular file; expected a photo (JPEG or PNG)" if photo.exists() else
                    "is a symbolic link to no file (its target is missing, or the links go round in a loop)"
                    if photo.is_symlink() else "no such photo")
            outcomes.append(Outcome(str(photo), error=InputError(f"{photo}: {what}")))
            continue
        try:
            scan = read_photo(photo, drawn)
        except ScanError as exc:
            outcomes.append(Outcome(str(photo), error=InputError(f"{photo}: {exc}")))
            continue
        if not scan.qr_read:
            if drawn is None:
                outcomes.append(Outcome(str(photo), error=InputError(
                    f"{photo}: its QR code cannot be read (too small or blurred in the photo), so its game is not "
                    "known; give the game's --seed or --draw to read the sheet without it")))
                continue
            scan.code = full_code("streams", canonical) if canonical is not None else ""
        first = shown.setdefault((scan.code, scan.sheet) if scan.qr_read else ("", str(photo)), photo)
        if first != photo:  # one sheet, two photos: it would be ranked twice
            outcomes.append(Outcome(str(photo), error=InputError(
                f"{photo}: shows sheet {scan.sheet} of game {display_code(scan.code)}, as {first} does; "
                "give each sheet's photo once")))
            continue
        if canonical is not None and scan.qr_read and code_mismatch("streams", canonical, scan.code) is not None:
            outcomes.append(Outcome(str(photo), error=InputError(
                f"{photo}: the sheet is of game {display_code(scan.code)}, but seed {display_code(canonical)} "
                f"is for game {display_code(game_code('streams', canonical))}")))
            continue
        if scan.blank and not confirm:
            outcomes.append(Outcome(str(photo), error=InputError(f"{photo}: {blank_message(scan.blank)}")))
            continue
        cells = scan.cells
        if confirm:
            crops: list[Path] = []  # the boxes' images shown while asking, removed if no answer comes
            try:
                for reading in scan.flagged:
                    crop_path = out / f"{photo.stem}-box{reading.box:02d}.png"
                    if crop_path.exists() or crop_path.is_symlink():  # not a sheet file: --force does not apply
                        raise InputError(f"{crop_path}: already exists, and --confirm shows box {reading.box}'s image "
                                         "under that name (and removes it); move the file, or give another --out "
                                         "folder")
                    write_atomic(crop_path, _png(scan.crops[reading.box - 1]), False, SCAN_HINT)
                    crops.append(crop_path)
                    cells[reading.box - 1] = _ask(photo, reading, crop_path, reading.box in scan.blank, as_json)
            finally:  # the check page holds every box's image; these were only for asking
                for crop in crops:
                    crop.unlink(missing_ok=True)
        player = f"sheet {scan.sheet}" if scan.qr_read else photo.stem
        sheet: dict[str, Any] = {"game": "streams", "player": player}
        if scan.code:
            sheet["code"] = written_code(scan.code)
        if canonical is not None:
            sheet["seed"] = display_code(canonical)
        elif drawn is not None:
            sheet["draw"] = [_json_tile(t) for t in drawn]
        sheet["cells"] = [_json_tile(t) for t in cells]
        write_together([(sheet_path, (json.dumps(sheet, ensure_ascii=False) + "\n").encode(), SCAN_HINT),
                        (page_path, _contact_sheet(scan, cells, sheet, sheet_path.stem), SCAN_HINT)], force)
        flagged = [] if confirm else scan.flagged
        scans.append({"photo": str(photo), "sheet": scan.sheet or None, "player": player, "qr_read": scan.qr_read,
                      "code": display_code(scan.code) if scan.code else None,
                      "file": str(sheet_path), "check_page": str(page_path), "confirmed": confirm,
                      "boxes": [{"box": b.box, "free": _json_tile(b.free), "free_p": round(b.free_p, 4),
                                 "matched": None if b.matched is None else _json_tile(b.matched),
                                 "matched_p": None if b.matched_p is None else round(b.matched_p, 4),
                                 "flagged": b.flagged, "value": _json_tile(v)} for b, v in zip(scan.boxes, cells)],
                      "flagged": [b.box for b in flagged]})
        if not as_json:
            notes = "; ".join(f"box {b.box}: {b.why}" for b in flagged)
            if scan.qr_read:
                what = f"sheet {scan.sheet} (game {display_code(scan.code)})"
            else:  # placed by its corner marks; the game and the player named from what was given
                game = f"game {display_code(scan.code)} from --seed" if scan.code else "the game of the --draw given"
                what = f"QR code unreadable: read as {game}, player {printable(player)!r} (the photo's name)"
            typer.echo(f"{printable(str(photo))}: {what} -> {printable(str(sheet_path))}; "
                       f"{len(flagged)} box{'es' if len(flagged) != 1 else ''} to check"
                       + (f" ({notes}); see {page_path}" if flagged else ""))
        outcomes.append(_referee(str(sheet_path), sheet))
    _report(outcomes, scans, as_json, matched=drawn is not None)


def _referee(source: str, sheet: dict[str, Any]) -> Outcome:
    from paperplay.streams.referee import referee, sheet_from_json

    try:
        return Outcome(source, referee(sheet_from_json(sheet, source)), game="streams")
    except InputError as exc:
        return Outcome(source, error=exc)


def _report(outcomes: list[Outcome], scans: list[dict[str, Any]], as_json: bool, matched: bool = True) -> None:
    from paperplay.cli.referee_cmds import _finish
    from paperplay.streams.referee import ranking as rank

    judged = [o for o in outcomes if o.verdict is not None]
    ranking = rank(o.to_json() for o in judged)
    unconfirmed = sum(len(s["flagged"]) for s in scans)
    if unconfirmed and not as_json:
        sheets = sum(1 for s in scans if s["flagged"])
        # Said before the verdicts, which count them as suggested: a number a player wrote but was never
        # drawn is "corrected" by the match until someone looks.
        boxes = f"{counted(unconfirmed, 'flagged box', 'flagged boxes')} on {counted(sheets, 'sheet')}"
        verb = "are" if unconfirmed != 1 else "is"
        if matched:
            typer.echo(f"Note: {boxes} {verb} scored as the draw suggests, not as confirmed: check the pages (a "
                       "number written but never drawn reads as a valid one until checked), or scan again with "
                       "--confirm.")
        else:
            typer.echo(f"Note: {boxes} {verb} scored as read, not as confirmed (no --seed or --draw to match them "
                       "to): check the pages, or scan again with --confirm.")
    if not as_json:
        _finish(outcomes, False, ranking)
    for outcome in outcomes:
        if outcome.error is not None:
            typer.echo(f"paperplay: error: {one_line(str(outcome.error))}", err=True)
    print_json({"scans": scans, "results": [o.to_json() for o in outcomes], "ranking": ranking})
    raise typer.Exit(max((o.code for o in outcomes), default=0))


def register(app: typer.Typer) -> None:
    app.command(cls=opt.OnceCommand, short_help=SHORT_HELP["scan"])(guarded(scan))
