"""Takes the documentation's screenshots of the host's pages with the system's Chromium.

Run from the repository: python tests/screenshots.py  (writes docs/streams-projector.png and
docs/streams-results.png, each a small palette PNG).
"""

from __future__ import annotations

import io
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from browser import find_chromium, launch  # noqa: E402

from paperplay.html.caller import caller_page  # noqa: E402
from paperplay.html.results import results_page  # noqa: E402
from paperplay.seeds import game_code  # noqa: E402
from paperplay.streams.rules import WILD, draw  # noqa: E402
from paperplay.streams.referee import ranking, referee, sheet_from_json  # noqa: E402

DOCS = Path(__file__).parent.parent / "docs"
NAMES = ["Ann", "Bob", "Søren", "Zoë", "Dana", "Eli"]


def demo_results(seed: str = "1") -> bytes:
    """Six sheets of one game: good and poor play, a wild, and one sheet with a wrong claim."""
    tiles = list(draw(seed))
    rng = random.Random(seed)
    results, boxes = [], []
    for i, name in enumerate(NAMES):
        cells = tiles[:]
        rng.shuffle(cells)
        keep = 16 - 2 * i
        cells[:keep] = sorted(cells[:keep], key=lambda t: 15 if t == WILD else t)
        sheet = {"game": "streams", "seed": seed, "player": name, "cells": cells}
        if name == "Eli":
            sheet["claimed_total"] = 40
        results.append(referee(sheet_from_json(sheet, f"{name.lower()}.json")).to_json())
        boxes.append(cells)
    return results_page(results, boxes, ranking(results))


def shrink(png: bytes, path: Path) -> None:
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB").quantize(colors=48, dither=Image.Dither.NONE)
    image.save(path, optimize=True)
    print(f"Wrote {path} ({path.stat().st_size // 1024} KB)")


def main() -> None:
    from playwright.sync_api import sync_playwright

    executable = find_chromium()
    if executable is None:
        sys.exit("no Chromium found: apt-get install chromium")
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        caller = Path(folder) / "caller.html"
        caller.write_bytes(caller_page(game_code("streams", "7KQ2M9XD"), draw("7KQ2M9XD")))
        results = Path(folder) / "results.html"
        results.write_bytes(demo_results())
        browser = launch(playwright, executable)
        page = browser.new_page(viewport={"width": 1024, "height": 576})
        page.emulate_media(reduced_motion="reduce")
        page.goto(caller.as_uri())
        for _ in range(7):
            page.keyboard.press("Space")
        shrink(page.screenshot(), DOCS / "streams-projector.png")
        page.set_viewport_size({"width": 900, "height": 760})
        page.goto(results.as_uri())
        shrink(page.screenshot(full_page=True), DOCS / "streams-results.png")
        browser.close()


if __name__ == "__main__":
    main()
