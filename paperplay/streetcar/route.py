"""Routes along track: the shortest complete route of a line, and what is missing when there is none.

The car's position is a node: a tile entered through one of its edges, or a terminal entered from
one of its two squares. Cars follow a track piece from end to end, which is exactly the rule
against sharp turns. Search runs breadth-first over (node, stops collected so far, direction),
so every route it finds is a shortest one (docs/reference/rulings.md: Routes and the inaugural run).
`check_route` is the job of `paperplay route`: a board state's file in, the line's answer out.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paperplay.errors import ExitCode, InputError, Problem
from paperplay.jsonfile import read_json
from paperplay.streetcar.data import Board, Edge, Square, Terminal, lines, route_cards
from paperplay.streetcar.deal import check_set
from paperplay.streetcar.state import BoardState, board_file, board_problems, state_from_json
from paperplay.streetcar.track import Geometry, Layout, neighbour


@dataclass(frozen=True)
class Step:
    """One space of a route: a tile entered (with the route's stops counted there), or a terminal."""

    square: Square | None = None
    terminal: Terminal | None = None
    stops: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        if self.terminal is not None:
            return {"terminal": [self.terminal.line, self.terminal.number]}
        assert self.square is not None
        return {"at": list(self.square), "stops": list(self.stops)}

    def text(self) -> str:
        if self.terminal is not None:
            return f"T{self.terminal.line}.{self.terminal.number}"
        assert self.square is not None
        return f"[{self.square[0]},{self.square[1]}]" + ("".join(f"({s})" for s in self.stops))


@dataclass(frozen=True)
class Route:
    """A complete route: the start terminal, every space after it, and its length in spaces."""

    start: Terminal
    steps: tuple[Step, ...]

    @property
    def length(self) -> int:
        return len(self.steps)

    def to_json(self) -> list[dict[str, Any]]:
        return [Step(terminal=self.start).to_json()] + [s.to_json() for s in self.steps]


@dataclass(frozen=True)
class Car:
    """Where a running car is: on a tile entered through `edge`, or in `terminal` having come from
    `square`, with the stops it has made and the terminal it heads for."""

    square: Square
    edge: Edge
    progress: int
    target: Terminal
    terminal: Terminal | None = None


class Network:
    """The track of one layout as a graph of car positions, ready for route searches."""

    def __init__(self, geo: Geometry, layout: Layout, stop_signs: Mapping[str, Square]) -> None:
        self.geo = geo
        self.layout = layout
        self.stop_signs = dict(stop_signs)
        board = geo.board
        self.cols = board.cols
        self.terminals = board.terminals
        self.base = board.rows * board.cols * 4
        self._terminal_index = {t: i for i, t in enumerate(board.terminals)}
        self.succ: dict[int, tuple[int, ...]] = {}
        for square, tile in layout.items():
            for entry in tile.ends:
                self.succ[self.node(square, entry)] = tuple(self._through(square, e) for e in tile.exits[entry])

    def node(self, square: Square, edge: Edge) -> int:
        return (square[0] * self.cols + square[1]) * 4 + edge

    def square_of(self, node: int) -> Square:
        return divmod(node // 4, self.cols)

    def _through(self, square: Square, exit_edge: Edge) -> int:
        """Where leaving `square` by `exit_edge` leads: a tile's entry node, a terminal node, or -1."""
        other = neighbour(square, exit_edge)
        if not self.geo.on_board(other):
            terminal = self.geo.ports.get((square, exit_edge))
            if terminal is None:
                return -1
            return self.base + self._terminal_index[terminal] * 2 + terminal.squares.index(square)
        entry = Edge((exit_edge + 2) % 4)
        tile = self.layout.get(other)
        return self.node(other, entry) if tile is not None and entry in tile.ends else -1

    def car_node(self, car: Car) -> int:
        if car.terminal is not None:
            return self.base + self._terminal_index[car.terminal] * 2 + car.terminal.squares.index(car.square)
        return self.node(car.square, car.edge)

    def entry_from(self, terminal: Terminal, k: int) -> int:
        """The node of entering the terminal's square k from the terminal's loop, or -1 without track."""
        square = terminal.squares[k]
        tile = self.layout.get(square)
        return self.node(square, terminal.side) if tile is not None and terminal.side in tile.ends else -1

    def joined(self, terminal: Terminal) -> bool:
        return any(self.entry_from(terminal, k) >= 0 for k in (0, 1))

    # -- searches ---------------------------------------------------------------------------------

    def shortest(self, line: int, stops: Sequence[str], ordered: bool, start: Terminal | None = None,
                 car: Car | None = None) -> Route | None:
        """The shortest complete route of `line` through the stop signs of `stops`, or None.

        Starts at either terminal, or only at `start`, or from a running `car`; the route ends on
        arriving in the other terminal with every stop made (in printed order when `ordered`).
        """
        ends = self.geo.board.terminals_of(line)
        if len(ends) != 2 or any(s not in self.stop_signs for s in stops):
            return None
        gain = StopProgress(self.stop_signs, stops, ordered)
        full = gain.full
        span = gain.span
        # A state is ((node * span) + progress) * 2 + direction; direction d heads for ends[d].
        parent: dict[int, int] = {}
        queue: deque[int] = deque()

        def push(state: int, before: int) -> None:
            if state not in parent:
                parent[state] = before
                queue.append(state)

        if car is not None:
            d = ends.index(car.target)
            push((self.car_node(car) * span + car.progress) * 2 + d, -1)
        else:
            for d, target in enumerate(ends):
                origin = ends[1 - d]
                if start is not None and origin != start:
                    continue
                for k in (0, 1):
                    entry = self.entry_from(origin, k)
                    if entry >= 0:
                        push((entry * span + gain.after(0, self.square_of(entry))) * 2 + d, -1)
        base = self.base
        while queue:
            state = queue.popleft()
            d = state & 1
            node, progress = divmod(state >> 1, span)
            if node >= base:  # in a terminal, passing through it to its other square
                t, k = divmod(node - base, 2)
                terminal = self.terminals[t]
                if terminal == ends[d] and progress == full:
                    return self._route(parent, state, span, gain, ends, d, car)
                entry = self.entry_from(terminal, 1 - k)
                if entry >= 0:
                    push((entry * span + gain.after(progress, self.square_of(entry))) * 2 + d, state)
                continue
            for nxt in self.succ.get(node, ()):
                if nxt < 0:
                    continue
                after = progress if nxt >= base else gain.after(progress, self.square_of(nxt))
                push((nxt * span + after) * 2 + d, state)
        return None

    def _route(self, parent: dict[int, int], state: int, span: int, gain: StopProgress, ends: tuple[Terminal, ...],
               d: int, car: Car | None) -> Route:
        chain = []
        while state >= 0:
            chain.append(state)
            state = parent[state]
        chain.reverse()
        steps = []
        progress = car.progress if car is not None else 0
        for i, st in enumerate(chain):
            node, after = divmod(st >> 1, span)
            if car is not None and i == 0:
                continue
            if node >= self.base:
                steps.append(Step(terminal=self.terminals[(node - self.base) // 2]))
            else:
                steps.append(Step(square=self.square_of(node), stops=gain.made(progress, after)))
            progress = after
        return Route(ends[1 - d], tuple(steps))


MAX_STOPS = 6
"""The most stops a route may be asked for (route cards name 2 or 3). The search keeps a state for
every set of stops made, 2 to the power of their number: 6 take about a second on a 40×40 board."""


class StopProgress:
    """How entering a square advances the stops made: a bit mask of them, or (ordered variant) how
    many of them, in printed order. Every stop must have its stop sign. Routes and moves share it."""

    def __init__(self, stop_signs: Mapping[str, Square], stops: Sequence[str], ordered: bool) -> None:
        if len(stops) > MAX_STOPS:
            raise ValueError(f"{len(stops)} stops; at most {MAX_STOPS} (a route card names 2 or 3)")
        self.stops = tuple(stops)
        self.ordered = ordered
        self.squares = tuple(stop_signs[s] for s in stops)
        self.full = len(stops) if ordered else (1 << len(stops)) - 1
        self.span = self.full + 1
        self.masks: dict[Square, int] = {}
        for i, sq in enumerate(self.squares):
            self.masks[sq] = self.masks.get(sq, 0) | (1 << i)

    def after(self, progress: int, square: Square) -> int:
        if self.ordered:
            while progress < len(self.squares) and self.squares[progress] == square:
                progress += 1
            return progress
        return progress | self.masks.get(square, 0)

    def made(self, before: int, after: int) -> tuple[str, ...]:
        if self.ordered:
            return self.stops[before:after]
        return tuple(s for i, s in enumerate(self.stops) if after >> i & 1 and not before >> i & 1)


@dataclass(frozen=True)
class RouteAnswer:
    """The answer of `paperplay route`: complete or not, one shortest route, and what is missing."""

    line: int
    stops: tuple[str, ...]
    ordered: bool
    route: Route | None
    missing: tuple[str, ...]

    @property
    def complete(self) -> bool:
        return self.route is not None

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "stops": list(self.stops), "ordered": self.ordered, "complete": self.complete,
                "length": self.route.length if self.route else None,
                "route": self.route.to_json() if self.route else None, "missing": list(self.missing)}

    def text_lines(self) -> list[str]:
        stops = (" then " if self.ordered else ", ").join(self.stops) or "none"
        head = f"Line {self.line}, stops {stops}: "
        if self.route is None:
            return [head + "NOT complete", *(f"  missing: {m}" for m in self.missing)]
        steps = [Step(terminal=self.route.start).text()] + [s.text() for s in self.route.steps]
        return [head + f"complete, {self.route.length} spaces", "  " + " ".join(steps)]


def _joined_as(stops: Sequence[str], ordered: bool) -> str:
    if ordered:
        return " then ".join(stops)
    return stops[0] if len(stops) == 1 else ", ".join(stops[:-1]) + " and " + stops[-1]


def route_answer(network: Network, line: int, stops: Sequence[str], ordered: bool) -> RouteAnswer:
    """Answers whether `line` has a complete route through `stops`, and if not, why not."""
    route = network.shortest(line, stops, ordered)
    missing: list[str] = []
    if route is None:
        missing += [f"stop sign for {s}" for s in stops if s not in network.stop_signs]
        ends = network.geo.board.terminals_of(line)
        missing += [f"no track from terminal {t.number}" for t in ends if not network.joined(t)]
        if not missing:
            if network.shortest(line, (), False) is None:
                missing.append("no track from terminal 1 to terminal 2")
            else:
                alone = [s for s in stops if network.shortest(line, (s,), False) is None]
                missing += [f"no route through {s}" for s in alone]
                if not alone:
                    missing.append(f"no route through {_joined_as(stops, ordered)}")
    return RouteAnswer(line, tuple(stops), ordered, route, tuple(missing))


@dataclass(frozen=True)
class RouteCheck:
    """What `paperplay route` answers: a line's route on a board state, and the rules the state breaks."""

    source: Path
    state: BoardState
    answer: RouteAnswer
    problems: tuple[Problem, ...]
    inputs: tuple[Path, ...]  # the files read: the state and the board file it names (no output may replace them)

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode.RULE_BROKEN if self.problems or not self.answer.complete else ExitCode.VALID

    def to_json(self) -> dict[str, Any]:
        document = self.answer.to_json()
        if self.problems:
            document["problems"] = [p.to_json() for p in self.problems]
        return document


def _check_is_a_state(data: Any, path: Path) -> None:
    """Another game's record, or a Streetcar game log, said as such (the schema would ask for tiles)."""
    if not isinstance(data, dict):
        return
    wanted = "route reads a Streetcar board state (see: paperplay schema streetcar-state)"
    game = data.get("game")
    if isinstance(game, str) and game != "streetcar":
        raise InputError(f"{path}: field game is {game!r}; {wanted}")
    if game == "streetcar" and "turns" in data:
        raise InputError(f"{path}: is a Streetcar game log (it has field turns); {wanted}")


def _card_stops(line: int, card: int, card_set: int) -> list[str]:
    """The stops route card `card` of `card_set` gives `line`; an InputError (field card or line)."""
    check_set(card_set)
    count = len(route_cards(card_set))
    if not 1 <= card <= count:
        raise InputError(f"is {card}; expected a route card 1-{count}", field="card")
    if line not in lines():
        raise InputError(f"is {line}; route cards list lines {lines()[0]}-{lines()[-1]} (use --stops for other "
                         "lines)", field="line")
    return list(route_cards(card_set)[card - 1][line - 1])


def _listed_stops(stops: str) -> list[str]:
    """The stops of a list such as "B,D,M" ('' for none); an InputError (field stops)."""
    items = [s.strip().upper() for s in stops.split(",")] if stops.strip() else []
    if "" in items:  # "B,,D" is a slip, not B,D ('' alone is none)
        raise InputError(f"stop {items.index('') + 1} of {len(items)} in {stops!r} is empty; expected location "
                         "letters separated by commas, e.g. B,D,M ('' for none)", field="stops")
    if len(set(items)) != len(items):
        raise InputError(f"is {stops!r}; each stop may be named once", field="stops")
    if len(items) > MAX_STOPS:
        raise InputError(f"names {len(items)} stops; expected at most {MAX_STOPS} (a route card names 2 or 3)",
                         field="stops")
    return items


def _check_stops(board: Board, wanted: Sequence[str], line: int, card: int | None, card_set: int) -> None:
    unknown = [s for s in wanted if s not in board.locations]
    if unknown:
        where = (f"route card {card} (set {card_set}) gives line {line} stop {unknown[0]}, which" if card is not None
                 else f"{unknown[0]}")
        raise InputError(f"{where} is not a location on this board; expected letters from "
                         f"{', '.join(sorted(board.locations))}", field="card" if card is not None else "stops")


def check_route(path: Path, line: int, card: int | None = None, card_set: int | None = None,
                stops: str | None = None, ordered: bool = False) -> RouteCheck:
    """Reads a board state and answers whether `line` has a complete route through the stops of route
    card `card` (of `card_set`, default 2) or of the list `stops` (one of the two), in order when
    `ordered`; the state's broken rules come with it. Bad input is an InputError naming the file and
    field, or the argument (field line, card, set or stops)."""
    data = read_json(path)
    _check_is_a_state(data, path)
    named = data.get("board") if isinstance(data, dict) else None
    board_path = board_file(named, str(path), path.parent) if isinstance(named, str) and named != "standard" else None
    state, problems = state_from_json(data, str(path), path.parent)
    board = state.geo.board
    if len(board.terminals_of(line)) != 2:
        known = sorted({t.line for t in board.terminals})
        raise InputError(f"is {line}; this board has lines {', '.join(map(str, known))}", field="line")
    card_set = 2 if card_set is None else card_set
    wanted = _card_stops(line, card, card_set) if card is not None else _listed_stops(stops or "")
    _check_stops(board, wanted, line, card, card_set)
    problems += board_problems(state)
    answer = route_answer(Network(state.geo, state.layout, state.stop_signs), line, wanted, ordered)
    inputs = (path,) if board_path is None else (path, board_path)
    return RouteCheck(path, state, answer, tuple(problems), inputs)
