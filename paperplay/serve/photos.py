"""Photos of scannable sheets read in worker processes, so the server keeps answering meanwhile.

The workers are spawned (paperplay.processes: a Ctrl-C does not cut their start), niced, and read
one photo at a time with OpenCV on one thread each. Photos waiting or being read are counted: past
`limit` the server says 503 (come back in a few seconds) instead of queueing more, so memory stays
bounded however many phones hand in at once.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from paperplay.streams.rules import Tile

READ_TIMEOUT = 60.0
"""Seconds a photo may take in a worker (one takes about a second) before it is given up as failed."""
PER_ADDRESS = 2
"""Photos read or waiting at once from one address other than this computer's own: a phone hands in one (and
may retry it while the first is read); one person sending photo after photo cannot take every worker."""


def _start_worker() -> None:
    try:
        os.nice(5)  # the host's next tile and the players' pages answer first
    except OSError:
        pass
    import cv2

    cv2.setNumThreads(1)  # one photo a process: the processes share the cores
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
    import paperplay.scan.pipeline  # noqa: F401 - loaded once, before the first photo


def _start_quiet_worker() -> None:
    """A photo worker's reader process (`paperplay worker`): Ctrl-C is the worker's to answer (it finishes the
    photo being read, or leaves it to be read again), never the reader's."""
    from paperplay.processes import ignore_interrupts

    ignore_interrupts()
    _start_worker()


def read_in_worker(path: str, drawn: Sequence[Tile] | None) -> dict[str, Any]:
    """Reads one photo (runs in a worker): the sheet it shows (paperplay.handin.PhotoSheet: each box's JSON
    and image), or the one-line reason it cannot be taken and its code ("refused")."""
    from pathlib import Path

    from paperplay.handin import Refused, read_photo_sheet
    from paperplay.scan.reader import ScanError, load_gray

    started = time.perf_counter()
    gray = None
    try:
        gray = load_gray(Path(path))  # the header checks first: size, pixels, scans
        sheet = read_photo_sheet(Path(path), drawn, gray=gray)
    except ScanError as exc:
        out = {"error": str(exc), "refused": getattr(exc, "code", None), "seconds": time.perf_counter() - started}
        return out | _retake(exc, gray)
    except Refused as exc:
        out = {"error": str(exc), "refused": exc.code, "seconds": time.perf_counter() - started}
        return out | _retake(exc.reading, gray) if exc.reading is not None else out
    return {"sheet": sheet, "seconds": time.perf_counter() - started}


def _retake(exc: Exception, gray: Any) -> dict[str, Any]:
    """How to take a refused photo again: the advice's values (the page's language words them) and the photo
    with what the reader found drawn on it (PNG), when the photo could be decoded."""
    from paperplay.scan.refusal import ScanRefusal

    if not isinstance(exc, ScanRefusal):
        return {}
    out: dict[str, Any] = {"advice": (exc.code, exc.values)}
    if gray is not None:
        from paperplay.scan.overlay import draw_overlay

        out["overlay"] = draw_overlay(gray, exc.seen, long_side=OVERLAY_SIDE)
    return out


OVERLAY_SIDE = 720
"""The long side of a refused photo's overlay sent to the phone, pixels (about 100-250 KB as PNG)."""


@dataclass(frozen=True)
class PhotoTaken:
    """A photo read as a game's sheet, to be stored: its name, its printed sheet number (None when its QR
    code was not read), each box's JSON and image."""

    name: str
    printed: str | None
    boxes: list[dict[str, Any]]
    crops: list[bytes] = field(repr=False)


@dataclass(frozen=True)
class PhotoRefused:
    """A photo that cannot be taken: its code, its one line ("photo: ..."), and how to take it again (the
    reader's advice as (code, values), worded in the game's language when answered; the photo with what the
    reader found drawn on it, PNG), when the reader refused it."""

    code: str
    error: str
    advice: tuple[str, dict[str, Any]] | None = None
    overlay: bytes | None = field(default=None, repr=False)


def judge(read: dict[str, Any], seed: str, name: str | None) -> PhotoTaken | PhotoRefused:
    """What a photo read (read_in_worker's answer) gives a game of `seed`, handed in under `name` (the
    player's, or the one given with the photo; None: named after its printed sheet): the sheet to store, or
    the refusal. One path for the server that reads photos itself and for the photo workers."""
    from paperplay.handin import PhotoSheet, Refused, check_photo_game
    from paperplay.seeds import full_code

    if "error" in read:
        advice = read.get("advice")
        return PhotoRefused(str(read.get("refused") or "bad_photo"), f"photo: {read['error']}",
                            (str(advice[0]), dict(advice[1])) if advice else None, read.get("overlay"))
    sheet: PhotoSheet = read["sheet"]
    try:
        check_photo_game(sheet, full_code("streams", seed))
    except Refused as exc:
        return PhotoRefused(exc.code, str(exc))
    printed = sheet.sheet or None
    if name is None and printed is None:  # no sheet number to name it after
        return PhotoRefused("bad_input", "name: missing; the sheet's QR code could not be read, so the sheet is "
                                         "named after its player: give the name (or join the game first)")
    return PhotoTaken(name or f"sheet {printed}", printed, sheet.boxes, sheet.crops)


def not_an_image(data: bytes) -> PhotoRefused | None:
    """The refusal of a photo's file that is no image the reader reads (nothing, text, a JPEG cut before its frame)
    or one over its pixel limit, told from its header before it takes a photo worker's turn, or a place in the game
    as a queued sheet; None for an image. The same answer as the reader's (paperplay.scan.reader.load_gray)."""
    from paperplay.scan.header import NOT_AN_IMAGE, is_image, too_many_pixels

    if not is_image(data):
        return PhotoRefused("not_image", f"photo: {NOT_AN_IMAGE}", ("not_image", {}))
    too_large = too_many_pixels(data)
    return None if too_large is None else PhotoRefused("photo_too_large", f"photo: {too_large}",
                                                       ("photo_too_large", {}))


def retake(refused: PhotoRefused, lang: str) -> dict[str, Any]:
    """A refused photo's answer beside its line: "hint", what to do in the game's language, and "overlay", the
    photo with what the reader found drawn on it (a PNG data address the phone shows)."""
    if refused.advice is None:
        return {}
    import base64

    from paperplay.i18n import translator
    from paperplay.scan.refusal import ScanRefusal

    code, values = refused.advice
    error = refused.error.removeprefix("photo: ")
    out: dict[str, Any] = {"hint": ScanRefusal(code, error, **values).hint_in(translator(lang))}
    if refused.overlay:
        out["overlay"] = "data:image/png;base64," + base64.b64encode(refused.overlay).decode("ascii")
    return out


def read_bytes(photo: bytes, drawn: Sequence[Tile] | None, folder: str | None = None) -> dict[str, Any]:
    """read_in_worker for a photo's bytes (the photo workers keep them in the database): written to a
    temporary file in `folder`, read, removed."""
    import tempfile
    from pathlib import Path

    handle, path = tempfile.mkstemp(suffix=".photo", dir=folder)
    try:
        with open(handle, "wb") as out:
            out.write(photo)
        return read_in_worker(path, drawn)
    finally:
        Path(path).unlink(missing_ok=True)


def _ready() -> bool:
    return True


class Full(Exception):
    """Too many photos are waiting (`whose`: "server", or "address" for the client's own share): the client
    should try again later."""

    def __init__(self, whose: str = "server") -> None:
        super().__init__(whose)
        self.whose = whose


class PhotoReader:
    """The worker pool and the count of photos in it."""

    def __init__(self, workers: int, limit: int, per_address: int = PER_ADDRESS, quiet: bool = False) -> None:
        self.workers = workers
        self.quiet = quiet
        """Whether the processes ignore Ctrl-C (the photo workers': their parent stops them)."""
        self.limit = limit
        self.per_address = per_address
        self._by_address: dict[str, int] = {}
        self._pool: Any = None
        self._count = 0
        self._lock = threading.Lock()
        self._ready = 0

    def start(self) -> None:
        """Starts the workers; each loads the reader as it starts (`ready` counts those done)."""
        from paperplay.processes import spawn_pool

        self._pool = spawn_pool(self.workers, _start_quiet_worker if self.quiet else _start_worker)
        for _ in range(self.workers):
            self._pool.apply_async(_ready, callback=self._one_ready)

    def _one_ready(self, _: bool) -> None:
        with self._lock:
            self._ready += 1

    @property
    def ready(self) -> bool:
        """Whether the workers have started (a photo sent before waits for them)."""
        return self._pool is not None and self._ready >= self.workers

    def close(self) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None

    def reserve(self, address: str = "") -> None:
        """Takes a place in the queue for a photo from `address`, or raises Full (the queue's, or the address's
        share; this computer's own addresses have no share of their own)."""
        from paperplay.serve.live import loopback

        counted = bool(address) and not loopback(address)
        with self._lock:
            if self._count >= self.limit:
                raise Full("server")
            if counted and self._by_address.get(address, 0) >= self.per_address:
                raise Full("address")
            self._count += 1
            if counted:
                self._by_address[address] = self._by_address.get(address, 0) + 1

    def release(self, address: str = "") -> None:
        with self._lock:
            self._count -= 1
            left = self._by_address.get(address, 0) - 1
            if left > 0:
                self._by_address[address] = left
            else:
                self._by_address.pop(address, None)

    @property
    def waiting(self) -> int:
        return self._count

    async def read(self, path: str, drawn: Sequence[Tile] | None) -> dict[str, Any]:
        """Reads a photo in a worker (the caller has reserved its place)."""
        if self._pool is None:
            self.start()
        loop = asyncio.get_running_loop()
        done: asyncio.Future[dict[str, Any]] = loop.create_future()

        def settle(result: dict[str, Any] | None, exc: BaseException | None) -> None:
            if done.done():  # given up (READ_TIMEOUT) meanwhile
                return
            if exc is not None:
                done.set_exception(exc)
            else:
                done.set_result(result or {})

        def finished(result: dict[str, Any]) -> None:
            loop.call_soon_threadsafe(settle, result, None)

        def failed(exc: BaseException) -> None:
            loop.call_soon_threadsafe(settle, None, exc)

        self._pool.apply_async(read_in_worker, (path, list(drawn) if drawn is not None else None),
                               callback=finished, error_callback=failed)
        return await asyncio.wait_for(done, READ_TIMEOUT)
