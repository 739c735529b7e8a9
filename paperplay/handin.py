"""Handing in a Streams sheet: one path from a photo or typed boxes to a sheet, its flags and its score.

`paperplay scan`, `paperplay score` and the game night server (`paperplay serve`) all go through here,
so a guard added once holds everywhere:

- A box with nothing written is empty (None): it is never filled from the draw.
- A photo with no number written on it is refused (code `sheet_blank`).
- A sheet with empty boxes is incomplete: it is never scored (`score` refuses it, naming the boxes).
- Each box's flag is worked out from what is stored whenever it is shown (`flags`): never stale.

What it makes, each in one place: a box's JSON (`box_json`), a box's image (`box_png`), the sheet
document that `paperplay score` reads (`sheet_document`), the scores of several sheets (`score`).
The check page of a photo (paperplay.html.checkpage) is made from a PhotoSheet.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paperplay.errors import InputError
from paperplay.referee import Outcome
from paperplay.seeds import display_code, written_code
from paperplay.streams.rules import WILD, StreamsRules, Tile, tile_json

EMPTY = "nothing written in this box yet; type what it holds"
"""Why an empty box is flagged."""
BLANK_SHEET = "no numbers are written on this sheet yet; fill in the boxes, then hand it in"
CORRECTED = "corrected by hand"
"""The reason older databases stored for a box a player changed (now its "corrected" field)."""


class Refused(InputError):
    """A hand-in that cannot be taken: one line, and a stable code (`sheet_blank`, `bad_photo`, or the
    reader's own) the server answers with."""

    def __init__(self, code: str, message: str, status: int = 400, reading: Exception | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.status = status
        self.reading = reading
        """The photo reader's own refusal, when it refused (paperplay.scan.refusal.ScanRefusal: how to
        retake the photo, and what was found on it)."""


@dataclass
class PhotoSheet:
    """A photo read as a sheet: the game and sheet its QR code names ("" when it could not be read), each
    box's JSON (box_json: value None when nothing is written) and image (PNG)."""

    code: str
    sheet: str
    qr_read: bool
    boxes: list[dict[str, Any]]
    crops: list[bytes] = field(repr=False)
    matched: bool
    """Whether the readings were matched to a draw."""

    @property
    def empty(self) -> list[int]:
        return [n for n, box in enumerate(self.boxes, start=1) if box["value"] is None]

    @property
    def flagged(self) -> list[int]:
        return [n for n, box in enumerate(self.boxes, start=1) if box["flagged"]]

    @property
    def cells(self) -> list[Any]:
        return [box["value"] for box in self.boxes]


# --- boxes -------------------------------------------------------------------------------------------

def box_png(crop: Any) -> bytes:
    """A box's image (an array from the reader) as PNG bytes (b"" when it cannot be encoded)."""
    import cv2

    ok, data = cv2.imencode(".png", crop)
    return data.tobytes() if ok else b""


def _candidates(reading: Any, probs: Any, most: int = 4) -> list[Any]:
    """What a box may hold, likeliest first: the draw's fit, the free reading, then the other values its
    cells make likely (1 % or more), at most `most`."""
    from paperplay.scan.match import VALUES

    out = [v for v in (reading.matched, reading.free) if v is not None]
    if probs is not None:
        row = probs[reading.box - 1]
        for i in sorted(range(len(VALUES)), key=lambda i: -row[i]):
            if len(out) >= most or row[i] < 0.01:
                break
            out.append(VALUES[i])
    return [tile_json(v) for v in dict.fromkeys(out)][:most]


def box_json(reading: Any, empty: bool = False, probs: Any = None) -> dict[str, Any]:
    """A photographed box as the sheet documents, the server and `scan --json` write it: its value (None
    when nothing is written), its flag and why, and the readings (free, matched and their probabilities)
    with the values to offer (candidates)."""
    return {"value": None if empty else tile_json(reading.value),
            "flagged": bool(reading.flagged or empty),
            "why": EMPTY if empty else (reading.why if reading.flagged else None),
            "free": tile_json(reading.free), "free_p": round(float(reading.free_p), 4),
            "matched": None if reading.matched is None else tile_json(reading.matched),
            "matched_p": None if reading.matched_p is None else round(float(reading.matched_p), 4),
            "candidates": [] if empty else _candidates(reading, probs)}


def typed_boxes(cells: Sequence[Tile | None]) -> list[dict[str, Any]]:
    """Typed boxes as stored (their flags are worked out when shown: `flags`)."""
    return [{"value": None if tile is None else tile_json(tile), "flagged": False, "why": None} for tile in cells]


def flags(boxes: Sequence[dict[str, Any]], kind: str, drawn: Sequence[Tile] | None) -> list[dict[str, Any]]:
    """Each box with its flag worked out now from what is stored (never a flag computed earlier):

    - an empty box is flagged (EMPTY);
    - a box someone changed by hand is settled (not flagged), and says who changed it ("corrected");
    - a photographed box keeps the reader's flag;
    - a typed box is flagged when its number was not drawn, or is written more often than drawn (with
      `drawn` None, nothing is known to check against)."""
    left = Counter(drawn or ())
    out = []
    for box in boxes:
        view = dict(box)
        corrected = box.get("corrected") or ("player" if box.get("why") == CORRECTED else None)
        view["corrected"] = corrected
        value = box["value"]
        tile = None if value is None else (WILD if value == "*" else value)
        if value is None:
            view.update(flagged=True, why=EMPTY)
        elif corrected:
            view.update(flagged=False, why=None)
        elif kind == "photo":
            view.update(flagged=bool(box.get("flagged")), why=box.get("why") if box.get("flagged") else None)
        else:
            view.update(flagged=False, why=None)
        if tile is not None and drawn is not None:
            if left[tile] > 0:
                left[tile] -= 1
            elif not corrected and kind != "photo":
                count = list(drawn).count(tile)
                why = (f"{tile_json(tile)} is written more often than it was drawn ({count})" if count else
                       f"{'the wild' if tile == WILD else tile_json(tile)} has not been called")
                view.update(flagged=True, why=why)
        out.append(view)
    return out


def corrected(boxes: Sequence[dict[str, Any]], changes: dict[int, Tile], by: str) -> list[dict[str, Any]]:
    """The boxes with the changes made (box number -> tile): each box named is set, settled and marked as
    changed `by` ("player" or "host"); a photo's readings are kept."""
    out = [dict(box) for box in boxes]
    for number, tile in changes.items():
        box = out[number - 1]
        if box["value"] != tile_json(tile) or box.get("flagged") or box["value"] is None:
            box.update(value=tile_json(tile), flagged=False, why=None, corrected=by)
    return out


# --- photos ------------------------------------------------------------------------------------------

def read_photo_sheet(photo: Path, drawn: Sequence[Tile] | None, gray: Any = None) -> PhotoSheet:
    """Reads a photo of a scannable sheet into a PhotoSheet, matched to `drawn` when given. Refused (one
    line and a code) when it cannot be read, or when no number is written on it (`sheet_blank`); boxes
    with nothing written stay empty and flagged."""
    from paperplay.scan.pipeline import read_photo
    from paperplay.scan.reader import ScanError

    try:
        scan = read_photo(photo, drawn, gray=gray)
    except ScanError as exc:  # a refusal's own code passes through (its line says what to do)
        raise Refused(str(getattr(exc, "code", None) or "bad_photo"), str(exc), reading=exc) from None
    return from_scan(scan, drawn is not None)


def from_scan(scan: Any, matched: bool) -> PhotoSheet:
    """A reader's Scan as a PhotoSheet; refused (`sheet_blank`) when no number is written on the sheet: every
    box empty, or all but a stray mark or two that the reader doubts."""
    blank = set(scan.blank)
    sure = [reading for reading in scan.boxes if reading.box not in blank and not reading.flagged]
    if not sure and len(blank) * 2 >= len(scan.boxes):
        raise Refused("sheet_blank", BLANK_SHEET)
    boxes = [box_json(reading, reading.box in blank, scan.probs) for reading in scan.boxes]
    return PhotoSheet(scan.code, scan.sheet, scan.qr_read, boxes, [box_png(c) for c in scan.crops], matched)


def check_photo_game(sheet: PhotoSheet, code: str, place: str = "photo") -> None:
    """A photo handed in to game `code` (its full code, seeds.full_code) must show that game's sheet
    (refused `wrong_game`); a photo whose QR code could not be read is taken as that game's sheet, and so
    is one whose QR code holds the game code alone (the full code's first 8 characters: a sheet printed
    before full codes)."""
    if sheet.qr_read and sheet.code and sheet.code not in (code, code[:8]):
        raise Refused("wrong_game", f"{place}: shows a sheet of game {display_code(sheet.code)}; this is game "
                                    f"{display_code(code)}")
    sheet.code = code


# --- sheet documents and scores ----------------------------------------------------------------------

def sheet_document(player: str, cells: Sequence[Any], code: str | None = None, seed: str | None = None,
                   draw: Sequence[Tile] | None = None, variant: str | None = None) -> dict[str, Any]:
    """The sheet as a streams-sheet file (what `paperplay score` reads); cells as sheet files write them."""
    document: dict[str, Any] = {"game": "streams"}
    if code:
        document["code"] = written_code(code)  # a full code as it is, for score to hold the seed to it
    document["player"] = player
    if seed is not None:
        document["seed"] = display_code(seed)
    elif draw is not None:
        document["draw"] = [tile_json(t) for t in draw]
    if variant is not None:
        document["variant"] = variant
    document["cells"] = [c if c is None or isinstance(c, (int, str)) else tile_json(c) for c in cells]
    return document


def check_complete(cells: Sequence[Any], source: str) -> None:
    """Refuses a sheet with empty boxes (None): `incomplete`, naming them; a sheet is scored only whole."""
    empty = [n for n, value in enumerate(cells, start=1) if value is None]
    if empty:
        from paperplay.messages import counted

        one = len(empty) == 1
        raise Refused("incomplete", f"{source}: {counted(len(empty), 'box', 'boxes')} ({', '.join(map(str, empty))}) "
                                    f"{'is' if one else 'are'} empty; type what {'it holds' if one else 'they hold'} "
                                    "first", 409)


@dataclass(frozen=True)
class Scored:
    """The sheets scored: each one's outcome, and the ranking of the valid ones (as `paperplay score
    --json` prints them)."""

    outcomes: list[Outcome]
    ranking: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {"results": [o.to_json() for o in self.outcomes], "ranking": self.ranking}


def referee_document(document: Any, source: str, rules: StreamsRules | None = None, seed: str | None = None,
                     drawn: Sequence[Tile] | None = None, checked: bool = False) -> Any:
    """One sheet document (parsed JSON) refereed: its SheetResult. An InputError when it cannot be used, an
    incomplete sheet (an empty box) among them: a sheet is scored only whole."""
    from paperplay.streams.referee import referee, sheet_from_json

    cells = document.get("cells") if isinstance(document, dict) else None
    if isinstance(cells, list):
        check_complete(cells, source)
    return referee(sheet_from_json(document, source, rules, checked), seed, drawn)


def score_one(source: str, document: dict[str, Any], rules: StreamsRules | None = None,
              seed: str | None = None, drawn: Sequence[Tile] | None = None, checked: bool = False) -> Outcome:
    """One sheet document refereed (its error kept as the outcome's when it cannot be used; `checked`: a
    document paperplay made from checked boxes, whose schema is not checked again)."""
    try:
        return Outcome(source, referee_document(document, source, rules, seed, drawn, checked), game="streams")
    except InputError as exc:
        return Outcome(source, error=exc)


def score(documents: Sequence[tuple[str, dict[str, Any]]], rules: StreamsRules | None = None) -> Scored:
    """Sheet documents (source, document) refereed and ranked."""
    from paperplay.streams.referee import ranking

    outcomes = [score_one(source, document, rules) for source, document in documents]
    return Scored(outcomes, ranking(o.to_json() for o in outcomes if o.verdict is not None))


# --- the check page ------------------------------------------------------------------------------------

def _shown(value: Any) -> str:
    """A box's value in the page: the number, or the wild as a star."""
    from paperplay.html.page import star_svg

    return star_svg("wild") if value == "*" else str(value)


def refusal_page(title: str, line: str, hint: str, overlay: bytes | None) -> bytes:
    """The check page of a photo that was not read: why, what to do, and the photo with what the reader found
    drawn on it (paperplay.scan.overlay: yellow rings on the marks, the outline tried in red)."""
    import base64

    from paperplay.html.page import asset, document as page, text

    picture = ("" if overlay is None else
               f'<figure class="found"><img src="data:image/png;base64,{base64.b64encode(overlay).decode()}" '
               'alt="the photo, with the corner marks found ringed in yellow and the place tried for the sheet in '
               'red"><figcaption>What the reader found: the corner marks in yellow rings; the sheet\'s place, '
               'where one was tried, in red.</figcaption></figure>')
    body = (f"<main><h1>{text(title)}</h1><p>This photo was not read: {text(line)}</p>"
            f"<p><strong>{text(hint)}</strong></p>{picture}</main>")
    return page(title, asset("base.css") + asset("check.css"), body, images=True)


def check_page(title: str, sheet: PhotoSheet, document: dict[str, Any], name: str = "sheet") -> bytes:
    """An HTML page with every box's image, its reading and its flag, to check by eye (any screen width,
    light or dark; only the page's own style, script and images may load). A flagged box offers its
    candidates, one click each (or a typed value); the corrected sheet is saved as NAME.json, or copied
    as a `paperplay score --cells` line. `document` is the sheet document (its cells: what is shown)."""
    import base64

    from paperplay.html.page import STAR_SYMBOL, asset, document as page, star_svg, text

    items = []
    for number, (box, png, value) in enumerate(zip(sheet.boxes, sheet.crops, document["cells"]), start=1):
        src = "data:image/png;base64," + base64.b64encode(png).decode()
        sure = box["matched_p"] if box["matched_p"] is not None else box["free_p"]
        note = ("check: " + text(box["why"] or "")) if box["flagged"] else f"{sure:.0%} sure"
        pick = ""
        if box["flagged"]:
            buttons = "".join(f'<button type="button" data-v="{text(str(v))}" aria-pressed="false" '
                              f'aria-label="box {number} holds {"the wild" if v == "*" else v}">{_shown(v)}</button>'
                              for v in box["candidates"])
            pick = (f'<div class="pick">{buttons}<input aria-label="box {number} holds (1-30 or *)" '
                    'placeholder="…" maxlength="2" inputmode="text"></div>')
        flag = f' class="flag" data-box="{number}"' if box["flagged"] else ""
        shown = "" if value is None else _shown(value)
        items.append(f'<li{flag}><img src="{src}" alt="box {number} as photographed">'
                     f'<b>{number}: <span class="v">{shown}</span></b><small>{note}</small>{pick}</li>')
    flagged = len(sheet.flagged)
    check = (f"{flagged} flagged box{'es are' if flagged != 1 else ' is'} outlined in red: check "
             f"{'them' if flagged != 1 else 'it'} against the photo, and pick what the box holds." if flagged
             else "No box is flagged.")
    body = (f"{STAR_SYMBOL}<template id=\"wild\">{star_svg('wild')}</template>"
            f"<main><h1>{text(title)}</h1><p>Each box as photographed, with what was read. {check}</p><ol>"
            + "".join(items) + "</ol>"
            '<section aria-label="the corrected sheet"><p id="left"></p>'
            '<input id="line" readonly aria-label="the sheet as a paperplay score line">'
            f'<div class="acts"><a id="save" download="{text(name)}.json" href="#">Save the sheet ({text(name)}.json)'
            '</a><button type="button" id="copy">Copy the score line</button><span id="said" aria-live="polite">'
            "</span></div></section></main>")
    return page(title, asset("base.css") + asset("check.css"), body, script=asset("check.js"),
                data={"sheet": document}, images=True)

