"""Streetcar as the rest of paperplay sees it (see paperplay.games): draw, kit and referee."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paperplay.errors import Verdict
from paperplay.i18n import translator
from paperplay.render.model import Document
from paperplay.seeds import display_code, full_code, game_code
from paperplay.streetcar.deal import Seat, bag, deal

KIT_PLAYERS = 4
SET = 2


@dataclass(frozen=True)
class StreetcarDraw:
    """What a seed deals: each seat's line and route card, and the bag in draw order."""

    seed: str
    card_set: int
    seats: tuple[Seat, ...]
    bag: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"game": "streetcar", "seed": self.seed, "players": len(self.seats), "set": self.card_set,
                "seats": [s.to_json() for s in self.seats], "bag": list(self.bag)}

    def text_lines(self) -> list[str]:
        lines = [f"Streetcar deal for seed {display_code(self.seed)} (game code "
                 f"{display_code(game_code('streetcar', self.seed))}), {len(self.seats)} players, "
                 f"{self.card_set}-stop route cards"]
        lines += [f"  seat {s.seat}: line {s.line}, route card {s.route_card}: {' - '.join(s.stops)}"
                  for s in self.seats]
        lines.append(f"Bag order ({len(self.bag)} tiles, drawn from the front):")
        for start in range(0, len(self.bag), 6):
            lines.append("  " + ", ".join(f"{start + i + 1}. {t}" for i, t in enumerate(self.bag[start:start + 6])))
        return lines


def _shape(options: dict[str, Any]) -> tuple[int, int]:
    players = options.get("players")
    card_set = options.get("set")
    return (KIT_PLAYERS if players is None else players), (SET if card_set is None else card_set)


def draw(seed: str, options: dict[str, Any]) -> StreetcarDraw:
    """Each seat's line and route card and the bag order a canonical seed deals (options: players, set).
    From Python, find_game("streetcar").draw checks the seed and options first."""
    players, card_set = _shape(options)
    return StreetcarDraw(seed, card_set, deal(seed, players, card_set), tuple(bag(seed, players)))


def kit(seed: str, options: dict[str, Any]) -> Document:
    """The kit of a canonical seed: deal pages, board, cards, tiles, pieces and rules (options as
    find_game("streetcar").kit takes them, already checked)."""
    from paperplay.streetcar.pages import kit_document

    players, card_set = _shape(options)
    seats = deal(seed, players, card_set)
    return kit_document(seed, full_code("streetcar", seed), seats, card_set, options.get("paper") or "a4",
                        bool(options.get("ink_saver")), options.get("back_offset") or (0.0, 0.0),
                        t=translator(options.get("lang")))


def verify(data: Any, source: str, folder: Path | None = None) -> Verdict:
    """A Streetcar record is a game log when it has turns, otherwise a board state."""
    from paperplay.streetcar.referee import verify as verify_record

    return verify_record(data, source, folder)


def ranking(verdicts: Sequence[Verdict]) -> None:
    """Records of this game are not ranked against each other (each game log has its own winner)."""
    return None
