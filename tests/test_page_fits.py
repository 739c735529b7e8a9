"""Every kit page fits the paper as a player prints and cuts it, checked on the page models.

Over kit × paper × options (hypothesis): every item inside the page; no text nearer than 5 mm to
the page edge (the printer's margin); crop marks at least 3 mm long and never through text; no
page text on a card, tile or token, nor on another page text.
"""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paperplay.render.fit import CROP_TAG, overlaps, walk
from paperplay.render.model import QR, Document, Group, Line, Page, Text, UseForm
from paperplay.render.parts import CARD_H, CARD_W, CROP_GAP, CROP_MIN, CUT_WIDTH
from paperplay.seeds import full_code, game_code
from paperplay.streetcar.pages import SQUARE, TOKEN

PRINTER_MARGIN = 5.0
COMPONENTS = {"card": (CARD_W, CARD_H), "back": (CARD_W, CARD_H), "tile": (SQUARE, SQUARE)}
INSIDE = {**COMPONENTS, "token": (TOKEN, TOKEN)}
"""Components whose own texts must stay inside their cut (the longest translation too)."""


@cache
def kit(game: str, seed: str, paper: str, ink_saver: bool = False, poster: bool = False, numbers: str = "1-48",
        players: int = 4, card_set: int = 2, lang: str = "en", seating: int | None = None) -> Document:
    """A kit's page models; `seating` is Sequence's --players (its kit prints for any number without it)."""
    from paperplay.i18n import translator

    t = translator(lang)
    if game == "streams":
        from paperplay.streams.pages import kit_document
        from paperplay.streams.rules import draw

        return kit_document(seed, full_code("streams", seed), draw(seed), players, ("Søren", "Zoë"), paper,
                            t=t)
    if game == "streetcar":
        from paperplay.streetcar.deal import deal
        from paperplay.streetcar.pages import kit_document

        return kit_document(seed, full_code("streetcar", seed), deal(seed, players, card_set), card_set, paper,
                            ink_saver, t=t)
    from paperplay.sequence.pages import kit_document
    from paperplay.sequence.rules import make_board, make_deck, number_set, number_set_name

    values = number_set(numbers)
    return kit_document(seed, full_code("sequence", seed), make_board(seed, values), make_deck(seed, values, "mixed"),
                        number_set_name(values), "mixed", paper, poster, ink_saver, t=t, players=seating)


def _component(tags: tuple[str, ...]) -> str | None:
    for tag in tags:
        kind = tag.split(":")[0]
        if kind in COMPONENTS or kind == "token":
            return kind
    return None


def cut_line_ends(page: Page) -> tuple[int, list[str]]:
    """The ends of the page's cut lines (solid CUT_WIDTH lines outside any group, as grid_lines draws
    them; pieces on one line that meet are one cut) and which of them no crop mark marks: a mark on the
    cut's line, starting no further than CROP_GAP beyond its end, running away from it for at least
    CROP_MIN. Returns (ends, lines naming the ends without a mark)."""
    cuts: dict[tuple[bool, float], list[list[float]]] = {}
    marks: list[tuple[bool, float, float, float]] = []
    for item, box, tags in walk(page.items):
        if not isinstance(item, Line) or item.dash or (box[0] != box[2] and box[1] != box[3]):
            continue
        vertical = box[0] == box[2]
        at, low, high = (box[0], box[1], box[3]) if vertical else (box[1], box[0], box[2])
        if CROP_TAG in tags:
            marks.append((vertical, at, low, high))
        elif not tags and abs(item.width - CUT_WIDTH) < 1e-9:
            cuts.setdefault((vertical, round(at, 3)), []).append([low, high])
    ends, unmarked = 0, []
    for (vertical, at), pieces in cuts.items():
        joined: list[list[float]] = []
        for low, high in sorted(pieces):
            if joined and low <= joined[-1][1] + 1e-6:
                joined[-1][1] = max(joined[-1][1], high)
            else:
                joined.append([low, high])
        for low, high in joined:
            for end, outward in ((low, -1), (high, 1)):
                ends += 1
                if not any(v == vertical and abs(a - at) < 0.01 and m_high - m_low >= CROP_MIN - 1e-6
                           and -1e-6 <= ((m_low - end) if outward > 0 else (end - m_high)) <= CROP_GAP + 1e-6
                           for v, a, m_low, m_high in marks):
                    line = f"x = {at:.1f}" if vertical else f"y = {at:.1f}"
                    point = f"y = {end:.1f}" if vertical else f"x = {end:.1f}"
                    unmarked.append(f"{page.label or 'page'} ({page.width:g} × {page.height:g}): the cut line at "
                                    f"{line} has no crop mark of 3 mm at its end at {point}")
    return ends, unmarked


def page_problems(doc: Document, page: Page) -> list[str]:
    """What a player would find wrong with one page, as readable lines."""
    items = []
    for item in page.items:
        items.extend(doc.forms[item.name] if isinstance(item, UseForm) else [item])
    where = f"{page.label or 'page'} ({page.width:g} × {page.height:g})"
    found: list[str] = []
    texts, marks = [], []
    for item, box, tags in walk(items):
        x0, y0, x1, y1 = box
        if x0 < -0.01 or y0 < -0.01 or x1 > page.width + 0.01 or y1 > page.height + 0.01:
            found.append(f"{where}: {type(item).__name__} {getattr(item, 'text', '')!r} leaves the page: {box}")
        if isinstance(item, (Text, QR)):
            texts.append((item, box, tags))
            if isinstance(item, Text) and (x0 < PRINTER_MARGIN or y0 < PRINTER_MARGIN
                                           or x1 > page.width - PRINTER_MARGIN or y1 > page.height - PRINTER_MARGIN):
                found.append(f"{where}: text {item.text!r} is within 5 mm of the page edge: {box}")
        if CROP_TAG in tags and isinstance(item, Line):
            marks.append(box)
            if max(x1 - x0, y1 - y0) < 3.0 - 1e-6:
                found.append(f"{where}: crop mark {box} is shorter than 3 mm")
    found += cut_line_ends(page)[1]
    for mark in marks:
        for item, box, _ in texts:
            if overlaps(mark, box):
                found.append(f"{where}: a crop mark {mark} crosses {getattr(item, 'text', 'a QR code')!r}")
    for item in page.items:
        kind = _component((item.tag,)) if isinstance(item, Group) else None
        if kind in INSIDE:
            w, h = INSIDE[kind]
            for inner, box, _ in walk(item.items, item.dx, item.dy):
                if isinstance(inner, Text) and (box[0] < item.dx - 0.01 or box[1] < item.dy - 0.01
                                                or box[2] > item.dx + w + 0.01 or box[3] > item.dy + h + 0.01):
                    found.append(f"{where}: text {inner.text!r} runs off its {item.tag}")
    areas = []
    for item in page.items:
        if isinstance(item, Group) and _component((item.tag,)) in COMPONENTS:
            w, h = COMPONENTS[_component((item.tag,))]
            areas.append((item.tag, (item.dx, item.dy, item.dx + w, item.dy + h)))
    loose = [(item, box) for item, box, tags in texts if isinstance(item, Text) and _component(tags) is None]
    for a, (first, one) in enumerate(loose):  # page texts running into each other (a longer translation)
        for second, other in loose[a + 1:]:
            wide, tall = min(one[2], other[2]) - max(one[0], other[0]), min(one[3], other[3]) - max(one[1], other[1])
            if wide > 0.3 and tall > 0.3:
                found.append(f"{where}: text {first.text!r} runs into {second.text!r}")
    for item, box, tags in texts:
        if _component(tags) is None:
            for tag, area in areas:
                if overlaps(box, area):
                    found.append(f"{where}: page text {getattr(item, 'text', 'QR code')!r} lies on a {tag}")
                    break
    return found


def doc_problems(doc: Document) -> list[str]:
    return [p for page in doc.pages for p in page_problems(doc, page)]


LANGS = st.sampled_from(["en", "da", "de"])
"""Every language a kit prints in: the longest translation must fit its box too."""
kits = st.one_of(
    st.fixed_dictionaries({"game": st.just("streams"), "paper": st.sampled_from(["a4", "letter"]),
                           "players": st.integers(1, 3), "lang": LANGS}),
    st.fixed_dictionaries({"game": st.just("streetcar"), "paper": st.sampled_from(["a4", "letter", "a3"]),
                           "ink_saver": st.booleans(), "players": st.integers(2, 6),
                           "card_set": st.sampled_from([2, 3]), "lang": LANGS}),
    st.fixed_dictionaries({"game": st.just("sequence"), "paper": st.sampled_from(["a4", "letter"]),
                           "ink_saver": st.booleans(), "poster": st.booleans(),
                           "numbers": st.sampled_from(["1-48", "0-47", "times-tables"]), "lang": LANGS,
                           "seating": st.sampled_from([None, 2, 3, 4, 6])}),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(options=kits, seed=st.sampled_from(["7KQ2M9XD", "S", "BENCH", "7KQ2M9XDA3BCEF", "MTTWPDKFTNVZZD"]))
def test_every_kit_page_fits_the_paper(options, seed):
    doc = kit(seed=seed, **options)
    assert doc_problems(doc) == []


EVERY = ([("streetcar", paper, {"ink_saver": ink}) for paper in ("a4", "letter", "a3") for ink in (False, True)]
         + [("sequence", paper, {"ink_saver": ink, "poster": poster}) for paper in ("a4", "letter")
            for ink in (False, True) for poster in (False, True)]
         + [("streams", paper, {}) for paper in ("a4", "letter")])


@pytest.mark.parametrize(("game", "paper", "options"), EVERY)
def test_each_kit_paper_and_option_fits(game, paper, options):
    assert doc_problems(kit(game, "7KQ2M9XD", paper, **options)) == []


TRANSLATED = ([("streetcar", paper, {"players": 6, "card_set": 3}) for paper in ("a4", "letter", "a3")]
              + [("sequence", paper, {"poster": True, "seating": 6}) for paper in ("a4", "letter")]
              + [("streams", paper, {}) for paper in ("a4", "letter")])


@pytest.mark.parametrize("lang", ["da", "de"])
@pytest.mark.parametrize(("game", "paper", "options"), TRANSLATED)
def test_each_kit_fits_in_every_language(game, paper, options, lang):
    translated = kit(game, "7KQ2M9XD", paper, lang=lang, **options)
    assert doc_problems(translated) == []
    # and on the same pages as in English: a longer rules summary must not push the deck's last card
    # (printed below the Sequence rules) onto a sheet of its own
    english = kit(game, "7KQ2M9XD", paper, **options)
    assert [page.label for page in translated.pages] == [page.label for page in english.pages]


CUT_PAGES = ([("streetcar", paper, ink, "en") for paper in ("a4", "letter", "a3") for ink in (False, True)]
             + [("sequence", paper, ink, "en") for paper in ("a4", "letter") for ink in (False, True)]
             + [("streams", paper, False, "en") for paper in ("a4", "letter")]
             + [(game, paper, False, lang) for game in ("streetcar", "sequence") for paper in ("a4", "letter")
                for lang in ("da", "de")])


@pytest.mark.parametrize(("game", "paper", "ink_saver", "lang"), CUT_PAGES)
def test_every_cut_line_ends_in_a_crop_mark_of_3_mm_at_both_ends(game, paper, ink_saver, lang):
    # The first cut along a mark runs on along the cut line: a cut line with no mark at an end (the
    # Letter card columns, the Streetcar tiles below the first page's title, a last row of a few tiles)
    # is cut by eye from there.
    options = {"ink_saver": ink_saver} if game != "streams" else {}
    doc = kit(game, "7KQ2M9XD", paper, lang=lang, **options)
    checked = [cut_line_ends(page) for page in doc.pages]
    pages_with_cuts = sum(1 for ends, _ in checked if ends)
    assert pages_with_cuts >= {"streams": 1, "streetcar": 4, "sequence": 12}[game]
    assert [line for _, unmarked in checked for line in unmarked] == []


def test_the_cut_check_finds_an_end_without_a_mark_a_short_one_and_one_too_far():
    from paperplay.render.fit import CROP_TAG as TAG
    from paperplay.render.parts import crop_marks, grid_lines

    xs, ys = [50.0, 100.0, 150.0], [50.0, 100.0]
    marks = crop_marks(xs, ys, 210, 297)
    assert cut_line_ends(Page(210, 297, (*grid_lines(xs, ys), *marks))) == (10, [])
    # a last row of one card in a 2 x 2 grid: its cuts end inside the grid's box, and are marked there
    ys = [50.0, 100.0, 150.0]
    marked = crop_marks(xs, ys, 210, 297, count=3)
    assert cut_line_ends(Page(210, 297, (*grid_lines(xs, ys, count=3), *marked)))[1] == []
    full = crop_marks(xs, ys, 210, 297)  # marks round the whole 2 x 2 box
    found = cut_line_ends(Page(210, 297, (*grid_lines(xs, ys, count=3), *full)))[1]
    assert found == ["page (210 × 297): the cut line at x = 150.0 has no crop mark of 3 mm at its end at y = 100.0",
                     "page (210 × 297): the cut line at y = 150.0 has no crop mark of 3 mm at its end at x = 100.0"]
    short = Group((Line(50, 45, 50, 47.5, width=0.3),), tag=TAG)  # 2.5 mm
    far = Group((Line(50, 40, 50, 44, width=0.3),), tag=TAG)  # 6 mm beyond the end
    for mark in (short, far):
        assert cut_line_ends(Page(210, 297, (Line(50, 50, 50, 100, width=0.3), mark)))[1][0].endswith("at y = 50.0")


def test_the_check_finds_text_on_a_card_and_a_mark_through_text():
    from paperplay.render.fit import CROP_TAG as TAG

    card = Group((Text(5, 10, "inside the card"),), 20, 20, tag="card")
    page = Page(210, 297, (card, Text(30, 40, "page text on the card"), Text(2, 100, "at the edge"),
                           Group((Line(100, 5, 100, 30, width=0.3), Line(150, 5, 150, 6, width=0.3)), tag=TAG),
                           Text(90, 20, "crossed by a mark"), Text(20, 150, "Spielsteine", size=18),
                           Text(40, 150, "Einen Satz pro Team", size=8)))
    found = page_problems(Document("t", (page,)), page)
    assert any("on a card" in p for p in found) and any("5 mm" in p for p in found)
    assert "page (210 × 297): text 'Spielsteine' runs into 'Einen Satz pro Team'" in found
    assert any("crosses 'crossed by a mark'" in p for p in found) and any("shorter than 3 mm" in p for p in found)
    assert not any("inside the card" in p for p in found)


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_a_wide_variants_large_points_stay_inside_their_cells(paper):
    """30 boxes with points of six digits: each number is shrunk to its cell (they ran together)."""
    from paperplay.streams.pages import sheets_document
    from paperplay.streams.rules import rules_from_data

    data = {"variant": "wide", "boxes": 30, "bag": [{"value": v, "count": 1} for v in range(880, 999)]
            + [{"value": "*", "count": 1}], "points": [0] + [100000 - i for i in range(30)]}
    rules = rules_from_data(data, "wide.json")
    document = sheets_document(game_code("streams", "S"), 1, paper=paper, rules=rules)
    items = [*document.pages[0].items, *(i for form in document.forms.values() for i in form)]
    numbers = [(item, box) for item, box, _tags in walk(items) if isinstance(item, Text) and item.text.isdigit()
               and int(item.text) >= 99971]
    assert len(numbers) == 30 and min(n.size for n, _box in numbers) < 8  # the points row, shrunk
    boxes = sorted(box for _n, box in numbers)
    assert all(a[2] < b[0] for a, b in zip(boxes, boxes[1:]))  # side by side, none touching the next


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_a_wide_variants_caller_sheet_keeps_each_tile_in_its_cell(paper):
    """30 tiles of three digits in 15 columns: numbers and turn labels shrink to their cells."""
    from paperplay.i18n import translator
    from paperplay.streams.pages import caller_page
    from paperplay.streams.rules import draw, rules_from_data

    data = {"variant": "wide", "boxes": 30, "bag": [{"value": v, "count": 1} for v in range(880, 999)]
            + [{"value": "*", "count": 1}], "points": [0] + [100000 - i for i in range(30)]}
    rules = rules_from_data(data, "wide.json")
    page = caller_page("S", game_code("streams", "S"), draw("S", rules), paper, rules, translator("de"))
    texts = [(item, box) for item, box, _tags in walk(page.items) if isinstance(item, Text)]
    by_row = {"key": lambda box: (round(box[3] / 10), box[0])}  # rows (42 mm apart), then left to right
    tiles = sorted((box for item, box in texts if item.text.isdigit() and int(item.text) >= 880), **by_row)
    labels = sorted((box for item, box in texts if item.text.startswith("Zug ")), **by_row)
    assert len(tiles) == 30 and len(labels) == 30
    for row in (tiles[:15], tiles[15:], labels[:15], labels[15:]):
        assert all(a[2] < b[0] for a, b in zip(row, row[1:]))  # side by side, none running into the next


@pytest.mark.parametrize("lang", ["en", "da", "de"])
@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_the_deal_slips_words_stay_between_the_cut_lines_and_off_the_fold(lang, paper):
    from paperplay.i18n import translator

    t = translator(lang)
    page = next(p for p in kit("streetcar", "7KQ2M9XD", paper, lang=lang).pages
                if any(isinstance(i, Text) and i.text == t.gettext("open only your own slip") for i in p.items))
    cuts = [i for i in page.items if isinstance(i, Line) and i.dash == (3, 2)]
    folds = sorted({i.x1 for i in page.items if isinstance(i, Line) and i.dash == (1, 1.5)})
    left, right = cuts[0].x1, cuts[0].x2
    texts = [(item, box) for item, box, _tags in walk(page.items) if isinstance(item, Text)]
    assert cuts and folds and texts
    top = min(c.y1 for c in cuts)  # the heading is above the first slip
    for item, (x0, y0, x1, _y1) in texts:
        if item.text.startswith(("Game", "Spil", "Spiel")) or x0 > folds[-1]:
            continue  # the page's corner code, and the blank flap's own words
        assert left - 0.01 <= x0 and x1 <= right + 0.01, item.text
        if y0 > top and x0 < folds[0]:
            assert x1 <= folds[0], item.text  # the seat panel's words stop at its fold
