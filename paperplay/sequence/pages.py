"""Sequence Numbers pages as models: board (or poster), cards with duplex backs, chips, rules, organiser page."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import replace

from paperplay.i18n import ENGLISH, N_, Translator
from paperplay.render.model import QR, Circle, Document, Group, Item, Line, Page, Polygon, Rect, Text, paper_size
from paperplay.render.fit import all_boxes
from paperplay.render.parts import (
    CARD_H, CARD_W, MARGIN, card_page_labels, card_sheets, code_corner, crop_marks, grid_lines, poster_pages,
    printing_note, qr_payload, sheet_grid, text_lines,
)
from paperplay.render.ink import greyscale_page
from paperplay.seeds import display_code
from paperplay.sequence.rules import MINUS, PLUS, Board, Card, CardKind, SequenceRules, standard_rules

ACCENT = "#7a3e9d"
CHIP_LABELS = {"red": N_("red: circles marked {letter}"), "blue": N_("blue: squares marked {letter}"),
               "green": N_("green: triangles marked {letter}")}
"""The chips' headings by colour (templates/sequence/game.json names the colours)."""
SHOWN_NAMES = {"times-tables": N_("times-tables"), "add": N_("add"), "add-sub": N_("add-sub"),
               "mul-div": N_("mul-div"), "mixed": N_("mixed")}
"""Number sets and levels as printed (the options' values are the same in every language)."""


def _star(cx: float, cy: float, outer: float, fill: str = "#f2c230") -> Polygon:
    points = []
    for k in range(10):
        radius = outer if k % 2 == 0 else outer * 0.45
        angle = math.pi / 2 + k * math.pi / 5
        points.append((round(cx + radius * math.cos(angle), 3), round(cy - radius * math.sin(angle), 3)))
    return Polygon(tuple(points), stroke=0.6, fill=fill)


_TURNED = {"0": "0", "1": "1", "6": "9", "8": "8", "9": "6"}


def reads_otherwise_turned(number: str) -> bool:
    """True when a number read upside down is another number (6/9, 18/81, 16/91, 66/99, …)."""
    if not number or any(ch not in _TURNED for ch in number):
        return False
    turned = "".join(_TURNED[ch] for ch in reversed(number))
    return turned != number and turned[0] != "0"


def underlines(text: Text) -> list[Item]:
    """Lines under each number of a text that reads as another number upside down (players sit round
    the board, so a turned 6 must not pass for a 9)."""
    from paperplay.render.pdf import text_width

    total = text_width(text.text, text.size, text.bold)
    start = text.x - {"left": 0.0, "center": total / 2, "right": total}[text.align]
    size_mm = text.size * 25.4 / 72
    items: list[Item] = []
    for match in re.finditer(r"\d+", text.text):
        if reads_otherwise_turned(match.group()):
            x0 = start + text_width(text.text[:match.start()], text.size, text.bold)
            x1 = start + text_width(text.text[:match.end()], text.size, text.bold)
            pad = (x1 - x0) * 0.08
            y = text.y + size_mm * 0.09
            items.append(Line(x0 + pad, y, x1 - pad, y, width=max(0.6, text.size * 0.07), color=text.color))
    return items


def board_drawing(board: Board, square: float, ink_saver: bool = False, t: Translator = ENGLISH) -> tuple[Item, ...]:
    """The board at a given square size, from (0, 0): numbers, free corners, row and column labels."""
    items: list[Item] = []
    size = len(board)
    label = 5.0
    for r in range(size):
        items.append(Text(label / 2, label + (r + 0.5) * square + 1.2, str(r), size=6, align="center", color="#888888"))
        items.append(Text(label + (r + 0.5) * square, label - 1.5, str(r), size=6, align="center", color="#888888"))
        for c in range(size):
            x, y = label + c * square, label + r * square
            value = board[r][c]
            shade = None if ink_saver else ("#f4eef8" if (r + c) % 2 else "#ffffff")
            items.append(Rect(x, y, square, square, stroke=0.8, fill=shade, color=ACCENT))
            if value is None:
                items.append(
                    _star(x + square / 2, y + square / 2 - 1, square * 0.3, "#ffffff" if ink_saver else "#f2c230")
                )
                items.append(Text(x + square / 2, y + square - 2, t.gettext("FREE"), size=square * 0.28, bold=True,
                                  align="center"))
            else:
                number = Text(x + square / 2, y + square / 2 + square * 0.16, str(value), size=square * 1.15,
                              bold=True, align="center")
                items += [number, *underlines(number)]
    return tuple(items)


def _options_text(numbers_name: str, level: str, t: Translator = ENGLISH) -> str:
    def shown(name: str) -> str:
        return t.gettext(SHOWN_NAMES[name]) if name in SHOWN_NAMES else name

    return t.gettext("numbers {numbers} · level {level}").format(numbers=shown(numbers_name), level=shown(level))


def board_page(board: Board, code: str, numbers_name: str, level: str, paper: str, ink_saver: bool,
               t: Translator = ENGLISH) -> Page:
    _ = t.gettext
    width, height = paper_size(paper)
    square = min((width - 2 * MARGIN - 5) / len(board), (height - 2 * MARGIN - 60) / len(board))
    left = (width - (square * len(board) + 5)) / 2
    items: list[Item] = [
        Text(MARGIN, MARGIN + 9, _("Sequence Numbers"), size=22, bold=True, color=ACCENT),
        Text(MARGIN, MARGIN + 15, _("Board") + " · " + _options_text(numbers_name, level, t), size=9),
        Group(board_drawing(board, square, ink_saver, t), left, MARGIN + 20),
    ]
    items += code_corner(width, height, qr_payload("sequence", code=code, numbers=numbers_name, level=level,
                                                   page="board"),
                         [_("Game {code}").format(code=display_code(code)), _("board")])
    return Page(width, height, tuple(items), "player", "board")


CARD_QR = 11.0


def _card_front(card: Card, index: int, code: str, ink_saver: bool, t: Translator = ENGLISH) -> tuple[Item, ...]:
    _ = t.gettext
    w, h = CARD_W, CARD_H
    edge = "#ffffff" if ink_saver else "#efe6f5"
    items: list[Item] = [Rect(-2.5, -2.5, w + 5, h + 5, stroke=0, fill=edge)]  # bleed past the cut
    items.append(Rect(3, 3, w - 6, h - 6, stroke=1.0, color=ACCENT, fill="#ffffff", radius=3))
    if card.kind == PLUS:
        # One outline (the ink saver draws a large fill as its outline: two bars would cross in the middle),
        # its arms 12 mm long, clear of the words below.
        arm, bar, cx, cy = 12.0, 4.0, w / 2, h / 2
        cross = ((-bar, -arm), (bar, -arm), (bar, -bar), (arm, -bar), (arm, bar), (bar, bar), (bar, arm), (-bar, arm),
                 (-bar, bar), (-arm, bar), (-arm, -bar), (-bar, -bar))
        items += [Polygon(tuple((cx + x, cy + y) for x, y in cross), stroke=0, fill="#1f7a3f"),
                  Text(w / 2, 16, _("PLUS"), size=16, bold=True, align="center"),
                  Text(w / 2, h - 27, _("Place a chip on"), size=8, align="center"),
                  Text(w / 2, h - 22, _("any open square"), size=8, align="center"),
                  Text(w / 2, h - 17, _("(not a corner)."), size=8, align="center")]
    elif card.kind == MINUS:
        items += [Rect(w / 2 - 14, h / 2 - 4, 28, 8, stroke=0, fill="#b02a2a"),
                  Text(w / 2, 16, _("MINUS"), size=16, bold=True, align="center"),
                  Text(w / 2, h - 32, _("Remove an opponent's chip"), size=7.5, align="center"),
                  Text(w / 2, h - 27, _("(not in a fixed sequence)."), size=7.5, align="center"),
                  Text(w / 2, h - 22, _("No chip placed; then draw."), size=7.5, align="center")]
    else:
        text = card.text.replace(" x ", " × ").replace(" / ", " ÷ ").replace(" - ", " − ")  # the signs printed
        size = 22 if len(text) <= 9 else 17 if len(text) <= 12 else 14
        big = Text(w / 2, h / 2 + 3, text, size=size, bold=True, align="center")
        small = Text(6, 10, text, size=7, color="#555555")
        items += [big, *underlines(big), small, *underlines(small),
                  Line(10, h / 2 + 9, w - 10, h / 2 + 9, width=0.4, color="#cccccc"),
                  Text(w / 2, h / 2 + 16, "= ?", size=10, align="center", color="#777777")]
    items.append(Text(w - 6, h - 6, f"#{index}", size=6, align="right", color="#888888"))
    # The cards lie edge to edge, so each card carries the QR code (with its number) itself.
    items.append(QR(5.5, h - 5.5 - CARD_QR, CARD_QR, qr_payload("sequence", code=code, card=str(index))))
    return tuple(items)


def _card_back(code: str, ink_saver: bool, t: Translator = ENGLISH) -> tuple[Item, ...]:
    w, h = CARD_W, CARD_H
    fill = "#ffffff" if ink_saver else ACCENT
    ink = ACCENT if ink_saver else "#ffffff"
    items: list[Item] = [Rect(-2.5, -2.5, w + 5, h + 5, stroke=0, fill=fill)]
    stripes = tuple(Line(k * 8.0 - h, h + 2.5, k * 8.0, -2.5, width=0.3,
                         color="#dddddd" if ink_saver else "#9d6bbd") for k in range(0, 20))
    items.append(Group(stripes, clip=(-2.5, -2.5, w + 5, h + 5)))
    items += [
        Rect(8, h / 2 - 12, w - 16, 24, stroke=1, fill=fill, color=ink, radius=3),
        Text(w / 2, h / 2 - 2, t.gettext("SEQUENCE"), size=12, bold=True, align="center", color=ink),
        Text(w / 2, h / 2 + 6, t.gettext("NUMBERS"), size=12, bold=True, align="center", color=ink),
        Rect(w / 2 - CARD_QR / 2 - 1.5, h - 9 - CARD_QR - 1.5, CARD_QR + 3, CARD_QR + 3, stroke=0, fill="#ffffff"),
        QR(w / 2 - CARD_QR / 2, h - 9 - CARD_QR, CARD_QR, qr_payload("sequence", code=code)),
        Text(
            w / 2, h - 4.5, t.gettext("game {code}").format(code=display_code(code)), size=6, align="center", color=ink
        ),
    ]
    return tuple(items)


def card_order(deck: Sequence[Card]) -> list[Card]:
    """The printing order of the cards: by value, then text; Plus and Minus last."""
    return sorted(deck, key=lambda c: (c.kind != CardKind.EQUATION, c.value if c.value is not None else 0, c.text))


def card_fronts(deck: Sequence[Card], code: str, ink_saver: bool, t: Translator = ENGLISH) -> list[tuple[Item, ...]]:
    """Every card's front in printing order (card #1 first)."""
    return [_card_front(card, i, code, ink_saver, t) for i, card in enumerate(card_order(deck), start=1)]


def card_pages(deck: Sequence[Card], code: str, paper: str, ink_saver: bool,
               back_offset: tuple[float, float], spare: int = 0, t: Translator = ENGLISH) -> list[Page]:
    """The card sheets, fronts then mirrored backs; the last `spare` cards are left out (they go on
    the rules page, see rules_pages)."""
    width, height = paper_size(paper)
    fronts = card_fronts(deck, code, ink_saver, t)
    fronts = fronts[:len(fronts) - spare]
    _ = t.gettext

    labels = card_page_labels(_("Sequence Numbers cards {n}: fronts"), _("Sequence Numbers cards {n}: backs"),
                              display_code(code), t)
    sheets = card_sheets(fronts, [_card_back(code, ink_saver, t)] * len(fronts), width, height, labels, back_offset)
    pages = []
    for number, (items, is_back) in enumerate(sheets):
        pages.append(Page(width, height, tuple(items), "player", f"cards {number // 2 + 1} "
                          + ("backs" if is_back else "fronts"), "back" if is_back else "front"))
    return pages


CHIP = 13.5
PITCH = 15.5


def _chip(shape: str, letter: str, fill: str, cx: float, cy: float, ink_saver: bool) -> list[Item]:
    r = CHIP / 2
    colour = "#ffffff" if ink_saver else fill
    ink = fill if ink_saver else "#ffffff"
    if shape == "circle":
        body: Item = Circle(cx, cy, r, stroke=0.8, fill=colour, color="#000000")
    elif shape == "square":
        body = Rect(cx - r * 0.9, cy - r * 0.9, r * 1.8, r * 1.8, stroke=0.8, fill=colour, color="#000000")
    else:
        body = Polygon(((cx, cy - r), (cx + r, cy + r * 0.8), (cx - r, cy + r * 0.8)), stroke=0.8, fill=colour)
    return [body, Text(cx, cy + (2.8 if shape == "triangle" else 2.2), letter, size=9, bold=True, align="center",
                       color=ink if not ink_saver else "#000000")]


def chips_page(code: str, paper: str, ink_saver: bool, rules: SequenceRules, t: Translator = ENGLISH,
               players: int | None = None) -> Page:
    """A set of chips for each colour; with `players`, for the colours that many players use (two, or
    three when they may play as three teams)."""
    from paperplay.render.pdf import text_width

    _ = t.gettext
    width, height = paper_size(paper)
    cols = int((width - 2 * MARGIN) // PITCH)
    heading = _("Chips")
    # the note starts after the heading, however long its translation ("Spielsteine" ran into it)
    note_x = MARGIN + max(28.0, text_width(heading, 18, bold=True) + 4)
    items: list[Item] = [Text(MARGIN, MARGIN + 7, heading, size=18, bold=True, color=ACCENT),
                         Text(note_x, MARGIN + 7, _("Cut out one colour per player or team; each colour has its own "
                              "shape and letter."), size=8)]
    top = MARGIN + 14
    colours = rules.colours if players is None else rules.colours[:max(rules.player_count(players).teams)]
    for block, colour in enumerate(colours):
        y0 = top + block * (4 * PITCH + 9)
        label = CHIP_LABELS.get(colour["name"], colour["name"] + ": " + colour["shape"] + "s marked {letter}")
        items.append(Text(MARGIN, y0 + 4, _(label).format(letter=colour["letter"]), size=8, bold=True))
        for i in range(4 * cols):
            r, c = divmod(i, cols)
            cx, cy = MARGIN + (c + 0.5) * PITCH, y0 + 7 + (r + 0.5) * PITCH
            items += _chip(colour["shape"], colour["letter"], colour["fill"], cx, cy, ink_saver)
    items += code_corner(width, height, qr_payload("sequence", code=code, page="chips"),
                         [_("Game {code}").format(code=display_code(code)), _("chips")])
    return Page(width, height, tuple(items), "player", "chips")


def rules_page(code: str, paper: str, t: Translator = ENGLISH) -> Page:
    return rules_pages(code, paper, t=t)[0]


def spare_cards(count: int, paper: str, t: Translator = ENGLISH) -> int:
    """How many cards of a deck of count go on the rules page instead of a sheet of their own:
    the last sheet's cards when they are a single row and the rules page has room for it."""
    width, height = paper_size(paper)
    cols, rows = sheet_grid(width, height)
    rest = count % (cols * rows)
    if not 0 < rest <= cols:
        return 0
    return rest if _spare_top(t) + CARD_H + 6.0 <= height - MARGIN / 2 else 0


def _spare_top(t: Translator = ENGLISH) -> float:
    # Below the rules text and its calibration ruler (text_lines: one line every 6 mm from MARGIN + 10).
    return MARGIN + 10 + 6 + len(t.rules("sequence")) * 6 + 14 + 14


def rules_pages(code: str, paper: str, cards: Sequence[tuple[Item, ...]] = (), back: tuple[Item, ...] = (),
                back_offset: tuple[float, float] = (0.0, 0.0), t: Translator = ENGLISH) -> list[Page]:
    """The rules summary; with cards, they fill a row below it (so the deck's last few cards need
    no sheet of their own), and the page's back carries their backs, mirrored for long-edge duplex."""
    _ = t.gettext
    width, height = paper_size(paper)
    items = text_lines(t.rules("sequence"), ACCENT, t=t)
    items += code_corner(width, height, qr_payload("sequence", code=code, page="rules"),
                         [_("Game {code}").format(code=display_code(code)), _("rules")])
    if not cards:
        return [Page(width, height, tuple(items), "player", "rules")]
    left, top = MARGIN + 2.0, _spare_top(t)
    xs = [left + i * CARD_W for i in range(len(cards) + 1)]
    ys = [top, top + CARD_H]
    groups: list[Item] = [Group(card, xs[i], top, tag="card") for i, card in enumerate(cards)]
    items.append(Text(MARGIN, top - 8, t.ngettext(
        "The last card of the deck: cut it out too (its back is on the back of this page, long-edge flip).",
        "The last cards of the deck: cut them out too (their backs are on the back of this page, long-edge flip).",
        len(cards)), size=7, bold=True))
    marks = crop_marks(xs, ys, width, height, avoid=all_boxes(items), reach=8.0)
    backs: list[Item] = [Group(back, width - xs[i] - CARD_W + back_offset[0], top + back_offset[1], tag="back")
                         for i in range(len(cards))]
    backs.append(Text(MARGIN, MARGIN + 6, _("Back of the rules page: the backs of its cards (long-edge flip)"),
                      size=8))
    backs.append(Text(width - MARGIN, MARGIN + 6, _("Game {code}").format(code=display_code(code)), size=8,
                      align="right"))
    return [Page(width, height, tuple(groups + grid_lines(xs, ys) + marks + items), "player", "rules", "front"),
            Page(width, height, tuple(backs), "player", "rules backs", "back")]


def deck_card_numbers(deck: Sequence[Card]) -> list[int]:
    """The printed card number (#) of each card in deck order (equal cards take their numbers in turn)."""
    numbers: dict[str, list[int]] = {}
    for i, card in enumerate(card_order(deck), start=1):
        numbers.setdefault(card.text, []).append(i)
    return [numbers[card.text].pop(0) for card in deck]


def seating_text(players: int, rules: SequenceRules, t: Translator = ENGLISH) -> str:
    """How `players` play (docs/reference/rulings.md): their colours or teams, the hand, and the sequences to win."""
    _ = t.gettext
    count = rules.player_count(players)
    if count.teams == (players,):
        teams = _("each plays their own colour")
    else:
        teams = (" " + _("or") + " ").join(_("{teams} teams of {size}").format(teams=n, size=players // n)
                                           for n in count.teams)
    return (_("For {players} players:").format(players=players) + " " + teams + " · "
            + _("{hand} cards each").format(hand=count.hand) + " · "
            + t.ngettext("{n} sequence to win", "{n} sequences to win", count.to_win).format(n=count.to_win))


def organiser_page(seed: str, code: str, numbers_name: str, level: str, deck: Sequence[Card], paper: str,
                   t: Translator = ENGLISH, players: int | None = None, rules: SequenceRules | None = None) -> Page:
    _ = t.gettext
    width, height = paper_size(paper)
    order = [f"#{n}" for n in deck_card_numbers(deck)]
    items: list[Item] = [
        Text(MARGIN, MARGIN + 9, _("Sequence Numbers") + " · " + _("organiser"), size=20, bold=True, color=ACCENT),
        Text(MARGIN, MARGIN + 16, _("For the organiser only: the seed rebuilds the board and the deck order."), size=9),
        Text(MARGIN, MARGIN + 26, _("Seed {seed}").format(seed=display_code(seed)), size=16, bold=True),
        Text(MARGIN, MARGIN + 33, _("Game code {code}").format(code=display_code(code)) + " · "
             + _options_text(numbers_name, level, t), size=10),
        Text(MARGIN, MARGIN + 43, _("To deal the seeded game, stack the cards in this order (top first), then deal "
                                    "one"), size=8),
        Text(MARGIN, MARGIN + 47, _("at a time in seating order. Card numbers (#) are printed on the cards."), size=8),
    ]
    if players is not None:
        items.append(Text(MARGIN, MARGIN + 38.5, seating_text(players, rules or standard_rules(), t), size=9,
                          bold=True))
    per_row = 14
    for row in range(0, len(order), per_row):
        items.append(
            Text(
                MARGIN,
                MARGIN + 55 + (row // per_row) * 5,
                " ".join(f"{t:>4}" for t in order[row : row + per_row]),
                size=8,
            )
        )
    items += code_corner(width, height, qr_payload("sequence", seed=seed, numbers=numbers_name, level=level),
                         [_("Seed {seed}").format(seed=display_code(seed)), _("organiser only")])
    return Page(width, height, tuple(items), "organiser", "organiser")


def kit_document(seed: str, code: str, board: Board, deck: Sequence[Card], numbers_name: str, level: str,
                 paper: str = "a4", poster: bool = False, ink_saver: bool = False,
                 back_offset: tuple[float, float] = (0.0, 0.0), rules: SequenceRules | None = None,
                 t: Translator = ENGLISH, players: int | None = None) -> Document:
    """The whole Sequence Numbers kit; with `players`, the organiser's page says how they play and the
    chips page holds the colours they use."""
    rules = rules or standard_rules()
    _ = t.gettext
    width, height = paper_size(paper)
    pages = [organiser_page(seed, code, numbers_name, level, deck, paper, t, players, rules),
             board_page(board, code, numbers_name, level, paper, ink_saver, t)]
    if poster:
        # Twice the size of the one-page board, as large as fits on two by two pages.
        fit = min(2 * (width - 2 * MARGIN) - 8, 2 * (height - 2 * MARGIN - 12) - 8) - 5.5
        square = math.floor(fit / len(board) * 10) / 10
        drawing = board_drawing(board, square, ink_saver, t)
        total = 5 + square * len(board)
        for items, label in poster_pages(drawing, total, total, width, height,
                                         payload=qr_payload("sequence", code=code, page="board"), t=t):
            items += [Text(width - MARGIN, height - MARGIN + 2, _("Game {code}").format(code=display_code(code)),
                           size=7, align="right")]
            pages.append(Page(width, height, tuple(items), "player", f"poster {label}"))
    spare = spare_cards(len(deck), paper, t)
    pages += card_pages(deck, code, paper, ink_saver, back_offset, spare, t)
    # The rules page (holding the last cards) and its back right after the card pages, the chips last:
    # one run of pages, fronts on odd pages, to print double-sided.
    pages += rules_pages(code, paper, card_fronts(deck, code, ink_saver, t)[len(deck) - spare:],
                         _card_back(code, ink_saver, t), back_offset, t)
    pages.append(chips_page(code, paper, ink_saver, rules, t, players))
    pages[0] = replace(pages[0], items=pages[0].items + tuple(printing_note(pages, t)))
    if ink_saver:
        pages = [greyscale_page(page) for page in pages]
    shown = display_code(code)
    return Document(title=_("Sequence Numbers kit, game {code}").format(code=shown), pages=tuple(pages),
                    subject=_("Sequence Numbers") + ", " + _options_text(numbers_name, level, t) + ", "
                    + _("game code {code}").format(code=shown))
