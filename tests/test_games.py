"""The game registry: every entry is complete, the CLI and the referee are driven by it, and a new
game needs nothing but its package and its entry."""

from __future__ import annotations

import json
import sys
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from paperplay import games, referee
from paperplay.errors import InputError, Problem, Verdict
from paperplay.games import GAMES, GameInfo, find_game, schema_names
from paperplay.render.model import PAPER_SIZES
from paperplay.resources import schema_text


@pytest.mark.parametrize("game", GAMES, ids=[g.name for g in GAMES])
def test_every_entry_is_complete(game):
    module = game.module()
    assert all(callable(getattr(module, name, None)) for name in ("draw", "kit", "verify"))
    assert all(schema_text(name) for name in game.schemas)
    assert set(game.papers) <= set(PAPER_SIZES)
    assert game.draw_options <= game.kit_options | {"players", "set", "numbers", "level", "variant"}


def test_find_game_names_the_field():
    assert find_game("streetcar").title == "Streetcar"
    with pytest.raises(InputError) as caught:
        find_game("chess")
    assert caught.value.field == "game" and "streams, streetcar, sequence" in str(caught.value)


def test_schema_lists_every_games_schemas(cli):
    listed = cli("schema").stdout.split()
    assert listed == schema_names() and "streetcar-log" in listed and "sequence-position" in listed


def test_options_of_another_game_are_refused_naming_the_game_they_belong_to(cli, tmp_path):
    cases = [("kit", "sequence", "--set", "3"), ("kit", "streams", "--back-offset", "99,99"),
             ("draw", "streams", "--players", "9"), ("draw", "streams", "--set", "7"),
             ("draw", "streetcar", "--numbers", "foo")]
    for command, game, option, value in cases:
        result = cli(command, game, "--seed", "S", option, value, "--out" if command == "kit" else "--json",
                     *([str(tmp_path / "k.pdf")] if command == "kit" else []))
        assert result.exit_code == 2 and result.stderr.startswith(f"paperplay: error: {option}: does not apply"), \
            result.stderr
        assert result.stderr.count("\n") == 1
    assert not (tmp_path / "k.pdf").exists()
    assert cli("kit", "streams", "--paper", "a3", "--out", str(tmp_path / "k.pdf")).exit_code == 2


def test_the_cli_offers_the_registrys_games(cli):
    assert "[streams|streetcar|sequence]" in cli("kit", "--help").stdout
    call_help = cli("call", "--help").stdout
    assert "[streams]" in call_help and "streetcar" not in call_help


@dataclass(frozen=True)
class _CoinVerdict(Verdict):
    source: str
    problems: tuple[Problem, ...]

    def to_json(self) -> dict[str, Any]:
        return {"file": self.source, "valid": self.valid}

    def text_lines(self) -> list[str]:
        return [f"{self.source}: {'heads' if self.valid else 'tails'}"]


def test_a_new_game_is_one_package_and_one_entry(monkeypatch, tmp_path):
    api = types.ModuleType("coinflip_api")

    def verify(data: Any, source: str, folder: Any = None) -> Verdict:
        problems = () if data["side"] == "heads" else (Problem("coinflip/side", "tails never wins"),)
        return _CoinVerdict(source, problems)

    api.verify = verify  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "coinflip_api", api)
    entry = GameInfo("coinflip", "Coin flip", "coinflip_api", (), frozenset(), frozenset())
    monkeypatch.setattr(games, "GAMES", (*GAMES, entry))
    monkeypatch.setattr(games, "GAME_NAMES", (*games.GAME_NAMES, "coinflip"))
    monkeypatch.setattr(referee, "GAME_NAMES", games.GAME_NAMES)
    assert referee.verify_record({"game": "coinflip", "side": "heads"}, "flip").valid
    record = tmp_path / "flip.json"
    record.write_text('{"game": "coinflip", "side": "tails"}', encoding="utf-8")
    [outcome] = referee.referee_files([record])
    assert outcome.code == 1 and outcome.game == "coinflip" and outcome.verdict.problems[0].rule == "coinflip/side"


# Used from Python: find_game(name).draw / .kit check the seed and every option as the CLI does.


def test_the_registrys_docstring_examples_run():
    import doctest

    assert doctest.testmod(games).failed == 0


def test_a_draw_from_python_is_the_cli_draw_and_referees_its_own_sheet(cli):
    streams = find_game("streams")
    dealt = streams.draw("7kq2m9xd")
    shown = json.loads(cli("draw", "streams", "--seed", "7KQ2-M9XD", "--json").stdout)
    assert dealt.seed == "7KQ2M9XD" and dealt.to_json()["draw"] == shown["draw"]
    record = {"game": "streams", "seed": "7kq2-m9xd", "cells": dealt.to_json()["draw"]}
    assert streams.module().verify(record, "x.json").valid  # the sheet of exactly the draw
    assert find_game("streetcar").draw("a", players=3, set=3).to_json()["players"] == 3


@pytest.mark.parametrize(("game", "options", "field", "words"), [
    ("streams", {"names": "Ann,Bob"}, "names", "a list of names"),
    ("streams", {"names": []}, "names", "a list of names"),
    ("streetcar", {"html": "caller.html"}, "html", "does not apply to kit streetcar (it is for Streams)"),
    ("streams", {"paper": "zz"}, "paper", "a4 or letter"),
    ("streams", {"paper": "a3"}, "paper", "a4 or letter"),
    ("streams", {"players": "3"}, "players", "a whole number"),
    ("streams", {"players": 2.5}, "players", "a whole number"),
    ("streams", {"players": True}, "players", "a whole number"),
    ("streams", {"variant": 5}, "variant", "variant"),
    ("streams", {"ink_saver": True}, "ink_saver", "does not apply"),
    ("streams", {"html": "caller.html"}, "html", "command line"),
    ("streams", {"scannable": True, "lang": "da"}, "lang", "English only"),
    ("streams", {"lang": "fr"}, "lang", "en or da or de"),
    ("sequence", {"numbers": 48}, "numbers", "a text"),
    ("sequence", {"players": "2"}, "players", "a whole number"),
    ("sequence", {"players": 5}, "players", "2, 3, 4, 6"),
    ("sequence", {"level": "zzz"}, "level", "add-sub"),
    ("sequence", {"back_offset": 5}, "back_offset", "(x, y)"),
    ("sequence", {"back_offset": (9, 0)}, "back_offset", "at most 5 mm"),
    ("sequence", {"back_offset": (float("nan"), 0)}, "back_offset", "(x, y)"),
    ("streetcar", {"set": "2"}, "set", "a whole number"),
    ("streetcar", {"bogus": 1}, "bogus", "its options are back_offset, ink_saver"),
])
def test_a_bad_option_from_python_is_an_input_error_naming_it(game, options, field, words):
    with pytest.raises(InputError) as caught:
        find_game(game).kit("7KQ2-M9XD", **options)
    assert caught.value.field == field
    assert str(caught.value).startswith(f"option {field}: ") and words in str(caught.value)


@pytest.mark.parametrize("seed", [None, 123, "", "-- --", "x" * 33])
def test_a_bad_seed_from_python_is_an_input_error(seed):
    with pytest.raises(InputError, match="seed") as caught:
        find_game("sequence").draw(seed)
    assert caught.value.field == "seed"


def test_good_options_from_python_make_the_kit():
    doc = find_game("sequence").kit("A", numbers="0-47", players=6, back_offset=[1, -0.5], ink_saver=True,
                                    lang="de", poster=True, paper="A4")
    assert len(doc.pages) > 20 and doc.pages[0].width == 210
    assert len(find_game("streams").kit("A", names=["Ann", " Bob "]).pages) == 4  # caller, tiles, two sheets


def test_rendering_leaves_reportlabs_settings_as_they_were(tmp_path):
    from reportlab import rl_config

    from paperplay.render.pdf import write_pdf

    before = rl_config.useA85
    path = tmp_path / "kit.pdf"
    size = write_pdf(find_game("streams").kit("A", players=1), str(path))  # a path may be a str
    assert rl_config.useA85 == before and path.stat().st_size == size
    assert path.read_bytes().count(b"ASCII85Decode") == 0  # paperplay's own streams are binary


def test_an_edited_variant_file_is_read_again(tmp_path):
    import os

    from paperplay.streams.rules import standard_rules

    path = tmp_path / "short.json"
    base = standard_rules()
    variant = {"variant": "short", "boxes": 15, "bag": [{"value": t, "count": 1} for t in range(1, 31)],
               "points": list(base.points[:16])}
    path.write_text(json.dumps(variant))
    assert len(find_game("streams").draw("A", variant=path).tiles) == 15
    variant.update(boxes=13, points=list(base.points[:14]))
    path.write_text(json.dumps(variant))
    os.utime(path, ns=(1, 1))  # a different stamp even where the clock is coarse
    assert len(find_game("streams").draw("A", variant=str(path)).tiles) == 13
    path.unlink()
    with pytest.raises(InputError, match="no such file"):
        find_game("streams").draw("A", variant=str(path))


def test_the_referee_takes_paths_as_text(tmp_path):
    import shutil
    from pathlib import Path

    shutil.copy(Path(__file__).parents[1] / "docs" / "examples" / "ann.json", tmp_path / "ann.json")
    outcome, = referee.referee_files([str(tmp_path / "ann.json")])
    assert outcome.error is None and outcome.verdict is not None
    record = json.loads((tmp_path / "ann.json").read_text())
    again = referee.verify_record(record, str(tmp_path / "ann.json"), str(tmp_path))
    assert again.to_json() == outcome.verdict.to_json()


def test_a_games_verify_refuses_another_games_record_saying_whose_it_is():
    sheet = json.loads((Path(__file__).parents[1] / "docs" / "examples" / "ann.json").read_text())
    assert find_game("streams").verify(sheet, "ann.json").valid
    for other in ("sequence", "streetcar"):
        with pytest.raises(InputError, match=r"ann.json: is a 'streams' record, not a .* one \(field game\)"):
            find_game(other).verify(sheet, "ann.json")
