"""The coach's compiled play-out kernel (numba, the `fast` extra) gives the plain-Python results."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paperplay.seeds import Rng
from paperplay.streams import kernel
from paperplay.streams.coach.playout import KERNEL_AFTER, Scorer, play_boxes, unseen_counts
from paperplay.streams.rules import EMPTY
from paperplay.streams.coach.search import evaluate, search
from paperplay.streams.rules import WILD, standard_rules

RULES = standard_rules()


def test_futures_are_draws_without_replacement_and_depend_only_on_the_seed():
    pool = [t for t, n in sorted(RULES.bag_counts().items()) for _ in range(n)]
    futures = kernel.futures(pool, 19, 200, seed=12345)
    assert len(futures) == 200 and all(len(f) == 19 for f in futures)
    assert all(not Counter(f) - Counter(pool) for f in futures)  # never more copies than the pool has
    assert futures == kernel.futures(pool, 19, 200, seed=12345)
    assert futures != kernel.futures(pool, 19, 200, seed=12346)
    # Every tile comes first about equally often (a uniform shuffle, not a biased one).
    firsts = Counter(f[0] for f in kernel.futures(pool, 1, 8000, seed=7))
    assert all(100 <= firsts[t] * 40 / RULES.bag_counts()[t] / 8000 * 200 <= 300 for t in set(pool))


def _position(seed: int, filled: int) -> tuple[list[int], int, list[int]]:
    """A random sheet with `filled` boxes written (the wild among them or not) and the next tile."""
    rng = random.Random(seed)
    pool = [t for t, n in sorted(RULES.bag_counts().items()) for _ in range(n)]
    drawn = rng.sample(pool, filled + 1)
    cells = [EMPTY] * RULES.boxes
    for tile, box in zip(drawn, rng.sample(range(RULES.boxes), filled)):
        cells[box] = tile
    return cells, drawn[-1], unseen_counts(RULES, drawn)


@pytest.fixture()
def no_jit(monkeypatch):
    monkeypatch.setattr(kernel, "load", lambda: None)


numba = pytest.importorskip("numba", reason="needs the fast extra (pip install '.[fast]'): the compiled kernel")


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 18))
def test_compiled_play_outs_equal_the_python_ones(seed, filled):
    cells, tile, unseen = _position(seed, filled)
    scorer = Scorer(RULES)
    scorer.plan(KERNEL_AFTER)
    assert scorer.kernel() is None  # not worth loading for a little work
    scorer.plan(1)
    assert scorer.kernel() is not None
    boxes = [i for i, c in enumerate(cells) if c == EMPTY]
    compiled = play_boxes(cells, tile, boxes, 12, seed, unseen, scorer)
    original = kernel.load
    try:
        kernel.load = lambda: None  # type: ignore[assignment]
        plain = play_boxes(cells, tile, boxes, 12, seed, unseen, scorer)
    finally:
        kernel.load = original  # type: ignore[assignment]
    assert compiled == plain


def test_a_wild_on_the_sheet_and_in_hand_play_out_the_same(monkeypatch):
    cells = [EMPTY] * 20
    cells[5], cells[12] = WILD, 17
    unseen = unseen_counts(RULES, [WILD, 17, 4])
    scorer = Scorer(RULES)
    scorer.plan(KERNEL_AFTER + 1)
    assert scorer.kernel() is not None
    compiled = play_boxes(cells, 4, [0, 3, 8, 19], 50, 99, unseen, scorer)
    monkeypatch.setattr(kernel, "load", lambda: None)
    assert play_boxes(cells, 4, [0, 3, 8, 19], 50, 99, unseen, scorer) == compiled


def test_the_coach_advises_the_same_with_or_without_the_kernel(monkeypatch):
    cells, tile, unseen = _position(3, 2)
    fast = Scorer(RULES)
    fast.plan(KERNEL_AFTER + 1)
    assert fast.kernel() is not None
    compiled = search(cells, tile, unseen, Rng("t", "K"), fast, first=3000)
    mc = evaluate(cells, tile, unseen, Rng("t", "M"), 5000, fast)
    monkeypatch.setattr(kernel, "load", lambda: None)
    assert search(cells, tile, unseen, Rng("t", "K"), Scorer(RULES), first=3000) == compiled
    assert evaluate(cells, tile, unseen, Rng("t", "M"), 5000, Scorer(RULES)) == mc


def test_work_split_among_forked_processes_counts_once_a_process():
    split = Scorer(RULES, jobs=2)
    split.plan(2 * KERNEL_AFTER, processes=2)  # as long as KERNEL_AFTER tiles in one process
    assert split.kernel() is None
    split.plan(1)
    assert split.kernel() is not None
