"""What the game night server knows of a Streams game, without any web part: the draw of a stored game,
the checks of what phones send (names, typed cells, corrections), each box's flag, the sheet files and
the results, refereed by the same code as `paperplay score --json`."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from paperplay.errors import InputError
from paperplay.i18n import LANGUAGES
from paperplay.seeds import display_code, full_code
from paperplay.serve.numbers import digits_of, whole
from paperplay.serve.store import Game, SheetRow
from paperplay.streams.api import MAX_PLAYERS
from paperplay.streams.rules import (
    WILD, WILD_TEXT, StreamsRules, Tile, draw, load_rules, shipped_variants, tile_from_json, tile_json,
)

_WILD_WORDS = (WILD_TEXT, "x", "X")


def input_error(field: str, message: str) -> InputError:
    """An error in what a client sent, naming its field: 'cells[3]: is 31; expected …'."""
    return InputError(f"{field}: {message}")


def game_rules(variant: str | None) -> StreamsRules:
    """The rules of a stored game's variant (None: the published game)."""
    return load_rules(variant)


def check_variant(value: Any) -> str | None:
    """A game's variant as a client names it: a variant paperplay ships (never a file: the server reads
    no file a client names). None for the published game."""
    if value is None:
        return None
    known = shipped_variants()
    if not isinstance(value, str) or value.lower() not in known:
        raise input_error("variant", f"is {shown(value)}; expected one of {', '.join(known)}")
    return None if value.lower() == "standard" else value.lower()


def check_lang(value: Any) -> str:
    if value is None:
        return "en"
    if not isinstance(value, str) or value not in LANGUAGES:
        raise input_error("lang", f"is {shown(value)}; expected one of {', '.join(LANGUAGES)}")
    return value


def check_players(value: Any, most: int = MAX_PLAYERS) -> int:
    """A game's number of players: 1 to the store's most (`Store.max_players`: 200 in a SQLite file, 100,000 on
    PostgreSQL)."""
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= most:
        raise input_error("players", f"is {shown(value)}; expected a whole number 1-{most}"
                          + ("" if most > MAX_PLAYERS else " (a game on PostgreSQL takes more: serve --db postgresql://…)"))
    return value


def check_name(value: Any) -> str:
    """A player's name as kept (paperplay.serve.names.clean): NFKC, no control, bidirectional or invisible
    characters (the joiners kept), spaces collapsed, 1-40 characters (it is data everywhere: the pages
    show it as text)."""
    from paperplay.serve import names

    if not isinstance(value, str):
        raise input_error("name", f"is {shown(value)}; expected the player's name as text")
    if len(value) > 4 * names.LIMIT + 100:  # bounded work whatever arrives
        raise input_error("name", f"has {len(value):,} characters; expected at most {names.LIMIT}")
    name = names.clean(value)
    wrong = names.problem(name)
    if wrong is not None:
        raise input_error("name", wrong)
    return name


def check_tile(value: Any, field: str, rules: StreamsRules) -> Tile:
    """One box of a typed sheet: an integer in the variant's range, or "*" (or "X") for the wild."""
    if isinstance(value, str) and value.strip() in _WILD_WORDS:
        return WILD
    if isinstance(value, str) and len(value) <= 4 and (digits := digits_of(value)) is not None:
        value = int(digits)  # typed as text: digits 0-9 only, fullwidth read (paperplay.serve.numbers)
    if isinstance(value, int) and not isinstance(value, bool) and rules.lowest <= value <= rules.highest:
        return value
    raise input_error(field, f"is {shown(value)}; expected an integer {rules.lowest}-{rules.highest}, or \"*\" for "
                             "the wild")


def check_cells(value: Any, rules: StreamsRules, field: str = "cells") -> list[Tile]:
    """A typed sheet's boxes: a list of the variant's number of boxes (20), first box first."""
    if not isinstance(value, list):
        raise input_error(field, f"is {shown(value)}; expected a list of {rules.boxes} boxes, e.g. [11, 3, \"*\", …]")
    if len(value) != rules.boxes:
        raise input_error(field, f"has {len(value)} boxes; expected {rules.boxes}")
    return [check_tile(v, f"{field}[{i}]", rules) for i, v in enumerate(value)]


def check_corrections(value: Any, rules: StreamsRules) -> dict[int, Tile]:
    """A correction: every box ([20], as typed), or some boxes by number ({"7": 12, "9": "*"})."""
    if isinstance(value, list):
        return dict(enumerate(check_cells(value, rules), start=1))
    if not isinstance(value, dict) or not value:
        raise input_error("cells", f"is {shown(value)}; expected the {rules.boxes} boxes as a list, or boxes by "
                                   "number, e.g. {\"7\": 12}")
    out = {}
    for key, tile in value.items():
        number = whole(key, "cells", 1, rules.boxes, what="box numbers")
        out[number] = check_tile(tile, f"cells[{number}]", rules)
    return out


def shown(value: Any) -> str:
    """A client's value in a message: short, one line."""
    from paperplay.messages import shorten

    text = repr(value) if not isinstance(value, str) else repr(value)
    return shorten(text, 40)


@functools.lru_cache(maxsize=256)
def _draw(seed: str, variant: str | None) -> tuple[Tile, ...]:
    """A stored game's whole draw, worked out once (every state and sheet shown asks for it)."""
    return tuple(draw(seed, game_rules(variant)))


def called_tiles(game: Game) -> list[Tile]:
    """The tiles called so far, in order (all of them once the game is revealed)."""
    tiles = _draw(game.seed, game.variant)
    return list(tiles if game.revealed else tiles[:game.turn])


def total_turns(game: Game) -> int:
    return game_rules(game.variant).boxes


def check_hidden(data: dict[str, Any]) -> bool:
    """The body's "hidden": true or false."""
    hidden = data.get("hidden")
    if not isinstance(hidden, bool):
        raise input_error("hidden", f"is {shown(hidden)}; expected true or false")
    return hidden


def source_name(sheet: SheetRow) -> str:
    """The sheet's file name: what `file` says in the results, as for `paperplay score sheet-3.json`."""
    return f"sheet-{sheet.id}.json"


def sheet_document(game: Game, sheet: SheetRow) -> dict[str, Any]:
    """The sheet as a streams-sheet file (what `paperplay score` reads): its seed only once revealed."""
    from paperplay.handin import sheet_document as document

    return document(sheet.name, sheet.cells, full_code("streams", game.seed), game.seed if game.revealed else None,
                    variant=game.variant)


def check_document(game: Game, name: str, cells: Sequence[Tile]) -> None:
    """Refuses a sheet that `paperplay score` would not read (its schema), as a 400 naming cells."""
    from paperplay.streams.referee import sheet_from_json

    document = {"game": "streams", "code": display_code(game.code), "player": name,
                "cells": [tile_json(t) for t in cells]}
    try:
        sheet_from_json(document, "cells", game_rules(game.variant))
    except InputError as exc:
        raise input_error("cells", str(exc).removeprefix("cells: ")) from None


def results(game: Game, sheets: Sequence[SheetRow]) -> dict[str, Any]:
    """The document `paperplay score --json` prints for the game's complete sheets (written as
    sheet-<id>.json files, as /api/games/{code}/sheets/{id}/file gives them), and beside it the sheets
    left out of the ranking for empty boxes ("incomplete") and those scored with boxes still to check
    ("unsettled")."""
    from paperplay.handin import flags, score

    drawn = draw(game.seed, game_rules(game.variant))
    complete = [s for s in sheets if None not in s.cells]
    document = score([(source_name(s), sheet_document(game, s)) for s in complete], game_rules(game.variant)).to_json()
    document["incomplete"] = [{"id": s.id, "name": s.name, "file": source_name(s),
                               "empty": [n for n, v in enumerate(s.cells, start=1) if v is None]}
                              for s in sheets if None in s.cells]
    unsettled = []
    for sheet in complete:
        boxes = [n for n, b in enumerate(flags(sheet.boxes, sheet.kind, drawn), start=1) if b["flagged"]]
        if boxes:
            unsettled.append({"id": sheet.id, "name": sheet.name, "file": source_name(sheet), "boxes": boxes})
    document["unsettled"] = unsettled
    return document


def warm_up() -> None:
    """Loads what the first hand-in and the first results need (the sheet schema's validator, the referee),
    so that the first phones of a burst wait no longer than the last."""
    import time

    from paperplay.serve.store import Game

    from paperplay.handin import typed_boxes

    game = Game("P2QPHGPH", "7KQ2M9XD", None, "en", 1, 20, True, 1, time.time())
    check_document(game, "warm-up", draw(game.seed))
    results(game, [SheetRow(0, game.code, "warm-up", "", None, "typed", None, typed_boxes(draw(game.seed)),
                            0.0, 0.0)])


def results_page(game: Game, sheets: Sequence[SheetRow]) -> bytes:
    """The results page (paperplay.html.results) of a revealed game, in the game's language."""
    from paperplay.html.results import results_page as page
    from paperplay.i18n import translator

    from paperplay.handin import Refused, check_complete

    document = results(game, sheets)
    complete = [sheet for sheet in sheets if None not in sheet.cells]
    boxes: list[list[Tile] | None] = [[tile_from_json(v) for v in sheet.cells] for sheet in complete]
    rows = list(document["results"])
    for sheet in sheets:  # the incomplete sheets, apart from the ranking: each with its empty boxes
        if None in sheet.cells:
            try:
                check_complete(sheet.cells, f"{sheet.name} ({source_name(sheet)})")
            except Refused as exc:
                rows.append({"file": source_name(sheet), "valid": False, "error": str(exc)})
                boxes.append(None)
    return page(rows, boxes, document["ranking"], translator(game.lang))
