"""Golden page-model snapshots: a kit's page models as text, for a few fixed seeds.

Layout drift shows up in review as a diff of tests/golden/*.txt. After a deliberate layout change,
refresh them with:  PAPERPLAY_UPDATE_GOLDEN=1 pytest tests/test_golden_pages.py
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from paperplay.render.model import Document, Group, Item
from test_page_fits import kit

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("PAPERPLAY_UPDATE_GOLDEN") == "1"
SUMMARISED = ("card", "back", "bleed", "tile:", "token:")
"""Groups drawn many times (cards, tiles, tokens) are written as their place and a digest of their drawing."""

CASES = {
    "streetcar-a4-7KQ2M9XD": dict(game="streetcar", seed="7KQ2M9XD", paper="a4"),
    "streetcar-letter-S-ink": dict(game="streetcar", seed="S", paper="letter", ink_saver=True, players=3, card_set=3),
    "sequence-letter-7KQ2M9XD-poster": dict(game="sequence", seed="7KQ2M9XD", paper="letter", poster=True,
                                            numbers="times-tables"),
    "streams-letter-7KQ2M9XD": dict(game="streams", seed="7KQ2M9XD", paper="letter", players=2),
    # a seed of derivation 2 (docs/reference/seeds.md): QR codes PAPERPLAY/2 with the full code, a longer seed
    "streams-a4-7KQ2M9XDA3BCEF": dict(game="streams", seed="7KQ2M9XDA3BCEF", paper="a4", players=2),
}


def _value(v: object) -> str:
    if isinstance(v, float):
        return f"{v:.2f}".rstrip("0").rstrip(".")
    if isinstance(v, tuple):
        return "(" + ",".join(_value(x) for x in v) + ")"
    return str(v)


def _line(item: Item) -> str:
    fields = ", ".join(f"{k}={_value(v)}" for k, v in vars(item).items() if k != "items")
    return f"{type(item).__name__}({fields})"


def serialise(doc: Document) -> str:
    """A document's pages as text, one item a line, groups indented."""
    out = [f"document {doc.title!r}"]
    seen: set[str] = set()

    def write(items: tuple[Item, ...], depth: int) -> None:
        for item in items:
            pad = "  " * depth
            if not isinstance(item, Group):
                out.append(pad + _line(item))
                continue
            digest = hashlib.sha256(repr(item.items).encode()).hexdigest()[:10]
            if item.tag.startswith(SUMMARISED) or (len(item.items) >= 20 and digest in seen):
                # A drawing already written in full (a board on poster pages) is written by its digest.
                out.append(f"{pad}{_line(item)} items={len(item.items)} drawing={digest}")
            else:
                out.append(f"{pad}{_line(item)} drawing={digest}")
                seen.add(digest)
                write(item.items, depth + 1)

    for name, items in sorted(doc.forms.items()):
        out.append(f"form {name}")
        write(items, 1)
    for n, page in enumerate(doc.pages, start=1):
        out.append(f"page {n} {page.label!r} {page.role} {_value(page.width)} x {_value(page.height)}")
        write(page.items, 1)
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("name", sorted(CASES))
def test_page_models_match_the_golden_snapshot(name):
    text = serialise(kit(**CASES[name]))
    path = GOLDEN / f"{name}.txt"
    if UPDATE or not path.exists():
        path.write_text(text, encoding="utf-8")
        if not UPDATE:
            pytest.fail(f"{path} was missing and has been written; check it in")
    assert text == path.read_text(encoding="utf-8"), (
        f"the page models of {name} changed; if on purpose, refresh with PAPERPLAY_UPDATE_GOLDEN=1")


def test_the_snapshot_shows_a_moved_item():
    from paperplay.render.model import Page, Text

    one = Document("t", (Page(210, 297, (Text(10, 20, "a"),)),))
    two = Document("t", (Page(210, 297, (Text(10, 20.5, "a"),)),))
    assert serialise(one) != serialise(two) and "y=20.5" in serialise(two)
