"""What goes on a page, as plain data in millimetres from the top-left corner.

Games build these models; render.pdf draws them. Tests can inspect a model without a PDF.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Union

from paperplay.render.paper import PAPER_SIZES, paper_size  # noqa: F401 (pages import them from here)

MM_PER_INCH = 25.4


@dataclass(frozen=True)
class Rect:
    """A rectangle; stroke width in points (0 for none), fill a colour like '#ffcc00' or None."""

    x: float
    y: float
    w: float
    h: float
    stroke: float = 0.6
    fill: str | None = None
    color: str = "#000000"
    radius: float = 0.0


@dataclass(frozen=True)
class Line:
    """A straight line; width in points."""

    x1: float
    y1: float
    x2: float
    y2: float
    width: float = 0.5
    color: str = "#000000"
    dash: tuple[float, ...] = ()


@dataclass(frozen=True)
class Circle:
    """A circle around (x, y)."""

    x: float
    y: float
    r: float
    stroke: float = 0.6
    fill: str | None = None
    color: str = "#000000"


@dataclass(frozen=True)
class Arc:
    """An arc of a circle around (x, y): start angle and extent in degrees, counter-clockwise from east."""

    x: float
    y: float
    r: float
    start: float
    extent: float
    width: float = 0.6
    color: str = "#000000"


@dataclass(frozen=True)
class Polygon:
    """A closed polygon through the points."""

    points: tuple[tuple[float, float], ...]
    stroke: float = 0.6
    fill: str | None = None
    color: str = "#000000"


@dataclass(frozen=True)
class Text:
    """One line of text; y is the baseline; size in points."""

    x: float
    y: float
    text: str
    size: float = 10.0
    bold: bool = False
    align: Literal["left", "center", "right"] = "left"
    color: str = "#000000"
    angle: float = 0.0
    """Turned about (x, y) by this many degrees, counter-clockwise as seen (90: reads bottom to top)."""


@dataclass(frozen=True)
class QR:
    """A QR code of the payload, drawn as vector squares in a size × size mm square at (x, y)."""

    x: float
    y: float
    size: float
    payload: str


@dataclass(frozen=True)
class Group:
    """Items drawn shifted by (dx, dy), and clipped to a rectangle (x, y, w, h) of the page if given.

    Used to print a part of a large model on one page (tiling) and to shift duplex backs.
    """

    items: tuple[Item, ...]
    dx: float = 0.0
    dy: float = 0.0
    clip: tuple[float, float, float, float] | None = None
    tag: str = ""
    """What the group draws, e.g. "tile:curve" (for checks of a layout; not printed)."""


@dataclass(frozen=True)
class UseForm:
    """Draws a shared form (items drawn once per document, reused on every page)."""

    name: str


Item = Union[Rect, Line, Circle, Arc, Polygon, Text, QR, UseForm, Group]


@dataclass(frozen=True)
class Page:
    """One page: its size in mm, its items, and a role (who may see it) for checks and tests."""

    width: float
    height: float
    items: tuple[Item, ...]
    role: Literal["player", "organiser"] = "player"
    label: str = ""
    side: Literal["", "front", "back"] = ""  # printed double-sided: a front, or the back of the page before


@dataclass(frozen=True)
class Document:
    """A whole PDF: metadata, shared forms and pages."""

    title: str
    pages: tuple[Page, ...]
    forms: dict[str, tuple[Item, ...]] = field(default_factory=dict)
    subject: str = ""

    def texts(self, page: Page) -> list[str]:
        """Returns every text on a page, its forms included (for checks of what a page reveals)."""
        out: list[str] = []
        for item in page.items:
            if isinstance(item, Text):
                out.append(item.text)
            elif isinstance(item, QR):
                out.append(item.payload)
            elif isinstance(item, UseForm):
                out.extend(i.text for i in self.forms[item.name] if isinstance(i, Text))
            elif isinstance(item, Group):
                out.extend(self.texts(Page(page.width, page.height, item.items)))
        return out
