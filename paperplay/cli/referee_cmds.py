"""Commands that referee what was played: score, verify and schema."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from paperplay.cli.app import app
from paperplay.cli.common import guarded, print_json
from paperplay.errors import InputError
from paperplay.messages import one_line
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


def _streetcar_outcome(source: str, data: Any) -> Outcome:
    """A Streetcar record is a game log when it has turns, otherwise a board state."""
    from paperplay.streetcar.game import verify_log
    from paperplay.streetcar.state import verify_state

    folder = Path(source).parent
    try:
        result = verify_log(data, source, folder) if "turns" in data else verify_state(data, source, folder)
    except InputError as exc:
        return input_error(source, exc)
    return Outcome(source, 0 if result.valid else 1, result.to_json(), tuple(result.text_lines()))


def _finish(outcomes: list[Outcome], as_json: bool, ranking: list[dict[str, Any]] | None) -> None:
    for outcome in outcomes:
        if "error" in outcome.result:
            typer.echo(f"paperplay: error: {one_line(outcome.result['error'])}", err=True)
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
    files: list[Path] = typer.Argument(..., help="Game records: Streams sheets, Streetcar board states and game "
                                       "logs, Sequence positions and game logs.",
                                       show_default=False),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document."),
) -> None:
    """Referees game records; each file's "game" field picks the rules.

    Streams sheets are scored; Streetcar and Sequence game logs are replayed to the first illegal
    action (turn, player, rule) or the winner; Streetcar board states are checked against rules
    A-D, stop signs and tile counts. Exit code 0 when every record is valid, 1 when one breaks a
    rule, 2 when one cannot be used.

    Examples: paperplay verify ann.json bob.json --json

              paperplay verify streetcar-game.json
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
            outcomes.append(_streetcar_outcome(source, data))
    streams = [o for o in outcomes if o.result.get("checked_against")]
    _finish(outcomes, as_json, _streams_ranking(streams) if len(streams) > 1 else None)


@app.command()
@guarded
def route(
    state: Path = typer.Argument(..., help="A Streetcar board state (JSON, see: paperplay schema streetcar-state).",
                                 show_default=False),
    line: int = typer.Option(..., "--line", "-l", help="The line (1-6 on the standard board).", show_default=False),
    card: int = typer.Option(None, "--card", help="Route card number (1-6) giving the line's stops."),
    card_set: int = typer.Option(2, "--set", help="Route-card set with --card: 2 (two stops) or 3 (three stops)."),
    stops: str = typer.Option(None, "--stops", help="The stops instead of a card, e.g. B,D,M; '' for none."),
    ordered: bool = typer.Option(False, "--ordered", help="Stops must be made in the order given (variant)."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document."),
    pdf: Path = typer.Option(None, "--pdf", help="Also draw the board with the route numbered on it (a PDF)."),
    force: bool = typer.Option(False, "--force", help="Overwrite the --pdf file if it exists."),
) -> None:
    """Tells whether a Streetcar line's route is complete on a board state, with its shortest route.

    The route runs from one of the line's terminals to the other through the stop sign of every
    stop; its length counts each tile entered, each terminal passed through, and the arrival.
    When it is not complete, says what is missing. Exit code 0 complete, 1 not complete (or the
    state breaks a rule), 2 bad input.

    Examples: paperplay route board.json --line 1 --card 4 --set 3 --ordered

              paperplay route board.json --line 2 --stops B,D,M --json
    """
    from paperplay.jsonfile import read_json
    from paperplay.streetcar.data import route_cards
    from paperplay.streetcar.deal import check_set
    from paperplay.streetcar.route import Network, route_answer
    from paperplay.streetcar.state import board_problems, state_from_json

    if (card is None) == (stops is None):
        raise InputError("give the stops with --card N (and --set) or with --stops B,D,M, one of them")
    board_state, problems = state_from_json(read_json(state), str(state), state.parent)
    board = board_state.geo.board
    if len(board.terminals_of(line)) != 2:
        lines = sorted({t.line for t in board.terminals})
        raise InputError(f"--line: is {line}; this board has lines {', '.join(map(str, lines))}")
    if card is not None:
        check_set(card_set)
        if not 1 <= card <= 6:
            raise InputError(f"--card: is {card}; expected a route card 1-6")
        if line > 6:
            raise InputError(f"--line: is {line}; route cards list lines 1-6 (use --stops for other lines)")
        wanted = list(route_cards(card_set)[card - 1][line - 1])
    else:
        wanted = [s.strip().upper() for s in stops.split(",") if s.strip()]
        if len(set(wanted)) != len(wanted):
            raise InputError(f"--stops: is {stops!r}; each stop may be named once")
    unknown = [s for s in wanted if s not in board.locations]
    if unknown:
        raise InputError(f"--stops: {unknown[0]} is not a location on this board; "
                         f"expected letters from {', '.join(sorted(board.locations))}")
    problems += board_problems(board_state)
    answer = route_answer(Network(board_state.geo, board_state.layout, board_state.stop_signs), line, wanted, ordered)
    if pdf is not None:
        from paperplay.render.pdf import write_pdf
        from paperplay.streetcar.pages import state_document

        squares = [step.square for step in answer.route.steps if step.square] if answer.route else []
        tiles = [(sq, tile.kind, tile.rotation) for sq, tile in sorted(board_state.layout.items())]
        title = f"{state.name}: line {line}, " + " ".join(answer.text_lines()[0].split(": ")[1:])
        write_pdf(state_document(board, tiles, board_state.stop_signs, squares, title), pdf, force)
    for problem in problems:
        typer.echo(one_line(f"paperplay: warning: {state}: the board breaks rule {problem.rule}: {problem.message}"),
                   err=True)
    if as_json:
        document = answer.to_json()
        if problems:
            document["problems"] = [p.to_json() for p in problems]
        print_json(document)
    else:
        for text in answer.text_lines():
            typer.echo(text)
    raise typer.Exit(1 if problems or not answer.complete else 0)


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
