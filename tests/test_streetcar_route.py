"""Streetcar routes: terminal loops, ordered stops, what is missing, `paperplay route`, and a
brute-force check of shortest lengths on small random boards."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import DATA
from paperplay.streetcar.data import Edge, board_from_json
from paperplay.streetcar.route import Network, route_answer
from paperplay.streetcar.state import state_from_json
from paperplay.streetcar.track import ROTATIONS, geometry, kinds_by_id, placed

# Line 1 runs west to east; line 2 south to north. Passing through line 2's south terminal is the
# only way from [2, 0] on to [2, 1].
LOOP_BOARD = {"size": [3, 3], "locations": {"A": [1, 1]}, "terminals": [
    {"line": 1, "number": 1, "side": "W", "squares": [[0, 0], [1, 0]]},
    {"line": 1, "number": 2, "side": "E", "squares": [[1, 2], [2, 2]]},
    {"line": 2, "number": 1, "side": "S", "squares": [[2, 0], [2, 1]]},
    {"line": 2, "number": 2, "side": "N", "squares": [[0, 1], [0, 2]]}]}
LOOP_TILES = [{"at": [1, 0], "tile": "curve", "rotation": 180},   # W-S
              {"at": [2, 0], "tile": "straight", "rotation": 0},  # N-S, into terminal 2.1
              {"at": [2, 1], "tile": "curve", "rotation": 90},    # E-S
              {"at": [2, 2], "tile": "straight", "rotation": 90}]  # W-E, into terminal 1.2

# A straight row from west to east under three locations: A, B, C from west to east.
ROW_BOARD = {"size": [3, 7], "locations": {"A": [0, 1], "B": [0, 3], "C": [0, 5]}, "terminals": [
    {"line": 1, "number": 1, "side": "W", "squares": [[1, 0], [2, 0]]},
    {"line": 1, "number": 2, "side": "E", "squares": [[1, 6], [2, 6]]}]}
ROW_TILES = [{"at": [1, c], "tile": "straight", "rotation": 90} for c in range(7)]


def network(board, tiles, signs=None):
    state, problems = state_from_json({"game": "streetcar", "board": board, "tiles": tiles,
                                       **({"stop_signs": signs} if signs else {})}, "test")
    return Network(state.geo, state.layout, state.stop_signs)


def test_route_through_a_terminal_counts_it_as_one_space():
    answer = route_answer(network(LOOP_BOARD, LOOP_TILES, {"A": [1, 0]}), 1, [], False)
    assert answer.complete and answer.route.length == 6
    west_to_east = [
        {"terminal": [1, 1]}, {"at": [1, 0], "stops": []}, {"at": [2, 0], "stops": []}, {"terminal": [2, 1]},
        {"at": [2, 1], "stops": []}, {"at": [2, 2], "stops": []}, {"terminal": [1, 2]}]
    assert answer.to_json()["route"] in (west_to_east, west_to_east[::-1])  # either way is as short


def test_route_needs_every_stop_sign_and_names_what_is_missing():
    net = network(ROW_BOARD, ROW_TILES[:3] + ROW_TILES[4:])  # a gap at [1, 3]
    answer = route_answer(net, 1, ["A", "B"], False)
    assert not answer.complete and answer.route is None
    assert answer.missing == ("stop sign for B",)
    assert route_answer(net, 1, ["A"], False).missing == ("no track from terminal 1 to terminal 2",)
    bare = route_answer(network(ROW_BOARD, []), 1, [], False)
    assert bare.missing == ("no track from terminal 1", "no track from terminal 2")


def test_unordered_stops_and_their_length():
    answer = route_answer(network(ROW_BOARD, ROW_TILES), 1, ["C", "A", "B"], False)
    assert answer.complete and answer.route.length == 8  # 7 tiles and the arrival
    made = [s for step in answer.to_json()["route"] for s in step.get("stops", [])]
    assert sorted(made) == ["A", "B", "C"]


def test_ordered_stops_must_come_in_printed_order_from_either_end():
    net = network(ROW_BOARD, ROW_TILES)
    assert route_answer(net, 1, ["C", "B", "A"], True).complete  # east to west
    assert route_answer(net, 1, ["A", "B", "C"], True).complete  # west to east
    jumbled = route_answer(net, 1, ["A", "C", "B"], True)
    assert not jumbled.complete and jumbled.missing == ("no route through A then C then B",)
    assert route_answer(net, 1, ["A", "C", "B"], False).complete


def test_passing_a_later_stop_early_does_not_count():
    # Row 1 west to east, and a way back: through terminal 1.2, west along row 2, up into [1, 3].
    tiles = [t for t in ROW_TILES if t["at"] != [1, 3]] + [
        {"at": [1, 3], "tile": "branch-w", "rotation": 270},  # E-W and E-S
        {"at": [2, 6], "tile": "straight", "rotation": 90}, {"at": [2, 5], "tile": "straight", "rotation": 90},
        {"at": [2, 4], "tile": "straight", "rotation": 90}, {"at": [2, 3], "tile": "curve", "rotation": 0}]
    net = network(ROW_BOARD, tiles)
    assert route_answer(net, 1, ["A", "B", "C"], False).route.length == 8
    ordered = route_answer(net, 1, ["A", "C", "B"], True)
    # A, C (passing B's tile early), on through terminal 1.2, back along row 2 and up to B, then east:
    # 7 tiles, the terminal, 4 tiles, 4 tiles and the arrival.
    assert ordered.complete and ordered.route.length == 17
    route = ordered.to_json()["route"]
    assert route[4] == {"at": [1, 3], "stops": []} and {"at": [1, 3], "stops": ["B"]} in route
    assert {"terminal": [1, 2]} in route[1:-1]


def test_shortest_route_takes_the_shortcut():
    # Two ways from [1, 0]: along row 1, or down and back up; the search finds the 8-space one.
    answer = route_answer(network(ROW_BOARD, ROW_TILES), 1, [], False)
    assert answer.route.length == 8 and answer.route.start.number in (1, 2)


# -- brute force ----------------------------------------------------------------------------------


def brute_length(board, layout, signs, line, stops, ordered, limit):
    """Shortest complete route by trying every walk up to `limit` spaces (no state merging)."""
    rows, cols = board.rows, board.cols
    step = {Edge.N: (-1, 0), Edge.E: (0, 1), Edge.S: (1, 0), Edge.W: (0, -1)}
    ends = [t for t in board.terminals if t.line == line]
    ports = {(sq, t.side): t for t in board.terminals for sq in t.squares}

    def collect(done, square):
        if ordered:
            while done < len(stops) and signs[stops[done]] == square:
                done += 1
            return done
        return done | frozenset(s for s in stops if signs[s] == square)

    def complete(done):
        return done == len(stops) if ordered else done == frozenset(stops)

    best = [None]

    def walk(square, entry, done, spaces, target):
        if spaces >= limit or (best[0] is not None and spaces + 1 >= best[0]):
            return
        tile = layout[square]
        for piece in tile.pieces:
            if entry not in piece:
                continue
            (out,) = piece - {entry}
            dr, dc = step[out]
            nxt = (square[0] + dr, square[1] + dc)
            if 0 <= nxt[0] < rows and 0 <= nxt[1] < cols:
                back = Edge((out + 2) % 4)
                if nxt in layout and back in layout[nxt].ends:
                    walk(nxt, back, collect(done, nxt), spaces + 1, target)
                continue
            terminal = ports.get((square, out))
            if terminal is None:
                continue
            if terminal == target and complete(done):
                if best[0] is None or spaces + 1 < best[0]:
                    best[0] = spaces + 1
                continue
            other = terminal.squares[1 - terminal.squares.index(square)]
            if other in layout and terminal.side in layout[other].ends:
                walk(other, terminal.side, collect(done, other), spaces + 2, target)

    for origin in ends:
        target = ends[1 - ends.index(origin)]
        for square in origin.squares:
            if square in layout and origin.side in layout[square].ends:
                walk(square, origin.side, collect(0 if ordered else frozenset(), square), 1, target)
    return best[0]


@st.composite
def small_boards(draw):
    board = board_from_json(LOOP_BOARD)
    locations = dict(board.locations)
    kinds = list(kinds_by_id())
    layout = {}
    for r in range(3):
        for c in range(3):
            if (r, c) in locations.values() or draw(st.integers(0, 5)) == 0:
                continue
            layout[(r, c)] = placed(draw(st.sampled_from(kinds)), draw(st.sampled_from(ROTATIONS)))
    signs = {}
    beside = [sq for sq in ((0, 1), (1, 0), (1, 2), (2, 1)) if sq in layout]
    if beside:
        signs["A"] = draw(st.sampled_from(beside))
    stops = ["A"] if signs and draw(st.booleans()) else []
    return board, layout, signs, stops, draw(st.sampled_from([1, 2])), draw(st.booleans())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_boards())
def test_shortest_route_agrees_with_brute_force(case):
    board, layout, signs, stops, line, ordered = case
    net = Network(geometry(board), layout, signs)
    route = net.shortest(line, stops, ordered)
    limit = 16
    expected = brute_length(board, layout, signs, line, stops, ordered, limit)
    if route is None:
        assert expected is None
    elif route.length <= limit:
        assert route.length == expected
        assert route.steps[-1].terminal is not None and route.steps[-1].terminal.line == line


def test_cli_route_json_follows_the_spec(cli, write_json):
    state = write_json("row.json", {"game": "streetcar", "board": ROW_BOARD, "tiles": ROW_TILES})
    result = cli("route", str(state), "--line", "1", "--stops", "B,A", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert list(doc) == ["line", "stops", "ordered", "complete", "length", "route", "missing"]
    assert doc["line"] == 1 and doc["stops"] == ["B", "A"] and doc["complete"] and doc["length"] == 8
    assert doc["route"][0] in ({"terminal": [1, 1]}, {"terminal": [1, 2]}) and doc["missing"] == []
    result = cli("route", str(state), "--line", "1", "--stops", "A,C,B", "--ordered", "--json")
    doc = json.loads(result.stdout)
    assert result.exit_code == 1 and doc["complete"] is False and doc["route"] is None and doc["length"] is None
    assert doc["missing"] == ["no route through A then C then B"]
    joined = cli("route", str(state), "--line", "1", "--stops", "")
    assert joined.exit_code == 0 and "complete, 8 spaces" in joined.stdout


def test_cli_route_with_a_route_card_on_the_standard_board(cli, write_json):
    state = write_json("s.json", {"game": "streetcar", "board": "standard", "tiles": []})
    result = cli("route", str(state), "--line", "1", "--card", "1", "--set", "3", "--ordered", "--json")
    doc = json.loads(result.stdout)
    assert result.exit_code == 1 and doc["stops"] == ["C", "D", "I"] and doc["ordered"] is True
    assert doc["missing"][:3] == ["stop sign for C", "stop sign for D", "stop sign for I"]


def test_cli_route_bad_input_exits_2(cli, write_json, tmp_path):
    state = write_json("row.json", {"game": "streetcar", "board": ROW_BOARD, "tiles": ROW_TILES})
    cases = [
        (["--line", "3", "--stops", "A"], "--line: is 3; this board has lines 1"),
        (["--line", "1", "--stops", "Z"], "--stops: Z is not a location on this board"),
        (["--line", "1", "--card", "1"], "--card: route card 1 (set 2) gives line 1 stop "),
        (["--line", "1"], "give the stops to visit: --card N"),
        (["--line", "1", "--card", "9"], "--card: is 9"),
        (["--line", "1", "--card", "1", "--set", "4"], "--set: is 4"),
        (["--line", "1", "--stops", "A,A"], "each stop may be named once"),
    ]
    for args, message in cases:
        result = cli("route", str(state), *args)
        assert result.exit_code == 2 and message in result.stderr, (args, result.stderr)
    bad = write_json("bad.json", {"game": "streetcar", "tiles": [{"at": [1, 1], "tile": "straight", "rotation": 45}]})
    result = cli("route", str(bad), "--line", "1", "--stops", "")
    assert result.exit_code == 2 and "tiles[0].rotation is 45" in result.stderr
    result = cli("route", str(tmp_path / "nope.json"), "--line", "1", "--stops", "")
    assert result.exit_code == 2 and "no such file" in result.stderr


@pytest.mark.parametrize("record, said", [
    ("sequence-game.json", "field game is 'sequence'; route reads a Streetcar board state"),
    ("streetcar-game.json", "is a Streetcar game log (it has field turns); route reads a Streetcar board state")])
def test_cli_route_says_when_a_file_is_no_board_state(cli, record, said):
    result = cli("route", str(DATA / record), "--line", "1", "--card", "1")
    assert result.exit_code == 2 and f"{record}: {said}" in result.stderr, result.stderr


def test_cli_route_on_a_board_that_breaks_a_rule_warns_and_exits_1(cli, write_json):
    tiles = ROW_TILES + [{"at": [2, 3], "tile": "straight", "rotation": 0}]  # leads off the south edge
    state = write_json("bad.json", {"game": "streetcar", "board": ROW_BOARD, "tiles": tiles})
    result = cli("route", str(state), "--line", "1", "--stops", "", "--json")
    assert result.exit_code == 1 and "breaks rule streetcar/A" in result.stderr
    assert "streetcar/A" in [p["rule"] for p in json.loads(result.stdout)["problems"]]


def test_cli_route_pdf_draws_the_route(cli, write_json, tmp_path):
    from pdfcheck import page_texts

    state = write_json("loop.json", {"game": "streetcar", "board": LOOP_BOARD, "tiles": LOOP_TILES,
                                         "stop_signs": {"A": [1, 0]}})
    out = tmp_path / "route.pdf"
    result = cli("route", str(state), "--line", "1", "--stops", "", "--pdf", str(out))
    assert result.exit_code == 0 and out.exists()
    assert result.stdout.splitlines()[-1].startswith(f"Wrote {out} (the board with the route, ")
    text = page_texts(out)[0]
    assert "complete, 6 spaces" in text and "4" in text
    again = cli("route", str(state), "--line", "1", "--stops", "", "--pdf", str(out), "--force", "--json")
    assert json.loads(again.stdout)["length"] == 6 and again.stderr.startswith(f"Wrote {out} (the board")


def test_cli_route_pdf_draws_lines_past_the_games_six(cli, write_json, tmp_path):
    # A custom board may number its lines up to 99; the game's colours and patterns cover 1-6.
    from pdfcheck import page_texts

    from paperplay.streetcar.data import line_style, line_styles

    board = {"size": [3, 3], "locations": {"A": [1, 1]},
             "terminals": [{"line": 7, "number": 1, "side": "W", "squares": [[0, 0], [1, 0]]},
                           {"line": 7, "number": 2, "side": "E", "squares": [[0, 2], [1, 2]]},
                           {"line": 99, "number": 1, "side": "N", "squares": [[0, 1], [0, 2]]},
                           {"line": 99, "number": 2, "side": "S", "squares": [[2, 0], [2, 1]]}]}
    state = write_json("seven.json", {"game": "streetcar", "board": board, "tiles": []})
    out = tmp_path / "seven.pdf"
    result = cli("route", str(state), "--line", "7", "--stops", "", "--pdf", str(out))
    assert result.exit_code == 1 and "NOT complete" in result.stdout, result.stderr
    assert "line 7, NOT complete" in page_texts(out)[0]
    looks = {(s.colour, s.pattern) for s in map(line_style, range(1, 37))}
    assert len(looks) == 36 and line_style(3) == line_styles()[3]


def test_cli_route_pdf_carries_a_qr_code_of_what_it_shows(cli, tmp_path):
    # docs/reference/seeds.md: every printed sheet carries a QR code (a board state has no seed or game code to give).
    from pdfcheck import page_texts, qr_texts

    out = tmp_path / "route.pdf"
    result = cli("route", str(DATA / "streetcar-state.json"), "--line", "2", "--stops", "B,E", "--ordered",
                 "--pdf", str(out))
    assert result.exit_code == 0, result.stderr
    assert qr_texts(out, 0) == ["PAPERPLAY/1 streetcar page=route line=2 stops=B,E ordered=1 length=55"]
    assert "complete, 55 spaces" in page_texts(out)[0]
    empty = tmp_path / "empty.pdf"
    cli("route", str(DATA / "streetcar-state.json"), "--line", "1", "--stops", "", "--pdf", str(empty))
    assert qr_texts(empty, 0)[0].startswith("PAPERPLAY/1 streetcar page=route line=1 stops=- length=")


def test_board_file_next_to_the_state(cli, write_json):
    write_json("loop-board.json", LOOP_BOARD)
    state = write_json("loop.json", {"game": "streetcar", "board": "loop-board.json", "tiles": LOOP_TILES,
                                         "stop_signs": {"A": [1, 0]}})
    result = cli("route", str(state), "--line", "1", "--stops", "", "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)["length"] == 6
    missing = write_json("lost.json", {"game": "streetcar", "board": "nowhere.json", "tiles": []})
    result = cli("route", str(missing), "--line", "1", "--stops", "")
    assert result.exit_code == 2 and "field board is 'nowhere.json', which does not exist" in result.stderr


def test_cli_route_checks_the_board_as_verify_does(cli, write_json):
    # Five crossings in a row: each obeys A-D, but the game has only four.
    tiles = [{"at": [1, c], "tile": "crossing", "rotation": 0} for c in range(1, 6)]
    board = {**ROW_BOARD, "size": [3, 7], "locations": {"A": [0, 1]}}
    state = write_json("crowded.json", {"game": "streetcar", "board": board, "tiles": tiles})
    result = cli("route", str(state), "--line", "1", "--stops", "", "--json")
    assert result.exit_code == 1 and "streetcar/tile-count" in [
        p["rule"] for p in json.loads(result.stdout)["problems"]
    ]


def test_cli_route_by_card_and_an_unknown_line(cli):
    state = str(DATA / "streetcar-state.json")
    known = cli("route", state, "--line", "3", "--card", "2")
    assert known.exit_code in (0, 1) and known.stdout.startswith("Line 3, stops ")
    unknown = cli("route", state, "--line", "9", "--card", "2")
    assert unknown.exit_code == 2 and "--line: is 9; this board has lines 1, 2, 3, 4, 5, 6" in unknown.stderr
