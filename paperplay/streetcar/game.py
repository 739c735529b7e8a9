"""A Streetcar game played turn by turn: `Game` applies each turn or names the first illegal action
(docs/reference/formats/streetcar-log.md); streetcar/referee.py gives the verdicts.

The log format is paperplay's own (schema streetcar-log, documented in docs/guides/streetcar.md). A
`Game` holds everything on and around the table; `play_turn` applies one turn or raises `Illegal`. The self-play
generator drives the same `Game`, so what it makes is legal by the referee's own rules.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from paperplay.errors import IllegalAction as Illegal
from paperplay.errors import InputError, Problem
from paperplay.jsonfile import validate
from paperplay.messages import counted
from paperplay.seeds import Rng, seed_field
from paperplay.streetcar.data import Edge, Square, Terminal, lines, route_cards, starting_hand, tile_kinds
from paperplay.streetcar.deal import bag as seeded_bag
from paperplay.streetcar.deal import deal as seeded_deal
from paperplay.streetcar.route import Car, Network, StopProgress
from paperplay.streetcar.state import load_board, tile_at
from paperplay.streetcar.track import (
    Geometry, Placed, double_exchange_faults, double_exchanges, geometry, kinds_by_id, legal_plays, name, neighbour,
    play_and_another, play_faults, side_by_side, signs_for,
)

HAND = 5
Before = tuple[dict[Square, Placed], list[str]]
"""The layout and a player's hand at the start of a turn (what the pass check tries plays from)."""


class Dice(StrEnum):
    """The dice variant a log plays (its variants.dice): none (the speed rule), a roll a move, or a roll
    that may repeat the previous one."""

    NONE = "none"
    ROLL = "roll"
    ROLL_OR_REPEAT = "roll-or-repeat"


@dataclass
class Player:
    """One seat: cards, hand, and the car once the inaugural run has begun."""

    name: str
    line: int
    stops: tuple[str, ...]
    hand: list[str] = field(default_factory=list)
    running: bool = False
    car: Car | None = None
    start: Terminal | None = None
    moved: int = 0  # spaces moved in the run so far


@dataclass
class _Ride:
    """Where a moving car is, space by space: on a tile entered by an edge (`at`), in a terminal entered
    from its square k (`in_terminal`), or at its start (neither); and the stops made so far."""

    stops: StopProgress
    target: Terminal
    progress: int
    at: tuple[Square, Edge] | None = None
    in_terminal: tuple[Terminal, int] | None = None

    @staticmethod
    def of(player: Player, stops: StopProgress, target: Terminal) -> _Ride:
        car = player.car
        ride = _Ride(stops, target, car.progress if car is not None else 0)
        if car is not None and car.terminal is not None:
            ride.in_terminal = (car.terminal, car.terminal.squares.index(car.square))
        elif car is not None:
            ride.at = (car.square, car.edge)
        return ride

    def car(self) -> Car:
        """The car where the move leaves it (a terminal is a space like any other: it may stop in one)."""
        if self.in_terminal is not None:
            terminal, k = self.in_terminal
            return Car(terminal.squares[k], terminal.side, self.progress, self.target, terminal)
        assert self.at is not None
        return Car(self.at[0], self.at[1], self.progress, self.target)


@dataclass
class Game:
    """Everything on and around the table during a game."""

    geo: Geometry
    players: list[Player]
    ordered: bool = False
    dice: Dice = Dice.NONE
    bag: list[str] | None = None  # the seeded bag in draw order, or None when draws are recorded
    supply: Counter[str] = field(default_factory=Counter)  # what is left in the bag, by kind
    rolls: Rng | None = None
    layout: dict[Square, Placed] = field(default_factory=dict)
    stop_signs: dict[str, Square] = field(default_factory=dict)
    turn: int = 0
    last_move: int = 0  # spaces moved by the previous move, by anyone (0 before the first)
    last_roll: int | None = None
    winner: str | None = None
    laid: int = 0
    exchanges: int = 0
    moves: int = 0
    _network: Network | None = None

    @property
    def network(self) -> Network:
        if self._network is None:
            self._network = Network(self.geo, self.layout, self.stop_signs)
        return self._network

    def scratch(self) -> Game:
        """A copy to try plays on: its own layout, stop signs and hands; the bag is shared, read-only."""
        players = [replace(p, hand=list(p.hand)) for p in self.players]
        return replace(self, players=players, layout=dict(self.layout), stop_signs=dict(self.stop_signs),
                       supply=Counter(self.supply), _network=None)

    def state_json(self, board: Any = "standard") -> dict[str, Any]:
        """The board as it lies, as a state file (docs/reference/formats/streetcar-state.md)."""
        return {"game": "streetcar", "board": board,
                "tiles": [tile.to_json(sq) for sq, tile in sorted(self.layout.items())],
                "stop_signs": {k: list(v) for k, v in sorted(self.stop_signs.items())}}

    def _changed(self) -> None:
        self._network = None

    def player(self, name_: str) -> Player:
        for p in self.players:
            if p.name == name_:
                return p
        raise KeyError(name_)

    @property
    def to_play(self) -> Player:
        return self.players[self.turn % len(self.players)]

    def ends(self, player: Player) -> tuple[Terminal, ...]:
        return self.geo.board.terminals_of(player.line)

    # -- building ---------------------------------------------------------------------------------

    def lay(self, player: Player, plays: Sequence[tuple[Square, Placed]]) -> None:
        """Lays or exchanges up to two tiles from the hand, in order.

        Two exchanges on side-by-side squares that are not legal one after the other (each judged
        on its own, the second able to use the tile the first returned) are a double exchange,
        judged together on the final configuration (docs/reference/rulings.md: Exchange).
        """
        double = (len(plays) == 2 and all(sq in self.layout for sq, _ in plays)
                  and side_by_side(plays[0][0], plays[1][0]))
        if double and self._one_by_one_fault(player, plays) is not None:
            self._double_exchange(player, (plays[0], plays[1]))
            return
        for sq, tile in plays:
            fault = self._lay_fault(player.hand, self.layout, sq, tile, player.name)
            if fault is not None:
                raise Illegal(fault.rule, fault.message, fault.square)
            player.hand.remove(tile.kind.id)
            old = self.layout.get(sq)
            if old is not None:
                player.hand.append(old.kind.id)  # the old tile joins the hand and may be laid again this turn
                self.exchanges += 1
            else:
                for letter in signs_for(self.geo, sq, self.stop_signs):
                    self.stop_signs[letter] = sq
            self.layout[sq] = tile
            self.laid += 1
            self._changed()

    def _lay_fault(self, hand: list[str], layout: dict[Square, Placed], square: Square, tile: Placed,
                   who: str) -> Problem | None:
        if tile.kind.id not in hand:
            return Problem("streetcar/hand", f"{who} lays a {tile.kind.id} but holds {_tiles(Counter(hand))}",
                           square=square)
        problems = play_faults(self.geo, layout, square, tile)
        return problems[0] if problems else None

    def _one_by_one_fault(self, player: Player, plays: Sequence[tuple[Square, Placed]]) -> Problem | None:
        """The first fault of laying the plays one after the other, on copies of the hand and layout."""
        hand, layout = list(player.hand), dict(self.layout)
        for sq, tile in plays:
            fault = self._lay_fault(hand, layout, sq, tile, player.name)
            if fault is not None:
                return fault
            hand.remove(tile.kind.id)
            hand.append(layout[sq].kind.id)
            layout[sq] = tile
        return None

    def _double_exchange(self, player: Player, plays: tuple[tuple[Square, Placed], tuple[Square, Placed]]) -> None:
        hand = player.hand
        needed = Counter(t.kind.id for _, t in plays)
        if needed - Counter(hand):
            raise Illegal("streetcar/hand", f"{player.name} exchanges with {_tiles(needed)} but holds "
                                            f"{_tiles(Counter(hand))}")
        problems = double_exchange_faults(self.geo, self.layout, plays)
        if problems:
            raise Illegal(problems[0].rule, "double exchange: " + problems[0].message, problems[0].square)
        for sq, tile in plays:
            hand.remove(tile.kind.id)
            hand.append(self.layout[sq].kind.id)
            self.layout[sq] = tile
        self.exchanges += 2
        self.laid += 2
        self._changed()

    def check_pass(self, player: Player, laid: int, before: Before | None = None) -> None:
        """Checks the claim of a player who laid fewer than two tiles that no more were legal
        (docs/reference/rulings.md: Pass): every single play left now, then, from the turn's start
        (`before`: the layout and the hand; default now, right only when nothing was laid), every double
        exchange and every other first play that leaves room for a second."""
        if laid >= 2:
            return
        laid_words = f"{player.name} laid {counted(laid, 'tile')}"
        for sq, tile in legal_plays(self.geo, self.layout, player.hand):
            raise Illegal("streetcar/pass", f"{laid_words}, but could still {_play_words(self.layout, sq, tile)}", sq)
        layout, hand = before if before is not None else (self.layout, player.hand)
        for double in double_exchanges(self.geo, dict(layout), list(hand)):
            first, second = (f"the {layout[sq].kind.id} on {name(sq)} for a {t.kind.id} at {t.rotation}°"
                             for sq, t in double)
            raise Illegal("streetcar/pass", f"{laid_words}, but could have exchanged {first} and {second} "
                                            "together (a double exchange)", double[0][0])
        pair = play_and_another(self.geo, dict(layout), list(hand))
        if pair is not None:
            (sq, tile), (then_sq, then_tile) = pair
            could = f"{_play_words(layout, sq, tile)}, then {_play_words({**layout, sq: tile}, then_sq, then_tile)}"
            raise Illegal("streetcar/pass", f"{laid_words}, but could have laid two this turn: {could}", sq)

    def leftovers(self) -> int:
        return sum(len(p.hand) for p in self.players if p.running)

    def bag_left(self) -> int:
        return sum(self.supply.values())

    def draw_count(self, player: Player) -> int:
        return min(HAND - len(player.hand), self.bag_left() + self.leftovers())

    def draw(self, player: Player, draws: Sequence[str | tuple[str, str]] | None) -> None:
        """Refills the hand to five: from the bag (the seeded order, or as recorded) or from a running
        player's tiles. `draws=None` takes the bag's next tiles (seeded games only)."""
        need = self.draw_count(player)
        if draws is None:
            draws = list(self.bag[len(self.bag) - self.bag_left():][:need]) if self.bag is not None else []
        if len(draws) != need:
            have = len(player.hand)
            raise Illegal(
                "streetcar/draw-count",
                f"{player.name} draws {counted(len(draws), 'tile')} "
                f"holding {have}; expected {need} (back to {HAND}, less nothing left to draw)",
            )
        for item in draws:
            if isinstance(item, tuple):
                giver_name, tile = item
                giver = self.player(giver_name)
                if not giver.running:
                    raise Illegal(
                        "streetcar/draw", f"{player.name} takes a {tile} from {giver.name}, who has not begun a run"
                    )
                if tile not in giver.hand:
                    raise Illegal("streetcar/draw", f"{player.name} takes a {tile} from {giver.name}, who holds "
                                          f"{_tiles(Counter(giver.hand))}")
                giver.hand.remove(tile)
            else:
                tile = item
                if self.bag is not None:
                    at = len(self.bag) - self.bag_left()
                    if at >= len(self.bag):
                        raise Illegal("streetcar/draw", f"{player.name} draws a {tile} from an empty bag")
                    if self.bag[at] != tile:
                        raise Illegal("streetcar/draw", f"{player.name} draws a {tile}, but the bag's next tile "
                                              f"(tile {at + 1} of the seeded bag) is a {self.bag[at]}")
                elif self.supply[tile] <= 0:
                    raise Illegal("streetcar/draw", f"{player.name} draws a {tile}, but no {tile} is left in the bag")
                self.supply[tile] -= 1
            player.hand.append(tile)

    # -- running ----------------------------------------------------------------------------------

    def begin_run(self, player: Player, number: int) -> None:
        """Places the car in terminal `number`; only with a complete route from there."""
        ends = {t.number: t for t in self.ends(player)}
        start = ends[number]
        if self.network.shortest(player.line, player.stops, self.ordered, start=start) is None:
            stops = (" then " if self.ordered else ", ").join(player.stops)
            raise Illegal(
                "streetcar/run-start",
                f"{player.name} starts a run from line {player.line} terminal {number}, but "
                f"no complete route leads from it through {stops or 'no stops'} "
                "to the other terminal",
            )
        player.running = True
        player.start = start
        player.car = None
        player.moved = 0

    def allowance(self, roll: int | None) -> int | None:
        """Spaces a move may go: the speed rule, or the roll (None: to the next stop sign)."""
        if self.dice == Dice.NONE:
            return self.last_move + 1
        assert roll is not None
        return None if roll >= 5 else roll

    def move(self, player: Player, steps: Sequence[Square | Terminal], roll: int | None) -> None:
        """Moves the car along `steps` (squares entered, terminals passed or arrived in), checking every
        space: a running car moves (1), within its allowance (2), along track into each terminal (3) or
        square (4), stopping at a stop sign (5); with dice, a roll of 5 or 6 ends on a stop sign (6)."""
        if not player.running or player.start is None:
            raise Illegal("streetcar/running", f"{player.name} moves a car without having begun a run")
        if not steps:
            raise Illegal(
                "streetcar/move", f"{player.name} moves 0 spaces; a running car moves at least one space a turn"
            )
        limit = self.allowance(roll)
        ends = self.ends(player)
        ride = _Ride.of(player, StopProgress(self.stop_signs, player.stops, self.ordered),  # every sign out
                        ends[1 - ends.index(player.start)])
        for i, step in enumerate(steps, 1):
            last = i == len(steps)
            self._check_allowance(player, i, len(steps), limit)
            if isinstance(step, Terminal):
                if self._enter_terminal(player, ride, step, last):
                    player.car = None
                    player.moved += i
                    self._finish_move(i, roll)
                    self.winner = player.name
                    return
            else:
                self._enter_square(player, ride, step, last)
        if limit is None:
            self._check_ends_on_a_sign(player, ride, roll)
        player.car = ride.car()
        player.moved += len(steps)
        self._finish_move(len(steps), roll)

    def _check_allowance(self, player: Player, step: int, steps: int, limit: int | None) -> None:
        """(2) The speed rule, or the roll that replaces it: at most `limit` spaces (None: no limit)."""
        if limit is not None and step > limit:
            raise Illegal(
                "streetcar/dice" if self.dice != Dice.NONE else "streetcar/speed",  # the roll replaces the speed rule
                f"{player.name}'s car moves {steps} spaces; it may move at most {limit} "
                + ("(the roll)" if self.dice != Dice.NONE
                   else f"(1 more than the {self.last_move} of the previous move)"),
            )

    def _enter_terminal(self, player: Player, ride: _Ride, terminal: Terminal, last: bool) -> bool:
        """(3) The car goes from its tile along track into `terminal`; whether that is its arrival (the end
        terminal with every stop made, which must be the move's last space)."""
        if ride.at is None:
            raise Illegal(
                "streetcar/track",
                f"{player.name}'s car cannot enter terminal {_tname(terminal)} from "
                + ("another terminal" if ride.in_terminal else "its start"),
            )
        square, edge = ride.at
        exits = self.layout[square].exits[edge]
        k = next((k for k, sq in enumerate(terminal.squares) if sq == square and terminal.side in exits), None)
        if k is None:
            raise Illegal("streetcar/track", f"{player.name}'s car on {name(square)} has no track forward into "
                                             f"terminal {_tname(terminal)}")
        ride.in_terminal, ride.at = (terminal, k), None
        if terminal != ride.target or ride.progress != ride.stops.full:
            return False
        if not last:
            raise Illegal("streetcar/move", f"{player.name}'s car arrives in its end terminal {_tname(terminal)} "
                                            "and cannot move on")
        return True

    def _entry_edge(self, player: Player, ride: _Ride, square: Square) -> Edge:
        """(4) The edge the car enters `square` by: out of the terminal it is in, out of its start terminal,
        or along the track of the tile it is on (no jump, no sharp turn)."""
        if ride.in_terminal is not None:
            terminal, k = ride.in_terminal
            if square != terminal.squares[1 - k]:
                raise Illegal(
                    "streetcar/track",
                    f"{player.name}'s car passes through terminal {_tname(terminal)} and must "
                    f"come out on {name(terminal.squares[1 - k])}, not {name(square)}",
                )
            return terminal.side
        if ride.at is None:  # leaving the start terminal into one of its squares
            start = player.start
            assert start is not None
            if square not in start.squares:
                raise Illegal(
                    "streetcar/track",
                    f"{player.name}'s car starts in terminal {_tname(start)}, so its first space is "
                    f"{' or '.join(name(s) for s in start.squares)}, not {name(square)}",
                )
            return start.side
        here, entry = ride.at
        edge_out = next((e for e in Edge if neighbour(here, e) == square), None)
        if edge_out is None:
            raise Illegal("streetcar/track", f"{player.name}'s car jumps from {name(here)} to {name(square)}, "
                                             "which is not next to it")
        tile = self.layout[here]
        if edge_out not in tile.exits[entry]:
            why = "a sharp turn, which no track piece makes" if edge_out in tile.ends else "there is no track that way"
            raise Illegal("streetcar/track", f"{player.name}'s car entered {name(here)} from the "
                                             f"{entry.name} and cannot leave it to {name(square)}: {why}")
        return Edge((edge_out + 2) % 4)

    def _enter_square(self, player: Player, ride: _Ride, square: Square, last: bool) -> None:
        """(4) The car enters `square` on track that meets it; (5) a stop sign there ends the move."""
        edge = self._entry_edge(player, ride, square)
        entered = self.layout.get(square)
        if entered is None or edge not in entered.ends:
            raise Illegal("streetcar/track", f"{player.name}'s car cannot enter {name(square)} from the "
                                             f"{edge.name}: " + ("the square is empty" if entered is None
                                                                 else "no track meets it there"))
        ride.in_terminal, ride.at = None, (square, edge)
        ride.progress = ride.stops.after(ride.progress, square)
        if square in self.stop_signs.values() and not last:
            letters = ", ".join(sorted(k for k, v in self.stop_signs.items() if v == square))
            raise Illegal(
                "streetcar/forced-stop",
                f"{player.name}'s car enters the stop sign of {letters} on {name(square)} "
                "and must stop there, ending its move",
            )

    def _check_ends_on_a_sign(self, player: Player, ride: _Ride, roll: int | None) -> None:
        """(6) A roll of 5 or 6 takes the car to the next stop sign (or its end terminal): it stops there."""
        if ride.at is None or ride.at[0] not in self.stop_signs.values():
            where = name(ride.at[0]) if ride.at is not None else f"terminal {_tname(ride.in_terminal[0])}"  # type: ignore[index]
            raise Illegal(
                "streetcar/dice",
                f"{player.name} rolled {roll}, which takes the car to the next stop sign or its end "
                f"terminal, but it stops on {where}",
            )

    def _finish_move(self, spaces: int, roll: int | None) -> None:
        self.last_move = spaces
        self.last_roll = roll
        self.moves += 1

    def restart(self, player: Player) -> None:
        """Takes the car off; allowed only when the route cannot be completed from where it stands."""
        if not player.running or player.car is None:
            raise Illegal("streetcar/restart", f"{player.name} has no car on the board to take off")
        if self.network.shortest(player.line, player.stops, self.ordered, car=player.car) is not None:
            raise Illegal(
                "streetcar/restart",
                f"{player.name} takes the car off {name(player.car.square)}, but it can still "
                "complete its route from there",
            )
        player.car = None
        player.start = None

    def roll(self, recorded: int | None, repeat: bool) -> int | None:
        """The roll a move uses: recorded, repeated from the previous roll, or the seed's next roll."""
        if self.dice == Dice.NONE:
            return None
        if repeat:
            if self.dice != Dice.ROLL_OR_REPEAT:
                raise Illegal("streetcar/dice", "repeating the previous roll is allowed only in the roll-or-repeat "
                                                "variant")
            if self.last_roll is None:
                raise Illegal("streetcar/dice", "there is no previous roll to repeat")
            if recorded is not None and recorded != self.last_roll:
                raise Illegal("streetcar/dice", f"repeats the previous roll {self.last_roll} but records {recorded}")
            return self.last_roll
        seeded = self.rolls.randbelow(6) + 1 if self.rolls is not None else None
        if recorded is not None:
            if seeded is not None and recorded != seeded:
                raise Illegal("streetcar/dice", f"records a roll of {recorded}, but the seed rolls {seeded}")
            return recorded
        assert seeded is not None, "parse_turn requires a recorded roll without a seed"
        return seeded

    # -- a whole turn -------------------------------------------------------------------------------

    def play(self, turn: Turn) -> None:
        """Applies one typed turn; raises IllegalAction at the first broken rule."""
        player = self.player(turn.player)
        if self.winner is not None:
            raise Illegal("streetcar/game-over", f"{self.winner} has already won; {player.name} plays after the end "
                                                 "of the game")
        expected = self.to_play
        if player is not expected:
            raise Illegal("streetcar/turn-order", f"it is {expected.name}'s turn, not {player.name}'s")
        if isinstance(turn, Build):
            if player.running:
                raise Illegal("streetcar/running", f"{player.name} has begun a run and may not lay tiles any more")
            before = (dict(self.layout), list(player.hand)) if len(turn.plays) < 2 else None
            self.lay(player, turn.plays)
            self.check_pass(player, len(turn.plays), before)
            self.draw(player, turn.draws)
        elif isinstance(turn, Restart):
            self.restart(player)
        else:
            if turn.start is not None:
                if player.running and player.car is not None:
                    raise Illegal("streetcar/run-start", f"{player.name}'s car is already running")
                self.begin_run(player, turn.start)
            elif player.running and player.car is None and player.start is None:
                raise Illegal("streetcar/run-start", f"{player.name}'s car was taken off and must start again from "
                                                     "a terminal")
            elif not player.running:
                raise Illegal("streetcar/running", f"{player.name} moves a car without having begun a run "
                                                   "(field start)")
            self.move(player, turn.steps, self.roll(turn.roll, turn.repeat))
        self.turn += 1


def _play_words(layout: Mapping[Square, Placed], square: Square, tile: Placed) -> str:
    old = layout.get(square)
    if old is None:
        return f"lay a {tile.kind.id} at {tile.rotation}° on {name(square)}"
    return f"exchange the {old.kind.id} on {name(square)} for a {tile.kind.id} at {tile.rotation}°"


def _tname(terminal: Terminal) -> str:
    return f"{terminal.line}.{terminal.number}"


def _tiles(counts: Counter[str]) -> str:
    return ", ".join(f"{n} {t}" for t, n in sorted(counts.items())) or "no tiles"


# -- typed turns ------------------------------------------------------------------------------------

Draw = str | tuple[str, str]
"""A tile drawn: its id from the bag, or (player, id) from a running player's tiles."""
Space = Square | Terminal
"""A space of a move: a square entered, or a terminal passed through or arrived in."""


@dataclass(frozen=True)
class Build:
    """Lays (or exchanges) up to two tiles in order, then draws; draws None: the seeded bag's next tiles."""

    player: str
    plays: tuple[tuple[Square, Placed], ...]
    draws: tuple[Draw, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"player": self.player, "lay": [tile.to_json(sq) for sq, tile in self.plays]}
        if self.draws is not None:
            out["draw"] = [d if isinstance(d, str) else {"from": d[0], "tile": d[1]} for d in self.draws]
        return out


@dataclass(frozen=True)
class Run:
    """Moves the car along its steps; `start` begins the run from that terminal (1 or 2) first."""

    player: str
    steps: tuple[Space, ...]
    start: int | None = None
    roll: int | None = None
    repeat: bool = False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"player": self.player}
        if self.start is not None:
            out["start"] = self.start
        out["move"] = [{"terminal": [s.line, s.number]} if isinstance(s, Terminal) else list(s) for s in self.steps]
        if self.repeat:
            out["repeat"] = True
        if self.roll is not None:
            out["roll"] = self.roll
        return out


@dataclass(frozen=True)
class Restart:
    """Takes the car off after a wrong turn."""

    player: str

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "restart": True}


Turn = Build | Run | Restart


# -- reading a log ----------------------------------------------------------------------------------


def _seats(data: Mapping[str, Any], source: str, geo: Geometry, seed: str | None, card_set: int) -> list[Player]:
    names = data["players"]
    dealt = seeded_deal(seed, len(names), card_set) if seed is not None else None
    if "deal" not in data and dealt is None:
        raise InputError(f"{source}: give field seed or field deal: without either, nobody has cards")
    recorded = data.get("deal")
    if recorded is not None and len(recorded) != len(names):
        raise InputError(f"{source}: field deal has {len(recorded)} seats; expected one per player ({len(names)})")
    players = []
    for i, player_name in enumerate(names):
        if recorded is None:
            assert dealt is not None
            line, stops = dealt[i].line, dealt[i].stops
        else:
            seat = recorded[i]
            line = seat["line"]
            if ("route_card" in seat) == ("stops" in seat):
                raise InputError(f"{source}: field deal[{i}] needs route_card or stops (one of them)")
            if "route_card" in seat:
                if line not in lines():
                    raise InputError(f"{source}: field deal[{i}].line is {line}; route cards cover lines "
                                     f"{lines()[0]}-{lines()[-1]}")
                stops = route_cards(card_set)[seat["route_card"] - 1][line - 1]
            else:
                stops = tuple(seat["stops"])
            # Cards from the set are what the seed deals; stops written out are a home-made deal.
            if dealt is not None and "route_card" in seat and (dealt[i].line, dealt[i].stops) != (line, tuple(stops)):
                raise InputError(f"{source}: field deal[{i}] gives line {line} stops {'-'.join(stops)}, but the seed "
                                 f"deals seat {i + 1} line {dealt[i].line} stops {'-'.join(dealt[i].stops)}")
        if len(geo.board.terminals_of(line)) != 2:
            raise InputError(f"{source}: field deal[{i}].line is {line}, which has no terminals on this board")
        for letter in stops:
            if letter not in geo.board.locations:
                raise InputError(f"{source}: field deal[{i}] names stop {letter}, which is not on this board")
        players.append(Player(player_name, line, tuple(stops)))
    seated = [p.line for p in players]
    if len(set(seated)) != len(seated):
        raise InputError(f"{source}: field deal gives line {Counter(seated).most_common(1)[0][0]} to two players")
    return players


def new_game(data: Mapping[str, Any], source: str, folder: Path | None = None) -> Game:
    """Sets the table from a log's header: board, seats, cards, hands, bag and dice."""
    seed = seed_field(data["seed"], source) if "seed" in data else None
    geo = geometry(load_board(data.get("board"), source, folder))
    card_set = data.get("set", 2)
    variants = data.get("variants", {})
    players = _seats(data, source, geo, seed, card_set)
    hand = starting_hand()
    supply: Counter[str] = Counter()
    for kind in tile_kinds():
        supply[kind.id] = kind.count - hand.get(kind.id, 0) * len(players)
    for p in players:
        p.hand = [tile for tile, n in hand.items() for _ in range(n)]
    dice = Dice(variants.get("dice", "none"))  # the schema allows these three only
    return Game(geo, players, ordered=variants.get("ordered", False), dice=dice,
                bag=seeded_bag(seed, len(players)) if seed is not None else None, supply=supply,
                rolls=Rng("streetcar/dice", seed) if seed is not None and dice != Dice.NONE else None)


def _step(value: Any, geo: Geometry, where: str) -> Space:
    """A move's space: a square [row, col], or {"terminal": [line, number]} as that board's terminal."""
    if not isinstance(value, dict):
        return (value[0], value[1])
    line, number = value["terminal"]
    terminal = geo.board.terminal(line, number)
    if terminal is None:
        raise InputError(f"{where} is terminal [{line}, {number}], which is not on this board")
    return terminal


def parse_turn(data: Mapping[str, Any], where: str, geo: Geometry, names: Sequence[str], seeded: bool,
               dice: Dice) -> Turn:
    """Reads one turn of a log (already schema-checked) into a typed turn; raises only InputError."""
    if data["player"] not in names:
        raise InputError(f"{where}.player is {data['player']!r}; expected one of {', '.join(names)}")
    building = "lay" in data or "draw" in data
    running = "start" in data or "move" in data
    if building and (running or "restart" in data) or (running and "restart" in data):
        raise InputError(f"{where}: a turn either lays tiles (lay, draw), or moves the car (start, move), "
                         "or restarts; this one mixes them")
    if not (building or running or "restart" in data):
        raise InputError(f"{where}: the turn does nothing; expected lay (and draw), move (with start), or restart")
    if not running and ("roll" in data or "repeat" in data):
        raise InputError(f"{where}: field {'roll' if 'roll' in data else 'repeat'} is given on a turn that "
                         f"{'lays tiles' if building else 'restarts'}; the dice belong to a turn that moves the "
                         "car (start, move)")
    if "restart" in data:
        return Restart(data["player"])
    if building:
        plays = tuple(tile_at(p, f"lay[{i}]", where, geo) for i, p in enumerate(data.get("lay", [])))
        if "draw" not in data:
            if not seeded:
                raise InputError(f"{where}: field draw is missing; without a seed the log must record the tiles drawn")
            return Build(data["player"], plays)
        draws: list[Draw] = []
        for i, item in enumerate(data["draw"]):
            tile = item if isinstance(item, str) else item["tile"]
            if tile not in kinds_by_id():
                raise InputError(f"{where}.draw[{i}] is {tile!r}; expected a tile id such as straight or curve")
            if isinstance(item, dict):
                if item["from"] not in names:
                    raise InputError(f"{where}.draw[{i}].from is {item['from']!r}, who is not playing")
                draws.append((item["from"], tile))
            else:
                draws.append(tile)
        return Build(data["player"], plays, tuple(draws))
    if dice == Dice.NONE and ("roll" in data or "repeat" in data):
        raise InputError(f"{where}: field {'roll' if 'roll' in data else 'repeat'} is given, but no dice "
                         "variant is played")
    if dice != Dice.NONE and not seeded and "roll" not in data and not data.get("repeat"):
        raise InputError(f"{where}: field roll is missing; without a seed the log must record each roll")
    steps = tuple(_step(s, geo, f"{where}.move[{i}]") for i, s in enumerate(data.get("move", [])))
    return Run(data["player"], steps, data.get("start"), data.get("roll"), bool(data.get("repeat", False)))


def play_turn(game: Game, data: Mapping[str, Any], where: str) -> None:
    """Reads one turn of a log and applies it (for tests and tools that hold turns as JSON)."""
    names = [p.name for p in game.players]
    game.play(parse_turn(data, where, game.geo, names, game.bag is not None, game.dice))


@dataclass(frozen=True)
class StreetcarLog:
    """A game log read into typed values: the table as dealt and every turn."""

    game: Game
    turns: tuple[Turn, ...]


def read_log(data: Any, source: str, folder: Path | None = None) -> StreetcarLog:
    """Reads a whole game log (schema, board file, deal and every turn) before anything is played."""
    validate(data, "streetcar-log", source)
    game = new_game(data, source, folder)
    names = [p.name for p in game.players]
    seeded = game.bag is not None
    turns = tuple(parse_turn(t, f"{source}: field turns[{i}]", game.geo, names, seeded, game.dice)
                  for i, t in enumerate(data["turns"]))
    return StreetcarLog(game, turns)
