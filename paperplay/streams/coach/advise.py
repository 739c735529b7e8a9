"""The coach's job for one position: where to write the tile just drawn (`paperplay advise`)."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from paperplay.seeds import Rng, canonical_seed
from paperplay.streams.coach.explain import explain as explained
from paperplay.streams.coach.playout import Scorer, unseen_counts
from paperplay.streams.coach.search import COACH_BUDGET, Advice, search
from paperplay.streams.rules import EMPTY, StreamsRules, Tile, tile_json, tile_text


@dataclass(frozen=True)
class Advised:
    """The coach's advice on one position: the boxes ranked (`advice`), the seed its play-outs drew from,
    the explanation when asked for, and how long it took."""

    rules: StreamsRules
    cells: tuple[int, ...]
    tile: Tile
    seed: str
    advice: Advice
    explanation: str | None
    seconds: float

    def to_json(self, top: int) -> dict[str, Any]:
        """`paperplay advise --json`: the position, the best box and the `top` boxes' estimates."""
        shown = self.advice.estimates[:top]
        document: dict[str, Any] = {
            "game": "streams", "cells": [None if c == EMPTY else tile_json(c) for c in self.cells],
            "tile": tile_json(self.tile), "best_box": shown[0].box + 1, "choices": [e.to_json() for e in shown],
            "tiles": self.advice.tiles, "seed": self.seed, "seconds": round(self.seconds, 3)}
        if self.explanation is not None:
            document["explain"] = self.explanation
        if not self.rules.standard:
            document["variant"] = self.rules.name
        return document


def position_seed(cells: Sequence[int], tile: Tile, known: Sequence[Tile]) -> str:
    """The seed advice draws from when none is given: made from the position, so that the same position
    always gets the same advice."""
    text = (" ".join("_" if c == EMPTY else tile_text(c) for c in cells)
            + f"|{tile_text(tile)}|{sorted(map(tile_text, known))}")
    return canonical_seed(hashlib.sha256(text.encode()).hexdigest()[:8].upper())


def advise(cells: Sequence[int], tile: Tile, known: Sequence[Tile], rules: StreamsRules, seed: str | None = None,
           budget: int = COACH_BUDGET, jobs: int = 1, explain: bool = False) -> Advised:
    """Where to write `tile` on a sheet of `cells` (EMPTY for an empty box) when `known` tiles are out of
    the bag (those on the sheet, those seen, and the tile): `search` with `budget` tiles in its first
    Monte Carlo, its replies in up to `jobs` processes, from a canonical `seed` (default: the position's)."""
    seed = seed if seed is not None else position_seed(cells, tile, known)
    unseen = unseen_counts(rules, known)
    started = time.perf_counter()
    advice = search(list(cells), tile, unseen, Rng("coach/advise", seed), Scorer(rules, jobs=jobs), first=budget)
    seconds = time.perf_counter() - started
    reason = explained(list(cells), tile, unseen, advice) if explain else None
    return Advised(rules, tuple(cells), tile, seed, advice, reason, seconds)
