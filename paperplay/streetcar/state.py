"""Streetcar board states (docs/reference/formats/streetcar-state.md): reading boards and states, resolving
stop signs, finding the tiles that break rules A-D."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paperplay.errors import InputError, Problem
from paperplay.jsonfile import read_json, validate
from paperplay.messages import shorten
from paperplay.streetcar.data import Board, Edge, Square, board_from_json, standard_board
from paperplay.streetcar.track import Geometry, Placed, faults_at, geometry, kinds_by_id, name, neighbour, placed


def _check_board(board: Board, source: str) -> None:
    """Finds what makes a board unusable: squares off it, terminals not on their side, lines without two."""
    size = f"{board.rows}x{board.cols}"
    on = lambda sq: 0 <= sq[0] < board.rows and 0 <= sq[1] < board.cols  # noqa: E731
    for letter, sq in sorted(board.locations.items()):
        if not on(sq):
            raise InputError(f"{source}: field board.locations.{letter} is {list(sq)}, off the {size} board")
    taken = {sq: letter for letter, sq in board.locations.items()}
    if len(taken) < len(board.locations):
        raise InputError(f"{source}: field board.locations puts two locations on one square")
    ports: set[tuple[Square, Edge]] = set()
    lines: dict[int, list[int]] = {}
    for i, t in enumerate(board.terminals):
        where = f"{source}: field board.terminals[{i}]"
        a, b = t.squares
        if abs(a[0] - b[0]) + abs(a[1] - b[1]) != 1:
            raise InputError(f"{where}.squares are {list(a)} and {list(b)}; expected two neighbouring squares")
        for sq in t.squares:
            if not on(sq) or on(neighbour(sq, t.side)):
                raise InputError(f"{where}.squares holds {list(sq)}, which is not on the board's "
                                 f"{t.side.name} border")
            if sq in taken:
                raise InputError(f"{where}.squares holds {list(sq)}, which is location {taken[sq]}")
            if (sq, t.side) in ports:
                raise InputError(f"{where}: two terminals lead into {list(sq)} from the {t.side.name}")
            ports.add((sq, t.side))
        lines.setdefault(t.line, []).append(t.number)
    for line, numbers in sorted(lines.items()):
        if sorted(numbers) != [1, 2]:
            raise InputError(f"{source}: field board.terminals gives line {line} terminals {sorted(numbers)}; "
                             "expected terminals 1 and 2")


MAX_BOARD_BYTES = 1_000_000


def board_file(value: str, source: str, folder: Path | None) -> Path:
    """The path of a board file named by a record: relative to the record's folder and inside it.

    Absolute paths, `..`, NUL and characters that cannot be file names are refused, and the path
    may not lead out of the folder through a symbolic link.
    """
    where = f"{source}: field board is {shorten(value, 60)!r}"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(f"{where}; expected a file name (it holds a lone surrogate)") from None
    if "\0" in value or not value.strip():
        raise InputError(f"{where}; expected \"standard\", a board, or a file name")
    relative = Path(value)
    if relative.is_absolute() or value.startswith(("/", "\\")) or ".." in relative.parts or ".." in value.split("\\"):
        raise InputError(f"{where}; expected a board file relative to the record's folder, inside it "
                         "(no absolute path, no ..)")
    base = (folder or Path(".")).resolve()
    path = base / relative
    try:
        inside = path.resolve().is_relative_to(base)
        exists = path.exists()
    except (OSError, RuntimeError) as exc:  # a name too long, a loop of links
        raise InputError(f"{where}; it is not a usable file name ({getattr(exc, 'strerror', None) or exc})") from None
    if not inside:
        raise InputError(f"{where}; it leads out of the record's folder {base}")
    if not exists:
        raise InputError(f"{where}, which does not exist; board files are found relative to the record's folder")
    return path


def load_board(value: Any, source: str, folder: Path | None) -> Board:
    """The board a record names: "standard", a board file (relative to the record's folder), or inline."""
    if value is None or value == "standard":
        return standard_board()
    if isinstance(value, str):
        path = board_file(value, source, folder)
        try:
            data = read_json(path, max_bytes=MAX_BOARD_BYTES)
        except InputError as exc:
            raise InputError(f"{source}: field board names {value!r}: {exc}") from None
        validate(data, "streetcar-board", str(path))
        board = board_from_json(data)
        _check_board(board, str(path))
        return board
    board = board_from_json(value)
    _check_board(board, source)
    return board


def tile_at(entry: Mapping[str, Any], where: str, source: str, geo: Geometry) -> tuple[Square, Placed]:
    """Reads {"at", "tile", "rotation"}: an unknown tile or a square off the board cannot be used."""
    if entry["tile"] not in kinds_by_id():
        raise InputError(f"{source}: field {where}.tile is {entry['tile']!r}; expected one of "
                         f"{', '.join(kinds_by_id())}")
    square = (entry["at"][0], entry["at"][1])
    if not geo.on_board(square):
        raise InputError(f"{source}: field {where}.at is {list(square)}, off the "
                         f"{geo.board.rows}x{geo.board.cols} board")
    return square, placed(entry["tile"], entry["rotation"])


@dataclass
class BoardState:
    """Tiles as they lie on a board, and the square of each stop sign."""

    geo: Geometry
    layout: dict[Square, Placed]
    stop_signs: dict[str, Square]


def state_from_json(data: Any, source: str, folder: Path | None = None) -> tuple[BoardState, list[Problem]]:
    """Reads a state file; returns the state and the stop-sign problems found while placing the signs."""
    validate(data, "streetcar-state", source)
    geo = geometry(load_board(data.get("board"), source, folder))
    layout: dict[Square, Placed] = {}
    for i, entry in enumerate(data["tiles"]):
        square, tile = tile_at(entry, f"tiles[{i}]", source, geo)
        if square in layout:
            raise InputError(f"{source}: field tiles[{i}].at is {list(square)}, which already holds a tile")
        layout[square] = tile
    given = data.get("stop_signs", {})
    problems: list[Problem] = []
    signs: dict[str, Square] = {}
    for letter, sq in sorted(given.items()):
        if letter not in geo.board.locations:
            raise InputError(f"{source}: field stop_signs.{letter}: the board has no location {letter}; "
                             f"expected one of {', '.join(sorted(geo.board.locations))}")
        square = (sq[0], sq[1])
        if square not in geo.touching[letter]:
            problems.append(
                Problem(
                    "streetcar/stop-sign",
                    f"the stop sign for {letter} is on {name(square)}, which is not "
                    f"orthogonally next to {letter} at {name(geo.board.locations[letter])}",
                    square=square,
                )
            )
        elif square not in layout:
            problems.append(
                Problem("streetcar/stop-sign", f"the stop sign for {letter} is on {name(square)}, which is empty",
                        square=square)
            )
        signs[letter] = square
    for letter in sorted(geo.board.locations):
        if letter in signs:
            continue
        beside = [sq for sq in geo.touching[letter] if sq in layout]
        if len(beside) == 1:
            signs[letter] = beside[0]
        elif len(beside) > 1:
            raise InputError(f"{source}: field stop_signs has no entry for {letter}, and {len(beside)} tiles touch it "
                             f"({', '.join(name(s) for s in beside)}); say which one has its stop sign")
    return BoardState(geo, layout, signs), problems


def count_problems(layout: Mapping[Square, Placed]) -> list[Problem]:
    """Tiles of a kind beyond the number the game has."""
    counts = Counter(tile.kind.id for tile in layout.values())
    kinds = kinds_by_id()
    return [Problem("streetcar/tile-count", f"the board holds {n} {tile} tiles; the game has only {kinds[tile].count}")
            for tile, n in sorted(counts.items()) if n > kinds[tile].count]


def board_problems(state: BoardState) -> list[Problem]:
    """Every tile's breaks of rules A-D, square by square, and tile counts exceeded."""
    problems = [p for square in sorted(state.layout) for p in faults_at(state.geo, state.layout, square)]
    return problems + count_problems(state.layout)
