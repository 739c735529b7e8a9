"""The Streams coach: advise, simulate and review."""

from __future__ import annotations

import hashlib
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import typer

from paperplay.cli.app import app
from paperplay.cli.common import guarded, print_json
from paperplay.errors import InputError
from paperplay.seeds import Rng, canonical_seed, display_code

def _parse_tile(text: str, option: str) -> Any:
    from paperplay.streams.rules import WILD

    item = text.strip()
    if item in ("*", "x", "X"):
        return WILD
    if re.fullmatch(r"[0-9]{1,2}", item) and 1 <= int(item) <= 30:
        return int(item)
    raise InputError(f"{option}: is {text!r}; expected an integer 1-30 or * for the wild")


def _check_budget(budget: int) -> None:
    from paperplay.streams.coach import MAX_MOVE_BUDGET

    if not 100 <= budget <= MAX_MOVE_BUDGET:
        raise InputError(f"--budget: is {budget}; expected 100 to {MAX_MOVE_BUDGET:,}")


def _known_tiles(cells: list[Any], tile: Any, seen: str | None) -> list[Any]:
    """Tiles out of the bag: on the sheet or in --seen (each value as often as the larger says), and the tile."""
    from paperplay.streams.rules import WILD, standard_rules
    from paperplay.streams.sheet import parse_tiles

    on_sheet = Counter(c for c in cells if c is not None)
    listed = Counter(parse_tiles(seen, "--seen", count=None)) if seen else Counter()
    known = on_sheet | listed
    known[tile] += 1
    bag = standard_rules().bag_counts()
    for value, n in sorted(known.items(), key=lambda kv: (kv[0] == WILD, kv[0] if kv[0] != WILD else 0)):
        if n > bag[value]:
            name = "the wild" if value == WILD else str(value)
            raise InputError(f"--cells, --tile and --seen: {n} copies of {name} are out of the bag, "
                             f"but the bag has {bag[value]}")
    return list(known.elements())


@app.command()
@guarded
def advise(
    cells: str = typer.Option(..., "--cells", help="The sheet so far: 20 boxes, _ for empty, e.g. \"3 _ _ 12 …\".",
                              show_default=False),
    tile: str = typer.Option(..., "--tile", help="The tile just drawn (1-30, or * for the wild).", show_default=False),
    seen: str = typer.Option(None, "--seen", help="Tiles drawn earlier, known to be out of the bag."),
    seed: str = typer.Option(None, "--seed", help="The coach's own seed (default: one made from the position)."),
    budget: int = typer.Option(None, "--budget",
                               help="Tiles placed in play-outs (default 60000, about half a second; "
                               "100-10000000)."),
    top: int = typer.Option(3, "--top", help="How many boxes to show."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document."),
) -> None:
    """Says where to write the tile just drawn, with the expected final score of the best boxes.

    The coach plays the rest of the game out many times (Monte Carlo with successive halving, the
    gap heuristic writing the future tiles) and ranks the empty boxes by the mean final score.
    The same position and seed always give the same advice.

    Example: paperplay advise --cells "3 _ _ 12 _ _ _ 15 _ _ _ _ 21 _ _ _ _ _ _ 29" --tile 17
    """
    from paperplay.streams.coach import COACH_BUDGET, Scorer, encode, evaluate, unseen_counts
    from paperplay.streams.rules import standard_rules

    from paperplay.streams.sheet import parse_tiles

    rules = standard_rules()
    row = list(parse_tiles(cells, "--cells", empty=True))
    drawn = _parse_tile(tile, "--tile")
    if None not in row:
        raise InputError("--cells: every box is full; there is nowhere to write the tile")
    if top < 1:
        raise InputError(f"--top: is {top}; expected 1 or more")
    known = _known_tiles(row, drawn, seen)
    if budget is None:
        budget = COACH_BUDGET
    else:
        _check_budget(budget)
    if seed is None:
        text = " ".join("_" if c is None else str(c) for c in row) + f"|{drawn}|{sorted(map(str, known))}"
        seed = hashlib.sha256(text.encode()).hexdigest()[:8].upper()
    seed = canonical_seed(seed)
    unseen = unseen_counts(rules, known)
    codes = [0 if c is None else encode(c) for c in row]
    started = time.perf_counter()
    estimates = evaluate(codes, encode(drawn), unseen, Rng("coach/advise", seed), budget, Scorer(rules),
                         keep=min(top, codes.count(0)))
    seconds = time.perf_counter() - started
    shown = estimates[:top]
    playouts = sum(e.playouts for e in estimates)
    if as_json:
        print_json({"game": "streams", "cells": row, "tile": drawn,
                    "best_box": shown[0].box + 1, "choices": [e.to_json() for e in shown],
                    "playouts": playouts, "seed": seed, "seconds": round(seconds, 3)})
        return
    name = "the wild" if drawn == "*" else str(drawn)
    typer.echo(f"Write {name} in box {shown[0].box + 1}: expected final score {shown[0].mean:.1f} "
               f"± {shown[0].stderr:.1f}")
    for e in shown:
        typer.echo(f"  box {e.box + 1:2d}: {e.mean:6.1f} ± {e.stderr:.1f}   ({e.playouts:,} play-outs)")
    typer.echo(f"({playouts:,} play-outs of the remaining {codes.count(0) - 1} draws, seed {display_code(seed)}, "
               f"{seconds:.2f} s)")


def _strategy_names(strategy_name: str | None, compare: str | None) -> list[str]:
    from paperplay.streams.coach import STRATEGIES, strategy

    if (strategy_name is None) == (compare is None):
        raise InputError("give --strategy NAME or --compare A,B,… (one of them); strategies: "
                         + ", ".join(STRATEGIES))
    names = [strategy_name.strip()] if strategy_name is not None else [n.strip() for n in compare.split(",")]  # type: ignore[union-attr]
    option = "--strategy" if strategy_name is not None else "--compare"
    if not all(names):
        raise InputError(f"{option}: names an empty strategy; expected names from {', '.join(STRATEGIES)}, "
                         "separated by commas")
    for name in names:
        try:
            strategy(name)
        except ValueError as exc:
            raise InputError(f"{option}: {exc}") from None
    if len(set(names)) != len(names):
        raise InputError("--compare: a strategy is named twice")
    return names


@app.command()
@guarded
def simulate(
    strategy_name: str = typer.Option(None, "--strategy", help="random, proportional, gap, montecarlo[:BUDGET] "
                                      "or coach."),
    compare: str = typer.Option(None, "--compare", help="Several strategies on the same games, e.g. gap,montecarlo."),
    games: int = typer.Option(1000, "--games", "-n", help="How many games (1-100,000)."),
    seed: str = typer.Option("LAB", "--seed", "-s", help="Game i is drawn from seed <SEED>G<i> (SPEC §3)."),
    jobs: int = typer.Option(1, "--jobs", "-j", help="Worker processes."),
    plot: Path = typer.Option(None, "--plot", help="Draw the score distributions to FILE.png or FILE.pdf."),
    force: bool = typer.Option(False, "--force", help="Overwrite the --plot file."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document."),
) -> None:
    """Plays seeded Streams games with placement strategies and reports their scores.

    Every strategy sees the same games. Reports the mean with its standard error, the median, the
    10th and 90th percentiles, the chance of 300 (a single series of 20) and games per second;
    with --compare, also each strategy's mean difference from the first, on the same games.

    Examples: paperplay simulate --strategy gap --games 2000

              paperplay simulate --compare proportional,gap,montecarlo --games 200 --jobs 4 --plot lab.png
    """
    from paperplay.files import check_writable
    from paperplay.streams.lab import paired
    from paperplay.streams.lab import simulate as run

    names = _strategy_names(strategy_name, compare)
    if not 1 <= games <= 100_000:
        raise InputError(f"--games: is {games}; expected 1 to 100,000")
    if not 1 <= jobs <= 256:
        raise InputError(f"--jobs: is {jobs}; expected 1 to 256")
    canonical = canonical_seed(seed)
    if plot is not None:
        if plot.suffix.lower() not in (".png", ".pdf"):
            raise InputError(f"--plot: {plot} must end in .png or .pdf")
        check_writable(plot, force)
    total = games * len(names)
    with typer.progressbar(length=total, label="Playing", file=sys.stderr, show_pos=True) as bar:
        summaries = run(names, games, canonical, jobs, progress=bar.update)
    if plot is not None:
        _write_plot(summaries, plot, force, f"Streams strategies, {games} games, seed {display_code(canonical)}")
    if as_json:
        document: dict[str, Any] = {"game": "streams", "games": games, "seed": canonical,
                                    "strategies": [s.to_json() for s in summaries]}
        if len(summaries) > 1:
            document["differences"] = [{"strategy": s.name, "versus": summaries[0].name,
                                        "mean": round(d, 3), "stderr": round(e, 3)}
                                       for s in summaries[1:] for d, e in [paired(summaries[0], s)]]
        print_json(document)
        return
    typer.echo(f"{games} games, seed {display_code(canonical)} (game i drawn from seed {canonical}G<i>)")
    typer.echo(f"  {'strategy':<16} {'mean':>7} {'± se':>6} {'median':>7} {'p10':>5} {'p90':>5} "
               f"{'300s':>6} {'games/s':>9}")
    for s in summaries:
        typer.echo(f"  {s.name:<16} {s.mean:7.2f} {s.stderr:6.2f} {s.median:7g} {s.percentile(10):5g} "
                   f"{s.percentile(90):5g} {s.perfect:6.1%} {s.rate:9.1f}")
    for s in summaries[1:]:
        d, e = paired(summaries[0], s)
        typer.echo(f"  {s.name} - {summaries[0].name}: {d:+.2f} ± {e:.2f} points a game (same games)")
    if plot is not None:
        typer.echo(f"Wrote {plot}")


def _write_plot(summaries: Any, path: Path, force: bool, title: str) -> None:
    from paperplay.files import write_atomic
    from paperplay.render.pdf import write_pdf
    from paperplay.render.png import png_bytes
    from paperplay.streams.lab import histogram_document

    document = histogram_document(summaries, title)
    if path.suffix.lower() == ".pdf":
        write_pdf(document, path, force)
    else:
        write_atomic(path, png_bytes(document.pages[0], dpi=120), force)


@app.command()
@guarded
def review(
    sheet: Path = typer.Argument(..., help="A finished Streams sheet with its seed (or draw) and placements.",
                                 show_default=False),
    budget: int = typer.Option(None, "--budget", help="Tiles placed in play-outs per turn (default 60000; "
                                                    "100-10000000)."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document."),
) -> None:
    """Replays a finished game turn by turn: where each tile was written, where the coach would have
    written it, and the expected final score lost at each step.

    The sheet needs its draw (field seed or draw) and the order of writing: field placements, the
    box of each draw in draw order.

    Example: paperplay review ann.json
    """
    from paperplay.jsonfile import read_json
    from paperplay.streams.coach import COACH_BUDGET
    from paperplay.streams.lab import review as run
    from paperplay.streams.rules import score
    from paperplay.streams.sheet import check_placements, draw_of, sheet_from_json

    data = sheet_from_json(read_json(sheet), str(sheet))
    seed, drawn = draw_of(data)
    if drawn is None:
        raise InputError(f"{sheet}: needs field seed or field draw: review replays the draw")
    if data.placements is None:
        raise InputError(f"{sheet}: missing field 'placements' (the box of each draw, in draw order); "
                         "review needs the order of writing")
    wrong = check_placements(data.cells, data.placements, drawn)
    if wrong:
        raise InputError(f"{sheet}: field {wrong[0].message}")
    if budget is not None:
        _check_budget(budget)
    seed = seed or canonical_seed(hashlib.sha256(str(drawn).encode()).hexdigest()[:8])
    turns = []
    with typer.progressbar(length=len(drawn), label="Reviewing", file=sys.stderr, show_pos=True) as bar:
        for turn in run(drawn, data.placements, seed, budget or COACH_BUDGET):
            turns.append(turn)
            bar.update(1)
    lost = sum(t.loss for t in turns)
    total = score(data.cells).total
    if as_json:
        print_json({"file": str(sheet), "total": total, "expected_loss": round(lost, 2),
                    "turns": [t.to_json() for t in turns]})
        return
    typer.echo(f"{sheet}: scored {total}; the coach's choices were worth about {lost:.1f} more points in all")
    typer.echo(f"  {'turn':>4} {'tile':>4} {'wrote':>5} {'coach':>5} {'expected':>9} {'coach':>7} {'lost':>6}")
    for t in turns:
        mark = "" if t.written == t.best else "  <"
        tile = "*" if t.tile == "*" else str(t.tile)
        typer.echo(f"  {t.turn:4d} {tile:>4} {t.written:5d} {t.best:5d} {t.expected_written:9.1f} "
                   f"{t.expected_best:7.1f} {t.loss:6.1f}{mark}")
