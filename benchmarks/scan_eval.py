"""The held-out evaluation of `paperplay scan` (not a test: it prints figures and never fails).

Run: python benchmarks/scan_eval.py                 (200 photos, seed 2026: the README's figures)
     python benchmarks/scan_eval.py --photos 50 --keep /tmp/wrong   (keeps the photos read wrong)

Needs the scan and test extras (pip install '.[scan,test]') and the held-out font packages
(apt-get install fonts-sjfonts fonts-humor-sans fonts-bwht). Photos are synthetic: held-out
hands (fonts never trained on, load_digits samples 1300..1796) on scannable sheets of random
games, photographed with perspective, rotation, portrait and landscape framing, blur, noise,
uneven light and JPEG (paperplay/scan/synth.py). The time per photo covers decoding the JPEG,
registration, reading and matching (not start-up, not generating the photo).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from paperplay.scan.evaluate import evaluate  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--photos", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--keep", type=Path, help="folder for the photos not read, or read wrong and not flagged")
    parser.add_argument("--verbose", action="store_true", help="list every photo with a failure")
    args = parser.parse_args()
    started = time.perf_counter()
    figures = evaluate(args.photos, args.seed, args.keep)
    print(f"paperplay scan on {args.photos} held-out synthetic photos (seed {args.seed}):")
    for line in figures.lines():
        print("  " + line)
    print(f"  (whole evaluation, photo generation included: {time.perf_counter() - started:.0f} s)")
    if args.verbose:
        for failure in figures.failures:
            print("  " + failure)


if __name__ == "__main__":
    main()
