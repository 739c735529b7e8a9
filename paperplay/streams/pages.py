"""Streams pages as models: player score sheets, the caller's sheet and the tiles to cut out.

Players' pages carry the game code only; the caller's sheet carries the seed and the draw
(docs/reference/seeds.md, QR codes).
Every page is built from a StreamsRules (boxes, series boxes, scoring table, bag); pages of a
variant other than the standard game name it, and their QR codes carry `variant=NAME`.
"""

from __future__ import annotations

from collections.abc import Sequence

from paperplay.i18n import ENGLISH, Translator
from paperplay.render.model import Circle, Document, Item, Line, Page, Polygon, Rect, Text, UseForm, paper_size
from paperplay.render.fit import all_boxes, fitted, text_box
from paperplay.render.parts import MARGIN, calibration_ruler, code_corner, crop_marks, grid_lines, qr_payload
from paperplay.seeds import display_code
from paperplay.streams.rules import WILD, StreamsRules, Tile, standard_rules, tile_text

TRAIN_TOP = 52.0
BOX_HEIGHT = 30.0
LOCO_WIDTH = 30.0
SHEET_FORM = "streams-sheet"
ACCENT = "#1f5fa8"


NAME_X = MARGIN + 112
NAME_END = MARGIN + 70
"""A player's name is written from NAME_X to NAME_END mm from the sheet's right-hand edge (its line) ..."""
NAME_SIZE = 16.0
NAME_MIN_SIZE = 9.0
"""... at NAME_SIZE points, smaller for a long name down to NAME_MIN_SIZE (about 40 letters on Letter,
48 on A4)."""
NAME_MAX_LETTERS = 100
"""No name this long fits the line at NAME_MIN_SIZE, however narrow its letters (so a long one is
refused without measuring all of it)."""


def name_room(width: float) -> float:
    """How wide, in mm, a player's name may be on a sheet `width` mm wide."""
    return width - NAME_END - NAME_X


def name_text(width: float, name: str) -> Text:
    """A player's name on the name line of a sheet `width` mm wide, smaller when it is long."""
    return fitted(Text(NAME_X, MARGIN + 9.5, name, size=NAME_SIZE, bold=True), name_room(width))


def _box_width(width: float, rules: StreamsRules) -> float:
    return (width - 2 * MARGIN - LOCO_WIDTH) / rules.boxes


def _payload(rules: StreamsRules, **fields: str) -> str:
    """The page's QR payload; a variant other than the standard game adds variant=NAME."""
    if not rules.standard:
        fields["variant"] = rules.name
    return qr_payload("streams", **fields)


def _variant_label(rules: StreamsRules, t: Translator = ENGLISH) -> str:
    return "" if rules.standard else " · " + t.gettext("variant {name}").format(name=rules.name)


def _locomotive(x: float, y: float, h: float, t: Translator = ENGLISH) -> list[Item]:
    """A simple locomotive facing right, so the train runs left to right."""
    w = LOCO_WIDTH - 3
    base = y + h
    return [
        Polygon(((x, base), (x, y + 4), (x + 10, y + 4), (x + 10, y - 2), (x + 17, y - 2), (x + 17, y + 8),
                 (x + w, y + 8), (x + w, base)), stroke=0.8, fill="#dbe7f5", color=ACCENT),
        Rect(x + 2, y + 7, 6, 6, stroke=0.6, fill="#ffffff", color=ACCENT),
        Rect(x + 19, y + 4, 4, 4, stroke=0.6, fill=ACCENT, color=ACCENT),
        Circle(x + 6, base + 2.5, 2.5, stroke=0.6, fill=ACCENT, color=ACCENT),
        Circle(x + 20, base + 2.5, 2.5, stroke=0.6, fill=ACCENT, color=ACCENT),
        Text(x + w / 2 + 4, base - 4, t.gettext("START"), size=6, bold=True, align="center", color=ACCENT),
    ]


def sheet_form(width: float, height: float, code: str, rules: StreamsRules,
               t: Translator = ENGLISH) -> tuple[Item, ...]:
    """What every player's sheet of a game shares: drawn once per PDF and reused on every page."""
    _ = t.gettext
    items: list[Item] = [
        Text(MARGIN, MARGIN + 10, "Streams", size=28, bold=True, color=ACCENT),
        Text(MARGIN, MARGIN + 17, _("Write each number as it is called in any empty box. Try to make long ascending "
                                   "series."),
             size=9),
        Text(MARGIN + 95, MARGIN + 10, _("Player"), size=11, bold=True),
        Line(MARGIN + 110, MARGIN + 10.8, width - NAME_END, MARGIN + 10.8, width=0.6),
    ]
    bw = _box_width(width, rules)
    left = MARGIN + LOCO_WIDTH
    items += _locomotive(MARGIN, TRAIN_TOP, BOX_HEIGHT, t)
    for i in range(rules.boxes):
        x = left + i * bw
        items.append(
            Rect(x + 0.6, TRAIN_TOP, bw - 1.2, BOX_HEIGHT, stroke=1.0, fill="#ffffff", color=ACCENT, radius=1.2)
        )
        items.append(Text(x + bw / 2, TRAIN_TOP - 1.8, str(i + 1), size=7, align="center", color="#555555"))
        items.append(Circle(x + bw / 2, TRAIN_TOP + BOX_HEIGHT + 2.5, 1.8, stroke=0.5, fill=ACCENT, color=ACCENT))

    # Series points: one box per series (at most boxes // 2 series of 2 or more fit), and the total.
    row = TRAIN_TOP + BOX_HEIGHT + 18
    items.append(Text(MARGIN, row - 2, _("Series points"), size=11, bold=True))
    cell, gap = 14.0, 5.0
    count = rules.series_boxes
    room = (width - 2 * MARGIN - LOCO_WIDTH - 36) / count
    if room < cell + gap:  # many series boxes: narrower, so the total still fits
        cell, gap = cell * room / (cell + gap), gap * room / (cell + gap)
    for i in range(count):
        x = MARGIN + LOCO_WIDTH + i * (cell + gap)
        items.append(Rect(x, row - 8, cell, 11, stroke=0.7))
        items.append(Text(x + 1, row - 5.5, f"{i + 1}", size=5, color="#777777"))
        items.append(Text(x + cell + gap / 2, row - 1.2, "+" if i < count - 1 else "=", size=10, align="center",
                          color="#777777"))
    total_x = MARGIN + LOCO_WIDTH + count * (cell + gap)
    items.append(Rect(total_x, row - 10, 34, 15, stroke=1.6, color=ACCENT))
    items.append(Text(total_x + 1.5, row - 6.8, _("TOTAL"), size=6, bold=True, color=ACCENT))

    # Scoring table, straight from the rules data.
    top = row + 16
    items.append(Text(MARGIN, top - 2, _("Scoring table"), size=11, bold=True))
    label_w = 30.0
    col_w = (width - 2 * MARGIN - label_w) / rules.boxes
    for r, (label, values) in enumerate(((_("Series length"), range(1, rules.boxes + 1)),
                                         (_("Points"), (rules.points[n] for n in range(1, rules.boxes + 1))))):
        y = top + r * 7
        items.append(Rect(MARGIN, y, label_w, 7, stroke=0.5, fill="#eef3fa" if r == 0 else None))
        items.append(Text(MARGIN + 1.5, y + 5, label, size=8, bold=True))
        for i, value in enumerate(values):
            x = MARGIN + label_w + i * col_w
            items.append(Rect(x, y, col_w, 7, stroke=0.5, fill="#eef3fa" if r == 0 else None))
            items.append(fitted(Text(x + col_w / 2, y + 5, str(value), size=8, bold=r == 1, align="center"),
                                 col_w - 1))
    notes = top + 20
    for i, line in enumerate((
        _("A series: boxes side by side, left to right, where no number is smaller than the one before it "
          "(equal numbers may stand together). A single number scores {points}.").format(points=rules.points[1]),
        _("The wild (*) stands for any one number and counts in one series only. "
          "Mark your series with lines, write their points, add them up.") if WILD in rules.bag
        else _("Mark your series with lines, write their points, add them up."),
    )):
        items.append(Text(MARGIN, notes + i * 4.5, line, size=7.5, color="#333333"))
    items.append(Text(MARGIN, height - MARGIN, "paperplay · " + _("Streams score sheet") + _variant_label(rules, t),
                      size=7,
                      color="#777777"))
    items.append(Text(width - MARGIN - 27, height - MARGIN - 15, _("Game {code}").format(code=display_code(code)),
                      size=11, bold=True,
                      align="right"))
    return tuple(items)


def sheet_pages(code: str, players: int, names: Sequence[str] = (), paper: str = "a4",
                rules: StreamsRules | None = None,
                t: Translator = ENGLISH) -> tuple[dict[str, tuple[Item, ...]], list[Page]]:
    """Returns the shared form and one page per player."""
    rules = rules or standard_rules()
    width, height = paper_size(paper, landscape=True)
    forms = {SHEET_FORM: sheet_form(width, height, code, rules, t)}
    pages = []
    for n in range(1, players + 1):
        payload = _payload(rules, code=code, sheet=f"{n}/{players}")
        items: list[Item] = [UseForm(SHEET_FORM)]
        if n <= len(names) and names[n - 1]:
            items.append(name_text(width, names[n - 1]))
        items.append(Text(width - MARGIN - 27, height - MARGIN - 10,
                          t.gettext("sheet {n} of {count}").format(n=n, count=players),
                          size=9, align="right"))
        items += code_corner(width, height, payload, [])
        pages.append(Page(width, height, tuple(items), role="player", label=f"sheet {n}"))
    return forms, pages


def sheets_document(code: str, players: int, names: Sequence[str] = (), paper: str = "a4",
                    rules: StreamsRules | None = None, t: Translator = ENGLISH) -> Document:
    """The score sheets for a game of the rules' variant (default: the standard game): one page per player."""
    rules = rules or standard_rules()
    forms, pages = sheet_pages(code, players, names, paper, rules, t)
    shown = display_code(code)
    return Document(title=t.gettext("Streams score sheets, game {code}").format(code=shown), pages=tuple(pages),
                    forms=forms, subject=t.ngettext("Streams{variant}, {n} player, game code {code}",
                                                     "Streams{variant}, {n} players, game code {code}", players).format(
                        variant=_variant_label(rules, t), n=players, code=shown))


def caller_page(seed: str, code: str, drawn: Sequence[Tile], paper: str = "a4",
                rules: StreamsRules | None = None, t: Translator = ENGLISH) -> Page:
    """The caller's sheet: the seed and the draw in order, to call and tick off, with its QR code."""
    rules = rules or standard_rules()
    _ = t.gettext
    width, height = paper_size(paper, landscape=True)
    seed_line = Text(MARGIN, MARGIN + 27, _("Seed {seed}").format(seed=display_code(seed)), size=16, bold=True)
    items: list[Item] = [
        Text(MARGIN, MARGIN + 10, "Streams · " + _("caller's sheet") + _variant_label(rules, t), size=24, bold=True,
             color=ACCENT),
        Text(MARGIN, MARGIN + 18, _("For the caller only: keep this page hidden until the game ends, "
                                    "then reveal the seed so anyone can check the draw."), size=9),
        seed_line,
        # after the seed: a 14-character seed runs past where an 8-character one left room
        Text(max(MARGIN + 80, text_box(seed_line)[2] + 8), MARGIN + 27,
             _("Game code {code}").format(code=display_code(code)), size=12),
    ]
    cols = max(10, -(-len(drawn) // 2))  # two rows
    size = 34 * min(1.0, 12 / cols)
    cell_w = (width - 2 * MARGIN) / cols
    cell_h = 36.0
    top = MARGIN + 38
    for turn, tile in enumerate(drawn, start=1):
        r, c = divmod(turn - 1, cols)
        x, y = MARGIN + c * cell_w, top + r * (cell_h + 6)
        items.append(Rect(x + 1, y, cell_w - 2, cell_h, stroke=0.8, color=ACCENT))
        # a variant's long numbers in narrow cells are shrunk to them (the label stops before the tick box)
        items.append(fitted(Text(x + 3, y + 5, _("turn {turn}").format(turn=turn), size=8, color="#555555"),
                             cell_w - 11))
        items.append(Rect(x + cell_w - 7, y + 2, 4, 4, stroke=0.6))
        items.append(fitted(Text(x + cell_w / 2, y + 26, tile_text(tile), size=size, bold=True, align="center"),
                             cell_w - 4))
        if tile == WILD:  # the caller announces it by name
            items.append(Text(x + cell_w / 2, y + cell_h - 3, _("wild"), size=8, align="center", color="#555555"))
    items.append(Text(MARGIN, top + 2 * (cell_h + 6) + 4,
                      _("Call each tile in turn and tick its box. {command} calls them on screen.").format(
                          command=f"paperplay call streams --seed {display_code(seed)}"
                          + ("" if rules.standard else " --variant FILE.json")),
                      size=8, color="#555555"))
    draw_text = ",".join(tile_text(t) for t in drawn)
    items += code_corner(width, height, _payload(rules, seed=seed, draw=draw_text),
                         [_("Seed {seed}").format(seed=display_code(seed)), _("organiser only")])
    return Page(width, height, tuple(items), role="organiser", label="caller's sheet")


def _star(cx: float, cy: float, outer: float) -> Polygon:
    import math

    points = []
    for k in range(10):
        radius = outer if k % 2 == 0 else outer * 0.45
        angle = math.pi / 2 + k * math.pi / 5
        points.append((round(cx + radius * math.cos(angle), 3), round(cy - radius * math.sin(angle), 3)))
    return Polygon(tuple(points), stroke=0.8, fill="#f2c230")


TILE = 24.0
def tiles_page(code: str, paper: str = "a4", rules: StreamsRules | None = None, t: Translator = ENGLISH) -> Page:
    """The tiles of the bag (40 in the standard game) to cut out, eight to a row, with shared cut
    lines, crop marks and the ruler; a bag of more than 56 tiles gets smaller tiles."""
    rules = rules or standard_rules()
    _ = t.gettext
    width, height = paper_size(paper, landscape=True)
    cols = 8
    rows = -(-len(rules.bag) // cols)
    left, top = (15.0 if width >= 290 else 11.0), 15.0  # Letter: room for the side panel's ruler
    tile_size = min(TILE, (height - 2 * top) / rows)
    scale = tile_size / TILE
    xs = [left + c * tile_size for c in range(cols + 1)]
    ys = [top + r * tile_size for r in range(rows + 1)]
    underlined = rules.underlined
    items: list[Item] = []
    for index, tile in enumerate(rules.bag):
        r, c = divmod(index, cols)
        cx, cy = left + (c + 0.5) * tile_size, top + (r + 0.5) * tile_size
        if tile == WILD:
            items.append(_star(cx, cy, tile_size * 0.36))
        else:
            items.append(Text(cx, cy + 4 * scale, str(tile), size=26 * scale, bold=True, align="center"))
            if tile in underlined:  # so that a turned tile never reads as another number of the bag
                items.append(Line(cx - 4 * scale, cy + 6 * scale, cx + 4 * scale, cy + 6 * scale, width=1.4))
    items += grid_lines(xs, ys)
    right = xs[-1] + 9  # the side panel starts beyond the crop marks
    panel: list[Item] = []
    panel.append(Text(right, top + 9, _("Streams tiles"), size=16, bold=True, color=ACCENT))
    panel.append(Text(right, top + 16, t.ngettext("{n} tile for a bag", "{n} tiles for a bag", len(rules.bag)).format(
        n=len(rules.bag)) + _variant_label(rules, t), size=9))
    panel.append(Text(right, top + TILE + 8, _("Cut along the grey lines;"), size=8))
    panel.append(Text(right, top + TILE + 12, _("the marks outside show where."), size=8))
    panel.append(Text(right, top + TILE + 16, _("Put all tiles in a bag or bowl."), size=8))
    panel += calibration_ruler(right, top + 2 * TILE + 7, narrow=width - right < 80, t=t,
                               room=width - right - MARGIN)
    # A game drawn from these tiles has no seeded draw to check the sheets against: the draw written down is.
    panel += [Text(right, top + 3 * TILE + 4 + 4 * i, line, size=8) for i, line in enumerate((
        _("No caller's sheet? Note each tile"), _("as it is drawn; check the sheets with"),
        "paperplay score --draw 11,3,*,…"))]
    corner = code_corner(width, height, _payload(rules, code=code, page="tiles"),
                         [_("Game {code}").format(code=display_code(code)), _("tiles")])
    panel += corner
    # Marks run to the page margin (docs/guides/streams-night.md, printing), but none into the side panel's
    # column or the code corner's: they stop short of them.
    column = (right - 0.5, 0.0, width, height)
    boxes = all_boxes(corner)
    corner_column = (min(b[0] for b in boxes) - 2.0, min(b[1] for b in boxes) - 2.0, width, height)
    items += crop_marks(xs, ys, width, height, avoid=[column, corner_column])
    return Page(width, height, tuple(items + panel), role="player", label="tiles")


def kit_document(seed: str, code: str, drawn: Sequence[Tile], players: int, names: Sequence[str] = (),
                 paper: str = "a4", rules: StreamsRules | None = None, t: Translator = ENGLISH) -> Document:
    """The whole Streams kit of the rules' variant (default: the standard game): the caller's sheet,
    the tiles to cut out and the players' sheets. `drawn` is rules.draw(seed, rules)."""
    rules = rules or standard_rules()
    forms, pages = sheet_pages(code, players, names, paper, rules, t)
    all_pages = [caller_page(seed, code, drawn, paper, rules, t), tiles_page(code, paper, rules, t), *pages]
    shown = display_code(code)
    return Document(title=t.gettext("Streams kit, game {code}").format(code=shown), pages=tuple(all_pages),
                    forms=forms, subject=t.ngettext("Streams kit{variant} for {n} player, game code {code}",
                                                     "Streams kit{variant} for {n} players, game code {code}",
                                                     players).format(variant=_variant_label(rules, t), n=players,
                                                                     code=shown))
