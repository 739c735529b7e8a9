"""The scannable Streams score sheet: the classic sheet laid out for `paperplay scan`.

Beside the classic sheet (paperplay.streams.pages, still the default): four corner registration
marks, and each of the 20 train boxes split into two digit halves (tens | units) with a quiet
zone between them, so every handwritten glyph sits where the printed layout says. Its QR code
says ``scan=1`` and the sheet number. `layout()` gives the geometry (in mm) that the scanner
reads back; the page is drawn from the same numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from paperplay.render.model import QR, Circle, Document, Item, Page, Polygon, Rect, Text, UseForm, paper_size
from paperplay.render.parts import MARGIN, QR_SIZE, qr_payload
from paperplay.seeds import display_code
from paperplay.streams.pages import ACCENT, BOX_HEIGHT, TRAIN_TOP, caller_page, name_text, sheet_form, tiles_page
from paperplay.streams.rules import Tile, standard_rules

SCAN_FORM = "streams-scan-sheet"
MARK = 6.0
"""Side of a corner registration mark (a filled square), in mm."""
MARK_INSET = 6.0
"""Distance of a mark's outer edge from the paper's edge, in mm."""
LOCO = 18.0
SCAN_BOX_TOP = TRAIN_TOP + 3.0
SCAN_BOX_HEIGHT = 16.0
BOX_GAP = 1.0
"""Space between two boxes, mm."""
QUIET = 1.0
"""Quiet zone between the tens and the units half of a box, mm."""
QR_SHIFT = 8.0
"""The QR code sits this far left of the classic place, to keep clear of the bottom-right mark."""


@dataclass(frozen=True)
class Layout:
    """Where things are on a scannable sheet, in mm from the top-left corner of the page."""

    width: float
    height: float
    marks: tuple[tuple[float, float], ...]
    """Centres of the four corner marks: top-left, top-right, bottom-right, bottom-left."""
    qr: tuple[float, float, float]
    """x, y and size of the QR code."""
    cells: tuple[tuple[tuple[float, float, float, float], tuple[float, float, float, float]], ...]
    """For each of the boxes (a sheet file's cells): the (x, y, w, h) of its tens half and of its units half."""
    boxes: tuple[tuple[float, float, float, float], ...]
    """(x, y, w, h) of each whole box outline."""


def layout(paper: str = "a4") -> Layout:
    """The geometry of a scannable sheet on a paper size (landscape)."""
    width, height = paper_size(paper, landscape=True)
    near, far_x, far_y = MARK_INSET + MARK / 2, width - MARK_INSET - MARK / 2, height - MARK_INSET - MARK / 2
    marks = ((near, near), (far_x, near), (far_x, far_y), (near, far_y))
    qr = (width - MARGIN - QR_SIZE - QR_SHIFT, height - MARGIN - QR_SIZE, QR_SIZE)
    boxes_n = standard_rules().boxes
    pitch = (width - 2 * MARGIN - LOCO) / boxes_n
    left = MARGIN + LOCO
    cells = []
    boxes = []
    for i in range(boxes_n):
        x = left + i * pitch + BOX_GAP / 2
        w = pitch - BOX_GAP
        half_w = (w - QUIET) / 2
        boxes.append((x, SCAN_BOX_TOP, w, SCAN_BOX_HEIGHT))
        tens = (x, SCAN_BOX_TOP, half_w, SCAN_BOX_HEIGHT)
        cells.append((tens, (x + half_w + QUIET, SCAN_BOX_TOP, half_w, SCAN_BOX_HEIGHT)))
    return Layout(width, height, marks, qr, tuple(cells), tuple(boxes))


def _in_train_band(item: Item) -> bool:
    """Items of the classic form that draw the train (replaced on the scannable sheet)."""
    top, bottom = TRAIN_TOP - 8, TRAIN_TOP + BOX_HEIGHT + 6
    if isinstance(item, Polygon):
        return all(top <= y <= bottom for _, y in item.points)
    if isinstance(item, (Rect, Circle, Text)):
        return top <= item.y <= bottom
    return False


def _small_loco(x: float, y: float) -> list[Item]:
    base = y + 12
    return [
        Polygon(((x, base), (x, y + 4), (x + 6, y + 4), (x + 6, y), (x + 11, y), (x + 11, y + 6),
                 (x + 15, y + 6), (x + 15, base)), stroke=0.8, fill="#dbe7f5", color=ACCENT),
        Circle(x + 4, base + 2, 2, stroke=0.6, fill=ACCENT, color=ACCENT),
        Circle(x + 12, base + 2, 2, stroke=0.6, fill=ACCENT, color=ACCENT),
    ]


def scan_form(paper: str, code: str) -> tuple[Item, ...]:
    """The shared form of a game's scannable sheets: the classic form with the train redrawn."""
    rules = standard_rules()
    geo = layout(paper)
    classic = sheet_form(geo.width, geo.height, code, rules)
    items: list[Item] = [item for item in classic if not _in_train_band(item)
                         and not (isinstance(item, Text) and item.text.startswith(("Game ", "paperplay ·")))]
    items.append(Text(MARGIN + MARK + 2, geo.height - MARGIN, "paperplay · Streams score sheet (scannable)", size=7,
                      color="#777777"))
    for cx, cy in geo.marks:
        items.append(Rect(cx - MARK / 2, cy - MARK / 2, MARK, MARK, stroke=0, fill="#000000"))
    items += _small_loco(MARGIN, SCAN_BOX_TOP + 2)
    for i, ((tx, ty, tw, th), (ux, _, uw, _)) in enumerate(geo.cells):
        bx, by, bw, bh = geo.boxes[i]
        items.append(Rect(bx, by, bw, bh, stroke=1.0, fill="#ffffff", color=ACCENT, radius=1.0))
        # The quiet zone between tens and units: a pale band, so the two digits stay apart.
        items.append(Rect(tx + tw, by + 0.6, ux - tx - tw, bh - 1.2, stroke=0, fill="#dde6f2"))
        items.append(Text(bx + bw / 2, by - 1.2, str(i + 1), size=7, align="center", color="#555555"))
        items.append(Circle(bx + bw / 2, by + bh + 3.0, 1.5, stroke=0.5, fill=ACCENT, color=ACCENT))
    hint_y = SCAN_BOX_TOP + SCAN_BOX_HEIGHT + 9.5
    items.append(Text(MARGIN + LOCO, hint_y, "One digit per cell: 7 goes in the right-hand cell, 23 as 2 | 3, "
                      "the wild as a star. Keep digits inside their cell. This sheet can be read from a photo "
                      "(paperplay scan).", size=7, color="#333333"))
    qx, qy, qs = geo.qr
    items.append(Text(qx - 3, qy + qs - 6, f"Game {display_code(code)}", size=11, bold=True, align="right"))
    return tuple(items)


def scan_pages(code: str, players: int, names: Sequence[str] = (), paper: str = "a4"
               ) -> tuple[dict[str, tuple[Item, ...]], list[Page]]:
    """Returns the shared form and one scannable page per player."""
    geo = layout(paper)
    forms = {SCAN_FORM: scan_form(paper, code)}
    qx, qy, qs = geo.qr
    pages = []
    for n in range(1, players + 1):
        payload = qr_payload("streams", code=code, sheet=f"{n}/{players}", scan="1")
        items: list[Item] = [UseForm(SCAN_FORM)]
        if n <= len(names) and names[n - 1]:
            items.append(name_text(geo.width, names[n - 1]))
        items.append(Text(qx - 3, qy + qs - 1, f"sheet {n} of {players}", size=9, align="right"))
        items.append(QR(qx, qy, qs, payload))
        pages.append(Page(geo.width, geo.height, tuple(items), role="player", label=f"sheet {n}"))
    return forms, pages


def scan_sheets_document(code: str, players: int, names: Sequence[str] = (), paper: str = "a4") -> Document:
    """Scannable score sheets for a game: one page per player."""
    forms, pages = scan_pages(code, players, names, paper)
    return Document(title=f"Streams score sheets (scannable), game {display_code(code)}", pages=tuple(pages),
                    forms=forms, subject=f"Streams, {players} players, game code {display_code(code)}, scannable")


def scan_kit_document(seed: str, code: str, drawn: Sequence[Tile], players: int, names: Sequence[str] = (),
                      paper: str = "a4") -> Document:
    """The Streams kit with scannable sheets: the caller's sheet, the tiles and the players' sheets."""
    forms, pages = scan_pages(code, players, names, paper)
    all_pages = [caller_page(seed, code, drawn, paper), tiles_page(code, paper), *pages]
    return Document(title=f"Streams kit, game {display_code(code)}", pages=tuple(all_pages), forms=forms,
                    subject=f"Streams kit for {players} players, game code {display_code(code)}, scannable sheets")



def own_sheet_document(code: str, full: str, number: int, name: str = "", paper: str = "a4") -> Document:
    """A player's own scannable sheet, printed from their phone (`paperplay serve`): one page, the sheet number
    `number` (above the MAX_PLAYERS a kit prints, so the two never share a number) and the player's name. Its QR
    code says `sheet=number/MAX_SHEET_NUMBER`, the same for every print of that number (a printed sheet is handed
    in once), with the game's full code `full` where the code stays at 33 modules, else its game code `code`
    (what the server takes as well)."""
    from paperplay.render.pdf import qr_modules
    from paperplay.streams.api import MAX_SHEET_NUMBER

    if not 1 <= number <= MAX_SHEET_NUMBER:
        raise ValueError(f"sheet number {number}; expected 1-{MAX_SHEET_NUMBER}")
    geo = layout(paper)
    qx, qy, qs = geo.qr
    payload = qr_payload("streams", code=full, sheet=f"{number}/{MAX_SHEET_NUMBER}", scan="1")
    if len(qr_modules(payload)) != 33:  # scan reads a version 4 code (paperplay.scan.marks.QR_MODULES)
        payload = qr_payload("streams", code=code, sheet=f"{number}/{MAX_SHEET_NUMBER}", scan="1")
    items: list[Item] = [UseForm(SCAN_FORM)]
    if name:
        items.append(name_text(geo.width, name))
    items.append(Text(qx - 3, qy + qs - 1, f"sheet {number}", size=9, align="right"))
    items.append(QR(qx, qy, qs, payload))
    page = Page(geo.width, geo.height, tuple(items), role="player", label=f"sheet {number}")
    return Document(title=f"Streams score sheet {number} (scannable), game {display_code(code)}", pages=(page,),
                    forms={SCAN_FORM: scan_form(paper, code)},
                    subject=f"Streams, game code {display_code(code)}, sheet {number}, scannable")
