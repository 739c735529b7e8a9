"""The Streetcar referee: the verdicts on a game log (replayed turn by turn by `game.Game`) and on a board
state (every tile against rules A-D), see the
Streetcar file formats in docs/reference/formats/."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paperplay.errors import IllegalAction as Illegal
from paperplay.errors import Problem, Verdict
from paperplay.messages import counted
from paperplay.seeds import seed_field
from paperplay.streetcar.data import Square
from paperplay.streetcar.game import Game, read_log
from paperplay.streetcar.state import board_problems, state_from_json
from paperplay.streetcar.track import name


@dataclass(frozen=True)
class StateResult(Verdict):
    """The verdict on a board state."""

    source: str
    tiles: int
    stop_signs: dict[str, Square]
    problems: tuple[Problem, ...]

    def to_json(self) -> dict[str, Any]:
        return {"file": self.source, "game": "streetcar", "kind": "state", "valid": self.valid, "tiles": self.tiles,
                "stop_signs": {k: list(v) for k, v in sorted(self.stop_signs.items())},
                "problems": [p.to_json() for p in self.problems]}

    def text_lines(self) -> list[str]:
        signs = ", ".join(f"{k} {name(v)}" for k, v in sorted(self.stop_signs.items())) or "none"
        head = f"{self.source}: Streetcar board, {self.tiles} tiles, " + (
            "every tile obeys rules A-D" if self.valid else f"{len(self.problems)} problem(s)")
        return [head, f"  stop signs: {signs}", *(f"  x {p.rule}: {p.message}" for p in self.problems)]


def verify_state(data: Any, source: str, folder: Path | None = None) -> StateResult:
    """Checks a state: every tile obeys rules A-D, stop signs lie right, tile counts are not exceeded."""
    state, problems = state_from_json(data, source, folder)
    problems += board_problems(state)
    return StateResult(source, len(state.layout), state.stop_signs, tuple(problems))


@dataclass(frozen=True)
class StreetcarLogResult(Verdict):
    """The verdict on a game log: the first illegal action (with its turn and player), or the winner."""

    source: str
    turns: int
    winner: str | None
    problems: tuple[Problem, ...]
    summary: dict[str, Any]
    seed: str | None = None
    """The canonical seed that dealt the game, if one did (the command line notes a short one)."""

    @property
    def problem(self) -> Problem | None:
        return self.problems[0] if self.problems else None

    @property
    def problem_turn(self) -> int | None:
        return self.problems[0].turn if self.problems else None

    @property
    def problem_player(self) -> str | None:
        return self.problems[0].player if self.problems else None

    def to_json(self) -> dict[str, Any]:
        return {"file": self.source, "game": "streetcar", "kind": "log", "valid": self.valid, "turns": self.turns,
                "winner": self.winner, "summary": self.summary, "problems": [p.to_json() for p in self.problems]}

    def text_lines(self) -> list[str]:
        s = self.summary
        if self.problems:
            p = self.problems[0]
            return [f"{self.source}: Streetcar game, NOT VALID at turn {p.turn} ({p.player}), rule {p.rule}: "
                    f"{p.message}"]
        head = f"{self.source}: Streetcar game, {counted(self.turns, 'turn')}, " + (
            f"{self.winner} wins" if self.winner else "no winner yet")
        seats = "; ".join(f"{p['player']} line {p['line']} ({'-'.join(p['stops'])})" for p in s["players"])
        return [head, f"  {seats}",
                f"  {counted(s['tiles_laid'], 'tile')} laid ({s['exchanges']} by exchange), "
                f"{counted(s['moves'], 'move')}, {counted(len(s['stop_signs']), 'stop sign')} out"]


def verify_log(data: Any, source: str, folder: Path | None = None) -> StreetcarLogResult:
    """Reads a whole game log, then replays it; stops at the first illegal action."""
    log = read_log(data, source, folder)
    game = log.game
    problems: tuple[Problem, ...] = ()
    for number, turn in enumerate(log.turns, start=1):
        try:
            game.play(turn)
        except Illegal as exc:
            problems = (exc.problem.at(number, turn.player),)
            break
    seed = seed_field(data["seed"], source) if "seed" in data else None  # read_log took the log as an object
    return StreetcarLogResult(source, game.turn, game.winner, problems, summary(game), seed)


def summary(game: Game) -> dict[str, Any]:
    return {
        "players": [{"player": p.name, "line": p.line, "stops": list(p.stops), "running": p.running,
                     "spaces_moved": p.moved} for p in game.players],
        "tiles_laid": game.laid,
        "exchanges": game.exchanges,
        "moves": game.moves,
        "stop_signs": {k: list(v) for k, v in sorted(game.stop_signs.items())},
        "tiles_on_board": len(game.layout),
    }


def verify(data: Any, source: str, folder: Path | None = None) -> Verdict:
    """A Streetcar record is a game log when it has turns, otherwise a board state."""
    if isinstance(data, dict) and "turns" in data:
        return verify_log(data, source, folder)
    return verify_state(data, source, folder)
