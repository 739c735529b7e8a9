"""The print-polish fixes of the kit pages, checked on the page models."""

from __future__ import annotations

import unicodedata

import pytest

from paperplay.render.model import Line, Text
from paperplay.sequence.pages import board_drawing, reads_otherwise_turned, underlines
from paperplay.sequence.rules import make_board, number_set


def test_numbers_that_read_otherwise_upside_down():
    assert [n for n in range(1, 100) if reads_otherwise_turned(str(n))] == [
        6, 9, 16, 18, 19, 61, 66, 68, 81, 86, 89, 91, 98, 99]
    assert not reads_otherwise_turned("8") and not reads_otherwise_turned("10") and not reads_otherwise_turned("69")


def test_sequence_board_underlines_6_9_and_18_81():
    board = make_board("7KQ2M9XD", number_set("times-tables"))
    items = board_drawing(board, 18.0)
    numbers = [i for i in items if isinstance(i, Text) and i.text.isdigit() and i.size > 10]
    lines = [i for i in items if isinstance(i, Line)]
    turned = [t for t in numbers if reads_otherwise_turned(t.text)]
    assert turned and len(lines) == len(turned)
    for text in turned:  # each line sits just under its own number
        assert any(abs(line.y1 - text.y) < 1.5 and abs((line.x1 + line.x2) / 2 - text.x) < 0.5 for line in lines)


def test_equation_underlines_only_the_turnable_numbers():
    lines = underlines(Text(30, 40, "6 × 9 + 18", size=14, bold=True, align="center"))
    assert len(lines) == 3 and lines[0].x2 < lines[1].x1 < lines[2].x1
    assert underlines(Text(30, 40, "7 × 8", size=14)) == []


def _streetcar(players=4, paper="a4", ink_saver=False):
    from paperplay.streetcar.deal import deal
    from paperplay.streetcar.pages import kit_document

    return kit_document("S", "CODECODE", deal("S", players), 2, paper, ink_saver)


def test_starting_hands_print_one_row_per_seat_in_play():
    from paperplay.render.model import Group

    for players in (2, 4, 6):
        first = next(p for p in _streetcar(players).pages if p.label == "tiles")
        labels = [i.text for i in first.items if isinstance(i, Text) and i.text.startswith("< seat")]
        assert labels == [f"< seat {n}" for n in range(1, players + 1)]
        texts = " ".join(i.text for i in first.items if isinstance(i, Text))
        assert f"({players} players)" in texts and "bag" in texts
        assert sum(isinstance(i, Group) and i.tag.startswith("tile:") for i in first.items) > 5 * players


def test_tiles_fill_two_pages_and_bleed_past_the_cut():
    from paperplay.render.model import Group, Rect
    from paperplay.streetcar.pages import SQUARE

    for paper in ("a4", "letter"):
        tiles = [p for p in _streetcar(6, paper).pages if p.label == "tiles"]
        assert len(tiles) == 2
        page = tiles[-1]
        groups = [i for i in page.items if isinstance(i, Group) and i.tag.startswith("tile:")]
        bleeds = [i for i in page.items if isinstance(i, Rect) and i.fill and i.w > SQUARE]
        assert len(bleeds) == len(groups) and all(b.w == SQUARE + 5 for b in bleeds)
    ink = [p for p in _streetcar(4, "a4", ink_saver=True).pages if p.label == "tiles"]
    assert not any(isinstance(i, Rect) and i.fill and i.w > SQUARE for p in ink for i in p.items)


def test_board_takes_two_landscape_sheets_that_meet_at_a_grid_line():
    from paperplay.render.model import Group, Polygon
    from paperplay.streetcar.data import Edge, standard_board
    from paperplay.streetcar.pages import SQUARE, board_origin

    # rows 0-4 and 5-11: the line nearest the middle that no terminal on the left or right edge spans
    # (theirs are rows 1-2, 5-6 and 9-10), so that no terminal's badge is cut in two
    for terminal in standard_board().terminals:
        if terminal.side in (Edge.E, Edge.W):
            assert len({row >= 5 for row, _ in terminal.squares}) == 1, terminal
    for paper, width in (("a4", 297.0), ("letter", 279.4)):
        boards = [p for p in _streetcar(4, paper).pages if p.label.startswith("board")]
        assert [(p.width, p.label) for p in boards] == [(width, "board 1 of 2"), (width, "board 2 of 2")]
        clips = [next(i for i in p.items if isinstance(i, Group) and i.tag == "board").clip for p in boards]
        top = clips[0][1]
        seam = top + board_origin() + 5 * SQUARE
        assert abs(clips[0][1] + clips[0][3] - (seam + 8.0)) < 1e-6  # sheet 1: rows 0-4 and the glue strip
        assert "rows 0-4 and a glue strip" in " ".join(i.text for i in boards[0].items if isinstance(i, Text))
        texts = [" ".join(i.text for i in p.items if isinstance(i, Text)) for p in boards]
        assert "trim" in texts[1].lower() and "dashed" in texts[0]
        for page in boards:  # alignment triangles touch the seam from both sides, outside the glue strip
            assert sum(isinstance(i, Polygon) for i in page.items) == 3


def test_board_shows_each_terminals_track_entering_both_its_squares():
    from paperplay.streetcar.data import standard_board
    from paperplay.streetcar.pages import TRACK, board_drawing

    board = standard_board()
    stubs = [i for i in board_drawing(board) if isinstance(i, Line) and i.color == TRACK]
    assert len(stubs) == 2 * len(board.terminals)


def test_ink_saver_pages_are_greyscale_outlines():
    from paperplay.render.fit import walk
    from paperplay.render.model import QR

    def colours(doc):
        for page in doc.pages:
            for item, box, _ in walk(page.items):
                if isinstance(item, QR):
                    continue
                area = (box[2] - box[0]) * (box[3] - box[1])
                yield getattr(item, "color", "#000000"), getattr(item, "fill", None), area

    for doc in (_streetcar(4, "a4", ink_saver=True), _sequence(ink_saver=True)):
        for colour, fill, area in colours(doc):
            for c in (colour, fill):
                assert c is None or c[1:3] == c[3:5] == c[5:7], c
            assert fill in (None, "#ffffff") or area <= 130, (fill, area)
    assert any(c[1:3] != c[3:5] for c, _, _ in colours(_streetcar(4, "a4")))


def test_card_pages_keep_their_qr_code_on_a4_and_letter_fronts_and_backs():
    from paperplay.render.model import QR

    for paper, sheets in (("a4", 2), ("letter", 3)):  # 18 cards nine to a sheet, six on Letter
        pages = [p for p in _streetcar(4, paper).pages if p.label in ("cards", "card backs")]
        assert len(pages) == 2 * sheets and all(any(isinstance(i, QR) and i.size >= 8.0 for i in p.items)
                                                for p in pages)


OFFSETS = [(0.0, 0.0), (-2.0, -2.0), (2.0, 1.0), (0.0, -2.0), (5.0, 0.0), (-5.0, 0.0), (0.0, 5.0), (0.0, -5.0),
           (5.0, 5.0), (-5.0, -5.0), (3.5, -4.0), (-3.0, 3.0)]
"""--back-offset values up to the 5 mm each way that print_cmds accepts."""


def _card_sheet_pages(paper, back_offset=(0.0, 0.0), lang="en"):
    """The card pages of the Streetcar and Sequence kits, with their grid's cut lines (a back page's
    moved by back_offset)."""
    from paperplay.i18n import translator
    from paperplay.render.paper import paper_size
    from paperplay.render.parts import card_grid, sheet_grid
    from paperplay.sequence.pages import kit_document as sequence_kit
    from paperplay.sequence.rules import make_board, make_deck, number_set, number_set_name
    from paperplay.streetcar.deal import deal
    from paperplay.streetcar.pages import kit_document as streetcar_kit

    width, height = paper_size(paper)
    xs, ys = card_grid(width, height, *sheet_grid(width, height))
    values = number_set("1-48")
    t = translator(lang)
    for doc in (streetcar_kit("S", "CODECODE", deal("S", 4), 2, paper, back_offset=back_offset, t=t),
                sequence_kit("S", "CODECODE", make_board("S", values), make_deck("S", values, "mixed"),
                             number_set_name(values), "mixed", paper, back_offset=back_offset, t=t)):
        for page in doc.pages:
            if page.label.startswith("card"):
                dx, dy = back_offset if "back" in page.label else (0.0, 0.0)
                yield page, [x + dx for x in xs], [y + dy for y in ys]


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("back_offset", OFFSETS)
def test_card_pages_print_nothing_in_the_5_mm_margin(paper, back_offset):
    """Nothing but the moved backs themselves (their bleed, on Letter their cut too) in the margin."""
    from paperplay.render.fit import walk

    pages = list(_card_sheet_pages(paper, back_offset))
    assert len(pages) == {"a4": 4 + 22, "letter": 6 + 34}[paper]  # Letter: six cards a sheet (sheet_grid)
    for page, _, _ in pages:
        moved = "back" in page.label and back_offset != (0.0, 0.0)
        # a back is drawn as its bleed layer ("bleed") and its face clipped to the cut ("back")
        for item, box, _ in walk(i for i in page.items if not (moved and getattr(i, "tag", "") in ("back", "bleed"))):
            assert box[0] >= 5 - 1e-6 and box[1] >= 5 - 1e-6, (page.label, item)
            assert box[2] <= page.width - 5 + 1e-6 and box[3] <= page.height - 5 + 1e-6, (page.label, item)


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("back_offset", OFFSETS)
def test_card_page_texts_and_qr_codes_keep_off_the_cards_bleed(paper, back_offset):
    from paperplay.render.fit import walk
    from paperplay.render.model import QR, Rect
    from paperplay.render.parts import BLEED

    for page, xs, ys in _card_sheet_pages(paper, back_offset):
        bleed = (xs[0] - BLEED, ys[0] - BLEED, xs[-1] + BLEED, ys[-1] + BLEED)
        cards = (xs[0], ys[0], xs[-1], ys[-1])
        top_level = list(walk(i for i in page.items if getattr(i, "tag", "") not in ("card", "back")))
        for item, box, _ in top_level:
            if isinstance(item, Text):
                assert _gap(box, bleed) > 0.3, (page.label, item.text)
            if isinstance(item, QR):
                assert _gap(box, cards) >= 1.0, page.label
                # On a white square, its quiet zone, on every side not at the page margin (Letter: over
                # the bleed; A4: where --back-offset may move the backs' bleed).
                edges = (5.0, 5.0, page.width - 5.0, page.height - 5.0)
                wanted = [box[k] if abs(box[k] - edges[k]) < 1e-6 else box[k] + (0.5 if k > 1 else -0.5)
                          for k in range(4)]
                assert any(isinstance(i, Rect) and i.fill == "#ffffff" and _gap(b, cards) >= 0.5
                           and b[0] <= wanted[0] + 1e-6 and b[1] <= wanted[1] + 1e-6
                           and b[2] >= wanted[2] - 1e-6 and b[3] >= wanted[3] - 1e-6 for i, b, _ in top_level)


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("lang", ["en", "da", "de"])
def test_side_texts_keep_the_margin_and_the_bleed_with_accented_letters(paper, lang):
    # Read upwards, a side text's letters reach left of its baseline by their ascent (0.93 em with a
    # mark above a letter: the ring of å), right by their descent (0.24 em).
    from paperplay.render.parts import BLEED

    accented = 0
    for page, xs, ys in _card_sheet_pages(paper, lang=lang):
        for item in page.items:
            if not (isinstance(item, Text) and item.angle == 90):
                continue
            marks = any(unicodedata.combining(c) for c in unicodedata.normalize("NFD", item.text))
            accented += marks
            em = item.size * 25.4 / 72
            left, right = item.x - (0.93 if marks else 0.76) * em, item.x + 0.24 * em
            assert left >= 5 - 1e-6 and right <= page.width - 5 + 1e-6, (page.label, item.text)
            assert right <= xs[0] - BLEED - 0.3 or left >= xs[-1] + BLEED + 0.3, (page.label, item.text)
            assert item.size >= 5.5
    assert accented or lang == "en"


def _sequence(paper="a4", ink_saver=False, numbers="1-48"):
    from paperplay.sequence.pages import kit_document
    from paperplay.sequence.rules import make_board, make_deck, number_set, number_set_name

    values = number_set(numbers)
    return kit_document("S", "CODECODE", make_board("S", values), make_deck("S", values, "mixed"),
                        number_set_name(values), "mixed", paper, ink_saver=ink_saver)


def test_route_pdf_numbers_every_space_terminals_too_and_names_the_stops():
    from paperplay.render.model import Rect
    from paperplay.streetcar.data import standard_board
    from paperplay.streetcar.pages import state_document
    from paperplay.streetcar.route import Step

    board = standard_board()
    t = board.terminals_of(1)[1]
    steps = [Step(square=(5, 1)), Step(square=(5, 0), stops=("E",)), Step(terminal=t), Step(square=(6, 0)),
             Step(square=(5, 1))]
    page = state_document(board, [], {}, steps, "test").pages[0]
    group = next(i for i in page.items if hasattr(i, "items"))
    labels = [i.text for i in group.items if isinstance(i, Text) and i.size == 5 and i.bold]
    assert sorted(labels) == sorted(["1/5", "2", "3", "4", "stop E"])
    squares = [i for i in group.items if isinstance(i, Rect) and i.fill == "#ffe066"]
    assert all(r.w < 8 and r.h < 3 for r in squares)  # small tags in a corner, not over the track
    texts = " ".join(i.text for i in page.items if isinstance(i, Text))
    assert "(5 spaces)" in texts and "3 terminal 1.2" in texts and "2 [5,0] stop E" in texts


def _gap(a, b):
    """The distance between two boxes (0 when they touch or overlap)."""
    dx = max(b[0] - a[2], a[0] - b[2], 0)
    dy = max(b[1] - a[3], a[1] - b[3], 0)
    return max(dx, dy)


def test_card_texts_keep_clear_of_the_qr_code_and_the_swatches():
    from paperplay.render.fit import walk
    from paperplay.render.model import QR, Rect
    from paperplay.sequence.pages import _card_front
    from paperplay.sequence.rules import MINUS, PLUS, Card
    from paperplay.streetcar.pages import _route_card

    for kind in (PLUS, MINUS):
        items = list(walk(_card_front(Card(kind), 100, "CODECODE", False)))
        qr = next(box for item, box, _ in items if isinstance(item, QR))
        for item, box, _ in items:
            if isinstance(item, Text) and not item.text.startswith("#"):
                assert _gap(box, qr) >= 3.0, item.text
    items = list(walk(_route_card(3, 6, False)))
    footer = next(box for item, box, _ in items if isinstance(item, Text) and item.text.startswith("Stop at"))
    swatches = [box for item, box, _ in items if isinstance(item, Rect) and item.color == "#000000" and item.w == 9]
    assert len(swatches) == 6 and min(_gap(footer, s) for s in swatches) >= 2.0


def test_deal_slips_fold_so_the_seat_shows_and_the_deal_hides():
    from paperplay.streetcar.deal import deal
    from paperplay.streetcar.pages import deal_pages

    slips = deal_pages("S", "CODECODE", deal("S", 3), 2, "a4", False)[1]
    folds = sorted({i.x1 for i in slips.items if isinstance(i, Line) and i.dash == (1, 1.5)})
    assert len(folds) == 2
    seat_panel, deal_panel = folds[0] - 10, folds[1] - folds[0]
    flap = 210 - 10 - folds[1]
    assert flap >= deal_panel - 1e-6 and seat_panel > 0  # the flap covers the deal panel whole
    for item in slips.items:
        if isinstance(item, Text) and item.text.startswith("Seat "):
            assert item.x < folds[0]
        if isinstance(item, Text) and item.text.startswith("Stops: "):
            assert folds[0] < item.x < folds[1]


def test_sequence_deck_of_100_needs_no_sheet_for_its_last_card():
    from paperplay.render.model import Group

    # A4: 11 sheets of nine and the last card on the rules page. Letter: six a sheet, 16 sheets and the
    # last four cards on a 17th (the rules page holds one row of three).
    for paper, sheets, per_sheet, spare in (("a4", 11, 9, 1), ("letter", 17, 6, 0)):
        doc = _sequence(paper)
        fronts = [p for p in doc.pages if any(isinstance(i, Group) and i.tag == "card" for i in p.items)]
        backs = [p for p in doc.pages if any(isinstance(i, Group) and i.tag == "back" for i in p.items)]
        assert sum(isinstance(i, Group) and i.tag == "card" for p in fronts for i in p.items) == 100
        assert sum(isinstance(i, Group) and i.tag == "back" for p in backs for i in p.items) == 100
        on_sheets = [p for p in fronts if p.label != "rules"]
        assert len(on_sheets) == sheets and len(fronts) == sheets + (spare > 0)
        assert (fronts[-1].label == "rules" and doc.pages[-2].label == "rules backs") == (spare > 0)
        # One run to print double-sided: every front (the rules page too) on an odd page, its back next.
        numbers = [doc.pages.index(page) + 1 for page in fronts]
        assert all(n % 2 == 1 and doc.pages[n].label.endswith("backs") for n in numbers)
        assert doc.pages[-1].label.startswith("chips")
        counts = [sum(isinstance(i, Group) and i.tag == "card" for i in p.items) for p in on_sheets]
        assert counts == [per_sheet] * (sheets - 1) + [100 - spare - per_sheet * (sheets - 1)]


def test_rules_summaries_are_data_files_shipped_with_the_package():
    import tomllib
    from pathlib import Path

    from paperplay.resources import load_lines

    root = Path(__file__).parent.parent
    globs = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-data"]
    for game in ("streetcar", "sequence"):
        lines = load_lines(f"{game}/rules.txt")
        assert len(lines) > 10 and "rules" in lines[0].lower()
    data = [p for p in (root / "templates").rglob("*") if p.is_file() and p.suffix not in (".py", ".pyc")]
    assert all(f"**/*{p.suffix}" in globs["paperplay.templates"] for p in data)
    assert any("both of its edge squares" in line for line in load_lines("streetcar/rules.txt"))


def test_car_tokens_bleed_past_the_blocks_bottom_cut_and_their_label_sits_on_white():
    from paperplay.render.fit import walk
    from paperplay.render.model import Rect
    from paperplay.render.parts import BLEED
    from paperplay.streetcar.pages import TOKEN, _car_token

    for line in range(1, 7):
        items = list(walk(_car_token(line, False)))
        rects = [(item, box) for item, box, _ in items if isinstance(item, Rect)]
        fill = max((box for _, box in rects), key=lambda b: (b[2] - b[0]) * (b[3] - b[1]))
        assert fill[3] >= TOKEN + BLEED - 1e-9
        outline = [item for item, _ in rects if item.fill is None and item.color == "#000000"]
        assert len(outline) == 1 and outline[0].h == TOKEN  # the black outline stays on the cut
        label = next(box for item, box, _ in items if isinstance(item, Text) and item.text == "CAR")
        assert any(isinstance(item, Rect) and item.fill == "#ffffff" and b[0] < label[0] and b[2] > label[2]
                   and b[1] < label[1] and b[3] >= label[3] for item, b, _ in items)


def test_board_coordinates_keep_clear_of_the_terminal_bars():
    from paperplay.render.fit import walk
    from paperplay.streetcar.data import standard_board
    from paperplay.streetcar.pages import SQUARE, board_drawing, board_origin

    board = standard_board()
    items = list(walk(board_drawing(board)))
    d, side = board_origin(), board.cols * SQUARE
    labels = [box for item, box, _ in items if isinstance(item, Text) and item.color == "#888888"]
    outside = [box for item, box, _ in items if not isinstance(item, Text)
               and (box[0] < d - 0.1 or box[1] < d - 0.1 or box[2] > d + side + 0.1 or box[3] > d + side + 0.1)]
    assert len(labels) == 2 * (board.rows + board.cols) and outside  # the bars, their stubs and discs
    assert min(_gap(label, bar) for label in labels for bar in outside) >= 0.4


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_streams_tile_marks_run_to_the_page_margin_but_not_into_the_side_panel(paper):
    from paperplay.render.fit import CROP_TAG, walk
    from paperplay.render.model import Group
    from paperplay.streams.api import kit

    page = next(p for p in kit("7KQ2M9XD", {"players": 2, "paper": paper}).pages if p.label == "tiles")
    marks = [i for g in page.items if isinstance(g, Group) and g.tag == CROP_TAG for i in g.items]
    tops = [m for m in marks if m.x1 == m.x2 and m.y2 < m.y1]
    assert tops and all(abs(m.y2 - 5.0) < 1e-6 for m in tops)
    bottoms = [m for m in marks if m.x1 == m.x2 and m.y2 > m.y1]
    assert sum(abs(m.y2 - (page.height - 5.0)) < 1e-6 for m in bottoms) >= len(bottoms) - 1  # one stops at the code
    panel = min(box[0] for item, box, _ in walk(page.items) if isinstance(item, Text) and item.text == "Streams tiles")
    assert max(max(m.x1, m.x2) for m in marks) < panel - 1.0


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_the_two_board_sheets_carry_a_page_map_with_their_own_sheet_filled(paper):
    from paperplay.render.model import Rect
    from paperplay.render.parts import MAP_CELL

    boards = [p for p in _streetcar(4, paper).pages if p.label.startswith("board")]
    assert len(boards) == 2
    for part, page in enumerate(boards):
        cells = [i for i in page.items if isinstance(i, Rect) and i.w == i.h == MAP_CELL]
        assert len(cells) == 2 and cells[0].x == cells[1].x and cells[1].y - cells[0].y == MAP_CELL
        assert [c.fill is not None for c in cells] == [part == 0, part == 1]


@pytest.mark.parametrize(("game", "options", "first", "last"), [
    ("sequence", {}, 3, 26),                      # organiser, board; 11 card sheets and the rules page, backs too
    ("sequence", {"poster": True}, 7, 30),        # four poster pages before the cards
    ("streetcar", {"players": 3}, 5, 8),          # deal master, slips, two board sheets; two card sheets
    ("streetcar", {"players": 3, "paper": "a3"}, 4, 7),  # the board whole on one A3 page
])
def test_the_first_page_says_which_pages_print_double_sided(game, options, first, last):
    from paperplay.games import find_game

    doc = find_game(game).kit("7KQ2M9XD", **options)
    sides = [page.side for page in doc.pages]
    # the run from the first front to the last back alternates front, back; nothing else is two-sided
    assert sides[first - 1:last] == ["front", "back"] * ((last - first + 1) // 2)
    assert set(sides[:first - 1] + sides[last:]) == {""}
    texts = [item.text for item in doc.pages[0].items if isinstance(item, Text)]
    assert (f"Printing: pages {first}-{last} double-sided, flipped on the long edge (the cards and their backs);"
            in texts)
    assert "all other pages one-sided; all at 100% / actual size." in texts


def test_a_kit_with_nothing_two_sided_prints_no_printing_note():
    from paperplay.games import find_game

    doc = find_game("streams").kit("7KQ2M9XD")
    assert {page.side for page in doc.pages} == {""}
    assert not any(isinstance(item, Text) and item.text.startswith("Printing:") for item in doc.pages[0].items)


@pytest.mark.parametrize("game", ["sequence", "streetcar"])
@pytest.mark.parametrize("seed", ["S", "ABCDEFGHIJKLMNOP", "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"])
@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_the_printing_note_clears_the_qr_corner_for_any_seed(game, seed, lang, paper):
    from paperplay.games import find_game
    from paperplay.render.fit import all_boxes, overlaps, text_box

    page = find_game(game).kit(seed, paper=paper, lang=lang).pages[0]
    note = [item for item in page.items if isinstance(item, Text)][-2:]  # the note is added last
    assert note[0].text.startswith(("Printing:", "Drucken:")) and note[0].size == note[1].size >= 7
    others = all_boxes([item for item in page.items if item not in note])  # texts, the QR code, lines, shapes
    for line in note:
        for box in others:
            assert not overlaps(text_box(line), box, pad=1.0), (line.text, box)


@pytest.mark.parametrize("lang", ["en", "da", "de"])
def test_the_streams_tiles_page_says_how_to_check_a_game_drawn_from_the_bag(lang):
    from paperplay.games import find_game

    doc = find_game("streams").kit("1", lang=lang)  # seed 1 draws the wild 18th
    tiles = next(page for page in doc.pages if page.label == "tiles")
    assert "paperplay score --draw 11,3,*,…" in [item.text for item in tiles.items if isinstance(item, Text)]
    caller = doc.pages[0]  # the wild's name under its star
    wild = {"en": "wild", "da": "joker", "de": "Joker"}[lang]
    assert wild in [item.text for item in caller.items if isinstance(item, Text)]
