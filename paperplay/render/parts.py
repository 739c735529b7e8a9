"""Page parts every kit shares: the code-and-QR corner, the calibration ruler, crop marks."""

from __future__ import annotations

from collections.abc import Sequence

from paperplay.render.model import MM_PER_INCH, QR, Item, Line, Rect, Text

MARGIN = 10.0
"""Page margin in mm (home printers cannot print closer than about 5 mm)."""

QR_SIZE = 24.0
CROP_GAP = 2.0
"""Distance in mm between a cut line and the start of its crop mark."""


def qr_payload(game: str, **fields: str) -> str:
    """Returns a QR payload ``PAPERPLAY/1 <game> key=value …`` (SPEC §4)."""
    return " ".join([f"PAPERPLAY/1 {game}"] + [f"{k}={v}" for k, v in fields.items()])


def code_corner(width: float, height: float, payload: str, lines: Sequence[str]) -> list[Item]:
    """The QR code in the bottom-right corner, with the same facts printed beside it for people."""
    x = width - MARGIN - QR_SIZE
    y = height - MARGIN - QR_SIZE
    items: list[Item] = [QR(x, y, QR_SIZE, payload)]
    for i, line in enumerate(lines):
        items.append(Text(x - 3, y + QR_SIZE - (len(lines) - 1 - i) * 5 - 1, line,
                          size=9 if i else 11, bold=i == 0, align="right"))
    return items


def calibration_ruler(x: float, y: float) -> list[Item]:
    """A 50 mm bar and a 2 in bar with ticks and labels, and the line 'print at 100% / actual size'."""
    items: list[Item] = [Text(x, y, "Print at 100% / actual size. Check: the bars below measure", size=7)]
    for row, (length, step, label) in enumerate(((50.0, 10.0, "50 mm"), (2 * MM_PER_INCH, MM_PER_INCH / 2, "2 in"))):
        top = y + 2.5 + row * 6
        items.append(Rect(x, top, length, 2.0, stroke=0, fill="#000000"))
        ticks = round(length / step)
        for t in range(ticks + 1):
            tx = x + t * step
            items.append(Line(tx, top - 0.8, tx, top + 2.8, width=0.4))
        items.append(Text(x + length + 2, top + 2, label, size=7))
    return items


def crop_marks(xs: Sequence[float], ys: Sequence[float], width: float, height: float,
               margin: float = MARGIN / 2) -> list[Item]:
    """Crop marks for a grid of cut lines at xs (vertical) and ys (horizontal).

    Marks sit outside the grid, from CROP_GAP beyond it out to the page margin, so the first cut
    along a mark removes nothing of a component.
    """
    left, right, top, bottom = min(xs), max(xs), min(ys), max(ys)
    items: list[Item] = []
    for x in xs:
        items.append(Line(x, margin, x, top - CROP_GAP, width=0.3))
        items.append(Line(x, bottom + CROP_GAP, x, height - margin, width=0.3))
    for y in ys:
        items.append(Line(margin, y, left - CROP_GAP, y, width=0.3))
        items.append(Line(right + CROP_GAP, y, width - margin, y, width=0.3))
    return items


def grid_lines(xs: Sequence[float], ys: Sequence[float], width: float = 0.3, color: str = "#808080") -> list[Item]:
    """Shared cut lines of a grid of components that touch."""
    items: list[Item] = []
    for x in xs:
        items.append(Line(x, min(ys), x, max(ys), width=width, color=color))
    for y in ys:
        items.append(Line(min(xs), y, max(xs), y, width=width, color=color))
    return items
