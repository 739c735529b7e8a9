"""Streetcar's facts, loaded from templates/streetcar/ into frozen dataclasses: board, tiles, cards."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from functools import cache

from paperplay.resources import load_template

Square = tuple[int, int]


class Edge(enum.IntEnum):
    """Tile edges, clockwise from the top; rotating a tile by 90° turns N into E."""

    N = 0
    E = 1
    S = 2
    W = 3

    def rotated(self, degrees: int) -> Edge:
        return Edge((self + degrees // 90) % 4)


Piece = frozenset[Edge]


@dataclass(frozen=True)
class Terminal:
    line: int
    number: int
    side: Edge
    squares: tuple[Square, Square]


@dataclass(frozen=True)
class Board:
    rows: int
    cols: int
    locations: dict[str, Square]
    terminals: tuple[Terminal, ...]

    def terminals_of(self, line: int) -> tuple[Terminal, ...]:
        return tuple(t for t in self.terminals if t.line == line)

    def terminal(self, line: int, number: int) -> Terminal | None:
        return next((t for t in self.terminals if (t.line, t.number) == (line, number)), None)


@dataclass(frozen=True)
class TileKind:
    id: str
    pieces: tuple[Piece, ...]
    count: int
    trees: bool

    def pieces_at(self, rotation: int) -> tuple[Piece, ...]:
        return tuple(frozenset(e.rotated(rotation) for e in piece) for piece in self.pieces)


@dataclass(frozen=True)
class LineStyle:
    line: int
    colour: str
    pattern: str


def board_from_json(data: dict) -> Board:
    """Builds a Board from the JSON shape of templates/streetcar/standard-board.json."""
    return Board(
        rows=data["size"][0],
        cols=data["size"][1],
        locations={k: (v[0], v[1]) for k, v in data["locations"].items()},
        terminals=tuple(Terminal(t["line"], t["number"], Edge[t["side"]],
                                 ((t["squares"][0][0], t["squares"][0][1]), (t["squares"][1][0], t["squares"][1][1])))
                        for t in data["terminals"]),
    )


@cache
def standard_board() -> Board:
    return board_from_json(load_template("streetcar/standard-board.json"))


@cache
def tile_kinds() -> tuple[TileKind, ...]:
    """The 12 tile kinds in the order of the table of docs/reference/rulings.md."""
    data = load_template("streetcar/tiles.json")
    return tuple(TileKind(t["id"], tuple(frozenset(Edge[e] for e in p) for p in t["pieces"]), t["count"], t["trees"])
                 for t in data["tiles"])


@cache
def starting_hand() -> dict[str, int]:
    return dict(load_template("streetcar/tiles.json")["starting_hand"])


@cache
def route_cards(card_set: int) -> tuple[tuple[tuple[str, ...], ...], ...]:
    """Route cards of a set (2 or 3 stops): card -> line -> stops as printed, in order."""
    data = load_template("streetcar/route-cards.json")
    return tuple(tuple(tuple(stops) for stops in card) for card in data["sets"][str(card_set)])


@cache
def lines() -> tuple[int, ...]:
    """The line cards of the game (1-6), as the route cards list them."""
    return tuple(load_template("streetcar/route-cards.json")["lines"])


@cache
def card_sets() -> tuple[int, ...]:
    """The route-card sets, by stops per card (2 and 3)."""
    return tuple(sorted(int(k) for k in load_template("streetcar/route-cards.json")["sets"]))


@cache
def line_styles() -> dict[int, LineStyle]:
    data = load_template("streetcar/route-cards.json")
    return {s["line"]: LineStyle(s["line"], s["colour"], s["pattern"]) for s in data["line_styles"]}


def line_style(line: int) -> LineStyle:
    """A line's colour and pattern: the game's own for lines 1-6; a custom board's other lines (up to
    99) pair one line's colour with another line's pattern, so that lines 7-36 all look different
    (their number is printed on them too)."""
    styles = line_styles()
    if line in styles:
        return styles[line]
    table = [styles[k] for k in sorted(styles)]
    index = line - 1
    colour = table[index % len(table)].colour
    pattern = table[(index % len(table) + index // len(table)) % len(table)].pattern
    return LineStyle(line, colour, pattern)
