"""paperplay.streams.referee: sheet files read, their draw found (a seed, a recorded draw or the bag
alone), each sheet refereed and described, and sheets ranked. The scoring itself is
test_streams_rules.py's."""

from __future__ import annotations

import pytest

from conftest import SPEC_SHEET
from paperplay.errors import ExitCode, InputError
from paperplay.streams.referee import CheckedAgainst, ranking, referee, sheet_from_json


@pytest.mark.parametrize("fields, against, said", [
    ({}, CheckedAgainst.SEED, "checked against the draw of seed 7KQ2-M9XD"),
    ({"seed": None, "draw": [11, 3, 5, 17, 27, 25, 6, 4, 13, 15, 16, 1, 28, 15, 7, 18, 23, 8, 20, 24]},
     CheckedAgainst.DRAW, "checked against the recorded draw"),
    ({"seed": None, "code": None}, CheckedAgainst.BAG, "checked against the bag only (no seed or draw given)"),
])
def test_a_sheet_is_checked_against_its_seed_its_draw_or_the_bag(fields, against, said):
    data = {k: v for k, v in {**SPEC_SHEET, **fields}.items() if v is not None}
    result = referee(sheet_from_json(data, "ann.json"))
    assert result.valid and result.exit_code is ExitCode.VALID and result.checked_against is against
    assert result.to_json()["checked_against"] == against.value  # the JSON holds the plain word
    head, series = result.text_lines()[:2]
    assert head == f"ann.json (Ann): 16 points, valid; {said}" and series.startswith("  series (boxes, length, points)")


def test_a_broken_sheet_names_its_rule_in_its_lines():
    cells = [3] + SPEC_SHEET["cells"][1:]  # 4 replaced by a 3 the seed drew once, now twice
    data = {k: v for k, v in SPEC_SHEET.items() if k != "claimed_total"} | {"cells": cells}
    result = referee(sheet_from_json(data, "ann.json"))
    assert not result.valid and result.exit_code is ExitCode.RULE_BROKEN
    assert any(line.startswith("  x streams/") for line in result.text_lines())


def test_a_seed_that_disagrees_with_the_sheets_own_is_an_input_error():
    with pytest.raises(InputError, match="seed"):
        referee(sheet_from_json(SPEC_SHEET, "ann.json"), seed="OTHER")


# Ruling "Ranking": highest total wins; equal totals share the place.
def test_ranking_shares_places_and_skips_the_next():
    rows = [
        {"file": "a", "player": "Ann", "valid": True, "total": 20},
        {"file": "b", "player": "Bob", "valid": True, "total": 31},
        {"file": "c", "player": "Cy", "valid": True, "total": 31},
        {"file": "d", "player": None, "valid": True, "total": 5},
        {"file": "e", "player": "Eve", "valid": False, "total": 99},
    ]
    assert ranking(rows) == [
        {"place": 1, "player": "Bob", "total": 31},
        {"place": 1, "player": "Cy", "total": 31},
        {"place": 3, "player": "Ann", "total": 20},
        {"place": 4, "player": "d", "total": 5},
    ]
