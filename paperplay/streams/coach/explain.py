"""The coach's advice in a sentence or two: why the best box beats the runner-up."""

from __future__ import annotations

import math

from paperplay.streams.coach.playout import Cells, Unseen, gaps_of
from paperplay.streams.coach.search import Advice
from paperplay.streams.rules import WILD

def _around(cells: Cells, box: int, tile: int, unseen: Unseen, short: bool = False) -> str:
    """The runs of empty boxes either side of `tile` written in `box`, and the unseen numbers that fit them:
    those between the numbers around the run, passing over the wild (it may stand for any value between)."""
    after = list(cells)
    after[box] = tile
    numbers = [c if c > 0 else None for c in after]  # neither empty nor the wild
    parts = []
    for first, last, _, _ in gaps_of(after, len(unseen) - 1):
        if last == box - 1 or first == box + 1:
            lo = next((c for c in reversed(numbers[:first]) if c is not None), 1)
            hi = next((c for c in numbers[last + 1:] if c is not None), len(unseen) - 1)
            fit = sum(unseen[max(lo, 1):hi + 1]) if lo <= hi else 0
            where = f"box {first + 1}" if first == last else f"{last - first + 1} boxes ({first + 1}–{last + 1})"
            values = f"{lo}" if lo == hi else f"{lo}–{hi}"
            if lo > hi:
                parts.append(f"{where} where no number fits")
            elif fit == 0:
                parts.append(f"{where} where no unseen number fits ({values})")
            elif short:
                parts.append(f"{where} for {fit}")
            else:
                parts.append(f"{where} open for the {fit} unseen numbers {values}" if fit != 1
                             else f"{where} open for the one unseen number that fits ({values})")
    return " and ".join(parts) or "no empty box beside it"


def explain(cells: Cells, tile: int, unseen: Unseen, advice: Advice) -> str:
    """One or two sentences on why the best box beats the runner-up (or is about as good as it), from
    what the search computed: the difference in expected score, how many of the possible next tiles
    favour each box (depth 2), and the runs of empty boxes each leaves beside the tile with the unseen
    numbers that fit them."""
    best = advice.best
    name = "the wild" if tile == WILD else str(tile)
    if len(advice.estimates) < 2:
        return f"Box {best.box + 1} is the only empty box."
    second = advice.estimates[1]
    difference = best.mean - second.mean
    error = math.hypot(best.stderr, second.stderr)
    lead = (f"Box {best.box + 1} beats box {second.box + 1} by" if difference > error else
            f"Box {best.box + 1} is about as good as box {second.box + 1}, ahead by")  # within the noise: a tie
    first_sentence = f"{lead} {difference:.1f} ± {error:.1f} expected points"
    if best.depth == 2 and second.depth == 2:
        mine, theirs = advice.replies[best.box], advice.replies[second.box]
        total = sum(unseen)
        wins = sum(unseen[t] for t in mine if mine[t] > theirs[t])
        losses = sum(unseen[t] for t in mine if mine[t] < theirs[t])
        first_sentence += (f", looking two tiles ahead: it is the better start for {wins} of the {total} "
                           "tiles that may come next")
        if losses > wins:  # a minority, by more: said, or the count reads as an argument against the box
            first_sentence += (f" (box {second.box + 1} for {losses}, by less: it is the points those tiles "
                               "bring that count, not how many there are)")
    elif best.depth == 0:
        first_sentence = (f"Box {best.box + 1} beats box {second.box + 1} by {difference:.1f} expected points"
                          if difference >= 0.05 else f"Box {best.box + 1} is as good as box {second.box + 1}")
        first_sentence += ", counting every way the last draws may come"
    else:
        first_sentence += " in the play-outs"
    return (f"{first_sentence}. Writing {name} in box {best.box + 1} keeps {_around(cells, best.box, tile, unseen)}; "
            f"box {second.box + 1} would keep {_around(cells, second.box, tile, unseen, short=True)}.")
