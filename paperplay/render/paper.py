"""Paper sizes, defined once: the kits, the CLI's --paper choices and the registry read them here.

A module of its own so that the command line can offer the choices without loading the page model.
"""

from __future__ import annotations

PAPER_SIZES: dict[str, tuple[float, float]] = {
    "a4": (210.0, 297.0),
    "letter": (215.9, 279.4),
    "a3": (297.0, 420.0),
}
"""Portrait width and height of each paper size, in millimetres."""


def paper_size(paper: str, landscape: bool = False) -> tuple[float, float]:
    """Returns (width, height) in mm of a paper size, turned for landscape if asked."""
    width, height = PAPER_SIZES[paper]
    return (height, width) if landscape else (width, height)
