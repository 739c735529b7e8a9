"""The Streams strategy lab: seeded games for every strategy, their statistics, a histogram page,
and the review of a finished game against the coach.

Game i (from 1) of a run with seed S is drawn from seed `<S>G<i>` by SPEC §3, so every strategy
and every `--jobs` setting plays the same games.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from paperplay.render.model import Document, Line, Page, Rect, Text, paper_size
from paperplay.seeds import Rng, canonical_seed
from paperplay.streams.coach import (
    COACH_BUDGET, WILD_CODE, Scorer, decode, encode, evaluate, play_game, strategy, unseen_counts,
)
from paperplay.streams.rules import StreamsRules, Tile, draw, standard_rules

PERFECT = 300


def game_seed(seed: str, number: int) -> str:
    return canonical_seed(f"{seed}G{number}")


def play_games(name: str, seed: str, numbers: Sequence[int]) -> list[int]:
    """Final scores of the given games (numbers from 1) for one strategy. Runs in worker processes."""
    rules = standard_rules()
    policy = strategy(name)
    scorer = Scorer(rules)
    scores = []
    for number in numbers:
        game = game_seed(seed, number)
        _, cells = play_game(policy, draw(game, rules), rules, Rng(f"coach/{name}", game))
        scores.append(scorer(cells))
    return scores


def _play_chunk(job: tuple[str, str, list[int]]) -> tuple[str, list[int], list[int]]:
    name, seed, numbers = job
    return name, numbers, play_games(name, seed, numbers)


@dataclass(frozen=True)
class Summary:
    """One strategy's results over a run of games."""

    name: str
    scores: tuple[int, ...]
    seconds: float

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
        return sum(1 for s in self.scores if s >= PERFECT) / self.games

    @property
    def rate(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else float("inf")

    def to_json(self) -> dict[str, Any]:
        return {"strategy": self.name, "games": self.games, "mean": round(self.mean, 3),
                "stderr": round(self.stderr, 3), "median": self.median, "p10": self.percentile(10),
                "p90": self.percentile(90), "chance_of_300": self.perfect,
                "games_per_second": round(self.rate, 2)}


def paired(a: Summary, b: Summary) -> tuple[float, float]:
    """Mean difference b - a over the same games, and its standard error."""
    diffs = [y - x for x, y in zip(a.scores, b.scores)]
    se = statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else 0.0
    return statistics.fmean(diffs), se


def simulate(names: Sequence[str], games: int, seed: str, jobs: int = 1,
             progress: Callable[[int], None] | None = None) -> list[Summary]:
    """Plays `games` seeded games with each strategy (in `jobs` processes); one Summary each."""
    chunk = max(1, min(25, games // (4 * max(1, jobs)) or 1))
    work = [(name, seed, list(range(start, min(games, start + chunk - 1) + 1)))
            for name in names for start in range(1, games + 1, chunk)]
    results: dict[str, dict[int, int]] = {name: {} for name in names}
    seconds: dict[str, float] = {name: 0.0 for name in names}

    def collect(outcomes: Iterator[tuple[str, list[int], list[int]]]) -> None:
        started = time.perf_counter()
        for name, numbers, scores in outcomes:
            now = time.perf_counter()
            seconds[name] += now - started
            started = now
            results[name].update(zip(numbers, scores))
            if progress is not None:
                progress(len(numbers))

    if jobs <= 1:
        collect(_play_chunk(job) for job in work)
    else:
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(jobs, initializer=_ignore_interrupts) as pool:
            collect(pool.imap(_play_chunk, work))
    return [Summary(name, tuple(results[name][i] for i in range(1, games + 1)), seconds[name]) for name in names]


def _ignore_interrupts() -> None:
    """Workers leave Ctrl-C to the parent, which stops them: no traceback from each worker."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


# -- the histogram page ----------------------------------------------------------------------------

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")


def histogram_page(summaries: Sequence[Summary], title: str, bin_width: int = 5, cap: int = 150) -> Page:
    """One histogram per strategy, stacked on the same score axis (A4 landscape), means marked."""
    width, height = paper_size("a4", landscape=True)
    left, right, top = 28.0, width - 12.0, 24.0
    bins = cap // bin_width + 1  # the last bin holds everything from `cap` up
    panel = min(40.0, (height - top - 22) / max(1, len(summaries)))
    height = min(height, top + panel * len(summaries) + 16)  # no empty half page for a few strategies
    items: list[Any] = [Text(left, 14, title, size=13, bold=True)]
    scale = (right - left) / bins
    for row, summary in enumerate(summaries):
        y0 = top + row * panel
        base = y0 + panel - 8
        counts = [0] * bins
        for s in summary.scores:
            counts[min(bins - 1, s // bin_width)] += 1
        tallest = max(counts) or 1
        colour = COLOURS[row % len(COLOURS)]
        for i, n in enumerate(counts):
            if n:
                h = (panel - 14) * n / tallest
                items.append(Rect(left + i * scale + 0.3, base - h, scale - 0.6, h, stroke=0, fill=colour))
        items.append(Line(left, base, right, base, width=0.6, color="#444444"))
        mean_x = left + min(summary.mean, cap + bin_width) / bin_width * scale
        items.append(Line(mean_x, y0 + 6, mean_x, base, width=0.8, color="#000000"))
        label = (f"{summary.name}: mean {summary.mean:.1f} ± {summary.stderr:.1f}, median {summary.median:g}, "
                 f"10th-90th {summary.percentile(10):g}-{summary.percentile(90):g}, {summary.games} games")
        items.append(Text(left, y0 + 4, label, size=8.5, bold=True, color=colour))
        for tick in range(0, cap + 1, 25):
            x = left + tick / bin_width * scale
            items.append(Line(x, base, x, base + 1.2, width=0.4, color="#444444"))
            items.append(Text(x, base + 4.2, f"{tick}+" if tick == cap else str(tick), size=6, align="center",
                              color="#444444"))
    items.append(Text(left, height - 8, f"Final score, bins of {bin_width}; the line marks the mean.", size=7,
                      color="#444444"))
    return Page(width, height, tuple(items), "player", "score distributions")


def histogram_document(summaries: Sequence[Summary], title: str) -> Document:
    return Document(title=title, pages=(histogram_page(summaries, title),))


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
        return {"turn": self.turn, "tile": self.tile, "written": self.written, "coach": self.best,
                "expected_written": round(self.expected_written, 2), "expected_coach": round(self.expected_best, 2),
                "stderr": round(self.stderr, 2), "loss": round(self.loss, 2)}


def review(drawn: Sequence[Tile], placements: Sequence[int], seed: str, budget: int = COACH_BUDGET,
           rules: StreamsRules | None = None) -> Iterator[TurnReview]:
    """Replays a game in draw order; for each turn, the coach's expected final score of the box the
    player chose and of its own best box (the same play-outs judge both)."""
    rules = rules or standard_rules()
    scorer = Scorer(rules)
    cells = [0] * rules.boxes
    unseen = unseen_counts(rules, [])
    for turn, (tile, box) in enumerate(zip(drawn, placements), start=1):
        code = encode(tile)
        unseen[0 if code == WILD_CODE else code] -= 1
        estimates = evaluate(cells, code, unseen, Rng("coach/review", f"{seed}T{turn}"), budget, scorer)
        by_box = {e.box: e for e in estimates}
        best = estimates[0]
        mine = by_box[box - 1]
        yield TurnReview(turn, decode(code), box, best.box + 1, mine.mean, best.mean,
                         math.hypot(mine.stderr, best.stderr))
        cells[box - 1] = code
