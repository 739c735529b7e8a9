"""Page parts every kit shares: the code-and-QR corner, the calibration ruler, crop marks."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence

from paperplay.i18n import ENGLISH, Translator
from paperplay.render.fit import CROP_TAG, Box, clear_of, fitted, item_box
from paperplay.render.model import MM_PER_INCH, QR, Group, Item, Line, Page, Rect, Text
from paperplay.seeds import qr_text

MARGIN = 10.0
"""Page margin in mm (home printers cannot print closer than about 5 mm)."""

QR_SIZE = 24.0
CROP_GAP = 2.5
"""Distance in mm between a cut line and the start of its crop mark (the bleed reaches 2.5 mm)."""
CROP_MIN = 3.0
"""Shortest crop mark in mm where the page margin leaves room for it ..."""
CROP_ROOM = 1.0
"""... and no mark where the margin leaves less than this."""
BLEED = 2.5
"""How far a coloured component's fill runs past its cut line, in mm."""


def qr_payload(game: str, **fields: str) -> str:
    """Returns a QR payload ``PAPERPLAY/<version> <game> key=value …`` (docs/reference/seeds.md, QR codes):
    version 2 for the full code or seed of a seed of derivation 2, else 1."""
    return qr_text(game, fields)


def code_corner(width: float, height: float, payload: str, lines: Sequence[str]) -> list[Item]:
    """The QR code in the bottom-right corner, with the same facts printed beside it for people."""
    x = width - MARGIN - QR_SIZE
    y = height - MARGIN - QR_SIZE
    items: list[Item] = [QR(x, y, QR_SIZE, payload)]
    for i, line in enumerate(lines):
        items.append(Text(x - 3, y + QR_SIZE - (len(lines) - 1 - i) * 5 - 1, line,
                          size=9 if i else 11, bold=i == 0, align="right"))
    return items


def printing_note(pages: Sequence[Page], t: Translator = ENGLISH) -> list[Item]:
    """Two lines for the foot of a kit's first page saying which pages to print double-sided (from the
    first front to the last back, see Page.side) and that the rest print one-sided: a kit printed whole
    double-sided would put the organiser's seed on the back of the board or one seat's deal behind
    another's. Beside the QR corner's labels, or above the corner when a long seed leaves too little room
    there for 7 pt. Nothing when no page is printed two-sided."""
    numbers = [number for number, page in enumerate(pages, start=1) if page.side]
    if not numbers:
        return []
    if numbers != list(range(numbers[0], numbers[-1] + 1)):
        raise AssertionError(f"the two-sided pages {numbers} are not one run of pages")
    _ = t.gettext
    first = pages[0]
    lines = [_("Printing: pages {first}-{last} double-sided, flipped on the long edge (the cards and their "
               "backs);").format(first=numbers[0], last=numbers[-1]),
             _("all other pages one-sided; all at 100% / actual size.")]
    corner_top = first.height - MARGIN - QR_SIZE
    labels = [box[0] for box in map(item_box, first.items) if box is not None and box[3] > corner_top]

    def size(room: float) -> float:  # one size for both lines
        return min(fitted(Text(0, 0, line, size=8), room).size for line in lines)

    y = first.height - MARGIN - 5
    fits = size(min(labels, default=first.width - MARGIN) - 4 - MARGIN)
    if fits < 7:
        y, fits = corner_top - 8, size(first.width - 2 * MARGIN)
    return [Text(MARGIN, y + 4 * i, line, size=fits) for i, line in enumerate(lines)]


def calibration_ruler(x: float, y: float, narrow: bool = False, t: Translator = ENGLISH,
                      room: float | None = None) -> list[Item]:
    """A 50 mm bar and a 2 in bar with ticks and labels, and the line 'print at 100% / actual size'
    (on two lines when narrow, for a column about 60 mm wide, or when the line is wider than room mm)."""
    from paperplay.render.pdf import text_width

    _ = t.gettext
    one_line = _("Print at 100% / actual size.") + " " + _("Check: the bars below measure")
    if narrow or (room is not None and text_width(one_line, 7) > room):
        items: list[Item] = [Text(x, y - 3.5, _("Print at 100% / actual size."), size=7),
                             Text(x, y, _("Check: the bars below measure"), size=7)]
    else:
        items = [Text(x, y, one_line, size=7)]
    bars = ((50.0, 10.0, "50 mm"), (2 * MM_PER_INCH, MM_PER_INCH / 2, _("2 in")))
    for row, (length, step, label) in enumerate(bars):
        top = y + 2.5 + row * 6
        items.append(Rect(x, top, length, 2.0, stroke=0, fill="#000000"))
        ticks = round(length / step)
        for tick in range(ticks + 1):
            tx = x + tick * step
            items.append(Line(tx, top - 0.8, tx, top + 2.8, width=0.4))
        items.append(Text(x + length + 2, top + 2, label, size=7))
    return items


Cut = tuple[float, float, float, float]
"""A cut line (x1, y1, x2, y2), vertical or horizontal, from its top or left end to its bottom or right end."""
CUT_WIDTH = 0.3
"""The width of a printed cut line (grid_lines), in points."""
MARK_ROOM = CROP_GAP + CROP_MIN + 1.0
"""The room a grid of components needs beside it for its crop marks, 1 mm clear of anything beyond them."""


def grid_cuts(xs: Sequence[float], ys: Sequence[float], count: int | None = None) -> list[Cut]:
    """The cut lines of a grid (columns between xs, rows between ys) filled row by row with count
    components (all its cells by default; the last row may hold fewer): a vertical line runs down to
    the last row with a component beside it, a horizontal one as far as the components above or below
    it reach. Neighbouring components share a cut."""
    cols, rows = len(xs) - 1, len(ys) - 1
    count = cols * rows if count is None else count

    def filled(row: int) -> int:  # the components in a row
        return min(cols, max(0, count - row * cols)) if 0 <= row < rows else 0

    cuts: list[Cut] = []
    for c, x in enumerate(xs):
        low = max((r + 1 for r in range(rows) if filled(r) >= max(c, 1)), default=0)
        if low:
            cuts.append((x, ys[0], x, ys[low]))
    for r, y in enumerate(ys):
        reach = max(filled(r - 1), filled(r))
        if reach:
            cuts.append((xs[0], y, xs[reach], y))
    return cuts


def crop_marks(xs: Sequence[float], ys: Sequence[float], width: float, height: float,
               margin: float = MARGIN / 2, avoid: Sequence[Box] = (), reach: float | None = None,
               count: int | None = None) -> list[Item]:
    """Crop marks for the cut lines of a grid (grid_cuts: xs, ys and count), in one Group tagged "crop":
    one at each end of every cut line, so every cut is marked at both its ends.

    A mark runs on from its cut line's end, from CROP_GAP beyond it (past any bleed) out to the page
    margin (at least CROP_MIN long where it leaves room, never into it), so the first cut along a mark
    removes nothing of a component. A mark stops 1 mm short of any box in avoid (the page's texts,
    other components), so no mark runs through text; with reach, marks are at most that long (where
    other components lie beside the grid). A layout leaves MARK_ROOM beside its grids for them.
    """
    lines: list[Item] = []

    def mark(x: float, y: float, dx: float, dy: float) -> None:
        # From CROP_GAP beyond the end (x, y) of a cut line, in the direction (dx, dy), towards the page edge.
        near = (x + dx * CROP_GAP, y + dy * CROP_GAP)
        limit = (margin if dx < 0 else width - margin) if dx else (margin if dy < 0 else height - margin)
        room = (limit - near[0]) * dx if dx else (limit - near[1]) * dy
        if room < CROP_ROOM:  # the margin leaves no room for a mark (a layout that left no MARK_ROOM)
            return
        length = min(max(room if reach is None else min(room, reach), CROP_MIN), room)
        far = (near[0] + dx * length, near[1] + dy * length)
        line = Line(*min(near, far), *max(near, far), width=0.3)  # drawn down or rightwards
        kept = clear_of(line, avoid, near) if avoid else line
        if kept is not None:
            lines.append(kept)

    for x1, y1, x2, y2 in grid_cuts(xs, ys, count):
        if x1 == x2:
            mark(x1, y1, 0.0, -1.0)
            mark(x2, y2, 0.0, 1.0)
        else:
            mark(x1, y1, -1.0, 0.0)
            mark(x2, y2, 1.0, 0.0)
    return [Group(tuple(lines), tag=CROP_TAG)]


def grid_lines(xs: Sequence[float], ys: Sequence[float], width: float = CUT_WIDTH, color: str = "#808080",
               count: int | None = None) -> list[Item]:
    """The shared cut lines of a grid of components that touch (grid_cuts: xs, ys and count)."""
    return [Line(x1, y1, x2, y2, width=width, color=color) for x1, y1, x2, y2 in grid_cuts(xs, ys, count)]


CARD_W, CARD_H = 63.0, 88.0
"""Poker-size cards, in mm."""


def sheet_grid(width: float, height: float, cols: int = 3, rows: int = 3,
               card_w: float = CARD_W, card_h: float = CARD_H) -> tuple[int, int]:
    """How many columns and rows of cards (at most cols × rows) a sheet holds with MARK_ROOM round the
    grid, less the 1 mm a mark keeps from what lies beyond it, inside the 5 mm margin: room for crop marks
    of CROP_MIN at both ends of every cut line. A4 and A3 hold 3 × 3 poker cards; Letter (279.4 mm) holds
    3 × 2: three rows (264 mm) would leave 7.7 mm above and below, too little for the margin, the bleed
    and a 3 mm mark."""
    room = 2 * (MARGIN / 2 + MARK_ROOM - 1.0)
    return (max(1, min(cols, int((width - room) // card_w))), max(1, min(rows, int((height - room) // card_h))))


def card_grid(width: float, height: float, cols: int = 3, rows: int = 3,
              card_w: float = CARD_W, card_h: float = CARD_H) -> tuple[list[float], list[float]]:
    """Cut lines (xs, ys) of a grid of cards centred on the page; neighbouring cards share a cut."""
    left = (width - cols * card_w) / 2
    top = (height - rows * card_h) / 2
    return [left + i * card_w for i in range(cols + 1)], [top + j * card_h for j in range(rows + 1)]


SIDE_CLEAR = BLEED + 0.4
"""How far side_texts keep from the cards' cut (0.4 mm clear of their bleed)."""


def _em(size: float) -> float:
    return size * 25.4 / 72


def _side_room(xs: Sequence[float], width: float, size: float = 7.0) -> tuple[bool, bool]:
    """Whether side_texts of `size` fit left and right of a grid with cut lines xs, clear of its bleed and
    of the page margin."""
    need = SIDE_CLEAR + _em(size)
    return xs[0] - MARGIN / 2 >= need, width - MARGIN / 2 - xs[-1] >= need


Slot = tuple[float, float]
"""A stretch of a side strip (top, bottom) in mm that holds one side text: a row of cards, or the strip
above or below the grid (whose ends are crossed by crop marks or lie on the page margin)."""
SLOT_CLEAR = 1.0
"""How far a side text keeps from the ends of its slot, in mm."""


def _slots(ys: Sequence[float], height: float) -> list[Slot]:
    """The slots of a grid's side strips, top to bottom: above the grid, its rows, below it."""
    return [(MARGIN / 2, ys[0]), *zip(ys, ys[1:]), (ys[-1], height - MARGIN / 2)]


def _fits_slot(text: str, slot: Slot, size: float = 7.0) -> bool:
    from paperplay.render.pdf import text_width

    return text_width(text, size) + 2 * SLOT_CLEAR <= slot[1] - slot[0]


def _placed(texts: Sequence[str], slots: Sequence[Slot], size: float = 7.0) -> list[str]:
    """A strip's texts, meant one per row of cards (texts[i] for row i), as one per slot: a text for a
    row the grid does not have (Letter's two rows) goes to the lowest free slot it fits in."""
    rows = len(slots) - 2
    kept = ["", *texts[:rows], *[""] * (rows - len(texts[:rows])), ""]
    for text in texts[rows:]:
        if text:
            free = [i for i, slot in enumerate(slots) if not kept[i] and _fits_slot(text, slot, size)]
            if not free:
                raise AssertionError(f"no room beside the cards for the side text {text!r}")
            kept[free[-1]] = text
    return kept


def _arrange_sides(left: Sequence[str], right: Sequence[str], xs: Sequence[float], slots: Sequence[Slot],
                   width: float, qr: tuple[int, float, float] | None = None,
                   size: float = 7.0) -> tuple[list[str], list[str]]:
    """side_texts' texts (one per slot) rearranged: a text on a side with no room for it (a --back-offset
    moved the grid towards it), or one that would run into the QR code in its strip (`qr`: the side, 0
    left or 1 right, and the code's top and bottom), goes to the nearest free slot of its own side, else
    of the other side, where it fits."""
    from paperplay.render.pdf import text_width

    sides = [list(left), list(right)]
    room = _side_room(xs, width, size)

    def fits(text: str, side: int, slot: int) -> bool:
        if not room[side] or not _fits_slot(text, slots[slot], size):
            return False
        if qr is None or qr[0] != side:
            return True
        middle, half = sum(slots[slot]) / 2, text_width(text, size) / 2
        return middle + half < qr[1] - 0.5 or middle - half > qr[2] + 0.5

    for side in (0, 1):
        for row, text in enumerate(sides[side]):
            if not text or fits(text, side, row):
                continue
            spots = [(s, r) for s in (side, 1 - side)
                     for r in sorted(range(len(sides[s])), key=lambda r: abs(r - row))
                     if not sides[s][r] and fits(text, s, r)]
            if spots:
                s, r = spots[0]
                sides[s][r], sides[side][row] = text, ""
    return sides[0], sides[1]


DESCENT = 0.24
"""How far the font's letters reach below the baseline, in em (g, p, commas)."""
MIN_SIDE_SIZE = 5.5
"""The smallest size side_texts shrinks a text to, in points, to fit its strip."""


def _ascent(text: str) -> float:
    """How far a text's letters reach above the baseline, in em: 0.76 (the font's ascenders, as
    fit.item_box reckons), 0.93 (the font's ascent) when a mark sits above a letter (å, Ü, é)."""
    marks = (c for c in unicodedata.normalize("NFD", text) if unicodedata.combining(c))
    return 0.93 if any(0x300 <= ord(c) <= 0x315 for c in marks) else 0.76


def side_texts(xs: Sequence[float], slots: Sequence[Slot], width: float, left: Sequence[str], right: Sequence[str],
               size: float = 7.0) -> list[Item]:
    """Page texts turned to read up the strips beside a grid of cards: one text per slot (_slots: the
    rows of the grid, the strip above and below it), between the crop marks, clear of the cards' bleed;
    the first row's bold. Read upwards, the letters' tops face the page's left edge: on the left their descent is
    next to the bleed, on the right their ascent. Never nearer the paper's edge than half the page
    margin (only a --back-offset of several mm, moving the grid off the page, brings them there): a
    text with marks above its letters (å) reaches higher and is shrunk to its strip when it must."""
    items: list[Item] = []
    for texts, left_side in ((left, True), (right, False)):
        # the strip between half the page margin and the cards' bleed (SIDE_CLEAR from the cut)
        room = xs[0] - SIDE_CLEAR - MARGIN / 2 if left_side else width - MARGIN / 2 - xs[-1] - SIDE_CLEAR
        for row, text in enumerate(texts):
            if not text:
                continue
            up = _ascent(text)
            fits = min(size, max(MIN_SIDE_SIZE, room / ((up + DESCENT) * _em(1))))  # shrunk to the strip
            ascent, descent = up * _em(fits), DESCENT * _em(fits)
            if left_side:
                x = max(xs[0] - SIDE_CLEAR - descent, MARGIN / 2 + ascent)
            else:
                x = min(xs[-1] + SIDE_CLEAR + ascent, width - MARGIN / 2 - descent)
            items.append(Text(x, sum(slots[row]) / 2, text, size=fits, align="center", angle=90, bold=row == 1))
    return items


def card_page_labels(fronts: str, backs: str, game_code: str,
                     t: Translator = ENGLISH) -> Callable[[int, bool], tuple[list[str], list[str]]]:
    """The labels of card_sheets' pages: `fronts` or `backs` (translated texts with {n}, the sheet's
    number) in the left strip, the long-edge flip note on backs, and the game code on the right."""
    _ = t.gettext

    def labels(number: int, is_back: bool) -> tuple[list[str], list[str]]:
        if is_back:
            left = [backs.format(n=number + 1), "",
                    _("print on the back of the fronts {n}, long-edge flip").format(n=number + 1)]
        else:
            left = [fronts.format(n=number + 1)]
        return left, ["", "", _("Game {code}").format(code=game_code)]

    return labels


def _bleed_then_cut(cards: list[tuple[tuple[Item, ...], float, float]], tag: str) -> list[Item]:
    """Cards (items, x, y) laid edge to edge: every card's fills first, bleed and all (tag "bleed"), then
    each card clipped to its cut (tag `tag`). A neighbour's bleed drawn over a card would colour a strip a
    bleed's width inside its cut (a route card's blue along a line card's edge); this way the seam
    between two cards lies on the cut. Texts and QR codes are drawn once, with the cut."""
    bleeds = [(_bleed_part(items), x, y) for items, x, y in cards]
    return [*(Group(part, x, y, tag="bleed") for part, x, y in bleeds if part),
            *(Group(items, x, y, clip=(x, y, CARD_W, CARD_H), tag=tag) for items, x, y in cards)]


def _bleed_part(items: Sequence[Item], dx: float = 0.0, dy: float = 0.0) -> tuple[Item, ...]:
    """What of a card's items paints past its cut (items at dx, dy in card mm), groups kept with what of
    theirs does: the bleed layer. Texts and QR codes never (they are drawn once, with the cut)."""
    kept: list[Item] = []
    for item in items:
        if isinstance(item, Group):
            if item.clip is not None:
                x, y, w, h = item.clip
                if x + dx >= 0 and y + dy >= 0 and x + w + dx <= CARD_W and y + h + dy <= CARD_H:
                    continue  # clipped within the cut
            inner = _bleed_part(item.items, dx + item.dx, dy + item.dy)
            if inner:
                kept.append(Group(inner, item.dx, item.dy, clip=item.clip, tag=item.tag))
        elif not isinstance(item, (Text, QR)):
            box = item_box(item, dx, dy)
            if box is None or box[0] < 0 or box[1] < 0 or box[2] > CARD_W or box[3] > CARD_H:
                kept.append(item)
    return tuple(kept)


def card_sheets(fronts: list[tuple[Item, ...]], backs: Sequence[tuple[Item, ...]], width: float, height: float,
                labels: Callable[[int, bool], tuple[Sequence[str], Sequence[str]]],
                back_offset: tuple[float, float] = (0.0, 0.0), cols: int = 3, rows: int = 3,
                payload: str = "") -> list[tuple[list[Item], bool]]:
    """Lays cards nine to a page (sheet_grid: six on Letter), each front page followed by its backs,
    mirrored for duplex.

    fronts and backs (one per card) hold items in card coordinates (mm from the top-left corner). The back
    of the card in column c is printed in column cols-1-c (long-edge flip), shifted by back_offset
    because duplex printers drift. labels(page_number, is_back) gives the page's texts for the strip
    left of the grid and right of it (one per card row, turned to read upwards; see _placed for a sheet
    with fewer rows); a QR code of payload goes on every page (fronts and backs) above the grid where the
    paper leaves room (A4, Letter), else in the right strip's first row: see _sheet_qr.
    Returns (items, is_back) per page.
    """
    cols, rows = sheet_grid(width, height, cols, rows)
    xs, ys = card_grid(width, height, cols, rows)
    per_page = cols * rows
    pages: list[tuple[list[Item], bool]] = []
    for start in range(0, len(fronts), per_page):
        chunk = fronts[start : start + per_page]
        placed_fronts, placed_backs = [], []
        for i, card in enumerate(chunk):
            r, c = divmod(i, cols)
            placed_fronts.append((card, xs[c], ys[r]))
            placed_backs.append((backs[start + i], xs[cols - 1 - c] + back_offset[0], ys[r] + back_offset[1]))
        front: list[Item] = _bleed_then_cut(placed_fronts, "card")
        back_items: list[Item] = _bleed_then_cut(placed_backs, "back")
        number = start // per_page
        slots = _slots(ys, height)
        left, right = (_placed(texts, slots) for texts in labels(number, False))
        texts = side_texts(xs, slots, width, left, right)
        code = _sheet_qr(xs, ys, width, payload, height) if payload else []
        # Cut lines and marks only round the cards there are (the last sheet may hold a few).
        front += grid_lines(xs, ys, count=len(chunk))
        front += crop_marks(xs, ys, width, height, count=len(chunk))
        pages.append((front + texts + code, False))
        # The backs' texts move with their grid, to stay clear of its bleed; to the other side when the
        # offset leaves no room on theirs (not into the QR code's row when it is in a strip).
        back_xs, back_ys = [x + back_offset[0] for x in xs], [y + back_offset[1] for y in ys]
        back_slots = _slots(back_ys, height)
        back_left, back_right = (_placed(texts, back_slots) for texts in labels(number, True))
        back_code = _sheet_qr(back_xs, back_ys, width, payload, height, "left" if back_offset[0] > 0 else "right",
                              above=_qr_above(ys)) if payload else []
        qr = next((i for i in back_code if isinstance(i, QR)), None)
        strip = None if qr is None or _qr_above(ys) else (int(qr.x > width / 2), qr.y, qr.y + qr.size)
        back_left, back_right = _arrange_sides(back_left, back_right, back_xs, back_slots, width, strip)
        pages.append((back_items + side_texts(back_xs, back_slots, width, back_left, back_right) + back_code, True))
    return pages


CARD_SHEET_QR = 8.0
"""The card pages' QR code, in mm (a page code of about 45 characters: 29 modules of 0.28 mm)."""


def _qr_above(ys: Sequence[float]) -> bool:
    """Whether _sheet_qr puts the code above the grid (A4, Letter), not in the right-hand strip (a grid
    nearly as tall as the page: three rows of cards on Letter did not leave room)."""
    return ys[0] - BLEED - 1.0 - MARGIN / 2 >= CARD_SHEET_QR


def _sheet_qr(xs: Sequence[float], ys: Sequence[float], width: float, payload: str, height: float,
              side: str = "right", above: bool | None = None) -> list[Item]:
    """card_sheets' QR code, the same on fronts and backs, on a white square (its quiet zone): in the top
    margin between the crop marks of the first two columns, 1 mm clear of the cards' bleed, where the
    paper leaves room (A4, Letter); else in the first row of the right-hand strip (or the left-hand one,
    `side`, on backs moved right by --back-offset), as close to the page margin as it goes, its square
    covering the bleed there no nearer than 0.6 mm to the cut. `above` says which of the two the page
    takes (default: from ys; the backs follow their fronts' page). On A4 backs that --back-offset moved
    up so far that the code no longer fits above them, it goes below them."""
    margin = MARGIN / 2
    quiet = 0.6
    if _qr_above(ys) if above is None else above:
        # On a white square too: --back-offset may move the backs' bleed under its quiet zone.
        x = xs[0] + (xs[1] - xs[0]) / 2 - CARD_SHEET_QR / 2
        if ys[0] - BLEED - 1.0 - margin < CARD_SHEET_QR <= height - margin - (ys[-1] + BLEED + 1.0):
            y = height - margin - CARD_SHEET_QR
            return [Rect(x - quiet, y - quiet, CARD_SHEET_QR + 2 * quiet, CARD_SHEET_QR + quiet, stroke=0,
                         fill="#ffffff"), QR(x, y, CARD_SHEET_QR, payload)]
        return [Rect(x - quiet, margin, CARD_SHEET_QR + 2 * quiet, CARD_SHEET_QR + quiet, stroke=0, fill="#ffffff"),
                QR(x, margin, CARD_SHEET_QR, payload)]
    if side == "left":
        size = min(CARD_SHEET_QR, xs[0] - 2 * quiet - margin)
        return [Rect(margin, ys[0] + 4 - quiet, size + quiet, size + 2 * quiet, stroke=0, fill="#ffffff"),
                QR(margin, ys[0] + 4, size, payload)]
    size = min(CARD_SHEET_QR, width - margin - (xs[-1] + 2 * quiet))
    x = width - margin - size
    # the white square stops at the page margin: the paper beyond it is white anyway
    return [Rect(x - quiet, ys[0] + 4 - quiet, size + quiet, size + 2 * quiet, stroke=0, fill="#ffffff"),
            QR(x, ys[0] + 4, size, payload)]


MAP_CELL = 4.0
"""A page map's cell, in mm."""


def page_map(x: float, y: float, rows: int, cols: int, here: tuple[int, int]) -> list[Item]:
    """A poster's page map: a small grid of its sheets, this one (`here`: row, column) filled."""
    return [Rect(x + c * MAP_CELL, y + r * MAP_CELL, MAP_CELL, MAP_CELL, stroke=0.4,
                 fill="#333333" if (r, c) == here else None) for r in range(rows) for c in range(cols)]


def poster_pages(items: tuple[Item, ...], total_w: float, total_h: float, width: float, height: float,
                 overlap: float = 8.0, margin: float = MARGIN, payload: str = "",
                 t: Translator = ENGLISH) -> list[tuple[list[Item], str]]:
    """Splits a drawing larger than the sheet over pages that overlap by about `overlap` mm.

    Each page shows its part of the drawing clipped to the printable area, alignment marks
    (crosses) where the next page's part begins, and a page map naming its row and column.
    Returns (items, label) per page, reading order.
    """
    area_w, area_h = width - 2 * margin, height - 2 * margin - 12  # room for the page map below
    step_w, step_h = area_w - overlap, area_h - overlap
    cols = max(1, -(-int((total_w - overlap) * 1000) // int(step_w * 1000)))
    rows = max(1, -(-int((total_h - overlap) * 1000) // int(step_h * 1000)))
    pages: list[tuple[list[Item], str]] = []
    for r in range(rows):
        for c in range(cols):
            ox, oy = c * step_w, r * step_h
            page: list[Item] = [Group(items, margin - ox, margin - oy, clip=(margin, margin, area_w, area_h))]
            page.append(Rect(margin, margin, area_w, area_h, stroke=0.25, color="#999999"))
            # Alignment marks: crosses at the overlap's edges, matched on the neighbouring page.
            for mx in ([margin + overlap / 2] if c > 0 else []) + (
                [margin + area_w - overlap / 2] if c < cols - 1 else []
            ):
                for my in (margin + area_h * 0.25, margin + area_h * 0.75):
                    page += [Line(mx - 3, my, mx + 3, my, width=0.5, color="#d00000"),
                             Line(mx, my - 3, mx, my + 3, width=0.5, color="#d00000")]
            for my in ([margin + overlap / 2] if r > 0 else []) + (
                [margin + area_h - overlap / 2] if r < rows - 1 else []
            ):
                for mx in (margin + area_w * 0.25, margin + area_w * 0.75):
                    page += [Line(mx - 3, my, mx + 3, my, width=0.5, color="#d00000"),
                             Line(mx, my - 3, mx, my + 3, width=0.5, color="#d00000")]
            map_y = height - margin - 9
            page += page_map(margin, map_y, rows, cols, (r, c))
            label = f"row {r + 1} of {rows}, column {c + 1} of {cols}"
            printed = t.gettext("Poster page row {row} of {rows}, column {col} of {cols}.").format(
                row=r + 1, rows=rows, col=c + 1, cols=cols)
            # The page laid on top must lose its margin there, or its margin and this line would cover the board.
            how = t.gettext("Trim the margin where a page meets its left or upper neighbour, lay it on top with the "
                            "red crosses matched, then tape.")
            page += [Text(margin + cols * MAP_CELL + 3, map_y + 2, printed, size=7),
                     Text(margin + cols * MAP_CELL + 3, map_y + 5.5, how, size=7)]
            if payload:
                page.append(QR(width - margin - 10, height - margin - 10.5, 10, f"{payload} part={r + 1}.{c + 1}"))
            pages.append((page, label))
    return pages


RULE_INDENT = 4.0
"""How far text_lines indents a line that carries on the rule above it (written with leading spaces)."""


def text_lines(lines: Sequence[str], accent: str, x: float = MARGIN, y: float = MARGIN + 10,
               t: Translator = ENGLISH) -> list[Item]:
    """A titled block of text (the first line is the title), then the ruler: a line every 6 mm, one that
    carries on the rule above it (it starts with spaces in the text) indented and 4.8 mm below it, so
    each rule reads as one."""
    items: list[Item] = []
    at = y
    for i, line in enumerate(lines):
        carries_on = i > 0 and line[:1].isspace() and line.strip() != ""
        if i:
            at += 4.8 if carries_on else 6
        items.append(Text(x + (RULE_INDENT if carries_on else 0), at, line.strip(), size=13 if i == 0 else 8.5,
                          bold=i == 0, color=accent if i == 0 else "#000000"))
    return items + calibration_ruler(x, at + 12, t=t)
