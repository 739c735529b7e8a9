"""What kind of image a photo's file is, and its size, from its first bytes alone (no decoding; only the standard
library: the game night server checks a photo with it before queueing it for a photo worker, which has the scan
extra)."""

from __future__ import annotations

import re

NOT_AN_IMAGE = "is not an image that can be read (expected a JPEG, PNG, WebP or HEIC photo)"
"""The one line for a file that is none of the photos the reader reads."""
MAX_PIXELS = 120_000_000
"""The largest photo read (a 108-megapixel phone camera's; the reader needs about 4 pixels a
millimetre, some 3 megapixels a sheet): a larger one is refused before it is decoded, so a small
file that claims a huge image cannot take minutes and gigabytes."""

JPEG_MARKER = re.compile(rb"\xff([\x01-\xfe])")
"""A JPEG marker and its code: fill bytes (0xFF) before it, a stuffed 0xFF00 and stray bytes are
not markers, as a decoder reads them."""
HEADER_MARKERS = 20_000
"""At most this many markers are read before a JPEG's frame header (a photo has a few dozen; the
segments between them are jumped by their lengths, however long), so any file is answered at once."""


HEIF_BRANDS = (b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1", b"msf1")
"""The ftyp brands of a HEIC/HEIF photo (an iPhone's is heic)."""


def is_heif(data: bytes) -> bool:
    """Whether a file is a HEIC/HEIF image (an ISO media file whose ftyp box names a HEIF brand)."""
    return data[4:8] == b"ftyp" and data[8:12] in HEIF_BRANDS


def _webp_header(data: bytes) -> tuple[int, int, bool] | None:
    """(width, height, False) of a WebP image from its first chunk (lossy VP8, lossless VP8L or extended VP8X)."""
    chunk = data[12:16]
    if chunk == b"VP8X" and len(data) >= 30:
        return int.from_bytes(data[24:27], "little") + 1, int.from_bytes(data[27:30], "little") + 1, False
    if chunk == b"VP8L" and len(data) >= 25 and data[20] == 0x2F:
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1, False
    if chunk == b"VP8 " and len(data) >= 30 and data[23:26] == b"\x9d\x01\x2a":
        return int.from_bytes(data[26:28], "little") & 0x3FFF, int.from_bytes(data[28:30], "little") & 0x3FFF, False
    return None


def image_header(data: bytes) -> tuple[int, int, bool] | None:
    """(width, height, progressive) from a PNG's, a JPEG's or a WebP's header, without decoding it (a PNG is never
    progressive here: its rows are decoded as they come); None for anything else (HEIC: heif_gray)."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24 and data[12:16] == b"IHDR":
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big"), False
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return _webp_header(data)
    if data[:2] != b"\xff\xd8":
        return None
    at = 2
    for _ in range(HEADER_MARKERS):
        found = JPEG_MARKER.search(data, at)
        if found is None:
            return None
        marker, at = found[1][0], found.end()  # at: just past the marker's code
        if marker == 0x01 or 0xD0 <= marker <= 0xD7:  # markers without a length
            continue
        if marker == 0xD9 or at + 2 > len(data):  # the end of the image before any frame
            return None
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):  # a start of frame
            if at + 7 > len(data):
                return None
            progressive = marker in (0xC2, 0xC6, 0xCA, 0xCE)
            return (int.from_bytes(data[at + 5:at + 7], "big"), int.from_bytes(data[at + 3:at + 5], "big"),
                    progressive)
        length = int.from_bytes(data[at:at + 2], "big")
        if length < 2:
            return None
        at += length
    return None


def is_image(data: bytes) -> bool:
    """Whether a file starts as a photo the reader reads: a HEIC/HEIF container, or a PNG, JPEG or WebP header that
    gives its size (a file of nothing, text, or a JPEG cut before its frame is not one)."""
    return is_heif(data) or image_header(data) is not None


def too_many_pixels(data: bytes) -> str | None:
    """The one line for a PNG, JPEG or WebP whose header gives more than MAX_PIXELS (as the reader says it), or None."""
    header = image_header(data)
    if header is None or header[0] * header[1] <= MAX_PIXELS:
        return None
    return (f"is {header[0]} × {header[1]} pixels; expected a photo of at most {MAX_PIXELS // 1_000_000} megapixels "
            "(a phone's normal photo, 8-12 megapixels, is plenty)")
