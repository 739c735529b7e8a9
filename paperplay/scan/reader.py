"""Reading a photo of a scannable Streams sheet: find the page, rectify it, read the 40 digit cells.

Registration: the QR code (decoded with zxing-cpp) gives the sheet, its orientation and a first
homography; the four corner marks, searched near where that homography puts them, give the
exact one. The train band is then warped to 8 px/mm and every cell is cut out where the printed
layout says it is.
"""

from __future__ import annotations

import itertools
import math
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from paperplay.messages import shorten
from paperplay.scan.glyphs import glyph_features, ink_mask
from paperplay.scan.header import (  # noqa: F401 - HEADER_MARKERS, HEIF_BRANDS: read here
    HEADER_MARKERS, HEIF_BRANDS, MAX_PIXELS, NOT_AN_IMAGE, image_header, is_heif,
)
from paperplay.scan.refusal import CORNERS, ScanError, ScanRefusal, Seen
from paperplay.seeds import ALPHABET, CODE_LENGTH, FULL_CODE_LENGTH, read_payload
from paperplay.streams.api import MAX_SHEET_NUMBER
from paperplay.streams.scansheet import MARK, Layout, layout

RECT_PX = 8.0
"""Pixels per mm of the rectified train band."""
INSET = 0.5
"""A cell is read this far (mm) inside its printed outline."""
BAND_MARGIN = 3.0
SHIFTS = ((0.0, 0.0), (-0.375, 0.0), (0.375, 0.0), (0.0, -0.375), (0.0, 0.375))
"""Every cell is read five times, its window moved by these (x, y) mm (3 px), and the readings
averaged (test-time augmentation: a glyph cut by the window's edge is read whole at least once)."""


@dataclass
class Page:
    """A registered photo: the QR code's fields (none when it could not be read) and the homography from
    page mm to photo pixels."""

    fields: dict[str, str]
    paper: str
    homography: Any
    marks_found: int
    notes: list[str] = field(default_factory=list)

    @property
    def qr_read(self) -> bool:
        return bool(self.fields)


MAX_PROGRESSIVE_PIXELS = 50_000_000
"""The largest progressive JPEG read (cameras write baseline JPEGs; a progressive one is decoded
whole, at 2 bytes a pixel for each colour, before any of it is seen: 50 megapixels take 300 MB)."""
MAX_SCANS = 100
"""The most scans a JPEG may have (a progressive photo has about ten; each scan is a pass over the
whole image, so a small file of thousands of empty scans would take minutes)."""
MAX_BYTES = 200_000_000
"""The largest photo file read."""
LONG_SIDE = 4000
"""A larger photo is shrunk to this long side as it is read: the reader needs about 4 pixels a
millimetre and was tested on photos 2,000 to 3,200 pixels long."""


@contextmanager
def _native_stderr_silenced() -> Iterator[None]:
    """Points file descriptor 2 at /dev/null while C libraries run (what they print there bypasses
    Python); where that cannot be done, nothing changes."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError, AttributeError):
        yield
        return
    try:
        null = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        os.close(saved)
        yield
        return
    try:
        os.dup2(null, 2)
        os.close(null)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def load_gray(path: Path) -> Any:
    """Reads a JPEG, PNG, WebP or HEIC/HEIF photo as grey pixels, turned as its orientation says (a JPEG's
    EXIF, a HEIC's container: once, as a phone shows it), shrunk to LONG_SIDE at most; every size is checked
    from the file's header before anything is decoded. A mirroring orientation (a selfie setting) shows the
    sheet mirrored: the corner marks place it all the same (marks.find_sheet)."""
    import cv2

    try:
        if path.stat().st_size > MAX_BYTES:
            raise ScanRefusal("photo_too_large", f"is {path.stat().st_size // 1_000_000} MB; expected a photo of "
                              f"at most {MAX_BYTES // 1_000_000} MB")
        raw = path.read_bytes()
    except OSError as exc:
        raise ScanError(f"cannot be read ({exc.strerror})") from None
    if is_heif(raw):
        return _shrink(heif_gray(raw))
    data = np.frombuffer(raw, dtype=np.uint8)
    header = image_header(raw)
    if header is None:
        raise ScanRefusal("not_image", NOT_AN_IMAGE)
    width, height, progressive = header
    if width * height > MAX_PIXELS:
        raise ScanRefusal("photo_too_large", f"is {width} × {height} pixels; expected a photo of at most "
                          f"{MAX_PIXELS // 1_000_000} megapixels (a phone's normal photo, 8-12 megapixels, is plenty)")
    if progressive and width * height > MAX_PROGRESSIVE_PIXELS:
        raise ScanRefusal("photo_too_large", f"is a progressive JPEG of {width} × {height} pixels; expected at most "
                          f"{MAX_PROGRESSIVE_PIXELS // 1_000_000} megapixels for one (or the camera's own JPEG)")
    # a JPEG's start-of-scan markers (in its coded data 0xFF is followed by 0 or a restart, never by 0xDA)
    scans = raw.count(b"\xff\xda") if raw[:2] == b"\xff\xd8" else 0
    if scans > MAX_SCANS:
        raise ScanRefusal("photo_too_large", f"is a JPEG of {scans:,} scans; expected a photo (at most {MAX_SCANS})")
    with _native_stderr_silenced():  # libpng prints its own line for a damaged PNG; ScanError says it once
        image = cv2.imdecode(data, cv2.IMREAD_GRAYSCALE) if data.size else None  # EXIF orientation applied
    if image is None or image.size == 0:
        raise ScanRefusal("not_image", NOT_AN_IMAGE)
    return _shrink(image)


def _shrink(image: Any) -> Any:
    """A photo shrunk to LONG_SIDE at most."""
    import cv2

    h, w = image.shape
    if max(h, w) > LONG_SIDE:
        scale = LONG_SIDE / max(h, w)
        image = cv2.resize(image, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
    return image


def heif_gray(raw: bytes) -> Any:
    """A HEIC/HEIF photo's grey pixels, decoded by pi-heif (libheif, decode only) once its size is known to be within
    MAX_PIXELS. Turned as the file's own transformations say (libheif applies them once); its EXIF orientation is
    not applied again."""
    import cv2

    try:
        import pi_heif
    except ImportError:
        raise ScanRefusal("not_image", "is a HEIC/HEIF photo; reading one needs pi-heif (pip install "
                          "'paperplay[scan]'), or send it as a JPEG") from None
    try:
        with _native_stderr_silenced():
            heif = pi_heif.open_heif(raw, convert_hdr_to_8bit=True)  # the container only: nothing decoded yet
        width, height = heif.size
    except (ValueError, RuntimeError, OSError, EOFError, SyntaxError):
        raise ScanRefusal("not_image", NOT_AN_IMAGE) from None
    if width * height > MAX_PIXELS:
        raise ScanRefusal("photo_too_large", f"is {width} × {height} pixels; expected a photo of at most "
                          f"{MAX_PIXELS // 1_000_000} megapixels (a phone's normal photo, 8-12 megapixels, is plenty)")
    try:
        with _native_stderr_silenced():
            pixels = np.asarray(heif[0])
    except (ValueError, RuntimeError, OSError, EOFError, SyntaxError):
        raise ScanRefusal("not_image", NOT_AN_IMAGE) from None
    if pixels.ndim != 3 or pixels.size == 0:
        raise ScanRefusal("not_image", NOT_AN_IMAGE)
    return cv2.cvtColor(np.ascontiguousarray(pixels[:, :, :3]), cv2.COLOR_RGB2GRAY)


def _qr_candidates(gray: Any) -> Any:
    """The photo and a few cleaned-up versions of it, for the QR decoder to try in turn."""
    import cv2

    yield gray
    h, w = gray.shape
    if max(h, w) > 1800:
        yield cv2.resize(gray, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    clahe = cv2.createCLAHE(clipLimit=3.0, tileGridSize=(8, 8))
    yield clahe.apply(gray)
    yield cv2.adaptiveThreshold(cv2.GaussianBlur(gray, (0, 0), 1.0), 255, cv2.ADAPTIVE_THRESH_MEAN_C,
                                cv2.THRESH_BINARY, 51, 10)
    yield cv2.addWeighted(gray, 2.5, cv2.GaussianBlur(gray, (0, 0), 2), -1.5, 0)
    big = cv2.resize(gray, (w * 2, h * 2), interpolation=cv2.INTER_CUBIC)
    yield cv2.addWeighted(big, 2.5, cv2.GaussianBlur(big, (0, 0), 3), -1.5, 0)


def _decode(image: Any, rotate: bool = True) -> list[Any]:
    """The paperplay QR codes zxing-cpp finds in an image."""
    import zxingcpp

    return [result for result in zxingcpp.read_barcodes(image, formats=zxingcpp.BarcodeFormat.QRCode,
                                                        try_rotate=rotate, try_downscale=rotate)
            if read_payload(result.text) is not None]


def find_qr(gray: Any, quick: bool = False) -> tuple[str, Any]:
    """Returns the paperplay QR code's text and its four corners in the photo (top-left first, clockwise).
    `quick`: the photo as it is only (not cleaned up in a few ways, each tried in turn)."""
    h = gray.shape[0]
    for candidate in itertools.islice(_qr_candidates(gray), 1 if quick else None):
        factor = h / candidate.shape[0]
        ours = _decode(candidate)
        sheets = sorted({parse_payload(result.text).get("sheet", "?") for result in ours})
        if len(sheets) > 1:  # only one would be read, the others silently left out
            raise ScanRefusal("two_sheets", f"shows {len(sheets)} sheets ({', '.join(sheets)}); photograph one sheet "
                              "per photo")
        if ours:
            return ours[0].text, _corners(ours[0]) * factor
    raise ScanError(QR_NOT_FOUND)


QR_NOT_FOUND = "no paperplay QR code found (is the whole sheet in the photo, sharp and evenly lit?)"


SHEET_FIELD = re.compile(r"([1-9][0-9]{0,5})/([1-9][0-9]{0,5})")
"""A score sheet's `sheet=n/N` in its QR code: sheet n of N (a kit prints at most MAX_PLAYERS; a player's own sheet
printed from a server's phone page is numbered up to MAX_SHEET_NUMBER)."""


def check_sheet_fields(fields: dict[str, str]) -> None:
    """A Streams sheet's QR fields as paperplay prints them: `code=` a game code (8 characters of
    seeds.ALPHABET, read in any case; in a payload of version 2 the full code of 27) and `sheet=n/N` with
    1 <= n <= N <= MAX_SHEET_NUMBER. The code is put in capitals; anything else is a code another program
    made (or a damaged one): ScanError."""
    code = fields.get("code", "").upper()
    length = FULL_CODE_LENGTH if fields.get("version") == "2" else CODE_LENGTH
    if len(code) != length or any(c not in ALPHABET for c in code):
        raise ScanRefusal("not_score_sheet", f"its QR code's field code is {fields.get('code', '')!r}; expected a "
                          f"game code of {length} characters of {ALPHABET} (a sheet paperplay printed)")
    fields["code"] = code
    sheet = SHEET_FIELD.fullmatch(fields.get("sheet", ""))
    if sheet is None or not int(sheet[1]) <= int(sheet[2]) <= MAX_SHEET_NUMBER:
        raise ScanRefusal("not_score_sheet", f"its QR code's field sheet is {fields.get('sheet', '')!r}; expected "
                          f"sheet n of N as n/N, 1 <= n <= N <= {MAX_SHEET_NUMBER} (a sheet paperplay printed)")


def parse_payload(text: str) -> dict[str, str]:
    """The fields of a paperplay QR code of either version (seeds.read_payload); none for other text."""
    return read_payload(text) or {"game": ""}


def _project(h: Any, points: Any) -> Any:
    pts = np.hstack([np.asarray(points, dtype=np.float64), np.ones((len(points), 1))]) @ h.T
    return pts[:, :2] / pts[:, 2:3]


def _qr_page_corners(geo: Layout) -> Any:
    x, y, s = geo.qr
    return np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]], dtype=np.float64)


def _mark_candidates(gray: Any, px_per_mm: float, qr_corners: Any) -> Any:
    """Centres of every filled, square-ish dark blob about the size of a corner mark (photo pixels)."""
    import cv2

    side = MARK * px_per_mm
    block = int(side * 3) | 1
    blur = cv2.GaussianBlur(gray, (0, 0), 1.0)
    dark = cv2.adaptiveThreshold(blur, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, max(block, 15), 12)
    count, labels, stats, centroids = cv2.connectedComponentsWithStats(dark, connectivity=8)
    expected = side * side
    areas = stats[:, cv2.CC_STAT_AREA]
    chosen = []
    qr_poly = qr_corners.astype(np.float32)
    for i in np.flatnonzero((areas >= 0.3 * expected) & (areas <= 3.0 * expected)):
        if i == 0:
            continue
        x, y, w, h = stats[i, :4]
        if not 0.4 <= w / h <= 2.5:
            continue
        ys, xs = np.nonzero(labels[y:y + h, x:x + w] == i)
        (_, _), (rw, rh), _ = cv2.minAreaRect(np.column_stack([xs, ys]).astype(np.float32))
        if rw * rh <= 0 or areas[i] / (rw * rh) < 0.82 or not 0.6 <= rw / rh <= 1.66:
            continue
        centre = centroids[i]
        if cv2.pointPolygonTest(qr_poly, (float(centre[0]), float(centre[1])), True) > -side:
            continue  # a part of the QR code itself
        chosen.append(centre)
    return np.array(chosen).reshape(-1, 2)


def _place(gray: Any, qr_corners: Any, geo: Layout) -> tuple[Any, int, float] | None:
    """The homography page mm -> photo pixels from the corner marks that best agree with the QR code.

    Returns (homography, marks used, how far the QR corners are from where it puts them, in mm)."""
    import cv2

    page_qr = _qr_page_corners(geo)
    h0, _ = cv2.findHomography(page_qr, qr_corners)
    if h0 is None:
        return None
    px_per_mm = float(np.mean(np.hypot(*(np.roll(qr_corners, 1, axis=0) - qr_corners).T))) / geo.qr[2]
    candidates = _mark_candidates(gray, px_per_mm, qr_corners)
    marks = np.array(geo.marks)
    best = _marks_near(_project(h0, marks), candidates, marks, page_qr, qr_corners, px_per_mm)
    if best is None or best[1] < 4:
        # A small, blurred QR code's perspective can throw the far marks' guesses off by a hundred mm: its
        # affine placement (no perspective) strays less far from them.
        affine, _ = cv2.estimateAffine2D(page_qr.astype(np.float32), qr_corners.astype(np.float32))
        if affine is not None:
            guesses = _project(np.vstack([affine, [0.0, 0.0, 1.0]]), marks)
            again = _marks_near(guesses, candidates, marks, page_qr, qr_corners, px_per_mm)
            if again is not None and (best is None or again[3] < best[3]):
                best = again
    if best is not None and best[1] == 3:  # the fourth mark looked for where the other three and the QR put it
        again = _marks_near(_project(best[0], marks), candidates, marks, page_qr, qr_corners, px_per_mm, 8.0)
        if again is not None and again[3] < best[3]:
            best = again
    return None if best is None else best[:3]


def _marks_near(guesses: Any, candidates: Any, marks: Any, page_qr: Any, qr_corners: Any, px_per_mm: float,
                within: float = 70.0) -> tuple[Any, int, float, float] | None:
    """The homography from the marks found near their guessed places (three nearest candidates each, `within`
    mm) that best agrees with the QR code: (homography, marks used, QR error in mm, score)."""
    import cv2

    options: list[list[Any]] = []
    for guess in guesses:
        if len(candidates):
            d = np.hypot(*(candidates - guess).T)
            near = [candidates[i] for i in np.argsort(d)[:3] if d[i] < within * px_per_mm]
        else:
            near = []
        options.append(near + [None])
    best = None
    for combo in itertools.product(*options):
        used = [k for k in range(4) if combo[k] is not None]
        if len(used) < 3:
            continue
        src = np.array([marks[k] for k in used])
        dst = np.array([combo[k] for k in used])
        if len(used) == 4:
            h = cv2.getPerspectiveTransform(np.float32(src), np.float32(dst)).astype(np.float64)
        else:
            h, _ = cv2.findHomography(np.vstack([src, page_qr]), np.vstack([dst, qr_corners]))
            if h is None:
                continue
        error = float(np.hypot(*(_project(h, page_qr) - qr_corners).T).mean()) / px_per_mm
        # A missing mark costs as much as 1 mm of disagreement.
        score = error + (4 - len(used))
        if best is None or score < best[3]:
            best = (h, len(used), error, score)
    return best


def check_payload(text: str) -> dict[str, str]:
    """The fields of a scannable Streams sheet's QR code (ScanError for any other code)."""
    fields = parse_payload(text)
    if "version" not in fields or fields.get("game") != "streams" or "sheet" not in fields:
        if "seed=" in text:  # the organiser's page: its code holds the seed, which is not to be shown
            raise ScanRefusal("not_score_sheet", "its QR code is the organiser's (it holds the seed), not a Streams "
                              "score sheet's; photograph the players' sheets")
        raise ScanRefusal("not_score_sheet", f"its QR code is not a Streams score sheet's ({shorten(text, 120)!r})")
    check_sheet_fields(fields)
    if fields.get("scan") != "1":
        raise ScanRefusal("classic_sheet", "is a classic Streams sheet; only sheets printed with --scannable can be "
                          "read (paperplay sheets --scannable)")
    return fields


NOT_FOUND = ("no paperplay sheet found: fewer than 3 of its 4 corner marks, and no QR code (is the whole sheet in "
             "the photo, sharp and evenly lit?)")


def register(gray: Any) -> Page:
    """Finds the sheet in a photo: its QR fields and the homography from page mm to photo pixels.

    A QR code found in the photo as it is comes first: it says at once that a photo holds two sheets,
    or a classic sheet; it places the page, and the four corner marks looked for near where it puts
    them make the placement exact. Otherwise the corner marks place the page by themselves
    (marks.find_sheets: three of them are enough, in any perspective) and the QR code is read where it is
    printed. Every placement is checked against the printed boxes and the dots under them (check_fit)
    before it is taken: one that does not hold is never read. A sheet whose marks are found but whose QR
    code cannot be read is registered without fields (Page.qr_read is False). A photo without a placement
    that holds is refused (ScanRefusal: its code says why, and what was seen)."""
    from paperplay.scan.marks import find_sheets

    tried: list[tuple[Page, Fit | None]] = []

    def holds(page: Page) -> bool:
        if not pixels_per_mm(page) >= MIN_PX_PER_MM:  # too coarse to check: refused as small if nothing holds
            tried.append((page, None))
            return False
        fit = check_fit(gray, page.homography, page.paper)
        tried.append((page, fit))
        return fit.holds

    try:
        text, qr_corners = find_qr(gray, quick=True)
    except ScanRefusal:
        raise  # two sheets in one photo
    except ScanError:
        text, qr_corners = "", None
    fields = check_payload(text) if text else {}
    by_qr = _place_by_qr(gray, fields, qr_corners) if fields else None
    if by_qr is not None and by_qr[0].marks_found == 4 and by_qr[1] <= EXACT and holds(by_qr[0]):
        return by_qr[0]
    placements, blobs = find_sheets(gray)
    for placed in placements:
        if qr_corners is not None and not placed.mirrored:
            geo = layout(placed.paper)
            scale = float(np.mean(np.hypot(*(np.roll(qr_corners, 1, axis=0) - qr_corners).T))) / geo.qr[2]
            off = float(np.hypot(*(_project(placed.homography, _qr_page_corners(geo)) - qr_corners).T).mean()) / scale
            if off > 3.0 and by_qr is not None:  # marks that do not agree with the QR code found: not the sheet's
                continue
        if not fields:
            found_fields, homography = _qr_at_its_place(gray, placed)
            page = Page(found_fields, placed.paper, homography, placed.found)
        else:
            homography = placed.homography
            if placed.inferred is not None and not placed.mirrored:
                homography = _with_qr(placed, qr_corners)
            page = Page(fields, placed.paper, homography, placed.found)
        if holds(page):
            return page
    if not text:
        try:
            text, qr_corners = find_qr(gray)
        except ScanRefusal:
            raise
        except ScanError:
            raise _refusal(gray, tried, blobs, None) from None
        fields = check_payload(text)
        by_qr = _place_by_qr(gray, fields, qr_corners)
    if by_qr is not None and by_qr[1] <= 4.0 and holds(by_qr[0]):
        return by_qr[0]
    if fields and qr_corners is not None:  # the QR code's corners and the three or four marks found near them
        for paper, homography, missing in _by_qr_and_marks(gray, qr_corners, blobs):
            page = Page(fields, paper, homography, 4 - len(missing))
            if len(missing) <= 1 and pixels_per_mm(page) >= MIN_PX_PER_MM and check_fit(gray, homography, paper).holds:
                return page  # (not among those tried: a refusal after it names the mark missing)
    raise _refusal(gray, tried, blobs, qr_corners)


def outline(page_homography: Any, paper: str) -> list[tuple[float, float]]:
    """The paper's four corners in the photo (photo pixels, clockwise from the page's top-left)."""
    geo = layout(paper)
    corners = _project(page_homography, [[0, 0], [geo.width, 0], [geo.width, geo.height], [0, geo.height]])
    return [(float(x), float(y)) for x, y in corners]


def _steep(corners: list[tuple[float, float]]) -> bool:
    """Whether a sheet's outline in a photo is strongly foreshortened (a side under 3/4 of the opposite one, or a
    corner 20 degrees off square)."""
    points = np.array(corners)
    edges = np.roll(points, -1, axis=0) - points
    length = np.hypot(*edges.T) + 1e-9
    squeezed = min(length[0] / length[2], length[2] / length[0], length[1] / length[3], length[3] / length[1])
    cosines = np.abs((np.roll(edges, 1, axis=0) * edges).sum(axis=1)) / (np.roll(length, 1) * length)
    return bool(squeezed < 0.75 or cosines.max() > math.sin(math.radians(20)))


def _refusal(gray: Any, tried: list[tuple[Page, Fit | None]], blobs: Any, qr_corners: Any) -> ScanRefusal:
    """Why no placement holds, from what was tried: the photo too coarse, the sheet seen at too steep an angle
    (or its fit not where the boxes are), the boxes' frames blurred away, a corner mark covered, no sheet."""
    marks = [(float(x), float(y)) for x, y, *_ in blobs[:12]]
    if tried:
        coarse = [page for page, fit in tried if fit is None]
        if len(coarse) == len(tried):
            try:
                check_resolution(coarse[0])
            except ScanRefusal as exc:
                exc.seen = Seen(marks, outline(coarse[0].homography, coarse[0].paper))
                return exc
        checked = [(page, fit) for page, fit in tried if fit is not None]
        page, fit = max(checked, key=lambda t: min(t[1].matches))
        seen = Seen(marks, outline(page.homography, page.paper))
        if fit.seen or _steep(seen.outline):
            return ScanRefusal("photo_angle", "the sheet was found, but the boxes are not where its corner marks put "
                               "them (seen at too steep an angle, or not flat); hold the phone straight above the "
                               "sheet and take the photo again", seen)
        return ScanRefusal("photo_blurred", "the sheet's corner marks were found, but its boxes' frames cannot be made "
                           "out (blurred or in deep shadow); hold the phone still, let it focus, and take the photo "
                           "again", seen)
    if qr_corners is not None:
        missing = _missing_marks(gray, qr_corners, blobs)
        if len(missing) >= 3:  # not a hand over the sheet: the marks were not made out
            if _steep([(float(x), float(y)) for x, y in qr_corners]):
                return ScanRefusal("photo_angle", "the QR code was read, but the corner marks cannot be made out (the "
                                   "sheet seen at too steep an angle); hold the phone straight above the sheet and "
                                   "take the photo again", Seen(marks))
            return ScanRefusal("photo_blurred", "the QR code was read, but the corner marks cannot be made out "
                               "(blurred or in deep shadow); hold the phone still, let it focus, and take the photo "
                               "again", Seen(marks))
        if missing:
            names = " and ".join(CORNERS[k] for k in missing)
            return ScanRefusal("mark_covered", f"found fewer than 3 of the 4 corner marks: the {names} "
                               f"{'one is' if len(missing) == 1 else 'ones are'} covered or outside the photo "
                               "(keep the whole sheet in the photo, its corners uncovered)", Seen(marks),
                               corner=missing[0])
        return ScanRefusal("photo_angle", "the corner marks do not agree with the QR code (is the sheet flat, and "
                           "all in the photo?)", Seen(marks))
    return ScanRefusal("no_sheet_found", NOT_FOUND, Seen(marks))


def _missing_marks(gray: Any, qr_corners: Any, blobs: Any) -> list[int]:
    """The corner marks (0-3, as the layout has them) with no mark-like square near where the QR code and the marks
    found near it put them (_by_qr_and_marks)."""
    placed = _by_qr_and_marks(gray, qr_corners, blobs)
    return placed[0][2] if placed else [0, 1, 2, 3]


def _by_qr_and_marks(gray: Any, qr_corners: Any, blobs: Any) -> list[tuple[str, Any, list[int]]]:
    """The page placed by its QR code's corners and the mark-like squares (those found near the QR code, and `blobs`:
    marks.find_sheets' anywhere in the photo) near where they put the corner marks, for each paper, the fewest
    marks missing first: (paper, homography page mm -> photo pixels, the marks not found)."""
    import cv2

    out = []
    for paper in ("a4", "letter"):
        geo = layout(paper)
        h0, _ = cv2.findHomography(_qr_page_corners(geo), qr_corners)
        if h0 is None:
            continue
        px_per_mm = float(np.mean(np.hypot(*(np.roll(qr_corners, 1, axis=0) - qr_corners).T))) / geo.qr[2]
        candidates = np.vstack([_mark_candidates(gray, px_per_mm, qr_corners), np.asarray(blobs)[:, :2].reshape(-1, 2)])
        if not len(candidates):
            continue
        marks = np.array(geo.marks)
        # the QR code alone places the far marks roughly: the marks found near its guesses place them again, and
        # those then found close to where they should be place the page
        h = h0
        for within in (25.0, 4.0):
            distance, found = _nearest(_project(h, marks), candidates, px_per_mm)
            near = distance < within
            if not near.any():
                break
            refit, _ = cv2.findHomography(np.vstack([_qr_page_corners(geo), marks[near]]),
                                          np.vstack([qr_corners, found[near]]))
            if refit is None:
                break
            h = refit
        distance, _ = _nearest(_project(h, marks), candidates, px_per_mm)
        out.append((paper, h, [k for k in range(4) if distance[k] > 4]))
    return sorted(out, key=lambda placed: len(placed[2]))


def _nearest(guesses: Any, candidates: Any, px_per_mm: float) -> tuple[Any, Any]:
    """For each guess, how far (mm) the nearest candidate is, and that candidate."""
    d = np.hypot(*(candidates[None, :, :] - guesses[:, None, :]).transpose(2, 0, 1))
    return d.min(axis=1) / px_per_mm, candidates[d.argmin(axis=1)]


EXACT = 1.0
"""A placement by the QR code and four marks whose QR corners are at most this far (mm) from where the
marks put them is taken without looking further."""


def _place_by_qr(gray: Any, fields: dict[str, str], qr_corners: Any) -> tuple[Page, float] | None:
    """The page placed by its QR code's corners and the marks near where they put them, with its error (mm,
    and 1 for each mark not found); None without three marks."""
    best: tuple[Page, float] | None = None
    for paper in ("a4", "letter"):
        qr_placed = _place(gray, qr_corners, layout(paper))
        if qr_placed is None:
            continue
        h, found, error = qr_placed
        if best is None or error + (4 - found) < best[1]:
            best = Page(fields, paper, h, found), error + (4 - found)
    return best


def _qr_at_its_place(gray: Any, placed: Any) -> tuple[dict[str, str], Any]:
    """The QR code read where the layout prints it, on a page placed by its marks: its fields ({} when it
    cannot be read) and the homography (with three marks found, made exact by the QR code's corners)."""
    from paperplay.scan.marks import qr_images

    geo = layout(placed.paper)
    for image, to_mm in qr_images(gray, placed.homography, geo):
        ours = _decode(image, rotate=False)
        if not ours:
            continue
        fields = check_payload(ours[0].text)
        homography = placed.homography
        if placed.inferred is not None:  # where the code really is in the photo: exact where the 4th mark is not
            homography = _with_qr(placed, _project(homography @ to_mm, _corners(ours[0])))
        return fields, homography
    return {}, placed.homography


def _corners(result: Any) -> Any:
    """A decoded QR code's four corners (top-left first, clockwise)."""
    p = result.position
    return np.array([[p.top_left.x, p.top_left.y], [p.top_right.x, p.top_right.y],
                     [p.bottom_right.x, p.bottom_right.y], [p.bottom_left.x, p.bottom_left.y]], np.float64)


def _with_qr(placed: Any, photo_qr: Any) -> Any:
    """The homography of a page placed by three marks, fitted again to them and to the QR code's corners in
    the photo."""
    import cv2

    geo = layout(placed.paper)
    marks = np.array([m for k, m in enumerate(geo.marks) if k != placed.inferred])
    refined, _ = cv2.findHomography(np.vstack([marks, _qr_page_corners(geo)]),
                                    np.vstack([_project(placed.homography, marks), photo_qr]))
    return placed.homography if refined is None else refined


MIN_PX_PER_MM = 2.0
"""The fewest photo pixels per page millimetre, across the train of boxes, that scan reads (digits about
20 pixels tall). Placed by the corner marks, the cells land within 0.15 mm of their place at 1.8-2.5 px/mm
(synthetic photos, benchmarks/scan_eval.py --conditions hard); below 2 the QR code and the digits' strokes
blur into each other. A phone photo of a whole page gives 10-15."""


def pixels_per_mm(page: Page) -> float:
    """The photo's resolution across the train of boxes: the least photo pixels a page millimetre spans,
    across or down, at the band's four corners and its middle (the homography's local scale)."""
    geo = layout(page.paper)
    left, right = min(b[0] for b in geo.boxes), max(b[0] + b[2] for b in geo.boxes)
    top, bottom = min(b[1] for b in geo.boxes), max(b[1] + b[3] for b in geo.boxes)
    h = page.homography

    def at(x: float, y: float) -> Any:
        u = h @ np.array([x, y, 1.0])
        return u[:2] / u[2]

    scales = []
    for x, y in ((left, top), (right, top), (left, bottom), (right, bottom), ((left + right) / 2, (top + bottom) / 2)):
        origin = at(x, y)
        scales += [float(np.linalg.norm(at(x + 1, y) - origin)), float(np.linalg.norm(at(x, y + 1) - origin))]
    return min(scales)


def check_resolution(page: Page) -> float:
    """Refuses a photo too coarse to read (see MIN_PX_PER_MM); returns its resolution."""
    resolution = pixels_per_mm(page)
    if not resolution >= MIN_PX_PER_MM:  # NaN too (a degenerate homography): never read as fine
        # rounded down, so that 2.46 reads "about 2.4", not "about 2.5 ... needs at least 2.5"
        found = (f"the sheet is only about {math.floor(resolution * 10) / 10:.1f} pixels per millimetre in the photo"
                 if math.isfinite(resolution) else "the sheet's pixels per millimetre in the photo cannot be measured")
        raise ScanRefusal("photo_small", f"{found}; the reader needs at least {MIN_PX_PER_MM:g} (take the photo "
                          "closer, or at a higher resolution)", px=f"{math.floor(resolution * 10) / 10:.1f}"
                          if math.isfinite(resolution) else "?")
    return resolution


def train_band(gray: Any, page: Page) -> tuple[Any, tuple[float, float]]:
    """The train's band of the page, rectified to RECT_PX px/mm; returns it and its origin in page mm."""
    import cv2

    geo = layout(page.paper)
    left = min(b[0] for b in geo.boxes) - BAND_MARGIN
    right = max(b[0] + b[2] for b in geo.boxes) + BAND_MARGIN
    top = min(b[1] for b in geo.boxes) - BAND_MARGIN
    bottom = max(b[1] + b[3] for b in geo.boxes) + BAND_MARGIN
    # band pixel -> page mm -> photo pixel
    to_mm = np.array([[1 / RECT_PX, 0, left], [0, 1 / RECT_PX, top], [0, 0, 1]])
    matrix = page.homography @ to_mm
    size = (int(round((right - left) * RECT_PX)), int(round((bottom - top) * RECT_PX)))
    band = cv2.warpPerspective(gray, matrix, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)
    return band, (left, top)


def _crop(band: Any, rect: tuple[float, float, float, float], origin: tuple[float, float], inset: float,
          shift: tuple[float, float] = (0.0, 0.0)) -> Any:
    x, y, w, h = rect
    x, y = x + shift[0], y + shift[1]
    x0 = int(round((x - origin[0] + inset) * RECT_PX))
    y0 = int(round((y - origin[1] + inset) * RECT_PX))
    x1 = int(round((x + w - origin[0] - inset) * RECT_PX))
    y1 = int(round((y + h - origin[1] - inset) * RECT_PX))
    return band[max(0, y0):y1, max(0, x0):x1]


def clean_edges(ink: Any, depth: int = 4) -> Any:
    """Removes what is left of the printed outline along a crop's edges (rows and columns near an
    edge inked across more than half their length), then small bits of ink that touch an edge
    (a neighbour's stroke coming in), next to a bigger glyph."""
    import cv2

    ink = ink.copy()
    h, w = ink.shape
    for r in list(range(min(depth, h))) + list(range(max(0, h - depth), h)):
        if (ink[r] > 0.5).mean() > 0.5:
            ink[r] = 0
    for c in list(range(min(depth, w))) + list(range(max(0, w - depth), w)):
        if (ink[:, c] > 0.5).mean() > 0.5:
            ink[:, c] = 0
    count, labels, stats, _ = cv2.connectedComponentsWithStats((ink > 0.5).astype(np.uint8), connectivity=8)
    if count > 2:
        areas = stats[1:, cv2.CC_STAT_AREA]
        largest = areas.max()
        for i in range(1, count):
            x, y, cw, ch = stats[i, :4]
            touches = x == 0 or y == 0 or x + cw == w or y + ch == h
            if touches and areas[i - 1] < 0.3 * largest:
                ink[labels == i] = 0
    return ink


def cell_features(band: Any, origin: tuple[float, float], geo: Layout, inset: float = INSET,
                  shift: tuple[float, float] = (0.0, 0.0)) -> tuple[Any, Any]:
    """Features (40 × FEATURES, tens then units of each box) and ink amounts of the cells in a band
    (each cell's window moved by `shift` mm)."""
    features, amounts = [], []
    for tens, units in geo.cells:
        for rect in (tens, units):
            ink = clean_edges(ink_mask(_crop(band, rect, origin, inset, shift)))
            amount, vector = glyph_features(ink)
            features.append(vector)
            amounts.append(amount)
    return np.array(features, dtype=np.float32), np.array(amounts, dtype=np.float32)


STROKE_DARKNESS = 0.25
"""Writing is at least this much darker than the paper (the sheet's pale bands are about 0.1)."""


def cell_strokes(band: Any, origin: tuple[float, float], geo: Layout, inset: float = INSET) -> Any:
    """How tall the tallest stroke of each cell is (40 values, tens then units of each box), as a fraction of
    the cell's height: the evidence that something is written in it, whatever the digit reader makes of it."""
    import cv2

    tallest = []
    for tens, units in geo.cells:
        for rect in (tens, units):
            crop = _crop(band, rect, origin, inset)
            ink = clean_edges(ink_mask(crop))
            # ink as dark as writing, not only darker than the rest of the cell (the pale quiet zone's edge is)
            grey = crop.astype(np.float32)
            dark = 1.0 - grey / max(float(np.percentile(grey, 90)), 1.0)
            written = ((ink > 0.5) & (dark >= STROKE_DARKNESS)).astype(np.uint8)
            count, _, stats, _ = cv2.connectedComponentsWithStats(written, connectivity=8)
            tallest.append(stats[1:, cv2.CC_STAT_HEIGHT].max() / max(1, ink.shape[0]) if count > 1 else 0.0)
    return np.array(tallest, dtype=np.float32)


def box_crops(band: Any, origin: tuple[float, float], geo: Layout) -> list[Any]:
    """Each whole box as grey pixels (for people to check)."""
    return [_crop(band, box, origin, -1.0) for box in geo.boxes]


FIT_PX = 4.0
"""Pixels per mm at which the boxes' printed frames are looked for (check_fit)."""
FIT_SEARCH = 2.5
"""How far (mm) from where a placement puts them the boxes' frames are looked for."""
FIT_TOLERANCE = 0.8
"""The farthest (mm) a run of boxes' frames may be from where the placement puts them: a cell is read 0.5 mm
inside its outline (INSET), so a placement off by more would cut the digits at the wrong place."""
FIT_SEEN = 0.1
"""The least match of a run of boxes' frames with the photo (normalised correlation) for them to count as seen."""
FIT_RUNS = 4
"""The train of boxes is checked in this many runs of boxes (each at its own place: a wrong perspective puts
some runs off and not others)."""


@dataclass
class Fit:
    """How a placement agrees with the boxes' printed frames: each run's offset (mm) and match."""

    offsets: list[float]
    matches: list[float]

    @property
    def seen(self) -> bool:
        return min(self.matches) >= FIT_SEEN

    @property
    def holds(self) -> bool:
        return self.seen and max(self.offsets) <= FIT_TOLERANCE


@cache
def _frames(paper: str, first: int, last: int) -> tuple[Any, tuple[float, float]]:
    """The frames of boxes first..last-1 drawn at FIT_PX (1 ink, 0 paper), blurred a little, and the page mm of
    the image's top-left corner."""
    import cv2

    geo = layout(paper)
    boxes = geo.boxes[first:last]
    left, top = min(b[0] for b in boxes) - 1.0, min(b[1] for b in boxes) - 1.0
    right, bottom = max(b[0] + b[2] for b in boxes) + 1.0, max(b[1] + b[3] for b in boxes) + DOT_BELOW + 2.5
    image = np.zeros((round((bottom - top) * FIT_PX), round((right - left) * FIT_PX)), np.float32)

    def at(x: float, y: float) -> tuple[int, int]:
        return round((x - left) * FIT_PX), round((y - top) * FIT_PX)

    for x, y, w, h in boxes:
        cv2.rectangle(image, at(x, y), at(x + w, y + h), 0.5, 1)
        cv2.circle(image, at(x + w / 2, y + h + DOT_BELOW), round(DOT_RADIUS * FIT_PX), 1.0, -1)
    return cv2.GaussianBlur(image, (0, 0), 0.8), (left, top)


DOT_BELOW, DOT_RADIUS = 3.0, 1.5
"""The dot printed under each box: its centre this far (mm) below the box, and its radius."""


def check_fit(gray: Any, homography: Any, paper: str) -> Fit:
    """Checks a placement against the printed layout: each run of boxes' frames looked for within FIT_SEARCH mm
    of where the placement puts it (the photo rectified there, its darkness matched with the frames)."""
    import cv2

    from paperplay.scan.marks import darkness

    geo = layout(paper)
    n = len(geo.boxes)
    offsets, matches = [], []
    for run in range(FIT_RUNS):
        first, last = run * n // FIT_RUNS, (run + 1) * n // FIT_RUNS
        frames, (left, top) = _frames(paper, first, last)
        fh, fw = frames.shape
        margin = round(FIT_SEARCH * FIT_PX)
        origin = (left - FIT_SEARCH, top - FIT_SEARCH)
        to_mm = np.array([[1 / FIT_PX, 0, origin[0]], [0, 1 / FIT_PX, origin[1]], [0, 0, 1]])
        view = cv2.warpPerspective(gray, homography @ to_mm, (fw + 2 * margin, fh + 2 * margin),
                                   flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
        dark = darkness(view, 9)
        result = cv2.matchTemplate(dark, frames, cv2.TM_CCOEFF_NORMED)
        _, peak, _, (x, y) = cv2.minMaxLoc(result)
        offsets.append(math.hypot(x - margin, y - margin) / FIT_PX)
        matches.append(float(peak))
    return Fit(offsets, matches)
