"""A Streams variant is one data file: tests/data/streams-variant-big.json (another bag, 24 boxes,
a table that rewards cutting) prints, draws, scores and simulates with no code of its own."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import DATA, SPEC_SHEET
from paperplay.errors import InputError
from paperplay.render.model import QR, Text
from paperplay.render.pdf import render_bytes
from paperplay.resources import template_path
from paperplay.seeds import Rng, game_code, shuffled
from paperplay.streams.coach.playout import Scorer, unseen_counts
from paperplay.streams.coach.strategies import GapStrategy, play_game, strategy
from paperplay.streams.lab import game_seed, simulate
from paperplay.streams.pages import kit_document, sheets_document, tiles_page
from paperplay.streams.rules import (
    EMPTY, WILD, check_draw, draw, load_rules, score, standard_rules, tile_from_json, tile_json,
)
from paperplay.streams.referee import parse_tiles, referee, sheet_from_json

VARIANT_FILE = DATA / "streams-variant-big.json"
VARIANT = load_rules(str(VARIANT_FILE))
SEED = "7KQ2M9XD"


def test_the_variant_file_loads_into_rules():
    assert (VARIANT.name, VARIANT.boxes, VARIANT.series_boxes) == ("test-big-bag", 24, 12)
    assert (VARIANT.lowest, VARIANT.highest, len(VARIANT.bag)) == (1, 40, 51)
    counts = Counter(VARIANT.bag)
    assert counts[WILD] == 1 and counts[20] == 2 and counts[40] == 1
    assert VARIANT.points[2] * 2 > VARIANT.points[4]  # two pairs beat a series of four
    assert load_rules(None) is load_rules("standard") is standard_rules()
    assert standard_rules().series_boxes == 10
    # The shipped game.json has the variant shape (standard_rules skips the schema for speed).
    assert load_rules(str(template_path("streams/game.json"))) == standard_rules()


@pytest.mark.parametrize("change, message", [
    ({"points": [0, 0, 1]}, "field points has 3 entries; expected 25"),
    ({"bag": [{"value": 0, "count": 1}, {"value": 2, "count": 20}]}, "field bag[0].value is 0"),
    ({"bag": [{"value": "*", "count": 2}, {"value": 2, "count": 20}, {"value": 3, "count": 20}]}, "2 wilds"),
    ({"bag": [{"value": 3, "count": 20}, {"value": 3, "count": 20}]}, "lists twice"),
    ({"bag": [{"value": 1, "count": 5}, {"value": 2, "count": 5}]}, "holds 10 tiles; expected at least 24"),
    ({"bag": [{"value": 1, "count": 20}]}, "field bag has 1 entry; expected the bag in canonical order (the seeded "
                                           "draw shuffles it in this order): at least 2 values"),
    ({"boxes": 40}, "field boxes is 40"),
    ({"variant": "Big Bag"}, "field variant is \"Big Bag\""),
    ({"colour": "red"}, "unknown field 'colour'"),
])
def test_a_bad_variant_file_is_an_input_error_naming_file_and_field(tmp_path, change, message):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(json.loads(VARIANT_FILE.read_text()) | change), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_rules(str(path))
    assert message in str(caught.value) and str(path) in str(caught.value)


def test_unknown_variant_names_and_missing_files():
    with pytest.raises(InputError, match="unknown Streams variant 'nosuch'; expected one of standard"):
        load_rules("nosuch")
    with pytest.raises(InputError, match="nosuch.json: no such file"):
        load_rules("nosuch.json")


# -- prints ----------------------------------------------------------------------------------------


def _texts(items) -> list[Text]:
    return [i for i in items if isinstance(i, Text)]


def test_sheets_follow_the_variant():
    doc = sheets_document(game_code("streams", SEED), 2, ["Ann"], rules=VARIANT)
    (form,) = doc.forms.values()
    texts = _texts(form)
    box_numbers = [t.text for t in texts if t.size == 7 and t.color == "#555555"]
    assert box_numbers == [str(n) for n in range(1, 25)]  # the train has 24 boxes
    assert [t.text for t in texts if t.size == 5] == [str(n) for n in range(1, 13)]  # 12 series boxes
    points_row = [t.text for t in texts if t.size == 8 and t.bold]
    assert points_row == ["Series length", "Points"] + [str(p) for p in VARIANT.points[1:]]
    right = max(t.x for t in texts)
    assert right < doc.pages[0].width  # everything on the page
    qrs = [i for i in doc.pages[0].items if isinstance(i, QR)]
    assert qrs[0].payload.endswith("sheet=1/2 variant=test-big-bag")
    assert any("variant test-big-bag" in t for t in doc.texts(doc.pages[0]))
    assert render_bytes(doc).startswith(b"%PDF")


def test_the_standard_sheet_is_unchanged_by_the_rules_object():
    doc = sheets_document("P2QPHGPH", 1)
    (form,) = doc.forms.values()
    assert [t.text for t in _texts(form) if t.size == 5] == [str(n) for n in range(1, 11)]
    assert not any("variant" in t for t in doc.texts(doc.pages[0]))
    assert sheets_document("P2QPHGPH", 1, rules=standard_rules()) == doc


def test_the_kit_prints_the_variant_draw_and_bag():
    drawn = draw(SEED, VARIANT)
    doc = kit_document(SEED, game_code("streams", SEED), drawn, 3, rules=VARIANT)
    caller, tiles, *sheets = doc.pages
    assert len(sheets) == 3
    assert [t.text for t in _texts(caller.items) if t.text.startswith("turn ")] == [f"turn {n}" for n in range(1, 25)]
    payload = next(i for i in caller.items if isinstance(i, QR)).payload
    assert f"draw={','.join(map(str, map(tile_json, drawn)))}" in payload and "variant=test-big-bag" in payload
    numbers = [t.text for t in _texts(tiles.items) if t.size > 12 and t.text.isdigit()]
    assert Counter(map(int, numbers)) == Counter(t for t in VARIANT.bag if t != WILD)  # 50 numbers and a star
    assert "51 tiles for a bag · variant test-big-bag" in doc.texts(tiles)
    assert render_bytes(doc).startswith(b"%PDF")


def test_a_big_bag_gets_smaller_tiles_that_stay_on_the_page():
    big = replace(VARIANT, bag=VARIANT.bag * 2)  # 102 tiles: 13 rows
    page = tiles_page("P2QPHGPH", rules=big)
    tile_texts = [t for t in _texts(page.items) if t.text.isdigit() and t.size > 12]
    assert len(tile_texts) == 100 and max(t.y for t in tile_texts) < page.height - 10


# -- draws -----------------------------------------------------------------------------------------


def test_the_variant_draws_its_box_count_from_its_bag_with_the_streams_label():
    drawn = draw(SEED, VARIANT)
    assert len(drawn) == 24 and check_draw(drawn, VARIANT) == []
    assert list(drawn) == shuffled(list(VARIANT.bag), "streams", SEED)[:24]  # docs/reference/seeds.md, label "streams"
    assert drawn != draw(SEED)[:24]
    assert any(t > 30 for s in ("1", "2", "3", "4") for t in draw(s, VARIANT))


# -- scores ----------------------------------------------------------------------------------------


def test_the_best_cut_uses_the_variant_table():
    result = score([1, 2, 3, 4], VARIANT)
    assert result.total == 12 and [(s.start, s.end) for s in result.series] == [(1, 2), (3, 4)]
    assert score([1, 2, 3, 4]).total == 5  # the standard table: one series of four


def _brute_force(cells, points, low, high):
    options = [range(low, high + 1) if c == WILD else [c] for c in cells]
    best = 0
    for values in itertools.product(*options):
        for mask in range(2 ** (len(values) - 1)):
            cuts = [0] + [i for i in range(1, len(values)) if mask >> (i - 1) & 1] + [len(values)]
            runs = [values[a:b] for a, b in zip(cuts, cuts[1:])]
            if all(all(x <= y for x, y in zip(run, run[1:])) for run in runs):
                best = max(best, sum(points[len(run)] for run in runs))
    return best


variant_rows = st.lists(st.integers(1, 40), min_size=1, max_size=7).flatmap(
    lambda row: st.tuples(st.just(row), st.integers(0, len(row)), st.booleans())
).map(lambda t: t[0][: t[1]] + [WILD] + t[0][t[1]:] if t[2] else t[0])


@settings(max_examples=60, deadline=None)
@given(variant_rows)
def test_variant_score_equals_brute_force_over_cuts(cells):
    assert score(cells, VARIANT).total == _brute_force(cells, VARIANT.points, 1, 40)


def _variant_sheet(**fields):
    drawn = draw(SEED, VARIANT)
    placements, cells = play_game(GapStrategy(VARIANT), drawn, VARIANT, Rng("x", SEED))
    return {"game": "streams", "variant": "test-big-bag", "seed": SEED, "player": "Ann",
            "cells": [tile_json(c) for c in cells], "placements": [b + 1 for b in placements]} | fields


def test_a_variant_sheet_is_refereed_with_its_rules():
    data = _variant_sheet()
    result = referee(sheet_from_json(data, "ann.json", VARIANT))
    cells = [tile_from_json(c) for c in data["cells"]]
    assert result.valid and result.checked_against == "seed"
    assert result.score.total == score(cells, VARIANT).total > 0
    assert result.to_json()["variant"] == "test-big-bag"
    # The standard game's rules would not accept it at all.
    with pytest.raises(InputError, match="field variant is 'test-big-bag', which paperplay does not ship"):
        sheet_from_json(data, "ann.json")
    with pytest.raises(InputError, match="field variant is 'test-big-bag', but the rules given are variant 'standard'"):
        sheet_from_json(data, "ann.json", standard_rules())
    broken = _variant_sheet()
    broken["cells"][0], broken["cells"][1] = broken["cells"][1], broken["cells"][0]
    problems = referee(sheet_from_json(broken, "bob.json", VARIANT)).problems
    assert {p.rule for p in problems} == {"streams/placements"}


@pytest.mark.parametrize("change, message", [
    ({"cells": list(range(1, 21))}, "field cells has 20 entries; expected exactly 24 boxes"),
    ({"cells": [41] + list(range(1, 24))}, "field cells[0] is 41; expected an integer 1-40"),
    ({"placements": list(range(1, 25))[:-1] + [25]}, "field placements[23] is 25"),
])
def test_the_sheet_schema_follows_the_variant_bounds(change, message):
    data = _variant_sheet(**change)
    data.pop("seed")
    with pytest.raises(InputError, match=message.replace("[", r"\[").replace("]", r"\]")):
        sheet_from_json(data, "ann.json", VARIANT)


def test_a_variant_number_above_30_passes_its_schema_but_not_the_standard_one():
    cells = [35] + list(range(1, 24))
    sheet = sheet_from_json({"game": "streams", "cells": cells}, "a.json", VARIANT)
    assert sheet.cells[0] == 35 and referee(sheet).valid
    with pytest.raises(InputError, match="expected an integer 1-30"):
        sheet_from_json({"game": "streams", "cells": cells[:20]}, "a.json")
    assert parse_tiles("35 * _", "--cells", count=None, empty=True, rules=VARIANT) == (35, WILD, EMPTY)
    with pytest.raises(InputError, match="expected an integer 1-30"):
        parse_tiles("35", "--cells", count=None)


# -- simulates -------------------------------------------------------------------------------------


def test_the_coach_plays_the_variant():
    scorer = Scorer(VARIANT)
    assert not scorer.runs_are_best  # the table rewards cutting: the scorer falls back to the best cut
    for name in ("proportional", "gap", "montecarlo:300"):
        for number in (1, 2):
            seed = game_seed("VAR", number)
            placements, cells = play_game(strategy(name, VARIANT), draw(seed, VARIANT), VARIANT, Rng(name, seed))
            assert sorted(placements) == list(range(24)) and EMPTY not in cells
            assert scorer(cells) == score(cells, VARIANT).total
    unseen = unseen_counts(VARIANT, [])
    assert len(unseen) == 41 and unseen[WILD] == 1 and sum(unseen) == 51


def test_simulate_the_variant():
    gap, mc = simulate(["gap", "montecarlo:300"], 4, "VAR", rules=VARIANT)
    assert gap.games == mc.games == 4 and gap.perfect_score == 200
    assert all(0 <= s <= 200 * 2 for s in gap.scores + mc.scores) and gap.mean > 30
    assert gap.scores != simulate(["gap"], 4, "VAR")[0].scores  # the standard game plays other games


# -- the command line ------------------------------------------------------------------------------


def test_cli_advise_simulate_and_review_take_a_variant(cli, write_json):
    cells = " ".join(["35"] + ["_"] * 23)
    result = cli("advise", "--cells", cells, "--tile", "38", "--budget", "2000", "--variant", str(VARIANT_FILE),
                 "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["variant"] == "test-big-bag" and len(doc["cells"]) == 24 and doc["tile"] == 38
    assert cli("advise", "--cells", cells, "--tile", "38").exit_code == 2  # 24 boxes and a 35: not standard

    result = cli("simulate", "--strategy", "gap", "--games", "3", "--variant", str(VARIANT_FILE), "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["variant"] == "test-big-bag" and doc["strategies"][0]["games"] == 3

    sheet = write_json("ann.json", _variant_sheet())
    result = cli("review", str(sheet), "--budget", "500", "--variant", str(VARIANT_FILE), "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert len(doc["turns"]) == 24
    assert doc["total"] == score([tile_from_json(c) for c in _variant_sheet()["cells"]], VARIANT).total


def test_cli_bad_variants_exit_2_naming_the_option(cli, write_json):
    result = cli("simulate", "--strategy", "gap", "--games", "1", "--variant", "nosuch")
    assert result.exit_code == 2 and result.stderr.startswith("paperplay: error: --variant: unknown Streams variant")
    result = cli("review", str(write_json("ann.json", _variant_sheet())))
    assert result.exit_code == 2 and "field variant is 'test-big-bag', which paperplay does not ship" in result.stderr
    assert json.loads(cli("schema", "streams-variant").stdout)["title"] == "Streams rules"


def test_a_shipped_variant_is_found_by_name_and_by_a_sheet_field(tmp_path, monkeypatch):
    import paperplay.streams.rules as rules_module

    folder = tmp_path / "streams" / "variants"
    folder.mkdir(parents=True)
    (folder / "test-big-bag.json").write_text(VARIANT_FILE.read_text(), encoding="utf-8")
    monkeypatch.setattr(rules_module, "template_path", lambda relative: tmp_path / relative)
    assert rules_module.shipped_variants() == ["standard", "test-big-bag"]
    assert load_rules("test-big-bag") == VARIANT
    sheet = sheet_from_json(_variant_sheet(), "ann.json")  # no rules given: the field names them
    assert sheet.rules == VARIANT and referee(sheet).valid
    (folder / "other.json").write_text(VARIANT_FILE.read_text(), encoding="utf-8")
    with pytest.raises(InputError, match="other.json: field variant is 'test-big-bag'; expected 'other'"):
        load_rules("other")


def test_a_standard_sheet_may_name_its_variant(cli, write_json):
    path = write_json("ann.json", SPEC_SHEET | {"variant": "standard"})
    result = cli("verify", str(path), "--json")
    assert result.exit_code == 0 and "variant" not in json.loads(result.stdout)["results"][0]


def test_a_variant_file_may_not_pass_for_the_published_game(tmp_path):
    """Its pages and QR codes would carry no variant name, and --scannable would take it."""
    published = json.loads(template_path("streams/game.json").read_text())
    copy = tmp_path / "copy.json"
    copy.write_text(json.dumps(published))
    assert load_rules(str(copy)) == standard_rules()  # a copy of the published game is that game
    six = tmp_path / "six.json"
    six.write_text(json.dumps({**published, "boxes": 6, "points": published["points"][:7]}))
    with pytest.raises(InputError, match=r"six.json: field variant is 'standard', the published game's name, but its "
                                         r"rules differ from the published game's; give the variant a name of its own"):
        load_rules(str(six))


def test_a_sheet_of_a_bag_without_a_wild_does_not_explain_the_wild():
    from paperplay.streams.pages import sheet_form
    from paperplay.streams.rules import rules_from_data

    nowild = rules_from_data({"variant": "nowild", "boxes": 6, "points": list(range(7)),
                              "bag": [{"value": v, "count": 1} for v in range(1, 9)]}, "nowild.json")
    for rules, wild in ((nowild, False), (standard_rules(), True)):
        texts = " ".join(i.text for i in sheet_form(297, 210, "ABCD2345", rules) if isinstance(i, Text))
        assert ("The wild (*)" in texts) == wild and "Mark your series with lines" in texts



@pytest.mark.parametrize("args, said", [
    (("score", "v.json"), "v.json: is a Streams variant file (fields bag and points), not a sheet; a variant's rules "
                          "are given with --variant v.json"),
    (("verify", "v.json"), "v.json: is a Streams variant file (fields bag and points), not a game record"),
    (("score", "ann.json", "--variant", "ann.json"), "--variant: ann.json: is a Streams sheet, not a variant file"),
    (("sheets", "-n", "1", "--variant", "state.json"), "--variant: state.json: is a 'streetcar' record, not a "
                                                      "variant file"),
    (("verify", "named.json"), "named.json: field variant is 'twelve', which paperplay does not ship; give its "
                               "rules file with --variant (score and review take it: paperplay score named.json "
                               "--variant FILE)"),
])
def test_a_variant_file_and_a_record_given_for_each_other_are_named_as_such(tmp_path, args, said):
    import subprocess
    import sys

    (tmp_path / "v.json").write_text(VARIANT_FILE.read_text())
    (tmp_path / "ann.json").write_text(json.dumps(SPEC_SHEET))
    (tmp_path / "state.json").write_text((DATA / "streetcar-state.json").read_text())
    (tmp_path / "named.json").write_text(json.dumps({**SPEC_SHEET, "variant": "twelve"}))
    result = subprocess.run([sys.executable, "-m", "paperplay", *args], cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 2 and result.stderr.startswith(f"paperplay: error: {said}"), result.stderr


def test_the_plot_axis_reaches_a_big_tables_scores_and_keeps_the_published_games():
    from paperplay.render.model import Text as PageText
    from paperplay.streams.charts import histogram_page, score_axis
    from paperplay.streams.lab import Summary

    published = Summary("gap", tuple(range(10, 140)), 1.0)
    assert score_axis([published]) == (150, 5, 25)
    big = Summary("gap", tuple(range(0, 99_999, 997)), 1.0)
    cap, width, tick = score_axis([big])
    assert (cap, width, tick) == (150_000, 5_000, 25_000)
    assert cap >= sorted(big.scores)[int(0.95 * (len(big.scores) - 1))]
    ticks = [i.text for i in histogram_page([big], "t").items if isinstance(i, PageText) and i.size == 6]
    assert ticks[:2] == ["0", "25000"] and ticks[-1] == "150000+"


def test_a_variants_default_output_names_it(tmp_path):
    import subprocess
    import sys

    (tmp_path / "v.json").write_text(VARIANT_FILE.read_text())
    for command, name in ((["kit", "streams"], "streams-S-test-big-bag-kit.pdf"),
                          (["sheets", "-n", "2"], "streams-S-test-big-bag-sheets.pdf")):
        result = subprocess.run([sys.executable, "-m", "paperplay", *command, "--seed", "S", "--variant", "v.json"],
                                cwd=tmp_path, capture_output=True, text=True)
        assert result.returncode == 0 and (tmp_path / "output" / name).is_file(), result.stderr


def test_draw_of_a_variant_names_it(tmp_path):
    import subprocess
    import sys

    (tmp_path / "v.json").write_text(VARIANT_FILE.read_text())
    args = [sys.executable, "-m", "paperplay", "draw", "streams", "--seed", "S", "--variant", "v.json"]
    text = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True).stdout
    assert text.startswith("Streams (variant test-big-bag) draw for seed S")
    document = json.loads(subprocess.run([*args, "--json"], cwd=tmp_path, capture_output=True, text=True).stdout)
    assert document["variant"] == "test-big-bag" and len(document["draw"]) == 24


def test_a_table_that_scores_single_boxes_shows_them_beside_the_series(cli, write_json):
    variant = write_json("singles.json", {"variant": "singles", "boxes": 6, "points": [0, 5, 6, 7, 8, 9, 10],
                                          "bag": [{"value": v, "count": 1} for v in range(1, 11)]})
    result = cli("score", "--cells", "1 2 3 9 4 10", "--variant", str(variant), "--json")
    document = json.loads(result.stdout)["results"][0]
    in_series = sum(s["length"] for s in document["series"])
    assert document["singles"] == {"boxes": 6 - in_series, "points": (6 - in_series) * 5}
    assert document["total"] == sum(s["points"] for s in document["series"]) + document["singles"]["points"]
    text = cli("score", "--cells", "1 2 3 9 4 10", "--variant", str(variant)).stdout
    assert f"single boxes (in no series): {6 - in_series} × 5 = {(6 - in_series) * 5}" in text
    standard = json.loads(cli("score", "--cells", " ".join(map(str, range(1, 21))), "--json").stdout)
    assert "singles" not in standard["results"][0]


def test_the_top_score_is_one_series_cut_as_the_table_pays_best():
    from paperplay.streams.rules import rules_from_data, top_score

    assert top_score(standard_rules()) == 300
    assert top_score(VARIANT) == score(list(range(1, VARIANT.boxes + 1)), VARIANT).total  # a row in order
    singles = rules_from_data({"variant": "singles", "boxes": 20, "points": [0, 5] + [0] * 19,
                               "bag": [{"value": i, "count": 2} for i in range(1, 21)]}, "singles.json")
    assert top_score(singles) == 100  # twenty single boxes, not the table's last entry (0)
    summary = simulate(["gap"], 5, "LAB", rules=singles)[0]
    assert summary.perfect_score == 100 and summary.to_json()["perfect_score"] == 100
    assert summary.perfect == sum(s >= 100 for s in summary.scores) / 5


def test_the_coach_searches_two_tiles_deep_only_over_a_bounded_number_of_kinds_of_next_tile():
    from paperplay.streams.coach.search import DEPTH2_KINDS, search
    from paperplay.streams.rules import rules_from_data

    def rules_of(values: int) -> object:
        return rules_from_data({"variant": f"v{values}", "boxes": 12, "points": [0] + list(range(1, 13)),
                                "bag": [{"value": v, "count": 1} for v in range(1, values + 1)]}, "v.json")

    for kinds, deep in ((DEPTH2_KINDS, True), (DEPTH2_KINDS + 1, False)):
        rules = rules_of(kinds + 1)
        unseen = unseen_counts(rules, [15])  # the tile in hand is out of the bag
        assert sum(1 for n in unseen if n) == kinds
        # `include` makes a second candidate, so the search goes two tiles deep wherever it may
        advice = search([EMPTY] * 12, 15, unseen, Rng("t", "S"), Scorer(rules), first=2000, reply=200, include=11)
        assert bool(advice.replies) == deep
        assert any(e.depth == 2 for e in advice.estimates) == deep
