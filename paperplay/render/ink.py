"""The ink saver: a page model turned greyscale, with large coloured areas left as outlines.

Colour-blind-safe patterns, letters and shapes stay, so lines and chip sets are still told apart.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache

from paperplay.render.model import QR, Arc, Circle, Group, Item, Line, Page, Polygon, Rect, Text, UseForm

LARGE = 120.0
"""A filled area larger than this (mm²) loses its fill in the ink saver; smaller marks (pattern dots,
checks) keep a grey fill."""


@cache
def grey(colour: str) -> str:
    """The grey of a colour's lightness, darkened so that light colours still print visibly."""
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    light = (0.299 * r + 0.587 * g + 0.114 * b) / 255
    if light > 0.93:
        return "#ffffff"
    value = round(min(light, 0.75) * 0.8 * 255)
    return f"#{value:02x}{value:02x}{value:02x}"


def _fill(fill: str | None, area: float) -> str | None:
    if fill is None:
        return None
    shade = grey(fill)
    return shade if shade == "#ffffff" or area <= LARGE else None


def greyscale_item(item: Item) -> Item:
    """One item in greyscale; coloured (and white) texts turn black, grey notes stay grey."""
    if isinstance(item, Text):
        neutral = item.color[1:3] == item.color[3:5] == item.color[5:7] and item.color.lower() != "#ffffff"
        return replace(item, color=item.color if neutral else "#000000")
    if isinstance(item, Rect):
        return replace(item, color=grey(item.color), fill=_fill(item.fill, item.w * item.h),
                       stroke=item.stroke or (0.4 if item.fill and _fill(item.fill, item.w * item.h) is None else 0))
    if isinstance(item, Circle):
        area = 3.1416 * item.r * item.r
        return replace(item, color=grey(item.color), fill=_fill(item.fill, area),
                       stroke=item.stroke or (0.4 if item.fill and _fill(item.fill, area) is None else 0))
    if isinstance(item, Polygon):
        xs, ys = [p[0] for p in item.points], [p[1] for p in item.points]
        area = (max(xs) - min(xs)) * (max(ys) - min(ys)) / 2
        return replace(item, color=grey(item.color), fill=_fill(item.fill, area),
                       stroke=item.stroke or (0.4 if item.fill and _fill(item.fill, area) is None else 0))
    if isinstance(item, (Line, Arc)):
        return replace(item, color=grey(item.color))
    if isinstance(item, Group):
        return replace(item, items=tuple(greyscale_item(i) for i in item.items))
    if isinstance(item, (QR, UseForm)):
        return item
    raise TypeError(f"cannot turn {item!r} to greyscale")


def greyscale_page(page: Page) -> Page:
    """A page of the ink saver: every item greyscale."""
    return replace(page, items=tuple(greyscale_item(i) for i in page.items))
