"""Seeds and randomness: the test vectors of both derivations of codes (docs/reference/seeds.md), weak
seeds, the QR payload, and properties of randbelow, shuffle and the codes."""

from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paperplay.errors import InputError
from paperplay.seeds import (
    ALPHABET, Rng, canonical_seed, code_mismatch, derivation, display_code, full_code, game_code, generate_seed,
    old_game_code, qr_text, read_payload, seed_note, seed_warning, seed_weakness, shuffled, words,
)
from paperplay.streams.rules import WILD, draw, tile_text


def test_spec_vector_words():
    assert list(itertools.islice(words("streams", "7KQ2M9XD"), 3)) == [
        5102279596940018692, 1369724995401133617, 70780033199763551]


def test_spec_vector_shuffle():
    assert shuffled(list(range(10)), "test", "ABC") == [1, 9, 2, 8, 7, 0, 5, 3, 6, 4]


def test_spec_vector_streams_draw_7kq2m9xd():
    expected = "11 3 5 17 27 25 6 4 13 15 16 1 28 15 7 18 23 8 20 24"
    assert " ".join(map(tile_text, draw("7KQ2M9XD"))) == expected


def test_spec_vector_streams_draw_1():
    expected = "27 14 13 16 5 6 1 22 14 15 4 12 24 8 15 13 10 * 16 21"
    assert " ".join(map(tile_text, draw("1"))) == expected
    assert WILD in draw("1")


def test_spec_vector_game_code():
    assert game_code("streams", "7KQ2M9XD") == "P2QPHGPH"
    assert display_code(game_code("streams", "7KQ2M9XD")) == "P2QP-HGPH"


@pytest.mark.parametrize("text, canonical", [
    ("straße-7", "STRAE7"), ("7kq2-m9xd", "7KQ2M9XD"), (" 7KQ2 M9XD ", "7KQ2M9XD"), ("1", "1"), ("a" * 32, "A" * 32),
])
def test_canonical_seed(text, canonical):
    assert canonical_seed(text) == canonical


@pytest.mark.parametrize("text", ["", "---", "ßøé", "a" * 33])
def test_bad_seeds_are_input_errors(text):
    with pytest.raises(InputError, match="seed"):
        canonical_seed(text)


def test_generated_seeds_use_the_alphabet_and_are_never_called_weak():
    seeds = {generate_seed() for _ in range(2000)}
    assert len(seeds) == 2000
    assert all(re.fullmatch(f"[{ALPHABET}]{{14}}", s) for s in seeds)
    assert all(canonical_seed(s) == s and derivation(s) == 2 for s in seeds)
    assert all(seed_weakness(s) is None and seed_warning(s) is None and seed_note(s) is None for s in seeds)
    assert all(canonical_seed(display_code(s).lower()) == s for s in seeds)  # shown, then typed in any case


# Derivation 2 (seeds of 9-32 characters): the full code commits to the seed; the game code is its start.
NEW = "7KQ2M9XDA3BCEF"
NEW_FULL = "8QEKCX96P2MZY2ZFVDQ2NTTXETB"


def test_vector_derivation_2_full_code_and_game_code():
    assert list(itertools.islice(words("commit/streams", NEW), 3)) == [
        9441559886418449243, 4935441323536541249, 7173137549048644337]
    assert full_code("streams", NEW) == NEW_FULL
    assert game_code("streams", NEW) == NEW_FULL[:8] == "8QEKCX96"
    assert full_code("streetcar", NEW) == "DD9HTW78P75HTQFDHYPGP4APSYP"
    assert full_code("sequence", NEW) == "XEFSGHTM2W227NBS359JTXBYKCZ"
    assert display_code(NEW) == "7KQ2-M9XD-A3B-CEF" and canonical_seed("7kq2-m9xd-a3b-cef") == NEW
    assert display_code(NEW_FULL) == "8QEK-CX96"  # people read the game code the full code begins with


def test_vector_derivation_2_draws_are_made_as_before():
    expected = "11 24 25 10 21 12 8 9 26 19 5 18 11 14 15 28 17 29 20 6"
    assert " ".join(map(tile_text, draw(NEW))) == expected


def test_vector_derivation_1_is_kept_for_short_seeds():
    assert derivation("7KQ2M9XD") == derivation("1") == 1 and derivation("7KQ2M9XDA") == 2
    assert full_code("streams", "7KQ2M9XD") == game_code("streams", "7KQ2M9XD") == "P2QPHGPH"
    assert old_game_code("streams", "7KQ2M9XD") == "P2QPHGPH"
    assert game_code("streams", "X" * 32) != old_game_code("streams", "X" * 32)  # long typed seeds: derivation 2


def test_a_full_code_binds_its_seed():
    assert code_mismatch("streams", NEW, NEW_FULL) is None
    assert code_mismatch("streams", NEW, NEW_FULL[:8]) is None
    other = "7KQ2M9XDA3BCEG"
    assert "were not printed with this seed" in code_mismatch("streams", other, NEW_FULL)
    assert "has game code" in code_mismatch("streams", other, NEW_FULL[:8])
    assert code_mismatch("streetcar", NEW, NEW_FULL) is not None  # another game's code
    assert "too few to have one" in code_mismatch("streams", "7KQ2M9XD", NEW_FULL)
    assert "expected a game code of 8" in code_mismatch("streams", NEW, NEW_FULL[:12])


def test_an_old_code_still_checks():
    assert code_mismatch("streams", "7KQ2M9XD", "P2QPHGPH") is None
    assert code_mismatch("streams", "7KQ2M9XE", "P2QPHGPH") is not None
    # a long seed typed before codes had two derivations: its sheets carry the code of derivation 1
    assert code_mismatch("streams", "X" * 32, old_game_code("streams", "X" * 32)) is None


@given(st.text(alphabet=ALPHABET, min_size=9, max_size=32), st.text(alphabet=ALPHABET, min_size=9, max_size=32))
def test_no_second_seed_has_the_full_code(seed, other):
    assert len(full_code("streams", seed)) == 27 and set(full_code("streams", seed)) <= set(ALPHABET)
    assert code_mismatch("streams", seed, full_code("streams", seed)) is None
    assert (code_mismatch("streams", other, full_code("streams", seed)) is None) == (other == seed)


@pytest.mark.parametrize("seed, reason", [
    ("FRIDAY", "is short (6 characters)"),
    ("7KQ2M9XD", "is short (8 characters)"),
    ("7KQ2M9XDA3BC", "is short (12 characters)"),
    ("FRIDAYNIGHTGAMES", "it has I, which"),
    ("CORRECTHORSEBATTERY", "it has O, which"),
    ("STREAMSGAMENEXTWEEK", "reads like words"),
    ("7KQ2M9XD7KQ2M9", "repeats itself"),
    ("23456789ABCDEF", "runs along the alphabet"),
    ("7KQ2MMMXDA3BCEF", "repeats itself"),
    ("ABABABABABABAB", "repeats itself"),
])
def test_weak_seeds_are_named(seed, reason):
    assert reason in seed_weakness(seed)
    assert seed_warning(seed).startswith(f"seed {display_code(seed)} ")
    assert "players could find the draw" in seed_warning(seed)
    assert "players could have found the draw" in seed_note(seed)


def test_an_old_seeds_note_says_the_code_binds_little():
    assert "other seeds have the same 8-character code" in seed_note("7KQ2M9XD")
    assert "other seeds" not in seed_note("FRIDAYNIGHTGAMES")


def test_a_strong_typed_seed_gets_no_line():
    assert seed_weakness(NEW) is None and seed_warning(NEW) is None and seed_note(NEW) is None
    assert seed_weakness("XQ7MK2P9DV4HZ3N") is None


@given(st.text(alphabet=ALPHABET + "01ILOU", min_size=1, max_size=12))
def test_every_short_seed_is_weak(seed):
    assert seed_weakness(seed) == f"is short ({len(seed)} characters)"


@given(st.text(alphabet=ALPHABET, min_size=12, max_size=31), st.sampled_from("01ILOU"))
def test_every_seed_with_a_letter_paperplay_never_draws_is_weak(seed, odd):
    assert seed_weakness(seed + odd) is not None


def test_payload_versions():
    assert qr_text("streams", {"code": "P2QPHGPH", "sheet": "3/8"}) == "PAPERPLAY/1 streams code=P2QPHGPH sheet=3/8"
    assert qr_text("streams", {"code": NEW_FULL, "sheet": "3/8"}) == f"PAPERPLAY/2 streams code={NEW_FULL} sheet=3/8"
    assert qr_text("streams", {"code": NEW_FULL, "sheet": "3/8", "scan": "1"}) == \
        f"PAPERPLAY/2 streams code={NEW_FULL} scan=3/8"
    assert qr_text("streams", {"code": "P2QPHGPH", "sheet": "3/8", "scan": "1"}) == \
        "PAPERPLAY/1 streams code=P2QPHGPH sheet=3/8 scan=1"
    assert qr_text("streams", {"seed": NEW, "draw": "1,2"}) == f"PAPERPLAY/2 streams seed={NEW} draw=1,2"
    assert qr_text("streams", {"seed": "7KQ2M9XD", "draw": "1,2"}) == "PAPERPLAY/1 streams seed=7KQ2M9XD draw=1,2"
    assert qr_text("streetcar", {"page": "route", "line": "1"}) == "PAPERPLAY/1 streetcar page=route line=1"


def test_reading_payloads_of_both_versions():
    assert read_payload("PAPERPLAY/1 streams code=P2QPHGPH sheet=3/8 scan=1") == {
        "version": "1", "game": "streams", "code": "P2QPHGPH", "sheet": "3/8", "scan": "1"}
    assert read_payload(f"PAPERPLAY/2 streams code={NEW_FULL} scan=200/200") == {
        "version": "2", "game": "streams", "code": NEW_FULL, "sheet": "200/200", "scan": "1"}
    assert read_payload("PAPERPLAY/2 streams version=9 game=x")["version"] == "2"
    for other in ("", "hello", "PAPERPLAY/3 streams code=X", "PAPERPLAY/ streams", "PAPERPLAY/1x streams",
                  "https://example.org"):
        assert read_payload(other) is None


@given(st.sampled_from(["streams", "streetcar", "sequence"]), st.text(alphabet=ALPHABET, min_size=1, max_size=32),
       st.integers(1, 200), st.booleans())
def test_payloads_read_back(game, seed, n, scan):
    fields = {"code": full_code(game, seed), "sheet": f"{n}/200"} | ({"scan": "1"} if scan else {})
    read = read_payload(qr_text(game, fields))
    assert read == {"version": str(derivation(seed)), "game": game, **fields}


@given(st.integers(min_value=1, max_value=2**64), st.text(alphabet="ABC123", min_size=1, max_size=8))
def test_randbelow_stays_in_range(n, seed):
    rng = Rng("prop", seed)
    assert all(0 <= rng.randbelow(n) < n for _ in range(5))


@given(st.lists(st.integers(), max_size=40), st.text(alphabet="XYZ789", min_size=1, max_size=8))
def test_shuffle_is_a_permutation_and_reproducible(items, seed):
    once = shuffled(items, "prop", seed)
    assert sorted(once) == sorted(items)
    assert shuffled(items, "prop", seed) == once


def test_randbelow_rejects_words_at_or_above_the_limit():
    # With n = 2**63 + 1 the limit is 2**63 + 1, so about half the words are rejected; the
    # result must equal the first accepted word modulo n.
    n = 2**63 + 1
    expected = next(w for w in words("reject", "S") if w < 2**64 - (2**64 % n)) % n
    assert Rng("reject", "S").randbelow(n) == expected


def test_game_code_digits_are_base_30_of_the_first_word():
    value = next(words("code/streams", "7KQ2M9XD")) % 30**8
    digits = "".join(ALPHABET[(value // 30**k) % 30] for k in range(7, -1, -1))
    assert digits == game_code("streams", "7KQ2M9XD")


def test_the_largest_scannable_payload_keeps_version_4():
    from paperplay.render.pdf import qr_modules

    for seed in (NEW, "Z" * 32, "7KQ2M9XD"):
        payload = qr_text("streams", {"code": full_code("streams", seed), "sheet": "200/200", "scan": "1"})
        assert len(qr_modules(payload)) == 33, payload  # the scanner rebuilds codes of 33 modules


# --- the commands: weak seeds said out loud, old sheets still checked, new ones bound -----------------

def _sheet(tmp_path, name: str, seed: str, code: str) -> str:
    import json

    from paperplay.streams.rules import tile_json

    path = tmp_path / name
    cells = sorted((tile_json(t) for t in draw(seed)), key=lambda c: 31 if c == "*" else c)  # ascending: valid
    path.write_text(json.dumps({"game": "streams", "code": code, "seed": display_code(seed), "cells": cells}))
    return str(path)


def test_printing_with_a_typed_weak_seed_says_so_in_one_line(tmp_path):
    from conftest import run_paperplay

    weak = run_paperplay("sheets", "--players", "2", "--seed", "friday", "--out", str(tmp_path / "a.pdf"))
    assert weak.returncode == 0 and (tmp_path / "a.pdf").exists()
    assert weak.stderr.splitlines() == [
        "paperplay: warning: seed FRIDAY is short (6 characters): players could find the draw by trying seeds "
        "against the game code; leave out --seed for a new seed"]
    old = run_paperplay("kit", "streams", "--seed", "7KQ2-M9XD", "--out", str(tmp_path / "b.pdf"))
    assert old.returncode == 0 and "Game code: P2QP-HGPH" in old.stdout
    assert old.stderr.count("\n") == 1 and "seed 7KQ2-M9XD is short (8 characters)" in old.stderr
    fresh = run_paperplay("sheets", "--players", "2", "--out", str(tmp_path / "c.pdf"))
    strong = run_paperplay("sheets", "--players", "2", "--seed", "7kq2-m9xd-a3b-cef", "--out", str(tmp_path / "d.pdf"))
    assert fresh.returncode == strong.returncode == 0 and fresh.stderr == strong.stderr == ""
    assert re.search(r"Seed: +[2-9A-Z]{4}-[2-9A-Z]{4}-[2-9A-Z]{3}-[2-9A-Z]{3} ", fresh.stdout)
    assert "Game code: 8QEK-CX96" in strong.stdout


def test_an_old_sheet_still_verifies_with_a_note_that_its_seed_is_short(tmp_path):
    from conftest import DATA, run_paperplay

    examples = DATA.parent.parent / "docs" / "examples"
    for command in ("score", "verify"):
        done = run_paperplay(command, str(examples / "ann.json"), str(examples / "bob.json"))
        assert done.returncode == 0, done.stderr
        assert done.stderr.splitlines() == [
            "paperplay: note: seed 7KQ2-M9XD is short (8 characters): players could have found the draw from the "
            "game code before it was revealed, and other seeds have the same 8-character code"]
    wrong = run_paperplay("score", _sheet(tmp_path, "x.json", "7KQ2M9XE", "P2QP-HGPH"))
    assert wrong.returncode == 2 and "field code is P2QPHGPH, but seed 7KQ2M9XE has game code" in wrong.stderr


def test_a_new_sheets_full_code_rejects_another_seed(tmp_path):
    from conftest import run_paperplay

    good = run_paperplay("score", _sheet(tmp_path, "a.json", NEW, NEW_FULL), "--json")
    assert good.returncode == 0 and good.stderr == "", good.stderr
    short = run_paperplay("score", _sheet(tmp_path, "b.json", NEW, "8QEK-CX96"))
    assert short.returncode == 0 and short.stderr == ""
    other = "XQ7MK2P9DV4HZ3N"
    swapped = run_paperplay("score", _sheet(tmp_path, "c.json", other, NEW_FULL))
    assert swapped.returncode == 2 and swapped.stderr.count("\n") == 1
    assert f"c.json: field code is {NEW_FULL}, but seed {other} has full code" in swapped.stderr
    assert "the pages were not printed with this seed" in swapped.stderr


def test_the_server_gives_the_full_code_to_all_and_the_seed_warning_to_the_host(tmp_path):
    for module in ("starlette", "uvicorn", "multipart"):
        pytest.importorskip(module, reason="paperplay serve needs the serve extra (pip install '.[serve]')")
    from test_serve_api import Running

    running = Running(tmp_path / "games.db")
    try:
        client = running.client
        weak = client.post("/api/games", {"players": 2, "seed": "friday"}, host=True).json()
        assert weak["seed_warning"] == ("the seed is short (6 characters): players could find the draw by trying "
                                        "seeds against the game code")
        fresh = client.post("/api/games", {"players": 2}, host=True).json()
        strong = client.post("/api/games", {"players": 2, "seed": "7KQ2-M9XD-A3B-CEF"}, host=True).json()
        assert fresh["seed_warning"] is None and strong["seed_warning"] is None and strong["code"] == "8QEK-CX96"
        listed = {g["code"]: g for g in client.get("/api/games", host=True).json()["games"]}
        assert listed[weak["code"]]["seed_warning"] == weak["seed_warning"]
        public = client.get("/api/games/8QEK-CX96").json()
        assert public["full_code"] == NEW_FULL and "seed_warning" not in public and "seed" not in public
        assert client.get(f"/api/games/{weak['code']}").json()["full_code"] == game_code("streams", "FRIDAY")
    finally:
        running.stop()


@pytest.mark.slow  # a photo made and read: about 7 s on a busy machine
def test_scan_reads_a_new_seeds_sheet_and_score_holds_it_to_its_full_code(tmp_path):
    import json

    for module in ("numpy", "cv2", "zxingcpp", "pypdfium2"):
        pytest.importorskip(module, reason="needs the scan extra (pip install '.[scan]')")
    import numpy as np

    from conftest import DATA, run_paperplay
    from lab import evaluate
    from lab.synth import fill_sheet, make_hand, photograph, rendered_page
    from paperplay.streams.scansheet import layout

    rng = np.random.default_rng([42, 3])
    hand = make_hand(rng, [], evaluate.heldout_digits(DATA / "digits-heldout.npz"), font_share=1.0)
    page, _ = fill_sheet(rendered_page("a4", NEW_FULL, 3, 4), layout("a4").cells, list(draw(NEW)), hand, rng)
    (tmp_path / "ann.jpg").write_bytes(photograph(page, rng)[0])
    done = run_paperplay("scan", str(tmp_path / "ann.jpg"), "--seed", display_code(NEW), "--out", str(tmp_path / "o"))
    assert done.returncode == 0, done.stderr
    sheet = json.loads((tmp_path / "o" / "ann.json").read_text())
    assert sheet["code"] == NEW_FULL and sheet["player"] == "sheet 3/4"
    sheet["seed"] = "XQ7MK2P9DV4HZ3N"
    (tmp_path / "o" / "ann.json").write_text(json.dumps(sheet))
    swapped = run_paperplay("score", str(tmp_path / "o" / "ann.json"))
    assert swapped.returncode == 2 and "were not printed with this seed" in swapped.stderr
    other = run_paperplay("scan", str(tmp_path / "ann.jpg"), "--seed", "XQ7MK2P9DV4HZ3N", "--out", str(tmp_path / "p"))
    assert other.returncode == 2 and "ann.jpg" in other.stderr


def test_the_scanner_takes_a_new_sheets_payload_and_an_old_ones():
    pytest.importorskip("numpy", reason="needs the scan extra (pip install '.[scan]')")
    from paperplay.scan.reader import ScanError, check_payload

    new = check_payload(f"PAPERPLAY/2 streams code={NEW_FULL.lower()} scan=3/8")
    assert (new["code"], new["sheet"], new["scan"]) == (NEW_FULL, "3/8", "1")
    old = check_payload("PAPERPLAY/1 streams code=P2QPHGPH sheet=3/8 scan=1")
    assert (old["code"], old["sheet"]) == ("P2QPHGPH", "3/8")
    with pytest.raises(ScanError, match="expected a game code of 27"):
        check_payload("PAPERPLAY/2 streams code=P2QPHGPH scan=3/8")
    with pytest.raises(ScanError, match="organiser"):
        check_payload(f"PAPERPLAY/2 streams seed={NEW} draw=1,2")
    with pytest.raises(ScanError, match="not a Streams score sheet"):
        check_payload(f"PAPERPLAY/3 streams code={NEW_FULL} scan=3/8")


def test_verify_notes_the_short_seed_of_a_streetcar_or_sequence_game_log():
    from typer.testing import CliRunner

    from conftest import DATA
    from paperplay.cli.app import app

    examples = DATA.parent.parent / "docs" / "examples"
    logs = [str(examples / "streetcar-game.json"), str(examples / "sequence-game.json")]
    done = CliRunner().invoke(app, ["verify", *logs])
    assert done.exit_code == 0, done.output
    notes = done.stderr.splitlines()
    assert [n.split(":")[:2] for n in notes] == [["paperplay", " note"]] * 2
    assert "seed 7KQ2-M9XD is short (8 characters)" in notes[0] and "seed DEMO is short (4 characters)" in notes[1]


@pytest.mark.browser
def test_the_host_page_says_when_the_seed_given_is_weak(tmp_path, request):
    for module in ("starlette", "uvicorn", "multipart"):
        pytest.importorskip(module, reason=f"needs {module} (pip install '.[serve]')")
    from test_serve_api import Running

    browser = request.getfixturevalue("browser")  # the session's one Chromium (tests/conftest.py)
    running = Running(tmp_path / "games.db")
    try:
        context = browser.new_context()
        page = context.new_page()
        shown = {}
        for seed in ("friday", "7KQ2-M9XD-A3B-CEF"):
            page.goto(f"{running.base}/host?key={running.client.key}")
            page.evaluate("localStorage.clear()")
            page.reload()
            page.fill("#seed", seed)
            page.click("button[type=submit]")
            page.wait_for_selector("#game:not([hidden])")
            shown[seed] = page.is_visible("#seed-weak")
        context.close()
        assert shown == {"friday": True, "7KQ2-M9XD-A3B-CEF": False}
    finally:
        running.stop()
