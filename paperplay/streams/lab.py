"""The Streams strategy lab: seeded games for every strategy, their statistics
and the review of a finished game against the coach.

Game i (from 1) of a run with seed S is drawn from seed `<S>G<i>` by docs/reference/seeds.md, so every strategy
and every `--jobs` setting plays the same games.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from paperplay.seeds import Rng, canonical_seed
from paperplay.streams.coach.playout import Scorer, unseen_counts
from paperplay.streams.coach.search import COACH_BUDGET, search
from paperplay.streams.coach.strategies import play_game, strategy
from paperplay.streams.rules import EMPTY, StreamsRules, Tile, draw, standard_rules, tile_json, top_score

PERFECT = 300


def game_seed(seed: str, number: int) -> str:
    return canonical_seed(f"{seed}G{number}")


def play_games(name: str, seed: str, numbers: Sequence[int], rules: StreamsRules | None = None) -> list[int]:
    """Final scores of the given games (numbers from 1) for one strategy. Runs in worker processes."""
    rules = rules or standard_rules()
    policy = strategy(name, rules)
    scorer = Scorer(rules)
    scores = []
    for number in numbers:
        game = game_seed(seed, number)
        _, cells = play_game(policy, draw(game, rules), rules, Rng(f"coach/{name}", game))
        scores.append(scorer(cells))
    return scores


def _play_chunk(job: tuple[str, str, list[int], StreamsRules]) -> tuple[str, list[int], list[int], float]:
    """One strategy's games in a worker, and the seconds they took there."""
    name, seed, numbers, rules = job
    started = time.perf_counter()
    scores = play_games(name, seed, numbers, rules)
    return name, numbers, scores, time.perf_counter() - started


@dataclass(frozen=True)
class Summary:
    """One strategy's results over a run of games."""

    name: str
    scores: tuple[int, ...]
    seconds: float  # the time its games took, summed over the processes that played them
    perfect_score: int = PERFECT  # the most a sheet can score (rules.top_score): one series through every box

    @property
    def games(self) -> int:
        return len(self.scores)

    @property
    def mean(self) -> float:
        return statistics.fmean(self.scores)

    @property
    def stderr(self) -> float:
        return statistics.stdev(self.scores) / math.sqrt(self.games) if self.games > 1 else 0.0

    @property
    def median(self) -> float:
        return statistics.median(self.scores)

    def percentile(self, p: int) -> float:
        if self.games < 2:
            return float(self.scores[0])
        return statistics.quantiles(self.scores, n=100, method="inclusive")[p - 1]

    @property
    def perfect(self) -> float:
        return sum(1 for s in self.scores if s >= self.perfect_score) / self.games

    @property
    def rate(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else float("inf")

    def to_json(self) -> dict[str, Any]:
        document: dict[str, Any] = {
            "strategy": self.name, "games": self.games, "mean": round(self.mean, 3), "stderr": round(self.stderr, 3),
            "median": self.median, "p10": self.percentile(10), "p90": self.percentile(90),
            "chance_of_300": self.perfect, "games_per_second": round(self.rate, 2)}
        if self.perfect_score != PERFECT:  # a variant: chance_of_300 is the chance of its top score
            document["perfect_score"] = self.perfect_score
        return document


def paired(a: Summary, b: Summary) -> tuple[float, float]:
    """Mean difference b - a over the same games, and its standard error."""
    diffs = [y - x for x, y in zip(a.scores, b.scores)]
    se = statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else 0.0
    return statistics.fmean(diffs), se


def simulate(names: Sequence[str], games: int, seed: str, jobs: int = 1,
             progress: Callable[[int], None] | None = None, rules: StreamsRules | None = None) -> list[Summary]:
    """Plays `games` seeded games of the rules' variant with each strategy (in `jobs` processes);
    one Summary each."""
    rules = rules or standard_rules()
    chunk = max(1, min(25, games // (4 * max(1, jobs)) or 1))
    work = [(name, seed, list(range(start, min(games, start + chunk - 1) + 1)), rules)
            for name in names for start in range(1, games + 1, chunk)]
    results: dict[str, dict[int, int]] = {name: {} for name in names}
    seconds: dict[str, float] = {name: 0.0 for name in names}

    def collect(outcomes: Iterator[tuple[str, list[int], list[int], float]]) -> None:
        # Seconds as the workers measured them: with several jobs, the parent's waits say nothing
        # about a fast strategy whose games were played while it waited for a slow one's.
        for name, numbers, scores, took in outcomes:
            seconds[name] += took
            results[name].update(zip(numbers, scores))
            if progress is not None:
                progress(len(numbers))

    jobs = min(jobs, len(work))  # never more workers than pieces of work
    if jobs <= 1:
        collect(_play_chunk(job) for job in work)
    else:
        from paperplay.processes import ignore_interrupts, spawn_pool

        with spawn_pool(jobs, initializer=ignore_interrupts) as pool:
            collect(pool.imap(_play_chunk, work))
    return [Summary(name, tuple(results[name][i] for i in range(1, games + 1)), seconds[name],
                    top_score(rules)) for name in names]


# -- review ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TurnReview:
    """One turn of a finished game: where the tile went and where the coach would have put it."""

    turn: int
    tile: Tile
    written: int  # box, 1-based
    best: int
    expected_written: float
    expected_best: float
    stderr: float

    @property
    def loss(self) -> float:
        return max(0.0, self.expected_best - self.expected_written) if self.written != self.best else 0.0

    def to_json(self) -> dict[str, Any]:
        return {"turn": self.turn, "tile": tile_json(self.tile), "written": self.written, "coach": self.best,
                "expected_written": round(self.expected_written, 2), "expected_coach": round(self.expected_best, 2),
                "stderr": round(self.stderr, 2), "loss": round(self.loss, 2)}


def review(drawn: Sequence[Tile], placements: Sequence[int], seed: str, budget: int = COACH_BUDGET,
           rules: StreamsRules | None = None, jobs: int = 1) -> Iterator[TurnReview]:
    """Replays a game in draw order; for each turn, the coach's expected final score of the box the
    player chose and of its own best box (the same search judges both: the player's box is one of
    the boxes searched two tiles deep; the last four turns are exact for every box). `jobs`: the
    processes the search may fork while it runs in plain Python (the same results)."""
    rules = rules or standard_rules()
    scorer = Scorer(rules, jobs=jobs)
    cells = [EMPTY] * rules.boxes
    unseen = unseen_counts(rules, [])
    for turn, (tile, box) in enumerate(zip(drawn, placements), start=1):
        unseen[tile] -= 1
        estimates = search(cells, tile, unseen, Rng("coach/review", f"{seed}T{turn}"), scorer, first=budget,
                           include=box - 1).estimates
        by_box = {e.box: e for e in estimates}
        best = estimates[0]
        mine = by_box[box - 1]
        yield TurnReview(turn, tile, box, best.box + 1, mine.mean, best.mean, math.hypot(mine.stderr, best.stderr))
        cells[box - 1] = tile
