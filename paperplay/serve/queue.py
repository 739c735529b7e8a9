"""Photo workers: the photos handed in to a PostgreSQL game are read by `paperplay worker` processes, on any
machine that reaches the database (docs/guides/deploy.md, "Photo workers").

A photo's way (every step in the database, so any server and any worker may take the next one):

1. **Handed in.** The server commits, in ONE transaction (PgStore.add_photo): the sheet (state "reading", its id
   and token made at once; it counts toward the game's players and the player's one hand-in from then on),
   the photo's bytes (table `photos`) and the job `read_photo(sheet_id)` (procrastinate's table
   `procrastinate_jobs`, deferred on the same connection: `defer_read`). The phone is answered 202.
2. **Read.** A worker takes the job, loads the photo and its game (PgStore.photo_job: nothing when the sheet is
   gone or read already), reads it in a niced process with OpenCV on one thread (paperplay.serve.photos, as
   the laptop's server does), judges it (paperplay.serve.photos.judge: the one path from a reading to a
   sheet or a refusal) and stores the outcome (PgStore.finish_photo): in one transaction with the sheet's row
   locked, and only while the sheet is still "reading". Read: the boxes are stored, the photo's bytes deleted,
   the game's version bumped (NOTIFY: every server wakes its phones). Refused: the sheet is deleted (its place
   is free again) with its photo, and a refusal record (REFUSAL_KEPT) tells the phone why.
3. **Recovered.** Photos are read at least once and stored once. A worker that dies mid-photo (kill -9, a lost
   machine) stops sending heartbeats (HEARTBEAT); once it has been silent for STALLED seconds, any other
   worker's housekeeping (every SWEEP seconds) hands its job back to the queue (procrastinate's stalled-job
   recovery: JobManager.get_stalled_jobs, retry_job) and the photo is read again; the second reading finds
   the sheet still "reading" and stores it (a first reading that did finish after all finds it "read" and
   stores nothing). A job that fails on a database error is tried again (RETRY). A "reading" sheet with no
   job waiting or running (its job failed every try) is queued again by the housekeeping (REQUEUE_AFTER).

procrastinate (https://procrastinate.readthedocs.io) is the queue: well kept, PostgreSQL only (no broker to
run: the game database is the queue), jobs deferred inside the caller's transaction, workers with heartbeats.
Imported only for a postgresql:// database (the serve-pg extra).
"""

from __future__ import annotations

import asyncio
import logging
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import procrastinate

if TYPE_CHECKING:
    from paperplay.serve.photos import PhotoReader, PhotoRefused, PhotoTaken
    from paperplay.serve.store import Game
    from paperplay.streams.rules import Tile

TASK = "read_photo"
"""The job's task name (procrastinate_jobs.task_name); its one argument is `sheet_id`."""
QUEUE = "paperplay_photos"
"""The procrastinate queue the photo jobs wait in."""
HEARTBEAT = 5.0
"""Seconds between a worker's heartbeats (procrastinate_workers.last_heartbeat)."""
STALLED = 20.0
"""Seconds without a heartbeat after which a worker counts as dead and its photo is read again elsewhere."""
SWEEP = 5.0
"""Seconds between a worker's housekeeping rounds (stalled jobs, photos without a job, old refusals)."""
REQUEUE_AFTER = 60.0
"""Seconds a "reading" sheet may be without a job waiting or running before the housekeeping queues it again."""
RETRY = procrastinate.RetryStrategy(max_attempts=5, linear_wait=2)
"""A job that fails (the database went away mid-photo) is tried again: 5 times, 2, 4, 6, 8 s apart."""
SCHEMA_LOCK = 0x7061_7065_7271
"""The advisory lock under which procrastinate's tables are made (servers and workers starting together)."""

logger = logging.getLogger("paperplay.worker")


# --- the queue ----------------------------------------------------------------------------------------

async def _read_photo(context: procrastinate.JobContext, sheet_id: int) -> str:
    """The job: read sheet `sheet_id`'s photo and store what it gives (the worker's Photos does it)."""
    photos: Photos = context.additional_context["paperplay"]
    return await photos.read(sheet_id)


def make_app(url: str | None = None, connections: int = 4) -> procrastinate.App:
    """procrastinate's App over the game database at `url` (its pool opened by the worker); without one, an App
    that only defers jobs on a connection it is given (the server's: `defer_read`)."""
    pool: dict[str, Any] = {"conninfo": url, "min_size": 1, "max_size": connections} if url else {}
    app = procrastinate.App(connector=procrastinate.PsycopgConnector(**pool))
    app.task(name=TASK, queue=QUEUE, pass_context=True, retry=RETRY)(_read_photo)
    return app


@cache
def _deferring() -> procrastinate.App:
    return make_app()


def defer_read(connection: Any, sheet_id: int) -> int:
    """Queues the reading of sheet `sheet_id`'s photo on `connection` (a psycopg connection inside the
    transaction that stores the sheet: committed together, or not at all); the job's id. A job already waiting
    for that sheet is not queued twice (procrastinate's queueing lock: procrastinate.exceptions.AlreadyEnqueued)."""
    task = _deferring().tasks[TASK]
    return int(task.configure(connection=connection, queueing_lock=f"photo-{sheet_id}").defer(sheet_id=sheet_id))


def ensure_schema(connection: Any) -> bool:
    """Makes procrastinate's tables in the database unless they are there (whether it made them): under an
    advisory lock, so that servers and workers starting together make them once. `connection`: psycopg's, not
    in a transaction."""
    from procrastinate.schema import SchemaManager
    from psycopg.rows import tuple_row

    with connection.transaction(), connection.cursor(row_factory=tuple_row) as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
        cursor.execute("SELECT to_regclass('procrastinate_jobs') IS NOT NULL")
        row = cursor.fetchone()
        if row is not None and row[0]:
            return False
        cursor.execute(SchemaManager.get_schema())  # no parameters: its % signs are its own
    return True


# --- the worker ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PhotoJob:
    """What a worker needs to read a sheet's photo: the sheet, its game, the photo's bytes, and the name it was
    handed in under (the player's, or the one given; None: named after its printed sheet number)."""

    sheet_id: int
    game: Game
    photo: bytes = field(repr=False)
    name: str | None


@dataclass
class Tally:
    """What a worker has done since it started."""

    read: int = 0
    refused: int = 0
    skipped: int = 0
    """Jobs that found nothing to do: the sheet removed by the host, or read already (a job run twice)."""
    retried: int = 0
    """Stalled jobs (of a worker that died) handed back to the queue by this worker's housekeeping."""
    started: float = field(default_factory=time.monotonic)

    @property
    def per_second(self) -> float:
        seconds = time.monotonic() - self.started
        return (self.read + self.refused) / seconds if seconds > 0 else 0.0

    def line(self) -> str:
        """The progress line `paperplay worker` prints."""
        from paperplay.messages import counted

        more = f", {self.retried} taken over from stopped workers" if self.retried else ""
        return (f"{counted(self.read, 'photo', 'photos')} read, {self.refused} refused, {self.skipped} with "
                f"nothing to do{more} ({self.per_second:.2f} a second)")


Reader = Callable[[bytes, "Sequence[Tile] | None"], Awaitable[dict[str, Any]]]
"""Reads a photo's bytes matched to the draw (paperplay.serve.photos.read_in_worker's answer)."""


class Photos:
    """The photo jobs of one worker process: a store (PgStore) to load and store with, a reader."""

    def __init__(self, store: Any, reader: Reader) -> None:
        self.store = store
        self.reader = reader
        self.tally = Tally()
        self.changed: Callable[[], None] = lambda: None
        """Called after each photo (the worker's progress lines)."""

    async def read(self, sheet_id: int) -> str:
        """Reads sheet `sheet_id`'s photo and stores the outcome: "read", "refused", or "nothing" (the sheet is
        gone or read already: a job run twice stores nothing twice)."""
        from paperplay.serve import checks
        from paperplay.serve.photos import PhotoRefused, judge

        job: PhotoJob | None = await asyncio.to_thread(self.store.photo_job, sheet_id)
        if job is None:
            outcome = "nothing"
        else:
            try:
                answer = await self.reader(job.photo, checks.called_tiles(job.game))
                taken: PhotoTaken | PhotoRefused = judge(answer, job.game.seed, job.name)
            except Exception as exc:  # noqa: BLE001 - a photo that breaks the reader: refused, said in one line
                logger.error("paperplay worker: sheet %s: the photo reader failed: %s: %s", sheet_id,
                             type(exc).__name__, exc)
                taken = PhotoRefused("bad_photo", f"photo: could not be read (the reader failed: "
                                                  f"{type(exc).__name__})")
            stored = await asyncio.to_thread(self.store.finish_photo, sheet_id, taken)
            outcome = "nothing" if stored is None else stored
        if outcome == "read":
            self.tally.read += 1
        elif outcome == "refused":
            self.tally.refused += 1
        else:
            self.tally.skipped += 1
        self.changed()
        return outcome


async def housekeeping(app: procrastinate.App, store: Any, tally: Tally | None = None,
                       stalled: float = STALLED) -> int:
    """One round of a worker's housekeeping: the photos of workers silent for `stalled` seconds go back to the
    queue (procrastinate's stalled-job recovery), "reading" sheets without a job are queued again, refusals
    older than REFUSAL_KEPT are deleted. Returns the stalled jobs handed back."""
    from paperplay.serve.store import REFUSAL_KEPT

    handed_back = 0
    for job in await app.job_manager.get_stalled_jobs(seconds_since_heartbeat=stalled, queue=QUEUE,
                                                      task_name=TASK):
        try:
            await app.job_manager.retry_job(job)
            handed_back += 1
        except Exception:  # noqa: BLE001 - another worker handed it back first
            continue
    await asyncio.to_thread(store.requeue_photos, REQUEUE_AFTER)
    await asyncio.to_thread(store.forget_refusals, REFUSAL_KEPT)
    if tally is not None:
        tally.retried += handed_back
    return handed_back


def process_reader(workers: int) -> tuple[Reader, PhotoReader]:
    """Reads photos in `workers` spawned, niced processes with OpenCV on one thread each (as `paperplay serve`
    reads them), through a folder of temporary files; the PhotoReader to close at the end."""
    from paperplay.serve.photos import PhotoReader

    pool = PhotoReader(workers, limit=workers, quiet=True)
    folder = tempfile.mkdtemp(prefix="paperplay-worker-")

    async def read(photo: bytes, drawn: Sequence[Tile] | None) -> dict[str, Any]:
        handle, path = tempfile.mkstemp(suffix=".photo", dir=folder)
        try:
            with open(handle, "wb") as out:
                out.write(photo)
            return await pool.read(path, drawn)
        finally:
            Path(path).unlink(missing_ok=True)

    return read, pool


def thread_reader() -> Reader:
    """Reads photos on a thread of this process (the tests: no process to start)."""
    from paperplay.serve.photos import read_bytes

    async def read(photo: bytes, drawn: Sequence[Tile] | None) -> dict[str, Any]:
        return await asyncio.to_thread(read_bytes, photo, drawn)

    return read


async def work(app: procrastinate.App, photos: Photos, concurrency: int = 1, wait: bool = True,
               signals: bool = True, progress: Callable[[Tally], None] | None = None,
               every: float = 5.0) -> Tally:
    """Runs a photo worker on an open App until it is stopped (Ctrl-C or SIGTERM: the photo being read is
    finished first; a second Ctrl-C leaves it to be read again elsewhere), or with `wait` False until the
    queue is empty. `progress` is told the tally at most every `every` seconds while photos are read."""
    last = [0.0, -1]

    def changed() -> None:
        done = photos.tally.read + photos.tally.refused + photos.tally.skipped
        if progress is not None and done != last[1] and time.monotonic() - last[0] >= every:
            last[0], last[1] = time.monotonic(), done
            progress(photos.tally)

    photos.changed = changed

    async def keep_house() -> None:
        while True:
            try:
                await housekeeping(app, photos.store, photos.tally)
            except Exception as exc:  # noqa: BLE001 - the database away for a moment: the next round tries again
                logger.warning("paperplay worker: housekeeping: %s: %s", type(exc).__name__, exc)
            await asyncio.sleep(SWEEP)

    keeper = asyncio.create_task(keep_house()) if wait else None
    try:
        await app.run_worker_async(queues=[QUEUE], concurrency=concurrency, wait=wait, name="paperplay-worker",
                                   install_signal_handlers=signals, delete_jobs="successful",
                                   update_heartbeat_interval=HEARTBEAT, stalled_worker_timeout=STALLED,
                                   additional_context={"paperplay": photos}, listen_notify=True,
                                   fetch_job_polling_interval=2.0)
    finally:
        if keeper is not None:
            keeper.cancel()
    if progress is not None:
        progress(photos.tally)
    return photos.tally


def run_worker(url: str, concurrency: int = 1, progress: Callable[[Tally], None] | None = None,
               started: Callable[[], None] | None = None) -> Tally:
    """`paperplay worker`: reads the photos queued in the PostgreSQL database at `url` with `concurrency`
    processes until stopped; the tally. `started` is called once the queue is ready."""
    import importlib

    store: Any = importlib.import_module("paperplay.serve.store").open_store(url)  # PgStore
    read, pool = process_reader(concurrency)
    try:
        pool.start()
        app = make_app(url, connections=concurrency + 3)

        async def main() -> Tally:
            async with app.open_async():
                if started is not None:
                    started()
                return await work(app, Photos(store, read), concurrency, progress=progress)

        return asyncio.run(main())
    finally:
        pool.close()
        store.close()
