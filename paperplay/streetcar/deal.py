"""The seeded Streetcar deal (docs/reference/seeds.md): line and route cards per seat, and the bag order."""

from __future__ import annotations

from dataclasses import dataclass

from paperplay.errors import InputError
from paperplay.seeds import shuffled
from paperplay.streetcar.data import card_sets, lines, route_cards, starting_hand, tile_kinds

MIN_PLAYERS, MAX_PLAYERS = 2, 6


@dataclass(frozen=True)
class Seat:
    """What one seat is dealt: a line card and a route card (with that line's stops on it)."""

    seat: int
    line: int
    route_card: int
    stops: tuple[str, ...]

    def to_json(self) -> dict[str, object]:
        return {"seat": self.seat, "line": self.line, "route_card": self.route_card, "stops": list(self.stops)}


def check_players(players: int) -> None:
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise InputError(f"is {players}; Streetcar is played by {MIN_PLAYERS}-{MAX_PLAYERS}", field="players")


def check_set(card_set: int) -> None:
    if card_set not in card_sets():
        raise InputError(f"is {card_set}; expected " + " or ".join(f"{n} ({n}-stop route cards)" for n in card_sets()),
                         field="set")


def deal(seed: str, players: int, card_set: int = 2) -> tuple[Seat, ...]:
    """Deals line cards (label streetcar/lines) and route cards (streetcar/routes) to the seats."""
    check_players(players)
    check_set(card_set)
    dealt = shuffled(list(lines()), "streetcar/lines", seed)
    sets = route_cards(card_set)
    cards = shuffled(list(range(1, len(sets) + 1)), "streetcar/routes", seed)
    return tuple(Seat(i + 1, dealt[i], cards[i], sets[cards[i] - 1][dealt[i] - 1]) for i in range(players))


def bag(seed: str, players: int) -> list[str]:
    """The bag in draw order (label streetcar/tiles): every tile id by its count, in the order of the
    tile table (docs/reference/rulings.md), less the starting hands taken from the front of their ids'
    runs, shuffled."""
    check_players(players)
    hand = starting_hand()
    tiles: list[str] = []
    for kind in tile_kinds():
        tiles.extend([kind.id] * (kind.count - hand.get(kind.id, 0) * players))
    return shuffled(tiles, "streetcar/tiles", seed)
