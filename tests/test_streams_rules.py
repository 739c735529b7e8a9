"""Streams rules: scoring as the best cut with the wild, checking sheets, claims and ranking.

Each ruling of docs/reference/rulings.md (Streams) has a legal and an illegal case here.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import DATA
from paperplay.streams.rules import (
    WILD, ClaimedSeries, StreamsRules, check_claims, check_draw, check_tiles, draw, score, standard_rules,
    tile_from_json,
)

CASES = json.loads((DATA / "streams-series.json").read_text(encoding="utf-8"))["cases"]
RULES = standard_rules()


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_reference_series(case):
    result = score([tile_from_json(c) for c in case["cells"]])
    assert result.total == case["total"], f"{case['name']}: series {result.series}"
    assert [s.length for s in result.series] == case["lengths"]
    if "wild_value" in case:
        assert result.wild_value == case["wild_value"]


def test_bag_is_the_rulebook_bag():
    counts = Counter(RULES.bag)
    assert len(RULES.bag) == 40
    assert all(counts[v] == 1 for v in [*range(1, 11), *range(20, 31)])
    assert all(counts[v] == 2 for v in range(11, 20))
    assert counts[WILD] == 1


def test_scoring_table_is_the_rulebook_table():
    assert [RULES.points[n] for n in (1, 2, 3, 8, 10, 19, 20)] == [0, 1, 3, 15, 25, 150, 300]


@given(st.text(alphabet="ABCDEFGH23456789", min_size=1, max_size=10))
def test_every_draw_is_twenty_tiles_the_bag_can_produce(seed):
    drawn = draw(seed)
    assert len(drawn) == 20
    assert check_draw(drawn) == []


# Ruling "Series": equal neighbours allowed, a fall starts a new series.
def test_equal_neighbours_stay_in_one_series():
    assert score([11, 11]).total == 1


def test_a_fall_breaks_the_series():
    assert score([12, 11]).total == 0


# Ruling "Score": the best cut, so a variant table that rewards cutting is scored right too.
def test_variant_table_that_rewards_cutting_is_scored_as_the_best_cut():
    points = (0, 0, 10, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1)
    variant = StreamsRules(name="cut", boxes=20, bag=RULES.bag, points=points)
    result = score([1, 2, 3, 4], variant)
    assert result.total == 20  # cut 1 2 | 3 4, not one run of 4 (1 point)
    assert [(s.start, s.end) for s in result.series] == [(1, 2), (3, 4)]


def _brute_force(cells, points, low=1, high=30):
    """Tries every cut and every value of the wild: the definition, slowly."""
    options = [range(low, high + 1) if c == WILD else [c] for c in cells]
    best = 0
    for values in itertools.product(*options):
        for mask in range(2 ** (len(values) - 1)):
            total, start = 0, 0
            for i in range(1, len(values) + 1):
                if i == len(values) or mask >> (i - 1) & 1:
                    run = values[start:i]
                    if any(a > b for a, b in zip(run, run[1:])):
                        break
                    total += points[len(run)]
                    start = i
            else:
                best = max(best, total)
    return best


tile = st.one_of(st.integers(1, 30), st.just(WILD))
small_rows = st.lists(st.integers(1, 30), min_size=1, max_size=8).flatmap(
    lambda row: st.tuples(st.just(row), st.integers(0, len(row)), st.booleans())
).map(lambda t: t[0][: t[1]] + [WILD] + t[0][t[1]:] if t[2] else t[0])


@settings(max_examples=150, deadline=None)
@given(small_rows)
def test_score_equals_brute_force_best_cut(cells):
    assert score(cells).total == _brute_force(cells, RULES.points)


@settings(max_examples=80, deadline=None)
@given(small_rows, st.lists(st.integers(0, 40), min_size=9, max_size=9))
def test_score_equals_brute_force_for_any_table(cells, tail):
    points = tuple([0] + tail + [0] * 11)
    variant = StreamsRules(name="cut", boxes=20, bag=RULES.bag, points=points)
    assert score(cells, variant).total == _brute_force(cells, points)


@given(st.permutations(list(RULES.bag)), st.integers(0, 19))
def test_a_sorted_sheet_scores_300(bag, wild_at):
    numbers = sorted(t for t in bag[:20] if t != WILD)
    cells = numbers[:wild_at] + [WILD] + numbers[wild_at:] if len(numbers) < 20 else numbers
    assert score(cells).total == 300


@settings(max_examples=200)
@given(st.lists(st.integers(1, 30), min_size=2, max_size=20), st.data())
def test_the_wild_never_scores_less_than_a_fixed_value(row, data):
    at = data.draw(st.integers(0, len(row) - 1))
    with_wild = row[:at] + [WILD] + row[at + 1:]
    wild_score = score(with_wild)
    assert all(wild_score.total >= score(row[:at] + [v] + row[at + 1:]).total for v in range(1, 31))
    # The reported value reaches the best score, and no smaller value does.
    v = wild_score.wild_value
    assert score(row[:at] + [v] + row[at + 1:]).total == wild_score.total
    assert all(score(row[:at] + [u] + row[at + 1:]).total < wild_score.total for u in range(1, v))


# Ruling "A filled sheet is valid": exactly the drawn tiles, as a multiset.
def test_sheet_with_exactly_the_drawn_tiles_in_any_order_is_valid():
    drawn = draw("7KQ2M9XD")
    assert check_tiles(list(reversed(drawn)), drawn) == []


def test_sheet_with_a_tile_that_was_not_drawn_is_rejected():
    drawn = list(draw("7KQ2M9XD"))
    cells = list(drawn)
    cells[6] = 30  # 6 was drawn, 30 was not
    problems = check_tiles(cells, drawn)
    assert {p.rule for p in problems} == {"streams/drawn-tiles"}
    assert any("box 7 holds 30, which was not drawn" in p.message for p in problems)
    assert any("the drawn 6 is missing" in p.message for p in problems)


def test_sheet_without_the_drawn_wild_names_it():
    drawn = [WILD] + list(draw("7KQ2M9XD"))[1:]
    cells = [11] + drawn[1:]
    assert [p.message for p in check_tiles(cells, drawn)] == [
        "box 1 holds 11, which was not drawn", "the drawn wild is missing from the sheet"]


def test_sheet_with_a_number_twice_that_was_drawn_once_is_rejected():
    drawn = list(draw("7KQ2M9XD"))
    cells = list(drawn)
    cells[1] = 11  # box 2 held 3; 11 was drawn once (box 1)
    messages = [p.message for p in check_tiles(cells, drawn)]
    assert "boxes 1 and 2 hold 11, but it was drawn once" in messages


# Ruling: with no seed and no draw, only the bag can be checked.
def test_bag_only_check_accepts_what_the_bag_holds():
    cells = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 11, 12, 12, 13, 13, 30, 29, 28, WILD]
    assert check_tiles(cells, None) == []


def test_bag_only_check_rejects_two_of_a_single_number():
    cells = [5, 5] + list(range(11, 20)) + list(range(20, 29))
    problems = check_tiles(cells, None)
    assert [p.rule for p in problems] == ["streams/bag"]
    assert problems[0].message == "boxes 1 and 2 hold 5, but the bag has one 5"


def test_bag_only_check_rejects_three_of_a_double_number():
    cells = [11, 11, 11] + list(range(1, 10)) + list(range(20, 28))
    assert [p.rule for p in check_tiles(cells, None)] == ["streams/bag"]


def test_a_draw_list_the_bag_cannot_produce_breaks_a_rule():
    drawn = list(draw("7KQ2M9XD"))
    drawn[0] = 3  # 3 twice
    problems = check_draw(drawn)
    assert [p.rule for p in problems] == ["streams/draw"]
    assert "turns 1, 2" in problems[0].message


# Ruling "Claimed scores": every mismatch reported, the computed score is authoritative.
SPEC_CELLS = [4, 3, 6, 5, 1, 7, 15, 11, 13, 15, 17, 16, 18, 8, 23, 20, 25, 27, 28, 24]
RIGHT_CUT = [ClaimedSeries(2, 3, 1), ClaimedSeries(5, 7, 3), ClaimedSeries(8, 11, 5), ClaimedSeries(12, 13, 1),
             ClaimedSeries(14, 15, 1), ClaimedSeries(16, 19, 5)]


def test_right_claims_pass():
    assert check_claims(SPEC_CELLS, score(SPEC_CELLS), RIGHT_CUT, 16) == []


def test_wrong_total_is_reported():
    problems = check_claims(SPEC_CELLS, score(SPEC_CELLS), None, 18)
    assert [(p.rule, p.message) for p in problems] == [
        ("streams/claim-total", "the claimed total is 18, but the sheet scores 16")]


def test_wrong_points_for_a_series_are_reported():
    claims = list(RIGHT_CUT)
    claims[1] = ClaimedSeries(5, 7, 4)
    problems = check_claims(SPEC_CELLS, score(SPEC_CELLS), claims, 16)
    assert [p.rule for p in problems] == ["streams/claim-points"]
    assert "boxes 5-7" in problems[0].message and "scores 3" in problems[0].message


def test_a_claimed_series_that_is_not_ascending_is_reported():
    claims = [ClaimedSeries(1, 3, 3)] + RIGHT_CUT[1:]  # 4 3 6, and the rest of the best cut
    problems = check_claims(SPEC_CELLS, score(SPEC_CELLS), claims, None)
    assert [p.rule for p in problems] == ["streams/claim-series", "streams/claim-cut"]
    assert "4 3 6" in problems[0].message
    assert problems[1].message == ("the claimed series score 15 together (the series not ascending counted as 0), "
                                   "but the best cut scores 16")


def test_a_claimed_series_not_ascending_is_also_held_to_the_table():
    # docs/reference/formats/streams-sheet.md: a claimed series is right when it is ascending *and* its points
    # follow the table.
    claims = [ClaimedSeries(1, 3, 5)] + RIGHT_CUT[1:]  # 4 3 6 claimed for 5; three boxes score 3
    problems = check_claims(SPEC_CELLS, score(SPEC_CELLS), claims, None)
    assert [p.rule for p in problems] == ["streams/claim-series", "streams/claim-points", "streams/claim-cut"]
    assert problems[1].message == "claimed series 1 (boxes 1-3) claims 5 points, but a series of 3 scores 3"


def test_a_series_not_ascending_where_the_best_cut_scores_nothing_breaks_only_its_own_rule():
    cells = [20, 10] + SPEC_CELLS[2:]  # boxes 1-4 fall: the best cut scores nothing there either
    claims = [ClaimedSeries(1, 2, 1)] + RIGHT_CUT[1:]
    assert [p.rule for p in check_claims(cells, score(cells), claims, None)] == ["streams/claim-series"]


def test_a_claimed_cut_that_misses_points_is_reported():
    claims = RIGHT_CUT[:-1]  # forgot the last series
    problems = check_claims(SPEC_CELLS, score(SPEC_CELLS), claims, 11)
    rules = sorted(p.rule for p in problems)
    assert rules == ["streams/claim-cut", "streams/claim-total"]


def test_overlapping_claims_are_reported():
    claims = [ClaimedSeries(2, 3, 1), ClaimedSeries(3, 4, 1)]
    assert "streams/claim-series" in {p.rule for p in check_claims(SPEC_CELLS, score(SPEC_CELLS), claims, None)}


def test_a_claimed_series_may_use_the_wild_as_one_value():
    cells = [5, 12, WILD, 14] + list(range(20, 30)) + [1, 2, 3, 4, 6, 7]
    result = score(cells)
    claims = [ClaimedSeries(1, 14, 50), ClaimedSeries(15, 20, 9)]
    assert check_claims(cells, result, claims, 59) == []
