"""The Streams coach: where to write a tile, and why.

- `playout`: positions (`Cells`, `Unseen`), the `Scorer`, the gap heuristic and the play-outs that use
  it. The plain-Python reference of the compiled kernel (paperplay/streams/kernel.py): the tests
  compare the two, number for number.
- `search`: Monte Carlo by successive halving, the two-tile-deep search and the exact last moves:
  the advice (`search`), its replies shared out over forked workers (paperplay.processes).
- `strategies`: every placement strategy by name (`strategy`, `STRATEGIES`), one interface
  (`choose(cells, tile, unseen, rng) -> box index`), and `play_game`.
- `explain`: the advice in a sentence or two.
- `advise`: the job of `paperplay advise`: one position in, the advice (`Advised`) out.

No files, no printing and no signal handling of its own (the forked workers are
paperplay.processes'); scoring agrees with `rules.score` (tests check it).
"""

from paperplay.streams.coach.playout import unseen_counts
from paperplay.streams.coach.strategies import STRATEGIES, Strategy, strategy

__all__ = ["STRATEGIES", "Strategy", "strategy", "unseen_counts"]
"""The coach's public face from Python (docs/reference/python-api.md): a strategy by name, its
interface, and the unseen tiles of a position."""
