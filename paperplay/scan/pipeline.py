"""One photo in, one read sheet out: registration, the 40 cells, box probabilities, matching."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paperplay.scan.adapt import WEIGHT, adapt, cell_labels
from paperplay.scan.match import LOW_MARGIN, MARGIN, BoxReading, box_probabilities, read_boxes
from paperplay.scan.model import EMPTY, LOW_RES, read_cells
from paperplay.scan.refusal import ScanRefusal
from paperplay.scan.reader import (SHIFTS, box_crops, cell_features, cell_strokes, check_resolution,
                                   load_gray, register, train_band)
from paperplay.streams.rules import Tile
from paperplay.streams.scansheet import layout

THRESHOLD = 0.98
"""Without a draw to match to, a box whose free reading is less sure than this is flagged for a person
to check (with a draw, the assignment's margin decides: match.MARGIN)."""
INKED = 0.15
"""A cell whose tallest stroke is at least this fraction of the cell's height has something written in it:
it is never read as empty, whatever the digit reader says (a thin 1 or a faint tens digit was)."""
READABLE = 0.3
"""A box with an inked cell that no class fits with at least this probability is flagged (0.5 flagged a third
more boxes on the validation photos, of which nine in ten were right, and caught no wrong box that the
assignment's margin missed: python -m lab.train --tune)."""

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
        raise ScanRefusal("photo_too_large", _TOO_LITTLE_MEMORY) from None
    except cv2.error as exc:
        if "Insufficient memory" in str(exc) or "Failed to allocate" in str(exc):
            raise ScanRefusal("photo_too_large", _TOO_LITTLE_MEMORY) from None
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
    probs, boxes, blank = read_band(band, origin, geo, drawn, threshold, resolution)
    return Scan(photo, page.fields.get("code", ""), page.fields.get("sheet", ""), page.paper, page.marks_found, probs,
                boxes, box_crops(band, origin, geo), blank, page.qr_read, resolution)


def read_band(band: Any, origin: tuple[float, float], geo: Any, drawn: Sequence[Tile] | None,
              threshold: float = THRESHOLD, px_per_mm: float = math.inf) -> tuple[Any, list[BoxReading], list[int]]:
    """Reads the 20 boxes of a rectified train band, photographed at `px_per_mm`: (box probabilities 20 × 31,
    readings, blank boxes)."""
    margin = LOW_MARGIN if px_per_mm < LOW_RES else MARGIN
    return decide(*read_cells_of(band, origin, geo, px_per_mm), drawn, threshold, margin)


def read_cells_of(band: Any, origin: tuple[float, float], geo: Any, px_per_mm: float = math.inf
                  ) -> tuple[Any, Any, Any]:
    """The 40 cells of a band as the digit reader sees them (the low-resolution net where the photo had fewer
    than model.LOW_RES pixels a millimetre): class probabilities (40 × 12) and embeddings, each the mean of five
    readings (SHIFTS), and how tall each cell's tallest stroke is (reader.cell_strokes)."""
    low = px_per_mm < LOW_RES
    reads = [read_cells(*cell_features(band, origin, geo, shift=shift), low=low) for shift in SHIFTS]
    return (sum(p for p, _ in reads) / len(reads), sum(e for _, e in reads) / len(reads),
            cell_strokes(band, origin, geo))


def decide(cells: Any, embeddings: Any, strokes: Any, drawn: Sequence[Tile] | None, threshold: float = THRESHOLD,
           margin: float = MARGIN, inked_at: float = INKED, weight: float = WEIGHT, readable: float = READABLE,
           linked: bool = True) -> tuple[Any, list[BoxReading], list[int]]:
    """The boxes' readings from their cells' (read_cells_of): a cell with a written stroke (`inked_at`) is
    never read as empty, and a box with such a cell that no class fits well (`readable`) is flagged; with a
    draw, the sheet's sure boxes then teach the reader this writer's hand (paperplay.scan.adapt, `weight`)
    and the boxes are read again (`linked`: match.read_boxes). Returns (box probabilities 20 × 31, readings,
    blank boxes)."""
    inked = strokes >= inked_at
    cells = cells.copy()
    cells[inked, EMPTY] = 0.0
    cells = cells / cells.sum(axis=1, keepdims=True)
    boxes_n = len(cells) // 2
    blank = [b + 1 for b in range(boxes_n)
             if not inked[2 * b] and not inked[2 * b + 1] and cells[2 * b][EMPTY] * cells[2 * b + 1][EMPTY] >= BLANK]
    unreadable = [b + 1 for b in range(boxes_n)
                  if any(inked[c] and cells[c].max() < readable for c in (2 * b, 2 * b + 1))]
    probs = box_probabilities(cells)
    boxes = read_boxes(probs, drawn, threshold, blank, unreadable, margin, linked)
    if drawn is not None and weight > 0:
        cells = adapt(cells, embeddings, cell_labels(cells, boxes), weight)
        probs = box_probabilities(cells)
        boxes = read_boxes(probs, drawn, threshold, blank, unreadable, margin, linked)
    return probs, boxes, blank


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
