"""The command line for Streams: draw, call, score, verify, schema, and every kind of bad input."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from conftest import DATA, SPEC_SHEET, run_paperplay
from paperplay import __version__

SPEC_DRAW = [11, 3, 5, 17, 27, 25, 6, 4, 13, 15, 16, 1, 28, 15, 7, 18, 23, 8, 20, 24]


def test_version_and_help(cli):
    assert cli("--version").stdout.strip() == f"paperplay {__version__}"
    for command in ("sheets", "kit", "draw", "call", "score", "verify", "schema"):
        result = cli(command, "--help")
        assert result.exit_code == 0
        assert "Example" in result.stdout, command


def test_python_dash_m_works():
    result = run_paperplay("draw", "streams", "--seed", "7KQ2-M9XD", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"game": "streams", "seed": "7KQ2M9XD", "draw": SPEC_DRAW}


def test_draw_json_shows_the_wild_as_star(cli):
    result = cli("draw", "streams", "--seed", "1", "--json")
    assert json.loads(result.stdout)["draw"][17] == "*"


def test_draw_text(cli):
    result = cli("draw", "streams", "--seed", "7kq2-m9xd")
    assert result.exit_code == 0
    assert "7KQ2-M9XD" in result.stdout and "P2QP-HGPH" in result.stdout
    assert "  20. 24" in result.stdout


def test_draw_rejects_a_seed_of_punctuation(cli):
    result = cli("draw", "streams", "--seed", "-!-")
    assert result.exit_code == 2
    assert "seed '-!-'" in result.stderr


def _shown_turns(stdout: str) -> list[str]:
    return [line.split("turn ")[1].split("/")[0] for line in stdout.splitlines() if line.startswith("  Game ")]


def test_call_shows_each_tile_and_can_resume(cli):
    result = cli("call", "streams", "--seed", "7KQ2M9XD", input="\n\n\nq\n")
    assert result.exit_code == 0
    assert _shown_turns(result.stdout) == ["1", "2", "3"]
    assert "called so far: 11, 3, 5" in result.stdout
    assert "--from 4" in result.stdout
    resumed = cli("call", "streams", "--seed", "7KQ2M9XD", "--from", "20", input="\n")
    assert "turn 20/20" in resumed.stdout and "last tile" in resumed.stdout


def test_call_goes_back_one_tile(cli):
    result = cli("call", "streams", "--seed", "7KQ2M9XD", input="\n\nb\nq\n")
    assert _shown_turns(result.stdout) == ["1", "2", "1"]


def test_call_a_typo_calls_no_tile(cli):
    result = cli("call", "streams", "--seed", "7KQ2M9XD", input="\nx\nNext\n\nq\n")
    assert _shown_turns(result.stdout) == ["1", "2"] and result.exit_code == 0
    assert "'x' is not a key here: Enter for the next tile, b to go back, q to quit." in result.stdout
    assert "'Next' is not a key here" in result.stdout and "--from 3" in result.stdout


def test_call_back_before_any_tile_calls_none(cli):
    result = cli("call", "streams", "--seed", "7KQ2M9XD", input="b\nq\n")
    assert _shown_turns(result.stdout) == [] and "No tile has been called yet." in result.stdout
    assert "Stopped before turn 1." in result.stdout and result.exit_code == 0


@pytest.mark.parametrize("sig, code, line", [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143,
                                                                                      "stopped (SIGTERM)")])
def test_call_stopped_by_a_signal_says_where_to_resume_and_exits_with_the_signal(tmp_path, sig, code, line):
    process = subprocess.Popen([sys.executable, "-m", "paperplay", "call", "streams", "--seed", "1"], cwd=tmp_path,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("\n")
    process.stdin.flush()
    while "turn 1/20" not in process.stdout.readline():  # the first tile is being shown
        pass
    process.send_signal(sig)  # while it is shown (resume at 1) or after (at 2)
    out, err = process.communicate(timeout=30)
    assert process.returncode == code and err == f"paperplay: {line}\n"
    assert re.search(r"Stopped before turn ([12])\. Resume with: paperplay call streams --seed 1 --from \1", out), out


def test_call_ends_cleanly_without_input(cli):
    result = cli("call", "streams", "--seed", "7KQ2M9XD", input="")
    assert result.exit_code == 0
    assert "Resume with" in result.stdout


def test_call_rejects_a_turn_out_of_range(cli):
    assert cli("call", "streams", "--seed", "1", "--from", "21").exit_code == 2


def test_score_json_matches_spec(cli, write_json):
    path = write_json("ann.json", SPEC_SHEET)
    result = cli("score", str(path), "--json")
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    (row,) = document["results"]
    assert row["valid"] is True and row["total"] == 16 and row["player"] == "Ann"
    assert row["seed"] == "7KQ2M9XD" and row["wild_value"] is None and row["problems"] == []
    assert row["series"][:2] == [{"start": 2, "end": 3, "length": 2, "points": 1},
                                 {"start": 5, "end": 7, "length": 3, "points": 3}]
    assert document["ranking"] == [{"place": 1, "player": "Ann", "total": 16}]  # one sheet, ranked


def test_verify_json_ranks_a_single_sheet_and_the_terminal_does_not(cli, write_json):
    path = write_json("ann.json", SPEC_SHEET)
    assert json.loads(cli("verify", str(path), "--json").stdout)["ranking"] == [
        {"place": 1, "player": "Ann", "total": 16}]
    assert "Ranking" not in cli("verify", str(path)).stdout
    broken = write_json("cy.json", {**SPEC_SHEET, "cells": [30] + SPEC_SHEET["cells"][1:]})
    assert json.loads(cli("score", str(broken), "--json").stdout)["ranking"] == []


def test_score_several_files_ranks_valid_sheets(cli, write_json):
    ann = write_json("ann.json", SPEC_SHEET)
    bob = write_json("bob.json", {**SPEC_SHEET, "player": "Bob", "claimed_total": None} | {"claimed_total": 16})
    bad = write_json("cy.json", {**SPEC_SHEET, "player": "Cy", "cells": [30] + SPEC_SHEET["cells"][1:]})
    result = cli("score", str(ann), str(bob), str(bad), "--json")
    assert result.exit_code == 1
    document = json.loads(result.stdout)
    assert document["ranking"] == [
        {"place": 1, "player": "Ann", "total": 16},
        {"place": 1, "player": "Bob", "total": 16},
    ]
    assert [r["valid"] for r in document["results"]] == [True, True, False]


def test_the_terminal_says_when_the_ranked_sheets_are_of_different_games(cli, write_json):
    from paperplay.games import find_game

    ann = write_json("ann.json", SPEC_SHEET)
    other = find_game("streams").draw("OTHER1").to_json()["draw"]
    cy = write_json("cy.json", {"game": "streams", "player": "Cy", "seed": "OTHER1", "cells": other})
    mixed = cli("score", str(ann), str(cy)).stdout
    assert "Note: the valid sheets are of 2 different games (P2QP-HGPH, X736-9P8Z); they are ranked together." \
        in mixed and mixed.index("Note:") < mixed.index("Ranking")
    bob = write_json("bob.json", {**SPEC_SHEET, "player": "Bob"})
    assert "Note:" not in cli("score", str(ann), str(bob)).stdout
    assert "Note:" not in cli("score", str(ann), str(cy), "--seed", "7KQ2-M9XD").stdout  # cy is not valid then


def test_score_cells_on_the_command_line(cli):
    cells = " ".join(map(str, SPEC_SHEET["cells"]))
    result = cli("score", "--cells", cells, "--seed", "7KQ2-M9XD")
    assert result.exit_code == 0
    assert "16 points, valid" in result.stdout


def test_score_cells_with_the_wild_as_x(cli):
    result = cli("score", "--cells", "5 12 X 14 " + " ".join(map(str, range(20, 30))) + " 1 2 3 4 6 7", "--json")
    row = json.loads(result.stdout)["results"][0]
    assert row["wild_value"] == 12 and row["checked_against"] == "bag"


def test_score_with_a_draw_list(cli):
    cells = " ".join(map(str, SPEC_SHEET["cells"]))
    result = cli("score", "--cells", cells, "--draw", ",".join(map(str, SPEC_DRAW)), "--json")
    assert json.loads(result.stdout)["results"][0]["checked_against"] == "draw"
    assert result.exit_code == 0


def test_a_draw_list_the_bag_cannot_produce_exits_1(cli):
    drawn = [3] + SPEC_DRAW[1:]
    cells = [3] + SPEC_SHEET["cells"][:6] + SPEC_SHEET["cells"][7:]  # replace 11 by another 3
    result = cli("score", "--cells", " ".join(map(str, cells)), "--draw", ",".join(map(str, drawn)), "--json")
    assert result.exit_code == 1
    assert "streams/draw" in {p["rule"] for p in json.loads(result.stdout)["results"][0]["problems"]}


def test_wrong_claim_exits_1_and_reports_the_computed_score(cli, write_json):
    path = write_json("ann.json", {**SPEC_SHEET, "claimed_total": 20})
    result = cli("score", str(path), "--json")
    assert result.exit_code == 1
    row = json.loads(result.stdout)["results"][0]
    assert row["valid"] is False and row["total"] == 16
    assert row["problems"] == [
        {"rule": "streams/claim-total", "message": "the claimed total is 20, but the sheet scores 16"}
    ]


def test_verify_streams_sheet(cli, write_json):
    path = write_json("ann.json", SPEC_SHEET)
    result = cli("verify", str(path), "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["results"][0]["total"] == 16


def test_highest_exit_code_wins(cli, write_json):
    good = write_json("good.json", SPEC_SHEET)
    broken = write_json("broken.json", {**SPEC_SHEET, "claimed_total": 1})
    result = cli("verify", str(good), str(broken), "missing.json", "--json")
    assert result.exit_code == 2
    assert json.loads(result.stdout)["results"][2]["error"].startswith("missing.json")
    assert "missing.json: no such file" in result.stderr


def test_schema_prints_the_sheet_schema(cli):
    result = cli("schema", "streams-sheet")
    assert json.loads(result.stdout)["title"] == "Streams score sheet"
    assert "streams-sheet" in cli("schema").stdout
    assert cli("schema", "nonsense").exit_code == 2


BAD_SHEETS = [
    ("not JSON", '{"game": "streams", cells: }', "is not valid JSON"),
    ("wrong type", {**SPEC_SHEET, "cells": "1 2 3"}, 'field cells is "1 2 3"'),
    ("19 boxes", {**SPEC_SHEET, "cells": SPEC_SHEET["cells"][:19]}, "field cells has 19 entries"),
    (
        "value 31",
        {**SPEC_SHEET, "cells": [31] + SPEC_SHEET["cells"][1:]},
        "field cells[0] is 31; expected an integer 1-30",
    ),
    ("two wilds", {**SPEC_SHEET, "cells": ["*", "*"] + SPEC_SHEET["cells"][2:]}, "has 2 wilds"),
    ("unknown field", {**SPEC_SHEET, "colour": "red"}, "unknown field 'colour'"),
    ("seed of punctuation", {**SPEC_SHEET, "seed": "--!"}, "field seed"),
    ("missing cells", {"game": "streams"}, "missing field 'cells'"),
    ("another game", {"game": "streetcar", "board": "standard", "tiles": []}, "not a Streams sheet"),
    ("not an object", [1, 2, 3], "the file holds a JSON array; expected an object"),
    ("null", "null", "the file holds null; expected an object"),
    ("a number", "42", "the file holds a JSON number; expected an object"),
    ("code disagrees with seed", {**SPEC_SHEET, "code": "AAAA-AAAA"}, "field code is AAAAAAAA"),
    (
        "draw disagrees with seed",
        {**SPEC_SHEET, "draw": [3] + SPEC_DRAW[1:]},
        "differs from seed 7KQ2M9XD's draw at turn 1",
    ),
    ("claim points negative", {**SPEC_SHEET, "claimed_total": -1}, "field claimed_total is -1"),
]


@pytest.mark.parametrize("name, document, message", BAD_SHEETS, ids=[b[0] for b in BAD_SHEETS])
def test_bad_sheet_files_exit_2_with_one_clear_line(cli, tmp_path, name, document, message):
    path = tmp_path / "sheet.json"
    path.write_text(document if isinstance(document, str) else json.dumps(document), encoding="utf-8")
    result = cli("score", str(path))
    assert result.exit_code == 2
    assert message in result.stderr
    assert str(path) in result.stderr
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1


def test_file_seed_disagreeing_with_option_seed_is_an_input_error(cli, write_json):
    path = write_json("ann.json", SPEC_SHEET)
    result = cli("score", str(path), "--seed", "OTHER")
    assert result.exit_code == 2 and "--seed gives OTHER" in result.stderr


@pytest.mark.parametrize("args, message", [
    (["score"], "give one or more sheet files"),
    (["score", "--cells", "1 2 3"], "--cells: has 3 entries"),
    (["score", "--cells", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 31"], "entry 20 is '31'"),
    (["score", "--cells", "* * 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20"], "2 wilds"),
    (["score", "--cells", " ".join(["1"] * 20), "--seed", "A", "--draw", "1"], "not both"),
    (["sheets", "--players", "0"], "--players: is 0"),
    (["sheets", "--players", "201"], "--players: is 201"),
    (["sheets", "--players", "2", "--names", "A,B,C"], "3 names for 2 players"),
    (["sheets", "--players", "2", "--names", ""], "--names: is empty"),  # README: not read as the default
    (["sheets", "--players", "3", "--names", "Ann,,Bob"], "--names: name 2 of 3 is empty"),
    (["kit", "streams", "--names", " , "], "--names: name 1 of 2 is empty"),
    (["sheets", "--players", "2", "--seed", "..."], "no ASCII letters"),
    (["kit", "streams", "--seed", "x" * 40], "at most 32"),
])
def test_bad_options_exit_2(cli, args, message):
    result = cli(*args)
    assert result.exit_code == 2
    assert message in result.stderr


def test_unknown_game_and_paper_are_usage_errors(cli):
    assert cli("kit", "chess").exit_code == 2
    assert cli("sheets", "--players", "2", "--paper", "a5").exit_code == 2


@pytest.mark.parametrize("source, said", [("field", "field draw"), ("option", "the --draw list")])
def test_a_draw_list_that_differs_from_the_seed_names_where_it_came_from(cli, write_json, source, said):
    seed_draw = [11, 3, 5, 17, 27, 25, 6, 4, 13, 15, 16, 1, 28, 15, 7, 18, 23, 8, 20, 24]
    other = seed_draw[1:] + seed_draw[:1]
    sheet = {**SPEC_SHEET, "draw": other} if source == "field" else SPEC_SHEET
    path = write_json("ann.json", sheet)
    extra = ["--draw", ",".join(map(str, other))] if source == "option" else []
    result = cli("score", str(path), *extra)
    assert result.exit_code == 2
    assert f"ann.json: {said} differs from seed 7KQ2M9XD's draw at turn 1 (3 recorded, 11 drawn by the seed)" \
        in result.stderr


@pytest.mark.parametrize("code, ok", [("1111-OOOO", False), ("P2QP-HGPU", False), ("p2qp-hgph", True)])
def test_a_game_code_outside_the_code_alphabet_is_an_input_error(cli, write_json, code, ok):
    path = write_json("ann.json", {**SPEC_SHEET, "code": code})
    result = cli("score", str(path))
    assert result.exit_code == (0 if ok else 2), result.stderr
    assert ok or f'ann.json: field code is "{code}"; expected the game code printed on the sheet, 8 characters of ' \
        "23456789ABCDEFGHJKMNPQRSTVWXYZ" in result.stderr


def test_the_terminal_ranks_only_when_two_streams_sheets_were_scored(cli, write_json):
    ann = write_json("ann.json", SPEC_SHEET)
    bob = write_json("bob.json", {**SPEC_SHEET, "player": "Bob"})
    state = str(DATA / "streetcar-state.json")
    assert "Ranking" not in cli("verify", str(ann), state).stdout
    assert "Ranking" not in cli("score", str(ann), "missing.json").stdout
    assert "Ranking (valid sheets):\n  1. Ann: 16\n  1. Bob: 16" in cli("verify", str(ann), str(bob), state).stdout


def test_a_name_cannot_add_lines_or_terminal_codes_to_the_report(cli, write_json):
    spoof = write_json("spoof.json", {**SPEC_SHEET, "player": "Eve\nbob.json (Bob): 300 points, valid\x07\x1b[2J"})
    long = write_json("long.json", {**SPEC_SHEET, "player": "L" * 300})
    result = cli("score", str(spoof), str(long))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert not any(line.startswith("bob.json") for line in lines) and "\x07" not in result.stdout
    assert "\x1b" not in result.stdout
    assert r"(Eve\nbob.json (Bob): 300 points, valid\x07\x1b[2J): 16 points" in result.stdout
    assert r"1. Eve\nbob.json (Bob): 300 points, valid\x07\x1b[2J: 16" in result.stdout
    assert "L" * 300 not in result.stdout and "…(245 characters)…" in result.stdout
    assert len(next(line for line in lines if "long.json" in line)) < len(str(long)) + 150


def test_call_of_a_variant_names_it_and_keeps_it_in_every_command_it_suggests(cli):
    variant = str(DATA / "streams-variant-big.json")
    result = cli("call", "streams", "--seed", "7KQ2M9XD", "--variant", variant, input="\n\nq\n")
    assert result.stdout.startswith("Calling Streams (variant test-big-bag), game P2QP-HGPH.")
    assert f"Resume with: paperplay call streams --seed 7KQ2M9XD --variant {variant} --from 3" in result.stdout
    last = cli("call", "streams", "--seed", "7KQ2M9XD", "--variant", variant, "--from", "24", input="\n")
    # the game is over: its seed may be revealed
    hint = f"That was the last tile. Time to score: paperplay score SHEET.json --seed 7KQ2-M9XD --variant {variant}"
    assert hint in last.stdout


def test_the_bag_check_says_holds_for_one_box(cli, write_json):
    variant = write_json("nowild.json", {"variant": "nowild", "boxes": 6, "points": list(range(7)),
                                         "bag": [{"value": v, "count": 1} for v in range(1, 9)]})
    result = cli("score", "--cells", "1 2 * 4 5 6", "--variant", str(variant))
    assert result.exit_code == 1 and "box 3 holds the wild, but the bag has no wild" in result.stdout, result.output
    twice = cli("score", "--cells", "1 2 2 4 5 6", "--variant", str(variant))
    assert "boxes 2 and 3 hold 2, but the bag has one 2" in twice.stdout, twice.output


def test_call_with_no_standard_input_at_all_stops_where_it_would_resume(tmp_path):
    # input() raised RuntimeError ("lost sys.stdin") when standard input was closed: exit 3.
    done = subprocess.run([sys.executable, "-m", "paperplay", "call", "streams", "--seed", "7KQ2-M9XD"],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path, preexec_fn=lambda: os.close(0))
    assert (done.returncode, done.stderr) == (0, "")
    assert "Stopped before turn 1. Resume with: paperplay call streams --seed 7KQ2M9XD --from 1" in done.stdout


def test_call_stopped_by_ctrl_c_through_a_pipe_the_same_ctrl_c_closed_exits_130(tmp_path):
    # `paperplay call … | cat` and Ctrl-C: cat ends too, so the resume line fails to be written; the run
    # was stopped all the same (130 and its line), not ended by the closed pipe (141).
    command = [sys.executable, "-m", "paperplay", "call", "streams", "--seed", "7KQ2-M9XD"]
    pipes = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    with subprocess.Popen(command, cwd=tmp_path, **pipes) as process:
        process.stdin.write(b"\n")
        process.stdin.flush()
        seen = b""
        while b"turn 2/20" not in seen:
            seen += process.stdout.read1(4096)
        process.stdout.close()
        time.sleep(0.2)  # into input()'s read: a signal between its prompt and its read waits for the next one
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:  # that race, on a loaded machine: a person presses Ctrl-C again
            process.send_signal(signal.SIGINT)
        assert process.wait(timeout=60) == 130
        assert process.stderr.read().decode() == "paperplay: interrupted\n"


def test_call_says_when_back_reaches_the_first_tile(cli):
    result = cli("call", "streams", "--seed", "7KQ2M9XD", input="\nb\nq\n")
    assert result.stdout.count("turn 1/20\n") == 2 and "  Tile 1 is the first: here it is again." in result.stdout


def test_the_tiles_called_so_far_wrap_between_numbers_on_a_narrow_terminal(tmp_path):
    done = subprocess.run([sys.executable, "-m", "paperplay", "call", "streams", "--seed", "7KQ2-M9XD"],
                          input="\n" * 19 + "q\n", capture_output=True, text=True, timeout=60, cwd=tmp_path,
                          env={**os.environ, "COLUMNS": "40"})
    last = done.stdout.split("called so far: ")[-1].split("\n\n")[0]
    lines = ("called so far: " + last).splitlines()
    assert len(lines) == 3 and all(len(line) <= 39 for line in lines)
    assert [int(n) for n in last.replace("\n", " ").split(",")] == [11, 3, 5, 17, 27, 25, 6, 4, 13, 15, 16, 1, 28,
                                                                     15, 7, 18, 23, 8, 20]

