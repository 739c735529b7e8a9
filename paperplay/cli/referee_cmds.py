"""Commands that referee what was played: score, verify and schema."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from paperplay.cli import options as opt
from paperplay.cli.common import SHORT_HELP, guarded, only_with, print_json, size_text, stdout_is_utf8, variant_file
from paperplay.errors import ExitCode, InputError
from paperplay.files import check_not_an_input
from paperplay.games import checked_seed
from paperplay.messages import did_you_mean, one_line, printable, report_line, shown_name
from paperplay.referee import Outcome, rankings, referee_files


def _finish(outcomes: list[Outcome], as_json: bool, ranking: list[dict[str, Any]] | None,
            note: str | None = None) -> None:
    """Prints the outcomes and exits with the highest code. The ranking (Streams sheets) is in the JSON
    whenever given, as the one-sheet example of docs/reference/formats/streams-sheet.md shows; the
    terminal shows it when two Streams sheets or more were scored."""
    for outcome in outcomes:
        if outcome.error is not None:
            typer.echo(f"paperplay: error: {one_line(str(outcome.error))}", err=True)
    if as_json:
        document: dict[str, Any] = {"results": [o.to_json() for o in outcomes]}
        if ranking is not None:
            document["ranking"] = ranking
        print_json(document)
    else:
        for outcome in outcomes:
            for line in outcome.text_lines():
                typer.echo(report_line(line))
        if ranking and sum(o.game == "streams" and o.verdict is not None for o in outcomes) > 1:
            codes = _game_codes(outcomes)
            if len(codes) > 1:  # a table of one game's players: say so when the sheets are of several
                typer.echo(f"Note: the valid sheets are of {len(codes)} different games ({', '.join(codes)}); "
                           "they are ranked together.")
            typer.echo("Ranking (valid sheets):")
            for row in ranking:
                typer.echo(f"  {row['place']}. {shown_name(row['player'])}: {row['total']}")
    if note:
        typer.echo(note, err=as_json)
    _seed_notes(outcomes)
    raise typer.Exit(max((o.code for o in outcomes), default=ExitCode.VALID))


def _seed_notes(outcomes: list[Outcome]) -> None:
    """One line on stderr for each short or guessable seed a record was checked against (a verdict's
    seed): players could have found its draw (and an 8-character seed's code binds little)."""
    from paperplay.seeds import seed_note

    for seed in dict.fromkeys(seed for o in outcomes if isinstance(seed := getattr(o.verdict, "seed", None), str)):
        note = seed_note(seed)
        if note is not None:
            typer.echo(f"paperplay: note: {note}", err=True)


def _game_codes(outcomes: list[Outcome]) -> list[str]:
    """The game codes of the valid Streams sheets, in order: the code of the seed each was checked
    against, else the code written in it (a sheet with neither says nothing)."""
    from paperplay.seeds import canonical_seed, display_code, game_code

    codes: dict[str, None] = {}
    for outcome in outcomes:
        verdict: Any = outcome.verdict
        if outcome.game != "streams" or verdict is None or not verdict.valid:
            continue
        code = game_code("streams", verdict.seed) if verdict.seed else verdict.sheet.code
        if code:
            codes[display_code(canonical_seed(code))] = None
    return list(codes)


HtmlOption = Annotated[Path | None, typer.Option("--html", help="Also write the results page (one HTML file): "
                                                 "ranking, every sheet's series, problems.", click_type=opt.FILE,
                                                 show_default=False)]


def _write_results_page(path: Path, force: bool, outcomes: list[Outcome], ranking: list[dict[str, Any]],
                        lang: str | None = None) -> str | None:
    """Writes the results page of refereed Streams sheets; returns the line that says so. With no
    sheet that could be read, no page is written (it would show nothing; each file's error says why)."""
    import time

    from paperplay.html.page import write_page
    from paperplay.html.results import results_page
    from paperplay.i18n import translator

    if all(o.verdict is None for o in outcomes):
        return None
    started = time.perf_counter()
    boxes = [None if o.verdict is None else o.verdict.sheet.cells for o in outcomes]  # type: ignore[attr-defined]
    page = results_page([o.to_json() for o in outcomes], boxes, ranking, translator(opt.lang_or_locale(lang)))
    write_page(path, page, force)
    return f"Wrote {printable(str(path))} (results page, {size_text(len(page))}, {time.perf_counter() - started:.2f} s)"


def _check_html(path: Path | None, force: bool, lang: str | None) -> None:
    only_with("--html", path is not None, force=(force, "to replace an existing page"),
              lang=(lang, "the results page's language; the report here is in English"))
    if path is not None:
        from paperplay.html.page import check_page_path

        check_page_path(path, force)


def score(
    files: Annotated[list[Path] | None, typer.Argument(help="Streams sheet files (JSON, see: paperplay schema "
                                                       "streams-sheet).", show_default=False,
                                                       click_type=opt.INPUT)] = None,
    seed: Annotated[str | None, opt.seed("The game's seed, for every sheet that has none.")] = None,
    draw_list: Annotated[str | None, typer.Option("--draw", metavar="TILES",
                                                  help="The 20 tiles in draw order, e.g. \"11,3,*,5,…\".",
                                                  show_default=False)] = None,
    cells: Annotated[str | None, typer.Option("--cells", metavar="CELLS",
                                              help="A sheet typed here: 20 boxes, e.g. \"11 3 * 5 …\" "
                                                   "(wild: * or X).", show_default=False)] = None,
    as_json: opt.Json = False,
    html: HtmlOption = None,
    force: opt.Force = False,
    variant: opt.Variant = None,
    lang: opt.PageLang = None,
) -> None:
    """Checks and scores Streams sheets; with several, ranks the players.

    A sheet is checked against its seed, a draw list, or (with neither) the bag. Exit code 0 when
    every sheet is valid, 1 when one breaks a rule, 2 when an input cannot be used.

    Examples:

    \b
      paperplay score ann.json bob.json --seed 7KQ2-M9XD
      paperplay score --cells "4 3 6 5 1 7 15 11 13 15 17 16 18 8 23 20 25 27 28 24"
      paperplay score ann.json bob.json --seed 7KQ2-M9XD --html results.html --lang de

    --lang chooses the results page's language (the terminal output and the problems stay English).
    """
    from paperplay.streams.api import variant_rules
    from paperplay.handin import referee_document
    from paperplay.streams.referee import Sheet, parse_tiles, ranking, referee

    if not files and cells is None:
        raise InputError("give one or more sheet files, or a sheet with --cells")
    if seed is not None and draw_list is not None:
        raise InputError("--seed and --draw: give one source of the draw, not both")
    canonical = checked_seed(seed) if seed is not None else None
    rules = variant_rules(variant) if variant is not None else None
    drawn = parse_tiles(draw_list, "--draw", rules=rules) if draw_list is not None else None
    check_not_an_input(html, "--html", [*(files or []), variant_file(variant)])
    _check_html(html, force, lang)
    outcomes: list[Outcome] = []
    if cells is not None:
        typed = Sheet(
            source="--cells", cells=parse_tiles(cells, "--cells", rules=rules), rules=rules or variant_rules(None)
        )
        outcomes.append(Outcome("--cells", referee(typed, canonical, drawn), game="streams"))
    outcomes += referee_files(files or [], lambda data, source, _: referee_document(data, source, rules, canonical,
                                                                                    drawn), game="streams")
    ranked = ranking(o.to_json() for o in outcomes if o.verdict is not None)
    note = _write_results_page(html, force, outcomes, ranked, lang) if html is not None else None
    _finish(outcomes, as_json, ranked, note)


def verify(
    files: Annotated[list[Path], typer.Argument(help="Game records: Streams sheets, Streetcar board states and game "
                                                "logs, Sequence positions and game logs.", show_default=False,
                                                click_type=opt.INPUT)],
    as_json: opt.Json = False,
    html: HtmlOption = None,
    force: opt.Force = False,
    lang: opt.PageLang = None,
) -> None:
    """Referees game records; each file's "game" field picks the rules.

    Streams sheets are scored (and ranked, with several); Streetcar and Sequence game logs are
    replayed to the first illegal action (turn, player, rule) or the winner; Streetcar board
    states are checked against rules A-D, stop signs and tile counts. Exit code 0 when every
    record is valid, 1 when one breaks a rule, 2 when one cannot be used.

    Examples:

    \b
      paperplay verify ann.json bob.json --json
      paperplay verify streetcar-game.json
      paperplay verify ann.json bob.json --html results.html
    """
    check_not_an_input(html, "--html", files)
    _check_html(html, force, lang)
    outcomes = referee_files(files)
    ranked = rankings(outcomes)
    note = None
    if html is not None:
        other = next((o for o in outcomes if o.game not in (None, "streams")), None)
        if other is not None:
            raise InputError(f"--html: {other.source} is a {other.game!r} record; the results page is for Streams "
                             "sheets only")
        from paperplay.streams.referee import ranking

        note = _write_results_page(html, force, outcomes, ranking(o.to_json() for o in outcomes if o.verdict), lang)
    _finish(outcomes, as_json, next(iter(ranked.values())) if len(ranked) == 1 else None, note)


def route(
    state: Annotated[Path, typer.Argument(help="A Streetcar board state (JSON, see: paperplay schema "
                                          "streetcar-state).", show_default=False, click_type=opt.INPUT)],
    line: Annotated[int, typer.Option("--line", "-l", click_type=opt.WHOLE,
                                      help="The line (1-6 on the standard board).",
                                      show_default=False)],
    card: Annotated[int | None, typer.Option("--card", click_type=opt.WHOLE,
                                             help="Route card number (1-6) giving the line's stops.",
                                             show_default=False)] = None,
    card_set: Annotated[int | None, typer.Option("--set", click_type=opt.WHOLE,
                                                 help="Route-card set with --card: 2 (two stops, the "
                                                 "default) or 3 (three stops).", show_default=False)] = None,
    stops: Annotated[str | None, typer.Option("--stops", metavar="B,D,M",
                                              help="The stops instead of a card, e.g. B,D,M (at most 6); '' for "
                                                   "none.", show_default=False)] = None,
    ordered: Annotated[bool, typer.Option("--ordered", help="Stops must be made in the order given (variant).")]
    = False,
    as_json: opt.Json = False,
    pdf: Annotated[Path | None, typer.Option("--pdf", help="Also draw the board with the route numbered on it (a "
                                             "PDF).", click_type=opt.FILE, show_default=False)] = None,
    force: opt.Force = False,
    lang: opt.RouteLang = None,
) -> None:
    """Tells whether a Streetcar line's route is complete on a board state, with its shortest route.

    The route runs from one of the line's terminals to the other through the stop sign of every
    stop; its length counts each tile entered, each terminal passed through, and the arrival.
    When it is not complete, says what is missing. Exit code 0 complete, 1 not complete (or the
    state breaks a rule), 2 bad input.

    Examples:

    \b
      paperplay route board.json --line 1 --card 5 --set 3 --ordered
      paperplay route board.json --line 2 --stops B,E --json
      paperplay route board.json --line 1 --card 1 --pdf route.pdf --lang de
    """
    from paperplay.streetcar.route import check_route

    if card is None and stops is None:
        raise InputError("give the stops to visit: --card N (a route card, with --set) or --stops B,D,M")
    if card is not None and stops is not None:
        raise InputError("--card and --stops: give one of them, not both (a route card names its own stops)")
    only_with("--card", card is not None, set=(card_set, "the route card's set; --stops names the stops itself"))
    only_with("--pdf", pdf is not None, force=(force, "to replace an existing drawing"),
              lang=(lang, "the drawing's language; the answer here is in English"))
    check = check_route(state, line, card, card_set, stops, ordered)
    check_not_an_input(pdf, "--pdf", check.inputs)  # the board file the state names is read too
    written = None
    if pdf is not None:
        from paperplay.i18n import translator
        from paperplay.render.pdf import write_pdf
        from paperplay.streetcar.pages import route_document

        started = time.perf_counter()
        size = write_pdf(route_document(check, state.name, translator(opt.lang_or_locale(lang))), pdf, force,
                         option="--pdf")
        written = (f"Wrote {printable(str(pdf))} (the board with the route, {size_text(size)}, "
                   f"{time.perf_counter() - started:.2f} s)")
    for problem in check.problems:
        typer.echo(one_line(f"paperplay: warning: {state}: the board breaks rule {problem.rule}: {problem.message}"),
                   err=True)
    if as_json:
        print_json(check.to_json())
    else:
        for text in check.answer.text_lines():
            typer.echo(printable(text))
    if written is not None:
        typer.echo(printable(written), err=as_json)  # standard output holds only the JSON
    raise typer.Exit(check.exit_code)


def schema(
    name: Annotated[str | None, typer.Argument(help="Schema name, e.g. streams-sheet. Omit to list them.",
                                               show_default=False)] = None,
) -> None:
    """Prints a JSON Schema of an input file; without a name, lists the schemas.

    Example:

    \b
      paperplay schema streams-sheet > streams-sheet.schema.json
    """
    from paperplay.games import schema_names
    from paperplay.resources import schema_text

    if name is not None and name.lower() in schema_names():  # in any case, as every choice
        name = name.lower()
    if name not in (None, *schema_names()):
        raise InputError(f"unknown schema {name!r}; known schemas: {', '.join(schema_names())}"
                         f"{did_you_mean(name or '', schema_names())}")
    if name is None:
        for known in schema_names():
            typer.echo(known)
        return
    text = schema_text(name)
    if not stdout_is_utf8():  # the same schema, its non-ASCII characters as JSON's \\u escapes
        text = json.dumps(json.loads(text), indent=2, ensure_ascii=True) + "\n"
    typer.echo(text, nl=False)


def register(app: typer.Typer) -> None:
    for command in (score, verify, route, schema):
        app.command(cls=opt.OnceCommand, short_help=SHORT_HELP[command.__name__])(guarded(command))
