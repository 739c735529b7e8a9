"""Plays whole legal Streetcar games from a seed: the example game, property tests and benchmarks.

Each builder plans a route over the board (existing track where it fits, empty squares where it
does not) and lays hand tiles along it; when nothing on the plan can be laid it lays any legal
tile. Every turn goes through the referee's own `play_turn`, so a generated log is legal by
construction, and a bug in either shows up as an exception here.
"""

from __future__ import annotations

import heapq
from typing import Any

from paperplay.seeds import Rng, canonical_seed
from paperplay.streetcar.data import Edge, Square, Terminal
from paperplay.streetcar.game import Build, Dice, Draw, Game, Player, Restart, Run, Turn, new_game
from paperplay.streetcar.track import (
    Placed, double_exchanges, legal_plays, neighbour, orientations, play_and_another, play_faults,
)

EMPTY_COST, TRACK_COST = 5, 1


Key = tuple[Square, int, int, int]
"""A search state of the plan: (square, entry edge, progress, index of the end terminal aimed at)."""


class _Planner:
    """A cheapest route for one player (Dijkstra over track and empty squares, empty ones dearer)."""

    def __init__(self, game: Game, player: Player) -> None:
        self.game, self.geo, self.layout = game, game.geo, game.layout
        self.ends = game.ends(player)
        self.stops = player.stops
        # Where each stop is made: its stop sign, or (without one yet) any square beside the location.
        self.where: list[set[Square]] = [
            {game.stop_signs[s]} if s in game.stop_signs else set(self.geo.touching[s]) for s in self.stops]
        self.full = (1 << len(self.stops)) - 1 if not game.ordered else len(self.stops)
        self.heap: list[tuple[int, int, Square, int, int, int]] = []
        self.parent: dict[Key, Key | None] = {}
        self.best: dict[Key, int] = {}
        self.counter = 0

    def gain(self, progress: int, square: Square) -> int:
        if self.game.ordered:
            while progress < len(self.stops) and square in self.where[progress]:
                progress += 1
            return progress
        for i, squares in enumerate(self.where):
            if square in squares:
                progress |= 1 << i
        return progress

    def push(self, cost: int, square: Square, edge: Edge, progress: int, d: int, before: Key | None) -> None:
        tile = self.layout.get(square)
        if square in self.geo.locations or (tile is not None and edge not in tile.ends):
            return
        cost += EMPTY_COST if tile is None else TRACK_COST
        key = (square, int(edge), self.gain(progress, square), d)
        if self.best.get(key, 1 << 30) <= cost:
            return
        self.best[key] = cost
        self.parent[key] = before
        self.counter += 1
        heapq.heappush(self.heap, (cost, self.counter, square, int(edge), key[2], d))

    def goal(self) -> Key | None:
        """The last state of a cheapest route into an end terminal with every stop made, if any."""
        for d, origin in enumerate(reversed(self.ends)):
            for square in origin.squares:
                self.push(0, square, origin.side, 0, d, None)
        while self.heap:
            cost, _, square, edge_i, progress, d = heapq.heappop(self.heap)
            key = (square, edge_i, progress, d)
            if self.best.get(key) != cost:
                continue
            edge = Edge(edge_i)
            tile = self.layout.get(square)
            exits = tile.exits[edge] if tile is not None else tuple(e for e in Edge if e != edge)
            for out in exits:
                nxt = neighbour(square, out)
                if self.geo.on_board(nxt):
                    self.push(cost, nxt, Edge((out + 2) % 4), progress, d, key)
                    continue
                terminal = self.geo.ports.get((square, out))
                if terminal is None:
                    continue
                if terminal == self.ends[d] and progress == self.full:
                    return key
                other = terminal.squares[1 - terminal.squares.index(square)]
                self.push(cost + 1, other, terminal.side, progress, d, key)
        return None

    def needs(self, goal: Key) -> list[tuple[Square, frozenset[Edge]]]:
        """The empty squares of the route ending in `goal` and the piece each needs, in route order."""
        chain: list[Key] = []
        at: Key | None = goal
        while at is not None:
            chain.append(at)
            at = self.parent[at]
        chain.reverse()
        needs = []
        for i, (square, edge_i, _, _) in enumerate(chain):
            if square in self.layout:
                continue
            if i + 1 < len(chain):
                nxt = chain[i + 1][0]
                towards = next((e for e in Edge if neighbour(square, e) == nxt), None)
                # None: through a terminal loop to the other square
                out = towards if towards is not None else Edge(chain[i + 1][1])
            else:
                out = self.ends[goal[3]].side
            needs.append((square, frozenset((Edge(edge_i), out))))
        return needs


def _plan(game: Game, player: Player) -> list[tuple[Square, frozenset[Edge]]]:
    """A cheap route for the player over track and empty squares: the empty squares and the piece
    each needs, in route order. Empty if the route is already complete or no plan exists."""
    planner = _Planner(game, player)
    goal = planner.goal()
    return [] if goal is None else planner.needs(goal)


def _fits(game: Game, hand: list[str], square: Square, piece: frozenset[Edge]) -> Placed | None:
    """A hand tile, turned to contain `piece`, that may be laid on the empty `square`; fewest ends first."""
    options = [p for tile in sorted(set(hand)) for p in orientations(tile) if piece in p.pieces]
    for tile in sorted(options, key=lambda p: (len(p.ends), p.kind.id, p.rotation)):
        if not play_faults(game.geo, game.layout, square, tile):
            return tile
    return None


def _build_turn(game: Game, player: Player, rng: Rng) -> Build:
    """Two tiles along the plan where they fit, else any legal tile; then the draw."""
    scratch = game.scratch()
    me = scratch.player(player.name)
    lay: list[tuple[Square, Placed]] = []
    for _ in range(2):
        choice: tuple[Square, Placed] | None = None
        for square, piece in _plan(scratch, me):
            tile = _fits(scratch, me.hand, square, piece)
            if tile is not None:
                choice = (square, tile)
                break
        if choice is None:
            options = list(legal_plays(scratch.geo, scratch.layout, me.hand))
            if not options:
                break
            choice = options[rng.randbelow(len(options))]
        scratch.lay(me, [choice])
        lay.append(choice)
    if len(lay) < 2:  # stuck: two plays from the turn's start another way, if any (the pass check's)
        pair = next(double_exchanges(game.geo, dict(game.layout), list(player.hand)), None)
        pair = pair or play_and_another(game.geo, dict(game.layout), list(player.hand))
        if pair is not None:
            lay = list(pair)
            scratch = game.scratch()
            me = scratch.player(player.name)
            scratch.lay(me, lay)
    need = scratch.draw_count(me)
    pool = [(p.name, t) for p in scratch.players if p.running for t in p.hand]
    from_bag = min(need, scratch.bag_left())
    if pool and need and (from_bag < need or rng.randbelow(4) == 0):
        from_bag = min(from_bag, need - 1)  # now and then a tile from a running player's leftovers
        assert game.bag is not None
        at = len(game.bag) - game.bag_left()
        draws: list[Draw] = list(game.bag[at:at + from_bag])
        for _ in range(need - from_bag):
            draws.append(pool.pop(rng.randbelow(len(pool))))
        return Build(player.name, tuple(lay), tuple(draws))
    return Build(player.name, tuple(lay))


def _run_turn(game: Game, player: Player, rng: Rng, dice: Rng | None) -> Run | Restart | None:
    """Starts the run when the route is complete, then moves along a shortest route; None: keep building."""
    start: int | None = None
    repeat = False
    net = game.network
    if player.start is None:  # not running yet, or the car was taken off
        routes = [(r.length, t.number, r) for t in game.ends(player)
                  if (r := net.shortest(player.line, player.stops, game.ordered, start=t)) is not None]
        if not routes:
            return None
        _, start, route = min(routes, key=lambda x: (x[0], x[1]))
    else:
        found = (net.shortest(player.line, player.stops, game.ordered, car=player.car) if player.car is not None
                 else net.shortest(player.line, player.stops, game.ordered, start=player.start))
        if found is None:
            return Restart(player.name)
        route = found
    limit: int | None
    if game.dice == Dice.NONE:
        speed = game.last_move + 1
        if speed > 1 and rng.randbelow(8) == 0:
            speed -= 1 + rng.randbelow(speed - 1)  # now and then a slower move, as players do
        limit = speed
    else:
        if game.dice == Dice.ROLL_OR_REPEAT and game.last_roll is not None and game.last_roll >= 4:
            repeat = True
            roll = game.last_roll
        else:
            assert dice is not None
            roll = dice.randbelow(6) + 1  # the same stream the referee rolls from
        limit = None if roll >= 5 else roll
    signs = set(game.stop_signs.values())
    move: list[Square | Terminal] = []
    for step in route.steps:
        move.append(step.terminal if step.terminal is not None else step.square)  # type: ignore[arg-type]
        if limit is not None and len(move) >= limit:
            break
        if step.square is not None and step.square in signs:
            break
    return Run(player.name, tuple(move), start, None, repeat)


def play_game(seed: str, players: int = 4, card_set: int = 2, ordered: bool = False, dice: str = Dice.NONE,
              board: dict[str, Any] | None = None, deal: list[dict[str, Any]] | None = None,
              max_turns: int = 600) -> dict[str, Any]:
    """Plays a game to its end (or `max_turns`) and returns its log; every turn is refereed as played."""
    seed = canonical_seed(seed)
    names = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay"][:players]
    header: dict[str, Any] = {"game": "streetcar", "board": board or "standard", "seed": seed, "set": card_set,
                              "variants": {"ordered": ordered, "dice": dice}, "players": names}
    if deal is not None:
        header["deal"] = deal
    game = new_game(header, "self-play")
    rng = Rng("streetcar/selfplay", seed)
    rolls = Rng("streetcar/dice", seed) if dice != Dice.NONE else None
    turns: list[Turn] = []
    while game.winner is None and len(turns) < max_turns:
        player = game.to_play
        turn: Turn | None = _run_turn(game, player, rng, rolls)
        if turn is None:
            turn = _build_turn(game, player, rng)
        game.play(turn)
        turns.append(turn)
        idle = turns[-len(names):]
        if len(idle) == len(names) and all(isinstance(t, Build) and not t.plays for t in idle):
            break  # a whole round laid nothing and nobody runs: the bag is empty and no route can be made
    return {**header, "turns": [t.to_json() for t in turns]}
