"""The photo workers' part of the PostgreSQL store (paperplay.serve.store_pg.PgStore calls these inside its
own transactions): a photo's bytes kept with its sheet until it is read, the sheet's state ("reading",
"read"), and the refusals kept for their phones. paperplay.serve.queue says how a photo goes.

Tables (PgStore's migrations make them):

- `sheets.state`: "read" (every sheet but one whose photo waits), or "reading".
- `photos (sheet, named, photo, created)`: a "reading" sheet's photo (bytea, at most MAX_PHOTO bytes); deleted
  in the transaction that stores the reading or the refusal, and with its sheet (the host removes it).
- `refusals (id, game, token, idempotency, player, code, error, advice, overlay, created)`: a photo the workers
  refused, under its sheet's id and token, kept REFUSAL_KEPT seconds (paperplay.serve.store).
"""

from __future__ import annotations

import dataclasses

import json
import time
from typing import TYPE_CHECKING, Any

from paperplay.serve.errors import Code
from paperplay.serve.store import Refusal, name_key

if TYPE_CHECKING:
    from collections.abc import Callable

    from paperplay.serve.photos import PhotoRefused, PhotoTaken

MAX_PHOTO = 10 * 1024 * 1024
"""The largest photo kept (bytes): the server's upload limit (paperplay.serve.web.MAX_PHOTO)."""
BOXES = 20
"""A Streams sheet's boxes: a sheet being read has them all empty."""

SCHEMA = (
    "ALTER TABLE sheets ADD COLUMN IF NOT EXISTS state TEXT NOT NULL DEFAULT 'read'",
    f"""CREATE TABLE IF NOT EXISTS photos (
        sheet BIGINT PRIMARY KEY REFERENCES sheets(id) ON DELETE CASCADE,
        named BOOLEAN NOT NULL,
        photo BYTEA NOT NULL CHECK (octet_length(photo) <= {MAX_PHOTO}),
        created DOUBLE PRECISION NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS refusals (
        id BIGINT PRIMARY KEY,
        game TEXT NOT NULL REFERENCES games(code) ON DELETE CASCADE,
        token TEXT NOT NULL,
        idempotency TEXT,
        player BIGINT,
        code TEXT NOT NULL,
        error TEXT NOT NULL,
        advice JSONB,
        overlay BYTEA,
        created DOUBLE PRECISION NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS refusals_created ON refusals (created)",
    "CREATE INDEX IF NOT EXISTS refusals_idempotency ON refusals (game, idempotency)",
    "CREATE INDEX IF NOT EXISTS sheets_reading ON sheets (id) WHERE state = 'reading'",
)
"""The migration step that adds them (PostgreSQL; idempotent)."""


def empty_boxes() -> list[dict[str, Any]]:
    """A sheet's boxes while its photo is being read: all empty (so it is incomplete, never scored, meanwhile)."""
    from paperplay.handin import typed_boxes

    return typed_boxes([None] * BOXES)


def placeholder(token: str) -> str:
    """The name of a sheet handed in as a photo with neither a player nor a name, until its sheet number is
    read ("sheet 3/40"): unique, and no name a person types."""
    return f"\u2026 {token[:10]}"


def _cursor(connection: Any) -> Any:
    from psycopg.rows import dict_row

    return connection.cursor(row_factory=dict_row)


def keep_photo(connection: Any, sheet_id: int, photo: bytes, named: bool) -> None:
    """Keeps a "reading" sheet's photo and queues its reading, in the caller's transaction (the one that made
    the sheet)."""
    from paperplay.serve.queue import defer_read

    with _cursor(connection) as cursor:
        cursor.execute("INSERT INTO photos (sheet, named, photo, created) VALUES (%s, %s, %s, %s)",
                       (sheet_id, named, photo, time.time()))
    defer_read(connection, sheet_id)


def photo_job(connection: Any, sheet_id: int) -> tuple[str, bytes, str | None] | None:
    """A "reading" sheet's game code, photo and the name it was handed in under (None: to be named after its
    sheet number); None when the sheet is gone or read already."""
    with _cursor(connection) as cursor:
        cursor.execute("SELECT s.game, s.name, p.named, p.photo FROM sheets s JOIN photos p ON p.sheet = s.id "
                       "WHERE s.id = %s AND s.state = 'reading'", (sheet_id,))
        row = cursor.fetchone()
    if row is None:
        return None
    return str(row["game"]), bytes(row["photo"]), str(row["name"]) if row["named"] else None


def finish(connection: Any, sheet_id: int, taken: PhotoTaken | PhotoRefused,
           bump: Callable[[Any, str], None], notify: Callable[[Any, str], None]) -> str | None:
    """Stores what a sheet's photo gave, in the caller's transaction, with the sheet's row locked, and only while
    it is still "reading": "read" (its boxes and images stored), "refused" (the sheet deleted, its place free,
    the refusal kept for its phone), or None (the sheet is gone or stored already: nothing is written). Either
    way the photo's bytes are deleted. `bump(connection, code)` raises the game's version (and notifies its
    pages); `notify(connection, key)` wakes the phones waiting on the sheet."""
    from paperplay.serve.photos import PhotoRefused
    from paperplay.serve.web import sheet_key

    with _cursor(connection) as cursor:
        cursor.execute("SELECT id, game, name, token, idempotency, player, state FROM sheets WHERE id = %s FOR UPDATE",
                       (sheet_id,))
        sheet = cursor.fetchone()
        if sheet is None or sheet["state"] != "reading":
            return None
        code = str(sheet["game"])
        if not isinstance(taken, PhotoRefused):
            if sheet["name"] != placeholder(str(sheet["token"])):  # the name it was handed in under, or the host's
                taken = dataclasses.replace(taken, name=str(sheet["name"]))  # given while it was read: kept
            taken = _taken_or_refused(cursor, sheet, taken)
        if isinstance(taken, PhotoRefused):
            advice = None if taken.advice is None else json.dumps(list(taken.advice))
            cursor.execute("INSERT INTO refusals (id, game, token, idempotency, player, code, error, advice, overlay, "
                           "created) VALUES (%s, %s, %s, %s, %s, %s, %s, %s::jsonb, %s, %s) "
                           "ON CONFLICT (id) DO NOTHING",
                           (sheet_id, code, sheet["token"], sheet["idempotency"], sheet["player"], taken.code,
                            taken.error, advice, taken.overlay, time.time()))
            cursor.execute("DELETE FROM sheets WHERE id = %s", (sheet_id,))  # its photo and crops go with it
            outcome = "refused"
        else:
            cursor.execute("UPDATE sheets SET state = 'read', name = %s, name_key = %s, printed = %s, boxes = %s, "
                           "updated = %s WHERE id = %s",
                           (taken.name, name_key(taken.name), taken.printed, json.dumps(taken.boxes), time.time(),
                            sheet_id))
            cursor.executemany("INSERT INTO crops (sheet, box, png) VALUES (%s, %s, %s)",
                               [(sheet_id, box, png) for box, png in enumerate(taken.crops, start=1)])
            cursor.execute("DELETE FROM photos WHERE sheet = %s", (sheet_id,))
            outcome = "read"
    bump(connection, code)
    notify(connection, sheet_key(code, sheet_id))
    return outcome


def _taken_or_refused(cursor: Any, sheet: dict[str, Any], taken: PhotoTaken) -> PhotoTaken | PhotoRefused:
    """The checks a hand-in's sheet number and name meet when they are known only once the photo is read: the
    printed sheet not handed in already (`sheet_used`), a name taken from the sheet number free (`name_taken`)."""
    from paperplay.serve.photos import PhotoRefused

    if taken.printed is not None:
        cursor.execute("SELECT name FROM sheets WHERE game = %s AND printed = %s AND id <> %s",
                       (sheet["game"], taken.printed, sheet["id"]))
        other = cursor.fetchone()
        if other is not None:
            return PhotoRefused(Code.SHEET_USED, f"photo: shows sheet {taken.printed}, which {other['name']!r} has "
                                                 "handed in already")
    if taken.name != sheet["name"]:
        wanted = name_key(taken.name)
        for table, own in (("players", None), ("sheets", sheet["id"])):  # each a lookup in its (game, name_key) index
            cursor.execute(f"SELECT id, name FROM {table} WHERE game = %s AND name_key = %s", (sheet["game"], wanted))
            for row in cursor.fetchall():
                if row["id"] != own:
                    return PhotoRefused(Code.NAME_TAKEN, f"name: {taken.name!r} is taken in this game; hand the "
                                                         "photo in with a name")
    return taken


def refusal(connection: Any, code: str, sheet_id: int | None = None, idempotency: str | None = None) -> Refusal | None:
    """A refused photo's record by its sheet's id or its hand-in's Idempotency-Key, while it is kept."""
    with _cursor(connection) as cursor:
        if sheet_id is not None:
            cursor.execute("SELECT * FROM refusals WHERE game = %s AND id = %s", (code, sheet_id))
        else:
            cursor.execute("SELECT * FROM refusals WHERE game = %s AND idempotency = %s", (code, idempotency))
        row = cursor.fetchone()
    if row is None:
        return None
    advice = row["advice"]
    if isinstance(advice, str):
        advice = json.loads(advice)
    return Refusal(int(row["id"]), str(row["game"]), str(row["token"]), row["idempotency"], row["player"],
                   str(row["code"]), str(row["error"]), None if advice is None else (str(advice[0]), dict(advice[1])),
                   None if row["overlay"] is None else bytes(row["overlay"]), float(row["created"]))


def requeue(connection: Any, older: float, most: int = 100) -> list[int]:
    """Queues again the "reading" sheets older than `older` seconds with no job waiting or running (their job
    failed every try); their ids."""
    from procrastinate.exceptions import AlreadyEnqueued

    from paperplay.serve.queue import QUEUE, TASK, defer_read

    with _cursor(connection) as cursor:
        cursor.execute("SELECT s.id FROM sheets s WHERE s.state = 'reading' AND s.created < %s AND NOT EXISTS "
                       "(SELECT 1 FROM procrastinate_jobs j WHERE j.queue_name = %s AND j.task_name = %s "
                       "AND j.status IN ('todo', 'doing') AND j.args ->> 'sheet_id' = s.id::text) "
                       "ORDER BY s.id LIMIT %s", (time.time() - older, QUEUE, TASK, most))
        ids = [int(row["id"]) for row in cursor.fetchall()]
    queued = []
    for sheet_id in ids:
        try:
            with connection.transaction():  # a savepoint: one already queued meanwhile leaves the others
                defer_read(connection, sheet_id)
            queued.append(sheet_id)
        except AlreadyEnqueued:
            continue
    return queued


def forget_refusals(connection: Any, kept: float) -> int:
    """Deletes the refusals older than `kept` seconds; how many."""
    with _cursor(connection) as cursor:
        cursor.execute("DELETE FROM refusals WHERE created < %s", (time.time() - kept,))
        return int(cursor.rowcount or 0)
