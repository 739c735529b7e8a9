"""Finding a scannable sheet by its four corner marks alone, then reading its QR code where it is printed.

The marks (filled squares, scansheet.MARK mm, near the paper's corners) are found anywhere in the
photo as dark, square, filled blobs with paper around them; the four (or three) that form the
quadrilateral of an A4 or Letter sheet in landscape are chosen; the sheet's turn (any of four, or
mirrored), and its paper, come from the page's content: the rectified page is compared with where
the layout puts the QR code's dense square, the train of boxes and the marks. The QR code is then
read from the rectified and enlarged square where it is printed (sharpened, at several thresholds,
and rebuilt module by module), which works on photos whose QR code is too small or blurred to be
found in the whole photo.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from paperplay.streams.scansheet import MARK, Layout, layout

WORK_SIDE = 1600
"""The photo is searched for marks shrunk to this long side at most (marks stay 10 pixels or more a side
down to 2 pixels a millimetre)."""
PAPERS = ("a4", "letter")
CHECK_PX = 1.5
"""Pixels per mm of the rectified page compared with the layout to find the sheet's turn and paper."""
QR_MODULES = 33
"""Modules across a scannable sheet's QR code (version 4: every `PAPERPLAY/1 streams code=… sheet=n/N
scan=1` payload, sheet 1/1 to 200/200, and a player's own sheet up to 100200/100200 with the game code)."""
QR_PX = 8
"""Pixels per module of the rectified QR code."""
MAX_CANDIDATES = 30
"""Mark candidates kept (the likeliest) for the search of the quadrilateral."""
QUADS, TRIPLES = 60, 3
"""The quadrilaterals most like a sheet's marks (and sets of three) compared with the layout."""
SIZES = 3.2
"""The most a sheet's biggest mark may be beside its smallest in a photo (the near corner of a sheet seen from a
seat is three times the far one)."""
CORNERS = 1.0
"""The weight of the quadrilateral's corners' mean |cosine| in its shape score (a sheet seen from a seat has
corners far from square: 2 put its marks behind others)."""
RANKED = 0.01
"""How much a quadrilateral's shape score grows with its marks' places among the candidates (0 the most
mark-like): under strong perspective the shape alone ranks the sheet's marks behind dozens of others."""
AROUND = 0.3
"""The most ink in the paper ring around a mark candidate (a share): a mark seen steeply beside the QR code has
some of the code's modules in its ring (the more ink there, the lower the candidate's score)."""
FORESHORTENED = 0.45
"""The shortest a side of the marks' quadrilateral may be beside the opposite one (a sheet on a table seen from
a seat: its far edge a third shorter than the near one, and more)."""
ASPECT = 1.6
"""How far the quadrilateral's mean long/short side ratio may be from the marks' rectangle's (a factor):
perspective foreshortens one way more than the other."""
AGREEMENT = 0.25
"""The least agreement of a rectified page with the layout (_agreement) taken as a sheet."""


@dataclass
class Marks:
    """Where the sheet is: the homography from page mm to photo pixels, its paper, and how many of the
    four corner marks were found (the others inferred)."""

    homography: Any
    paper: str
    found: int
    mirrored: bool
    inferred: int | None = None
    """The mark (0-3: top-left, top-right, bottom-right, bottom-left) placed from the three found, if one was."""


def _shrunk(gray: Any) -> tuple[Any, float]:
    """The photo shrunk to WORK_SIDE at most, and the factor."""
    import cv2

    h, w = gray.shape
    factor = min(1.0, WORK_SIDE / max(h, w))
    if factor >= 1:
        return gray, 1.0
    size = (max(1, round(w * factor)), max(1, round(h * factor)))
    return cv2.resize(gray, size, interpolation=cv2.INTER_AREA), factor


def _blobs(small: Any, factor: float) -> Any:
    """Mark candidates in the shrunk photo: (n × 4) x, y, side (photo pixels) and a score (higher: more
    mark-like)."""
    import cv2

    blur = cv2.GaussianBlur(small, (0, 0), 0.8)
    found: list[tuple[float, float, float, float]] = []
    longest = max(small.shape)
    # two neighbourhoods, and a stricter level that keeps only the blackest ink: a blurred mark apart from
    # the title's bold letters beside it
    for block, level in ((31, 12), (81, 12), (31, 40)):
        dark = cv2.adaptiveThreshold(blur, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, block, level)
        count, labels, stats, centroids = cv2.connectedComponentsWithStats(dark, connectivity=8)
        areas = stats[:, cv2.CC_STAT_AREA]
        for i in np.flatnonzero((areas >= 40) & (areas <= (0.08 * longest) ** 2)):
            if i == 0:
                continue
            x, y, bw, bh = (int(v) for v in stats[i, :4])
            if not 0.4 <= bw / bh <= 2.5:
                continue
            ys, xs = np.nonzero(labels[y:y + bh, x:x + bw] == i)
            points = np.column_stack([xs, ys]).astype(np.float32)
            (_, _), (rw, rh), _ = cv2.minAreaRect(points)
            if rw * rh <= 0 or not 0.6 <= rw / rh <= 1.66:
                continue
            fill = areas[i] / (rw * rh)
            hull = cv2.contourArea(cv2.convexHull(points))
            if fill < 0.72 or hull <= 0 or areas[i] / hull < 0.85:
                continue
            side = math.sqrt(areas[i])
            # paper around it: little dark in a ring from a quarter to three quarters of a side beyond it
            near, far = round(0.25 * side), round(0.75 * side)
            x0, y0 = max(0, x - far), max(0, y - far)
            x1, y1 = min(dark.shape[1], x + bw + far), min(dark.shape[0], y + bh + far)
            ring = dark[y0:y1, x0:x1] > 0
            inner = np.zeros_like(ring)
            inner[max(0, y - near - y0):y + bh + near - y0, max(0, x - near - x0):x + bw + near - x0] = True
            if (x1 - x0) * (y1 - y0) <= 0 or (~inner).sum() == 0:
                continue
            around = float(ring[~inner].mean())
            if around > AROUND:
                continue
            # solid black against the paper around it (a mark is the darkest thing printed)
            inked = float(small[y:y + bh, x:x + bw][labels[y:y + bh, x:x + bw] == i].mean())
            paper = float(np.percentile(small[y0:y1, x0:x1][~inner], 90))
            contrast = (paper - inked) / max(paper, 1.0)
            score = fill + areas[i] / hull - 4 * around + 3 * contrast
            cx, cy = centroids[i]
            found.append((cx / factor, cy / factor, side / factor, score))
    if not found:
        return np.zeros((0, 4))
    blobs = np.array(sorted(found, key=lambda b: -b[3]))
    kept: list[Any] = []
    for blob in blobs:  # the same blob found at both block sizes: kept once (the better)
        if all(math.hypot(blob[0] - k[0], blob[1] - k[1]) > 0.5 * max(blob[2], k[2]) for k in kept):
            kept.append(blob)
    return np.array(kept)


@cache
def _mark_rectangles() -> tuple[tuple[float, float], ...]:
    """The mark-to-mark width and height (mm) of each paper."""
    out = []
    for paper in PAPERS:
        geo = layout(paper)
        out.append((geo.marks[1][0] - geo.marks[0][0], geo.marks[3][1] - geo.marks[0][1]))
    return tuple(out)


def _convex_order(points: Any) -> Any:
    """Indices of points in clockwise order on the photo (y down), by angle around their mean."""
    centre = points.mean(axis=0)
    return np.argsort(np.arctan2(points[:, 1] - centre[1], points[:, 0] - centre[0]))


def _shape_scores(points: Any, sides: Any) -> Any:
    """How far sets of 4 points (m × 4 × 2, clockwise) with mark sides (m × 4) are from an A4 or Letter
    sheet's marks: 0 exactly, inf not a sheet's (not convex, sides too unequal, marks of the wrong size)."""
    edges = np.roll(points, -1, axis=1) - points
    length = np.hypot(edges[..., 0], edges[..., 1]) + 1e-9
    nxt = np.roll(edges, -1, axis=1)
    cross = edges[..., 0] * nxt[..., 1] - edges[..., 1] * nxt[..., 0]
    prev = np.roll(edges, 1, axis=1)
    cosines = np.abs((prev * edges).sum(axis=2)) / (np.roll(length, 1, axis=1) * length)
    a, b = (length[:, 0] + length[:, 2]) / 2, (length[:, 1] + length[:, 3]) / 2
    opposite = np.maximum(np.abs(np.log(length[:, 0] / length[:, 2])), np.abs(np.log(length[:, 1] / length[:, 3])))
    # in perspective a mark is as big as the sheet is there: the mean of the two edges that meet at its corner
    local = np.sqrt(np.roll(length, 1, axis=1) * length)
    return _score(np.maximum(a, b), np.minimum(a, b), sides, cosines.mean(axis=1),
                  (cross > 0).all(axis=1) & (opposite < math.log(1 / FORESHORTENED)),
                  local / local.mean(axis=1)[:, None])


def _score(long: Any, short: Any, sides: Any, cosine: Any, ok: Any, local: Any = 1.0) -> Any:
    """The shape score of quadrilaterals (or L-shaped triples) from their mean long and short sides (pixels),
    their marks' sides (m × k), the mean |cosine| of their corners, what else makes them possible, and how
    much bigger than on average the sheet is at each mark (m × k: perspective)."""
    rectangles = _mark_rectangles()
    aspect = np.min([np.abs(np.log(long / short * h / w)) for w, h in rectangles], axis=0)
    w, h = rectangles[0]
    scale = (long / w + short / h) / 2  # pixels per mm, about
    size = np.abs(np.log(sides / (MARK * scale[:, None] * local)))
    ok = ok & (aspect <= math.log(ASPECT)) & (size.max(axis=1) <= math.log(1.9))
    return np.where(ok, aspect + size.mean(axis=1) + CORNERS * cosine, np.inf)


@cache
def _combinations(n: int, k: int) -> Any:
    return np.array(list(itertools.combinations(range(n), k)), dtype=np.intp).reshape(-1, k)


def _choose(blobs: Any) -> list[tuple[Any, int | None]]:
    """The likeliest sets of four mark centres (clockwise on the photo), best first, each with the index of
    the one not found (None: all four found; else the fourth is where a parallelogram puts it)."""
    blobs = blobs[:MAX_CANDIDATES]
    out: list[tuple[Any, int | None]] = []
    sides = blobs[:, 2]
    if len(blobs) >= 4:
        combos = _combinations(len(blobs), 4)
        combos = combos[sides[combos].max(axis=1) <= SIZES * sides[combos].min(axis=1)]
        points = blobs[combos, :2]
        centre = points.mean(axis=1, keepdims=True)
        order = np.argsort(np.arctan2(points[..., 1] - centre[..., 1], points[..., 0] - centre[..., 0]), axis=1)
        combos = np.take_along_axis(combos, order, axis=1)
        # the likelier marks first (blobs are sorted by how mark-like they look): perspective leaves the shape
        # alone less sure
        scores = _shape_scores(blobs[combos, :2], sides[combos]) + RANKED * combos.sum(axis=1)
        for i in np.argsort(scores)[:QUADS]:
            if np.isfinite(scores[i]):
                out.append((blobs[combos[i], :2], None))
    combos = _combinations(len(blobs), 3)
    combos = combos[sides[combos].max(axis=1) <= SIZES * sides[combos].min(axis=1)]
    candidates = []
    for middle in range(3):  # the corner mark of the three
        ends = [k for k in range(3) if k != middle]
        triple = combos[:, [ends[0], middle, ends[1]]]
        a, corner, b = (blobs[triple[:, k], :2] for k in range(3))
        u, v = a - corner, b - corner
        lu, lv = np.hypot(*u.T) + 1e-9, np.hypot(*v.T) + 1e-9
        cosine = np.abs((u * v).sum(axis=1)) / (lu * lv)
        scores = _score(np.maximum(lu, lv), np.minimum(lu, lv), sides[triple], cosine, cosine <= 0.5)
        candidates += [(scores[i], a[i], corner[i], b[i]) for i in np.argsort(scores)[:TRIPLES]
                       if np.isfinite(scores[i])]
    candidates.sort(key=lambda c: c[0])
    for _, a, corner, b in candidates[:TRIPLES]:
        points = np.vstack([a, corner, b, a + b - corner])
        order = _convex_order(points)
        out.append((points[order], int(np.flatnonzero(order == 3)[0])))
    return out


@cache
def _template(paper: str) -> Any:
    """The layout's ink at CHECK_PX px/mm (0 paper .. 1 ink), normalised: the QR code (half inked), the
    train's box outlines and the dots under them, blurred a little (not the marks: every placement has
    them where they should be)."""
    import cv2

    geo = layout(paper)
    size = (round(geo.width * CHECK_PX), round(geo.height * CHECK_PX))
    t = np.zeros((size[1], size[0]), np.float32)

    def px(v: float) -> int:
        return round(v * CHECK_PX)

    qx, qy, qs = geo.qr
    cv2.rectangle(t, (px(qx), px(qy)), (px(qx + qs), px(qy + qs)), 0.5, -1)
    for x, y, w, h in geo.boxes:
        cv2.rectangle(t, (px(x), px(y)), (px(x + w), px(y + h)), 0.6, 1)
        cv2.circle(t, (px(x + w / 2), px(y + h + 3.0)), px(1.5), 0.6, -1)
    t = cv2.GaussianBlur(t, (0, 0), 1.0)
    return (t - t.mean()) / (t.std() + 1e-9)


def darkness(image: Any, window: int) -> Any:
    """How much darker than the paper around it each pixel is (0 .. 1): uneven light evened out."""
    import cv2

    paper = cv2.GaussianBlur(cv2.dilate(image, np.ones((window, window), np.uint8)), (0, 0), window / 3)
    return np.clip(1.0 - image.astype(np.float32) / np.maximum(paper.astype(np.float32), 1.0), 0.0, 1.0)


FLIPS = {  # a page turned or mirrored about its middle: its marks' rectangle lands on itself
    "none": (lambda d: d, lambda w, h: np.eye(3)),
    "turned": (lambda d: d[::-1, ::-1], lambda w, h: np.array([[-1, 0, w], [0, -1, h], [0, 0, 1.0]])),
    "mirrored across": (lambda d: d[:, ::-1], lambda w, h: np.array([[-1, 0, w], [0, 1, 0], [0, 0, 1.0]])),
    "mirrored down": (lambda d: d[::-1, :], lambda w, h: np.array([[1, 0, 0], [0, -1, h], [0, 0, 1.0]])),
}


def _agreements(gray: Any, homography: Any, paper: str) -> dict[str, float]:
    """How well the photo, rectified by a homography (page mm -> photo pixels), matches the paper's layout
    as it is, turned and mirrored (normalised correlation of its darkness with _template), by FLIPS."""
    import cv2

    geo = layout(paper)
    size = (round(geo.width * CHECK_PX), round(geo.height * CHECK_PX))
    matrix = homography @ np.array([[1 / CHECK_PX, 0, 0.5 / CHECK_PX], [0, 1 / CHECK_PX, 0.5 / CHECK_PX], [0, 0, 1]])
    page = cv2.warpPerspective(gray, matrix, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)
    d = darkness(page, 7)
    d = (d - d.mean()) / (d.std() + 1e-9)
    template = _template(paper)
    return {name: float((flip(d) * template).mean()) for name, (flip, _) in FLIPS.items()}


def _homography(page_points: Any, photo_points: Any) -> Any:
    import cv2

    return cv2.getPerspectiveTransform(np.float32(page_points), np.float32(photo_points)).astype(np.float64)


def _refine(gray: Any, centre: Any, side: float) -> Any:
    """A mark's centre measured again at the photo's full resolution: the darkness-weighted centre of its
    blob (the window's dark part that holds the centre, a little widened for the blurred edge)."""
    import cv2

    h, w = gray.shape
    r = 0.9 * side
    x0, x1 = max(0, int(centre[0] - r)), min(w, int(centre[0] + r) + 1)
    y0, y1 = max(0, int(centre[1] - r)), min(h, int(centre[1] + r) + 1)
    window = gray[y0:y1, x0:x1]
    if window.shape[0] < 5 or window.shape[1] < 5:
        return centre
    values = window.astype(np.float64)
    paper, ink = np.percentile(values, 95), np.percentile(values, 2)
    if paper - ink < 20:
        return centre
    dark = (values < (paper + ink) / 2).astype(np.uint8)
    count, labels = cv2.connectedComponents(dark, connectivity=8)
    cx, cy = int(round(centre[0])) - x0, int(round(centre[1])) - y0
    if not (0 <= cy < labels.shape[0] and 0 <= cx < labels.shape[1]) or labels[cy, cx] == 0:
        return centre
    grow = max(1, round(side / 10))
    blob = cv2.dilate((labels == labels[cy, cx]).astype(np.uint8), np.ones((2 * grow + 1, 2 * grow + 1), np.uint8))
    weight = np.clip((paper - values) / (paper - ink), 0, 1) * blob
    total = weight.sum()
    if total <= 0:
        return centre
    ys, xs = np.mgrid[y0:y1, x0:x1]
    found = np.array([(weight * xs).sum() / total, (weight * ys).sum() / total])
    return found if math.hypot(*(found - centre)) < 0.5 * side else centre


PLACEMENTS = 6
"""The most placements find_sheets returns (the likeliest), for the caller to check in turn."""
SURE = 0.35
"""An agreement with the layout (_agreements) at which four found marks are taken without comparing others."""


def find_sheet(gray: Any) -> Marks | None:
    """The sheet in a photo from its corner marks alone (None: fewer than three marks of a sheet found)."""
    found, _ = find_sheets(gray)
    return found[0] if found else None


def find_sheets(gray: Any) -> tuple[list[Marks], Any]:
    """The placements of a sheet in a photo by its corner marks alone that agree with the layout (AGREEMENT),
    likeliest first: the caller checks each against the printed boxes (reader.check_fit) and takes the first
    that holds (none: fewer than three marks of a sheet found); and the mark-like squares found (n × 4: x, y,
    side in photo pixels, score; likeliest first)."""
    small, factor = _shrunk(gray)
    blobs = _blobs(small, factor)
    if len(blobs) < 3:
        return [], blobs
    to_small = np.diag([factor, factor, 1.0])
    best: tuple[float, Marks] | None = None
    placements: list[tuple[float, Marks]] = []
    for points, k in _choose(blobs):
        sides: list[float | None] = []
        for i, p in enumerate(points):
            d = np.hypot(*(blobs[:, :2] - p).T)
            sides.append(None if i == k else float(blobs[int(np.argmin(d)), 2]))
        known = [s for s in sides if s is not None]
        refined = np.array([_refine(gray, p, s) if s is not None else p for p, s in zip(points, sides)])
        found = 4 if k is None else 3
        if k is not None:  # the inferred mark again from the three measured
            refined[k] = refined[(k - 1) % 4] + refined[(k + 1) % 4] - refined[(k + 2) % 4]
            near = _near_blob(gray, refined[k], float(np.mean(known)))
            if near is not None:
                refined[k], found, k = near, 4, None
        sides_px = np.hypot(*(np.roll(refined, -1, axis=0) - refined).T)
        shift = 0 if sides_px[0] + sides_px[2] > sides_px[1] + sides_px[3] else 1  # the sheet's top: a long side
        order = [(shift + i) % 4 for i in range(4)]
        for paper in PAPERS:
            geo = layout(paper)
            marks = np.array(geo.marks)
            h = _homography(marks, refined[order])
            agreements = _agreements(small, to_small @ h, paper)
            name = max(agreements, key=lambda n: agreements[n])  # the page's turn: its best
            score = agreements[name] - 0.1 * (4 - found)
            if score < AGREEMENT:
                continue
            flipped = h @ FLIPS[name][1](geo.width, geo.height)
            inferred = None
            if k is not None:  # which page mark the inferred one is
                inferred = int(np.argmin(np.hypot(*(_project(flipped, marks) - refined[k]).T)))
            placement = (score, Marks(flipped, paper, found, name.startswith("mirrored"), inferred))
            placements.append(placement)
            if best is None or score > best[0]:
                best = placement
        if best is not None and best[0] >= SURE and best[1].found == 4:
            break
    placements.sort(key=lambda p: -p[0])
    return [m for _, m in placements[:PLACEMENTS]], blobs


def _project(h: Any, points: Any) -> Any:
    pts = np.hstack([np.asarray(points, dtype=np.float64), np.ones((len(points), 1))]) @ h.T
    return pts[:, :2] / pts[:, 2:3]


def _near_blob(gray: Any, guess: Any, side: float) -> Any:
    """A mark missed by the search (in a shadow, half cut by a threshold), looked for again near where three
    others put it: the darkest mark-sized square within two sides of the guess, if clearly one."""
    import cv2

    h, w = gray.shape
    r = int(2.5 * side)
    x0, y0 = max(0, int(guess[0]) - r), max(0, int(guess[1]) - r)
    window = gray[y0:min(h, int(guess[1]) + r), x0:min(w, int(guess[0]) + r)]
    if window.shape[0] < side or window.shape[1] < side:
        return None
    blur = cv2.GaussianBlur(window, (0, 0), max(0.8, side / 8))
    _, dark = cv2.threshold(blur, 0, 255, cv2.THRESH_BINARY_INV | cv2.THRESH_OTSU)
    count, labels, stats, centroids = cv2.connectedComponentsWithStats(dark, connectivity=8)
    best = None
    for i in range(1, count):
        area = stats[i, cv2.CC_STAT_AREA]
        bw, bh = stats[i, 2], stats[i, 3]
        if not 0.4 * side * side <= area <= 2.2 * side * side or not 0.6 <= bw / bh <= 1.66:
            continue
        if area / (bw * bh) < 0.65:
            continue
        centre = centroids[i] + [x0, y0]
        d = math.hypot(*(centre - guess))
        if d < 2 * side and (best is None or d < best[0]):
            best = (d, centre)
    return None if best is None else _refine(gray, best[1], side)


def qr_images(gray: Any, homography: Any, geo: Layout) -> Any:
    """The sheet's QR code rectified from where the layout prints it, enlarged to QR_PX px a module with a
    quiet zone, then cleaned up in a few ways (sharpened, thresholds, rebuilt from the modules' centres):
    each image for the decoder to try in turn. Returns (image, homography from image pixels to page mm)."""
    import cv2

    qx, qy, qs = geo.qr
    module = qs / QR_MODULES
    quiet = 4
    n = QR_MODULES + 2 * quiet
    px = QR_PX
    size = n * px
    # image pixel -> page mm
    to_mm = np.array([[module / px, 0, qx - quiet * module], [0, module / px, qy - quiet * module], [0, 0, 1]])
    matrix = homography @ to_mm
    crop = cv2.warpPerspective(gray, matrix, (size, size), flags=cv2.INTER_CUBIC | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)
    inside = slice(quiet * px, (quiet + QR_MODULES) * px)
    paper = cv2.GaussianBlur(cv2.dilate(crop, np.ones((3 * px, 3 * px), np.uint8)), (0, 0), px)
    flat = np.clip(crop.astype(np.float32) / np.maximum(paper.astype(np.float32), 1) * 255, 0, 255).astype(np.uint8)

    def framed(image: Any) -> Any:  # the code with a clean white quiet zone around it
        out = np.full((size, size), 255, np.uint8)
        out[inside, inside] = image[inside, inside] if image.shape[0] == size else image
        return out

    yield framed(flat), to_mm
    sharp = cv2.addWeighted(flat, 2.5, cv2.GaussianBlur(flat, (0, 0), px / 2), -1.5, 0)
    yield framed(sharp), to_mm
    otsu = cv2.threshold(cv2.GaussianBlur(flat, (0, 0), 1.0), 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)[1]
    yield framed(otsu), to_mm
    # module by module: the mean of each module's middle, thresholded at a few levels around the median
    centre = flat[inside, inside].astype(np.float32)
    cells = cv2.resize(cv2.GaussianBlur(centre, (0, 0), px / 4), (QR_MODULES, QR_MODULES), interpolation=cv2.INTER_AREA)
    local = cv2.GaussianBlur(cells, (0, 0), 4)
    for relative in (cells - local, cells):
        for q in (50, 42, 58):
            level = np.percentile(relative, q)
            matrix_ = (relative < level).astype(np.uint8)
            image = np.full((n, n), 255, np.uint8)
            image[quiet:quiet + QR_MODULES, quiet:quiet + QR_MODULES] = 255 * (1 - matrix_)
            yield cv2.resize(image, (size, size), interpolation=cv2.INTER_NEAREST), to_mm
