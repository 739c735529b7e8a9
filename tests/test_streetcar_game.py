"""Streetcar game logs: the example games, each rule of a turn with a legal and an illegal case,
self-play logs that verify, and single corruptions that are caught or provably still legal."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import DATA
from paperplay.errors import IllegalAction as Illegal
from paperplay.errors import InputError
from paperplay.seeds import Rng
from paperplay.streetcar.data import Edge
from paperplay.streetcar.deal import bag, deal
from paperplay.streetcar.game import Game, Player, new_game, play_turn
from paperplay.streetcar.referee import verify_log
from paperplay.streetcar.route import Car
from paperplay.streetcar.selfplay import play_game
from paperplay.streetcar.state import load_board
from paperplay.streetcar.track import geometry, placed

TINY = json.loads((DATA / "streetcar-tiny-game.json").read_text(encoding="utf-8"))
ROW_BOARD = {"size": [3, 7], "locations": {"A": [0, 1], "B": [0, 3], "C": [0, 5]}, "terminals": [
    {"line": 1, "number": 1, "side": "W", "squares": [[1, 0], [2, 0]]},
    {"line": 1, "number": 2, "side": "E", "squares": [[1, 6], [2, 6]]}]}


def broken(log):
    result = verify_log(log, "log")
    assert not result.valid, result.text_lines()
    return result.problem_turn, result.problem_player, result.problem.rule


def lay(player, *tiles, **extra):
    return {"player": player, "lay": [{"at": list(at), "tile": t, "rotation": r} for at, t, r in tiles], **extra}


# -- the example games ------------------------------------------------------------------------------


def test_tiny_example_game_is_legal_and_ann_wins():
    result = verify_log(TINY, "tiny")
    assert result.valid and result.winner == "Ann" and result.turns == 13
    assert result.summary["stop_signs"] == {"A": [1, 2], "B": [4, 1]}  # the first tiles laid beside them
    assert result.summary["players"][0]["spaces_moved"] == 8


def test_standard_example_game_is_legal_to_the_end():
    log = json.loads((DATA / "streetcar-game.json").read_text(encoding="utf-8"))
    result = verify_log(log, "game")
    assert result.valid and result.winner is not None and len(log["players"]) == 4
    assert result.summary["tiles_laid"] > 50 and result.summary["moves"] > 10


def test_deal_comes_from_the_seed_or_is_recorded():
    log = json.loads((DATA / "streetcar-game.json").read_text(encoding="utf-8"))
    game = new_game(log, "game")
    seats = deal(log["seed"], 4, 2)
    assert [(p.line, p.stops) for p in game.players] == [(s.line, s.stops) for s in seats]
    recorded = {**log, "deal": [{"line": s.line, "route_card": s.route_card} for s in seats]}
    assert verify_log(recorded, "game").valid
    wrong = {**log, "deal": [{"line": s.line, "route_card": s.route_card % 6 + 1} for s in seats]}
    with pytest.raises(InputError, match=r"deal\[0\] gives line .* but the seed deals seat 1"):
        verify_log(wrong, "game")


# -- one rule at a time, on the tiny game -------------------------------------------------------------


def tiny_with(index, turn):
    """The tiny example game with one turn replaced (or dropped, for None)."""
    log = copy.deepcopy(TINY)
    if turn is None:
        del log["turns"][index]
    else:
        log["turns"][index] = turn
    return log


def test_turn_order():
    assert broken(tiny_with(0, None)) == (1, "Bob", "streetcar/turn-order")


def test_rule_c_in_a_log():
    turn = lay("Ann", ((1, 0), "straight", 90), ((1, 1), "straight", 0))  # [1, 1] ignores [1, 0]'s track
    assert broken(tiny_with(0, turn)) == (1, "Ann", "streetcar/C")


def test_hand_holds_only_what_was_dealt_and_drawn():
    turn = lay("Ann", ((1, 0), "straight", 90), ((1, 1), "fork", 0))
    assert broken(tiny_with(0, turn)) == (1, "Ann", "streetcar/hand")


def test_counts_of_one_are_singular():
    log = copy.deepcopy(TINY)
    log["turns"] = log["turns"][:1]
    head, _, counts = verify_log(log, "log").text_lines()
    assert head == "log: Streetcar game, 1 turn, no winner yet"
    assert counts == "  2 tiles laid (0 by exchange), 0 moves, 0 stop signs out"
    log["turns"] = TINY["turns"][:2]  # the second turn's tiles touch a location
    assert verify_log(log, "log").text_lines()[2].endswith(", 1 stop sign out")


def test_pass_claim_is_checked():
    turn = lay("Ann", ((1, 0), "straight", 90))
    assert broken(tiny_with(0, turn)) == (1, "Ann", "streetcar/pass")


FULL_BOARD = {"size": [3, 4], "locations": {"A": [2, 0], "B": [2, 3]}, "terminals": [
    {"line": 1, "number": 1, "side": "E", "squares": [[0, 3], [1, 3]]},
    {"line": 1, "number": 2, "side": "W", "squares": [[0, 0], [1, 0]]},
    {"line": 2, "number": 1, "side": "N", "squares": [[0, 1], [0, 2]]},
    {"line": 2, "number": 2, "side": "S", "squares": [[2, 1], [2, 2]]}]}


def full_board_game(last):
    """Ann and Bob fill a 3x4 board in six turns (Bob draws two branches); Ann then passes, and Bob plays
    `last`: every empty square is a location, so only exchanges are left."""
    turns = [lay("Ann", ((0, 0), "straight", 90), ((1, 0), "straight", 90), draw=["straight", "straight"]),
             lay("Bob", ((0, 3), "straight", 90), ((1, 3), "straight", 90), draw=["straight", "straight"]),
             lay("Ann", ((0, 1), "curve", 270), ((0, 2), "curve", 0), draw=["straight", "straight"]),
             lay("Bob", ((2, 1), "straight", 0), ((2, 2), "straight", 0), draw=["curve", "curve"]),
             lay("Ann", draw=[]),
             lay("Bob", ((1, 1), "curve", 180), ((1, 2), "curve", 90), draw=["branch-e", "branch-w"]),
             lay("Ann", draw=[]), last]
    return {"game": "streetcar", "board": FULL_BOARD, "set": 2, "variants": {"ordered": False, "dice": "none"},
            "players": ["Ann", "Bob"], "deal": [{"line": 1, "stops": ["A"]}, {"line": 2, "stops": ["B"]}],
            "turns": turns}


def test_a_pass_is_refused_when_a_double_exchange_was_open():
    double = lay("Bob", ((2, 1), "branch-e", 0), ((2, 2), "branch-w", 0), draw=[])
    assert verify_log(full_board_game(double), "log").valid  # neither exchange is legal alone
    result = verify_log(full_board_game(lay("Bob", draw=[])), "log")
    assert (result.problem_turn, result.problem_player, result.problem.rule) == (8, "Bob", "streetcar/pass")
    assert result.problem.message.endswith("together (a double exchange)")
    assert result.to_json()["problems"][0]["square"] == list(result.problem.square)


def test_hand_is_refilled_to_five():
    at = bag("TINY1", 2)
    good = {**TINY["turns"][0], "draw": at[:2]}
    assert verify_log(tiny_with(0, good), "log").valid
    short = {**TINY["turns"][0], "draw": at[:1]}
    assert broken(tiny_with(0, short)) == (1, "Ann", "streetcar/draw-count")
    other = next(t for t in ("crossing", "fork", "curve") if t != at[0])
    wrong = {**TINY["turns"][0], "draw": [other, at[1]]}
    assert broken(tiny_with(0, wrong)) == (1, "Ann", "streetcar/draw")


def test_leftovers_only_from_a_running_player():
    turn = {**TINY["turns"][1], "draw": [{"from": "Ann", "tile": "straight"}, bag("TINY1", 2)[2]]}
    assert broken(tiny_with(1, turn)) == (2, "Bob", "streetcar/draw")


def test_run_starts_only_with_a_complete_route():
    early = {"player": "Ann", "start": 1, "move": [[3, 4]]}
    assert broken(tiny_with(4, early)) == (5, "Ann", "streetcar/run-start")


def test_running_player_may_not_lay_tiles():
    turn = lay("Ann", ((2, 0), "straight", 0), ((2, 1), "straight", 0))
    assert broken(tiny_with(8, turn)) == (9, "Ann", "streetcar/running")


def test_speed_rule_first_move_is_one_space():
    fast = {"player": "Ann", "start": 1, "move": [[3, 4], [3, 3]]}
    assert broken(tiny_with(6, fast)) == (7, "Ann", "streetcar/speed")
    # Ann's third move may go 3 (1 more than her 2); Bob's first, after it, 1 more than hers.
    assert TINY["turns"][11]["move"] == [[0, 3], [0, 2], [0, 1]]
    too_far = {"player": "Bob", "start": 1, "move": [[0, 3], [0, 2], [0, 1], [0, 0]]}
    assert broken(tiny_with(11, too_far)) == (12, "Bob", "streetcar/speed")


def test_forced_stop_at_every_stop_sign():
    through = {"player": "Ann", "move": [[2, 2], [1, 2], [1, 1]]}  # [1, 2] carries A's stop sign
    assert broken(tiny_with(10, through)) == (11, "Ann", "streetcar/forced-stop")


def test_cars_move_forward_along_track():
    backwards = {"player": "Ann", "move": [[3, 4]]}  # from [3, 4] back onto itself
    assert broken(tiny_with(8, backwards))[2] == "streetcar/track"
    jump = {"player": "Ann", "move": [[2, 3], [2, 2]]}  # [3, 4] to [2, 3] is not a neighbour
    assert broken(tiny_with(8, jump))[2] == "streetcar/track"


def test_restart_only_after_a_wrong_turn():
    assert broken(tiny_with(8, {"player": "Ann", "restart": True})) == (9, "Ann", "streetcar/restart")


def test_win_ends_the_game():
    log = copy.deepcopy(TINY)
    log["turns"].append({"player": "Bob", "move": [[0, 0]]})
    assert broken(log) == (14, "Bob", "streetcar/game-over")


def test_exchange_means_one_tile_fewer_drawn():
    board = TINY["board"]
    base = {"game": "streetcar", "board": board, "players": ["Ann", "Bob"],
            "deal": [{"line": 1, "stops": ["A"]}, {"line": 2, "stops": ["B"]}]}
    turns = [lay("Ann", ((1, 0), "straight", 90), ((1, 1), "straight", 90), draw=["branch-w", "curve"]),
             lay("Bob", ((4, 1), "curve", 90), ((4, 2), "curve", 270), draw=["straight", "straight"]),
             lay("Ann", ((1, 1), "branch-w", 90), ((1, 2), "curve", 180), draw=["straight"])]
    assert verify_log({**base, "turns": turns}, "log").valid
    turns[2]["draw"] = ["straight", "curve"]
    assert broken({**base, "turns": turns}) == (3, "Ann", "streetcar/draw-count")
    # Without a seed the tiles drawn must be recorded.
    del turns[2]["draw"]
    with pytest.raises(InputError, match=r"turns\[2\]: field draw is missing"):
        verify_log({**base, "turns": turns}, "log")


def test_input_errors_name_the_field():
    cases = [
        (tiny_with(0, {"player": "Zed", "lay": []}), r"turns\[0\].player is 'Zed'"),
        (tiny_with(0, {"player": "Ann", "lay": [], "move": [[1, 1]]}), r"turns\[0\]: a turn either lays"),
        (tiny_with(0, lay("Ann", ((9, 9), "straight", 0))), r"lay\[0\].at is \[9, 9\], off the 5x5 board"),
        (tiny_with(0, lay("Ann", ((1, 1), "monorail", 0))), r"lay\[0\].tile is 'monorail'"),
        ({**TINY, "players": ["Ann"]}, r"field players has 1 entry"),
        # the dice belong to moves: a roll on a turn that lays tiles or restarts is neither checked nor used
        ({**tiny_with(0, {**TINY["turns"][0], "roll": 3}), "variants": {"dice": "roll"}},
         r"turns\[0\]: field roll is given on a turn that lays tiles"),
        ({**tiny_with(0, {"player": "Ann", "restart": True, "repeat": True}), "variants": {"dice": "roll-or-repeat"}},
         r"turns\[0\]: field repeat is given on a turn that restarts"),
    ]
    for log, message in cases:
        with pytest.raises(InputError, match=message):
            verify_log(log, "log")


# -- game-level cases: turns, terminals, restart, dice -------------------------------------------------


def row_game(tiles, signs=None, stops=()):
    game = Game(geometry(load_board(ROW_BOARD, "t", None)), [])
    for (r, c), tile, rotation in tiles:
        game.layout[(r, c)] = placed(tile, rotation)
    game.stop_signs = dict(signs or {})
    player = Player("Ann", 1, tuple(stops))
    game.players = [player]
    return game, player


ROW = [((1, c), "straight", 90) for c in range(7)]


def terminals(game):
    return {t.number: t for t in game.ends(game.players[0])}


def test_no_sharp_turns():
    game, ann = row_game([t for t in ROW if t[0] != (1, 2)] + [((1, 2), "fork", 0), ((0, 2), "straight", 0)])
    ends = terminals(game)
    ann.running, ann.start = True, ends[2]
    ann.car = Car((1, 3), Edge.E, 0, ends[1])  # heading west
    game.last_move = 5
    with pytest.raises(Illegal, match="sharp turn") as caught:
        game.move(ann, [(1, 2), (1, 1)], None)
    assert caught.value.problem.rule == "streetcar/track"
    game.move(ann, [(1, 2), (0, 2)], None)  # the fork's curve north
    assert ann.car.square == (0, 2)


def test_terminal_passed_through_without_the_stops_is_no_win():
    tiles = ROW + [((2, 6), "straight", 90), ((2, 0), "straight", 90), ((2, 1), "curve", 0), ((0, 0), "curve", 90)]
    for stops, winner in ((("A",), None), ((), "Ann")):
        game, ann = row_game(tiles, {"A": (0, 0)}, stops)
        ends = terminals(game)
        ann.running, ann.start = True, ends[1]
        game.last_move = 20
        steps = [(1, c) for c in range(7)] + [ends[2]] + ([(2, 6)] if stops else [])
        game.move(ann, steps, None)
        assert game.winner == winner
        if stops:
            assert ann.car.square == (2, 6) and ann.moved == 9  # 7 tiles, the terminal, 1 tile


def test_car_may_stop_in_a_terminal_and_go_on_next_turn():
    game, ann = row_game(ROW + [((2, 6), "straight", 90)], {"A": (0, 0)}, ("A",))
    ends = terminals(game)
    ann.running, ann.start = True, ends[1]
    game.last_move = 7
    game.move(ann, [(1, c) for c in range(7)] + [ends[2]], None)
    assert ann.car.terminal == ends[2]
    game.move(ann, [(2, 6)], None)
    assert ann.car.square == (2, 6)


def test_restart_allowed_when_the_route_cannot_be_completed():
    game, ann = row_game(ROW[:4])
    ends = terminals(game)
    ann.running, ann.start = True, ends[1]
    ann.car = Car((1, 3), Edge.W, 0, ends[2])  # heading east into a dead end
    game.restart(ann)
    assert ann.car is None and ann.start is None
    game, ann = row_game(ROW)
    ann.running, ann.start = True, ends[1]
    ann.car = Car((1, 3), Edge.W, 0, terminals(game)[2])
    with pytest.raises(Illegal, match="can still complete"):
        game.restart(ann)


def test_dice_variants():
    game, ann = row_game(ROW, {"B": (1, 3)})
    game.dice = "roll"
    ends = terminals(game)
    ann.running, ann.start = True, ends[1]
    with pytest.raises(Illegal) as caught:
        game.move(ann, [(1, 0), (1, 1), (1, 2)], 2)
    assert caught.value.problem.rule == "streetcar/dice" and "at most 2 (the roll)" in str(caught.value)
    with pytest.raises(Illegal) as caught:
        game.move(ann, [(1, 0), (1, 1), (1, 2)], 5)  # a 5 goes on to the next stop sign
    assert caught.value.problem.rule == "streetcar/dice"
    game.move(ann, [(1, 0), (1, 1), (1, 2), (1, 3)], 6)
    assert ann.car.square == (1, 3) and game.last_roll == 6
    game.rolls = Rng("streetcar/dice", "SEED")
    first = Rng("streetcar/dice", "SEED").randbelow(6) + 1
    with pytest.raises(Illegal, match=f"the seed rolls {first}"):
        game.roll(first % 6 + 1, False)
    with pytest.raises(Illegal, match="only in the roll-or-repeat variant"):
        game.roll(None, True)
    game.dice = "roll-or-repeat"
    assert game.roll(None, True) == 6


def test_forced_stop_at_any_locations_stop_sign():
    # B is not one of Ann's stops, but its stop sign still ends her move.
    game, ann = row_game(ROW, {"B": (1, 3)}, ())
    ann.running, ann.start = True, terminals(game)[1]
    game.last_move = 10
    with pytest.raises(Illegal) as caught:
        game.move(ann, [(1, c) for c in range(5)], None)
    assert caught.value.problem.rule == "streetcar/forced-stop" and "stop sign of B" in str(caught.value)
    game.move(ann, [(1, c) for c in range(4)], None)
    assert ann.car.square == (1, 3)


def test_a_five_or_six_may_take_the_car_into_its_end_terminal():
    game, ann = row_game(ROW, {}, ())
    game.dice = "roll"
    ends = terminals(game)
    ann.running, ann.start = True, ends[1]
    game.move(ann, [(1, c) for c in range(7)] + [ends[2]], 6)  # 8 spaces, no stop sign on the way
    assert game.winner == "Ann"


def test_a_move_into_a_terminal_the_board_lacks_cannot_be_read():
    log = tiny_with(6, {"player": "Ann", "start": 1, "move": [{"terminal": [5, 1]}]})
    with pytest.raises(InputError, match=r"turns\[6\].move\[0\] is terminal \[5, 1\], which is not on this board"):
        verify_log(log, "log")


def test_bag_supply_without_a_seed():
    game, ann = row_game([])
    game.supply["crossing"] = 0
    ann.hand = []
    game.supply["straight"] = 10
    with pytest.raises(Illegal, match="no crossing is left"):
        game.draw(ann, ["crossing"] * 5)


# -- properties ----------------------------------------------------------------------------------------

SMALL = {"size": [6, 6], "locations": {"A": [1, 3], "B": [4, 2], "C": [2, 1]}, "terminals": [
    {"line": 1, "number": 1, "side": "E", "squares": [[3, 5], [4, 5]]},
    {"line": 1, "number": 2, "side": "W", "squares": [[0, 0], [1, 0]]},
    {"line": 2, "number": 1, "side": "N", "squares": [[0, 3], [0, 4]]},
    {"line": 2, "number": 2, "side": "S", "squares": [[5, 0], [5, 1]]},
    {"line": 3, "number": 1, "side": "S", "squares": [[5, 3], [5, 4]]},
    {"line": 3, "number": 2, "side": "N", "squares": [[0, 1], [0, 2]]}]}
SMALL_DEAL = [{"line": 1, "stops": ["A", "C"]}, {"line": 2, "stops": ["B", "A"]}, {"line": 3, "stops": ["C", "B"]}]

variants = st.fixed_dictionaries({
    "seed": st.text("ABCDEFGHJK23456789", min_size=1, max_size=6),
    "players": st.sampled_from([2, 3]),
    "ordered": st.booleans(),
    "dice": st.sampled_from(["none", "roll", "roll-or-repeat"]),
})


def small_game(v):
    return play_game(v["seed"], v["players"], ordered=v["ordered"], dice=v["dice"], board=SMALL,
                     deal=SMALL_DEAL[:v["players"]], max_turns=200)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variants)
def test_self_play_logs_verify(v):
    log = small_game(v)
    result = verify_log(json.loads(json.dumps(log)), "self-play")
    assert result.valid, result.text_lines()
    assert result.turns == len(log["turns"])
    if result.winner is not None:
        assert log["turns"][-1]["player"] == result.winner and "move" in log["turns"][-1]


@pytest.mark.parametrize("seed,players,card_set,ordered,dice", [
    ("P2QP", 3, 3, True, "none"), ("Q7", 2, 3, True, "roll-or-repeat"), ("HGPH", 3, 3, False, "roll")])
def test_self_play_on_the_standard_board(seed, players, card_set, ordered, dice):
    log = play_game(seed, players, card_set, ordered, dice)
    result = verify_log(log, "self-play")
    assert result.valid and result.winner is not None


def naive_board_ok(board, layout):
    """Rules A-D on a whole board, written out plainly: every pair of neighbours and every border edge."""
    step = {Edge.N: (-1, 0), Edge.E: (0, 1), Edge.S: (1, 0), Edge.W: (0, -1)}
    ports = {(tuple(sq), t.side) for t in board.terminals for sq in t.squares}
    for (r, c), tile in layout.items():
        if (r, c) in board.locations.values():
            return False
        for edge, (dr, dc) in step.items():
            other = (r + dr, c + dc)
            mine = edge in tile.ends
            if not (0 <= other[0] < board.rows and 0 <= other[1] < board.cols):
                if mine != (((r, c), edge) in ports):
                    return False
            elif other in board.locations.values():
                if mine:
                    return False
            elif other in layout and mine != (Edge((edge + 2) % 4) in layout[other].ends):
                return False
    return True


def corrupt(log, kind, pick):
    """One corruption of a log: a laid tile turned, a move made one space longer, a draw changed.
    Returns (log, index of the corrupted turn), or None when the log has nothing of that kind."""
    log = copy.deepcopy(log)
    turns = log["turns"]
    if kind == "rotate":
        spots = [(i, j) for i, t in enumerate(turns) for j in range(len(t.get("lay", [])))]
        if not spots:
            return None
        i, j = spots[pick % len(spots)]
        entry = turns[i]["lay"][j]
        entry["rotation"] = (entry["rotation"] + 90 * (1 + pick % 3)) % 360
        return log, i
    if kind == "lengthen":
        moves = [i for i, t in enumerate(turns) if t.get("move")]
        if not moves:
            return None
        i = moves[pick % len(moves)]
        game = new_game(log, "c")
        for t in turns[:i + 1]:
            play_turn(game, t, "c")
        car = game.player(turns[i]["player"]).car
        if car is None or car.terminal is not None:
            return None
        nxt = game.network.succ.get(game.network.node(car.square, car.edge), ())
        ahead = [n for n in nxt if 0 <= n < game.network.base]
        if not ahead:
            return None
        turns[i]["move"].append(list(game.network.square_of(ahead[0])))
        return log, i
    builds = [i for i, t in enumerate(turns) if "lay" in t]
    if not builds:
        return None
    i = builds[pick % len(builds)]
    game = new_game(log, "c")
    for t in turns[:i]:
        play_turn(game, t, "c")
    at = len(game.bag) - game.bag_left()
    need = min(5 - (len(game.to_play.hand) - len(turns[i]["lay"])), game.bag_left())
    drawn = list(game.bag[at:at + max(need, 1)])
    drawn[0] = "crossing" if drawn[0] != "crossing" else "curve"
    turns[i]["draw"] = drawn
    return log, i


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variants, st.sampled_from(["rotate", "lengthen", "draw"]), st.integers(0, 10_000))
def test_a_single_corruption_is_caught_or_provably_legal(v, kind, pick):
    log = small_game({**v, "dice": "none"})
    made = corrupt(log, kind, pick)
    if made is None:
        return
    bad, index = made
    result = verify_log(bad, "corrupted")
    if not result.valid:
        assert result.problem_turn >= index + 1  # nothing before the corruption is blamed
        return
    # Still legal: prove it without the referee's placement code. A turned tile with the same track,
    # or a board that obeys rules A-D when checked square by square, with every move's length within
    # the speed rule counted from the log.
    game = new_game(bad, "corrupted")
    for t in bad["turns"]:
        play_turn(game, t, "corrupted")
    assert naive_board_ok(game.geo.board, game.layout)
    last = 0
    for t in bad["turns"]:
        if "move" in t:
            assert len(t["move"]) <= last + 1
            last = len(t["move"])


# -- the command line ------------------------------------------------------------------------------------


def test_cli_verify_streetcar_logs_and_states(cli, write_json):
    good = cli("verify", str(DATA / "streetcar-tiny-game.json"))
    assert good.exit_code == 0 and "13 turns, Ann wins" in good.stdout
    bad = write_json("bad.json", tiny_with(10, {"player": "Ann", "move": [[2, 2], [1, 2], [1, 1]]}))
    result = cli("verify", str(bad), "--json")
    assert result.exit_code == 1
    (doc,) = json.loads(result.stdout)["results"]
    assert doc["valid"] is False and doc["winner"] is None
    assert doc["problems"] == [{"rule": "streetcar/forced-stop", "turn": 11, "player": "Ann",
                                "message": "Ann's car enters the stop sign of A on [1, 2] and must stop there, "
                                           "ending its move"}]
    text = cli("verify", str(bad))
    assert "NOT VALID at turn 11 (Ann), rule streetcar/forced-stop" in text.stdout
    state = write_json("state.json", {"game": "streetcar", "tiles": [{"at": [5, 0], "tile": "straight",
                                                                      "rotation": 90}]})
    mixed = cli("verify", str(state), str(bad), str(DATA / "streetcar-game.json"))
    assert mixed.exit_code == 1 and "every tile obeys rules A-D" in mixed.stdout


def test_cli_verify_streetcar_bad_input_exits_2(cli, write_json):
    cases = [
        ({"game": "streetcar", "players": ["Ann", "Bob"], "turns": []}, "give field seed or field deal"),
        ({"game": "streetcar", "tiles": [{"at": [5, 0], "tile": "straight"}]}, "missing field 'rotation'"),
        ({"game": "streetcar", "tiles": [], "stop_signs": {"J": [1, 1]}}, "the board has no location J"),
        ({"game": "streetcar", "tiles": [{"at": [5, 0], "tile": "straight", "rotation": 0},
                                         {"at": [5, 0], "tile": "curve", "rotation": 0}]}, "already holds a tile"),
    ]
    for document, message in cases:
        path = write_json("x.json", document)
        result = cli("verify", str(path))
        assert result.exit_code == 2 and message in result.stderr and "x.json" in result.stderr, result.stderr


def test_schemas_are_listed(cli):
    listed = cli("schema").stdout.split()
    assert {"streetcar-board", "streetcar-tiles", "streetcar-route-cards", "streetcar-state",
            "streetcar-log"} <= set(listed)


def test_side_by_side_exchanges_legal_one_after_the_other_use_the_returned_tile():
    # The first exchange returns a branch-w to the hand; the second lays it on the square beside.
    tiles = [t for t in ROW if t[0] not in ((1, 2), (1, 3))] + [((1, 2), "branch-w", 270), ((1, 3), "straight", 90)]
    game, ann = row_game(tiles)
    ann.hand = ["branch-pair"]
    game.lay(ann, [((1, 2), placed("branch-pair", 0)), ((1, 3), placed("branch-w", 270))])
    assert game.layout[(1, 3)] == placed("branch-w", 270) and ann.hand == ["straight"] and game.exchanges == 2
    # Without the returned tile, the same two plays need both tiles in hand (judged as a double exchange).
    game, ann = row_game(tiles)
    ann.hand = ["branch-pair"]
    with pytest.raises(Illegal) as caught:
        game.lay(ann, [((1, 2), placed("branch-pair", 0)), ((1, 3), placed("branch-pair", 0))])
    assert caught.value.problem.rule == "streetcar/hand"
