"""Commands that referee what was played: score, verify and schema."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from paperplay.cli.app import app
from paperplay.cli.common import guarded, print_json
from paperplay.errors import InputError
from paperplay.referee import Outcome, game_of, input_error, load_records
from paperplay.seeds import canonical_seed


def _streams_outcome(source: str, data: Any, seed: str | None, drawn: Any) -> Outcome:
    from paperplay.streams.report import result_lines
    from paperplay.streams.sheet import referee, sheet_from_json

    try:
        result = referee(sheet_from_json(data, source), seed, drawn)
    except InputError as exc:
        return input_error(source, exc)
    return Outcome(source, 0 if result.valid else 1, result.to_json(), tuple(result_lines(result)))


def _sequence_outcome(source: str, data: Any) -> Outcome:
    from paperplay.sequence.referee import verify_record

    try:
        result = verify_record(data, source)
    except InputError as exc:
        return input_error(source, exc)
    return Outcome(source, 0 if result.valid else 1, result.to_json(), tuple(result.text_lines()))


def _finish(outcomes: list[Outcome], as_json: bool, ranking: list[dict[str, Any]] | None) -> None:
    for outcome in outcomes:
        if "error" in outcome.result:
            typer.echo(f"paperplay: error: {outcome.result['error']}", err=True)
    if as_json:
        document: dict[str, Any] = {"results": [o.result for o in outcomes]}
        if ranking is not None:
            document["ranking"] = ranking
        print_json(document)
    else:
        for outcome in outcomes:
            for line in outcome.lines:
                typer.echo(line)
        if ranking:
            typer.echo("Ranking (valid sheets):")
            for row in ranking:
                typer.echo(f"  {row['place']}. {row['player']}: {row['total']}")
    raise typer.Exit(max((o.code for o in outcomes), default=0))


def _streams_ranking(outcomes: list[Outcome]) -> list[dict[str, Any]]:
    from paperplay.streams.sheet import ranking

    return ranking(o.result for o in outcomes)


@app.command()
@guarded
def score(
    files: list[Path] = typer.Argument(None, help="Streams sheet files (JSON, see: paperplay schema streams-sheet).",
                                       show_default=False),
    seed: str = typer.Option(None, "--seed", "-s", help="The game's seed, for every sheet that has none."),
    draw_list: str = typer.Option(None, "--draw", help="The 20 tiles in draw order, e.g. \"11,3,*,5,…\"."),
    cells: str = typer.Option(None, "--cells", help="A sheet typed here: 20 boxes, e.g. \"11 3 * 5 …\" (wild: * or X)."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document."),
) -> None:
    """Checks and scores Streams sheets; with several, ranks the players.

    A sheet is checked against its seed, a draw list, or (with neither) the bag. Exit code 0 when
    every sheet is valid, 1 when one breaks a rule, 2 when an input cannot be used.

    Examples: paperplay score ann.json bob.json --seed 7KQ2-M9XD

              paperplay score --cells "4 3 6 5 1 7 15 11 13 15 17 16 18 8 23 20 25 27 28 24"
    """
    from paperplay.streams.sheet import Sheet, parse_tiles

    if not files and cells is None:
        raise InputError("give one or more sheet files, or a sheet with --cells")
    if seed is not None and draw_list is not None:
        raise InputError("--seed and --draw: give one source of the draw, not both")
    canonical = canonical_seed(seed) if seed is not None else None
    drawn = parse_tiles(draw_list, "--draw") if draw_list is not None else None
    outcomes: list[Outcome] = []
    if cells is not None:
        typed = Sheet(source="--cells", cells=parse_tiles(cells, "--cells"))
        from paperplay.streams.report import result_lines
        from paperplay.streams.sheet import referee

        result = referee(typed, canonical, drawn)
        outcomes.append(Outcome("--cells", 0 if result.valid else 1, result.to_json(), tuple(result_lines(result))))
    for source, data in load_records(files or []):
        if isinstance(data, InputError):
            outcomes.append(input_error(source, data))
            continue
        outcomes.append(_streams_outcome(source, data, canonical, drawn))
    _finish(outcomes, as_json, _streams_ranking(outcomes) if len(outcomes) > 1 else None)


@app.command()
@guarded
def verify(
    files: list[Path] = typer.Argument(..., help="Game records: Streams sheets, Sequence positions and game logs.",
                                       show_default=False),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document."),
) -> None:
    """Referees game records; each file's "game" field picks the rules.

    Exit code 0 when every record is valid, 1 when one breaks a rule, 2 when one cannot be used.

    Example: paperplay verify ann.json bob.json --json
    """
    outcomes: list[Outcome] = []
    for source, data in load_records(files):
        if isinstance(data, InputError):
            outcomes.append(input_error(source, data))
            continue
        try:
            game = game_of(data, source)
        except InputError as exc:
            outcomes.append(input_error(source, exc))
            continue
        if game == "streams":
            outcomes.append(_streams_outcome(source, data, None, None))
        elif game == "sequence":
            outcomes.append(_sequence_outcome(source, data))
        else:
            outcomes.append(input_error(source, InputError(
                f"{source}: {game} records are not refereed by this version of paperplay")))
    streams = [o for o in outcomes if o.result.get("checked_against")]
    _finish(outcomes, as_json, _streams_ranking(streams) if len(streams) > 1 else None)


@app.command()
@guarded
def schema(
    name: str = typer.Argument(None, help="Schema name, e.g. streams-sheet. Omit to list them."),
) -> None:
    """Prints a JSON Schema of an input file; without a name, lists the schemas.

    Example: paperplay schema streams-sheet > streams-sheet.schema.json
    """
    from paperplay.resources import schema_names, schema_text

    if name is None:
        for known in schema_names():
            typer.echo(known)
        return
    typer.echo(schema_text(name), nl=False)
