"""Draws simple page models (rectangles, lines, text) as a PNG with Pillow, for charts.

Pillow is already installed with reportlab (it is one of reportlab's own dependencies).
"""

from __future__ import annotations

import io
from functools import cache
from typing import Any

from paperplay.render.model import MM_PER_INCH, Group, Line, Page, Rect, Text

POINT_MM = 25.4 / 72


@cache
def _font(pixels: int, bold: bool) -> Any:
    from pathlib import Path

    import reportlab
    from PIL import ImageFont

    # The same Vera fonts the PDFs embed, shipped with reportlab.
    return ImageFont.truetype(str(Path(reportlab.__file__).parent / "fonts" / ("VeraBd.ttf" if bold else "Vera.ttf")),
                              pixels)


def png_bytes(page: Page, dpi: int = 150) -> bytes:
    """Rasterises a page made of Rect, Line, Text and Group items."""
    from PIL import Image, ImageDraw

    scale = dpi / MM_PER_INCH
    image = Image.new("RGB", (round(page.width * scale), round(page.height * scale)), "#ffffff")
    draw = ImageDraw.Draw(image)

    def px(value: float) -> float:
        return value * scale

    def paint(items: tuple[Any, ...], dx: float, dy: float) -> None:
        for item in items:
            if isinstance(item, Group):
                paint(item.items, dx + item.dx, dy + item.dy)
            elif isinstance(item, Rect):
                box = [px(item.x + dx), px(item.y + dy), px(item.x + dx + item.w), px(item.y + dy + item.h)]
                width = max(1, round(px(item.stroke * POINT_MM))) if item.stroke else 0
                draw.rectangle(box, fill=item.fill, outline=item.color if width else None, width=width)
            elif isinstance(item, Line):
                draw.line([px(item.x1 + dx), px(item.y1 + dy), px(item.x2 + dx), px(item.y2 + dy)],
                          fill=item.color, width=max(1, round(px(item.width * POINT_MM))))
            elif isinstance(item, Text):
                font = _font(max(6, round(px(item.size * POINT_MM))), item.bold)
                anchor = {"left": "ls", "center": "ms", "right": "rs"}[item.align]
                draw.text((px(item.x + dx), px(item.y + dy)), item.text, fill=item.color, font=font, anchor=anchor)
            else:
                raise TypeError(f"png_bytes cannot draw {type(item).__name__}")

    paint(page.items, 0.0, 0.0)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()
