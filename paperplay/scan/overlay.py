"""The photo with what the reader found drawn on it: for the check page, and for a phone to show a player
whose photo was refused what to change.

Drawn on the photo (in grey, shrunk to LONG_SIDE): the mark-like squares found (yellow rings), and the
sheet's outline where a placement was tried: green with the boxes' frames when it held and the sheet is
read, red when it was refused.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from paperplay.scan.refusal import ScanRefusal, Seen

LONG_SIDE = 1024
"""The overlay's long side, pixels (a phone's screen)."""
GREEN, RED, YELLOW = (60, 170, 40), (40, 40, 220), (0, 200, 240)  # OpenCV's BGR


def seen_in(gray: Any) -> tuple[Seen, ScanRefusal | None]:
    """What the reader finds in a photo's grey pixels: the sheet placed and checked (Seen.held), or the refusal
    with what was seen before it was refused."""
    from paperplay.scan.reader import check_resolution, outline, register
    from paperplay.streams.scansheet import layout

    try:
        page = register(gray)
        check_resolution(page)
    except ScanRefusal as refusal:
        return refusal.seen, refusal
    from paperplay.scan.reader import _project

    marks = _project(page.homography, np.array(layout(page.paper).marks))
    return Seen([(float(x), float(y)) for x, y in marks], outline(page.homography, page.paper), True,
                boxes=_boxes(page.homography, page.paper)), None


def _boxes(homography: Any, paper: str) -> list[list[tuple[float, float]]]:
    from paperplay.scan.reader import _project
    from paperplay.streams.scansheet import layout

    out = []
    for x, y, w, h in layout(paper).boxes:
        corners = _project(homography, [[x, y], [x + w, y], [x + w, y + h], [x, y + h]])
        out.append([(float(a), float(b)) for a, b in corners])
    return out


def draw_overlay(gray: Any, seen: Seen, long_side: int = LONG_SIDE) -> bytes:
    """PNG bytes of a photo's grey pixels with `seen` drawn on them (module docstring), at most `long_side` pixels
    long."""
    import cv2

    h, w = gray.shape[:2]
    scale = min(1.0, long_side / max(h, w))
    small = cv2.resize(gray, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
    image = cv2.cvtColor(small, cv2.COLOR_GRAY2BGR)
    thick = max(2, round(max(image.shape) / 300))

    def points(corners: list[tuple[float, float]]) -> Any:
        return np.array([[round(x * scale), round(y * scale)] for x, y in corners], np.int32)

    for x, y in seen.marks:
        cv2.circle(image, (round(x * scale), round(y * scale)), 7 * thick, YELLOW, thick)
    if seen.outline is not None:
        colour = GREEN if seen.held else RED
        cv2.polylines(image, [points(seen.outline)], True, colour, thick, cv2.LINE_AA)
        for box in seen.boxes:
            cv2.polylines(image, [points(box)], True, colour, max(1, thick // 2), cv2.LINE_AA)
    ok, data = cv2.imencode(".png", image)
    assert ok
    return data.tobytes()


def overlay_png(photo: Path) -> tuple[bytes, ScanRefusal | None]:
    """The overlay of a photo file (JPEG, PNG, WebP or HEIC: reader.load_gray's bounds), and its refusal if the
    reader refuses it (None: it is read). Raises reader.ScanError when the file is no photo at all."""
    from paperplay.scan.reader import load_gray

    gray = load_gray(photo)
    seen, refusal = seen_in(gray)
    return draw_overlay(gray, seen), refusal
