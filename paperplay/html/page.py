"""One self-contained HTML page: inline CSS and JS allowed by hash in a strict CSP, data as JSON.

A page has no external URL at all, so it works from a file with no network, and the same inputs
give the same bytes (nothing depends on the time or the machine).
"""

from __future__ import annotations

import base64
import hashlib
import json
from html import escape
from pathlib import Path
from typing import Any

from paperplay.resources import template_path


def text(value: object) -> str:
    """Escapes a value for HTML text or a quoted attribute (a player named <script> stays text)."""
    return escape(str(value), quote=True)


def asset(name: str) -> str:
    """Returns a static page part (CSS or JS) from templates/html/."""
    return template_path(f"html/{name}").read_text(encoding="utf-8")


# A five-pointed star in (-1, -1)-(1, 1), first point up (outer radius 1, inner 0.42, moved down
# 0.08 to sit centred), written out so that no floating-point library can change a byte of it.
STAR_POINTS = ("0,-0.92 0.247,-0.26 0.951,-0.229 0.399,0.21 0.588,0.889 0,0.5 -0.588,0.889 -0.399,0.21 "
               "-0.951,-0.229 -0.247,-0.26")
STAR_SYMBOL = (f'<svg class="defs" aria-hidden="true"><symbol id="star" viewBox="-1 -1 2 2">'
               f'<polygon points="{STAR_POINTS}"/></symbol></svg>')


def star_svg(label: str = "wild") -> str:
    """The wild as an inline star (drawn from STAR_SYMBOL, so it needs no font with a star glyph)."""
    return (f'<svg class="star" viewBox="0 0 2 2" role="img" aria-label="{text(label)}">'
            '<use href="#star" width="2" height="2"/></svg>')


def json_block(data: Any) -> str:
    """JSON safe inside <script type="application/json">: no "<", ">" or "&" can end the block."""
    dumped = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return dumped.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def _sha256(source: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(source.encode("utf-8")).digest()).decode("ascii") + "'"


def csp(style: str, script: str | None, images: bool = False) -> str:
    """A Content-Security-Policy allowing only this page's own inline style and script, by hash (and
    images written into the page as data: addresses, when it has them)."""
    scripts = _sha256(script) if script is not None else "'none'"
    return (f"default-src 'none'; style-src {_sha256(style)}; script-src {scripts}; "
            + ("img-src data:; " if images else "") + "base-uri 'none'; form-action 'none'")


def document(title: str, style: str, body: str, script: str | None = None, data: Any = None,
             description: str = "", lang: str = "en", images: bool = False) -> bytes:
    """Assembles a whole page; the CSP meta comes first so it governs everything after it. `images`:
    the body shows images written in as data: addresses."""
    head = [
        "<!DOCTYPE html>",
        f'<html lang="{lang}">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{csp(style, script, images)}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="color-scheme" content="light dark">',
        '<meta name="generator" content="paperplay">',
    ]
    if description:
        head.append(f'<meta name="description" content="{text(description)}">')
    head += [f"<title>{text(title)}</title>", f"<style>{style}</style>", "</head>"]
    tail = []
    if data is not None:
        tail.append(f'<script type="application/json" id="data">{json_block(data)}</script>')
    if script is not None:
        tail.append(f"<script>{script}</script>")
    page = "\n".join([*head, "<body>", body, *tail, "</body>", "</html>", ""])
    # half a surrogate pair (JSON may escape one in a name) is no character: shown as its escape, \ud800,
    # as the terminal shows it
    return page.encode("utf-8", "backslashreplace")


def read_data(page: bytes | str) -> Any:
    """Returns the JSON data block of a generated page (for tests and tools)."""
    source = page.decode("utf-8") if isinstance(page, bytes) else page
    start = source.index('<script type="application/json" id="data">')
    start = source.index(">", start) + 1
    return json.loads(source[start:source.index("</script>", start)])


PAGE_HINT = "a file name ending in .html with --html"


def check_page_path(path: Path, force: bool) -> None:
    """Fails early, before any work, when the page may not or cannot be written."""
    from paperplay.files import check_writable

    check_writable(path, force, hint=PAGE_HINT)


def write_page(path: Path, page: bytes, force: bool) -> None:
    """Writes a page atomically (a temporary file renamed into place); never overwrites without force."""
    from paperplay.files import write_atomic

    check_page_path(path, force)
    write_atomic(path, page, force, PAGE_HINT)
