"""Track on a Streetcar board: tiles as laid, and placement rules A-D, exchanges and stop signs.

A board's layout maps squares to placed tiles. Rules are checked per square and are symmetric:
checking every tile of a layout checks the whole board (docs/reference/rulings.md, Streetcar: Placement).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache

from paperplay.errors import Problem
from paperplay.streetcar.data import Board, Edge, Piece, Square, Terminal, TileKind, tile_kinds

ROTATIONS = (0, 90, 180, 270)
STEP = {Edge.N: (-1, 0), Edge.E: (0, 1), Edge.S: (1, 0), Edge.W: (0, -1)}
SIDE_WORD = {Edge.N: "north", Edge.E: "east", Edge.S: "south", Edge.W: "west"}


def opposite(edge: Edge) -> Edge:
    return Edge((edge + 2) % 4)


def neighbour(square: Square, edge: Edge) -> Square:
    dr, dc = STEP[edge]
    return (square[0] + dr, square[1] + dc)


def name(square: Square) -> str:
    return f"[{square[0]}, {square[1]}]"


@dataclass(frozen=True)
class Placed:
    """A tile kind in one rotation: its track pieces, their ends, and where each entry edge leads."""

    kind: TileKind
    rotation: int
    pieces: frozenset[Piece]
    ends: frozenset[Edge]
    exits: tuple[tuple[Edge, ...], ...]  # indexed by entry edge

    def __repr__(self) -> str:
        return f"placed({self.kind.id!r}, {self.rotation})"

    def to_json(self, square: Square) -> dict[str, object]:
        return {"at": list(square), "tile": self.kind.id, "rotation": self.rotation}


@cache
def kinds_by_id() -> dict[str, TileKind]:
    return {kind.id: kind for kind in tile_kinds()}


@cache
def placed(tile: str, rotation: int) -> Placed:
    """The tile kind `tile` turned clockwise by `rotation` degrees (0, 90, 180 or 270)."""
    kind = kinds_by_id()[tile]
    pieces = frozenset(kind.pieces_at(rotation))
    exits = tuple(tuple(sorted(e for piece in pieces if entry in piece for e in piece if e != entry))
                  for entry in Edge)
    return Placed(kind, rotation, pieces, frozenset(e for piece in pieces for e in piece), exits)


def orientations(tile: str) -> list[Placed]:
    """Every distinct way to lay a tile kind (a straight has two, a crossing one)."""
    seen: dict[frozenset[Piece], Placed] = {}
    for rotation in ROTATIONS:
        p = placed(tile, rotation)
        seen.setdefault(p.pieces, p)
    return list(seen.values())


class Geometry:
    """What never changes during a game: which squares exist, hold locations, or touch terminals."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.locations: dict[Square, str] = {sq: letter for letter, sq in board.locations.items()}
        self.ports: dict[tuple[Square, Edge], Terminal] = {}
        for terminal in board.terminals:
            for square in terminal.squares:
                self.ports[(square, terminal.side)] = terminal
        self.touching: dict[str, tuple[Square, ...]] = {
            letter: tuple(n for e in Edge if self.buildable(n := neighbour(sq, e)))
            for letter, sq in board.locations.items()}
        self.beside: dict[Square, tuple[str, ...]] = {}
        for letter, squares in self.touching.items():
            for sq in squares:
                self.beside[sq] = self.beside.get(sq, ()) + (letter,)

    def on_board(self, square: Square) -> bool:
        return 0 <= square[0] < self.board.rows and 0 <= square[1] < self.board.cols

    def buildable(self, square: Square) -> bool:
        return self.on_board(square) and square not in self.locations

    def squares(self) -> Iterator[Square]:
        for r in range(self.board.rows):
            for c in range(self.board.cols):
                if (r, c) not in self.locations:
                    yield (r, c)


_GEOMETRIES: dict[int, Geometry] = {}


def geometry(board: Board) -> Geometry:
    """The board's Geometry, made once per board object (a Board holds a dict, so it cannot be a cache key)."""
    geo = _GEOMETRIES.get(id(board))
    if geo is None or geo.board is not board:
        if len(_GEOMETRIES) > 64:
            _GEOMETRIES.clear()
        geo = _GEOMETRIES[id(board)] = Geometry(board)
    return geo


Layout = Mapping[Square, Placed]


def faults_at(geo: Geometry, layout: Layout, square: Square) -> list[Problem]:
    """Every way the tile on `square` breaks rules A-D against its neighbours and the board edge."""
    tile = layout[square]
    where = name(square)
    if square in geo.locations:
        # Rule B: no track may be built on a location.
        return [
            Problem("streetcar/B", f"a tile lies on {where}, which is location {geo.locations[square]}", square=square)
        ]
    problems = []
    for edge in Edge:
        has = edge in tile.ends
        side = SIDE_WORD[edge]
        other = neighbour(square, edge)
        if not geo.on_board(other):
            terminal = geo.ports.get((square, edge))
            if terminal is None and has:
                # Rule A: track may leave the board only into a terminal.
                problems.append(
                    Problem(
                        "streetcar/A",
                        f"the {tile.kind.id} on {where} leads off the board on its {side} "
                        "edge, where there is no terminal",
                        square=square,
                    )
                )
            elif terminal is not None and not has:
                # Rule C: the terminal's track leads into this square and must be met.
                problems.append(
                    Problem(
                        "streetcar/C",
                        f"the {tile.kind.id} on {where} does not meet the track of line "
                        f"{terminal.line} terminal {terminal.number} on its {side} edge",
                        square=square,
                    )
                )
        elif other in geo.locations:
            if has:
                # Rule B: track may not lead into a location.
                problems.append(Problem("streetcar/B", f"the {tile.kind.id} on {where} leads into location "
                                             f"{geo.locations[other]} on its {side} edge", square=square))
        elif other in layout:
            theirs = opposite(edge) in layout[other].ends
            if has and not theirs:
                # Rule D: track may not lead into a tile edge without track.
                problems.append(
                    Problem(
                        "streetcar/D",
                        f"the {tile.kind.id} on {where} leads {side} into the "
                        f"{layout[other].kind.id} on {name(other)}, which has no track there",
                        square=square,
                    )
                )
            elif theirs and not has:
                # Rule C: every track end leading into the square must be met.
                problems.append(
                    Problem(
                        "streetcar/C",
                        f"the {tile.kind.id} on {where} does not meet the track of the "
                        f"{layout[other].kind.id} on {name(other)} on its {side} edge",
                        square=square,
                    )
                )
    return problems


def exchange_faults(old: Placed, new: Placed, square: Square) -> list[Problem]:
    """What forbids replacing `old` with `new` on `square`, apart from rules A-D."""
    problems = []
    where = name(square)
    if old.kind.trees:
        # Tiles with trees may never be replaced.
        problems.append(
            Problem("streetcar/trees", f"the {old.kind.id} on {where} has trees and may not be replaced", square=square)
        )
    lost = old.pieces - new.pieces
    if not lost and new.pieces == old.pieces:
        # An exchange is an upgrade: laying the same track again changes nothing on the board.
        problems.append(
            Problem(
                "streetcar/exchange",
                f"the {new.kind.id} on {where} adds no track to the {old.kind.id} "
                "it replaces; an exchange must add track",
                square=square,
            )
        )
    elif lost:
        # An exchange keeps every track piece of the old tile.
        piece = sorted(lost, key=lambda p: sorted(p))[0]
        ends = "-".join(e.name for e in sorted(piece))
        problems.append(Problem("streetcar/exchange", f"the {new.kind.id} at {new.rotation}° on {where} drops the "
                                            f"{ends} track of the {old.kind.id} it replaces", square=square))
    return problems


def play_faults(geo: Geometry, layout: dict[Square, Placed], square: Square, tile: Placed) -> list[Problem]:
    """Checks laying `tile` on `square` (an empty square, or an exchange); leaves `layout` as it was."""
    if not geo.on_board(square):
        return [Problem("streetcar/A", f"{name(square)} is off the board")]
    old = layout.get(square)
    problems = exchange_faults(old, tile, square) if old is not None else []
    layout[square] = tile
    try:
        problems += faults_at(geo, layout, square)
    finally:
        if old is None:
            del layout[square]
        else:
            layout[square] = old
    return problems


def double_exchange_faults(geo: Geometry, layout: dict[Square, Placed],
                          plays: tuple[tuple[Square, Placed], tuple[Square, Placed]]) -> list[Problem]:
    """Checks two side-by-side exchanges on the final configuration only (docs/reference/rulings.md: double
    exchange)."""
    olds = [(sq, layout[sq]) for sq, _ in plays]
    problems = [p for (sq, new), (_, old) in zip(plays, olds) for p in exchange_faults(old, new, sq)]
    for sq, new in plays:
        layout[sq] = new
    try:
        for sq, _ in plays:
            problems += faults_at(geo, layout, sq)
    finally:
        for sq, old in olds:
            layout[sq] = old
    return problems


def side_by_side(a: Square, b: Square) -> bool:
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1


def signs_for(geo: Geometry, square: Square, stop_signs: Mapping[str, Square]) -> list[str]:
    """The locations whose stop sign a tile newly laid on `square` gets: those beside it still without one."""
    return [letter for letter in geo.beside.get(square, ()) if letter not in stop_signs]


def legal_plays(geo: Geometry, layout: dict[Square, Placed], hand: list[str],
                squares: Iterable[Square] | None = None) -> Iterator[tuple[Square, Placed]]:
    """Every legal single play from a hand: each tile, each rotation, each empty square (of `squares`,
    default all), each exchange."""
    kinds = sorted(set(hand))
    candidates = [p for tile in kinds for p in orientations(tile)]
    for square in geo.squares() if squares is None else sorted(sq for sq in squares if geo.on_board(sq)):
        old = layout.get(square)
        if old is not None and old.kind.trees:
            continue
        for tile in candidates:
            if old is not None and not old.pieces < tile.pieces:
                continue
            if not play_faults(geo, layout, square, tile):
                yield square, tile


Play = tuple[Square, Placed]


def double_exchanges(geo: Geometry, layout: dict[Square, Placed], hand: list[str]) -> Iterator[tuple[Play, Play]]:
    """Every legal double exchange from a hand: two side-by-side tiles, each replaced by a hand tile
    that keeps all its track and adds some, judged together on the final configuration (docs/reference/rulings.md:
    Exchange). Pairs legal one by one are included."""
    candidates = [p for tile in sorted(set(hand)) for p in orientations(tile)]
    upgrades = {sq: [t for t in candidates if old.pieces < t.pieces]
                for sq, old in layout.items() if not old.kind.trees}
    have = Counter(hand)
    for a in sorted(upgrades):
        for b in ((a[0] + 1, a[1]), (a[0], a[1] + 1)):
            for new_a in upgrades[a] if b in upgrades else ():
                for new_b in upgrades[b]:
                    if Counter((new_a.kind.id, new_b.kind.id)) - have:
                        continue
                    if not double_exchange_faults(geo, layout, ((a, new_a), (b, new_b))):
                        yield (a, new_a), (b, new_b)


def play_and_another(geo: Geometry, layout: dict[Square, Placed], hand: list[str]) -> tuple[Play, Play] | None:
    """Finds a single play and then a second one that a turn could make from `layout` and `hand`, if
    any (the tile an exchange returns joins the hand). A play's legality depends only on its square's
    neighbours, so a second play away from the first is one that was legal before it: each kind's
    legal plays are found once, and after each first play only its square and neighbours are tried
    again (bounded: one scan of the board per kind, then five squares per first play)."""
    found: dict[str, list[Play]] = {}

    def anywhere(kind: str) -> list[Play]:
        if kind not in found:
            found[kind] = list(legal_plays(geo, layout, [kind]))
        return found[kind]

    for square, tile in [play for kind in sorted(set(hand)) for play in anywhere(kind)]:
        old = layout.get(square)
        rest = list(hand)
        rest.remove(tile.kind.id)
        if old is not None:
            rest.append(old.kind.id)
        near = {square} | {neighbour(square, edge) for edge in Edge}
        second = next(((sq, t) for kind in sorted(set(rest)) for sq, t in anywhere(kind) if sq not in near), None)
        if second is None:
            layout[square] = tile
            try:
                second = next(legal_plays(geo, layout, rest, near), None)
            finally:
                if old is None:
                    del layout[square]
                else:
                    layout[square] = old
        if second is not None:
            return (square, tile), second
    return None
