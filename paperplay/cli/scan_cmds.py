"""The scan command: Streams score sheets read from photos (needs the scan extra)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from paperplay.cli import options as opt
from paperplay.cli.common import SHORT_HELP, guarded, print_json
from paperplay.errors import InputError
from paperplay.games import checked_seed
from paperplay.messages import counted, one_line, printable
from paperplay.referee import Outcome
from paperplay.seeds import code_mismatch, display_code, full_code, game_code
from paperplay.streams.rules import tile_json

if TYPE_CHECKING:
    from paperplay.handin import PhotoSheet

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


def _ask(photo: Path, number: int, box: dict[str, Any], crop_path: Path, err: bool = False) -> Any:
    """Asks on the terminal for one flagged box; Enter keeps the suggestion (an empty box has none). With
    `err` (--json: standard output holds the document only) the questions go to standard error."""
    from paperplay.streams.referee import parse_tiles
    from paperplay.streams.rules import tile_from_json, tile_text

    blank = box["value"] is None
    offer = ("(type 1-30 or *)" if blank else
             f"[{tile_text(tile_from_json(box['value']))}] (Enter keeps it, or type 1-30 or *)")
    why = "nothing written" if blank else box["why"]
    while True:
        typer.echo(f"{printable(photo.name)} box {number}: {why}; image {printable(str(crop_path))}", err=err)
        typer.echo(f"  box {number} holds {offer}: ", nl=False, err=err)
        try:
            answer = input().strip()
        except (EOFError, RuntimeError, OSError):  # RuntimeError: no standard input at all (closed)
            raise InputError(f"--confirm: no answer on standard input for box {number} of {photo}") from None
        if sys.stdin is None or not sys.stdin.isatty():  # a piped answer is not echoed: end the prompt's line
            typer.echo("", err=err)
        if not answer and not blank:
            return box["value"]
        if not answer:
            continue
        try:
            return tile_json(parse_tiles(answer, f"box {number}", count=1)[0])
        except InputError as exc:
            typer.echo(f"  {exc}", err=err)


def _draw_source(seed: str | None, draw_list: str | None) -> tuple[str | None, list[Any] | None]:
    """The game's seed (canonical) and its draw, from --seed or --draw (neither: None, None)."""
    from paperplay.streams.referee import parse_tiles
    from paperplay.streams.rules import check_draw, draw

    if seed is not None and draw_list is not None:
        raise InputError("--seed and --draw: give one source of the draw, not both")
    canonical = checked_seed(seed) if seed is not None else None
    drawn = parse_tiles(draw_list, "--draw") if draw_list is not None else (draw(canonical) if canonical else None)
    if draw_list is not None:  # the boxes are read as these tiles: a draw the bag cannot give reads them wrong
        for problem in check_draw(drawn or ()):
            raise InputError(f"--draw: {problem.message}")
    return canonical, list(drawn) if drawn is not None else None


def _targets(photos: list[Path], out: Path, force: bool) -> list[tuple[Path, Path, Path]]:
    """Each photo with its sheet file and check page, checked before any photo is read: two photos never
    share a sheet file, no file written is a photo given, and none is overwritten without --force."""
    from paperplay.files import check_writable, input_at

    targets = []
    named: dict[str, Path] = {}  # each photo's sheet file by the name it will have, to the photo
    for photo in photos:
        sheet_path, page_path = out / f"{photo.stem}.json", out / f"{photo.stem}.check.html"
        targets.append((photo, sheet_path, page_path))
        if not photo.is_file():  # reported with the photos' outcomes
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
    return targets


def _read(photo: Path, drawn: list[Any] | None, canonical: str | None,
          shown: dict[tuple[str, str], Path]) -> PhotoSheet:
    """The photo read as a sheet (paperplay.handin), or the InputError that says why it cannot be."""
    from paperplay.handin import Refused, read_photo_sheet

    if not photo.is_file():
        what = ("is a folder; expected a photo (JPEG, PNG, WebP or HEIC)" if photo.is_dir() else
                "is not a regular file; expected a photo (JPEG, PNG, WebP or HEIC)" if photo.exists() else
                "is a symbolic link to no file (its target is missing, or the links go round in a loop)"
                if photo.is_symlink() else "no such photo")
        raise InputError(f"{photo}: {what}")
    try:
        read = read_photo_sheet(photo, drawn)
    except Refused as exc:
        raise PhotoRefused(f"{photo}: {exc}", exc.reading) from None
    if not read.qr_read:
        if drawn is None:
            raise InputError(f"{photo}: its QR code cannot be read (too small or blurred in the photo), so its game "
                             "is not known; give the game's --seed or --draw to read the sheet without it")
        read.code = full_code("streams", canonical) if canonical is not None else ""
    first = shown.setdefault((read.code, read.sheet) if read.qr_read else ("", str(photo)), photo)
    if first != photo:  # one sheet, two photos: it would be ranked twice
        raise InputError(f"{photo}: shows sheet {read.sheet} of game {display_code(read.code)}, as {first} does; "
                         "give each sheet's photo once")
    if canonical is not None and read.qr_read and code_mismatch("streams", canonical, read.code) is not None:
        raise InputError(f"{photo}: the sheet is of game {display_code(read.code)}, but seed "
                         f"{display_code(canonical)} is for game {display_code(game_code('streams', canonical))}")
    return read


class PhotoRefused(InputError):
    """A photo the reader refused, with the reader's refusal (how to retake it, what was found on it)."""

    def __init__(self, message: str, reading: Exception | None) -> None:
        super().__init__(message)
        self.reading = reading


def _refusal_shown(photo: Path, page_path: Path, error: InputError, force: bool) -> InputError:
    """A refused photo's error, its check page written (the photo with what the reader found drawn on it, and
    what to do) and named in its line, when the reader could say what it found."""
    from paperplay.files import write_together
    from paperplay.handin import refusal_page
    from paperplay.scan.refusal import ScanRefusal

    reading = getattr(error, "reading", None)
    if not isinstance(reading, ScanRefusal) or reading.code in ("not_image", "photo_too_large"):
        return error
    from paperplay.scan.overlay import draw_overlay
    from paperplay.scan.reader import ScanError, load_gray

    try:
        overlay: bytes | None = draw_overlay(load_gray(photo), reading.seen)
    except ScanError:
        overlay = None
    page = refusal_page(f"{photo.name}: not read", str(reading), reading.hint, overlay)
    write_together([(page_path, page, SCAN_HINT)], force)
    return InputError(f"{error} (what was found: {page_path})")


def _settled(photo: Path, read: PhotoSheet, confirm: bool, out: Path, err: bool) -> list[Any]:
    """The sheet's cells: as read, or with --confirm as the terminal answers for each flagged box. A sheet
    with empty boxes is not scored without --confirm (paperplay score never sees an empty box)."""
    from paperplay.files import write_atomic
    from paperplay.scan.pipeline import blank_message

    cells = read.cells
    if not confirm:
        if read.empty:
            raise InputError(f"{photo}: {blank_message(read.empty)}")
        return cells
    crops: list[Path] = []  # the boxes' images shown while asking, removed if no answer comes
    try:
        for number in read.flagged:
            crop_path = out / f"{photo.stem}-box{number:02d}.png"
            if crop_path.exists() or crop_path.is_symlink():  # not a sheet file: --force does not apply
                raise InputError(f"{crop_path}: already exists, and --confirm shows box {number}'s image under that "
                                 "name (and removes it); move the file, or give another --out folder")
            write_atomic(crop_path, read.crops[number - 1], False, SCAN_HINT)
            crops.append(crop_path)
            cells[number - 1] = _ask(photo, number, read.boxes[number - 1], crop_path, err)
    finally:  # the check page holds every box's image; these were only for asking
        for crop in crops:
            crop.unlink(missing_ok=True)
    return cells


def _said(photo: Path, read: PhotoSheet, player: str, sheet_path: Path, page_path: Path,
          flagged: list[int]) -> str:
    """The line `scan` prints for a photo read."""
    notes = "; ".join(f"box {n}: {read.boxes[n - 1]['why']}" for n in flagged)
    if read.qr_read:
        what = f"sheet {read.sheet} (game {display_code(read.code)})"
    else:  # placed by its corner marks; the game and the player named from what was given
        game = f"game {display_code(read.code)} from --seed" if read.code else "the game of the --draw given"
        what = f"QR code unreadable: read as {game}, player {printable(player)!r} (the photo's name)"
    return (f"{printable(str(photo))}: {what} -> {printable(str(sheet_path))}; "
            f"{len(flagged)} box{'es' if len(flagged) != 1 else ''} to check"
            + (f" ({notes}); see {page_path}" if flagged else ""))


def _scan_json(photo: Path, read: PhotoSheet, player: str, cells: list[Any], paths: tuple[Path, Path],
               confirm: bool) -> dict[str, Any]:
    flagged = [] if confirm else read.flagged
    return {"photo": str(photo), "sheet": read.sheet or None, "player": player, "qr_read": read.qr_read,
            "code": display_code(read.code) if read.code else None,
            "file": str(paths[0]), "check_page": str(paths[1]), "confirmed": confirm,
            "boxes": [{"box": n, "free": b["free"], "free_p": b["free_p"], "matched": b["matched"],
                       "matched_p": b["matched_p"], "flagged": b["flagged"], "value": v}
                      for n, (b, v) in enumerate(zip(read.boxes, cells), start=1)],
            "flagged": flagged}


def scan(
    photos: Annotated[list[Path], typer.Argument(help="Photos (JPEG, PNG, WebP or HEIC) of scannable Streams "
                                                 "sheets, one sheet each.", show_default=False, click_type=opt.INPUT)],
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
    ranking, as paperplay score prints it. A photo that cannot be read gets one line saying what
    to do, and exit code 2 (unless the file is no picture, the line names OUT/<photo>.check.html:
    the photo with what the reader found drawn on it). The sheet should span at least 2
    pixels a millimetre (a whole page in a 1,280-pixel photo); the photo's EXIF orientation is
    applied.

    Examples:

    \b
      paperplay scan photos/*.jpg --seed 7KQ2-M9XD
      paperplay scan sheet3.jpg --draw "11,3,5,17,27,25,6,4,13,15,16,1,28,15,7,18,23,8,20,24" --confirm
    """
    import json

    from paperplay.files import write_together
    from paperplay.handin import check_page, score_one, sheet_document

    canonical, drawn = _draw_source(seed, draw_list)
    _need_extra()
    outcomes: list[Outcome] = []
    scans: list[dict[str, Any]] = []
    shown: dict[tuple[str, str], Path] = {}  # the photo of each sheet read so far, by game code and sheet
    for photo, sheet_path, page_path in _targets(photos, out, force):
        try:
            read = _read(photo, drawn, canonical, shown)
            cells = _settled(photo, read, confirm, out, as_json)
        except InputError as exc:
            outcomes.append(Outcome(str(photo), error=_refusal_shown(photo, page_path, exc, force)))
            continue
        player = f"sheet {read.sheet}" if read.qr_read else photo.stem
        document = sheet_document(player, cells, read.code, canonical, None if canonical else drawn)
        title = (f"{photo.name}: sheet {read.sheet}, game {display_code(read.code)}" if read.qr_read
                 else f"{photo.name}: {player} (QR code unreadable)")
        write_together([(sheet_path, (json.dumps(document, ensure_ascii=False) + "\n").encode(), SCAN_HINT),
                        (page_path, check_page(title, read, document, sheet_path.stem), SCAN_HINT)], force)
        scans.append(_scan_json(photo, read, player, cells, (sheet_path, page_path), confirm))
        if not as_json:
            typer.echo(_said(photo, read, player, sheet_path, page_path, [] if confirm else read.flagged))
        outcomes.append(score_one(str(sheet_path), document))
    _report(outcomes, scans, as_json, matched=drawn is not None)


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
