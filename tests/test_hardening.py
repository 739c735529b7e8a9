"""Hardening (issue 11): every class of input that crashed, hung or lost a file, and the one error channel.

Each test runs paperplay's main() in-process (as the fuzz suite does) or as a whole process where
signals are involved, and checks the exit code and that an error is ONE line naming the field or option.
"""

from __future__ import annotations

import copy
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import DATA, SCAN_EXTRA, SPEC_SHEET, edited
from paperplay import files
from paperplay.errors import InputError
from paperplay.messages import one_line
from paperplay.errors import IllegalAction as _Illegal
from paperplay.sequence.referee import Game as _Game
from paperplay.sequence.referee import play_turn
from paperplay.sequence.rules import MINUS, PLUS, Card, make_board, make_deck, number_set, standard_rules
from test_fuzz import run_cli


def run(tmp_path: Path, *args: str) -> tuple[int, str, str]:
    return run_cli(list(args), tmp_path)


def error_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("paperplay: error: "), err
    return lines[0]


def write(tmp_path: Path, name: str, document: object) -> str:
    (tmp_path / name).write_text(json.dumps(document), encoding="utf-8")
    return name


def data(name: str) -> dict:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


# Whole-number floats -------------------------------------------------------------------------------

def _sheet_with_placements() -> dict:
    from test_fuzz import _streams_sheet

    return _streams_sheet()


_set = edited


FLOAT_CASES = [
    (_sheet_with_placements(), ("placements", 0), 7.0, "field placements[0] is 7.0; expected an integer"),
    (_sheet_with_placements(), ("claimed_series", 0, "start"), 2.0, "claimed_series[0].start"),
    (data("streetcar-state.json"), ("tiles", 0, "at", 0), 5.0, "tiles[0].at[0]"),
    (data("streetcar-tiny-game.json"), ("turns", 0, "lay", 0, "at", 1), 0.0, "turns[0].lay[0].at[1]"),
    (data("streetcar-tiny-game.json"), ("board", "size", 0), 5.0, "field board.size[0] is 5.0"),
    (data("streetcar-tiny-game.json"), ("set",), 2.0, "set"),
    (data("streetcar-tiny-game.json"), ("turns", 0, "lay", 0, "rotation"), 90.0, "rotation"),
    (data("sequence-game.json"), ("turns", 0, "square", 0), 5.0, "turns[0].square[0]"),
]


@pytest.mark.parametrize("document, path, value, field", FLOAT_CASES)
def test_whole_number_floats_are_input_errors_naming_the_field(tmp_path, document, path, value, field):
    name = write(tmp_path, "record.json", _set(document, path, value))
    code, _, err = run(tmp_path, "verify", name)
    assert code == 2
    assert field in error_line(err) and str(value) in err


VARIANT = Path(__file__).parent.parent / "docs/examples/my-variant.json"
VARIANT_SHEET = {"game": "streams", "seed": "7KQ2-M9XD",
                 "cells": [1, 3, 4, 5, 6, 7, 11, 13, 15, 15, 16, 17, 25, 27, 28],
                 "placements": [7, 2, 3, 12, 14, 13, 5, 4, 8, 9, 11, 1, 15, 10, 6],
                 "claimed_series": [{"start": 1, "end": 3, "points": 3}], "claimed_total": 5}


def _unnoted(err: str) -> list[str]:
    """Standard error's lines but the note on a short seed (docs/reference/seeds.md: 7KQ2-M9XD is one)."""
    return [line for line in err.splitlines() if not line.startswith("paperplay: note: seed ")]


@pytest.mark.parametrize("path, said", [
    (("placements", 0), "field placements[0] is 7.0; expected an integer"),
    (("claimed_series", 0, "start"), "field claimed_series[0].start is 7.0"),
    (("claimed_series", 0, "points"), "field claimed_series[0].points is 7.0"),
    (("cells", 0), "field cells[0] is 7.0"),
    (("claimed_total",), "field claimed_total is 7.0"),
])
def test_a_variants_sheets_refuse_whole_number_floats_as_the_standard_games_do(tmp_path, path, said):
    code, _, err = run(tmp_path, "score", write(tmp_path, "s.json", VARIANT_SHEET), "--variant", str(VARIANT))
    assert code == 1 and not _unnoted(err)  # the sheet's claims are wrong (exit 1), but it is read
    code, _, err = run(tmp_path, "score", write(tmp_path, "s.json", _set(VARIANT_SHEET, path, 7.0)),
                       "--variant", str(VARIANT))
    assert code == 2 and error_line(err).startswith(f"paperplay: error: s.json: {said}"), err


def test_the_same_records_with_integers_are_accepted(tmp_path):
    for document, _, _, _ in FLOAT_CASES:
        code, _, err = run(tmp_path, "verify", write(tmp_path, "record.json", document))
        assert code in (0, 1) and not _unnoted(err), err  # the sheet's partial claims break a rule


# Deep nesting, huge integers, NaN, sizes ---------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("[" * 5000 + "]" * 5000, "nested too deeply"),
    ('{"game": "streams", "cells": [' + "9" * 5000 + "]}", "5,000 digits"),
    ('{"game": "streams", "cells": [NaN]}', "NaN"),
    ('{"game": "streams", "cells": [1e999]}', "1e999"),
])
def test_json_beyond_the_bounds_is_an_input_error(tmp_path, text, expected):
    (tmp_path / "bad.json").write_text(text, encoding="utf-8")
    code, _, err = run(tmp_path, "verify", "bad.json")
    assert code == 2 and expected in error_line(err) and "bad.json" in err


def test_an_oversized_file_is_refused_without_reading_it_all(tmp_path):
    (tmp_path / "big.json").write_text('{"game": "streams", "x": "' + "a" * 4_100_000 + '"}', encoding="utf-8")
    code, _, err = run(tmp_path, "verify", "big.json")
    assert code == 2 and "larger than" in error_line(err)


def test_a_device_is_not_read(tmp_path):
    code, _, err = run(tmp_path, "verify", "/dev/zero")
    assert code == 2 and "not a regular file" in error_line(err)


def test_huge_integers_in_numbers_option(tmp_path):
    code, _, err = run(tmp_path, "draw", "sequence", "--seed", "S", "--numbers", "9" * 5000 + "-1")
    assert code == 2 and "--numbers" in error_line(err) and len(err) < 700


# Lone surrogates and control characters in what is printed ---------------------------------------------

@pytest.mark.parametrize("as_json", [False, True])
def test_a_lone_surrogate_in_a_name_is_printed_escaped(tmp_path, as_json):
    sheet = dict(SPEC_SHEET, player="Ann\ud800")
    name = write(tmp_path, "sheet.json", sheet)  # json.dumps writes the escape \ud800
    code, out, err = run(tmp_path, "verify", name, *(["--json"] if as_json else []))
    assert code == 0, err
    assert "\\ud800" in out
    if as_json:
        assert json.loads(out)["results"][0]["player"] == "Ann\ud800"  # the escape is valid JSON


def test_sequence_log_with_surrogate_names_and_colours(tmp_path):
    log = data("sequence-game.json")
    text = json.dumps(log).replace('"P1"', '"P\\ud8001"')
    (tmp_path / "log.json").write_text(text, encoding="utf-8")
    code, out, err = run(tmp_path, "verify", "log.json")
    assert code in (0, 1) and "Traceback" not in err


def test_messages_escape_controls_and_shorten_long_values():
    line = one_line("field x is 'a\nb\x00\u2028\ud800'; expected " + "y" * 5000)
    assert "\n" not in line and "\\n" in line and "\\x00" in line and "\\u2028" in line and "\\ud800" in line
    assert len(line) < 700 and "characters)" in line


def test_an_option_value_with_a_newline_is_one_line(tmp_path):
    code, _, err = run(tmp_path, "draw", "sequence", "--seed", "S", "--numbers", "1-48\nrm -rf")
    assert code == 2 and "\\n" in error_line(err)


def test_a_huge_option_value_is_shortened(tmp_path):
    code, _, err = run(tmp_path, "sheets", "--players", "2", "--seed", "A" * 100_000)
    assert code == 2 and len(error_line(err)) < 700


# Non-ASCII digits --------------------------------------------------------------------------------------

CELLS = "4 3 6 5 1 7 15 11 13 15 17 16 18 8 23 20 25 27 28 24"


@pytest.mark.parametrize("args, option", [
    (("score", "--cells", CELLS.replace("24", "2²")), "--cells"),
    (("score", "--cells", CELLS, "--draw", CELLS.replace("24", "٣")), "--draw"),
    (("advise", "--cells", "3 _ _ 12 _ _ _ 15 _ _ _ _ 21 _ _ _ _ _ _ 29", "--tile", "²"), "--tile"),
    (("advise", "--cells", "3 _ _ 12 _ _ _ 15 _ _ _ _ 21 _ _ _ _ _ _ 29", "--tile", "17", "--seen", "5 ²"),
     "--seen"),
    (("draw", "sequence", "--seed", "S", "--numbers", "1-4²"), "--numbers"),
    (("simulate", "--strategy", "montecarlo:²", "--games", "1"), "--strategy"),
])
def test_non_ascii_digits_are_refused(tmp_path, args, option):
    code, _, err = run(tmp_path, *args)
    assert code == 2 and error_line(err).startswith(f"paperplay: error: {option}")


def test_position_numbers_with_non_ascii_digits(tmp_path):
    name = write(tmp_path, "pos.json", {"game": "sequence", "players": 2, "board_seed": "S", "numbers": "1-4٨",
                                         "chips": {"red": [[0, 1]]}})
    code, _, err = run(tmp_path, "verify", name)
    assert code == 2 and "field numbers" in error_line(err)


def test_ascii_numbers_still_work():
    assert number_set("0-47") == tuple(range(48))
    assert len(number_set(",".join(map(str, range(10, 58))))) == 48


# Bounds and hangs ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("args, option", [
    (("kit", "sequence", "--back-offset", "nan,0", "--out", "k.pdf"), "--back-offset"),
    (("kit", "sequence", "--back-offset", "0,inf", "--out", "k.pdf"), "--back-offset"),
    (("simulate", "--strategy", "", "--games", "1"), "--strategy"),
    (("simulate", "--compare", "", "--games", "1"), "--compare"),
    (("simulate", "--compare", "gap,,random", "--games", "1"), "--compare"),
    (("simulate", "--strategy", "gap", "--games", "100001"), "--games"),
    (("simulate", "--strategy", "montecarlo:10000001", "--games", "1"), "--strategy"),
    (("advise", "--cells", "3 _ _ 12 _ _ _ 15 _ _ _ _ 21 _ _ _ _ _ _ 29", "--tile", "17",
      "--budget", "10000001"), "--budget"),
    (("draw", "sequence", "--seed", "S", "--numbers", "1000000000000-1000000000047"), "--numbers"),
    (("draw", "sequence", "--seed", "S", "--numbers", "9954-10001"), "--numbers"),
])
def test_unbounded_or_non_finite_options_are_refused_at_once(tmp_path, args, option):
    started = time.perf_counter()
    code, _, err = run(tmp_path, *args)
    assert code == 2 and error_line(err).startswith(f"paperplay: error: {option}")
    assert time.perf_counter() - started < 5
    assert not list(tmp_path.iterdir())


def test_the_largest_numbers_allowed_draw_quickly(tmp_path):
    started = time.perf_counter()
    code, out, err = run(tmp_path, "draw", "sequence", "--seed", "S", "--numbers", "9953-10000", "--json")
    assert code == 0, err
    assert len(json.loads(out)["deck"]) == 100 and time.perf_counter() - started < 5


def test_a_sequence_log_with_huge_numbers_is_refused(tmp_path):
    log = dict(data("sequence-game.json"), numbers="1000000000000-1000000000047")
    code, _, err = run(tmp_path, "verify", write(tmp_path, "log.json", log))
    assert code == 2 and "field numbers" in error_line(err)


# Streetcar board files ------------------------------------------------------------------------------------

def _state(board: object) -> dict:
    return dict(data("streetcar-state.json"), board=board, tiles=[], stop_signs={})


@pytest.mark.parametrize("board, expected", [
    ("/dev/zero", "relative to the record's folder"),
    ("../board.json", "no .."),
    ("sub/../../board.json", "no .."),
    ("a\x00b", "expected"),
    ("\ud800", "lone surrogate"),
    ("missing.json", "does not exist"),
    ("standard" * 60, "not a usable file name"),
    ("\n" + "x" * 300, "not a usable file name"),
])
def test_board_paths_are_confined_to_the_records_folder(tmp_path, board, expected):
    name = write(tmp_path, "state.json", _state(board))
    code, _, err = run(tmp_path, "verify", name)
    line = error_line(err)
    assert code == 2 and expected in line and "state.json: field board" in line


def test_a_board_file_may_not_escape_through_a_symlink_or_be_huge(tmp_path):
    outside = tmp_path.parent / f"{tmp_path.name}-outside.json"
    outside.write_text(json.dumps(data("streetcar-tiny-game.json")["board"]), encoding="utf-8")
    (tmp_path / "link.json").symlink_to(outside)
    code, _, err = run(tmp_path, "verify", write(tmp_path, "state.json", _state("link.json")))
    assert code == 2 and "leads out of the record's folder" in error_line(err)
    (tmp_path / "huge.json").write_text(" " * 1_000_001 + "{}", encoding="utf-8")
    code, _, err = run(tmp_path, "verify", write(tmp_path, "state.json", _state("huge.json")))
    assert code == 2 and "larger than" in error_line(err) and "field board" in err


def test_a_board_file_beside_the_record_is_read(tmp_path):
    (tmp_path / "boards").mkdir()
    board = data("streetcar-tiny-game.json")["board"]
    (tmp_path / "boards" / "tiny.json").write_text(json.dumps(board), encoding="utf-8")
    code, out, err = run(tmp_path, "verify", write(tmp_path, "state.json", _state("boards/tiny.json")))
    assert code == 0, err
    assert "0 tiles" in out


# One-line option errors ----------------------------------------------------------------------------------

@pytest.mark.parametrize("args, start", [
    (("sheets", "--players", "x"), "paperplay: error: --players: "),
    (("sheets", "--plyers", "3"), "paperplay: error: --plyers: no such option"),
    (("sheets", "--players"), "paperplay: error: --players: "),
    (("draw",), "paperplay: error: game: missing"),
    (("draw", "strms", "--seed", "S"), "paperplay: error: game: "),
    (("sheets", "--players", "2", "--paper", "b5"), "paperplay: error: --paper: "),
    (("nope",), "paperplay: error: "),
])
def test_usage_errors_are_one_line(tmp_path, args, start):
    code, out, err = run(tmp_path, *args)
    assert code == 2 and error_line(err).startswith(start) and not out


# Internal errors, interrupts and files -------------------------------------------------------------------

def test_an_internal_error_is_exit_3_with_one_line(tmp_path, monkeypatch):
    import paperplay.seeds

    def broken(*args, **kwargs):
        raise RuntimeError("something\nbroke")

    monkeypatch.setattr(paperplay.seeds, "words", broken)
    code, _, err = run(tmp_path, "draw", "streams", "--seed", "S")
    lines = err.splitlines()
    assert code == 3 and len(lines) == 1
    assert lines[0].startswith("paperplay: internal error: RuntimeError: something\\nbroke")
    assert lines[0].endswith("(run with PAPERPLAY_DEBUG=1 for the traceback)")
    monkeypatch.setenv("PAPERPLAY_DEBUG", "0")  # off, as unset
    code, _, err = run(tmp_path, "draw", "streams", "--seed", "S")
    assert code == 3 and len(err.splitlines()) == 1
    monkeypatch.setenv("PAPERPLAY_DEBUG", "1")
    code, _, err = run(tmp_path, "draw", "streams", "--seed", "S")
    assert code == 3 and "Traceback" in err


def test_a_dangling_symlink_at_out_is_not_replaced_without_force(tmp_path):
    (tmp_path / "out.pdf").symlink_to(tmp_path / "nowhere")
    code, _, err = run(tmp_path, "sheets", "--players", "1", "--seed", "S", "--out", "out.pdf")
    assert code == 2 and "already exists" in error_line(err)
    assert (tmp_path / "out.pdf").is_symlink() and not (tmp_path / "nowhere").exists()
    code, _, err = run(tmp_path, "sheets", "--players", "1", "--seed", "S", "--out", "out.pdf", "--force")
    assert code == 0, err
    assert not (tmp_path / "out.pdf").is_symlink() and (tmp_path / "out.pdf").read_bytes()[:5] == b"%PDF-"


def test_a_link_to_a_file_is_written_through_and_the_file_keeps_its_permissions(tmp_path):
    (tmp_path / "mine.pdf").write_bytes(b"%PDF- mine")
    (tmp_path / "mine.pdf").chmod(0o600)
    (tmp_path / "link.pdf").symlink_to("mine.pdf")
    code, _, err = run(tmp_path, "sheets", "--players", "1", "--seed", "S", "--out", "link.pdf", "--force")
    assert code == 0, err
    assert (tmp_path / "link.pdf").is_symlink() and (tmp_path / "mine.pdf").read_bytes()[:5] == b"%PDF-"
    assert (tmp_path / "mine.pdf").stat().st_mode & 0o777 == 0o600 and len((tmp_path / "mine.pdf").read_bytes()) > 100


@pytest.mark.parametrize("option, name", [("--out", "out.pdf"), ("--html", "out.html")])
def test_a_pipe_at_the_output_path_is_refused_even_with_force(tmp_path, option, name):
    os.mkfifo(tmp_path / name)
    args = ["sheets", "--players", "1", "--seed", "S", option, name, "--force"] if option == "--out" else \
        ["call", "streams", "--seed", "S", option, name, "--force"]
    code, _, err = run(tmp_path, *args)
    assert code == 2 and f"{name}: is not a file (a device, a pipe or a socket)" in error_line(err), err
    assert (tmp_path / name).is_fifo() and sorted(p.name for p in tmp_path.iterdir()) == [name]


def test_a_page_name_too_long_is_an_input_error(tmp_path):
    code, _, err = run(tmp_path, "call", "streams", "--seed", "S", "--html", "a" * 300 + ".html")
    assert code == 2 and "is not a usable file name" in error_line(err), err


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("args", [("draw", "streams", "--seed", "S"), ("schema", "streams-sheet"), ("--help",),
                                  ("draw", "streams", "--seed", "S", "--json")])
def test_standard_output_that_cannot_be_written_is_one_line_and_exit_2(tmp_path, args):
    with open("/dev/full", "w") as full:
        process = subprocess.run([sys.executable, "-m", "paperplay", *args], cwd=tmp_path, stdout=full,
                                 stderr=subprocess.PIPE, text=True, timeout=60)
    assert process.returncode == 2, process.stderr
    assert process.stderr == "paperplay: error: standard output could not be written (No space left on device)\n"


def test_a_file_with_too_many_values_is_refused_naming_its_largest_field(tmp_path):
    sheet = copy.deepcopy(SPEC_SHEET)
    sheet["cells"] = [1] * 30_000
    (tmp_path / "big.json").write_text(json.dumps(sheet))
    code, _, err = run(tmp_path, "score", "big.json")
    assert code == 2 and error_line(err).startswith("paperplay: error: big.json: holds 30,0"), err
    assert "(field cells has 30,000 entries); expected at most 20,000" in error_line(err)
    sheet["cells"] = [1] * 5_000  # within the bound: the schema names what is wrong
    (tmp_path / "big.json").write_text(json.dumps(sheet))
    code, _, err = run(tmp_path, "score", "big.json")
    assert code == 2 and "field cells has 5000 entries; expected exactly 20 boxes" in error_line(err), err


_STATE = str(DATA / "streetcar-state.json")


@pytest.mark.parametrize("written", ["２", "٣", "+3", " 3", "3_0", "3.0"])
@pytest.mark.parametrize("args, option", [
    (("draw", "streetcar", "--seed", "S", "--players"), "--players"),
    (("kit", "streetcar", "--seed", "S", "--set"), "--set"),
    (("simulate", "--games"), "--games"),
    (("simulate", "--games", "1", "--jobs"), "--jobs"),
    (("advise", "--cells", " ".join(["_"] * 20), "--tile", "5", "--budget"), "--budget"),
    (("advise", "--cells", " ".join(["_"] * 20), "--tile", "5", "--top"), "--top"),
    (("route", _STATE, "--line"), "--line"),
    (("route", _STATE, "--line", "1", "--card"), "--card"),
    (("call", "streams", "--seed", "S", "--from"), "--from"),
])
def test_number_options_are_ascii_digits_only(tmp_path, args, option, written):
    code, _, err = run(tmp_path, *args, written)
    said = f"{option}: is {written!r}; expected a whole number written with the digits 0-9"
    assert code == 2 and said in error_line(err)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("digits", [19, 5000])  # int() itself refuses more than 4,300 digits
def test_a_number_option_of_thousands_of_digits_is_named_as_too_large(tmp_path, digits):
    code, _, err = run(tmp_path, "sheets", "--players", "9" * digits)
    assert code == 2 and f"--players: is a number of {digits:,} digits; far more than" in error_line(err)
    code, _, err = run(tmp_path, "sheets", "--players", "9" * 18)
    assert code == 2 and f"--players: is {'9' * 18}; expected 1-200" in error_line(err)


@pytest.mark.parametrize("args", [("draw", "streams"), ("sheets",), ("kit", "sequence"), ("call", "streams"),
                                  ("simulate", "--strategy", "gap", "--games", "1"),
                                  ("advise", "--cells", " ".join(["_"] * 20), "--tile", "5"),
                                  ("score", "--cells", " ".join(["1"] * 20))])
@pytest.mark.parametrize("seed", ["", "-- --", "A" * 33])
def test_a_bad_seed_option_is_named(tmp_path, args, seed):
    code, _, err = run(tmp_path, *args, "--seed", seed)
    assert code == 2 and error_line(err).startswith(f"paperplay: error: --seed: seed {seed!r} has "), err
    assert list(tmp_path.iterdir()) == []


def test_a_name_in_another_encoding_than_utf8_is_named_as_such(tmp_path):
    latin1 = os.fsdecode(b"Bj\xf8rn")  # what a Latin-1 terminal passes for Bjørn
    code, _, err = run(tmp_path, "sheets", "--seed", "S", "--players", "2", "--names", f"Ann,{latin1}")
    assert code == 2 and error_line(err) == (
        "paperplay: error: --names: name 2 of 2 ('Bj\ufffdrn') holds the byte 0xF8, which is not UTF-8 text; "
        "expected names in UTF-8 (set the terminal's character encoding to UTF-8)"), err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", [("kit", "streams"), ("sheets",)])
def test_too_many_names_are_named_as_names(tmp_path, command):
    names = ",".join(f"P{i}" for i in range(201))
    code, _, err = run(tmp_path, *command, "--seed", "S", "--names", names)
    assert code == 2 and "--names: gives 201 names; expected at most 200" in error_line(err), err


@pytest.mark.parametrize("out, page", [("same", "same"), ("kit", "./kit")])  # (--html kit.pdf: another format)
@pytest.mark.parametrize("force", [False, True])
def test_a_kit_and_its_page_at_the_same_path_are_refused_before_either_is_written(tmp_path, out, page, force):
    args = ["kit", "streams", "--seed", "S", "--html", page] + (["--out", out] if out else []) + \
        (["--force"] if force else [])
    code, _, err = run(tmp_path, *args)
    assert code == 2 and "--html: is " in error_line(err) and "the kit's PDF too" in error_line(err), err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", ["score", "verify"])
def test_no_results_page_is_written_when_no_sheet_could_be_read(tmp_path, command):
    (tmp_path / "bad.json").write_text('{"game": "streams"}')
    code, out, err = run(tmp_path, command, "missing.json", "bad.json", "--html", "r.html")
    assert code == 2 and len(err.splitlines()) == 2 and "r.html" not in out  # one line for each file
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json"]


@pytest.mark.parametrize("text, field", [
    ('{"game": "chess", "game": "streams", "seed": "S", "cells": []}', "game"),
    ('{"game": "streams", "seed": "S", "cells": [], "x": {"a": 1, "a": 2}}', "a"),
])
def test_a_field_given_twice_is_refused(tmp_path, text, field):
    (tmp_path / "twice.json").write_text(text)
    code, _, err = run(tmp_path, "verify", "twice.json")
    assert code == 2 and f"twice.json: holds the field {field!r} twice in one object" in error_line(err), err


def test_the_largest_field_is_named_wherever_it_is():
    from paperplay.jsonfile import _largest, _size

    assert _largest({"a": [1, {"b": [1, 2, 3]}], "c": [1, 2]}) == ("a[1].b", 3)
    assert _largest([[], [1]]) == ("", 2) and _largest([]) == ("", 0)
    assert [_size(v) for v in (5, [], [[[]]], {"a": [1, {"b": 2}]})] == [(0, 1), (1, 1), (3, 3), (3, 5)]


def test_simulate_starts_no_more_workers_than_pieces_of_work(monkeypatch):
    import multiprocessing

    from paperplay.streams.lab import simulate

    def no_pool(*args, **kwargs):
        raise AssertionError("a pool of workers for one game")

    monkeypatch.setattr(multiprocessing, "get_context", no_pool)
    (summary,) = simulate(["gap"], games=1, seed="S", jobs=64)
    assert len(summary.scores) == 1


def test_paperplay_alone_is_one_line_naming_the_commands(tmp_path):
    process = subprocess.run([sys.executable, "-m", "paperplay"], cwd=tmp_path, capture_output=True, text=True,
                             timeout=60)
    assert process.returncode == 2 and process.stdout == ""
    assert process.stderr.startswith("paperplay: error: give a command (sheets, kit, draw, ")
    assert process.stderr.endswith("; see: paperplay --help\n") and len(process.stderr.splitlines()) == 1


def test_a_loop_of_links_at_out_is_replaced_with_force(tmp_path):
    (tmp_path / "a.pdf").symlink_to("b.pdf")
    (tmp_path / "b.pdf").symlink_to("a.pdf")
    code, _, err = run(tmp_path, "sheets", "--players", "1", "--seed", "S", "--out", "a.pdf")
    assert code == 2 and "already exists" in error_line(err)
    code, _, err = run(tmp_path, "sheets", "--players", "1", "--seed", "S", "--out", "a.pdf", "--force")
    assert code == 0, err
    assert not (tmp_path / "a.pdf").is_symlink() and (tmp_path / "a.pdf").read_bytes()[:5] == b"%PDF-"


def test_an_overwritten_file_keeps_its_permissions_but_not_set_user_id(tmp_path):
    (tmp_path / "out.pdf").write_bytes(b"old")
    (tmp_path / "out.pdf").chmod(0o6750)
    files.write_atomic(tmp_path / "out.pdf", b"new", force=True)
    assert (tmp_path / "out.pdf").stat().st_mode & 0o7777 == 0o750


def test_a_link_writes_where_its_file_is_and_that_folder_is_checked(tmp_path):
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "real.pdf").write_bytes(b"old")
    (tmp_path / "links").mkdir()
    (tmp_path / "links" / "out.pdf").symlink_to("../files/real.pdf")
    assert files._destination(tmp_path / "links" / "out.pdf") == (tmp_path / "files" / "real.pdf").resolve()
    files.write_atomic(tmp_path / "links" / "out.pdf", b"new", force=True)
    assert (tmp_path / "files" / "real.pdf").read_bytes() == b"new" and (tmp_path / "links" / "out.pdf").is_symlink()
    assert sorted(p.name for p in (tmp_path / "links").iterdir()) == ["out.pdf"]  # no temporary file left there


def test_a_pipe_at_the_plot_path_names_the_plot_option(tmp_path):
    os.mkfifo(tmp_path / "p.png")
    code, _, err = run(tmp_path, "simulate", "--strategy", "gap", "--games", "2", "--plot", "p.png", "--force")
    assert code == 2 and error_line(err).endswith("give a file name ending in .png or .pdf with --plot"), err


@pytest.mark.parametrize("encoding", ["ascii", "latin-1", "utf-8"])
def test_json_output_is_valid_json_in_any_output_encoding(tmp_path, encoding):
    sheet = {**copy.deepcopy(SPEC_SHEET), "player": "Søren 😀"}
    (tmp_path / "s.json").write_text(json.dumps(sheet), encoding="utf-8")
    env = {**os.environ, "PYTHONIOENCODING": encoding}
    for args in (["score", "s.json", "--json"], ["schema", "streams-sheet"]):
        process = subprocess.run([sys.executable, "-m", "paperplay", *args], cwd=tmp_path, capture_output=True,
                                 env=env, timeout=60)
        document = json.loads(process.stdout.decode("utf-8"))  # bytes any JSON reader takes
        assert process.returncode in (0, 1) and document
        if args[0] == "score":
            assert document["results"][0]["player"] == "Søren 😀"


def test_an_interrupted_write_leaves_no_file(tmp_path, monkeypatch):
    def interrupted(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(files.os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        files.write_atomic(tmp_path / "out.pdf", b"data", force=False)
    assert list(tmp_path.iterdir()) == [] and not files._PENDING


def test_output_folders_a_run_made_are_removed_when_it_leaves_them_empty(tmp_path):
    (tmp_path / "kept").mkdir()
    files.check_writable(tmp_path / "new" / "deeper" / "out.pdf", force=False)  # makes new/ and new/deeper/
    files.check_writable(tmp_path / "kept" / "out.pdf", force=False)
    files.check_writable(tmp_path / "used" / "out.pdf", force=False)
    files.write_atomic(tmp_path / "used" / "out.pdf", b"data", force=False)
    assert (tmp_path / "new" / "deeper").is_dir()
    files.remove_empty_folders()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept", "used"]  # an existing folder stays, empty or not
    assert (tmp_path / "used" / "out.pdf").read_bytes() == b"data" and not files._MADE


def test_a_folder_that_existed_is_never_removed_however_the_path_names_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "keep").mkdir()  # the user's, empty
    files.check_writable(Path("new/../keep/out.html"), force=False)  # new/ is made on the way
    files.check_writable(Path("./keep/./sub/../out.pdf"), force=False)
    files.remove_empty_folders()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep"]


def test_a_command_that_fails_after_making_its_output_folder_leaves_none(tmp_path):
    (tmp_path / "kit.pdf").write_bytes(b"%PDF- mine")  # the page's folder is made before the kit is refused
    code, _, err = run(tmp_path, "kit", "streams", "--seed", "S", "--out", "kit.pdf", "--html", "new/caller.html")
    assert code == 2 and "kit.pdf: already exists" in error_line(err)
    assert not (tmp_path / "new").exists() and (tmp_path / "kit.pdf").read_bytes() == b"%PDF- mine"


def test_temporary_files_are_registered_until_renamed(tmp_path, monkeypatch):
    seen = []
    real_replace = files.os.replace

    def replace(src, dst):
        seen.append(set(files._PENDING))
        files.remove_temporary_files()  # what SIGTERM/Ctrl-C does at this moment
        real_replace(src, dst)

    monkeypatch.setattr(files.os, "replace", replace)
    with pytest.raises(InputError):
        files.write_atomic(tmp_path / "out.pdf", b"data", force=False)
    assert seen and len(seen[0]) == 1 and list(tmp_path.iterdir()) == []


def _start(tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "paperplay", *args], cwd=tmp_path, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _communicate(process: subprocess.Popen[str], timeout: float = 60) -> tuple[str, str]:
    """The process's output; a process that outlives the timeout is killed (no process is left behind)."""
    try:
        return process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise


@pytest.mark.parametrize("sig, code, word", [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "SIGTERM")])
def test_signals_end_in_one_line_and_leave_no_file(tmp_path, sig, code, word):
    process = _start(tmp_path, "simulate", "--strategy", "montecarlo:20000", "--games", "1000",
                     "--plot", "lab.png")
    time.sleep(1.5)
    process.send_signal(sig)
    out, err = _communicate(process)
    assert process.returncode == code, err
    assert (
        "Traceback" not in err
        and err.splitlines()[-1] == f"paperplay: {'stopped (SIGTERM)' if code == 143 else 'interrupted'}"
    )
    assert word in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_stops_the_coachs_forked_workers_too(tmp_path, sig, code):
    """advise forks workers for its two-tile search in plain Python: a signal to the command (or, as
    Ctrl-C does, to its whole process group) ends it in one line and leaves no worker running."""
    from paperplay.processes import cores

    if cores() < 2:
        pytest.skip("the coach forks no workers on one core")
    process = subprocess.Popen(
        [sys.executable, "-m", "paperplay", "advise", "--cells", " ".join(["_"] * 20), "--tile", "17",
         "--budget", "100000"], cwd=tmp_path, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "PAPERPLAY_NO_JIT": "1"}, start_new_session=True)
    deadline = time.monotonic() + 30
    while len(_group(process.pid)) < 3 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)  # until the workers are searching
    assert len(_group(process.pid)) >= 3, "the search forked no workers"
    if sig == signal.SIGINT:
        os.killpg(process.pid, sig)
    else:
        process.send_signal(sig)
    out, err = _communicate(process)
    assert process.returncode == code and out == "", err
    assert err == ("paperplay: interrupted\n" if code == 130 else "paperplay: stopped (SIGTERM)\n")
    deadline = time.monotonic() + 5
    while _group(process.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _group(process.pid) == []  # no worker is left in the command's process group


@pytest.mark.parametrize("pause", [0.0, 0.02, *(pytest.param(p, marks=pytest.mark.slow) for p in (0.002, 0.2))])
def test_a_second_ctrl_c_as_the_run_ends_changes_nothing(tmp_path, pause):
    process = _start(tmp_path, "simulate", "--strategy", "montecarlo:20000", "--games", "1000",
                     "--plot", "lab.png")
    time.sleep(1.5)
    process.send_signal(signal.SIGINT)
    time.sleep(pause)
    process.send_signal(signal.SIGINT)  # impatient: while the first one is ending the run
    out, err = _communicate(process)
    assert process.returncode == 130 and "Traceback" not in err, err
    assert err.endswith("paperplay: interrupted\n") and err.count("interrupted") == 1
    assert list(tmp_path.iterdir()) == []


def _group(pgid: int) -> list[int]:
    """The live processes in a process group (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(entry.name))
    return found


@pytest.mark.parametrize("unbuffered", ["1", None])
@pytest.mark.parametrize("json_out", [[], ["--json"]])
def test_a_reader_that_stops_reading_ends_the_command_quietly_with_141(tmp_path, json_out, unbuffered):
    """Buffered or not, text or JSON (written at once, or only in the last flush): 141, no message."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = unbuffered
    read, write = os.pipe()
    os.close(read)  # `paperplay draw sequence | head -1`, after head has gone
    try:
        done = subprocess.run([sys.executable, "-m", "paperplay", "draw", "sequence", "--seed", "7KQ2-M9XD",
                               *json_out], cwd=tmp_path, stdout=write, stderr=subprocess.PIPE, text=True,
                              timeout=60, env=env)
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (141, "")


def test_ctrl_c_that_python_wraps_in_another_error_is_still_a_stop(tmp_path, monkeypatch):
    # A Ctrl-C while a dataclass is made at start-up reaches paperplay as a RuntimeError ("Error calling
    # __set_name__ …") caused by the KeyboardInterrupt: exit 130 and its line, not an internal error (3).
    import paperplay.seeds

    def interrupted(*args, **kwargs):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            raise RuntimeError("Error calling __set_name__ on 'Field' instance 'problems'") from exc

    monkeypatch.setattr(paperplay.seeds, "words", interrupted)
    code, _, err = run(tmp_path, "draw", "streams", "--seed", "S")
    assert (code, err) == (130, "paperplay: interrupted\n")


def test_ctrl_c_while_starting_up_is_one_line(tmp_path):
    process = _start(tmp_path, "sheets", "--players", "200", "--out", "out.pdf")
    time.sleep(0.15)  # still importing
    process.send_signal(signal.SIGINT)
    out, err = _communicate(process)
    if err.startswith("Fatal Python error: init_import_site"):
        return  # on a loaded machine the signal came while Python itself was starting, before any paperplay code
    assert "Traceback" not in err
    if process.returncode == -signal.SIGINT:  # stopped by the signal itself (Python was still starting up)
        assert err in ("", "paperplay: interrupted\n")
    elif process.returncode != 0:  # a fast machine may have finished already
        assert process.returncode == 130 and err.strip().splitlines()[-1] == "paperplay: interrupted"
    assert process.returncode == 0 or not [p for p in tmp_path.rglob("*") if p.is_file()]



SWALLOWED_AT_IMPORT = """
import gc, os, signal, sys, weakref

class Poke:  # while typer is found, a Ctrl-C arrives inside a callback Python cannot raise from
    def find_spec(self, name, path=None, target=None):
        if name == "typer":
            class Box:
                pass
            def callback(ref):
                os.kill(os.getpid(), signal.SIGINT)
                sum(range(1000))  # the handler runs here; an interrupt it raises is only printed
            box = Box()
            keep.append(weakref.ref(box, callback))
            del box
            gc.collect()
        return None

keep = []
sys.meta_path.insert(0, Poke())
sys.argv = ["paperplay", "draw", "streams", "--seed", "A"]
from paperplay.cli.entry import main
main()
"""


def test_ctrl_c_swallowed_while_modules_load_still_stops_the_run():
    # Seen at random start-up moments: the interrupt landed in importlib's lock callback, Python printed
    # it as "Exception ignored" and the command ran to its end (exit 0).
    done = subprocess.run([sys.executable, "-c", SWALLOWED_AT_IMPORT], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr, done.stdout) == (130, "paperplay: interrupted\n", "")

# Sequence game-log rules ----------------------------------------------------------------------------------

NUMBERS = number_set("1-48")


@pytest.fixture
def game():
    state = _Game(standard_rules(), "STATE", make_board("STATE", NUMBERS), list(make_deck("STATE", NUMBERS, "mixed")),
                  ["Ann", "Bob"], {"Ann": "red", "Bob": "blue"}, 1)
    state.hands = {"Ann": [], "Bob": []}
    return state


def _equation(game, number):
    return next(c for c in game.deck if c.value == number)


def test_minus_turn_listing_sequences_is_illegal(game):
    game.chips[(4, 4)] = "blue"
    game.hands["Ann"] = [Card(MINUS)]
    with pytest.raises(_Illegal) as exc:
        play_turn(game, {"player": "Ann", "card": MINUS, "remove": [4, 4],
                          "sequences": [[[0, 0], [0, 1], [0, 2], [0, 3], [0, 4]]]})
    assert exc.value.problem.rule == "sequence/minus" and "Minus" in exc.value.problem.message


def test_minus_turn_without_sequences_is_legal(game):
    game.chips[(4, 4)] = "blue"
    game.hands["Ann"] = [Card(MINUS)]
    play_turn(game, {"player": "Ann", "card": MINUS, "remove": [4, 4]})
    assert (4, 4) not in game.chips


@pytest.mark.parametrize("extra, field", [
    ({"sequences": [[[0, 0], [0, 1], [0, 2], [0, 3], [0, 4]]]}, "sequences"),
    ({"square": [4, 4]}, "square"),
    ({"remove": [4, 4]}, "remove"),
    ({"card": PLUS}, "card"),
])
def test_a_pass_places_and_removes_nothing(game, extra, field):
    game.chips[(4, 4)] = "blue"
    with pytest.raises(_Illegal) as exc:
        play_turn(game, {"player": "Ann", "pass": True, **extra})
    assert exc.value.problem.rule == "sequence/pass" and f"field {field}" in exc.value.problem.message


def test_a_bare_pass_with_an_empty_hand_is_legal(game):
    play_turn(game, {"player": "Ann", "pass": True})
    assert game.chips == {}


def test_an_equation_card_naming_remove_reports_the_real_fault(game):
    number = game.board[4][4]
    card = _equation(game, number)
    game.hands["Ann"] = [card]
    game.chips[(5, 5)] = "blue"
    with pytest.raises(_Illegal) as exc:
        play_turn(game, {"player": "Ann", "card": card.text, "square": [4, 4], "remove": [5, 5]})
    assert exc.value.problem.rule == "sequence/remove" and "only a Minus card removes" in exc.value.problem.message
    game.hands["Ann"] = [Card(PLUS)]
    with pytest.raises(_Illegal) as exc:
        play_turn(game, {"player": "Ann", "card": PLUS, "square": [4, 4], "remove": [5, 5]})
    assert exc.value.problem.rule == "sequence/remove"
    game.hands["Ann"] = [card]
    play_turn(game, {"player": "Ann", "card": card.text, "square": [4, 4]})
    assert game.chips[(4, 4)] == "red"


def test_log_rules_from_the_command_line(tmp_path):
    log = data("sequence-game.json")
    log["turns"][0]["remove"] = [0, 1]
    code, out, err = run(tmp_path, "verify", write(tmp_path, "log.json", log), "--json")
    assert code == 1, err
    assert json.loads(out)["results"][0]["problems"][0]["rule"] == "sequence/remove"


def test_main_restores_the_signal_handlers(tmp_path):
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    run(tmp_path, "draw", "streams", "--seed", "S")
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before


# The README's description of equation generation rebuilds the deck ------------------------------------

def _readme_deck(seed: str, numbers: tuple[int, ...], level: str) -> list[str]:
    """An independent implementation of README 'Equation generation, exactly'."""
    from paperplay.seeds import Rng

    rng = Rng("sequence/deck", seed)
    R = rng.randbelow

    def pairs(n):
        found = [(a, n // a) for a in range(2, min(n - 1, 12) + 1) if n % a == 0 and n // a <= 12]
        return found or [(1, n)]

    def E(n, kind):
        if kind == "+":
            a = R(n + 1)
            return f"{a} + {n - a}"
        if kind == "-":
            b = 1 + R(20)
            return f"{n + b} - {b}"
        if kind == "x":
            if n == 0:
                return f"0 x {1 + R(9)}"
            options = pairs(n)
            a, b = options[R(len(options))]
            return f"{a} x {b}" if R(2) == 1 else f"{b} x {a}"
        if kind == "/":
            d = 2 + R(8)
            return f"{n * d} / {d}"
        options = [(a, b) for a in range(2, 13) for b in range(a, 13) if a * b < n]
        if not options:
            return E(n, "-")
        a, b = options[R(len(options))]
        return f"{a} x {b} + {n - a * b}"

    cards = []
    for n in numbers:
        if level == "mixed":
            K = ("+", "-", "x", "/", "x+")
            first, second = K[R(5)], K[R(4)]
            if second == first:
                second = "x+"
            kinds = ["x+" if k == "x" and pairs(n) == [(1, n)] else k for k in (first, second)]
        else:
            kinds = {"add": ["+", "+"], "add-sub": ["+", "-"], "mul-div": ["x", "/"]}[level]
        one, two = E(n, kinds[0]), E(n, kinds[1])
        for _ in range(20):
            if two != one:
                break
            two = E(n, kinds[1])
        if two == one and level != "add":
            two = E(n, "-")
        cards += [one, two]
    cards += ["plus", "plus", "minus", "minus"]
    for i in range(len(cards) - 1, 0, -1):
        j = R(i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


@pytest.mark.parametrize("level", ["add", "add-sub", "mul-div", "mixed"])
@pytest.mark.parametrize("numbers", ["0-47", "1-48", "times-tables", "9953-10000"])
def test_readme_equation_generation_rebuilds_the_deck(level, numbers):
    values = number_set(numbers)
    for seed in ("7KQ2M9XD", "DEMO", "A"):
        assert _readme_deck(seed, values, level) == [c.text for c in make_deck(seed, values, level)]


def test_readme_example_inputs_print_what_the_readme_shows():
    import re
    import shlex

    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    folder = Path(__file__).parent.parent  # README examples run from the repository's root
    for command in ("score docs/examples/ann.json docs/examples/bob.json docs/examples/cy.json --seed 7KQ2-M9XD",
                    "verify docs/examples/bad-game.json"):
        shown = re.search(rf"^\$ paperplay {re.escape(command)}\n((?:[^$`].*\n)+)", readme, re.M)
        assert shown, command
        code, out, err = run_cli(shlex.split(command), folder)
        assert code == 1 and out == shown[1], err


def test_an_undecodable_file_name_in_a_pdf_title(tmp_path):
    name = os.fsdecode(b"\xff.json")  # '\udcff.json', as Python reads such a name from the command line
    (tmp_path / name).write_text((DATA / "streetcar-state.json").read_text(encoding="utf-8"), encoding="utf-8")
    code, out, err = run(tmp_path, "route", name, "--line", "2", "--stops", "B,E", "--pdf", "route.pdf")
    assert code == 0, err
    assert (tmp_path / "route.pdf").read_bytes()[:5] == b"%PDF-"


@pytest.mark.parametrize("name", ["a" * 300 + ".pdf", "a/" * 3000 + "x.pdf"])
def test_an_out_name_too_long_for_the_file_system(tmp_path, name):
    code, _, err = run(tmp_path, "sheets", "--players", "1", "--seed", "S", "--out", name)
    assert code == 2 and "not a usable file name" in error_line(err) and len(err) < 700
    assert not [p for p in tmp_path.rglob("*") if p.is_file()]


@pytest.mark.parametrize("command", [("kit", "streams"), ("sheets",)])
@pytest.mark.parametrize("name, said", [
    ("Ődön", "the name 'Ődön' has 'Ő', which the printed sheets' font cannot show; write it as 'Odön'?"),
    ("Zoë 😀", "the name 'Zoë 😀' has '😀', which the printed sheets' font cannot show; expected letters"),
    ("李", "the name '李' has '李', which"),
    ("Ann\u3000Lee", "the name 'Ann\\u3000Lee' has '\\u3000', which the printed sheets' font cannot show; write it as "
                     "'Ann Lee'?"),
    ("Ann\tLee", "the name 'Ann\\tLee' has '\\t', which"),
    ("\u0301", "the name '\u0301' has '\u0301', which the printed sheets' font cannot show; expected "
                "letters"),  # not: write it as ''?
])
def test_a_name_the_font_cannot_print_is_refused(tmp_path, command, name, said):
    code, _, err = run(tmp_path, *command, "--seed", "S", "--names", f"Ann,{name}")
    assert code == 2 and f"paperplay: error: --names: {said}" in error_line(err), err
    assert list(tmp_path.iterdir()) == []


def test_names_the_font_can_print_are_on_the_sheets(tmp_path):
    from pdfcheck import page_texts

    names = ["Søren", "Jürgen", "Łukasz", "Đorđe", "Zoë", "Ann\u00a0Lee"]
    typed = names[:4] + ["Zoe\u0308", names[5]]  # ë as e and a combining diaeresis (macOS input)
    code, _, err = run(tmp_path, "sheets", "--seed", "S", "--names", ",".join(typed), "--out", "s.pdf")
    assert code == 0, err
    texts = [text.replace("\u00a0", " ") for text in page_texts(tmp_path / "s.pdf")]
    assert [name for name, text in zip(names, texts) if name.replace("\u00a0", " ") in text] == names


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("scannable", [False, True])
def test_a_long_name_is_printed_smaller_within_its_line(paper, scannable):
    """The longest name the refusal allows is printed within the name line, smaller."""
    from paperplay.render.fit import text_box
    from paperplay.render.model import Line, Text, paper_size
    from paperplay.streams.pages import NAME_END, NAME_MIN_SIZE, NAME_SIZE, sheet_form, sheet_pages
    from paperplay.streams.rules import standard_rules
    from paperplay.streams.scansheet import scan_pages

    width = paper_size(paper, landscape=True)[0]
    names = ["Ann", "Maximilian-Alexander von Hohenzollern"]
    _, pages = scan_pages("ABCD2345", 2, names, paper) if scannable else sheet_pages("ABCD2345", 2, names, paper)
    printed = [next(i for i in page.items if isinstance(i, Text) and i.text == name)
               for page, name in zip(pages, names)]
    height = paper_size(paper, landscape=True)[1]
    line = next(i for i in sheet_form(width, height, "ABCD2345", standard_rules()) if isinstance(i, Line))
    assert printed[0].size == NAME_SIZE and NAME_MIN_SIZE <= printed[1].size < NAME_SIZE
    assert line.x2 == width - NAME_END
    for text in printed:
        left, _, right, _ = text_box(text)
        assert line.x1 < left and right <= line.x2 + 0.01


@pytest.mark.parametrize("command", [("kit", "streams"), ("sheets",), ("sheets", "--scannable")])
@pytest.mark.parametrize("paper, room, letters", [("a4", 95, 48), ("letter", 77, 40)])
def test_a_name_too_long_for_its_line_is_refused(tmp_path, command, paper, room, letters):
    name = "Maximilian-Alexander von Hohenzollern-Sigmaringen und Veringen"
    code, _, err = run(tmp_path, *command, "--seed", "S", "--paper", paper, "--names", f"Ann,{name}")
    sheet = {"a4": "an A4", "letter": "a Letter"}[paper]
    assert code == 2 and error_line(err) == (
        f"paperplay: error: --names: the name {name!r} is too long for the name line of {sheet} sheet ({room} mm); "
        f"expected at most about {letters} letters, e.g. 'Maximilian-Alexander von'"), err
    assert list(tmp_path.iterdir()) == []
    code, _, err = run(tmp_path, *command, "--seed", "S", "--paper", paper, "--names", f"Ann,{name[:letters]}",
                       "--out", "ok.pdf")
    assert code == 0, err


@pytest.mark.parametrize("record, field", [("streetcar-game.json", "seed"), ("sequence-game.json", "seed"),
                                           ("sequence-position", "board_seed"), ("streams-sheet", "seed")])
def test_a_bad_seed_in_any_record_names_the_file_and_the_field(tmp_path, record, field):
    if record == "sequence-position":
        data = {"game": "sequence", "board_seed": "!!", "players": 2, "chips": {"red": [], "blue": []}}
    elif record == "streams-sheet":
        data = {**SPEC_SHEET, "seed": "!!"}
    else:
        data = {**json.loads((DATA / record).read_text()), field: "!!"}
    (tmp_path / "r.json").write_text(json.dumps(data))
    code, _, err = run(tmp_path, "verify", "r.json")
    assert code == 2 and error_line(err) == (f"paperplay: error: r.json: field {field}: seed '!!' has no ASCII letters "
                                             "or digits; a seed is 1-32 letters and digits, e.g. 7KQ2-M9XD"), err


@pytest.mark.parametrize("whom", ["group", "command"])
def test_ctrl_c_while_simulates_spawned_workers_start_is_one_line(tmp_path, whom):
    """simulate --jobs 2 spawns workers (and multiprocessing's resource tracker): a Ctrl-C to the whole
    process group while they are still importing, or to the command alone, ends the run in one line,
    with no worker's traceback and no warning of leaked semaphores."""
    process = subprocess.Popen(
        [sys.executable, "-m", "paperplay", "simulate", "--compare", "montecarlo,gap", "--games", "200",
         "--jobs", "2"], cwd=tmp_path, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "PAPERPLAY_NO_JIT": "1"}, start_new_session=True)
    deadline = time.monotonic() + 30
    while len(_group(process.pid)) < 4 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)  # until both workers and the resource tracker exist: still importing for a while
    assert len(_group(process.pid)) >= 4, "simulate started no workers"
    if whom == "group":
        os.killpg(process.pid, signal.SIGINT)
    else:
        process.send_signal(signal.SIGINT)
    out, err = _communicate(process)
    assert process.returncode == 130 and err == "paperplay: interrupted\n", err


@pytest.mark.parametrize("strategy, said", [
    ("montecarlo:0", "strategy 'montecarlo:0': the budget N of montecarlo:N is the play-out tiles a move, 1-"),
    ("gap:5", "strategy 'gap:5': only montecarlo takes a budget"),
    (" ", "names an empty strategy; expected one of random, proportional, gap, montecarlo, coach")])
def test_a_strategy_budget_error_says_what_is_wrong(tmp_path, strategy, said):
    code, _, err = run(tmp_path, "simulate", "--strategy", strategy, "--games", "1")
    assert code == 2 and error_line(err).startswith(f"paperplay: error: --strategy: {said}"), err
    code, _, err = run(tmp_path, "simulate", "--compare", "gap,", "--games", "1")
    assert code == 2 and error_line(err).endswith("expected names from random, proportional, gap, montecarlo, coach, "
                                                  "separated by commas"), err


def test_a_number_above_its_schema_maximum_says_the_bound_once(tmp_path):
    sheet = json.loads((Path(__file__).parent.parent / "docs" / "examples" / "ann-placements.json").read_text())
    sheet["placements"][0] = 21
    (tmp_path / "p.json").write_text(json.dumps(sheet))
    code, _, err = run(tmp_path, "review", "p.json")
    assert code == 2 and error_line(err) == "paperplay: error: p.json: field placements[0] is 21; expected at most 20"


@pytest.mark.parametrize("args, option, example", [
    (("sheets", "--players", "1", "--seed", "S", "--out", "new/"), "--out", "new/output.pdf"),
    (("sheets", "--players", "1", "--seed", "S", "--out", "new/."), "--out", "new/./output.pdf"),
    (("kit", "streams", "--seed", "S", "--html", "pages/"), "--html", "pages/output.html"),
    (("call", "streams", "--seed", "S", "--html", "pages/.."), "--html", "pages/../output.html"),
    (("simulate", "--games", "2", "--plot", "plots/"), "--plot", "plots/output.png"),
    (("route", str(DATA / "streetcar-state.json"), "--line", "1", "--pdf", "r/"), "--pdf", "r/output.pdf"),
])
def test_an_output_name_that_names_a_folder_is_refused(tmp_path, args, option, example):
    code, _, err = run(tmp_path, *args)
    assert code == 2 and error_line(err).startswith(
        f"paperplay: error: {option}: is {args[-1]!r}, a folder; expected a file name in it, e.g. {example}"), err
    assert list(tmp_path.iterdir()) == []
    code, _, err = run(tmp_path, *args[:-1], "")
    assert code == 2 and error_line(err).startswith(f"paperplay: error: {option}: is empty; expected a file name"), err


@pytest.mark.parametrize("args, option", [
    (("score", "--cells", " ".join(map(str, range(1, 21))), "--cells", " ".join(map(str, range(20, 0, -1)))),
     "--cells"),
    (("sheets", "--players", "2", "-n", "3", "--seed", "S"), "--players"),
    (("draw", "streams", "--seed", "A", "--seed", "A"), "--seed"),  # the same value twice too
    (("sheets", "--players", "2", "--seed", "S", "-o", "a.pdf", "-o", "b.pdf"), "--out"),
])
def test_an_option_that_takes_one_value_is_refused_when_given_twice(tmp_path, args, option):
    code, out, err = run(tmp_path, *args)
    assert code == 2 and error_line(err).startswith(f"paperplay: error: {option}: is given 2 times; give it once"), err
    assert out == "" and list(tmp_path.iterdir()) == []
    code, _, err = run(tmp_path, "sheets", "--players", "1", "--seed", "S", "-o", "c.pdf", "--force", "--force")
    assert code == 0, err  # a flag given twice says the same thing


@pytest.mark.parametrize("args, said", [
    (("sheets", "--players", "1", "--seed", "S", "--out", "results.json"), "--out: is 'results.json', a .json name; "
     "expected a file name ending in .pdf, e.g. output.pdf"),
    (("kit", "streams", "--seed", "S", "--out", "kit.HTML"), "--out: is 'kit.HTML', a .html name; expected"),
    (("call", "streams", "--seed", "S", "--html", "call.pdf"), "--html: is 'call.pdf', a .pdf name; expected a "
     "file name ending in .html, e.g. output.html"),
    (("route", str(DATA / "streetcar-state.json"), "--line", "1", "--pdf", "r.png"), "--pdf: is 'r.png', a .png"),
])
def test_an_output_name_of_another_format_is_refused(tmp_path, args, said):
    code, _, err = run(tmp_path, *args)
    assert code == 2 and error_line(err).startswith(f"paperplay: error: {said}"), err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args", [
    ("sheets", "--players", "1", "--seed", "S", "--out", "Sheets.PDF"),
    ("sheets", "--players", "1", "--seed", "S", "--out", "sheets"),
    ("sheets", "--players", "1", "--seed", "S", "--out", "sheets.v2"),
    ("call", "streams", "--seed", "S", "--html", "call.htm"),
])
def test_an_output_name_of_its_format_or_none_is_written(tmp_path, args):
    code, _, err = run(tmp_path, *args)
    assert code == 0 and (tmp_path / args[-1]).is_file(), err


@pytest.mark.parametrize("out", ["ann.json/x.pdf", "ann.json/d/x.pdf"])
def test_a_file_where_the_output_folder_should_be_is_named_as_a_file(tmp_path, out):
    (tmp_path / "ann.json").write_text("{}")
    code, _, err = run(tmp_path, "sheets", "--players", "1", "--seed", "S", "--out", out)
    assert code == 2 and error_line(err) == ("paperplay: error: ann.json: is not a folder, so the output "
                                             "x.pdf cannot go in it; give another path"), err
    assert [p.name for p in tmp_path.iterdir()] == ["ann.json"]


def test_a_huge_name_is_refused_without_measuring_all_of_it(tmp_path):
    started = time.monotonic()
    code, _, err = run(tmp_path, "sheets", "--seed", "S", "--names", "i" * 60_000)
    assert code == 2 and "…(59,9" in error_line(err) and "is too long for the name line" in err
    assert time.monotonic() - started < 10 and len(err) < 700


@pytest.mark.parametrize("name, shown", [
    ("Søren", "Søren"),
    ("A" * 75, "A" * 75),  # shortening would make it longer
    ("A" * 300, "A" * 40 + "…(245 characters)…" + "A" * 15),
    ("   ", "'   '"), ("", "''"), (" Ann", "' Ann'"),
    ("Eve\u202eB", "Eve\\u202eB"), ("Eve\u2066x\u2069", "Eve\\u2066x\\u2069"), ("a\nb", "a\\nb"),
])
def test_a_name_in_a_report_is_escaped_and_kept_short(name, shown):
    from paperplay.messages import shown_name

    assert shown_name(name) == shown


def test_long_values_in_a_report_are_shortened(tmp_path):
    # A card of 70,000 terms (it was worked out and quoted, shortened; a card is at most 60 characters
    # now, so it is refused unread) and a 300,000-letter player name: every line of the report stays
    # readable; --json keeps the values whole.
    log = data("sequence-game.json")
    log["turns"][0]["card"] = " + ".join(["1"] * 70_000)
    code, out, err = run(tmp_path, "verify", write(tmp_path, "card.json", log))
    assert code == 2 and "field turns[0].card is a text of 279,997 characters" in err and len(err) < 400
    tiny = data("streetcar-tiny-game.json")
    text = json.dumps(tiny).replace('"Ann"', json.dumps("N" * 300_000))
    (tmp_path / "name.json").write_text(text, encoding="utf-8")
    code, out, _ = run(tmp_path, "verify", "name.json")
    assert code == 0 and "N" * 1000 not in out and max(map(len, out.splitlines())) <= 1000
    code, out, _ = run(tmp_path, "verify", "name.json", "--json")
    assert code == 0 and "N" * 300_000 in out


@pytest.mark.parametrize("args, option, victim", [
    (("score", "ann.json", "--html", "ann"), "--html", "ann.json"),  # each output name links to an input
    (("score", "ann.json", "--html", "./ann-link"), "--html", "ann.json"),  # another name, the same file
    (("verify", "ann.json", "--html", "ann"), "--html", "ann.json"),
    (("score", "ann.json", "--variant", "v.json", "--html", "v"), "--html", "v.json"),
    (("route", "state.json", "--line", "1", "--stops", "A", "--pdf", "state"), "--pdf", "state.json"),
    (("sheets", "--players", "2", "--variant", "v.json", "--out", "v"), "--out", "v.json"),
    (("kit", "streams", "--variant", "v.json", "--out", "v"), "--out", "v.json"),
    (("kit", "streams", "--variant", "v.json", "--html", "v"), "--html", "v.json"),
    (("call", "streams", "--seed", "S", "--variant", "v.json", "--html", "v"), "--html", "v.json"),
])
def test_an_output_that_is_an_input_is_refused_even_with_force(tmp_path, args, option, victim):
    """--force replaces an existing output; it never replaces a file the command reads, by any name.
    (The output names have no extension: `--html ann.json` is refused as another format first.)"""
    (tmp_path / "ann.json").write_text(json.dumps(SPEC_SHEET))
    for link, target in (("ann", "ann.json"), ("ann-link", "ann.json"), ("v", "v.json"), ("state", "state.json")):
        (tmp_path / link).symlink_to(target)
    (tmp_path / "v.json").write_text((DATA / "streams-variant-big.json").read_text())
    (tmp_path / "state.json").write_text((DATA / "streetcar-state.json").read_text())
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    code, _, err = run(tmp_path, *args, "--force")
    assert code == 2 and error_line(err).startswith(f"paperplay: error: {option}: is "), err
    assert f"which is also an input of this command ({victim}); give the output another name" in err
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    code, _, err = run(tmp_path, *args[:-1], victim, "--force")  # by its own name: another format
    assert code == 2 and error_line(err).startswith(f"paperplay: error: {option}: is {victim!r}, a .json name"), err
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_every_command_has_a_whole_line_in_the_help(tmp_path):
    result = subprocess.run([sys.executable, "-m", "paperplay", "--help"], capture_output=True, text=True,
                            env={**os.environ, "COLUMNS": "80"})
    commands = result.stdout.split("Commands:")[1].strip().splitlines()
    assert len(commands) == 14 and not [line for line in commands if line.rstrip().endswith("...")], commands


@pytest.mark.parametrize("args, option, said", [
    (("score", "ann.json", "--lang", "da"), "--lang", "is for --html (the results page's language"),
    (("score", "ann.json", "--force"), "--force", "is for --html (to replace an existing page)"),
    (("verify", "ann.json", "--force"), "--force", "is for --html"),
    (("call", "streams", "--seed", "S", "--lang", "de"), "--lang", "is for --html (the page's language; the "
                                                                   "terminal caller speaks English)"),
    (("simulate", "--strategy", "gap", "--games", "2", "--force"), "--force", "is for --plot"),
    (("sheets", "-n", "2", "--scannable", "--lang", "da"), "--lang", "is 'da', but the scannable sheets "
                                                                   "(--scannable) are printed in English only"),
    (("kit", "streams", "--scannable", "--lang", "de"), "--lang", "is 'de', but the scannable sheets"),
])
def test_an_option_that_would_do_nothing_is_refused(tmp_path, args, option, said):
    (tmp_path / "ann.json").write_text(json.dumps(SPEC_SHEET))
    code, _, err = run(tmp_path, *args)
    assert code == 2 and error_line(err).startswith(f"paperplay: error: {option}: {said}"), err
    assert [p.name for p in tmp_path.iterdir()] == ["ann.json"]


@pytest.mark.parametrize("args, said", [
    (("kit", "stream"), "game: is 'stream'; expected one of streams, streetcar, sequence (did you mean streams?)"),
    (("schema", "streams-sheets"), "unknown schema 'streams-sheets'; known schemas: "),
    (("simulate", "--strategy", "gapp", "--games", "2"), "--strategy: unknown strategy 'gapp'; known: random, "
                                                         "proportional, gap, montecarlo, coach (did you mean gap?)"),
    (("simulate", "--games", "0"), "--games: is 0; expected 1 to 100,000"),
])
def test_a_mistyped_choice_gets_the_closest_one_suggested(tmp_path, args, said):
    code, _, err = run(tmp_path, *args)
    assert code == 2 and error_line(err).startswith(f"paperplay: error: {said}"), err
    assert args[0] != "schema" or "(did you mean streams-sheet?)" in err


@pytest.mark.parametrize("args, said", [
    (("call", "streetcar", "--seed", "1"), "game: is 'streetcar'; expected streams, the only choice"),
    (("draw", "streams", "--seed", "--json"), "--seed: is followed by --json, another option; give its value right "
                                              "after --seed"),
    (("sheets", "--names", "--force", "-n", "2"), "--names: is followed by --force, another option"),
    (("draw", "streams", "-s", "--help"), "--seed: is followed by --help, another option"),
])
def test_a_choice_of_one_and_an_option_taken_for_a_value_are_refused(tmp_path, args, said):
    code, out, err = run(tmp_path, *args)
    assert (code, out) == (2, "") and error_line(err).startswith(f"paperplay: error: {said}"), err
    assert list(tmp_path.iterdir()) == []


def test_a_value_that_only_starts_with_a_dash_is_still_a_value(tmp_path):
    code, _, err = run(tmp_path, "advise", "--cells", "_ " * 20, "--tile", "5", "--top", "-1")
    assert code == 2 and "--top: is -1; expected 1 or more" in err
    code, out, _ = run(tmp_path, "draw", "streams", "--seed", "-7KQ2-M9XD", "--json")
    assert code == 0 and json.loads(out)["seed"] == "7KQ2M9XD"


def test_choices_are_read_in_any_case(tmp_path):
    code, out, err = run(tmp_path, "kit", "Streams", "--paper", "A4", "--seed", "S", "--out", "k.pdf")
    assert code == 0 and "Wrote k.pdf" in out, err
    code, out, err = run(tmp_path, "simulate", "--strategy", "Gap", "--games", "2")
    assert code == 0 and " gap " in out, err


def test_a_box_named_twice_in_placements_is_named(tmp_path):
    sheet = json.loads((Path(__file__).parent.parent / "docs/examples/ann-placements.json").read_text())
    sheet["placements"][3] = sheet["placements"][1]
    (tmp_path / "rep.json").write_text(json.dumps(sheet))
    code, _, err = run(tmp_path, "review", "rep.json")
    assert code == 2 and error_line(err).startswith(
        f"paperplay: error: rep.json: field placements lists {sheet['placements'][1]} twice; expected the box "
        "(1-20) each drawn tile was written in, in draw order, each box once"), err


@pytest.mark.parametrize("args, said", [
    (("scroe",), "unknown command 'scroe'; expected one of sheets, kit, draw, call, score, verify, route, schema, "
                 "advise, simulate, review, scan, serve, worker (did you mean score?)"),
    (("version",), "unknown command 'version'; expected one of sheets,"),
    (("schema", "streams-sheet", "extra"),
     "extra: more arguments than this command takes (see: paperplay schema --help)"),
    (("route", "s.json", "x", "y", "--line", "1"), "x y: more arguments than this command takes"),
    (("draw", "streams", "f(x)", "--seed", "S"), "f(x): more arguments than this command takes"),
    (("verison",), "unknown command 'verison'; expected one of sheets,"),
    (("scan", "a.jpg", "--out", "s.json"), "--out: is 's.json', a file; expected a folder to write in"),
    (("route", "s.json", "--line", "1"), "give the stops to visit: --card N (a route card, with --set) or --stops"),
    (("route", "s.json", "--line", "1", "--card", "2", "--stops", "A"), "--card and --stops: give one of them, "
                                                                         "not both"),
    (("route", "s.json", "--line", "1", "--stops", "A", "--set", "3"), "--set: is for --card (the route card's set"),
    (("call", "streams", "--seed", "S", "--html", "-"), "-: paperplay writes this output to a file, not to standard "
                                                        "output; give a file name ending in .html with --html"),
    (("kit", "sequence", "--out", "-"), "-: paperplay writes this output to a file, not to standard output; give a "
                                        "file name ending in .pdf with --out"),
    (("call", "streams", "--seed", "S", "--html", "/dev/null"), "/dev/null: is not a file (a device, a pipe or a "
                                                                "socket); give a file name ending in .html"),
    (("draw", "sequence", "--seed", "S", "--numbers", "-5,1,2"), "--numbers: '-5,1,2' holds a negative number; "
                                                                  "expected numbers 0-10,000"),
    (("draw", "sequence", "--seed", "S", "--numbers", "3-50,-2"), "--numbers: '3-50,-2' holds a negative number"),
])
def test_usage_mistakes_are_said_in_paperplays_own_words(tmp_path, args, said):
    (tmp_path / "s.json").write_text((DATA / "streetcar-state.json").read_text())
    code, _, err = run(tmp_path, *args)
    assert code == 2 and error_line(err).startswith(f"paperplay: error: {said}"), err
    assert args not in (("version",), ("verison",)) or "(did you mean --version?)" in err


def test_a_mistyped_option_gets_the_closest_first(tmp_path):
    code, _, err = run(tmp_path, "sheets", "--playres", "3")
    assert code == 2 and error_line(err).startswith("paperplay: error: --playres: no such option; did you mean "
                                                    "--players or "), err


@pytest.mark.parametrize("args, env", [
    (("sheets", "-n", "2", "--scannable", "--lang", "en"), {}),
    (("sheets", "-n", "2", "--scannable"), {"LC_ALL": "de_DE.UTF-8"}),
    (("kit", "streams", "--scannable"), {"LANG": "da_DK.UTF-8"}),
])
def test_scannable_sheets_take_english_and_a_locale_nobody_asked_to_print_in(tmp_path, args, env):
    result = subprocess.run([sys.executable, "-m", "paperplay", *args, "--seed", "S", "--out", "s.pdf"],
                            cwd=tmp_path, capture_output=True, text=True, env={**os.environ, **env})
    assert result.returncode == 0 and (tmp_path / "s.pdf").is_file(), result.stderr


def test_route_refuses_force_and_lang_without_pdf_and_a_pdf_over_its_board_file(tmp_path):
    state = json.loads((DATA / "streetcar-state.json").read_text())
    (tmp_path / "myboard.json").write_text(json.dumps(_standard_board_data()))
    (tmp_path / "s.json").write_text(json.dumps({**state, "board": "myboard.json"}))
    for option, said in (("--force", "is for --pdf (to replace an existing drawing)"),
                         (("--lang", "de"), "is for --pdf (the drawing's language")):
        extra = option if isinstance(option, tuple) else (option,)
        code, _, err = run(tmp_path, "route", "s.json", "--line", "1", "--stops", "A", *extra)
        assert code == 2 and error_line(err).startswith(f"paperplay: error: {extra[0]}: {said}"), err
    before = (tmp_path / "myboard.json").read_bytes()
    (tmp_path / "board").symlink_to("myboard.json")
    code, _, err = run(tmp_path, "route", "s.json", "--line", "1", "--stops", "A", "--pdf", "board", "--force")
    assert code == 2 and "which is also an input of this command" in error_line(err), err
    assert (tmp_path / "myboard.json").read_bytes() == before


def _standard_board_data():
    from paperplay.resources import load_template

    return load_template("streetcar/standard-board.json")


# Found by a review of the command line's edges (2026-12-01) -----------------------------------------

def test_a_lone_surrogate_in_a_name_is_written_escaped_on_the_results_page(tmp_path):
    name = write(tmp_path, "sheet.json", dict(SPEC_SHEET, player="Ann\ud800"))
    code, _, err = run(tmp_path, "score", name, "--html", "r.html")
    assert code == 0, err
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "Ann\\ud800" in page


def test_a_byte_order_mark_before_the_json_is_skipped(tmp_path):
    (tmp_path / "sheet.json").write_bytes(b"\xef\xbb\xbf" + json.dumps(SPEC_SHEET).encode())
    code, out, err = run(tmp_path, "score", "sheet.json")
    assert code == 0 and "points, valid" in out, err


@pytest.mark.parametrize("document, said", [
    (None, "the file holds null; expected an object with a \"game\" field"),
    (True, "the file holds true; expected an object"),
    (42, "the file holds a JSON number; expected an object"),
    ("x", "the file holds a JSON string; expected an object"),
    ([1], "the file holds a JSON array; expected an object"),
])
def test_a_file_that_is_not_an_object_is_named_in_jsons_words(tmp_path, document, said):
    code, _, err = run(tmp_path, "verify", write(tmp_path, "r.json", document))
    assert code == 2 and error_line(err).startswith(f"paperplay: error: r.json: {said}"), err


def test_a_variant_file_that_is_not_an_object_names_its_own_first_field(tmp_path):
    code, _, err = run(tmp_path, "draw", "streams", "--seed", "S", "--variant", write(tmp_path, "v.json", [1, 2]))
    assert code == 2 and error_line(err).endswith(
        'v.json: the file holds a JSON array; expected an object with a "variant" field'), err


def test_route_takes_at_most_six_stops_in_any_order(tmp_path):
    (tmp_path / "s.json").write_text((DATA / "streetcar-state.json").read_text())
    code, _, err = run(tmp_path, "route", "s.json", "--line", "1", "--stops", "A,B,C,D,E,F,G")
    assert code == 2 and error_line(err) == ("paperplay: error: --stops: names 7 stops; expected at most 6 (a route "
                                             "card names 2 or 3)"), err
    code, _, err = run(tmp_path, "route", "s.json", "--line", "1", "--stops", "A,B,C,D,E,F")
    assert code in (0, 1) and "error" not in err, err


@pytest.mark.parametrize("stops, said", [(",", "stop 1 of 2 in ','"), (",B", "stop 1 of 2 in ',B'"),
                                         ("B,,D", "stop 2 of 3 in 'B,,D'"), ("B,", "stop 2 of 2 in 'B,'")])
def test_route_refuses_an_empty_stop_in_the_list(tmp_path, stops, said):
    (tmp_path / "s.json").write_text((DATA / "streetcar-state.json").read_text())
    code, _, err = run(tmp_path, "route", "s.json", "--line", "1", "--stops", stops)
    assert code == 2 and error_line(err) == (f"paperplay: error: --stops: {said} is empty; expected location "
                                             "letters separated by commas, e.g. B,D,M ('' for none)"), err
    for fine in ("", " ", " b , d "):  # none at all; spaces and small letters
        code, _, err = run(tmp_path, "route", "s.json", "--line", "1", "--stops", fine)
        assert code in (0, 1) and "error" not in err, err


def test_a_home_made_deal_names_at_most_six_stops(tmp_path):
    log = data("streetcar-tiny-game.json")
    log["deal"][0]["stops"] = list("ABCDEFG")
    code, _, err = run(tmp_path, "verify", write(tmp_path, "log.json", log))
    assert code == 2 and "field deal[0].stops has 7 entries; expected stops, 1-6" in error_line(err)


@pytest.mark.parametrize("args, said", [
    (("score", ""), "files: is empty; expected the name of a file to read"),
    (("verify", ""), "files: is empty; expected the name of a file to read"),
    (("review", ""), "sheet: is empty; expected the name of a file to read"),
    (("route", "", "--line", "1", "--stops", "A"), "state: is empty; expected the name of a file to read"),
    (("scan", ""), "photos: is empty; expected the name of a file to read"),
    (("scan", "a.jpg", "--out", ""), "--out: is empty; expected a folder to write in"),
    (("draw", "sequence", "--seed", "S", "--numbers", ""), "--numbers: '' is not a number set"),
    (("simulate", "--strategy", "montecarlo:", "--games", "1"), "--strategy: strategy 'montecarlo:': the budget N"),
    (("simulate", "--strategy", "gap:", "--games", "1"), "--strategy: strategy 'gap:': only montecarlo takes"),
    (("kit", "streetcar", "--back-offset", "1e-3,0"), "--back-offset: is '1e-3,0'; expected X,Y in mm as two "
                                                      "decimal numbers"),
])
def test_empty_names_and_values_are_refused_not_read_as_a_default(tmp_path, args, said):
    code, _, err = run(tmp_path, *args)
    assert code == 2 and error_line(err).startswith(f"paperplay: error: {said}"), err
    assert not any(tmp_path.iterdir())  # nothing written (scan with --out "" would write in the folder)


@SCAN_EXTRA
def test_a_pipe_given_to_scan_is_said_to_be_one(tmp_path):
    os.mkfifo(tmp_path / "photo.jpg")
    code, _, err = run(tmp_path, "scan", "photo.jpg", "--out", "out")
    assert code == 2 and "photo.jpg: is not a regular file; expected a photo" in err, err


@pytest.mark.parametrize("name, document, path, value, said", [
    ("state.json", data("streetcar-state.json"), ("stop_signs",), {"a": [0, 0]},
     'field stop_signs has a field named "a"; expected a location letter A-Z'),
    ("pos.json", json.loads((Path(__file__).parent.parent / "docs/examples/pos.json").read_text()), ("chips",),
     {"Red": [[0, 0]]}, 'field chips has a field named "Red"; expected a colour in small letters'),
])
def test_a_bad_field_name_is_said_as_a_name(tmp_path, name, document, path, value, said):
    code, _, err = run(tmp_path, "verify", write(tmp_path, name, _set(document, path, value)))
    assert code == 2 and said in error_line(err), err


def test_an_inline_board_says_what_is_wrong_inside_it(tmp_path):
    log = data("streetcar-tiny-game.json")
    log["board"]["terminals"] = []
    code, _, err = run(tmp_path, "verify", write(tmp_path, "log.json", log))
    assert code == 2 and "field board.terminals has 0 entries; expected two terminals" in error_line(err), err
    log["board"] = ""
    code, _, err = run(tmp_path, "verify", write(tmp_path, "log.json", log))
    assert code == 2 and 'field board is ""; expected "standard", a board file\'s path' in error_line(err), err


def test_review_refuses_a_draw_the_bag_cannot_give(tmp_path):
    drawn = [11, 5, 5, 17, 27, 25, 6, 4, 13, 15, 16, 1, 28, 15, 7, 18, 23, 8, 20, 24]  # two 5s; the bag has one
    sheet = {"game": "streams", "draw": drawn, "cells": drawn, "placements": list(range(1, 21))}
    code, _, err = run(tmp_path, "review", write(tmp_path, "s.json", sheet), "--budget", "100")
    assert code == 2 and error_line(err).startswith("paperplay: error: s.json: field draw: the draw list has 5 at "
                                                    "turns 2, 3, but the bag has one 5"), err
    code, out, _ = run(tmp_path, "score", "s.json")
    assert code == 1 and "streams/draw" in out  # the referee names the broken rule


def test_a_logs_number_set_is_named_as_its_field_not_an_option(tmp_path):
    log = dict(data("sequence-game.json"), numbers="1-99999999")
    code, _, err = run(tmp_path, "verify", write(tmp_path, "log.json", log))
    assert code == 2 and error_line(err) == ("paperplay: error: log.json: field numbers: '1-99999999' holds 99999999; "
                                             "expected numbers 0-10,000"), err
    code, _, err = run(tmp_path, "draw", "sequence", "--seed", "S", "--numbers", "1-99999999")
    assert code == 2 and error_line(err).startswith("paperplay: error: --numbers: '1-99999999' holds 99999999"), err


def test_files_that_belong_together_are_written_both_or_neither(tmp_path, monkeypatch):
    # A full disk while the second file was written left the first in place (scan's sheet without its
    # check page, kit's PDF without its projector page): a re-run then needed --force.
    import errno

    calls = []
    real = os.fsync

    def fsync(fd):
        calls.append(fd)
        if len(calls) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    sheet, page = tmp_path / "ann.json", tmp_path / "ann.check.html"
    with pytest.raises(InputError, match="ann.check.html: could not be written"):
        files.write_together([(sheet, b"{}", "hint"), (page, b"<html>", "hint")], False)
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setattr(os, "fsync", real)
    files.write_together([(sheet, b"{}", "hint"), (page, b"<html>", "hint")], False)
    assert (sheet.read_bytes(), page.read_bytes()) == (b"{}", b"<html>")
    with pytest.raises(InputError, match="already exists"):
        files.write_together([(tmp_path / "new.json", b"x", "hint"), (page, b"y", "hint")], False)
    assert not (tmp_path / "new.json").exists() and page.read_bytes() == b"<html>"


def test_kit_with_its_projector_page_writes_both_or_neither(tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.html").write_text("mine")
    result = cli("kit", "streams", "--seed", "7KQ2M9XD", "--out", "k.pdf", "--html", "k.html")
    assert result.exit_code == 2 and sorted(p.name for p in tmp_path.iterdir()) == ["k.html"]
    result = cli("kit", "streams", "--seed", "7KQ2M9XD", "--out", "k.pdf", "--html", "k.html", "--force")
    assert result.exit_code == 0 and "Wrote k.pdf" in result.stdout and "Wrote k.html" in result.stdout
    assert (tmp_path / "k.html").read_bytes().startswith(b"<!DOCTYPE html>")


def test_a_closed_standard_output_is_refused_before_any_work(tmp_path):
    # `paperplay draw … >&-` printed nothing and ended in 0: what it had to say was lost.
    done = subprocess.run([sys.executable, "-m", "paperplay", "kit", "streams", "--seed", "S", "--out", "k.pdf"],
                          cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=60,
                          preexec_fn=lambda: os.close(1))
    assert (done.returncode, done.stderr) == (2, "paperplay: error: standard output is closed; run it with its output "
                                                 "going somewhere (> FILE, or > /dev/null to drop it)\n")
    assert list(tmp_path.iterdir()) == []


@SCAN_EXTRA
def test_a_photo_that_is_a_loop_of_links_is_named_as_one(tmp_path):
    (tmp_path / "a.jpg").symlink_to("b.jpg")
    (tmp_path / "b.jpg").symlink_to("a.jpg")
    code, _, err = run(tmp_path, "scan", "a.jpg", "--out", "o")
    assert code == 2 and error_line(err) == ("paperplay: error: a.jpg: is a symbolic link to no file (its target is "
                                             "missing, or the links go round in a loop)"), err
    assert not (tmp_path / "o").exists()


INTERRUPTED_WHILE_SERIALISING = """
import os, signal, sys
import reportlab.pdfbase.pdfdoc as pdfdoc

code = pdfdoc.PDFObjectReference.format.__code__
calls = []

def trace(frame, event, arg):  # a real Ctrl-C inside the try of reportlab's PDFObjectReference.format
    if frame.f_code is not code:
        return None
    def line(frame, event, arg):
        if event == "line" and frame.f_lineno == code.co_firstlineno + 2:
            calls.append(1)
            if len(calls) == 10:
                os.kill(os.getpid(), signal.SIGINT)
        return line
    return line

sys.settrace(trace)
sys.argv = ["paperplay", "sheets", "--players", "3", "--seed", "A", "--out", "out/sheets.pdf"]
from paperplay.cli.entry import main
main()
"""


def test_ctrl_c_while_reportlab_writes_the_pdf_is_an_interrupt(tmp_path):
    # reportlab catches every exception there: the interrupt became a KeyError (exit 3) and a dictionary
    # was printed on stdout. Rendering is work a signal ends at once: exit 130, one line, nothing left.
    done = subprocess.run([sys.executable, "-c", INTERRUPTED_WHILE_SERIALISING], capture_output=True, text=True,
                          timeout=60, cwd=tmp_path)
    assert (done.returncode, done.stderr, done.stdout) == (130, "paperplay: interrupted\n", "")
    assert not list(tmp_path.rglob("*"))


def test_a_long_file_name_is_written_though_its_temporary_name_is_longer(cli, tmp_path):
    name = "e" * 237 + ".pdf"  # 241 bytes: the temporary file's name would be 256
    result = cli("sheets", "--players", "1", "--seed", "A", "--out", str(tmp_path / name))
    assert result.exit_code == 0 and [p.name for p in tmp_path.iterdir()] == [name]
    too_long = cli("sheets", "--players", "1", "--seed", "A", "--out", str(tmp_path / ("é" * 130 + ".pdf")))
    assert too_long.exit_code == 2 and "File name too long" in too_long.stderr
    assert [p.name for p in tmp_path.iterdir()] == [name]


def test_the_written_line_escapes_control_characters(cli, tmp_path):
    result = cli("sheets", "--players", "1", "--seed", "A", "--out", str(tmp_path / "new\nname.pdf"))
    assert result.exit_code == 0 and result.stdout.splitlines()[0].startswith("Wrote ")
    assert "new\\nname.pdf" in result.stdout.splitlines()[0]


def test_a_reader_that_leaves_part_way_through_a_long_json_document_gives_141(tmp_path):
    # One write of the whole document, which a reader left part-way (`| head -c 10`), was cut without an
    # error: exit 0. The document is written in flushed pieces now.
    sheet = (Path(__file__).parents[1] / "docs" / "examples" / "bob.json").read_text()
    names = []
    for number in range(400):  # about 146 KB of JSON: more than a pipe holds
        (tmp_path / f"b{number}.json").write_text(sheet)
        names.append(f"b{number}.json")
    process = subprocess.Popen([sys.executable, "-m", "paperplay", "score", *names, "--json"], cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    with process.stdout, process.stderr:
        assert process.stdout.read(10) == b'{"results"'
        process.stdout.close()
        assert process.wait(timeout=60) == 141 and process.stderr.read() == b""


@pytest.mark.parametrize("card", ["(" * 330 + "1" + ")" * 330, " + ".join(f"1 / {'7' * 999}" for _ in range(300))])
def test_a_card_text_of_deep_brackets_or_huge_numbers_is_refused_unread(tmp_path, card):
    # Found by a worst-case review: 330 brackets overflowed the stack (exit 3); 1 MB of fractions took 16 s.
    log = data("sequence-game.json")
    log["turns"][0]["card"] = card
    started = time.perf_counter()
    code, _, err = run(tmp_path, "verify", write(tmp_path, "card.json", log))
    assert code == 2 and time.perf_counter() - started < 10
    assert "field turns[0].card is a text of" in error_line(err) and "at most 60 characters" in err


def test_a_long_list_of_unsortable_items_is_checked_in_linear_time(tmp_path):
    # jsonschema compared every item with every other for uniqueItems: 28 s for 19,900 mixed placements.
    sheet = json.loads((Path(__file__).parents[1] / "docs" / "examples" / "ann-placements.json").read_text())
    sheet["placements"] = [i if i % 2 else str(i) for i in range(19_900)]
    started = time.perf_counter()
    code, _, err = run(tmp_path, "score", write(tmp_path, "p.json", sheet))
    assert code == 2 and "field placements has 19900 entries" in error_line(err)
    assert time.perf_counter() - started < 10
    from paperplay.jsonfile import validate_schema

    long_unique = {"type": "array", "uniqueItems": True}
    validate_schema([{"a": i} for i in range(5000)], long_unique, "x")  # no repeats: fine, at once
    with pytest.raises(InputError, match="x: "):
        validate_schema([{"a": i} for i in range(5000)] + [{"a": 3}], long_unique, "x")


def test_a_game_log_holds_at_most_a_thousand_turns(tmp_path):
    log = data("streetcar-tiny-game.json")
    log["turns"] = log["turns"] * (1001 // len(log["turns"]) + 1)
    code, _, err = run(tmp_path, "verify", write(tmp_path, "long.json", log))
    assert code == 2 and "field turns has" in error_line(err) and "at most 1000" in err
