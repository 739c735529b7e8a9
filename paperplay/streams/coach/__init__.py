"""The Streams coach: where to write a tile, and why.

- `playout`: positions (`Cells`, `Unseen`), the `Scorer`, the gap heuristic and the play-outs that use
  it. The plain-Python reference of the compiled kernel (paperplay/streams/kernel.py): the tests
  compare the two, number for number.
- `search`: Monte Carlo by successive halving, the two-tile-deep search and the exact last moves:
  the advice (`search`), its replies shared out over forked workers (paperplay.processes).
- `strategies`: every placement strategy by name (`strategy`, `STRATEGIES`), one interface
  (`choose(cells, tile, unseen, rng) -> box index`), and `play_game`.
- `explain`: the advice in a sentence or two.

Pure: no files, no printing; scoring agrees with `rules.score` (tests check it).
"""
