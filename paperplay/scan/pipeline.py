"""One photo in, one read sheet out: registration, the 40 cells, box probabilities, matching."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paperplay.scan.match import BoxReading, box_probabilities, read_boxes
from paperplay.scan.model import EMPTY, probabilities
from paperplay.scan.reader import (SHIFTS, ScanError, box_crops, cell_features, check_resolution, load_gray, register,
                                   train_band)
from paperplay.streams.rules import Tile
from paperplay.streams.scansheet import layout

THRESHOLD = 0.98
"""A box whose reading (free: its probability; matched: its confidence against swapping its tile
with another box's) is less sure than this is flagged for a person to check. Chosen with match.EVEN
on the validation sources (python -m paperplay.scan.train --tune), never on the held-out test set."""

BLANK = 0.9
"""A box whose two cells are both empty with at least this probability has nothing written in it:
the sheet is not finished (a blank sheet's boxes were otherwise read as the likeliest tile of the
bag, and matched to the draw as a valid sheet)."""


@dataclass
class Scan:
    photo: Path
    code: str
    sheet: str
    paper: str
    marks_found: int
    probs: Any
    boxes: list[BoxReading]
    crops: list[Any]
    blank: list[int]
    """Boxes (1-based) with nothing written in them (BLANK): also flagged."""
    qr_read: bool = True
    """False: the sheet was placed by its corner marks, but its QR code could not be read (code and sheet
    are empty: the game comes from the draw given, the player from the photo's name)."""
    px_per_mm: float = 0.0
    """The photo's resolution across the train of boxes (reader.pixels_per_mm)."""

    @property
    def flagged(self) -> list[BoxReading]:
        return [b for b in self.boxes if b.flagged]

    @property
    def cells(self) -> list[Tile]:
        return [b.value for b in self.boxes]


def read_photo(photo: Path, drawn: Sequence[Tile] | None = None, threshold: float = THRESHOLD,
               gray: Any = None) -> Scan:
    """Reads a photo of a scannable sheet (raises reader.ScanError when it cannot, and when the
    computer has too little memory free to read it)."""
    import cv2

    try:
        return _read(photo, drawn, threshold, gray)
    except MemoryError:
        raise ScanError(_TOO_LITTLE_MEMORY) from None
    except cv2.error as exc:
        if "Insufficient memory" in str(exc) or "Failed to allocate" in str(exc):
            raise ScanError(_TOO_LITTLE_MEMORY) from None
        raise


_TOO_LITTLE_MEMORY = ("needs more memory than is free to read it; close other programs, or photograph the sheet at "
                      "a lower resolution (a phone's normal photo, 8-12 megapixels, is plenty)")


def _read(photo: Path, drawn: Sequence[Tile] | None, threshold: float, gray: Any) -> Scan:
    if gray is None:
        gray = load_gray(photo)
    page = register(gray)
    resolution = check_resolution(page)
    geo = layout(page.paper)
    band, origin = train_band(gray, page)
    cells = sum(probabilities(*cell_features(band, origin, geo, shift=shift)) for shift in SHIFTS) / len(SHIFTS)
    blank = [b + 1 for b in range(len(cells) // 2) if cells[2 * b][EMPTY] * cells[2 * b + 1][EMPTY] >= BLANK]
    probs = box_probabilities(cells)
    return Scan(photo, page.fields.get("code", ""), page.fields.get("sheet", ""), page.paper, page.marks_found, probs,
                read_boxes(probs, drawn, threshold, blank), box_crops(band, origin, geo), blank, page.qr_read,
                resolution)


def blank_message(blank: Sequence[int]) -> str:
    """What to say of a sheet with boxes that have nothing written in them (BLANK)."""
    return (f"{_boxes(blank)} nothing written (both cells empty); a finished sheet has a number in every box: "
            "fill it in and photograph the sheet again (or type it with --confirm)")


def _boxes(numbers: Sequence[int]) -> str:
    """'box 3 has', 'boxes 3 and 7 have', 'boxes 1-20 have' (runs of boxes joined)."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and runs[-1][1] == n - 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    parts = [f"{a}" if a == b else f"{a}-{b}" for a, b in runs]
    if len(numbers) == 1:
        return f"box {parts[0]} has"
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"boxes {listed} have"
