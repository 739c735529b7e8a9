"""paperplay.streetcar.referee: the verdicts on board states and game logs (the turns themselves are
test_streetcar_game.py's, the placement rules test_streetcar_rules.py's)."""

from __future__ import annotations

import json

import pytest

from conftest import DATA

from paperplay.errors import InputError
from paperplay.streetcar.referee import StateResult, StreetcarLogResult, verify, verify_state


def test_state_stop_signs(write_json):
    tile = {"at": [5, 3], "tile": "straight", "rotation": 90}
    other = {"at": [7, 3], "tile": "straight", "rotation": 90}
    base = {"game": "streetcar", "board": "standard"}
    # One tile touches L: it has the sign without saying so.
    assert verify_state({**base, "tiles": [tile]}, "s").stop_signs["L"] == (5, 3)
    # Two touch L: the state must say which.
    with pytest.raises(InputError, match="stop_signs has no entry for L"):
        verify_state({**base, "tiles": [tile, other]}, "s")
    ok = verify_state({**base, "tiles": [tile, other], "stop_signs": {"L": [7, 3]}}, "s")
    assert ok.valid and ok.stop_signs["L"] == (7, 3)
    far = verify_state({**base, "tiles": [tile], "stop_signs": {"L": [5, 2]}}, "s")
    assert [p.rule for p in far.problems] == ["streetcar/stop-sign"] and "not orthogonally next to L" in far.problems[
        0
    ].message
    empty = verify_state({**base, "tiles": [tile], "stop_signs": {"L": [6, 4]}}, "s")
    assert [p.rule for p in empty.problems] == ["streetcar/stop-sign"] and "empty" in empty.problems[0].message
    assert [p.square for p in far.problems + empty.problems] == [(5, 2), (6, 4)]


def test_state_rules_and_tile_counts():
    crossings = [{"at": [r, 6], "tile": "crossing", "rotation": 0} for r in range(1, 6)]
    bad = verify_state({"game": "streetcar", "tiles": crossings}, "s")
    assert "streetcar/tile-count" in [p.rule for p in bad.problems]  # five crossings; the game has four
    good = verify_state({"game": "streetcar", "tiles": [{"at": [5, 0], "tile": "straight", "rotation": 90}]}, "s")
    assert good.valid and good.tiles == 1
    off = verify_state({"game": "streetcar", "tiles": [{"at": [3, 0], "tile": "straight", "rotation": 90}]}, "s")
    assert [p.rule for p in off.problems] == ["streetcar/A"]
    assert off.to_json()["problems"][0]["square"] == [3, 0]  # each problem at one square names it


def test_verify_tells_a_log_from_a_state():
    state = verify({"game": "streetcar", "tiles": [{"at": [5, 0], "tile": "straight", "rotation": 90}]}, "s")
    assert isinstance(state, StateResult) and state.to_json()["kind"] == "state"
    log = verify(json.loads((DATA / "streetcar-game.json").read_text(encoding="utf-8")), "log", DATA)
    assert isinstance(log, StreetcarLogResult) and log.to_json()["kind"] == "log"
