"""The Streams coach: advise, simulate and review."""

from __future__ import annotations

import hashlib
import re
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from paperplay.cli import options as opt
from paperplay.cli.common import SHORT_HELP, guarded, only_with, print_json, variant_file
from paperplay.errors import InputError
from paperplay.games import checked_seed
from paperplay.messages import printable
from paperplay.seeds import MAX_SEED_LENGTH, canonical_seed, display_code

if TYPE_CHECKING:
    from paperplay.streams.rules import StreamsRules

VARIANT_HELP = ("The Streams variant: standard (the default), a shipped NAME, or a variant FILE.json "
                "(see: paperplay schema streams-variant).")


def load_variant(variant: str | None) -> StreamsRules:
    """The rules --variant names; its errors name the option."""
    from paperplay.streams.api import variant_rules

    return variant_rules(variant)


def _parse_tile(text: str, option: str, rules: StreamsRules) -> int:
    from paperplay.streams.rules import WILD

    item = text.strip()
    if item in ("*", "x", "X"):
        return WILD
    if re.fullmatch(r"[0-9]{1,3}", item) and rules.lowest <= int(item) <= rules.highest:
        return int(item)
    raise InputError(f"{option}: is {text!r}; expected an integer {rules.lowest}-{rules.highest} or * (or X) "
                     "for the wild")


def _say_when_compiling(now: bool = False) -> None:
    """The coach's compiled kernel (the fast extra) compiles on its first use after installing:
    say so when that takes a while; with `now`, load it here (before worker processes start)."""
    from paperplay.streams import kernel

    kernel.notice = lambda: typer.echo("paperplay: compiling the coach's play-out kernel (the first time only, "
                                       "about 15 s)…", err=True)
    if now:
        kernel.load()


def _check_budget(budget: int) -> None:
    from paperplay.streams.coach.strategies import MAX_MOVE_BUDGET

    if not 100 <= budget <= MAX_MOVE_BUDGET:
        raise InputError(f"--budget: is {budget}; expected 100 to {MAX_MOVE_BUDGET:,}")


def _known_tiles(cells: list[int], tile: int, seen: str | None, rules: StreamsRules) -> list[int]:
    """Tiles out of the bag: on the sheet or in --seen (each value as often as the larger says), and the tile."""
    from paperplay.streams.referee import parse_tiles
    from paperplay.streams.rules import EMPTY, WILD, tile_name

    on_sheet = Counter(c for c in cells if c != EMPTY)
    if seen is not None and not seen.strip(" ,;\t\n"):
        raise InputError("--seen: is empty; expected the tiles known to be out of the bag, e.g. \"3 17 *\" "
                         "(or leave --seen out)")
    listed = Counter(parse_tiles(seen, "--seen", count=None, rules=rules)) if seen else Counter()
    known = on_sheet | listed
    known[tile] += 1
    bag = rules.bag_counts()
    for value, n in sorted(known.items(), key=lambda kv: (kv[0] == WILD, kv[0])):
        if n > bag[value]:
            raise InputError(f"--cells, --tile and --seen: {n} copies of {tile_name(value)} are out of the bag, "
                             f"but the bag has {bag[value]}")
    drawn, written = sum(known.values()), sum(on_sheet.values())
    if drawn > written + 1:  # every tile drawn before is written on the sheet
        raise InputError(f"--cells, --tile and --seen: {drawn} tiles are out of the bag with the one in hand, but "
                         f"the sheet shows {written} written; every drawn tile is written in a box")
    return list(known.elements())


def advise(
    cells: Annotated[str, typer.Option("--cells", metavar="CELLS",
                                       help="The sheet so far: 20 boxes (a variant's: its own number), _ "
                                            "for empty, e.g. \"3 _ _ 12 …\".", show_default=False)],
    tile: Annotated[str, typer.Option("--tile", metavar="TILE",
                                      help="The tile just drawn (1-30, or * or X for the wild).",
                                      show_default=False)],
    seen: Annotated[str | None, typer.Option("--seen", metavar="TILES",
                                             help="Tiles drawn earlier, known to be out of the bag.",
                                             show_default=False)] = None,
    seed: Annotated[str | None, opt.seed("The coach's own seed (default: one made from the position).")] = None,
    budget: Annotated[int | None, typer.Option("--budget", click_type=opt.WHOLE,
                                                help="Tiles placed in the first Monte Carlo's play-outs "
                                               "(default 20000; 100-10000000).", show_default=False)] = None,
    top: Annotated[int, typer.Option("--top", click_type=opt.WHOLE, help="How many boxes to show.")] = 3,
    variant: opt.Variant = None,
    as_json: opt.Json = False,
    explain: Annotated[bool, typer.Option("--explain", help="Say why the best box beats the runner-up.")] = False,
) -> None:
    """Says where to write the tile just drawn, with the expected final score of the best boxes.

    The coach plays the rest of the game out many times (Monte Carlo with successive halving, the
    gap heuristic writing the future tiles) and ranks the empty boxes by the mean final score; then
    it looks two tiles deep at its best boxes: for every tile that may come next, the best box for
    it. The last four moves are exact. The same position and seed always give the same advice;
    with the fast extra (numba) it runs compiled, with the same results.

    Examples:

    \b
      paperplay advise --cells "3 _ _ 12 _ _ _ 15 _ _ _ _ 21 _ _ _ _ _ _ 29" --tile 17
      paperplay advise --cells "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _" --tile 11 --explain

    With --variant, the coach plays the variant's bag and scoring table.
    """
    from paperplay.processes import cores
    from paperplay.streams.coach.advise import advise as coach
    from paperplay.streams.coach.search import COACH_BUDGET
    from paperplay.streams.referee import parse_tiles
    from paperplay.streams.rules import EMPTY, tile_name

    rules = load_variant(variant)
    row = list(parse_tiles(cells, "--cells", empty=True, rules=rules))
    drawn = _parse_tile(tile, "--tile", rules)
    if EMPTY not in row:
        raise InputError("--cells: every box is full; there is nowhere to write the tile")
    if top < 1:
        raise InputError(f"--top: is {top}; expected 1 or more")
    known = _known_tiles(row, drawn, seen, rules)
    _say_when_compiling()
    if budget is not None:
        _check_budget(budget)
    advised = coach(row, drawn, known, rules, checked_seed(seed) if seed is not None else None,
                    COACH_BUDGET if budget is None else budget, jobs=cores(), explain=explain)
    if as_json:
        print_json(advised.to_json(top))
        return
    shown = advised.advice.estimates[:top]
    typer.echo(f"Write {tile_name(drawn)} in box {shown[0].box + 1}: expected final score {shown[0].mean:.1f} "
               f"± {shown[0].stderr:.1f}")
    for e in shown:
        deep = ", two tiles deep" if e.depth == 2 else ""
        how = ("exact: every way the last draws may come" if e.depth == 0 else
               f"{e.playouts:,} play-out{'s' if e.playouts != 1 else ''}{deep}")
        typer.echo(f"  box {e.box + 1:2d}: {e.mean:6.1f} ± {e.stderr:.1f}   ({how})")
    left = row.count(EMPTY) - 1
    draws = "the last draw" if left == 1 else f"the remaining {left} draws"
    work = (f"computed exactly over {draws}" if advised.advice.best.depth == 0 else
            f"{advised.advice.tiles:,} tiles placed in play-outs of {draws}")
    typer.echo(f"({work}, seed {display_code(advised.seed)}, {advised.seconds:.2f} s)")
    if advised.explanation is not None:
        typer.echo(advised.explanation)


def _strategy_names(strategy_name: str | None, compare: str | None) -> list[str]:
    from paperplay.streams.coach.strategies import STRATEGIES, strategy

    if (strategy_name is None) == (compare is None):
        raise InputError("give --strategy NAME or --compare A,B,… (one of them); strategies: "
                         + ", ".join(STRATEGIES))
    listed = [strategy_name] if strategy_name is not None else compare.split(",")  # type: ignore[union-attr]
    names = [n.strip().lower() for n in listed]  # Gap is gap
    option = "--strategy" if strategy_name is not None else "--compare"
    if not all(names):
        expected = ("one of " + ", ".join(STRATEGIES) if strategy_name is not None else
                    f"names from {', '.join(STRATEGIES)}, separated by commas")
        raise InputError(f"{option}: names an empty strategy; expected {expected}")
    try:  # each by its own name: montecarlo:0100 is montecarlo:100, montecarlo:20000 is montecarlo
        names = [strategy(name).name for name in names]
    except ValueError as exc:
        raise InputError(f"{option}: {exc}") from None
    if len(set(names)) != len(names):
        twice = next(n for n in names if names.count(n) > 1)
        spelled = [raw.strip() for raw, name in zip(listed, names) if name == twice]
        raise InputError(f"--compare: names {twice} twice (as {', '.join(spelled)})")
    return names


def simulate(
    strategy_name: Annotated[str | None, typer.Option("--strategy", metavar="NAME", help="random, proportional, gap, "
                                                      "montecarlo[:BUDGET] or coach.", show_default=False)] = None,
    compare: Annotated[str | None, typer.Option("--compare", metavar="A,B,…",
                                                help="Several strategies on the same games, e.g. "
                                                     "gap,montecarlo.", show_default=False)] = None,
    games: Annotated[int, typer.Option("--games", "-g", click_type=opt.WHOLE,
                                       help="How many games (1-100,000).")] = 1000,
    seed: Annotated[str, opt.seed("Game i is drawn from seed <SEED>G<i>.", show_default=True)] = "LAB",
    jobs: Annotated[int, typer.Option("--jobs", "-j", click_type=opt.WHOLE, help="Worker processes.")] = 1,
    plot: Annotated[Path | None, typer.Option("--plot", help="Draw the score distributions to FILE.png or FILE.pdf.",
                                              click_type=opt.FILE, show_default=False)] = None,
    force: Annotated[bool, typer.Option("--force", "-f", help="Overwrite the --plot file.")] = False,
    variant: opt.Variant = None,
    as_json: opt.Json = False,
) -> None:
    """Plays seeded Streams games with placement strategies and reports their scores.

    Every strategy sees the same games. Reports the mean with its standard error, the median, the
    10th and 90th percentiles, the chance of 300 (a single series of 20) and games per second;
    with --compare, also each strategy's mean difference from the first, on the same games.

    Examples:

    \b
      paperplay simulate --strategy gap --games 2000
      paperplay simulate --compare proportional,gap,montecarlo --games 200 --jobs 4 --plot lab.png
      paperplay simulate --compare gap,montecarlo --games 100 --variant my-variant.json
    """
    from paperplay.files import check_not_an_input, check_writable
    from paperplay.streams.lab import paired
    from paperplay.streams.lab import simulate as run

    rules = load_variant(variant)
    if not 1 <= games <= 100_000:
        raise InputError(f"--games: is {games}; expected 1 to 100,000")
    if not 1 <= jobs <= 256:
        raise InputError(f"--jobs: is {jobs}; expected 1 to 256")
    names = _strategy_names(strategy_name, compare)
    canonical = checked_seed(seed)
    longest = MAX_SEED_LENGTH - len(f"G{games}")
    if len(canonical) > longest:  # game i's seed, <SEED>G<i>, is a seed too
        raise InputError(f"seed {seed!r} has {len(canonical)} letters and digits; with --games {games} at most "
                         f"{longest} are allowed (game i is drawn from seed <SEED>G<i>, at most "
                         f"{MAX_SEED_LENGTH})", field="seed")
    only_with("--plot", plot is not None, force=(force, "to replace an existing plot"))
    if plot is not None:
        if plot.suffix.lower() not in (".png", ".pdf"):
            raise InputError(f"--plot: {plot} must end in .png or .pdf")
        check_not_an_input(plot, "--plot", [variant_file(variant)])
        check_writable(plot, force, PLOT_HINT)
    total = games * len(names)
    _say_when_compiling(now=any(name.startswith(("montecarlo", "coach")) for name in names))
    with typer.progressbar(length=total, label="Playing", file=sys.stderr, show_pos=True,
                           hidden=not sys.stderr.isatty()) as bar:
        summaries = run(names, games, canonical, jobs, progress=bar.update, rules=rules)
    label = "" if rules.standard else f" (variant {rules.name})"
    if plot is not None:
        _write_plot(summaries, plot, force, f"Streams strategies{label}, {games} games, seed {display_code(canonical)}")
    if as_json:
        document: dict[str, Any] = {"game": "streams", "games": games, "seed": canonical,
                                    "strategies": [s.to_json() for s in summaries]}
        if not rules.standard:
            document["variant"] = rules.name
        if len(summaries) > 1:
            document["differences"] = [{"strategy": s.name, "versus": summaries[0].name,
                                        "mean": round(d, 3), "stderr": round(e, 3)}
                                       for s in summaries[1:] for d, e in [paired(summaries[0], s)]]
        print_json(document)
        return
    typer.echo(f"{games} games{label}, seed {display_code(canonical)} (game i drawn from seed {canonical}G<i>)")
    perfect = f"{rules.points[rules.boxes]}s"
    typer.echo(f"  {'strategy':<16} {'mean':>7} {'± se':>6} {'median':>7} {'p10':>5} {'p90':>5} "
               f"{perfect:>6} {'games/s':>9}")
    for s in summaries:
        typer.echo(f"  {s.name:<16} {s.mean:7.2f} {s.stderr:6.2f} {s.median:7g} {s.percentile(10):5g} "
                   f"{s.percentile(90):5g} {s.perfect:6.1%} {s.rate:9.1f}")
    for s in summaries[1:]:
        d, e = paired(summaries[0], s)
        typer.echo(f"  {s.name} - {summaries[0].name}: {d:+.2f} ± {e:.2f} points a game (same games)")
    if plot is not None:
        typer.echo(f"Wrote {printable(str(plot))}")


PLOT_HINT = "a file name ending in .png or .pdf with --plot"


def _write_plot(summaries: Any, path: Path, force: bool, title: str) -> None:
    from paperplay.files import write_atomic
    from paperplay.render.pdf import write_pdf
    from paperplay.render.png import png_bytes
    from paperplay.streams.charts import histogram_document

    document = histogram_document(summaries, title)
    if path.suffix.lower() == ".pdf":
        write_pdf(document, path, force, option="--plot")
    else:
        write_atomic(path, png_bytes(document.pages[0], dpi=120), force, PLOT_HINT)


def review(
    sheet: Annotated[Path, typer.Argument(help="A finished Streams sheet with its seed (or draw) and placements.",
                                          show_default=False, click_type=opt.INPUT)],
    budget: Annotated[int | None, typer.Option("--budget", click_type=opt.WHOLE,
                                                help="Tiles placed in the first Monte Carlo's play-outs "
                                               "per turn (default 20000, 100-10000000; the turns then look two "
                                               "tiles deep).", show_default=False)] = None,
    variant: Annotated[str | None, typer.Option("--variant", metavar="NAME|FILE",
                                                help=VARIANT_HELP + " Default: the sheet's field "
                                                "variant.", show_default=False)] = None,
    as_json: opt.Json = False,
) -> None:
    """Replays a finished game turn by turn: where each tile was written, where the coach would have
    written it, and the expected final score lost at each step.

    The sheet needs its draw (field seed or draw) and the order of writing: field placements, the
    box of each draw in draw order.

    Example (a sheet with its "placements": the box each tile went in):

    \b
      paperplay review ann-placements.json
    """
    from paperplay.jsonfile import read_json
    from paperplay.processes import cores
    from paperplay.streams.coach.search import COACH_BUDGET
    from paperplay.streams.lab import review as run
    from paperplay.streams.referee import check_placements, draw_of, sheet_from_json
    from paperplay.streams.rules import check_draw, score, tile_text

    rules = load_variant(variant) if variant is not None else None
    data = sheet_from_json(read_json(sheet), str(sheet), rules)
    seed, drawn = draw_of(data)
    if drawn is None:
        raise InputError(f"{sheet}: needs field seed or field draw: review replays the draw")
    if data.placements is None:
        raise InputError(f"{sheet}: missing field 'placements' (the box of each draw, in draw order); "
                         "review needs the order of writing")
    wrong = check_placements(data.cells, data.placements, drawn)
    if wrong:
        raise InputError(f"{sheet}: field {wrong[0].message}")
    broken = check_draw(drawn, data.rules)  # only a recorded draw can break it (a seed's comes from the bag)
    if broken:
        raise InputError(f"{sheet}: field draw: {broken[0].message}; review replays a draw the bag can give "
                         "(score names every rule broken)")
    if budget is not None:
        _check_budget(budget)
    seed = seed or canonical_seed(hashlib.sha256(str(drawn).encode()).hexdigest()[:8])
    turns = []
    _say_when_compiling()
    with typer.progressbar(length=len(drawn), label="Reviewing", file=sys.stderr, show_pos=True,
                           hidden=not sys.stderr.isatty()) as bar:
        for turn in run(drawn, data.placements, seed, budget or COACH_BUDGET, data.rules, jobs=cores()):
            turns.append(turn)
            bar.update(1)
    lost = sum(t.loss for t in turns)
    total = score(data.cells, data.rules).total
    if as_json:
        print_json({"file": str(sheet), "total": total, "expected_loss": round(lost, 2),
                    "turns": [t.to_json() for t in turns]})
        return
    named = "" if data.rules.standard else f" (variant {data.rules.name})"
    typer.echo(f"{sheet}{named}: scored {total}; the coach's choices were worth about {lost:.1f} more points in all")
    typer.echo(f"  {'':>4} {'':>4} {'box':^11} {'expected score':^17}".rstrip())
    typer.echo(f"  {'turn':>4} {'tile':>4} {'wrote':>5} {'coach':>5} {'wrote':>9} {'coach':>7} {'lost':>6}")
    for t in turns:
        # another box, worth less by more than the estimates' noise (the last turns are exact: no noise)
        mark = "  <" if t.written != t.best and round(t.loss, 1) > 0 and t.loss > t.stderr else ""
        tile = tile_text(t.tile)
        typer.echo(f"  {t.turn:4d} {tile:>4} {t.written:5d} {t.best:5d} {t.expected_written:9.1f} "
                   f"{t.expected_best:7.1f} {t.loss:6.1f}{mark}")


def register(app: typer.Typer) -> None:
    for command in (advise, simulate, review):
        app.command(cls=opt.OnceCommand, short_help=SHORT_HELP[command.__name__])(guarded(command))
