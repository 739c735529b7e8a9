"""Draws a page model (render.model) into a PDF with reportlab, and writes files safely.

Fonts are embedded (Bitstream Vera, shipped with reportlab), QR codes are vector squares, and
reportlab's invariant mode makes the same model give the same bytes.
"""

from __future__ import annotations

import io
from functools import cache
from itertools import groupby
from pathlib import Path
from typing import TYPE_CHECKING

from paperplay.files import check_writable, write_atomic
from paperplay.processes import fragile
from paperplay.render.model import QR, Arc, Circle, Document, Group, Item, Line, Polygon, Rect, Text, UseForm

if TYPE_CHECKING:
    from reportlab.lib.colors import Color
    from reportlab.pdfgen.canvas import Canvas

PT_PER_MM = 72.0 / 25.4
FONT = "PaperplaySans"
FONT_BOLD = "PaperplaySans-Bold"


@cache
def _register_fonts() -> None:
    import reportlab
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    folder = Path(reportlab.__file__).parent / "fonts"
    pdfmetrics.registerFont(TTFont(FONT, str(folder / "Vera.ttf")))
    pdfmetrics.registerFont(TTFont(FONT_BOLD, str(folder / "VeraBd.ttf")))


@cache
def _color(hex_code: str) -> Color:
    # reportlab parses colour strings with a safe evaluator on every call; parse each one once.
    from reportlab.lib.colors import HexColor

    return HexColor(hex_code)


def qr_modules(payload: str) -> list[list[bool]]:
    """Returns the QR code of a payload as rows of dark (True) and light modules, without border.

    Error correction M; the mask is fixed (pattern 0) so encoding is fast and reproducible.
    """
    import qrcode
    from qrcode.constants import ERROR_CORRECT_M

    code = qrcode.QRCode(error_correction=ERROR_CORRECT_M, border=0, mask_pattern=0)
    code.add_data(payload)
    code.make(fit=True)
    return code.get_matrix()


def text_width(text: str, size: float, bold: bool = False) -> float:
    """Returns the width of a text in mm in paperplay's font."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    _register_fonts()
    return stringWidth(text, FONT_BOLD if bold else FONT, size) / PT_PER_MM


@cache
def _drawable() -> frozenset[int]:
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    _register_fonts()
    regular, bold = (pdfmetrics.getFont(name) for name in (FONT, FONT_BOLD))
    assert isinstance(regular, TTFont) and isinstance(bold, TTFont)
    return frozenset(regular.face.charToGlyph).intersection(bold.face.charToGlyph)


def undrawable(text: str) -> str:
    """The characters of `text` that paperplay's font has no glyph for (each once, in order): reportlab
    would draw a box or nothing for them. Of the spaces, the font has the space and the no-break space."""
    drawable = _drawable()
    return "".join(dict.fromkeys(c for c in text if ord(c) not in drawable))


class _Painter:
    """Draws items on a reportlab canvas, converting mm from the top-left to points."""

    def __init__(self, canvas: Canvas, height_mm: float) -> None:
        self.c = canvas
        self.h = height_mm

    def _xy(self, x: float, y: float) -> tuple[float, float]:
        return x * PT_PER_MM, (self.h - y) * PT_PER_MM

    def _style(self, stroke: float, fill: str | None, color: str) -> tuple[int, int]:
        c = self.c
        if stroke:
            c.setStrokeColor(_color(color))
            c.setLineWidth(stroke)
        if fill:
            c.setFillColor(_color(fill))
        return (1 if stroke else 0), (1 if fill else 0)

    def draw(self, item: Item) -> None:
        c = self.c
        if isinstance(item, Rect):
            stroke, fill = self._style(item.stroke, item.fill, item.color)
            x, y = self._xy(item.x, item.y + item.h)
            if item.radius:
                c.roundRect(x, y, item.w * PT_PER_MM, item.h * PT_PER_MM, item.radius * PT_PER_MM,
                            stroke=stroke, fill=fill)
            else:
                c.rect(x, y, item.w * PT_PER_MM, item.h * PT_PER_MM, stroke=stroke, fill=fill)
        elif isinstance(item, Line):
            c.setStrokeColor(_color(item.color))
            c.setLineWidth(item.width)
            c.setDash(list(item.dash) if item.dash else [])
            c.line(*self._xy(item.x1, item.y1), *self._xy(item.x2, item.y2))
            if item.dash:
                c.setDash([])
        elif isinstance(item, Circle):
            stroke, fill = self._style(item.stroke, item.fill, item.color)
            c.circle(*self._xy(item.x, item.y), item.r * PT_PER_MM, stroke=stroke, fill=fill)
        elif isinstance(item, Arc):
            c.setStrokeColor(_color(item.color))
            c.setLineWidth(item.width)
            x, y = self._xy(item.x, item.y)
            r = item.r * PT_PER_MM
            c.arc(x - r, y - r, x + r, y + r, item.start, item.extent)
        elif isinstance(item, Polygon):
            stroke, fill = self._style(item.stroke, item.fill, item.color)
            path = c.beginPath()
            path.moveTo(*self._xy(*item.points[0]))
            for point in item.points[1:]:
                path.lineTo(*self._xy(*point))
            path.close()
            c.drawPath(path, stroke=stroke, fill=fill)
        elif isinstance(item, Text):
            c.setFont(FONT_BOLD if item.bold else FONT, item.size)
            c.setFillColor(_color(item.color))
            x, y = self._xy(item.x, item.y)
            draw = {"left": c.drawString, "center": c.drawCentredString, "right": c.drawRightString}
            if item.angle:
                c.saveState()
                c.translate(x, y)
                c.rotate(item.angle)
                draw[item.align](0, 0, _printable(item.text))
                c.restoreState()
            else:
                draw[item.align](x, y, _printable(item.text))
        elif isinstance(item, QR):
            self._qr(item)
        elif isinstance(item, Group):
            c.saveState()
            if item.clip is not None:
                x, y, w, h = item.clip
                path = c.beginPath()
                path.rect(*self._xy(x, y + h), w * PT_PER_MM, h * PT_PER_MM)
                c.clipPath(path, stroke=0, fill=0)
            c.translate(item.dx * PT_PER_MM, -item.dy * PT_PER_MM)
            for inner in item.items:
                self.draw(inner)
            c.restoreState()
        else:
            raise TypeError(f"cannot draw {item!r}")

    def _qr(self, item: QR) -> None:
        # Module units with integer coordinates: short operators that compress well, written
        # directly (no per-number float formatting), one filled path for the whole code.
        modules = qr_modules(item.payload)
        n = len(modules)
        unit = item.size / n * PT_PER_MM
        left, top = self._xy(item.x, item.y)
        ops = []
        for r, row in enumerate(modules):
            y = n - 1 - r
            col = 0
            for dark, run in groupby(row):
                length = len(list(run))
                if dark:
                    ops.append(f"{col} {y} {length} 1 re")
                col += length
        c = self.c
        c.saveState()
        c.setFillColor(_color("#000000"))
        c.transform(unit, 0, 0, unit, left, top - n * unit)
        c.addLiteral("\n".join(ops) + "\nf")
        c.restoreState()


def _printable(text: str) -> str:
    """Text a PDF can hold: a lone surrogate (from an undecodable file name) becomes "?"."""
    return text.encode("utf-8", "replace").decode("utf-8") if any("\ud800" <= ch <= "\udfff" for ch in text) else text


def render_bytes(doc: Document) -> bytes:
    """Renders a document model to PDF bytes (identical bytes for an identical model)."""
    from reportlab import rl_config

    _register_fonts()
    # Binary (not ASCII85) streams: a quarter smaller, and every PDF reader handles them. reportlab's
    # setting is global: restored afterwards, for other reportlab code in the same process.
    was = rl_config.useA85
    rl_config.useA85 = 0
    try:
        # reportlab catches every exception while it writes the PDF (a Ctrl-C became a KeyError, and a
        # dictionary was printed on stdout): rendering is fragile work, which a signal ends at once.
        with fragile():
            return _render(doc)
    finally:
        rl_config.useA85 = was


def _render(doc: Document) -> bytes:
    from reportlab.pdfgen.canvas import Canvas

    buffer = io.BytesIO()
    first = doc.pages[0]
    # The embedded font from the first page on: reportlab's default, Helvetica, would be listed as a
    # font the PDF uses but does not embed (a print shop's preflight flags that), though nothing is
    # drawn in it.
    canvas = Canvas(buffer, pagesize=(first.width * PT_PER_MM, first.height * PT_PER_MM),
                    invariant=1, pageCompression=1,
                    initialFontName=FONT)  # type: ignore[arg-type]  # the stubs say float; reportlab takes a name
    canvas.setTitle(_printable(doc.title))
    canvas.setAuthor("paperplay")
    canvas.setCreator("paperplay")
    canvas.setSubject(_printable(doc.subject))
    defined: set[str] = set()
    for page in doc.pages:
        canvas.setPageSize((page.width * PT_PER_MM, page.height * PT_PER_MM))
        painter = _Painter(canvas, page.height)
        for item in page.items:
            if isinstance(item, UseForm):
                if item.name not in defined:
                    canvas.beginForm(item.name)
                    for form_item in doc.forms[item.name]:
                        painter.draw(form_item)
                    canvas.endForm()
                    defined.add(item.name)
                canvas.doForm(item.name)
            else:
                painter.draw(item)
        canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def write_pdf(doc: Document, path: Path | str, force: bool = False, option: str = "--out") -> int:
    """Renders a document and writes it safely; returns the size in bytes. `option` names the path's
    option in errors."""
    path = Path(path)
    hint = f"a file name ending in .pdf with {option}"
    check_writable(path, force, hint)
    data = render_bytes(doc)
    write_atomic(path, data, force, hint)
    return len(data)
