"""Sequence Numbers as the rest of paperplay sees it (see paperplay.games): draw, kit and referee."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paperplay.errors import Verdict
from paperplay.i18n import translator
from paperplay.render.model import Document
from paperplay.seeds import display_code, full_code, game_code
from paperplay.sequence.rules import Board, Card, make_board, make_deck, number_set, number_set_name, standard_rules

NUMBERS = "1-48"
LEVEL = "mixed"


@dataclass(frozen=True)
class SequenceDraw:
    """What a seed deals: the board and the deck order (top first)."""

    seed: str
    numbers: str
    level: str
    board: Board
    deck: tuple[Card, ...]

    def to_json(self) -> dict[str, Any]:
        return {"game": "sequence", "seed": self.seed, "numbers": self.numbers, "level": self.level,
                "board": [list(row) for row in self.board], "deck": [card.text for card in self.deck]}

    def text_lines(self) -> list[str]:
        from paperplay.sequence.pages import deck_card_numbers

        code = display_code(game_code("sequence", self.seed))
        lines = [f"Sequence Numbers board for seed {display_code(self.seed)} (game code {code}), "
                 f"numbers {self.numbers}, level {self.level}",
                 "      " + " ".join(f"{c:>4}" for c in range(len(self.board)))]
        for r, row in enumerate(self.board):
            lines.append(f"  {r:>2}  " + " ".join(f"{'FREE' if v is None else v:>4}" for v in row))
        lines.append("Deck order, top first (card number as printed, then the card):")
        for position, (card, number) in enumerate(zip(self.deck, deck_card_numbers(self.deck)), start=1):
            lines.append(f"  {position:>3}. #{number:<4} {card.text}")
        return lines


def draw(seed: str, options: dict[str, Any]) -> SequenceDraw:
    """The board and deck order a canonical seed deals (options: numbers, level). From Python,
    find_game("sequence").draw checks the seed and options first."""
    numbers = options.get("numbers")
    values = number_set(NUMBERS if numbers is None else numbers)  # "" is refused, not the default
    level = options.get("level") or LEVEL
    return SequenceDraw(seed, number_set_name(values), level, make_board(seed, values), make_deck(seed, values, level))


def kit(seed: str, options: dict[str, Any]) -> Document:
    """The kit of a canonical seed: organiser's page, board, cards, chips and rules (options as
    find_game("sequence").kit takes them, already checked)."""
    from paperplay.sequence.pages import kit_document

    players = options.get("players")
    if players is not None:
        standard_rules().player_count(players)  # 2, 3, 4 or 6: else one line naming --players
    dealt = draw(seed, options)
    return kit_document(seed, full_code("sequence", seed), dealt.board, dealt.deck, dealt.numbers, dealt.level,
                        options.get("paper") or "a4", bool(options.get("poster")), bool(options.get("ink_saver")),
                        options.get("back_offset") or (0.0, 0.0), t=translator(options.get("lang")), players=players)


def verify(data: Any, source: str, folder: Path | None = None) -> Verdict:
    """Referees a parsed Sequence Numbers position, or a game log when it has turns (`folder` unused)."""
    from paperplay.sequence.referee import verify as verify_record

    return verify_record(data, source, folder)


def ranking(verdicts: Sequence[Verdict]) -> None:
    """Records of this game are not ranked against each other (each game log has its own winner)."""
    return None
