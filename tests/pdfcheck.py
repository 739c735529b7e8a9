"""Reads PDFs back for tests: page sizes, text, and QR codes decoded from rendered pages."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pypdfium2
import zxingcpp
from pypdf import PdfReader

PT_PER_MM = 72 / 25.4


def page_sizes_mm(path: Path) -> list[tuple[float, float]]:
    reader = PdfReader(path)
    return [(round(float(p.mediabox.width) / PT_PER_MM, 1), round(float(p.mediabox.height) / PT_PER_MM, 1))
            for p in reader.pages]


_TEXTS: dict[bytes, tuple[str, ...]] = {}
_QR: dict[tuple[bytes, int, int], tuple[str, ...]] = {}
"""What was read from a PDF, by the SHA-256 of its bytes: the same file, or a byte-identical one written again,
is read once per test session (text extraction and QR decoding are the slow part of many PDF tests)."""


def _digest(path: Path) -> bytes:
    return hashlib.sha256(Path(path).read_bytes()).digest()


def page_texts(path: Path) -> list[str]:
    key = _digest(path)
    if key not in _TEXTS:
        _TEXTS[key] = tuple(page.extract_text() for page in PdfReader(path).pages)
    return list(_TEXTS[key])


def fonts(path: Path) -> list[tuple[str, bool]]:
    """Every font the PDF lists (its pages' and their forms' resources), once each, as (name, embedded),
    as poppler's pdffonts reports them, read with pypdf so the tests need no poppler-utils."""
    found: dict[object, tuple[str, bool]] = {}

    def embedded(font) -> bool:
        descendants = font.get("/DescendantFonts")
        if descendants:
            font = descendants.get_object()[0].get_object()
        descriptor = font.get("/FontDescriptor")
        return descriptor is not None and any(key in descriptor.get_object()
                                              for key in ("/FontFile", "/FontFile2", "/FontFile3"))

    def visit(resources, seen: set[int]) -> None:
        if resources is None or id(resources) in seen:
            return
        seen.add(id(resources))
        resources = resources.get_object()
        for ref in (resources.get("/Font") or {}).values():
            key = getattr(ref, "idnum", None) or id(ref)
            font = ref.get_object()
            found.setdefault(key, (str(font.get("/BaseFont", "")).lstrip("/"), embedded(font)))
        for ref in (resources.get("/XObject") or {}).values():
            xobject = ref.get_object()
            if xobject.get("/Subtype") == "/Form":
                visit(xobject.get("/Resources"), seen)

    seen: set[int] = set()
    for page in PdfReader(path).pages:
        visit(page.get("/Resources"), seen)
    return list(found.values())


def qr_texts(path: Path, page_index: int, dpi: int = 200) -> list[str]:
    """Renders one page and decodes every QR code on it."""
    key = (_digest(path), page_index, dpi)
    if key not in _QR:
        pdf = pypdfium2.PdfDocument(str(path))
        try:
            image = pdf[page_index].render(scale=dpi / 72).to_pil()
        finally:
            pdf.close()
        _QR[key] = tuple(r.text for r in zxingcpp.read_barcodes(image) if r.format == zxingcpp.BarcodeFormat.QRCode)
    return list(_QR[key])
