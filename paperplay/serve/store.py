"""The game night's database: one SQLite file (WAL) holding the host's key, the games and the sheets.

Every change is committed (synchronous=FULL) before the server answers: a sheet acknowledged to a
phone is on disk, whatever happens to the server after. Changes that arrive together are committed
together (one disk sync for a burst of phones, see Store._change). A hand-in that carries an
idempotency key is stored once under it; a retry with the same key finds it and gets the same answer.
Only the standard library: the serve command imports the web parts, this module needs none of them.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from paperplay.serve.errors import Code, Conflict

SCHEMA_VERSION = 1
_T = TypeVar("_T")
MAX_GAMES = 1000
"""Games one database holds (a game night has a few; the bound keeps a stray script from filling the disk)."""
MAX_SHEETS = 200
"""Sheets a game holds: paperplay prints at most 200 sheets for a game."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    code TEXT PRIMARY KEY,
    seed TEXT NOT NULL,
    variant TEXT,
    lang TEXT NOT NULL,
    players INTEGER NOT NULL,
    turn INTEGER NOT NULL DEFAULT 0,
    revealed INTEGER NOT NULL DEFAULT 0,
    version INTEGER NOT NULL DEFAULT 1,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS sheets (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game TEXT NOT NULL REFERENCES games(code),
    name TEXT NOT NULL,
    name_key TEXT NOT NULL,
    token TEXT NOT NULL,
    idempotency TEXT,
    kind TEXT NOT NULL,
    printed TEXT,
    boxes TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    UNIQUE (game, name_key),
    UNIQUE (game, idempotency),
    UNIQUE (game, printed)
);
CREATE TABLE IF NOT EXISTS crops (
    sheet INTEGER NOT NULL REFERENCES sheets(id) ON DELETE CASCADE,
    box INTEGER NOT NULL,
    png BLOB NOT NULL,
    PRIMARY KEY (sheet, box)
);
"""


@dataclass(frozen=True)
class Game:
    code: str
    seed: str
    variant: str | None
    lang: str
    players: int
    turn: int
    revealed: bool
    version: int
    created: float


@dataclass(frozen=True)
class SheetRow:
    """A handed-in sheet. `boxes` holds one dict a box: value (a tile as a sheet file writes it),
    flagged, why, and for a photo its readings (free, free_p, matched, matched_p)."""

    id: int
    game: str
    name: str
    token: str
    idempotency: str | None
    kind: str
    printed: str | None
    boxes: list[dict[str, Any]]
    created: float
    updated: float

    @property
    def cells(self) -> list[Any]:
        return [box["value"] for box in self.boxes]


def name_key(name: str) -> str:
    """What two names must differ in to be two players: case and spacing do not count."""
    return " ".join(name.casefold().split())


class Store:
    """The database, used from any thread: one connection writes (group commits), each thread reads on its own."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()  # the writer's: held through a (group) commit
        self._queue_lock = threading.Lock()
        self._pending: list[_Pending] = []
        self._readers = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None, timeout=10)
        self._db.row_factory = sqlite3.Row
        mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise sqlite3.OperationalError(f"the database cannot use write-ahead logging (journal mode {mode})")
        self._db.execute("PRAGMA synchronous=FULL")  # committed means on disk: an acknowledged sheet is never lost
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(_SCHEMA)
        with self._write() as db:
            row = db.execute("SELECT value FROM meta WHERE name='schema'").fetchone()
            if row is None:
                db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            elif row[0] != str(SCHEMA_VERSION):
                raise sqlite3.DatabaseError(f"schema version {row[0]}; this paperplay reads version {SCHEMA_VERSION}")
            if db.execute("SELECT value FROM meta WHERE name='host_key'").fetchone() is None:
                db.execute("INSERT INTO meta VALUES ('host_key', ?)", (secrets.token_urlsafe(24),))

    def close(self) -> None:
        with self._lock:
            for reader in self._all:
                reader.close()
            self._db.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE … COMMIT), rolled back on any error."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _change(self, work: Callable[[sqlite3.Connection], _T]) -> _T:
        """Runs `work` in a write transaction and returns once it is committed (on disk).

        Group commit: the writes that arrive while a commit is under way wait for the lock; the first
        to get it runs every waiting one, each in a savepoint of its own (one that fails is undone
        alone), and commits them together, one disk sync for a burst of phones instead of one each.
        """
        mine = _Pending(work)
        with self._queue_lock:
            self._pending.append(mine)
        with self._lock:
            if not mine.done:
                with self._queue_lock:
                    batch, self._pending = self._pending, []
                self._run(batch)
        if mine.error is not None:
            raise mine.error
        return mine.result

    def _run(self, batch: list[_Pending]) -> None:
        db = self._db
        try:
            db.execute("BEGIN IMMEDIATE")
            for item in batch:
                db.execute("SAVEPOINT one")
                try:
                    item.result = item.work(db)
                    db.execute("RELEASE one")
                except Exception as exc:  # noqa: BLE001 - handed to the writer that asked
                    db.execute("ROLLBACK TO one")
                    db.execute("RELEASE one")
                    item.error = exc
            db.execute("COMMIT")
        except BaseException as exc:  # the commit itself failed (a full disk): none of them is stored
            if db.in_transaction:
                db.execute("ROLLBACK")
            for item in batch:
                item.error = item.error or (exc if isinstance(exc, Exception) else RuntimeError(str(exc)))
            if not isinstance(exc, Exception):
                raise
        finally:
            for item in batch:
                item.done = True

    def _read(self, sql: str, args: Sequence[Any] = ()) -> list[sqlite3.Row]:
        """A query on this thread's own connection: readers never wait for a writer's commit (WAL)."""
        reader = getattr(self._readers, "db", None)
        if reader is None:
            reader = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None, timeout=10)
            reader.row_factory = sqlite3.Row
            self._readers.db = reader
            with self._lock:
                self._all.append(reader)
        return reader.execute(sql, args).fetchall()

    # --- the host's key -------------------------------------------------------------------------

    def host_key(self) -> str:
        return str(self._read("SELECT value FROM meta WHERE name='host_key'")[0][0])

    # --- games ----------------------------------------------------------------------------------

    def create_game(self, code: str, seed: str, variant: str | None, lang: str, players: int) -> Game:
        def work(db: sqlite3.Connection) -> Game:
            if db.execute("SELECT 1 FROM games WHERE code=?", (code,)).fetchone() is not None:
                raise Conflict(f"seed: gives game code {code}, which this server has already; leave out the seed "
                               "for a new game, or open that game", Code.GAME_EXISTS)
            if db.execute("SELECT count(*) FROM games").fetchone()[0] >= MAX_GAMES:
                raise Conflict(f"players: this database holds {MAX_GAMES} games already; start the server with "
                               "another --db", Code.TOO_MANY_GAMES)
            db.execute("INSERT INTO games (code, seed, variant, lang, players, created) VALUES (?, ?, ?, ?, ?, ?)",
                       (code, seed, variant, lang, players, time.time()))
            return _game(db.execute("SELECT * FROM games WHERE code=?", (code,)).fetchone())

        return self._change(work)

    def game(self, code: str) -> Game | None:
        rows = self._read("SELECT * FROM games WHERE code=?", (code,))
        return _game(rows[0]) if rows else None

    def games(self) -> list[Game]:
        return [_game(row) for row in self._read("SELECT * FROM games ORDER BY created, code")]

    def call(self, code: str, total: int, expected: int | None = None) -> tuple[Game, bool]:
        """Calls the next turn; returns the game and whether a tile was called now. With `expected` (the
        turn the host means to call), a turn called already is answered again (a retried request), and
        one further ahead is refused."""
        def work(db: sqlite3.Connection) -> tuple[Game, bool]:
            game = _game(db.execute("SELECT * FROM games WHERE code=?", (code,)).fetchone())
            if expected is not None and expected <= game.turn:
                return game, False
            if game.revealed:
                raise Conflict("code: the game is revealed; no more tiles are called")
            if game.turn >= total:
                raise Conflict(f"turn: all {total} tiles are called; reveal the game to score it", Code.ALL_CALLED)
            if expected is not None and expected != game.turn + 1:
                raise Conflict(f"turn: is {expected}; the next turn to call is {game.turn + 1}", Code.WRONG_TURN)
            db.execute("UPDATE games SET turn=turn+1, version=version+1 WHERE code=?", (code,))
            return _game(db.execute("SELECT * FROM games WHERE code=?", (code,)).fetchone()), True

        return self._change(work)

    def reveal(self, code: str) -> Game:
        def work(db: sqlite3.Connection) -> Game:
            db.execute("UPDATE games SET revealed=1, version=version+1 WHERE code=? AND revealed=0", (code,))
            return _game(db.execute("SELECT * FROM games WHERE code=?", (code,)).fetchone())

        return self._change(work)

    # --- sheets ---------------------------------------------------------------------------------

    def by_idempotency(self, code: str, key: str) -> SheetRow | None:
        rows = self._read("SELECT * FROM sheets WHERE game=? AND idempotency=?", (code, key))
        return _sheet(rows[0]) if rows else None

    def add_sheet(self, code: str, name: str, kind: str, boxes: list[dict[str, Any]], printed: str | None = None,
                  idempotency: str | None = None, crops: Sequence[bytes] = ()) -> tuple[SheetRow, bool]:
        """Stores a handed-in sheet (and its boxes' images); returns it and whether it is new (False: a
        retry of the same idempotency key, answered with the sheet stored the first time)."""
        def work(db: sqlite3.Connection) -> tuple[SheetRow, bool]:
            if idempotency is not None:
                row = db.execute("SELECT * FROM sheets WHERE game=? AND idempotency=?", (code, idempotency)).fetchone()
                if row is not None:
                    return _sheet(row), False
            game = _game(db.execute("SELECT * FROM games WHERE code=?", (code,)).fetchone())
            if game.revealed:
                raise Conflict("code: the game is revealed; sheets can no longer be handed in")
            if printed is not None:
                other = db.execute("SELECT name FROM sheets WHERE game=? AND printed=?", (code, printed)).fetchone()
                if other is not None:
                    raise Conflict(f"photo: shows sheet {printed}, which {other[0]!r} has handed in already",
                                   Code.SHEET_USED)
            same = db.execute("SELECT id FROM sheets WHERE game=? AND name_key=?", (code, name_key(name))).fetchone()
            if same is not None:
                raise Conflict(f"name: {name!r} has handed in a sheet already; choose another name (or correct "
                               "that sheet)", Code.NAME_TAKEN)
            if db.execute("SELECT count(*) FROM sheets WHERE game=?", (code,)).fetchone()[0] >= MAX_SHEETS:
                raise Conflict(f"code: the game has {MAX_SHEETS} sheets; no more can be handed in", Code.GAME_FULL)
            now = time.time()
            cursor = db.execute(
                "INSERT INTO sheets (game, name, name_key, token, idempotency, kind, printed, boxes, created, updated) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (code, name, name_key(name), secrets.token_urlsafe(18), idempotency, kind, printed,
                 json.dumps(boxes), now, now))
            sheet_id = cursor.lastrowid
            db.executemany("INSERT INTO crops VALUES (?, ?, ?)",
                           [(sheet_id, box, png) for box, png in enumerate(crops, start=1)])
            db.execute("UPDATE games SET version=version+1 WHERE code=?", (code,))
            return _sheet(db.execute("SELECT * FROM sheets WHERE id=?", (sheet_id,)).fetchone()), True

        return self._change(work)

    def sheet(self, code: str, sheet_id: int) -> SheetRow | None:
        rows = self._read("SELECT * FROM sheets WHERE game=? AND id=?", (code, sheet_id))
        return _sheet(rows[0]) if rows else None

    def sheets(self, code: str) -> list[SheetRow]:
        return [_sheet(row) for row in self._read("SELECT * FROM sheets WHERE game=? ORDER BY id", (code,))]

    def update_boxes(self, code: str, sheet_id: int, boxes: list[dict[str, Any]], host: bool = False) -> SheetRow:
        def work(db: sqlite3.Connection) -> SheetRow:
            game = _game(db.execute("SELECT * FROM games WHERE code=?", (code,)).fetchone())
            if game.revealed and not host:
                raise Conflict("code: the game is revealed; only the host can still correct a sheet")
            db.execute("UPDATE sheets SET boxes=?, updated=? WHERE game=? AND id=?",
                       (json.dumps(boxes), time.time(), code, sheet_id))
            db.execute("UPDATE games SET version=version+1 WHERE code=?", (code,))
            return _sheet(db.execute("SELECT * FROM sheets WHERE id=?", (sheet_id,)).fetchone())

        return self._change(work)

    def delete_sheet(self, code: str, sheet_id: int) -> None:
        def work(db: sqlite3.Connection) -> None:
            db.execute("DELETE FROM crops WHERE sheet=?", (sheet_id,))
            db.execute("DELETE FROM sheets WHERE game=? AND id=?", (code, sheet_id))
            db.execute("UPDATE games SET version=version+1 WHERE code=?", (code,))

        self._change(work)

    def crop(self, sheet_id: int, box: int) -> bytes | None:
        rows = self._read("SELECT png FROM crops WHERE sheet=? AND box=?", (sheet_id, box))
        return bytes(rows[0][0]) if rows else None


class _Pending:
    """A write waiting for the next group commit."""

    __slots__ = ("work", "result", "error", "done")

    def __init__(self, work: Callable[[sqlite3.Connection], Any]) -> None:
        self.work = work
        self.result: Any = None
        self.error: Exception | None = None
        self.done = False


def _game(row: sqlite3.Row) -> Game:
    return Game(row["code"], row["seed"], row["variant"], row["lang"], row["players"], row["turn"],
                bool(row["revealed"]), row["version"], row["created"])


def _sheet(row: sqlite3.Row) -> SheetRow:
    return SheetRow(row["id"], row["game"], row["name"], row["token"], row["idempotency"], row["kind"],
                    row["printed"], json.loads(row["boxes"]), row["created"], row["updated"])
