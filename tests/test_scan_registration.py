"""paperplay scan: registration that survives the angle, refusals that say how to retake, every phone's format.

The steep and small photos are synthetic (lab/synth.py's steep condition, held-out writers); the HEIC photo
is committed (tests/data/scan-sheet.heic, made as tests/data/scan-sheet.json says). Tests that need the scan
extra skip without it (test_scan.need), except in CI.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from conftest import DATA, run_paperplay
from test_scan import HELDOUT, need, scan_stack  # noqa: F401  (fixtures)

SHEET = json.loads((DATA / "scan-sheet.json").read_text(encoding="utf-8"))


def _steep(index: int, seed: int, fonts):
    """A held-out steep photo (lab.evaluate.make_photo in the steep condition) and its truth."""
    from lab import evaluate

    return evaluate.make_photo(index, seed, fonts, evaluate.heldout_digits(HELDOUT), "steep")


def _read(tmp_path, photo, name="steep.jpg"):
    from paperplay.scan.pipeline import read_photo
    from paperplay.streams.rules import draw

    path = tmp_path / name
    path.write_bytes(photo.jpeg)
    return read_photo(path, draw(photo.seed))


def _check(scan, truth):
    right = sum(value == t for value, t in zip(scan.cells, truth))
    silent = [b.box for b, t in zip(scan.boxes, truth) if b.value != t and not b.flagged]
    assert right >= 19 and not silent, (right, silent)


@pytest.fixture(scope="module")
def steep_photo(scan_stack):
    return _steep(STEEP[0], STEEP[1], scan_stack)


def test_a_steep_photo_is_read(tmp_path, steep_photo):
    assert steep_photo.facts["condition"] == "steep"
    _check(_read(tmp_path, steep_photo), steep_photo.truth)


def test_a_small_steep_photo_is_read(tmp_path, scan_stack):
    photo = _steep(SMALL[0], SMALL[1], scan_stack)
    assert photo.facts["px_per_mm"] < 2.6
    scan = _read(tmp_path, photo)
    assert scan.px_per_mm < 2.8
    _check(scan, photo.truth)


STEEP = (3, 2031)
"""A steep photo of the held-out set that the reader used to refuse (the far edge about 0.6 times the near one)."""
SMALL = (2, 2031)
"""A steep photo whose far edge spans about 2.3 pixels a millimetre."""


def _decoy(gray, page, factor=1.07):
    """The photo with its sheet's corner marks painted over with paper, and four black squares put where the
    marks of a sheet `factor` times as large would be: corner marks that mislead."""
    import cv2
    import numpy as np

    from paperplay.scan.reader import _project
    from paperplay.streams.scansheet import MARK, layout

    geo = layout(page.paper)
    marks = np.array(geo.marks)
    out = gray.copy()
    centre = marks.mean(axis=0)
    for mark in marks:
        quad = _project(page.homography, mark + np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * (MARK * 0.75))
        paper = int(np.percentile(gray, 90))
        cv2.fillConvexPoly(out, np.round(quad).astype(np.int32), paper)
        decoy = centre + (mark - centre) * factor
        quad = _project(page.homography, decoy + np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * (MARK / 2))
        cv2.fillConvexPoly(out, np.round(quad).astype(np.int32), 10)
    return out


def test_a_wrong_fit_is_refused_never_read(tmp_path, steep_photo):
    # Misleading corner marks: the sheet's own painted over, four black squares where a bigger sheet's would be.
    # A placement by them is checked against the printed boxes and refused; nothing is read.
    import cv2
    import numpy as np

    from paperplay.scan.pipeline import read_photo
    from paperplay.scan.reader import check_fit, register
    from paperplay.scan.refusal import ScanRefusal

    gray = cv2.imdecode(np.frombuffer(steep_photo.jpeg, np.uint8), cv2.IMREAD_GRAYSCALE)
    page = register(gray)
    assert check_fit(gray, page.homography, page.paper).holds  # the legal case: the true fit holds
    shifted = page.homography @ np.array([[1, 0, 1.5], [0, 1, 0], [0, 0, 1.0]])  # 1.5 mm off
    assert not check_fit(gray, shifted, page.paper).holds
    other = "letter" if page.paper == "a4" else "a4"
    assert not check_fit(gray, page.homography, other).holds
    misled = tmp_path / "misled.png"
    cv2.imwrite(str(misled), _decoy(gray, page))
    with pytest.raises(ScanRefusal) as refused:
        read_photo(misled)
    assert refused.value.code in ("photo_angle", "photo_blurred", "no_sheet_found", "mark_covered")


# --- refusals ---------------------------------------------------------------------------------------

def test_a_photo_without_a_sheet_is_refused_with_a_code_a_line_and_a_hint(tmp_path):
    np = need("numpy")
    cv2 = need("cv2")
    from paperplay.i18n import translator
    from paperplay.scan.pipeline import read_photo
    from paperplay.scan.refusal import ScanRefusal, refusal_json

    table = (np.random.default_rng(3).random((900, 1200)) * 40 + 100).astype(np.uint8)
    path = tmp_path / "table.jpg"
    cv2.imwrite(str(path), table)
    with pytest.raises(ScanRefusal) as refused:
        read_photo(path)
    assert refused.value.code == "no_sheet_found"
    assert refused.value.hint.startswith("Photograph the whole sheet from above")
    answer = refusal_json(refused.value, translator("de"))
    assert answer["code"] == "no_sheet_found" and answer["hint"].startswith("Fotografieren Sie den ganzen Bogen")
    result = run_paperplay("scan", str(path), "--seed", "7KQ2M9XD", "--out", str(tmp_path / "o"))
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "no paperplay sheet found" in result.stderr


def test_every_refusal_has_advice_in_every_language():
    from paperplay.i18n import LANGUAGES, translator
    from paperplay.scan.refusal import CODES, HINTS, ScanRefusal

    for lang in LANGUAGES:
        t = translator(lang)
        for code in CODES:
            refusal = ScanRefusal(code, "line", corner=2, px="1.8")
            hint = refusal.hint_in(t)
            assert hint and "{" not in hint, (lang, code)
            assert (hint == HINTS[code].format(corner="bottom-right", px="1.8")) == (lang == "en"), (lang, code)
    assert ScanRefusal("mark_covered", "line", corner=0).hint_in(translator("da")).startswith(
        "Hjørnefirkanten øverst til venstre")
    with pytest.raises(AssertionError):
        ScanRefusal("no_such_code", "line")


def test_the_overlay_shows_what_was_found(tmp_path, steep_photo):
    import cv2
    import numpy as np

    from paperplay.scan.overlay import GREEN, RED, overlay_png

    def colour_share(png, colour):
        image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
        assert max(image.shape[:2]) <= 1024
        return float((np.abs(image.astype(int) - colour).sum(axis=2) < 30).mean())

    (tmp_path / "steep.jpg").write_bytes(steep_photo.jpeg)
    png, refusal = overlay_png(tmp_path / "steep.jpg")
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and refusal is None
    assert colour_share(png, GREEN) > 0.002 and colour_share(png, RED) == 0
    cv2.imwrite(str(tmp_path / "blank.png"), np.full((600, 800), 200, np.uint8))
    png, refusal = overlay_png(tmp_path / "blank.png")
    assert refusal is not None and refusal.code == "no_sheet_found" and colour_share(png, GREEN) == 0


# --- every phone's format ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def heic_pixels():
    need("cv2")
    try:
        import pi_heif  # noqa: F401
    except ImportError:
        pytest.skip("needs pi-heif, in the scan extra (pip install '.[scan]')")
    from paperplay.scan.reader import load_gray

    return load_gray(DATA / "scan-sheet.heic")


@pytest.mark.parametrize("kind", ["heic", "jpg", "png", "webp"])
def test_a_photo_in_each_phone_format_is_read(tmp_path, heic_pixels, kind):
    import cv2

    from paperplay.scan.pipeline import read_photo
    from paperplay.streams.rules import draw, tile_from_json

    path = DATA / "scan-sheet.heic"
    if kind != "heic":
        path = tmp_path / f"sheet.{kind}"
        assert cv2.imwrite(str(path), heic_pixels, [cv2.IMWRITE_WEBP_QUALITY, 90] if kind == "webp" else [])
    scan = read_photo(path, draw(SHEET["seed"]))
    assert scan.code == SHEET["code"] and scan.cells == [tile_from_json(v) for v in SHEET["cells"]]


def test_the_heic_photo_is_turned_by_its_container_only(heic_pixels):
    # ImageMagick writes no EXIF orientation here: the pixels are the photo as taken (landscape, 1300 wide).
    assert heic_pixels.shape == (975, 1300)


def _patched_ispe(data: bytes, width: int, height: int) -> bytes:
    """A HEIC whose image spatial extents (every ispe box: the image's and its tiles') claim width × height."""
    import re

    for at in reversed([m.start() for m in re.finditer(b"ispe", data)]):
        data = data[:at + 8] + width.to_bytes(4, "big") + height.to_bytes(4, "big") + data[at + 16:]
    return data


def test_a_hostile_heic_claiming_a_huge_image_is_refused_before_decoding(tmp_path, heic_pixels):
    from paperplay.scan.reader import load_gray
    from paperplay.scan.refusal import ScanRefusal

    path = tmp_path / "bomb.heic"
    path.write_bytes(_patched_ispe((DATA / "scan-sheet.heic").read_bytes(), 60_000, 60_000))
    started = time.perf_counter()
    with pytest.raises(ScanRefusal) as refused:
        load_gray(path)
    assert refused.value.code == "photo_too_large" and "60000 × 60000 pixels" in str(refused.value)
    assert time.perf_counter() - started < 2.0  # 3.6 gigapixels were never decoded
    result = run_paperplay("scan", str(path), "--seed", SHEET["seed"], "--out", str(tmp_path / "o"))
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "60000 × 60000" in result.stderr


def test_a_broken_heic_and_a_huge_webp_get_one_line(tmp_path):
    need("cv2")
    from paperplay.scan.reader import image_header, load_gray
    from paperplay.scan.refusal import ScanRefusal

    cut = tmp_path / "cut.heic"
    cut.write_bytes((DATA / "scan-sheet.heic").read_bytes()[:600])
    with pytest.raises(ScanRefusal) as refused:
        load_gray(cut)
    assert refused.value.code == "not_image"
    # a WebP whose extended header (VP8X) claims 16384 × 16384: its size is read, nothing decoded
    vp8x = b"VP8X" + (10).to_bytes(4, "little") + b"\0" * 4 + (16383).to_bytes(3, "little") * 2
    webp = b"RIFF" + (4 + len(vp8x)).to_bytes(4, "little") + b"WEBP" + vp8x
    assert image_header(webp) == (16384, 16384, False)
    (tmp_path / "big.webp").write_bytes(webp)
    with pytest.raises(ScanRefusal) as refused:
        load_gray(tmp_path / "big.webp")
    assert refused.value.code == "photo_too_large"


def test_the_heic_decoder_is_decode_only_and_permissive():
    # pi-heif (BSD-3, libheif decoders only), never pillow-heif (whose wheels bundle a GPL encoder)
    import tomllib

    config = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text(encoding="utf-8"))
    scan = " ".join(config["project"]["optional-dependencies"]["scan"])
    assert "pi-heif" in scan and "pillow-heif" not in scan and "pillow_heif" not in scan


def test_covered_corner_marks_are_named(tmp_path, steep_photo):
    # Two corner marks painted over (a hand on the sheet): the QR code places the sheet, the refusal names a
    # covered corner, and the phone's hint says which, in the player's language.
    import cv2
    import numpy as np

    from paperplay.i18n import translator
    from paperplay.scan.reader import _project, register
    from paperplay.scan.refusal import CORNERS, ScanRefusal
    from paperplay.streams.scansheet import MARK, layout

    gray = cv2.imdecode(np.frombuffer(steep_photo.jpeg, np.uint8), cv2.IMREAD_GRAYSCALE)
    page = register(gray)
    covered = gray.copy()
    for k in (0, 3):
        mark = np.array(layout(page.paper).marks[k])
        quad = _project(page.homography, mark + np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * MARK)
        cv2.fillConvexPoly(covered, np.round(quad).astype(np.int32), int(np.percentile(gray, 90)))
    with pytest.raises(ScanRefusal) as refused:
        register(covered)
    assert refused.value.code == "mark_covered"
    corner = CORNERS[refused.value.values["corner"]]
    assert corner in ("top-left", "bottom-left") and f"the {corner} " in str(refused.value)
    assert "top-right" not in str(refused.value) and "bottom-right" not in str(refused.value)
    assert refused.value.hint == f"The {corner} corner square is covered or outside the photo: uncover it and take " \
                                 "the photo again."
    assert translator("de").gettext(corner) in refused.value.hint_in(translator("de"))
