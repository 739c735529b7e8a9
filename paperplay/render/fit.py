"""Where a page model's items lie: boxes in mm, for layouts that keep clear of text and for checks.

A box is (x0, y0, x1, y1) in mm from the page's top-left corner. A text's box is its width in
paperplay's font by its size (ascent 0.76, descent 0.24 of the size), turned with the text.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace

from paperplay.render.model import QR, Arc, Circle, Group, Item, Line, Polygon, Rect, Text

Box = tuple[float, float, float, float]
MM_PER_PT = 25.4 / 72.0
CROP_TAG = "crop"
"""The tag of the Group that holds a page's crop marks."""


def text_box(text: Text, dx: float = 0.0, dy: float = 0.0) -> Box:
    """The box a text covers on the page, with its group's shift (dx, dy)."""
    from paperplay.render.pdf import text_width

    w = text_width(text.text, text.size, text.bold)
    u0 = {"left": 0.0, "center": -w / 2, "right": -w}[text.align]
    size = text.size * MM_PER_PT
    a = math.radians(text.angle)
    cos, sin = math.cos(a), math.sin(a)
    xs, ys = [], []
    for u in (u0, u0 + w):
        for v in (-0.24 * size, 0.76 * size):
            xs.append(text.x + dx + u * cos - v * sin)
            ys.append(text.y + dy - u * sin - v * cos)
    return min(xs), min(ys), max(xs), max(ys)


def item_box(item: Item, dx: float = 0.0, dy: float = 0.0) -> Box | None:
    """The box of one drawn item (not a Group or a form), shifted by (dx, dy)."""
    if isinstance(item, Text):
        return text_box(item, dx, dy)
    if isinstance(item, Rect):
        x0, y0, x1, y1 = item.x, item.y, item.x + item.w, item.y + item.h
    elif isinstance(item, QR):
        x0, y0, x1, y1 = item.x, item.y, item.x + item.size, item.y + item.size
    elif isinstance(item, Line):
        x0, x1 = sorted((item.x1, item.x2))
        y0, y1 = sorted((item.y1, item.y2))
    elif isinstance(item, (Circle, Arc)):
        x0, y0, x1, y1 = item.x - item.r, item.y - item.r, item.x + item.r, item.y + item.r
    elif isinstance(item, Polygon):
        x0, x1 = min(p[0] for p in item.points), max(p[0] for p in item.points)
        y0, y1 = min(p[1] for p in item.points), max(p[1] for p in item.points)
    else:
        return None
    return x0 + dx, y0 + dy, x1 + dx, y1 + dy


def walk(items: Iterable[Item], dx: float = 0.0, dy: float = 0.0, clip: Box | None = None,
         tags: tuple[str, ...] = ()) -> Iterator[tuple[Item, Box, tuple[str, ...]]]:
    """Every drawn item with its page box (cut to any clipping group) and the tags of the groups around it."""
    for item in items:
        if isinstance(item, Group):
            inner: Box | None = clip
            if item.clip is not None:
                x, y, w, h = item.clip
                area = (x + dx, y + dy, x + w + dx, y + h + dy)
                inner = area if clip is None else intersection(clip, area)
            yield from walk(item.items, dx + item.dx, dy + item.dy, inner, tags + ((item.tag,) if item.tag else ()))
            continue
        box = item_box(item, dx, dy)
        if box is None:
            continue
        if clip is not None:
            box = intersection(box, clip)
            if box[0] > box[2] or box[1] > box[3]:
                continue  # clipped away entirely
        yield item, box, tags


def intersection(a: Box, b: Box) -> Box:
    return max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])


def overlaps(a: Box, b: Box, pad: float = 0.0) -> bool:
    """True when two boxes, each grown by pad, share more than an edge."""
    return a[0] - pad < b[2] and b[0] - pad < a[2] and a[1] - pad < b[3] and b[1] - pad < a[3]


def fitted(text: Text, width: float) -> Text:
    """The text, smaller when it is wider than `width` mm (a variant's large points in a narrow cell, a
    translation longer than the English)."""
    left, _top, right, _bottom = text_box(text)
    if right - left <= width:
        return text
    return replace(text, size=math.floor(text.size * width / (right - left) * 100) / 100)  # never wider


def text_boxes(items: Iterable[Item]) -> list[Box]:
    """The boxes of every text (and QR code) among items, groups included."""
    return [box for item, box, _ in walk(items) if isinstance(item, (Text, QR))]


def all_boxes(items: Iterable[Item]) -> list[Box]:
    """The boxes of every drawn item among items, groups included."""
    return [box for _, box, _ in walk(items)]


def clear_of(line: Line, obstacles: Sequence[Box], anchor: tuple[float, float], pad: float = 1.0) -> Line | None:
    """Shortens an axis-parallel line from its far end so that it keeps pad mm clear of every obstacle.

    anchor is the end that stays (the one next to the cut line). Returns None when nothing is left.
    """
    ax, ay = anchor
    fx, fy = (line.x2, line.y2) if (line.x1, line.y1) == anchor else (line.x1, line.y1)
    for box in obstacles:
        seg = (min(ax, fx), min(ay, fy), max(ax, fx), max(ay, fy))
        if not overlaps(seg, box, pad):
            continue
        if ax == fx:  # vertical: stop before the box, seen from the anchor
            fy = box[1] - pad if fy > ay else box[3] + pad
            if (fy - ay) * (line.y2 - line.y1 if (line.x1, line.y1) == anchor else line.y1 - line.y2) <= 0:
                return None
        else:
            fx = box[0] - pad if fx > ax else box[2] + pad
            if (fx - ax) * (line.x2 - line.x1 if (line.x1, line.y1) == anchor else line.x1 - line.x2) <= 0:
                return None
    return Line(ax, ay, fx, fy, width=line.width, color=line.color, dash=line.dash)
