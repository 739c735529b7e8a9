"""Reads PDFs back for tests: page sizes, text, and QR codes decoded from rendered pages."""

from __future__ import annotations

from pathlib import Path

import pypdfium2
import zxingcpp
from pypdf import PdfReader

PT_PER_MM = 72 / 25.4


def page_sizes_mm(path: Path) -> list[tuple[float, float]]:
    reader = PdfReader(path)
    return [(round(float(p.mediabox.width) / PT_PER_MM, 1), round(float(p.mediabox.height) / PT_PER_MM, 1))
            for p in reader.pages]


def page_texts(path: Path) -> list[str]:
    return [page.extract_text() for page in PdfReader(path).pages]


def qr_texts(path: Path, page_index: int, dpi: int = 200) -> list[str]:
    """Renders one page and decodes every QR code on it."""
    pdf = pypdfium2.PdfDocument(str(path))
    try:
        image = pdf[page_index].render(scale=dpi / 72).to_pil()
    finally:
        pdf.close()
    return [r.text for r in zxingcpp.read_barcodes(image) if r.format == zxingcpp.BarcodeFormat.QRCode]
