"""Photos fuzzed like every other input: odd formats are read, broken and hostile files get one line.

Each case runs `paperplay scan` in-process (test_fuzz.check_case: exit 0, 1 or 2, never a traceback, an
input error on one line, nothing written by a command that failed, no case longer than CASE_SECONDS).
The quick run is part of the default `pytest`; the long run mutates a small photo of a filled sheet
(JPEG and PNG) thousands of times: `pytest -m fuzz --hypothesis-profile=long tests/test_scan_photos.py`
(PAPERPLAY_FUZZ_REPORT=FILE writes its figures: cases, exit codes, slowest case, peak memory).
"""

from __future__ import annotations

import io
import json
import os
import resource
import struct
import time
import zlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from test_fuzz import FIGURES, check_case
from test_scan import SEED, _png_header, need, scan_stack, two_photos  # noqa: F401  (fixtures)

QUICK = settings(max_examples=12, deadline=None, database=None, derandomize=True,
                 suppress_health_check=list(HealthCheck))
SHEET_FILES = ("o/photo.json", "o/photo.check.html")


def _scan(folder, data: bytes, name: str = "photo.jpg", kind: str = "photos") -> tuple[int, str, str]:
    (folder / name).write_bytes(data)
    try:
        stem = name.rsplit(".", 1)[0]
        return check_case(kind, ["scan", name, "--seed", SEED, "--out", "o"], folder,
                          (f"o/{stem}.json", f"o/{stem}.check.html"))
    finally:
        (folder / name).unlink()


@pytest.fixture(scope="module")
def small_photo(two_photos):
    """A filled sheet's photo shrunk to 1,100 pixels (about 3 px/mm: read in a fraction of a second), as JPEG
    and as PNG bytes."""
    import cv2

    image = cv2.imread(str(two_photos[0]))
    scale = 1100 / max(image.shape[:2])
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    jpeg = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 85])[1].tobytes()
    return jpeg, cv2.imencode(".png", small)[1].tobytes()


def _values(out: str) -> list:
    return [b["value"] for b in json.loads(out)["scans"][0]["boxes"]]


def test_a_sixteen_bit_a_palette_and_a_cmyk_photo_read_as_the_photo_does(tmp_path, two_photos):
    import cv2
    import numpy as np
    from PIL import Image

    image = cv2.imread(str(two_photos[0]))
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    variants = {"deep.png": cv2.imencode(".png", grey.astype(np.uint16) * 257)[1].tobytes()}
    with Image.open(two_photos[0]) as photo:
        buffer = io.BytesIO()
        photo.convert("P", palette=Image.Palette.ADAPTIVE, colors=64).save(buffer, "PNG")
        variants["palette.png"] = buffer.getvalue()
        buffer = io.BytesIO()
        photo.convert("CMYK").save(buffer, "JPEG", quality=92)
        variants["cmyk.jpg"] = buffer.getvalue()
    code, out, err = check_case("formats", ["scan", str(two_photos[0]), "--seed", SEED, "--json", "--out", "a"],
                                tmp_path, ("a/ann.json", "a/ann.check.html"))
    expected = _values(out)
    for name, data in variants.items():
        (tmp_path / name).write_bytes(data)
        stem = name.split(".")[0]
        code, out, err = check_case("formats", ["scan", name, "--seed", SEED, "--json", "--out", stem], tmp_path,
                                    (f"{stem}/{stem}.json", f"{stem}/{stem}.check.html"))
        assert code in (0, 1), f"{name}: {err}"
        assert _values(out) == expected, name


def _bomb_jpeg(width: int, height: int) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("L", (16, 16), 255).save(buffer, "JPEG")
    data = bytearray(buffer.getvalue())
    struct.pack_into(">HH", data, data.find(b"\xff\xc0") + 5, height, width)
    return bytes(data)


def _png(width: int, height: int, depth: int, colour: int, rows: bytes) -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


@pytest.mark.parametrize("name, make, said", [
    ("empty.jpg", lambda jpg, png: b"", "is not an image that can be read (expected a JPEG, PNG, WebP or HEIC photo)"),
    ("cut.jpg", lambda jpg, png: jpg[:len(jpg) // 3], None),
    ("cut.png", lambda jpg, png: png[:len(png) // 2], "is not an image that can be read"),
    ("header.jpg", lambda jpg, png: jpg[:200], "is not an image that can be read"),
    ("noise.jpg", lambda jpg, png: bytes(range(256)) * 40, "is not an image that can be read"),
    ("bomb.jpg", lambda jpg, png: _bomb_jpeg(30000, 30000), "is 30000 × 30000 pixels; expected a photo of at most"),
    ("bomb.png", lambda jpg, png: _png_header(30000, 30000), "is 30000 × 30000 pixels; expected a photo of at most"),
    ("wide.png", lambda jpg, png: _png_header(2 ** 31 - 1, 1), "pixels; expected a photo of at most"),
    ("bad-crc.png", lambda jpg, png: png[:30] + bytes([png[30] ^ 0xFF]) + png[31:], None),
    ("palette-without-palette.png", lambda jpg, png: _png(8, 8, 8, 3, b"\0" * 72), "is not an image that can be"),
    ("zero.png", lambda jpg, png: _png(0, 0, 8, 0, b""), "is not an image that can be read"),
])
def test_broken_and_hostile_photos_get_one_line_and_nothing_is_written(tmp_path, small_photo, name, make, said):
    code, out, err = _scan(tmp_path, make(*small_photo), name, "broken photos")
    if said is not None:
        assert code == 2 and said in err, err
    else:  # a JPEG cut short decodes grey below the cut: read, or refused in one line
        assert code in (0, 1, 2)


def test_a_photo_of_something_else_is_refused_in_one_line(tmp_path, scan_stack):
    import cv2
    import numpy as np

    rng = np.random.default_rng(4)
    scenes = {
        "noise.png": (rng.random((900, 1200)) * 255).astype(np.uint8),
        "squares.png": np.kron((rng.random((9, 12)) > 0.5) * 255, np.ones((100, 100))).astype(np.uint8),
        "dots.png": np.full((900, 1200), 230, np.uint8),
    }
    for x in range(60, 1200, 170):  # a page of black squares the size of corner marks: no sheet's layout
        for y in range(60, 900, 150):
            cv2.rectangle(scenes["dots.png"], (x, y), (x + 30, y + 30), 0, -1)
    for name, image in scenes.items():
        code, out, err = _scan(tmp_path, cv2.imencode(".png", image)[1].tobytes(), name, "other photos")
        assert code == 2 and "no paperplay sheet found" in err, f"{name}: {err}"


# --- mutated photos ------------------------------------------------------------------------------------

MUTATIONS = st.lists(st.one_of(
    st.tuples(st.just("cut"), st.floats(0, 1)),
    st.tuples(st.just("set"), st.floats(0, 1), st.binary(min_size=1, max_size=8)),
    st.tuples(st.just("header"), st.integers(0, 700), st.binary(min_size=1, max_size=4)),
    st.tuples(st.just("insert"), st.floats(0, 1), st.binary(min_size=1, max_size=64)),
    st.tuples(st.just("flip"), st.floats(0, 1), st.integers(0, 7)),
    st.tuples(st.just("repeat"), st.floats(0, 1), st.integers(1, 2000), st.integers(1, 50)),
), min_size=1, max_size=6)


def mutate(data: bytes, steps: list) -> bytes:
    out = bytearray(data)
    for step in steps:
        kind = step[0]
        at = min(len(out), int(step[1] * len(out))) if kind != "header" else min(len(out), step[1])
        if kind == "cut":
            out = out[:at]
        elif kind in ("set", "header"):
            out[at:at + len(step[2])] = step[2]
        elif kind == "insert":
            out[at:at] = step[2]
        elif kind == "flip" and at < len(out):
            out[at] ^= 1 << step[2]
        elif kind == "repeat":
            piece = out[at:at + step[2]]
            out[at:at] = piece * step[3]
    return bytes(out)


def _fuzz(folder, small_photo, which: int, steps: list) -> None:
    data = mutate(small_photo[which], steps)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.process_time()
    _scan(folder, data, "photo.png" if which else "photo.jpg", "mutated photos")
    figures = FIGURES["mutated photos"]
    cpu = round(time.process_time() - started, 2)
    figures["most CPU seconds a case"] = max(figures["most CPU seconds a case"], cpu)
    figures["peak memory (MB)"] = max(figures["peak memory (MB)"], round(before / 1024))
    figures["peak memory (MB)"] = max(figures["peak memory (MB)"],
                                      round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))


@pytest.fixture(scope="module")
def fuzz_folder(tmp_path_factory):
    return tmp_path_factory.mktemp("photos")


@pytest.fixture(scope="module", autouse=True)
def report():
    """Writes the figures after the module (PAPERPLAY_FUZZ_REPORT=FILE)."""
    yield
    target = os.environ.get("PAPERPLAY_FUZZ_REPORT")
    if target:
        with open(target, "w", encoding="utf-8") as out:
            json.dump({kind: dict(counts) for kind, counts in FIGURES.items()}, out, indent=1, sort_keys=True)


def test_mutated_photos_quick(fuzz_folder, small_photo):
    need("cv2")

    @QUICK
    @given(st.integers(0, 1), MUTATIONS)
    def case(which, steps):
        _fuzz(fuzz_folder, small_photo, which, steps)

    case()


@pytest.mark.fuzz
def test_mutated_photos_long(fuzz_folder, small_photo, monkeypatch):
    need("cv2")
    import test_fuzz

    # a wall-clock bound for a machine shared with other work (the CPU seconds are in the figures)
    monkeypatch.setattr(test_fuzz, "CASE_SECONDS", 60.0)

    @settings(deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(st.integers(0, 1), MUTATIONS)
    def case(which, steps):
        _fuzz(fuzz_folder, small_photo, which, steps)

    case()
