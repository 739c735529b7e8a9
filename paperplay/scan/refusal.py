"""Why a photo is not read, and how to take it again: a stable code for programs, a sentence for people.

A refusal (ScanRefusal) carries its machine code (`code`, one of CODES), the one line the command line
prints (`str(refusal)`: what was found and what to do, in English), the advice alone in plain words
(`hint`, marked for translation: `hint_in(translator)` gives it in a player's language), and what the
reader saw in the photo (`seen`: the corner marks found and the sheet's outline, photo pixels), which
paperplay.scan.overlay draws.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from paperplay.i18n import ENGLISH, N_, Translator


class ScanError(Exception):
    """A photo that cannot be read (one line for the user)."""


HINTS: dict[str, str] = {
    "no_sheet_found": N_("Photograph the whole sheet from above, with its four black corner squares in the photo."),
    "mark_covered": N_("The {corner} corner square is covered or outside the photo: uncover it and take the "
                       "photo again."),
    "photo_angle": N_("Hold the phone straight above the sheet, not at an angle, and take the photo again."),
    "photo_small": N_("Come closer: the sheet spans only {px} pixels a millimetre in the photo; let it fill "
                      "the photo."),
    "photo_blurred": N_("Hold the phone still and let it focus: the boxes' frames cannot be made out."),
    "two_sheets": N_("Photograph one sheet at a time."),
    "not_score_sheet": N_("This is not a player's score sheet: photograph the players' sheets."),
    "classic_sheet": N_("Only sheets printed with --scannable can be read: type this sheet's numbers instead."),
    "not_image": N_("Send a photo: a JPEG, PNG, WebP or HEIC picture."),
    "photo_too_large": N_("Send the camera's normal photo (8-12 megapixels is plenty)."),
}
"""The advice of each refusal, by its code (the codes are stable: programs and translations key on them)."""
CODES = tuple(HINTS)

CORNERS = (N_("top-left"), N_("top-right"), N_("bottom-right"), N_("bottom-left"))
"""The corner marks' names, in the order of the layout's marks."""


@dataclass
class Seen:
    """What the reader found in a photo (photo pixels): mark-like squares, and the sheet's outline (its four
    paper corners, clockwise from the top-left) where a placement was tried."""

    marks: list[tuple[float, float]] = field(default_factory=list)
    outline: list[tuple[float, float]] | None = None
    held: bool = False
    """True: the outline was checked against the printed layout and holds (the photo is read)."""
    boxes: list[list[tuple[float, float]]] = field(default_factory=list)
    """The 20 boxes' outlines where a placement that holds puts them."""


class ScanRefusal(ScanError):
    """A photo refused: `code` (CODES), the one line (str), `hint` (plain words, English) and `seen`."""

    def __init__(self, code: str, line: str, seen: Seen | None = None, **values: Any) -> None:
        assert code in HINTS, code
        super().__init__(line)
        self.code = code
        self.values = values
        self.seen = seen or Seen()

    @property
    def hint(self) -> str:
        return self.hint_in(ENGLISH)

    def hint_in(self, translator: Translator) -> str:
        """The advice in a translator's language (a corner's name translated too)."""
        values = dict(self.values)
        if "corner" in values:
            values["corner"] = translator.gettext(CORNERS[int(values["corner"])])
        return translator.gettext(HINTS[self.code]).format(**values)


def refusal_json(error: ScanError, translator: Translator = ENGLISH) -> dict[str, Any]:
    """A refusal as an API answers it: {"code", "message", "hint"} (code "unreadable" for a plain ScanError)."""
    if isinstance(error, ScanRefusal):
        return {"code": error.code, "message": str(error), "hint": error.hint_in(translator)}
    return {"code": "unreadable", "message": str(error), "hint": str(error)}
