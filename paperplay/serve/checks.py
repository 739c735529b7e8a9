"""What the game night server knows of a Streams game, without any web part: the draw of a stored game,
the checks of what phones send (names, typed cells, corrections), each box's flag, the sheet files and
the results, refereed by the same code as `paperplay score --json`."""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Sequence
from typing import Any

from paperplay.errors import InputError
from paperplay.i18n import LANGUAGES
from paperplay.referee import Outcome
from paperplay.seeds import display_code, full_code, written_code
from paperplay.serve.numbers import digits_of, whole
from paperplay.serve.store import Game, SheetRow
from paperplay.streams.api import MAX_PLAYERS
from paperplay.streams.rules import (
    WILD, WILD_TEXT, StreamsRules, Tile, draw, load_rules, shipped_variants, tile_from_json, tile_json,
)

NAME_LIMIT = 40
"""The longest player's name (letters): a name line of the results page, a row of the host's list."""
_WILD_WORDS = (WILD_TEXT, "x", "X")
CORRECTED = "corrected by hand"
_DIRECTION_CONTROLS = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Characters that turn the text after them around: a name holding one would garble the lists it is in."""


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


def check_players(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_PLAYERS:
        raise input_error("players", f"is {shown(value)}; expected a whole number 1-{MAX_PLAYERS}")
    return value


def check_name(value: Any) -> str:
    """A player's name: 1-40 letters, no control characters; spaces at either end are dropped and
    accents composed (it is data everywhere: the pages show it as text)."""
    if not isinstance(value, str):
        raise input_error("name", f"is {shown(value)}; expected the player's name as text")
    name = unicodedata.normalize("NFC", value).strip()
    if not name:
        raise input_error("name", "is empty; expected the player's name")
    if len(name) > NAME_LIMIT:
        raise input_error("name", f"has {len(name)} letters; expected at most {NAME_LIMIT}")
    bad = next((c for c in name if unicodedata.category(c) in ("Cc", "Cs", "Zl", "Zp", "Co", "Cn")
                or c in _DIRECTION_CONTROLS), None)
    if bad is not None:
        raise input_error("name", f"holds the character U+{ord(bad):04X}; expected letters, digits and punctuation")
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


def typed_boxes(cells: Sequence[Tile], called: Sequence[Tile]) -> list[dict[str, Any]]:
    """Each typed box with its flag: a number not called so far, or written more often than called,
    is flagged (the tiles called so far are public; nothing else is used)."""
    left = Counter(called)
    boxes = []
    for tile in cells:
        why = None
        if left[tile] > 0:
            left[tile] -= 1
        elif tile in called:
            why = f"{tile_json(tile)} is written more often than it was called ({called.count(tile)})"
        else:
            why = f"{'the wild' if tile == WILD else tile_json(tile)} has not been called"
        boxes.append({"value": tile_json(tile), "flagged": why is not None, "why": why})
    return boxes


def corrected(boxes: list[dict[str, Any]], changes: dict[int, Tile]) -> list[dict[str, Any]]:
    """The boxes with the corrections made: each box named is set and no longer flagged (its reading,
    for a photo, is kept)."""
    out = [dict(box) for box in boxes]
    for number, tile in changes.items():
        box = out[number - 1]
        if box["value"] != tile_json(tile) or box["flagged"]:
            box.update(value=tile_json(tile), flagged=False, why=CORRECTED)
    return out


def called_tiles(game: Game) -> list[Tile]:
    """The tiles called so far, in order (all of them once the game is revealed)."""
    tiles = draw(game.seed, game_rules(game.variant))
    return list(tiles if game.revealed else tiles[:game.turn])


def total_turns(game: Game) -> int:
    return game_rules(game.variant).boxes


def source_name(sheet: SheetRow) -> str:
    """The sheet's file name: what `file` says in the results, as for `paperplay score sheet-3.json`."""
    return f"sheet-{sheet.id}.json"


def sheet_document(game: Game, sheet: SheetRow) -> dict[str, Any]:
    """The sheet as a streams-sheet file (what `paperplay score` reads): its seed only once revealed."""
    document: dict[str, Any] = {"game": "streams", "code": written_code(full_code("streams", game.seed)),
                                "player": sheet.name}
    if game.revealed:
        document["seed"] = display_code(game.seed)
    if game.variant is not None:
        document["variant"] = game.variant
    document["cells"] = sheet.cells
    return document


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
    """The document `paperplay score --json` prints for the game's sheets (written as sheet-<id>.json
    files, as /api/games/{code}/sheets/{id}/file gives them): the referee's own results and ranking."""
    from paperplay.streams.referee import ranking, referee, sheet_from_json

    rules = game_rules(game.variant)
    outcomes = []
    for sheet in sheets:
        source = source_name(sheet)
        try:
            outcomes.append(Outcome(source, referee(sheet_from_json(sheet_document(game, sheet), source, rules)),
                                    game="streams"))
        except InputError as exc:
            outcomes.append(Outcome(source, error=exc))
    return {"results": [o.to_json() for o in outcomes],
            "ranking": ranking(o.to_json() for o in outcomes if o.verdict is not None)}


def warm_up() -> None:
    """Loads what the first hand-in and the first results need (the sheet schema's validator, the referee),
    so that the first phones of a burst wait no longer than the last."""
    import time

    from paperplay.serve.store import Game

    game = Game("P2QPHGPH", "7KQ2M9XD", None, "en", 1, 20, True, 1, time.time())
    check_document(game, "warm-up", draw(game.seed))
    results(game, [SheetRow(0, game.code, "warm-up", "", None, "typed", None,
                            [{"value": tile_json(t), "flagged": False, "why": None} for t in draw(game.seed)],
                            0.0, 0.0)])


def results_page(game: Game, sheets: Sequence[SheetRow]) -> bytes:
    """The results page (paperplay.html.results) of a revealed game, in the game's language."""
    from paperplay.html.results import results_page as page
    from paperplay.i18n import translator

    document = results(game, sheets)
    boxes = [[tile_from_json(v) for v in sheet.cells] for sheet in sheets]
    return page(document["results"], boxes, document["ranking"], translator(game.lang))
