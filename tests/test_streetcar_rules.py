"""Streetcar placement rules (docs/reference/rulings.md, Streetcar: Placement), each with a legal and an
illegal case."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paperplay.errors import InputError
from paperplay.jsonfile import validate
from paperplay.resources import load_template
from paperplay.streetcar.data import Edge, standard_board, tile_kinds
from paperplay.errors import IllegalAction as Illegal
from paperplay.streetcar.game import Game, Player, new_game
from paperplay.streetcar.track import (
    double_exchange_faults, geometry, legal_plays, orientations, placed, play_and_another, play_faults,
)

GEO = geometry(standard_board())


def rules(layout, square, tile, rotation):
    return [p.rule for p in play_faults(GEO, dict(layout), square, placed(tile, rotation))]


@pytest.mark.parametrize("name,schema", [("standard-board", "streetcar-board"), ("tiles", "streetcar-tiles"),
                                         ("route-cards", "streetcar-route-cards")])
def test_data_files_match_their_schemas(name, schema):
    validate(load_template(f"streetcar/{name}.json"), schema, name)


def test_tile_data_matches_rulings():
    from paperplay.streetcar.data import tile_kinds

    assert sum(k.count for k in tile_kinds()) == 126
    assert [k.id for k in tile_kinds() if k.trees] == ["triangle", "branch-pair", "four-curves", "crossing",
                                                       "cross-curves-e", "cross-curves-w"]
    assert placed("curve", 90).pieces == {frozenset({Edge.E, Edge.S})}  # rotation turns N into E
    assert len(orientations("straight")) == 2 and len(orientations("crossing")) == 1


def test_rule_a_track_leaves_the_board_only_into_a_terminal():
    assert rules({}, (3, 0), "straight", 90) == ["streetcar/A"]  # row 3 west: no terminal
    assert rules({}, (5, 0), "straight", 90) == []  # row 5 west: line 1 terminal 2
    assert rules({}, (0, 0), "curve", 90) == []  # east and south stay on the board


def test_rule_b_no_track_into_or_on_a_location():
    assert rules({}, (3, 0), "straight", 0) == ["streetcar/B"]  # leads south into E at [4, 0]
    assert rules({}, (4, 0), "straight", 0) == ["streetcar/B"]  # laid on E itself
    assert rules({}, (3, 1), "straight", 90) == []


def test_rule_c_track_leading_in_must_be_met():
    row = {(5, 5): placed("straight", 90)}
    assert rules(row, (5, 6), "straight", 0) == ["streetcar/C"]
    assert rules(row, (5, 6), "straight", 90) == []
    # A terminal's track leads into its squares: line 1 terminal 2 into [6, 0] from the west.
    assert rules({}, (6, 0), "straight", 0) == ["streetcar/C"]
    assert rules({}, (6, 0), "curve", 180) == []  # south-west curve meets it


def test_rule_d_track_may_not_lead_into_a_tile_edge_without_track():
    column = {(5, 5): placed("straight", 0)}
    assert rules(column, (5, 6), "straight", 90) == ["streetcar/D"]
    assert rules(column, (5, 6), "straight", 0) == []


def test_exchange_keeps_every_old_track_piece():
    old = {(5, 5): placed("straight", 0)}
    assert rules(old, (5, 5), "branch-w", 0) == []  # N-S kept, S-W added
    assert rules(old, (5, 5), "curve", 0) == ["streetcar/exchange"]
    assert rules(old, (5, 5), "branch-w", 90) == ["streetcar/exchange"]  # E-W and W-N: the N-S is gone
    assert rules(old, (5, 5), "straight", 180) == ["streetcar/exchange"]  # the same track: not an upgrade


def test_tiles_with_trees_are_never_replaced_but_may_replace():
    assert "streetcar/trees" in rules({(5, 5): placed("crossing", 0)}, (5, 5), "crossing", 90)
    assert rules({(5, 5): placed("straight", 0)}, (5, 5), "crossing", 0) == []


def test_double_exchange_is_judged_on_the_result():
    layout = {(5, 5): placed("straight", 0), (5, 6): placed("straight", 0)}
    left, right = ((5, 5), placed("branch-e", 0)), ((5, 6), placed("branch-w", 0))
    # Each alone leads into the other's trackless side (rule D) ...
    assert rules(layout, *left[:1], "branch-e", 0) == ["streetcar/D"]
    assert rules(layout, *right[:1], "branch-w", 0) == ["streetcar/D"]
    # ... together they meet.
    assert double_exchange_faults(GEO, dict(layout), (left, right)) == []
    wrong = ((5, 6), placed("branch-e", 0))
    assert [p.rule for p in double_exchange_faults(GEO, dict(layout), (left, wrong))] == ["streetcar/D", "streetcar/C"]


def _game(**header):
    data = {"game": "streetcar", "seed": "7KQ2M9XD", "players": ["Ann", "Bob"], **header}
    return new_game(data, "test")


def test_double_exchange_in_a_turn_returns_both_old_tiles():
    game = _game()
    game.layout.update({(5, 5): placed("straight", 0), (5, 6): placed("straight", 0)})
    ann = game.players[0]
    ann.hand = ["branch-e", "branch-w", "curve"]
    game.lay(ann, [((5, 5), placed("branch-e", 0)), ((5, 6), placed("branch-w", 0))])
    assert sorted(ann.hand) == ["curve", "straight", "straight"] and game.exchanges == 2


def test_exchanged_tile_may_be_laid_again_the_same_turn():
    game = _game()
    game.layout[(5, 5)] = placed("straight", 0)
    ann = game.players[0]
    ann.hand = ["branch-w"]
    game.lay(ann, [((5, 5), placed("branch-w", 0)), ((2, 2), placed("straight", 0))])
    assert ann.hand == [] and game.layout[(2, 2)].kind.id == "straight"


def test_first_tile_laid_beside_a_location_gets_its_stop_sign():
    for order, expected in (([(5, 3), (7, 3)], (5, 3)), ([(7, 3), (5, 3)], (7, 3))):
        game = _game()
        ann = game.players[0]
        ann.hand = ["straight", "straight"]
        game.lay(ann, [(sq, placed("straight", 90)) for sq in order])
        assert game.stop_signs["L"] == expected  # L is at [6, 3]


def _custom(board):
    from paperplay.streetcar.state import load_board

    return Game(geometry(load_board(board, "test", None)), [])


SQUARE_BOARD = {"size": [4, 4], "locations": {"A": [1, 1], "B": [2, 2]}, "terminals": [
    {"line": 1, "number": 1, "side": "W", "squares": [[2, 0], [3, 0]]},
    {"line": 1, "number": 2, "side": "E", "squares": [[0, 3], [1, 3]]}]}


def test_one_tile_may_carry_two_stop_signs():
    game = _custom(SQUARE_BOARD)
    ann = Player("Ann", 1, ("A", "B"), hand=["curve"])
    game.lay(ann, [((1, 2), placed("curve", 0))])  # [1, 2] touches A (west) and B (south)
    assert game.stop_signs == {"A": (1, 2), "B": (1, 2)}


def test_pass_claim_is_checked_against_every_legal_play():
    # A 2x4 board whose only free squares are the terminal squares: no straight fits anywhere.
    game = _custom({"size": [2, 4], "locations": {"A": [0, 1], "B": [0, 2], "C": [1, 1], "D": [1, 2]}, "terminals": [
        {"line": 1, "number": 1, "side": "W", "squares": [[0, 0], [1, 0]]},
        {"line": 1, "number": 2, "side": "E", "squares": [[0, 3], [1, 3]]}]})
    ann = Player("Ann", 1, (), hand=["straight"] * 5)
    assert list(legal_plays(game.geo, game.layout, ann.hand)) == []
    game.check_pass(ann, 0)  # nothing legal: the claim holds
    ann.hand = ["straight"] * 4 + ["curve"]
    with pytest.raises(Illegal) as caught:
        game.check_pass(ann, 0)
    assert caught.value.problem.rule == "streetcar/pass" and "curve" in str(caught.value)


STUCK_BOARD = {"size": [3, 3], "locations": {"A": [1, 1]}, "terminals": [
    {"line": 1, "number": 1, "side": "W", "squares": [[1, 0], [2, 0]]},
    {"line": 1, "number": 2, "side": "E", "squares": [[0, 2], [1, 2]]}]}


def test_one_tile_is_refused_when_another_first_play_left_room_for_two():
    game = _custom(STUCK_BOARD)
    game.layout[(1, 2)] = placed("curve", 90)
    ann = Player("Ann", 1, (), hand=["branch-w", "curve"])
    before = (dict(game.layout), list(ann.hand))
    game.lay(ann, [((1, 0), placed("curve", 270))])  # the branch fits nowhere after this curve
    assert list(legal_plays(game.geo, game.layout, ann.hand)) == []
    with pytest.raises(Illegal) as caught:
        game.check_pass(ann, 1, before)
    problem = caught.value.problem
    assert problem.rule == "streetcar/pass" and problem.square == (1, 0)
    assert problem.message == ("Ann laid 1 tile, but could have laid two this turn: lay a branch-w at 0° on [1, 0], "
                               "then lay a curve at 270° on [2, 2]")
    game = _custom(STUCK_BOARD)
    game.layout[(1, 2)] = placed("curve", 90)
    ann = Player("Ann", 1, (), hand=["branch-w", "curve"])
    game.lay(ann, [((1, 0), placed("branch-w", 0)), ((2, 2), placed("curve", 270))])  # the plays it names are legal
    assert ann.hand == []


def test_a_pass_claim_names_the_tile_an_exchange_would_replace():
    game = _custom(STUCK_BOARD)
    game.layout.update({(0, 2): placed("branch-e", 90), (1, 0): placed("curve", 270), (1, 2): placed("fork", 90)})
    ann = Player("Ann", 1, (), hand=["fork"])  # no empty square takes it; the curve on [1, 0] may become a fork
    with pytest.raises(Illegal) as caught:
        game.check_pass(ann, 0)
    assert str(caught.value) == "Ann laid 0 tiles, but could still exchange the curve on [1, 0] for a fork at 270°"


def test_a_turn_of_one_tile_is_judged_from_where_the_turn_began():
    # The same position as above, through Game.play: after the curve nothing fits, but the turn began
    # with room for two.
    from paperplay.streetcar.game import Build

    game = _custom(STUCK_BOARD)
    game.layout[(1, 2)] = placed("curve", 90)
    game.players.append(Player("Ann", 1, (), hand=["branch-w", "curve"]))
    with pytest.raises(Illegal) as caught:
        game.play(Build("Ann", (((1, 0), placed("curve", 270)),), ()))
    assert caught.value.problem.rule == "streetcar/pass" and "could have laid two this turn" in str(caught.value)


def test_a_second_play_beside_the_first_is_found():
    # The only second play is beside the first: the rescan of the first play's square and neighbours finds it.
    layout = {(1, 3): placed("triangle", 90), (2, 0): placed("cross-curves-e", 90), (0, 3): placed("curve", 90),
              (3, 1): placed("fork", 0), (0, 2): placed("curve", 180)}
    game = _custom(SQUARE_BOARD)
    game.layout.update(layout)
    pair = play_and_another(game.geo, dict(layout), ["triangle"])
    assert pair is not None and _brute_two_plays(game.geo, layout, ["triangle"])
    (first, _), (second, _) = pair
    assert abs(first[0] - second[0]) + abs(first[1] - second[1]) <= 1


def _brute_two_plays(geo, layout, hand):
    """Whether any legal play leaves a legal second one, rescanning the whole board after each."""
    for square, tile in list(legal_plays(geo, layout, hand)):
        after, rest = dict(layout), list(hand)
        rest.remove(tile.kind.id)
        if square in layout:
            rest.append(layout[square].kind.id)
        after[square] = tile
        if next(legal_plays(geo, after, rest), None) is not None:
            return True
    return False


@settings(max_examples=60, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(0, 7), st.integers(1, 3))
def test_play_and_another_agrees_with_a_full_rescan(rnd, tiles, held):
    game = _custom(SQUARE_BOARD)
    kinds = sorted({k.id for k in tile_kinds()})
    for _ in range(tiles):
        options = list(legal_plays(game.geo, game.layout, [rnd.choice(kinds) for _ in range(3)]))
        if options:
            square, tile = rnd.choice(options)
            game.layout[square] = tile
    hand = [rnd.choice(kinds) for _ in range(held)]
    pair = play_and_another(game.geo, dict(game.layout), hand)
    assert (pair is not None) == _brute_two_plays(game.geo, game.layout, hand)
    if pair is not None:  # the two plays it names are legal in turn
        ann = Player("Ann", 1, (), hand=list(hand))
        game.lay(ann, [pair[0]])
        game.lay(ann, [pair[1]])


def test_one_line_card_per_player():
    data = {"game": "streetcar", "seed": "X", "board": SQUARE_BOARD, "players": ["Ann", "Bob"],
            "deal": [{"line": 1, "stops": ["A"]}, {"line": 1, "stops": ["B"]}]}
    with pytest.raises(InputError, match="line 1 to two players"):
        new_game(data, "t")


def test_custom_board_errors_name_the_field(write_json):
    from paperplay.streetcar.state import load_board

    board = json.loads(json.dumps(load_template("streetcar/standard-board.json")))
    board["terminals"][0]["squares"] = [[1, 10], [2, 10]]
    with pytest.raises(InputError, match=r"board.terminals\[0\].squares holds \[1, 10\].*E border"):
        load_board(board, "b.json", None)
    board = json.loads(json.dumps(load_template("streetcar/standard-board.json")))
    board["terminals"].pop()
    with pytest.raises(InputError, match="line 6 terminals \\[1\\]"):
        load_board(board, "b.json", None)
    board = json.loads(json.dumps(load_template("streetcar/standard-board.json")))
    board["locations"]["A"] = [12, 0]
    with pytest.raises(InputError, match="locations.A is \\[12, 0\\], off the 12x12 board"):
        load_board(board, "b.json", None)
