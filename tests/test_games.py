"""The game registry: every entry is complete, the CLI and the referee are driven by it, and a new
game needs nothing but its package and its entry."""

from __future__ import annotations

import sys
import types
from dataclasses import dataclass
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
