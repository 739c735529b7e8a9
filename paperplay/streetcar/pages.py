"""The Streetcar print-and-play kit as page models: cards, board, tiles, stop signs, deal.

Everything comes from the engine's data files (templates/streetcar/): one source of truth.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from paperplay.i18n import ENGLISH, Translator
from paperplay.render.fit import all_boxes, fitted
from paperplay.render.pdf import text_width
from paperplay.render.model import (
    Arc, Circle, Document, Group, Item, Line, Page, Polygon, Rect, Text, paper_size,
)
from paperplay.render.parts import (
    BLEED,
    CARD_H,
    CARD_W,
    MAP_CELL,
    MARGIN,
    MARK_ROOM,
    QR_SIZE,
    calibration_ruler,
    card_page_labels,
    card_sheets,
    code_corner,
    crop_marks,
    grid_lines,
    page_map,
    printing_note,
    qr_payload,
    text_lines,
)
from paperplay.render.ink import greyscale_page
from paperplay.seeds import display_code
from paperplay.streetcar.data import (
    Board,
    Edge,
    LineStyle,
    TileKind,
    card_sets,
    line_style,
    lines,
    route_cards,
    standard_board,
    starting_hand,
    tile_kinds,
)
from paperplay.streetcar.deal import Seat
from paperplay.streetcar.route import RouteCheck

SQUARE = 21.0
"""Board square and tile size in mm (the whole board then fits an A3 sheet)."""
TRACK = "#4a4a4a"
TILE_FILL = "#f3ecd9"
ACCENT = "#b5651d"


def swatch(x: float, y: float, w: float, h: float, style: LineStyle, ink_saver: bool = False) -> list[Item]:
    """A line's colour and pattern in a rectangle: colour-blind players tell lines apart by the pattern."""
    base = "#ffffff" if ink_saver else style.colour
    ink = style.colour if ink_saver else "#ffffff"
    marks: list[Item] = []
    if style.pattern == "stripes":
        marks = [Line(x + k * 3 - h, y + h, x + k * 3, y, width=1.2, color=ink) for k in range(int((w + h) / 3) + 2)]
    elif style.pattern == "dots":
        marks = [Circle(x + 1.5 + i * 3, y + 1.5 + j * 3, 0.7, stroke=0, fill=ink)
                 for i in range(int(w / 3) + 1) for j in range(int(h / 3) + 1)]
    elif style.pattern == "checks":
        marks = [Rect(x + i * 3, y + j * 3, 1.5, 1.5, stroke=0, fill=ink)
                 for i in range(int(w / 3) + 1) for j in range(int(h / 3) + 1)]
    elif style.pattern == "zigzag":
        marks = [Line(x + i * 2, y + j * 3 + (i % 2) * 1.5, x + i * 2 + 2, y + j * 3 + ((i + 1) % 2) * 1.5,
                      width=0.8, color=ink) for i in range(int(w / 2) + 1) for j in range(int(h / 3) + 1)]
    elif style.pattern == "rings":
        marks = [Circle(x + 2 + i * 4, y + 2 + j * 4, 1.2, stroke=0.6, color=ink)
                 for i in range(int(w / 4) + 1) for j in range(int(h / 4) + 1)]
    return [Rect(x, y, w, h, stroke=0.6, fill=base, color=style.colour),
            Group(tuple(marks), clip=(x, y, w, h)), Rect(x, y, w, h, stroke=0.6, color="#000000")]


_MID = {Edge.N: (0.5, 0.0), Edge.E: (1.0, 0.5), Edge.S: (0.5, 1.0), Edge.W: (0.0, 0.5)}
# For a curve between two neighbouring edges: the corner it bends around and its angles (visual,
# counter-clockwise from east, as the PDF draws them).
_CURVES = {
    frozenset({Edge.N, Edge.E}): ((1.0, 0.0), 180.0),
    frozenset({Edge.E, Edge.S}): ((1.0, 1.0), 90.0),
    frozenset({Edge.S, Edge.W}): ((0.0, 1.0), 0.0),
    frozenset({Edge.W, Edge.N}): ((0.0, 0.0), 270.0),
}


def track_items(pieces: Sequence[frozenset[Edge]], s: float, width: float = 7.0) -> list[Item]:
    """Track pieces in an s × s square: straights as lines, curves as quarter arcs."""
    items: list[Item] = []
    for piece in pieces:
        a, b = sorted(piece)
        if piece in _CURVES:
            (cx, cy), start = _CURVES[piece]
            items.append(Arc(cx * s, cy * s, s / 2, start, 90.0, width=width, color=TRACK))
        else:
            (ax, ay), (bx, by) = _MID[a], _MID[b]
            items.append(Line(ax * s, ay * s, bx * s, by * s, width=width, color=TRACK))
    for piece in pieces:  # a thin centre line shows where each piece runs where pieces cross
        if piece in _CURVES:
            (cx, cy), start = _CURVES[piece]
            items.append(Arc(cx * s, cy * s, s / 2, start, 90.0, width=0.6, color="#ffffff"))
        else:
            a, b = sorted(piece)
            (ax, ay), (bx, by) = _MID[a], _MID[b]
            items.append(Line(ax * s, ay * s, bx * s, by * s, width=0.6, color="#ffffff"))
    return items


def _tree(cx: float, cy: float) -> list[Item]:
    return [Rect(cx - 0.35, cy, 0.7, 1.6, stroke=0, fill="#6b4a2b"),
            Circle(cx, cy - 0.4, 1.6, stroke=0.3, fill="#3a9a3a", color="#1f5f1f")]


def tile_drawing(kind: TileKind, s: float = SQUARE, ink_saver: bool = False) -> tuple[Item, ...]:
    """One tile at rotation 0, from (0, 0): its track pieces, and two trees if it has them."""
    items: list[Item] = [Rect(0, 0, s, s, stroke=0, fill=None if ink_saver else TILE_FILL)]
    items += track_items(kind.pieces, s, width=s * 0.3)
    if kind.trees:
        items += _tree(s * 0.15, s * 0.15) + _tree(s * 0.85, s * 0.85)
    return tuple(items)


def _terminal_stubs(side: Edge, squares: Sequence[tuple[int, int]], ox: float, oy: float, s: float) -> list[Item]:
    """The terminal's track entering each of its two edge squares, as the printed board has it: a tile
    laid there must meet it (rules A-D)."""
    items: list[Item] = []
    dx, dy = {Edge.E: (1, 0), Edge.W: (-1, 0), Edge.S: (0, 1), Edge.N: (0, -1)}[side]
    for r, c in squares:
        cx, cy = ox + (c + 0.5) * s, oy + (r + 0.5) * s
        ex, ey = cx + dx * s / 2, cy + dy * s / 2  # the middle of the square's edge on the terminal's side
        ix, iy = cx + dx * s * 0.12, cy + dy * s * 0.12
        items.append(Line(ex + dx * 1.5, ey + dy * 1.5, ix, iy, width=s * 0.3, color=TRACK))
        items.append(Line(ex + dx * 1.5, ey + dy * 1.5, ix, iy, width=0.6, color="#ffffff", dash=(1.5, 1.2)))
    return items


BAND = 8.0 / 21.0
"""The band round the board's grid, in squares: terminals next to the grid, coordinates outside them."""


def board_origin(s: float = SQUARE) -> float:
    """Where board_drawing puts the top-left corner of square [0, 0], in mm from the drawing's corner."""
    return s * BAND


def board_drawing(board: Board, s: float = SQUARE, ink_saver: bool = False) -> tuple[Item, ...]:
    """The board from (0, 0): grid, locations, terminals with their line numbers and track stubs,
    coordinates. The band round the grid is 8 mm at full size, so the board (268 mm) fits the long
    side of a landscape A4 or Letter sheet."""
    d = board_origin(s)
    bar = s * 0.24  # terminal bars next to the grid; the coordinates sit in the band's outer part
    ox = oy = d
    label = s * 0.22
    outer = d - bar  # the band's strip outside the terminal bars, where the coordinates are centred
    rise = label * 25.4 / 72 * 0.36  # from a digit's middle down to its baseline
    grey = "#888888"
    items: list[Item] = []
    for r in range(board.rows):
        y = oy + (r + 0.5) * s + rise
        items.append(Text(outer / 2, y, str(r), size=label, align="center", color=grey))
        items.append(Text(ox + board.cols * s + bar + outer / 2, y, str(r), size=label, align="center", color=grey))
        for c in range(board.cols):
            items.append(Rect(ox + c * s, oy + r * s, s, s, stroke=0.5, color="#9a9a9a",
                              fill=None if ink_saver else "#ffffff"))
    for c in range(board.cols):
        x = ox + (c + 0.5) * s
        items.append(Text(x, outer / 2 + rise, str(c), size=label, align="center", color=grey))
        items.append(Text(x, oy + board.rows * s + bar + outer / 2 + rise, str(c), size=label, align="center",
                          color=grey))
    for letter, (r, c) in board.locations.items():
        x, y = ox + c * s, oy + r * s
        items.append(Rect(x, y, s, s, stroke=0.8, fill="#ffffff" if ink_saver else "#d9c7a3",
                          color="#000000" if ink_saver else "#5a4a2a"))
        items.append(Text(x + s / 2, y + s * 0.68, letter, size=s * 1.3, bold=True, align="center",
                          color="#000000" if ink_saver else "#3a2a10"))
    for t in board.terminals:
        (r1, c1), (r2, c2) = sorted(t.squares)
        style = line_style(t.line)
        if t.side in (Edge.E, Edge.W):
            x = ox + board.cols * s if t.side is Edge.E else ox - bar
            box = (x, oy + r1 * s + s * 0.2, bar, (r2 - r1 + 1) * s - s * 0.4)
        else:
            y = oy + board.rows * s if t.side is Edge.S else oy - bar
            box = (ox + c1 * s + s * 0.2, y, (c2 - c1 + 1) * s - s * 0.4, bar)
        items += swatch(*box, style, ink_saver)
        items += _terminal_stubs(t.side, t.squares, ox, oy, s)
        cx, cy = box[0] + box[2] / 2, box[1] + box[3] / 2
        items.append(Circle(cx, cy, s * 0.125, stroke=0.6, fill="#ffffff"))
        items.append(Text(cx, cy + s * 0.045, f"{t.line}", size=s * 0.36, bold=True, align="center"))
    return tuple(items)


def board_size(board: Board, s: float = SQUARE) -> tuple[float, float]:
    d = board_origin(s)
    return board.cols * s + 2 * d, board.rows * s + 2 * d


def _corner(code: str, page: str, width: float, height: float, shown: str | None = None,
            t: Translator = ENGLISH) -> list[Item]:
    """The code corner; the QR payload names the page in English (page=...), `shown` is its printed name."""
    payload = qr_payload("streetcar", code=code, page=page.replace(" ", "-"))  # fields are split at spaces
    return code_corner(width, height, payload, [t.gettext("Game {code}").format(code=display_code(code)),
                                                page if shown is None else shown])


def _line_card(line: int, board: Board, ink_saver: bool, t: Translator = ENGLISH) -> tuple[Item, ...]:
    style = line_style(line)
    w, h = CARD_W, CARD_H
    footer = t.gettext("Your terminals are marked on the map.")
    items: list[Item] = [Rect(-2.5, -2.5, w + 5, h + 5, stroke=0, fill=None if ink_saver else "#f7f2e6")]
    items += swatch(4, 4, w - 8, 18, style, ink_saver)
    items += [Rect(w / 2 - 16, 7, 32, 12, stroke=0.6, fill="#ffffff"),
              Text(w / 2, 16, t.gettext("LINE {line}").format(line=line), size=13, bold=True, align="center")]
    cell = 3.6
    left, top = (w - board.cols * cell) / 2, 30
    for r in range(board.rows):
        for c in range(board.cols):
            items.append(Rect(left + c * cell, top + r * cell, cell, cell, stroke=0.2, color="#aaaaaa"))
    for letter, (r, c) in board.locations.items():
        items.append(Rect(left + c * cell, top + r * cell, cell, cell, stroke=0.2, fill="#d9c7a3", color="#aaaaaa"))
        items.append(Text(left + (c + 0.5) * cell, top + (r + 0.8) * cell, letter, size=5, bold=True, align="center"))
    for term in board.terminals_of(line):
        (r1, c1), (r2, c2) = sorted(term.squares)
        if term.side in (Edge.E, Edge.W):
            x = left + board.cols * cell if term.side is Edge.E else left - 3
            box: tuple[float, float, float, float] = (x, top + r1 * cell, 3, (r2 - r1 + 1) * cell)
        else:
            y = top + board.rows * cell if term.side is Edge.S else top - 3
            box = (left + c1 * cell, y, (c2 - c1 + 1) * cell, 3)
        items += swatch(*box, style, ink_saver)
        bx = box[0] + box[2] / 2 + (4 if term.side is Edge.E else -4 if term.side is Edge.W else 0)
        by = box[1] + box[3] / 2 + (4.5 if term.side is Edge.S else -3 if term.side is Edge.N else 1)
        items.append(Text(bx, by, str(term.number), size=6, bold=True, align="center"))
    items.append(Text(w / 2, h - 5, footer, size=6, align="center"))
    return tuple(items)


def _route_card(card_set: int, number: int, ink_saver: bool, t: Translator = ENGLISH) -> tuple[Item, ...]:
    w, h = CARD_W, CARD_H
    _ = t.gettext
    items: list[Item] = [Rect(-2.5, -2.5, w + 5, h + 5, stroke=0, fill=None if ink_saver else "#eef3f7"),
                         Text(w / 2, 10, _("ROUTE CARD {n}").format(n=number), size=11, bold=True, align="center"),
                         Text(w / 2, 15, t.ngettext("{n} stop", "{n} stops", card_set).format(n=card_set), size=8,
                              align="center")]
    for i, stops in enumerate(route_cards(card_set)[number - 1]):
        line = i + 1
        y = 19 + i * 10
        items += swatch(5, y, 9, 8, line_style(line), ink_saver)
        items.append(Text(17, y + 6, _("Line {line}").format(line=line), size=8, bold=True))
        items.append(Text(w - 5, y + 6.2, " - ".join(stops), size=11, bold=True, align="right"))
    items.append(Text(w / 2, h - 4.5, _("Stop at each location's stop sign."), size=6, align="center"))
    return tuple(items)


def _back(label: str, sub: str, ink_saver: bool, t: Translator = ENGLISH) -> tuple[Item, ...]:
    w, h = CARD_W, CARD_H
    fill = "#ffffff" if ink_saver else "#3b4a5a"
    ink = "#3b4a5a" if ink_saver else "#ffffff"
    return (Rect(-2.5, -2.5, w + 5, h + 5, stroke=0, fill=fill),
            Rect(6, 6, w - 12, h - 12, stroke=1, color=ink, radius=3),
            Text(w / 2, h / 2 - 2, t.gettext("STREETCAR"), size=12, bold=True, align="center", color=ink),
            Text(w / 2, h / 2 + 8, label, size=14, bold=True, align="center", color=ink),
            Text(w / 2, h / 2 + 15, sub, size=9, align="center", color=ink))


def card_pages(code: str, paper: str, ink_saver: bool, back_offset: tuple[float, float],
               t: Translator = ENGLISH) -> list[Page]:
    width, height = paper_size(paper)
    board = standard_board()
    _ = t.gettext
    fronts = [_line_card(line, board, ink_saver, t) for line in lines()]
    backs = [_back(_("LINE"), "", ink_saver, t)] * 6
    for card_set in card_sets():
        for number in range(1, len(route_cards(card_set)) + 1):
            fronts.append(_route_card(card_set, number, ink_saver, t))
            backs.append(_back(_("ROUTE"), "(" + t.ngettext("{n} stop", "{n} stops", card_set).format(n=card_set)
                               + ")", ink_saver, t))

    labels = card_page_labels(_("Streetcar cards {n}: fronts"), _("Streetcar cards {n}: backs"),
                              display_code(code), t)
    pages = []
    payload = qr_payload("streetcar", code=code, page="cards")
    for items, is_back in card_sheets(fronts, backs, width, height, labels, back_offset, payload=payload):
        pages.append(Page(width, height, tuple(items), "player", "card backs" if is_back else "cards",
                          "back" if is_back else "front"))
    return pages


def _tile_block(ids: Sequence[str], kinds: dict[str, TileKind], left: float, top: float, cols: int,
                ink_saver: bool) -> tuple[list[Item], list[float], list[float], list[Item]]:
    """Tiles in rows of cols with shared cut lines: (bleed and tiles, cut xs, cut ys, cut lines); the
    last row may hold fewer (crop_marks and grid_lines take len(ids) as their count).

    Behind the tiles, each tile's fill runs BLEED mm past its cut, so an off cut at the block's
    edge shows no white (neighbours cover it inside the block)."""
    bleed: list[Item] = []
    tiles: list[Item] = []
    for i, tile_id in enumerate(ids):
        r, c = divmod(i, cols)
        x, y = left + c * SQUARE, top + r * SQUARE
        if not ink_saver:
            bleed.append(Rect(x - BLEED, y - BLEED, SQUARE + 2 * BLEED, SQUARE + 2 * BLEED, stroke=0, fill=TILE_FILL))
        tiles.append(Group(tile_drawing(kinds[tile_id], SQUARE, ink_saver), x, y, tag=f"tile:{tile_id}"))
    full, rest = divmod(len(ids), cols)
    used = min(cols, len(ids))
    xs = [left + c * SQUARE for c in range(used + 1)]
    ys = [top + r * SQUARE for r in range(full + (1 if rest else 0) + 1)]
    return bleed + tiles, xs, ys, grid_lines(xs, ys, color="#9a9a9a", count=len(ids))


def tile_pages(code: str, paper: str, ink_saver: bool, players: int, t: Translator = ENGLISH) -> list[Page]:
    """Tiles at the board's square size with shared cut lines: first the starting hands, one row
    per seat in play, then every other tile of the 126 (the bag), pages filled edge to edge."""
    width, height = paper_size(paper)
    kinds = {k.id: k for k in tile_kinds()}
    hands = [[tile for tile, n in starting_hand().items() for _ in range(n)] for _ in range(players)]
    rest: list[str] = []
    for kind in tile_kinds():
        rest += [kind.id] * (kind.count - sum(h.count(kind.id) for h in hands))
    cols = int((width - 2 * MARGIN) // SQUARE)
    left = (width - cols * SQUARE) / 2
    top = MARGIN + 14
    bottom = height - MARGIN - QR_SIZE - MARK_ROOM  # the crop marks below stay clear of the QR code
    title_colour = "#000000" if ink_saver else ACCENT
    _ = t.gettext
    pages: list[Page] = []
    first = True
    while first or rest:
        items: list[Item] = []
        texts: list[Item] = []
        cut: list[Item] = []
        blocks: list[tuple[list[float], list[float], list[Item], int]] = []  # cut xs, ys, items, tiles
        y = top
        if first:
            texts.append(Text(MARGIN, MARGIN + 6, _("Streetcar tiles: starting hands, then the bag"), size=14,
                              bold=True, color=title_colour))
            texts.append(Text(MARGIN, MARGIN + 10.5, t.ngettext(
                "One row per seat ({n} player): 3 straights and 2 curves each. All other tiles go into the bag.",
                "One row per seat ({n} players): 3 straights and 2 curves each. All other tiles go into the bag.",
                players).format(n=players), size=7))
            y = max(y, max(box[3] for box in all_boxes(texts)) + MARK_ROOM)  # room for the marks above the tiles
            block, xs, ys, cut_lines = _tile_block([t for hand in hands for t in hand], kinds, left, y, 5, ink_saver)
            items += block
            cut += cut_lines
            blocks.append((xs, ys, block, len(hands) * 5))
            for seat in range(players):
                texts.append(Text(xs[-1] + 5, ys[seat] + SQUARE / 2 + 1.5, _("< seat {n}").format(n=seat + 1), size=9,
                                  bold=True))
            y = ys[-1] + 2 * MARK_ROOM  # room for both blocks' marks between them
        else:
            texts.append(Text(MARGIN, MARGIN + 6, _("Streetcar tiles: the bag"), size=14, bold=True,
                              color=title_colour))
        rows = int((bottom - y) // SQUARE)
        if rows > 0 and rest:
            take, rest = rest[:rows * cols], rest[rows * cols:]
            block, xs, ys, cut_lines = _tile_block(take, kinds, left, y, cols, ink_saver)
            items += block
            cut += cut_lines
            blocks.append((xs, ys, block, len(take)))
        texts += _corner(code, "tiles", width, height, _("tiles"), t)
        for xs, ys, block, count in blocks:
            others = [i for other in blocks if other[2] is not block for i in other[2]]
            cut += crop_marks(xs, ys, width, height, avoid=all_boxes(texts + others), reach=8.0, count=count)
        pages.append(Page(width, height, tuple(items + cut + texts), "player", "tiles"))
        first = False
    return pages


def board_pages(code: str, paper: str, ink_saver: bool, t: Translator = ENGLISH) -> list[Page]:
    """The board whole on A3; on A4 or Letter in two landscape sheets split at a grid line near the
    middle, the top one with a glue strip that the trimmed bottom one covers."""
    board = standard_board()
    drawing = board_drawing(board, SQUARE, ink_saver)
    total_w, total_h = board_size(board)
    title = "#000000" if ink_saver else ACCENT
    _ = t.gettext
    if paper == "a3":
        width, height = paper_size(paper)
        left, top = (width - total_w) / 2, MARGIN + 14
        items: list[Item] = [Text(MARGIN, MARGIN + 8, _("Streetcar board"), size=16, bold=True, color=title),
                             Group(drawing, left, top, tag="board")]
        items += _corner(code, "board", width, height, _("board"), t)
        return [Page(width, height, tuple(items), "player", "board")]
    width, height = paper_size(paper, landscape=True)
    overlap = 8.0
    # The seam: a grid line near the middle that no terminal on the left or right edge spans, so that
    # no terminal's badge is cut in two (the standard board's lie on rows 1-2, 5-6 and 9-10: rows 0-4
    # and 5-11); the middle when every line would cut one.
    spanned = {max(r for r, _ in t.squares) for t in board.terminals if t.side in (Edge.E, Edge.W)}
    seam_row = min((row for row in range(1, board.rows) if row not in spanned),
                   key=lambda row: (abs(row - board.rows / 2), row), default=board.rows // 2)
    seam = board_origin() + seam_row * SQUARE  # a grid line: the bottom sheet is trimmed along it
    left, top = (width - total_w) / 2, MARGIN + 13
    red = "#000000" if ink_saver else "#d00000"
    marks_x = [left + board_origin() + c * SQUARE for c in (2, board.cols // 2, board.cols - 2)]
    pages = []
    for part, (y0, y1) in enumerate(((0.0, seam + overlap), (seam, total_h)), start=1):
        dy = top - y0
        items = [Group(drawing, left, dy, clip=(left, top, total_w, y1 - y0), tag="board")]
        seam_y = seam + dy
        if part == 1:
            # a little past the clip, so that no sliver of what lies under the strip shows at its edge
            items.append(Rect(left, seam_y, total_w, overlap + 0.3, stroke=0, fill="#e6e6e6"))
            items.append(Text(width / 2, seam_y + 5, _("glue strip: sheet 2 covers it"), size=7, align="center",
                              color="#555555"))
            # Triangles pointing down at the seam, matched by sheet 2's pointing up: they meet after gluing.
            items += [Polygon(((x - 2.5, seam_y - 4), (x + 2.5, seam_y - 4), (x, seam_y)), stroke=0, fill=red)
                      for x in marks_x]
            heading = _("Streetcar board, sheet 1 of 2: rows 0-{last} and a glue strip").format(last=seam_row - 1)
            notes = [_("Assembly: trim sheet 2 along its dashed top edge, lay it over the grey glue strip of this "
                       "sheet so the red"), _("triangles meet point to point and the grid lines run on, then glue or "
                                              "tape from behind.")]
        else:
            items.append(Line(MARGIN / 2, seam_y, width - MARGIN / 2, seam_y, width=0.5, dash=(3, 2)))
            items += [Polygon(((x - 2.5, seam_y + 4), (x + 2.5, seam_y + 4), (x, seam_y)), stroke=0, fill=red)
                      for x in marks_x]
            heading = _("Streetcar board, sheet 2 of 2: rows {first}-{last}").format(first=seam_row,
                                                                                    last=board.rows - 1)
            notes = [_("Trim this sheet along the dashed line above the board (its top edge), then lay it over sheet "
                       "1's glue strip"), _("so the red triangles meet point to point.")]
        items.insert(0, Text(MARGIN, MARGIN + 4, heading, size=11, bold=True, color=title))
        note_y = top + (y1 - y0) + 6
        items += page_map(MARGIN, note_y - 3, 2, 1, (part - 1, 0))  # which of the two sheets this is
        items += [Text(MARGIN + MAP_CELL + 3, note_y + i * 4, line, size=7.5) for i, line in enumerate(notes)]
        items += code_corner(width, height, qr_payload("streetcar", code=code, page="board", part=f"{part}"),
                             [_("Game {code}").format(code=display_code(code)),
                              _("board {part} of 2").format(part=part)])
        pages.append(Page(width, height, tuple(items), "player", f"board {part} of 2"))
    return pages


def _octagon(cx: float, cy: float, r: float) -> Polygon:
    import math

    return Polygon(tuple((round(cx + r * math.cos(math.pi / 8 + k * math.pi / 4), 3),
                          round(cy + r * math.sin(math.pi / 8 + k * math.pi / 4), 3)) for k in range(8)),
                   stroke=0.8, fill="#c62828", color="#7a1010")


TOKEN = 18.0
"""Stop signs, streetcars and the speed marker: tokens of this size in mm (they fit a board square)."""


def _stop_token(ink_saver: bool, t: Translator = ENGLISH) -> tuple[Item, ...]:
    c = TOKEN / 2
    sign = _octagon(c, c, TOKEN * 0.42)
    if ink_saver:
        sign = Polygon(sign.points, stroke=1.2, fill=None, color="#000000")
    return (sign, Text(c, c + 1.5, t.gettext("STOP"), size=8, bold=True, align="center",
                       color="#000000" if ink_saver else "#ffffff"))


def _car_token(line: int, ink_saver: bool, t: Translator = ENGLISH) -> tuple[Item, ...]:
    """A streetcar of a line: the line's colour and pattern all over, its number in a white disc and its
    label on a white strip (the pattern would run through it). In colour, the fill and pattern bleed
    BLEED mm past the bottom cut (the cars are the token block's bottom row); the outline stays on the cut."""
    style = line_style(line)
    c = TOKEN / 2
    body = swatch(0, 0, TOKEN, TOKEN, style, ink_saver)
    if not ink_saver:
        bleed = swatch(0, 0, TOKEN, TOKEN + BLEED, style)[:2]  # the fill and pattern, not the outline
        body = [*bleed, *body]
    label = t.gettext("CAR")
    strip = text_width(label, 4.5, True) + 1.6
    return (*body, Circle(c, c, 5.6, stroke=0.8, fill="#ffffff"),
            Text(c, c + 2.2, str(line), size=16, bold=True, align="center"),
            Rect(c - strip / 2, TOKEN - 3.2, strip, 2.4, stroke=0, fill="#ffffff", radius=0.6),
            Text(c, TOKEN - 1.3, label, size=4.5, bold=True, align="center", color="#000000"))


def _speed_marker(t: Translator = ENGLISH) -> tuple[Item, ...]:
    """An arrow that lies under the speed track's number, pointing at it, so the number stays readable."""
    c = TOKEN / 2
    return (Polygon(((c, 2.0), (c + 6, 8.5), (c + 2.5, 8.5), (c + 2.5, 13), (c - 2.5, 13), (c - 2.5, 8.5),
                     (c - 6, 8.5)), stroke=0.8, fill="#ffffff"),
            Text(c, 16.3, t.gettext("SPEED"), size=6, bold=True, align="center"))


def extras_page(code: str, paper: str, ink_saver: bool, t: Translator = ENGLISH) -> Page:
    """The tokens (13 stop signs, the six streetcars, the speed marker) and the speed track."""
    width, height = paper_size(paper)
    _ = t.gettext
    items: list[Item] = [Text(MARGIN, MARGIN + 8, _("Stop signs, streetcars and speed track"), size=16, bold=True,
                              color="#000000" if ink_saver else ACCENT),
                         Text(MARGIN, MARGIN + 15, _("Cut out the tokens along the grey lines: 13 stop signs (12 for "
                              "the locations, 1 spare), one streetcar per line"), size=8),
                         Text(MARGIN, MARGIN + 19, _("(its colour, pattern and number) and the speed marker."), size=8)]
    cols = 10
    left, top = (width - cols * TOKEN) / 2, MARGIN + 28
    tokens: list[tuple[str, tuple[Item, ...]]] = [("stop", _stop_token(ink_saver, t))] * 13
    tokens += [(f"car-{line}", _car_token(line, ink_saver, t)) for line in lines()]
    tokens.append(("speed", _speed_marker(t)))
    for i, (tag, drawing) in enumerate(tokens):
        r, c = divmod(i, cols)
        items.append(Group(drawing, left + c * TOKEN, top + r * TOKEN, tag=f"token:{tag}"))
    xs = [left + c * TOKEN for c in range(cols + 1)]
    ys = [top + r * TOKEN for r in range(3)]
    grid = grid_lines(xs, ys, color="#9a9a9a")
    track = ys[-1] + 22
    notes = [Text(MARGIN, track - 8, _("Speed track: lay the speed marker in the lane under the number of spaces "
                                       "the last streetcar move went."), size=8),
             Text(MARGIN, track - 4, _("The next move may go one more (the first move of the game: 1)."), size=8)]
    items += notes
    box = 11.0
    track_left = (width - 17 * box) / 2
    for n in range(0, 17):
        x = track_left + n * box
        items.append(Rect(x, track, box, box, stroke=0.6, fill=None if ink_saver or n % 2 else "#f3ecd9"))
        items.append(Text(x + box / 2, track + box / 2 + 1.8, str(n), size=10, bold=True, align="center"))
        items.append(Rect(x, track + box, box, 9, stroke=0.3, color="#9a9a9a"))
    items.append(Text(track_left, track + box + 13, _("marker lane: the arrow points at the number"), size=6,
                      color="#555555"))
    items += calibration_ruler(MARGIN, track + 36, t=t)
    items += _corner(code, "extras", width, height, _("extras"), t)
    # Short marks (reach): long ones under the last columns would run down to the speed track and read as
    # cut lines through it.
    marks = crop_marks(xs, ys, width, height, avoid=all_boxes(i for i in items if not isinstance(i, Group)),
                       reach=8.0)
    return Page(width, height, tuple(items + grid + marks), "player", "tokens")


def rules_page(code: str, paper: str, t: Translator = ENGLISH) -> Page:
    width, height = paper_size(paper)
    items = text_lines(t.rules("streetcar"), ACCENT, t=t)
    items += _corner(code, "rules", width, height, t.gettext("rules"), t)
    return Page(width, height, tuple(items), "player", "rules")


def deal_pages(seed: str, code: str, seats: Sequence[Seat], card_set: int, paper: str,
               ink_saver: bool, t: Translator = ENGLISH) -> list[Page]:
    """The organiser's deal master (seed, QR) and the seat slips, each showing only its own seat."""
    width, height = paper_size(paper)
    _ = t.gettext
    stops_text = t.ngettext("{n} stop", "{n} stops", card_set).format(n=card_set)
    master: list[Item] = [
        Text(MARGIN, MARGIN + 9, _("Streetcar · deal master"), size=20, bold=True, color=ACCENT),
        Text(MARGIN, MARGIN + 16, _("For the organiser only: the seed deals every seat's cards and orders the bag."),
             size=9),
        Text(MARGIN, MARGIN + 26, _("Seed {seed}").format(seed=display_code(seed)), size=16, bold=True),
        Text(MARGIN, MARGIN + 33, _("Game code {code}").format(code=display_code(code)) + " · "
             + t.ngettext("{n} player", "{n} players", len(seats)).format(n=len(seats)) + " · "
             + _("{n}-stop route cards").format(n=card_set), size=10),
    ]
    for i, seat in enumerate(seats):
        y = MARGIN + 44 + i * 11
        master += swatch(MARGIN, y, 9, 8, line_style(seat.line), ink_saver)
        master.append(Text(MARGIN + 12, y + 6, _("Seat {seat}: line {line}, route card {card} ({stops}): "
                                                 "{route}").format(seat=seat.seat, line=seat.line, card=seat.route_card,
                                                                   stops=stops_text, route=" - ".join(seat.stops)),
                           size=10))
    master += code_corner(width, height, qr_payload("streetcar", seed=seed, players=str(len(seats)),
                                                    set=str(card_set)),
                          [_("Seed {seed}").format(seed=display_code(seed)), _("organiser only")])
    # Three panels: the seat (stays in view), the deal, and a blank flap folded over the deal to hide it.
    heading = [_("Deal slips: cut apart along the dashed lines, fold each slip's blank flap over its middle "
                 "panel,"),
               _("so the seat shows and the deal stays hidden; hand each slip to its seat.")]
    lines = [fitted(Text(MARGIN, MARGIN + 6 + 4.5 * i, line, size=9, bold=True), width - 2 * MARGIN)
             for i, line in enumerate(heading)]
    slips: list[Item] = [replace(t, size=min(t.size for t in lines)) for t in lines]  # both lines alike
    slip_h = 34.0
    seat_w = 42.0
    deal_w = (width - 2 * MARGIN - seat_w) / 2
    fold1, fold2 = MARGIN + seat_w, MARGIN + seat_w + deal_w
    for i, seat in enumerate(seats):
        y = MARGIN + 15 + i * slip_h
        slips.append(Line(MARGIN, y, width - MARGIN, y, width=0.5, dash=(3, 2)))
        slips.append(Text(MARGIN + 4, y + 12, _("Seat {seat}").format(seat=seat.seat), size=16, bold=True))
        slips.append(fitted(Text(MARGIN + 4, y + 19, _("open only your own slip"), size=7), seat_w - 6))
        for x in (fold1, fold2):
            slips.append(Line(x, y + 2, x, y + slip_h - 2, width=0.4, dash=(1, 1.5)))
        slips += swatch(fold1 + 4, y + 4, 12, slip_h - 8, line_style(seat.line), ink_saver)
        slips.append(Text(fold1 + 20, y + 10, _("Line {line}").format(line=seat.line), size=14, bold=True))
        slips.append(Text(fold1 + 20, y + 17, _("Route card {card} ({stops})").format(card=seat.route_card,
                                                                                     stops=stops_text), size=9))
        slips.append(Text(fold1 + 20, y + 26, _("Stops: {route}").format(route=" - ".join(seat.stops)), size=13,
                          bold=True))
        slips.append(Text(fold2 + deal_w / 2, y + slip_h / 2 - 1, _("blank flap: fold it over"), size=7,
                          align="center", color="#888888"))
        slips.append(Text(fold2 + deal_w / 2, y + slip_h / 2 + 3, _("the middle panel along the dots"), size=7,
                          align="center", color="#888888"))
    end = MARGIN + 15 + len(seats) * slip_h
    slips.append(Line(MARGIN, end, width - MARGIN, end, width=0.5, dash=(3, 2)))
    slips += _corner(code, "deal slips", width, height, _("deal slips"), t)
    return [Page(width, height, tuple(master), "organiser", "deal master"),
            Page(width, height, tuple(slips), "player", "deal slips")]


def kit_document(seed: str, code: str, seats: Sequence[Seat], card_set: int, paper: str = "a4",
                 ink_saver: bool = False, back_offset: tuple[float, float] = (0.0, 0.0),
                 t: Translator = ENGLISH) -> Document:
    """The whole Streetcar kit."""
    card_paper = "a4" if paper == "a3" else paper  # cards and tiles print on A4 even with an A3 board
    pages = deal_pages(seed, code, seats, card_set, card_paper, ink_saver, t)
    pages += board_pages(code, paper, ink_saver, t)
    pages += card_pages(code, card_paper, ink_saver, back_offset, t)
    pages += tile_pages(code, card_paper, ink_saver, len(seats), t)
    pages.append(extras_page(code, card_paper, ink_saver, t))
    pages.append(rules_page(code, card_paper, t))
    pages[0] = replace(pages[0], items=pages[0].items + tuple(printing_note(pages, t)))
    if ink_saver:
        pages = [greyscale_page(page) for page in pages]
    shown = display_code(code)
    return Document(title=t.gettext("Streetcar kit, game {code}").format(code=shown), pages=tuple(pages),
                    subject=t.ngettext("Streetcar (Linie 1), {n} player, game code {code}",
                                       "Streetcar (Linie 1), {n} players, game code {code}",
                                       len(seats)).format(n=len(seats), code=shown))


def route_title(name: str, line: int, length: int | None, t: Translator = ENGLISH) -> str:
    """The heading of a route drawing: the board file, the line, and whether its route is complete."""
    status = (t.gettext("NOT complete") if length is None
              else t.ngettext("complete, {n} space", "complete, {n} spaces", length).format(n=length))
    return t.gettext("{name}: line {line}, {status}").format(name=name, line=line, status=status)


def route_document(check: RouteCheck, name: str, t: Translator = ENGLISH) -> Document:
    """`paperplay route --pdf`: the board of a route check with the route numbered on it, titled with
    the board file's `name`, and a QR code saying what the page shows (a board state carries no seed or
    game code)."""
    answer = check.answer
    squares = list(answer.route.steps) if answer.route else []  # every space, terminals too, with its stops
    tiles = [(sq, tile.kind, tile.rotation) for sq, tile in sorted(check.state.layout.items())]
    title = route_title(name, answer.line, answer.route.length if answer.route else None, t)
    payload = qr_payload("streetcar", page="route", line=str(answer.line), stops=",".join(answer.stops) or "-",
                         **({"ordered": "1"} if answer.ordered else {}),
                         length=str(answer.route.length) if answer.route else "none")
    return state_document(check.state.geo.board, tiles, check.state.stop_signs, squares, title, t, payload)


def _terminal_label_point(board: Board, t: object, s: float) -> tuple[float, float]:
    """Where a route's space in a terminal is labelled: on the terminal's bar, beside its line number."""
    d = board_origin(s)
    bar = s * 0.24
    (r1, c1), (r2, c2) = sorted(t.squares)  # type: ignore[attr-defined]
    side = t.side  # type: ignore[attr-defined]
    if side in (Edge.E, Edge.W):
        x = d + board.cols * s + bar / 2 if side is Edge.E else d - bar / 2
        return x, d + (r1 + r2 + 1) / 2 * s + s * 0.45
    y = d + board.rows * s + bar / 2 if side is Edge.S else d - bar / 2
    return d + (c1 + c2 + 1) / 2 * s + s * 0.45, y


def state_document(board: Board, tiles: Sequence[tuple[tuple[int, int], TileKind, int]],
                   stop_signs: dict[str, tuple[int, int]], route: Sequence[object] = (),
                   title: str = "Streetcar board", t: Translator = ENGLISH,
                   payload: str = "") -> Document:
    """A board as it lies, on one page: its tiles, stop signs and (optionally) a route in order.

    route holds squares (row, column) or the route search's steps (a square with the stops made
    there, or a terminal passed through). Every space is numbered, in the corner of its square so
    the track stays visible (or on the terminal's bar), and every stop is named where it is made.
    `payload`: a QR code in the bottom-right corner (docs/reference/seeds.md: every printed sheet carries one), the
    route's list of spaces kept clear of it.
    """
    s = 14.0
    _ = t.gettext
    w, h = board_size(board, s)
    ox = oy = board_origin(s)
    items: list[Item] = [Text(MARGIN, MARGIN + 6, title, size=12, bold=True, color=ACCENT)]
    drawn: list[Item] = list(board_drawing(board, s))
    for (r, c), kind, rotation in tiles:
        pieces = kind.pieces_at(rotation)
        drawn.append(Group((Rect(0, 0, s, s, stroke=0.3, fill="#f3ecd9", color="#9a9a9a"),
                            *track_items(pieces, s, width=s * 0.3)), dx=ox + c * s, dy=oy + r * s))
    for letter, (r, c) in sorted(stop_signs.items()):
        drawn.append(_octagon(ox + (c + 0.82) * s, oy + (r + 0.18) * s, 2.2))
        drawn.append(Text(ox + (c + 0.82) * s, oy + (r + 0.18) * s + 0.9, letter, size=5, bold=True,
                          align="center", color="#ffffff"))
    visits: dict[Any, list[str]] = {}
    stops_at: dict[tuple[int, int], list[str]] = {}
    spaces: list[str] = []
    for i, step in enumerate(route, start=1):
        terminal = getattr(step, "terminal", None)
        square: Any = getattr(step, "square", step)
        key = terminal if terminal is not None else square
        visits.setdefault(key, []).append(str(i))
        stops = tuple(getattr(step, "stops", ()))
        if terminal is not None:
            spaces.append(f"{i} " + _("terminal {line}.{number}").format(line=terminal.line, number=terminal.number))
        else:
            spaces.append(f"{i} [{square[0]},{square[1]}]" + "".join(" " + _("stop {letter}").format(letter=x)
                                                                      for x in stops))
            if stops:
                stops_at.setdefault(square, []).extend(stops)
    for key, numbers in visits.items():  # a square the route passes twice shows both numbers
        label = "/".join(numbers)
        tw = text_width(label, 5, True)
        if isinstance(key, tuple):
            r, c = key
            x, y = ox + c * s + 0.4, oy + r * s + 0.4  # the top-left corner: no track runs there
        else:
            cx, cy = _terminal_label_point(board, key, s)
            x, y = cx - tw / 2 - 0.5, cy - 1.4
        drawn.append(Rect(x, y, tw + 1, 2.8, stroke=0.3, fill="#ffe066"))
        drawn.append(Text(x + 0.5, y + 2.1, label, size=5, bold=True))
    for (r, c), made in stops_at.items():
        label = _("stop {letter}").format(letter=", ".join(made))
        tw = text_width(label, 5, True)
        x, y = ox + c * s + 0.4, oy + (r + 1) * s - 3.2  # the bottom-left corner
        drawn.append(Rect(x, y, tw + 1, 2.8, stroke=0.3, fill="#ffffff", color="#c62828"))
        drawn.append(Text(x + 0.5, y + 2.1, label, size=5, bold=True, color="#c62828"))
    width, height = max(210.0, w + 2 * MARGIN), max(297.0, h + 2 * MARGIN + 10)
    items.append(Group(tuple(drawn), dx=MARGIN, dy=MARGIN + 10))
    room = width - 2 * MARGIN - (QR_SIZE + 6 if payload else 0)  # the listing stops short of the QR code
    if payload:
        items += code_corner(width, height, payload, [])
    if spaces:
        top = MARGIN + 10 + h + 8
        items.append(Text(MARGIN, top, t.ngettext("The route, space by space ({n} space):",
                                                  "The route, space by space ({n} spaces):", len(spaces)).format(
            n=len(spaces)), size=8, bold=True))
        line: list[str] = []
        row = 0
        for space in spaces:
            if line and text_width(" · ".join(line + [space]), 7) > room:
                items.append(Text(MARGIN, top + 5 + row * 4, " · ".join(line), size=7))
                line, row = [], row + 1
            line.append(space)
        items.append(Text(MARGIN, top + 5 + row * 4, " · ".join(line), size=7))
    return Document(title=title, pages=(Page(width, height, tuple(items), "player", "board state"),))
