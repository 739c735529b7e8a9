"""The Streetcar kit: data from docs/reference/rulings.md, the seeded deal, and the PDF read back."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from conftest import run_paperplay
from paperplay.seeds import shuffled
from paperplay.streetcar.data import Edge, route_cards, standard_board, tile_kinds
from paperplay.streetcar.deal import bag, deal
from paperplay.streetcar.pages import kit_document
from pdfcheck import fonts, page_sizes_mm, page_texts, qr_texts

RULINGS_TWO = ["A-F, G-L, C-F, D-F, A-L, C-E", "B-I, B-M, D-M, E-I, B-H, F-I", "C-M, F-L, H-K, E-K, D-I, B-L",
               "C-I, G-K, E-G, C-H, H-M, A-G", "B-D, B-E, B-G, H-L, A-M, A-D", "F-K, F-H, A-C, D-K, D-G, E-H"]
RULINGS_THREE = ["C-D-I, B-D-M, G-K-L, E-F-K, E-H-K, A-L-M", "F-H-K, C-F-I, G-M-L, B-H-L, D-I-M, B-F-I",
                 "B-G-L, B-L-M, C-I-M, A-D-M, A-G-K, B-F-M", "F-I-K, E-G-I, D-H-K, H-K-L, A-E-L, A-B-L",
                 "A-C-L, C-G-K, D-H-I, C-E-M, A-B-M, E-I-K", "C-G-M, G-H-L, C-D-M, A-E-I, D-F-I, E-K-L"]


def _as_rulings(card):
    return ", ".join("-".join(stops) for stops in card)


def test_route_card_data_equals_rulings():
    assert [_as_rulings(c) for c in route_cards(2)] == RULINGS_TWO
    assert [_as_rulings(c) for c in route_cards(3)] == RULINGS_THREE


def test_tile_data_equals_rulings():
    kinds = {k.id: k for k in tile_kinds()}
    assert sum(k.count for k in kinds.values()) == 126
    assert kinds["double-curve"].pieces == (frozenset({Edge.N, Edge.E}), frozenset({Edge.S, Edge.W}))
    assert [k.id for k in tile_kinds() if k.trees] == ["triangle", "branch-pair", "four-curves", "crossing",
                                                        "cross-curves-e", "cross-curves-w"]


def test_board_data_equals_rulings():
    board = standard_board()
    assert board.locations["A"] == (7, 11) and board.locations["M"] == (3, 5) and "J" not in board.locations
    t = board.terminals_of(4)
    assert [(x.number, x.side, x.squares) for x in t] == [
        (1, Edge.N, ((0, 5), (0, 6))),
        (2, Edge.S, ((11, 9), (11, 10))),
    ]


def test_deal_follows_spec_labels():
    seats = deal("7KQ2M9XD", 3, 3)
    lines = shuffled([1, 2, 3, 4, 5, 6], "streetcar/lines", "7KQ2M9XD")
    cards = shuffled([1, 2, 3, 4, 5, 6], "streetcar/routes", "7KQ2M9XD")
    assert [s.line for s in seats] == lines[:3] and [s.route_card for s in seats] == cards[:3]
    assert seats[0].stops == route_cards(3)[cards[0] - 1][lines[0] - 1]


def test_bag_leaves_out_the_starting_hands():
    tiles = bag("X", 4)
    counts = Counter(tiles)
    assert len(tiles) == 126 - 4 * 5 and counts["straight"] == 36 - 12 and counts["curve"] == 30 - 8


def test_draw_streetcar_json(cli):
    result = cli("draw", "streetcar", "--seed", "7KQ2-M9XD", "--players", "3", "--set", "3", "--json")
    document = json.loads(result.stdout)
    assert document["seats"] == [s.to_json() for s in deal("7KQ2M9XD", 3, 3)]
    assert document["bag"] == bag("7KQ2M9XD", 3)
    assert cli("draw", "streetcar", "--seed", "X", "--players", "7").exit_code == 2


@pytest.fixture(scope="module")
def kit_pdf(tmp_path_factory):
    out = tmp_path_factory.mktemp("sc") / "kit.pdf"
    result = run_paperplay("kit", "streetcar", "--seed", "7KQ2M9XD", "--players", "4", "--out", str(out))
    assert result.returncode == 0, result.stderr
    return out


def test_kit_pages_and_sizes(kit_pdf):
    sizes = page_sizes_mm(kit_pdf)
    # deal master and slips, the board on two landscape sheets, 4 card pages, 2 tile pages, tokens, rules
    assert len(sizes) == 12 and sizes[2:4] == [(297.0, 210.0)] * 2
    assert set(sizes[:2] + sizes[4:]) == {(210.0, 297.0)}


def test_a3_board_prints_whole(tmp_path):
    out = tmp_path / "a3.pdf"
    assert run_paperplay("kit", "streetcar", "--seed", "S", "--paper", "a3", "--out", str(out)).returncode == 0
    sizes = page_sizes_mm(out)
    assert sizes.count((297.0, 420.0)) == 1 and len(sizes) == 11


def test_route_cards_print_every_lines_stops(kit_pdf):
    text = " ".join(page_texts(kit_pdf))
    for card_set, cards in ((2, route_cards(2)), (3, route_cards(3))):
        for card in cards:
            for stops in card:
                assert " - ".join(stops) in text
    assert "G - M - L" in text


def test_backs_are_marked_by_type(kit_pdf):
    backs = [t for t in page_texts(kit_pdf) if "long-edge flip" in t]
    joined = " ".join(backs)
    assert joined.count("LINE") == 6 and joined.count("(2 stops)") == 6 and joined.count("(3 stops)") == 6


def test_126_tiles_of_the_right_kinds_in_the_layout():
    doc = kit_document("S", "CODECODE", deal("S", 4), 2)
    tags = Counter(i.tag for page in doc.pages for i in page.items if getattr(i, "tag", "").startswith("tile:"))
    assert tags == Counter({f"tile:{k.id}": k.count for k in tile_kinds()})


def test_deal_slips_show_only_their_seat_and_master_has_the_seed(kit_pdf):
    texts = page_texts(kit_pdf)
    assert "Seed 7KQ2-M9XD" in texts[0]
    assert qr_texts(kit_pdf, 0) == ["PAPERPLAY/1 streetcar seed=7KQ2M9XD players=4 set=2"]
    slips = texts[1]
    for seat in deal("7KQ2M9XD", 4, 2):
        assert f"Line {seat.line}" in slips and "Stops: " + " - ".join(seat.stops) in slips
    assert all("7KQ2" not in t for t in texts[1:])


def test_player_pages_carry_the_game_code_in_their_qr(kit_pdf):
    payload = qr_texts(kit_pdf, 1)
    assert len(payload) == 1 and re.fullmatch(r"PAPERPLAY/1 streetcar code=[A-Z0-9]{8} page=deal-slips", payload[0])


def test_kit_is_byte_identical(tmp_path, kit_pdf):
    again = tmp_path / "again.pdf"
    run_paperplay("kit", "streetcar", "--seed", "7KQ2M9XD", "--players", "4", "--out", str(again))
    assert again.read_bytes() == kit_pdf.read_bytes()


def test_every_page_prints_the_game_code(kit_pdf):
    for text in page_texts(kit_pdf)[1:]:
        assert re.search(r"Game [A-Z0-9]{4}-[A-Z0-9]{4}", text)


def test_letter_card_pages_carry_a_qr_code_that_reads_at_200_dpi(tmp_path):
    out = tmp_path / "letter.pdf"
    result = run_paperplay("kit", "streetcar", "--seed", "7KQ2M9XD", "--paper", "letter", "--out", str(out))
    assert result.returncode == 0, result.stderr
    for page in (4, 5, 6, 7):  # fronts and backs of both card sheets, the code small in the corner
        assert qr_texts(out, page, dpi=200) == ["PAPERPLAY/1 streetcar code=ENEW6ZAQ page=cards"], page


def test_board_poster_pages_and_card_pages_carry_a_qr_code(kit_pdf):
    assert qr_texts(kit_pdf, 2, dpi=300)[0].endswith("page=board part=1")
    assert qr_texts(kit_pdf, 4, dpi=300)[0].endswith("page=cards")


def test_every_font_the_kit_lists_is_embedded(kit_pdf):
    listed = fonts(kit_pdf)
    assert len(listed) == 2 and all("BitstreamVeraSans" in name and embedded for name, embedded in listed), listed


def test_the_font_check_tells_an_embedded_font_from_a_listed_one(tmp_path):
    from reportlab.pdfgen.canvas import Canvas

    from paperplay.render.pdf import FONT, _register_fonts

    _register_fonts()
    path = tmp_path / "two.pdf"
    canvas = Canvas(str(path))
    canvas.setFont("Helvetica", 10)  # one of the 14 standard fonts: listed, never embedded
    canvas.drawString(50, 50, "listed")
    canvas.setFont(FONT, 10)
    canvas.drawString(50, 70, "embedded")
    canvas.save()
    assert sorted((name.split("+")[-1], embedded) for name, embedded in fonts(path)) == [
        ("BitstreamVeraSans-Roman", True), ("Helvetica", False)]


def test_no_cards_bleed_is_drawn_over_a_neighbour():
    # A route card's blue bleed was painted over the line cards above it (a 2.5 mm strip inside their
    # cut): every card's bleed comes first, then each card clipped to its own cut.
    from paperplay.games import find_game
    from paperplay.render.model import Group
    from paperplay.render.parts import CARD_H, CARD_W

    for page in find_game("streetcar").kit("7KQ2-M9XD").pages:
        tags = [item.tag for item in page.items if isinstance(item, Group)]
        if "card" not in tags and "back" not in tags:
            continue
        faces = [item for item in page.items if isinstance(item, Group) and item.tag in ("card", "back")]
        assert all(face.clip == (face.dx, face.dy, CARD_W, CARD_H) for face in faces)
        last_bleed = max(i for i, tag in enumerate(tags) if tag == "bleed")
        assert last_bleed < min(i for i, tag in enumerate(tags) if tag in ("card", "back"))
