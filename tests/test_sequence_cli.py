"""Sequence Numbers from the command line: draw, kit PDF read back, verify with exit codes."""

from __future__ import annotations

import json

import pytest

from conftest import DATA, run_paperplay
from paperplay.sequence.pages import kit_document
from paperplay.sequence.rules import make_board, make_deck, number_set
from pdfcheck import page_sizes_mm, page_texts, qr_texts
from pypdf import PdfReader


def test_draw_sequence_json(cli):
    result = cli("draw", "sequence", "--seed", "7KQ2-M9XD", "--level", "add", "--numbers", "0-47", "--json")
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["numbers"] == "0-47" and document["level"] == "add"
    assert document["board"] == [list(r) for r in make_board("7KQ2M9XD", number_set("0-47"))]
    assert document["deck"] == [c.text for c in make_deck("7KQ2M9XD", number_set("0-47"), "add")]


def test_draw_sequence_text_shows_board_and_deck(cli):
    result = cli("draw", "sequence", "--seed", "7KQ2-M9XD")
    assert "FREE" in result.stdout and "Deck order" in result.stdout and "100. #" in result.stdout


@pytest.fixture(scope="module")
def kit_pdf(tmp_path_factory):
    out = tmp_path_factory.mktemp("seq") / "kit.pdf"
    result = run_paperplay("kit", "sequence", "--seed", "7KQ2M9XD", "--level", "add-sub", "--out", str(out))
    assert result.returncode == 0, result.stderr
    return out


def test_kit_pages(kit_pdf):
    sizes = page_sizes_mm(kit_pdf)
    # organiser, board, 11 card fronts + 11 backs, chips, rules with the 100th card and its back
    assert len(sizes) == 27 and set(sizes) == {(210.0, 297.0)}


def test_kit_board_page_shows_options_and_code(kit_pdf):
    texts = page_texts(kit_pdf)
    assert "numbers 1-48 · level add-sub" in texts[1]
    payloads = qr_texts(kit_pdf, 1)
    assert len(payloads) == 1 and payloads[0].startswith("PAPERPLAY/1 sequence code=")
    assert "numbers=1-48 level=add-sub page=board" in payloads[0]


def test_kit_organiser_page_has_the_seed_and_no_player_page_does(kit_pdf):
    texts = page_texts(kit_pdf)
    assert "Seed 7KQ2-M9XD" in texts[0]
    assert qr_texts(kit_pdf, 0) == ["PAPERPLAY/1 sequence seed=7KQ2M9XD numbers=1-48 level=add-sub"]
    assert all("7KQ2" not in t for t in texts[1:])


def test_every_card_is_printed_once(kit_pdf):
    deck = make_deck("7KQ2M9XD", number_set("1-48"), "add-sub")
    texts = page_texts(kit_pdf)
    fronts = " ".join(texts[2:24:2] + texts[24:25])  # 11 card sheets, then the rules page (the chips last)
    assert "Chips" in texts[-1] and all(text.count("MINUS") == 0 for text in texts[26:])
    for card in deck:
        if card.kind == "equation":
            assert card.text.replace(" x ", " × ").replace(" / ", " ÷ ").replace(" - ", " − ") in fronts
    assert fronts.count("PLUS") == 2 and fronts.count("MINUS") == 2


def test_card_backs_follow_their_fronts_mirrored():
    board = make_board("S", number_set("1-48"))
    deck = make_deck("S", number_set("1-48"), "mixed")
    doc = kit_document("S", "CODECODE", board, deck, "1-48", "mixed", back_offset=(1.5, -1.0))
    fronts, backs = doc.pages[2], doc.pages[3]
    assert fronts.label == "cards 1 fronts" and backs.label == "cards 1 backs"
    front_x = sorted({round(i.dx, 2) for i in fronts.items if getattr(i, "tag", "") == "card"})
    back_x = sorted({round(i.dx, 2) for i in backs.items if getattr(i, "tag", "") == "back"})
    assert back_x == [round(x + 1.5, 2) for x in front_x]
    # Card 1 (top left on the front) is printed top right on the back.
    first_front = next(i for i in fronts.items if getattr(i, "tag", "") == "card")
    assert first_front.dx == min(front_x)


def test_each_card_front_carries_a_qr_code(kit_pdf):
    payloads = qr_texts(kit_pdf, 2, dpi=300)
    assert len(payloads) == 9 and all(p.startswith("PAPERPLAY/1 sequence code=") for p in payloads)
    assert {p.split("card=")[1] for p in payloads} == {str(n) for n in range(1, 10)}


def test_kit_is_byte_identical_for_the_same_seed(tmp_path, kit_pdf):
    again = tmp_path / "again.pdf"
    run_paperplay("kit", "sequence", "--seed", "7KQ2M9XD", "--level", "add-sub", "--out", str(again))
    assert again.read_bytes() == kit_pdf.read_bytes()


def test_poster_pages_tile_the_board(tmp_path):
    out = tmp_path / "poster.pdf"
    result = run_paperplay("kit", "sequence", "--seed", "P", "--poster", "--ink-saver", "--paper", "letter",
                           "--out", str(out))
    assert result.returncode == 0, result.stderr
    texts = page_texts(out)
    poster = [t for t in texts if "Poster page" in t]
    assert len(poster) == 4 and "row 2 of 2, column 2 of 2" in poster[-1]
    assert set(page_sizes_mm(out)) == {(215.9, 279.4)}


def test_bad_kit_options(cli):
    assert "--numbers" in cli("kit", "sequence", "--numbers", "1-40").stderr
    assert cli("kit", "sequence", "--level", "hard").exit_code == 2
    assert "--back-offset" in cli("kit", "sequence", "--back-offset", "x").stderr
    far = cli("kit", "sequence", "--back-offset", "5.5,0")
    assert far.exit_code == 2 and far.stderr == ("paperplay: error: --back-offset: is '5.5,0'; expected a duplex "
                                                 "printer's drift of at most 5 mm each way, e.g. 1.5,-0.5\n")


def test_verify_example_game_log(cli):
    result = cli("verify", str(DATA / "sequence-game.json"), "--json")
    assert result.exit_code == 0, result.stderr
    row = json.loads(result.stdout)["results"][0]
    assert row["winner"] == "red" and row["valid"] is True


def test_verify_position_exit_codes(cli, write_json):
    good = write_json("pos.json", {"game": "sequence", "players": 2, "board_seed": "7KQ2M9XD",
                                   "chips": {"red": [[0, 1], [0, 2], [0, 3], [0, 4]], "blue": [[5, 5]]}})
    result = cli("verify", str(good), "--json")
    assert result.exit_code == 0
    row = json.loads(result.stdout)["results"][0]
    assert row == {"file": str(good), "valid": True, "sequences": {"red": 1, "blue": 0},
                   "lines": {"red": [[[0, 0], [0, 1], [0, 2], [0, 3], [0, 4]]], "blue": []},
                   "winner": "red", "problems": []}
    bad = write_json("bad.json", {"game": "sequence", "players": 2, "board_seed": "X", "chips": {"red": [[0, 0]]}})
    assert cli("verify", str(bad)).exit_code == 1
    five = write_json("five.json", {"game": "sequence", "players": 5, "board_seed": "X", "chips": {"red": []}})
    result = cli("verify", str(five))
    assert result.exit_code == 2 and "5 cannot split into equal teams" in result.stderr


def test_verify_broken_log_names_turn_player_and_rule(cli, tmp_path):
    log = json.loads((DATA / "sequence-game.json").read_text(encoding="utf-8"))
    log["turns"][4]["square"] = [0, 0]
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    result = cli("verify", str(path))
    assert result.exit_code == 1
    assert "turn 5 (P1) sequence/corner" in result.stdout


@pytest.mark.parametrize(("players", "said", "colours"), [
    ("2", "For 2 players: each plays their own colour · 5 cards each · 1 sequence to win", 2),
    pytest.param("3", "For 3 players: each plays their own colour · 5 cards each · 1 sequence to win", 3,
                 marks=pytest.mark.slow),  # the same sentence as 2 players' (a long test: the default suite's limit)
    ("4", "For 4 players: 2 teams of 2 · 4 cards each · 2 sequences to win", 2),
    ("6", "For 6 players: 2 teams of 3 or 3 teams of 2 · 4 cards each · 2 sequences to win", 3),
])
def test_kit_for_a_number_of_players_says_how_they_play_and_prints_their_colours(tmp_path, cli, players, said,
                                                                                 colours):
    out = tmp_path / "kit.pdf"
    result = cli("kit", "sequence", "--players", players, "--seed", "7KQ2M9XD", "--out", str(out))
    assert result.exit_code == 0, result.stderr
    pages = PdfReader(out).pages  # the first page, and the chips page searched from the end (it is the last):
    assert said in pages[0].extract_text()  # the kit's 27 pages take a second to read, and these two 0.1 s
    chips = next(t for t in (page.extract_text() for page in reversed(pages)) if t.lstrip().startswith("Chips"))
    headings = [h for h in ("red: circles marked R", "blue: squares marked B", "green: triangles marked G")
                if h in chips]
    assert len(headings) == colours


def test_kit_refuses_five_players_and_draw_still_takes_no_players(cli):
    five = cli("kit", "sequence", "--players", "5")
    assert five.exit_code == 2 and five.stderr == ("paperplay: error: --players: is 5 (5 cannot split into equal "
                                                   "teams); Sequence Numbers is played by 2, 3, 4, 6\n")
    assert cli("draw", "sequence", "--seed", "S", "--players", "2").exit_code == 2
    without = kit_document("S", "CODE", make_board("S", number_set("1-48")), make_deck("S", number_set("1-48"), "add"),
                           "1-48", "add")
    assert not any("players" in getattr(item, "text", "") for item in without.pages[0].items)
