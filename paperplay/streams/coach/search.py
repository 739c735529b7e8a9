"""The coach's search: Monte Carlo by successive halving over the boxes, then two tiles deep for the
closest candidates, and every way the draws may come for the last moves (see `search`)."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from paperplay.processes import can_fork, forked_map
from paperplay.seeds import Rng
from paperplay.streams.coach.playout import Cells, Scorer, Unseen, empty_boxes, gaps_of, pick, play_boxes
from paperplay.streams.rules import EMPTY, WILD

@dataclass(frozen=True)
class BoxEstimate:
    """What writing the tile in one box is expected to score, from play-outs."""

    box: int  # 0-based
    mean: float
    stderr: float
    playouts: int
    depth: int = 1  # 2: the mean over every next tile of the best box for it (see search); playouts
    # then counts the play-outs after every next tile; 0: exact, every remaining draw (see exact)

    def to_json(self) -> dict[str, float | int]:
        return {"box": self.box + 1, "expected": round(self.mean, 2), "stderr": round(self.stderr, 2),
                "playouts": self.playouts, "depth": self.depth}


def evaluate(cells: Cells, tile: int, unseen: Unseen, rng: Rng, budget: int, scorer: Scorer,
             keep: int = 1) -> list[BoxEstimate]:
    """Monte Carlo with successive halving. Every empty box gets play-outs of the same random
    futures (common random numbers, so boxes are compared on equal luck); after each round the worse
    half is dropped, until `keep` remain, so the budget goes where the top choices are close.
    `budget` counts tiles placed in play-outs, so a move costs about the same time early and late.
    Returns every box's estimate: the longest-surviving first, best mean first."""
    scorer.plan(budget)
    # seeded from the seeds stream (docs/reference/seeds.md); Python's own generator is fast enough for play-outs
    return _halving(cells, tile, unseen, random.Random(rng.randbelow(1 << 62)), budget, scorer, keep)


def _halving(cells: Cells, tile: int, unseen: Unseen, draws: random.Random, budget: int, scorer: Scorer,
             keep: int = 1, boxes: list[int] | None = None) -> list[BoxEstimate]:
    """evaluate's work over `boxes` (default: every empty box), drawing the futures from `draws` (the
    same generator state gives every position with as many empty boxes the same futures)."""
    boxes = boxes or empty_boxes(cells)
    remaining = cells.count(EMPTY) - 1
    if remaining == 0:
        final = list(cells)
        final[boxes[0]] = tile
        return [BoxEstimate(boxes[0], float(scorer(final)), 0.0, 1)]
    budget = max(budget // remaining, 4 * len(boxes))  # in play-outs
    stats = {b: [0.0, 0.0, 0] for b in boxes}
    alive = list(boxes)
    rounds = max(1, math.ceil(math.log2(max(1, len(alive) / max(1, keep)))) + 1)
    spent = 0
    for round_no in range(rounds):
        last = round_no == rounds - 1 or len(alive) <= keep
        per = max(2, (budget - spent) // (len(alive) * (1 if last else rounds - round_no)))
        round_seed = draws.getrandbits(63)
        for box, (won, won2) in zip(alive, play_boxes(cells, tile, alive, per, round_seed, unseen, scorer)):
            s = stats[box]
            s[0] += won
            s[1] += won2
            s[2] += per
        spent += per * len(alive)
        if last:
            break
        alive.sort(key=lambda b: (-stats[b][0] / stats[b][2], b))
        alive = alive[:max(keep, (len(alive) + 1) // 2)]
    estimates = []
    for box, (total, squares, n) in stats.items():
        mean = total / n
        var = max(0.0, (squares - n * mean * mean) / (n - 1)) if n > 1 else 0.0
        estimates.append(BoxEstimate(box, mean, math.sqrt(var / n), int(n)))
    estimates.sort(key=lambda e: (-e.playouts, -e.mean, e.box))
    return estimates


DEPTH2_FIRST = COACH_BUDGET = 20_000
"""Tiles placed in the Monte Carlo that picks the depth-2 search's candidates (and decides alone
when one box is clearly best)."""
DEPTH2_REPLY = 4_000
"""Tiles placed in each small Monte Carlo over every empty box that finds the best reply to one
possible next tile."""
DEPTH2_CANDIDATES = 3
"""At most this many of the Monte Carlo's best boxes are searched to depth 2 ..."""
DEPTH2_MARGIN = 1.0
"""... those whose mean is within this many points of the best one's (measured: 1 point scored about
+0.3 a game more than 2.5 on each of three sets of 1,000 games, in half the time) ..."""
DEPTH2_SHARE = 2
"""... with the reply work of at most this many candidates, shared among them when more are searched
(so that a move takes about as long with three candidates as with two: measured +0.01 ± 0.05 a game
against each candidate's own `reply` tiles, on two sets of 1,000 games) ..."""
DEPTH2_DRAWS = 3
"""... while at least this many draws remain after the tile (every move the exact search does not
take: measured +0.6 ± 0.3 a game over searching only the first ten moves)."""
DEPTH2_KINDS = 32
"""... and while at most this many kinds of tile may come next (the standard game has 31: 1-30 and the
wild). A variant with a hundred values gets the Monte Carlo alone: each reply places at least 4
play-outs a box whatever the budget, and a hundred kinds of next tile took `advise` 12 s a move."""


EXACT_BOXES = 4
"""With this many empty boxes or fewer (the last four moves), the coach computes every box's
expected final score exactly: every order the remaining draws may come in, each written in its best
box (measured: +0.03 ± 0.02 a game over the two-tile search at four empty boxes, on 4,000 games; 0.1 to
0.3 s a move in plain Python, median 0.13 s over 40 positions)."""


EXACT_ROWS = 200_000
"""... and when scoring every way the draws may come takes at most this many rows (the standard
game's last four moves take at most 146,004 (23 tiles unseen), its last three 2,904; a variant with hundreds of values
would take millions), a tenth of that when the table rewards a cut (scoring such a row takes several
times as long)."""


def exact_rows(empty: int, unseen: Unseen) -> int:
    """At most how many final rows `exact` scores with `empty` empty boxes: for each box of the tile in
    hand, each box left for the last draw, and each way the draws between may fill the other boxes,
    every unseen value in that last box (a sheet reached in two orders is scored once)."""
    values = max(1, sum(1 for n in unseen if n))
    return max(1, empty * (empty - 1) * values ** (empty - 1))


def exact_limit(scorer: Scorer) -> int:
    """The most rows `search` lets `exact` score (see EXACT_ROWS)."""
    return EXACT_ROWS if scorer.runs_are_best else EXACT_ROWS // 10


Known = dict[tuple[int, ...], float]
"""Expected final scores found so far, by sheet (see exact_value)."""


def exact_value(cells: Cells, unseen: Unseen, scorer: Scorer, known: Known | None = None) -> float:
    """The expected final score of a sheet when every empty box will get one more draw from the unseen
    tiles and each is written in its best box (expectimax over the draws, exact). `known` keeps the
    values found so far by sheet (one dict for sheets that share the same unseen tiles less what they
    hold: a sheet reached by two orders of the draws is valued once)."""
    empties = empty_boxes(cells)
    if not empties:
        return float(scorer(cells))
    return _expectimax(cells, empties, unseen, scorer, {} if known is None else known)


def _expectimax(cells: Cells, empties: list[int], unseen: Unseen, scorer: Scorer, known: Known) -> float:
    key = tuple(cells)
    value = known.get(key)
    if value is not None:
        return value
    value = 0.0
    if len(empties) == 1:  # the last draw goes in the last box
        box = empties[0]
        for tile, count in enumerate(unseen):
            if count:
                cells[box] = tile
                value += count * scorer(cells)
        cells[box] = EMPTY
    else:
        for tile, count in enumerate(unseen):
            if count == 0:
                continue
            unseen[tile] -= 1
            best = -math.inf
            for box in empties:
                cells[box] = tile
                best = max(best, _expectimax(cells, [b for b in empties if b != box], unseen, scorer, known))
                cells[box] = EMPTY
            unseen[tile] += 1
            value += count * best
    value /= sum(unseen)
    known[key] = value
    return value


def exact(cells: Cells, tile: int, unseen: Unseen, scorer: Scorer) -> list[BoxEstimate]:
    """Every empty box's exact expected final score with `tile` written in it (see exact_value)."""
    row, left = list(cells), list(unseen)
    known: Known = {}  # a sheet holds what was drawn: its unseen tiles are known
    estimates = []
    for box in empty_boxes(cells):
        row[box] = tile
        estimates.append(BoxEstimate(box, exact_value(row, left, scorer, known), 0.0, 0, depth=0))
        row[box] = EMPTY
    estimates.sort(key=lambda e: (-e.mean, e.box))
    return estimates


@dataclass(frozen=True)
class Advice:
    """The coach's ranking of the boxes: depth-2 values for the searched boxes (first), then the
    Monte Carlo's estimates; `replies[box][tile]` is the searched box's value when `tile` comes next."""

    estimates: list[BoxEstimate]
    replies: dict[int, dict[int, float]]
    tiles: int  # tiles placed in play-outs, in all

    @property
    def best(self) -> BoxEstimate:
        return self.estimates[0]


def search(cells: Cells, tile: int, unseen: Unseen, rng: Rng, scorer: Scorer, first: int = DEPTH2_FIRST,
           reply: int | None = None, include: int | None = None) -> Advice:
    """The coach. With EXACT_BOXES empty boxes or fewer, every box's exact value (see exact).
    Otherwise a Monte Carlo of `first` tiles ranks the boxes; then, while DEPTH2_DRAWS or more draws
    remain after the tile and at most DEPTH2_KINDS kinds of tile may come next, its best boxes
    (up to DEPTH2_CANDIDATES, those within DEPTH2_MARGIN points of the best, and `include` if given)
    are valued two tiles deep: for every possible next tile, the best box for it by a small Monte
    Carlo (`reply` tiles, shared out when more than DEPTH2_SHARE boxes are searched), the values
    averaged over the unseen tiles by how many of each there are.
    Every candidate sees the same futures after each next tile (common random numbers), so they are
    compared on equal luck; `reply` defaults to DEPTH2_REPLY scaled by `first` (so one number sets
    the work), 0 turns the depth-2 search off. The replies run in `scorer.jobs` forked processes
    while the play-outs run in plain Python (see _replies): the same advice, sooner."""
    if reply is None:
        reply = first * DEPTH2_REPLY // DEPTH2_FIRST
    boxes = empty_boxes(cells)
    if len(boxes) <= EXACT_BOXES and exact_rows(len(boxes), unseen) <= exact_limit(scorer):
        return Advice(exact(cells, tile, unseen, scorer), {}, 0)
    keep = min(DEPTH2_CANDIDATES, len(boxes))
    deep = reply > 0 and len(boxes) - 1 >= DEPTH2_DRAWS
    scorer.plan(first)
    draws = random.Random(rng.randbelow(1 << 62))
    estimates = _halving(cells, tile, unseen, draws, first, scorer, keep)
    spent = sum(e.playouts for e in estimates) * (len(boxes) - 1)
    best = estimates[0].mean
    candidates = [e.box for e in estimates[:keep] if best - e.mean <= DEPTH2_MARGIN]
    if include is not None and include not in candidates:
        candidates.append(include)
    if not deep or len(candidates) < 2:
        return Advice(estimates, {}, spent)
    nexts = [after for after, count in enumerate(unseen) if count]
    if len(nexts) > DEPTH2_KINDS:
        return Advice(estimates, {}, spent)
    reply = max(1, reply * min(len(candidates), DEPTH2_SHARE) // len(candidates))  # DEPTH2_SHARE's work at most
    jobs = [(b, t) for b in candidates for t in nexts]
    scorer.plan(len(jobs) * reply, processes=_workers(scorer, len(jobs)))
    # the same generator state for every candidate: the same futures after each next tile
    seed = draws.getrandbits(62)
    found = iter(_replies(cells, tile, unseen, seed, reply, scorer, jobs))
    total = sum(unseen)
    replies: dict[int, dict[int, float]] = {}
    searched = []
    for box in candidates:
        values: dict[int, float] = {}
        mean = variance = 0.0
        playouts = 0
        for after in nexts:
            top, tiles = next(found)
            spent += tiles
            playouts += top.playouts
            values[after] = top.mean
            weight = unseen[after] / total
            mean += weight * top.mean
            variance += (weight * top.stderr) ** 2
        replies[box] = values
        searched.append(BoxEstimate(box, mean, math.sqrt(variance), playouts, depth=2))
    searched.sort(key=lambda e: (-e.mean, e.box))
    rest_of = [e for e in estimates if e.box not in replies]
    return Advice(searched + rest_of, replies, spent)


Reply = tuple[Cells, int, Unseen, int, int, Scorer]
"""A position the depth-2 search replies to: cells, tile, unseen, seed, reply tiles, scorer."""


def _reply(position: Reply, box: int, after: int) -> tuple[BoxEstimate, int]:
    """The best box for `after` when the tile is written in `box`, by a small Monte Carlo seeded with
    `after` (every candidate box gets the same futures); and the tiles placed."""
    cells, tile, unseen, seed, reply, scorer = position
    start = list(cells)
    start[box] = tile
    rest = list(unseen)
    rest[after] -= 1
    boxes = reply_boxes(start, after, rest, scorer.points)
    estimates = _halving(start, after, rest, random.Random(seed + after), reply, scorer, boxes=boxes)
    return estimates[0], sum(e.playouts for e in estimates) * (start.count(EMPTY) - 1)


def reply_boxes(cells: Cells, tile: int, unseen: Unseen, points: Sequence[int]) -> list[int]:
    """The boxes the depth-2 search tries a next `tile` in: every box of the runs of empty boxes whose
    bounds it fits, and the gap heuristic's own choice; every empty box for the wild or when it fits
    fewer than two boxes. (Measured: the reply's play-outs spent on these alone scored +0.12 ± 0.12 a
    game over spending them on every empty box, on the same 4,000 games of seeds LAB and R2.)"""
    if tile == WILD:
        return empty_boxes(cells)
    gaps = gaps_of(cells, len(unseen) - 1)
    boxes = [box for first, last, lo, hi in gaps if lo <= tile <= hi for box in range(first, last + 1)]
    if len(boxes) < 2:
        return empty_boxes(cells)
    at = pick(gaps, tile, unseen, cells, points)[1]
    return boxes if at in boxes else sorted([*boxes, at])


def _replies(cells: Cells, tile: int, unseen: Unseen, seed: int, reply: int, scorer: Scorer,
             jobs: list[tuple[int, int]]) -> list[tuple[BoxEstimate, int]]:
    """`_reply` for each (box, next tile), in order: in scorer.jobs processes forked from this one when
    the play-outs run in plain Python (the results are the same either way)."""
    position: Reply = (cells, tile, unseen, seed, reply, scorer)
    workers = _workers(scorer, len(jobs))
    if workers >= 2 and scorer.kernel() is not None:  # the compiled kernel is faster in one process
        workers = 1
    return forked_map(lambda job: _reply(position, *job), jobs, workers)


def _workers(scorer: Scorer, jobs: int) -> int:
    """How many processes _replies forks for `jobs` replies (1: it runs them itself)."""
    workers = min(scorer.jobs, jobs // 4)
    return workers if workers >= 2 and can_fork() else 1
