"""The scan guide's example pictures: a good photo of a sheet and a bad one, each with what the reader found
drawn on it (paperplay.scan.overlay), from synthetic photos by held-out writers.

    python -m lab.scan_examples            # writes docs/scan-photo-good.png and docs/scan-photo-bad.png
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from lab.evaluate import HELDOUT_DIGITS, heldout_digits, make_photo
from lab.synth import HELDOUT_FONTS, font_files

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _small_png(png: bytes) -> bytes:
    """The overlay at 64 colours (a docs page's picture: a tenth of the bytes)."""
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.open(io.BytesIO(png)).convert("RGB").quantize(64).save(out, format="PNG", optimize=True)
    return out.getvalue()


def main() -> None:
    import cv2

    from paperplay.scan.overlay import draw_overlay, seen_in

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=DOCS)
    args = parser.parse_args()
    fonts, digits = font_files(HELDOUT_FONTS), heldout_digits(HELDOUT_DIGITS)
    good = make_photo(3, 2040, fonts, digits, "phone")
    gray = cv2.imdecode(np.frombuffer(good.jpeg, np.uint8), cv2.IMREAD_GRAYSCALE)
    seen, refusal = seen_in(gray)
    assert refusal is None, refusal
    (args.out / "scan-photo-good.png").write_bytes(_small_png(draw_overlay(gray, seen, 720)))
    # the bad one: a steep photo from too far away (shrunk to a third: about 1.3 px/mm at the far edge)
    bad = make_photo(5, 2040, fonts, digits, "steep")
    gray = cv2.imdecode(np.frombuffer(bad.jpeg, np.uint8), cv2.IMREAD_GRAYSCALE)
    gray = cv2.resize(gray, None, fx=0.45, fy=0.45, interpolation=cv2.INTER_AREA)
    seen, refusal = seen_in(gray)
    assert refusal is not None
    print(f"bad photo: {refusal.code}: {refusal}")
    (args.out / "scan-photo-bad.png").write_bytes(_small_png(draw_overlay(gray, seen, 720)))


if __name__ == "__main__":
    main()
