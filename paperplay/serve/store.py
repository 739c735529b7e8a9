"""The game night's database: the Store interface every route uses, and its SQLite implementation (SqliteStore:
one file, WAL, the laptop evening). PostgreSQL's (PgStore, several server processes) is in
paperplay.serve.store_pg, imported only for a postgresql:// database (open_store picks).

SqliteStore: one SQLite file (WAL) holding the host's key, the games and the sheets.

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
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

from paperplay.serve.errors import Code, Conflict

if TYPE_CHECKING:
    from paperplay.serve.ranking import Ranked

SCHEMA_VERSION = 5
"""The database's version (kept in meta's 'schema' row and in PRAGMA user_version): an older database is
migrated in place when it is opened (MIGRATIONS), a newer one is refused."""
_T = TypeVar("_T")
MAX_GAMES = 1000
"""Games one database holds (a game night has a few; the bound keeps a stray script from filling the disk)."""
MAX_SHEETS = 200
"""Sheets a game holds: paperplay prints at most 200 sheets for a game."""
MAX_PLAYERS_PG = 100_000
"""Players (and sheets) a game on PostgreSQL holds (PgStore.max_players)."""

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

MIGRATIONS: dict[int, tuple[str, ...]] = {
    2: (  # players join by name first; the host locks a game; the projector's view token; the key's date
        "ALTER TABLE games ADD COLUMN locked INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE games ADD COLUMN view TEXT",
        "ALTER TABLE sheets ADD COLUMN player INTEGER",
        """CREATE TABLE IF NOT EXISTS players (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            game TEXT NOT NULL REFERENCES games(code),
            name TEXT NOT NULL,
            name_key TEXT NOT NULL,
            token TEXT NOT NULL,
            joined REAL NOT NULL,
            UNIQUE (game, name_key)
        )""",
    ),
    3: (  # a join retried after a lost answer finds the player it made
        "ALTER TABLE players ADD COLUMN idempotency TEXT",
        "CREATE UNIQUE INDEX IF NOT EXISTS players_idempotency ON players (game, idempotency)",
    ),
    4: (  # the host hides a name from the projector and the other phones
        "ALTER TABLE players ADD COLUMN hidden INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE sheets ADD COLUMN hidden INTEGER NOT NULL DEFAULT 0",
    ),
    5: (  # a sheet's standing kept as it is stored (paperplay.serve.ranking); a player's number for their own sheet
        "ALTER TABLE sheets ADD COLUMN total INTEGER",
        "ALTER TABLE sheets ADD COLUMN ranked INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE sheets ADD COLUMN flagged INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE sheets ADD COLUMN empty INTEGER NOT NULL DEFAULT 0",
        "CREATE INDEX IF NOT EXISTS sheets_ranking ON sheets (game, ranked, total DESC, id)",
        "ALTER TABLE players ADD COLUMN number INTEGER",
        "UPDATE players SET number=(SELECT count(*) FROM players AS p WHERE p.game=players.game AND p.id<=players.id)",
        "CREATE UNIQUE INDEX IF NOT EXISTS players_number ON players (game, number)",
        "ALTER TABLE games ADD COLUMN numbered INTEGER NOT NULL DEFAULT 0",
        "UPDATE games SET numbered=(SELECT count(*) FROM players WHERE players.game=games.code)",
    ),
}
"""The changes from each version to the next (version 1: the schema above)."""


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
    locked: bool = False
    view: str = ""
    """The projector's view token: lets a page follow the game, nothing more."""


@dataclass(frozen=True)
class Player:
    """A player who joined a game by name (the phone keeps the token)."""

    id: int
    game: str
    name: str
    token: str
    joined: float
    hidden: bool = False
    """The host hid the name from the projector and the other phones (Store.hide)."""
    number: int = 0
    """The player's number in the game (1 for the first to join; never given twice in a game): their own sheet's
    number is paperplay.serve.ranking.OWN_SHEETS above it."""


@dataclass(frozen=True)
class Counts:
    """A game's counts, as a big game's state shows them (each one indexed query)."""

    joined: int
    """Players who joined."""
    handed_in: int
    """Sheets handed in (by players who joined, and by name alone)."""
    to_check: int
    """Sheets with boxes to check (an empty box counts)."""
    incomplete: int
    """Sheets with empty boxes."""
    unsettled: int
    """Sheets with boxes to check besides their empty ones."""
    ranked: int
    """Sheets in the ranking (complete and valid)."""


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
    player: int | None = None
    """The id of the player who joined and handed it in (None: handed in by name alone)."""
    hidden: bool = False
    """The host hid the name from the projector and the other phones (Store.hide)."""
    state: str = "read"
    """"read", or "reading": a photo handed in to a PostgreSQL game waits for a photo worker (its boxes are
    empty until then; paperplay.serve.queue)."""
    total: int | None = None
    """Its total as the ranking keeps it (paperplay.serve.ranking), when it is ranked; else None."""

    @property
    def cells(self) -> list[Any]:
        return [box["value"] for box in self.boxes]


@dataclass(frozen=True)
class Refusal:
    """A photo the photo workers could not take (PostgreSQL games only): what its phone is told, kept
    REFUSAL_KEPT seconds under the id and token its hand-in was answered with. The sheet itself is gone: its
    place in the game is free again."""

    id: int
    game: str
    token: str
    idempotency: str | None
    player: int | None
    code: str
    error: str
    advice: tuple[str, dict[str, Any]] | None
    """The photo reader's advice for a retake: its code and values (worded in the game's language when shown)."""
    overlay: bytes | None
    """The photo with what the reader found drawn on it (PNG), when the reader refused it."""
    created: float


REFUSAL_KEPT = 3600.0
"""Seconds a refused photo's record is kept for its phone (then the photo workers delete it: the phone's
question is answered 404, and it offers the hand-in again)."""


class DatabaseRefused(Exception):
    """A database this paperplay cannot use as it is (PgStore: a schema newer than it knows); one line."""


class StoreUnavailable(Exception):
    """The database cannot be reached now (PgStore: the server is down, the network away, every connection of
    the pool busy): nothing was stored; one line (the server answers 503 with Retry-After)."""


def name_key(name: str) -> str:
    """What two names must differ in to be two players (paperplay.serve.names.key)."""
    from paperplay.serve.names import key

    return key(name)


class Store(Protocol):
    """What the server keeps its games in: SqliteStore (one file, one process) or PgStore (PostgreSQL, any number
    of server processes). Every write is committed before it returns; a refused one raises Conflict (its Code)
    and changes nothing. Both implement every method alike (tests/test_serve_store.py runs against both).
    Helpers adding a method add it here and to both implementations."""

    kind: Literal["sqlite", "postgresql"]
    """Which database: "sqlite" or "postgresql"."""
    max_players: int
    """The most players (and sheets) a game may take: 200 on SQLite, 100,000 on PostgreSQL."""
    migrated_from: int
    """The schema version the database had when opened (the current one: no migration was needed)."""

    def close(self) -> None: ...

    def listen(self, callback: Callable[[str], None]) -> None:
        """Calls `callback(key)` (a game's code, or paperplay.serve.web.sheet_key) for every change committed by
        ANY process, from a thread of its own (PgStore: LISTEN/NOTIFY); SqliteStore's does nothing (one process:
        the routes notify their own pages)."""
        ...

    # the host's key
    def host_key(self) -> str: ...
    def host_key_made(self) -> float: ...
    def new_host_key(self) -> str: ...

    # games
    def create_game(self, code: str, seed: str, variant: str | None, lang: str, players: int) -> Game: ...
    def game(self, code: str) -> Game | None: ...
    def games(self) -> list[Game]: ...
    def call(self, code: str, total: int, expected: int | None = None) -> tuple[Game, bool]: ...
    def reveal(self, code: str) -> Game: ...
    def update_game(self, code: str, players: int | None = None, locked: bool | None = None) -> Game: ...

    # players
    def join(self, code: str, name: str, idempotency: str | None = None) -> tuple[Player, bool]: ...
    def players(self, code: str) -> list[Player]: ...
    def player(self, code: str, player_id: int) -> Player | None: ...
    def player_by_token(self, code: str, token: str) -> Player | None: ...
    def delete_player(self, code: str, player_id: int) -> bool: ...
    def hide(self, code: str, hidden: bool, player_id: int | None = None, sheet_id: int | None = None) -> bool: ...

    # sheets
    def by_idempotency(self, code: str, key: str) -> SheetRow | None: ...
    def add_sheet(self, code: str, name: str, kind: str, boxes: list[dict[str, Any]], printed: str | None = None,
                  idempotency: str | None = None, crops: Sequence[bytes] = (), player: Player | None = None,
                  turns: int = 0) -> tuple[SheetRow, bool]: ...
    def rename_sheet(self, code: str, sheet_id: int, name: str) -> SheetRow: ...
    def sheet(self, code: str, sheet_id: int) -> SheetRow | None: ...
    def sheets(self, code: str) -> list[SheetRow]: ...
    def update_boxes(self, code: str, sheet_id: int,
                     change: Callable[[list[dict[str, Any]]], list[dict[str, Any]]],
                     host: bool = False) -> SheetRow: ...
    def delete_sheet(self, code: str, sheet_id: int) -> None: ...
    def crop(self, sheet_id: int, box: int) -> bytes | None: ...

    # big games: counts, pages, the ranking kept as sheets arrive (paperplay.serve.ranking)
    def counts(self, code: str) -> Counts: ...
    def players_page(self, code: str, offset: int, limit: int) -> list[tuple[Player, int | None, int]]: ...
    def sheets_page(self, code: str, offset: int, limit: int) -> list[SheetRow]: ...
    def ranking(self, code: str, offset: int, limit: int) -> list[Ranked]: ...
    def place(self, code: str, sheet_id: int) -> tuple[int, int] | None: ...
    def standings(self, code: str) -> list[tuple[int, int]]: ...
    def recent(self, code: str, limit: int) -> list[tuple[int, float]]: ...


def is_database_url(db: str | Path) -> bool:
    """Whether --db names a PostgreSQL database (postgresql://… or postgres://…) rather than a SQLite file."""
    return isinstance(db, str) and db.strip().lower().startswith(("postgresql://", "postgres://"))


def open_store(db: str | Path, pool: int | None = None) -> Store:
    """The store --db names: a postgresql:// (or postgres://) URL opens PgStore (psycopg imported only then) with
    a pool of `pool` connections at most (None: PgStore's default), anything else is a SQLite file (SqliteStore)."""
    if is_database_url(db):
        from paperplay.serve.store_pg import PgStore

        return PgStore(str(db).strip(), pool)
    return SqliteStore(db)


class SqliteStore:
    """The database, used from any thread: one connection writes (group commits), each thread reads on its own."""

    kind: Literal["sqlite", "postgresql"] = "sqlite"
    max_players = MAX_SHEETS
    """The most players a game may take (create and PATCH check it)."""

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
                db.execute("INSERT INTO meta VALUES ('schema', '1')")
            version = int(row[0]) if row is not None and str(row[0]).isdigit() else (1 if row is None else -1)
            if not 1 <= version <= SCHEMA_VERSION:
                raise sqlite3.DatabaseError(f"schema version {row[0] if row else '?'}; this paperplay reads versions "
                                            f"1-{SCHEMA_VERSION}")
            self.migrated_from = version
            """The version the database had when opened (SCHEMA_VERSION: none was needed)."""
            for step in range(version + 1, SCHEMA_VERSION + 1):
                for sql in MIGRATIONS[step]:
                    db.execute(sql)
                db.execute("UPDATE meta SET value=? WHERE name='schema'", (str(step),))
            if version < 5:  # the sheets stored before their standing was kept
                for (sheet_id,) in db.execute("SELECT id FROM sheets").fetchall():
                    _rescore(db, sheet_id)
            for (code,) in db.execute("SELECT code FROM games WHERE view IS NULL").fetchall():
                db.execute("UPDATE games SET view=? WHERE code=?", (secrets.token_urlsafe(18), code))
            db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            if db.execute("SELECT value FROM meta WHERE name='host_key'").fetchone() is None:
                self._new_key(db)
            if db.execute("SELECT value FROM meta WHERE name='host_key_made'").fetchone() is None:
                db.execute("INSERT INTO meta VALUES ('host_key_made', ?)", (str(time.time()),))

    def listen(self, callback: Callable[[str], None]) -> None:
        """Nothing to listen to: one process writes this file, and its routes notify their own pages."""

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

    def host_key_made(self) -> float:
        """When the host's key was made (seconds since 1970; a database from before knows only when it was
        first opened by this version)."""
        return float(self._read("SELECT value FROM meta WHERE name='host_key_made'")[0][0])

    @staticmethod
    def _new_key(db: sqlite3.Connection) -> str:
        key = secrets.token_urlsafe(24)
        db.execute("INSERT OR REPLACE INTO meta VALUES ('host_key', ?)", (key,))
        db.execute("INSERT OR REPLACE INTO meta VALUES ('host_key_made', ?)", (str(time.time()),))
        return key

    def new_host_key(self) -> str:
        """Makes a new host key and retires the old one (its links get 401 from now on)."""
        return self._change(self._new_key)

    # --- games ----------------------------------------------------------------------------------

    def create_game(self, code: str, seed: str, variant: str | None, lang: str, players: int) -> Game:
        def work(db: sqlite3.Connection) -> Game:
            if db.execute("SELECT 1 FROM games WHERE code=?", (code,)).fetchone() is not None:
                raise Conflict(f"seed: gives game code {code}, which this server has already; leave out the seed "
                               "for a new game, or open that game", Code.GAME_EXISTS)
            if db.execute("SELECT count(*) FROM games").fetchone()[0] >= MAX_GAMES:
                raise Conflict(f"players: this database holds {MAX_GAMES} games already; start the server with "
                               "another --db", Code.TOO_MANY_GAMES)
            db.execute("INSERT INTO games (code, seed, variant, lang, players, created, view) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (code, seed, variant, lang, players, time.time(), secrets.token_urlsafe(18)))
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
                  idempotency: str | None = None, crops: Sequence[bytes] = (), player: Player | None = None,
                  turns: int = 0) -> tuple[SheetRow, bool]:
        """Stores a handed-in sheet (and its boxes' images); returns it and whether it is new (False: a
        retry of the same idempotency key, answered with the sheet stored the first time). Refused (a
        Conflict with its code) before the last tile (`turns` tiles), after the reveal, while locked, past
        the game's number of players, for a printed sheet or a name already handed in, and for a player
        who has handed in already."""
        def work(db: sqlite3.Connection) -> tuple[SheetRow, bool]:
            if idempotency is not None:
                row = db.execute("SELECT * FROM sheets WHERE game=? AND idempotency=?", (code, idempotency)).fetchone()
                if row is not None:
                    return _sheet(row), False
            game = _game(db.execute("SELECT * FROM games WHERE code=?", (code,)).fetchone())
            _open_for_players(game, "sheets can no longer be handed in")
            if game.turn < turns:
                raise Conflict(f"code: hand-ins open after the last tile; {game.turn} of {turns} tiles are called",
                               Code.TOO_EARLY)
            if printed is not None:
                other = db.execute("SELECT name FROM sheets WHERE game=? AND printed=?", (code, printed)).fetchone()
                if other is not None:
                    raise Conflict(f"photo: shows sheet {printed}, which {other[0]!r} has handed in already",
                                   Code.SHEET_USED)
            if player is not None:
                if db.execute("SELECT 1 FROM players WHERE id=? AND game=?", (player.id, code)).fetchone() is None:
                    raise Conflict(f"token: {player.name!r} is no longer a player of this game (the host removed "
                                   "them); join again", Code.NOT_YOURS)
                mine = db.execute("SELECT id FROM sheets WHERE game=? AND player=?", (code, player.id)).fetchone()
                if mine is not None:
                    raise Conflict(f"token: {player.name!r} has handed in sheet {mine[0]} already; correct that "
                                   "sheet instead", Code.HANDED_IN)
            else:
                _check_name_free(db, code, name)
            count = db.execute("SELECT count(*) FROM sheets WHERE game=?", (code,)).fetchone()[0]
            waiting = _waiting(db, code)
            if count + waiting - (player is not None) >= min(game.players, self.max_players):
                raise Conflict(f"code: the game takes {game.players} sheets and has them all; the host can raise the "
                               "number of players", Code.GAME_FULL)
            now = time.time()
            cursor = db.execute(
                "INSERT INTO sheets (game, name, name_key, token, idempotency, kind, printed, boxes, created, updated, "
                "player) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (code, name, name_key(name), player.token if player else secrets.token_urlsafe(18), idempotency, kind,
                 printed, json.dumps(boxes), now, now, player.id if player else None))
            sheet_id = cursor.lastrowid
            if player is not None:  # a hidden player's sheet is hidden too
                db.execute("UPDATE sheets SET hidden=(SELECT hidden FROM players WHERE id=?) WHERE id=?",
                           (player.id, sheet_id))
            db.executemany("INSERT INTO crops VALUES (?, ?, ?)",
                           [(sheet_id, box, png) for box, png in enumerate(crops, start=1)])
            _rescore(db, int(sheet_id or 0))
            _bump(db, code)
            return _sheet(db.execute("SELECT * FROM sheets WHERE id=?", (sheet_id,)).fetchone()), True

        return self._change(work)

    # --- players --------------------------------------------------------------------------------

    def join(self, code: str, name: str, idempotency: str | None = None) -> tuple[Player, bool]:
        """A player joins by name: refused after the reveal, while locked, when the name (or a lookalike)
        is taken, and when the game has as many players as it takes. Returns the player and whether they
        are new (False: a retry of the same idempotency key, answered with the player made the first time)."""
        def work(db: sqlite3.Connection) -> tuple[Player, bool]:
            if idempotency is not None:
                row = db.execute("SELECT * FROM players WHERE game=? AND idempotency=?", (code, idempotency)).fetchone()
                if row is not None:
                    return _player(row), False
            game = _game(db.execute("SELECT * FROM games WHERE code=?", (code,)).fetchone())
            _open_for_players(game, "players can no longer join")
            _check_name_free(db, code, name)
            joined = db.execute("SELECT count(*) FROM players WHERE game=?", (code,)).fetchone()[0]
            alone = db.execute("SELECT count(*) FROM sheets WHERE game=? AND player IS NULL", (code,)).fetchone()[0]
            if joined + alone >= game.players:
                raise Conflict(f"code: the game takes {game.players} players and has them all; the host can raise "
                               "the number of players", Code.GAME_FULL)
            number = db.execute("UPDATE games SET numbered=numbered+1 WHERE code=? RETURNING numbered",
                                (code,)).fetchone()[0]  # never given twice, a removed player's neither
            cursor = db.execute("INSERT INTO players (game, name, name_key, token, joined, idempotency, number) "
                                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                                (code, name, name_key(name), secrets.token_urlsafe(18), time.time(), idempotency,
                                 number))
            _bump(db, code)
            return _player(db.execute("SELECT * FROM players WHERE id=?", (cursor.lastrowid,)).fetchone()), True

        return self._change(work)

    def players(self, code: str) -> list[Player]:
        return [_player(row) for row in self._read("SELECT * FROM players WHERE game=? ORDER BY id", (code,))]

    def player(self, code: str, player_id: int) -> Player | None:
        rows = self._read("SELECT * FROM players WHERE game=? AND id=?", (code, player_id))
        return _player(rows[0]) if rows else None

    def player_by_token(self, code: str, token: str) -> Player | None:
        rows = self._read("SELECT * FROM players WHERE game=? AND token=?", (code, token))
        return _player(rows[0]) if rows else None

    def delete_player(self, code: str, player_id: int) -> bool:
        """Removes a player who has not handed in (False: no such player)."""
        def work(db: sqlite3.Connection) -> bool:
            sheet = db.execute("SELECT id FROM sheets WHERE game=? AND player=?", (code, player_id)).fetchone()
            if sheet is not None:
                raise Conflict(f"id: player {player_id} has handed in sheet {sheet[0]}; remove the sheet first",
                               Code.HANDED_IN)
            gone = db.execute("DELETE FROM players WHERE game=? AND id=?", (code, player_id)).rowcount
            if gone:
                _bump(db, code)
            return bool(gone)

        return self._change(work)

    # --- the host's changes ---------------------------------------------------------------------

    def update_game(self, code: str, players: int | None = None, locked: bool | None = None) -> Game:
        """The host changes the number of players (never below the sheets handed in) or locks the game."""
        def work(db: sqlite3.Connection) -> Game:
            if players is not None:
                count = db.execute("SELECT count(*) FROM sheets WHERE game=?", (code,)).fetchone()[0]
                if players < count:
                    raise Conflict(f"players: is {players}; {count} sheets are handed in already (remove sheets "
                                   "first)", Code.PLAYERS_BELOW)
                waiting = _waiting(db, code)
                if players < count + waiting:  # each of them could then not hand in
                    raise Conflict(f"players: is {players}; {count} sheets are handed in and {waiting} more players "
                                   "have joined (remove players first)", Code.PLAYERS_BELOW)
                db.execute("UPDATE games SET players=? WHERE code=?", (players, code))
            if locked is not None:
                db.execute("UPDATE games SET locked=? WHERE code=?", (int(locked), code))
            _bump(db, code)
            return _game(db.execute("SELECT * FROM games WHERE code=?", (code,)).fetchone())

        return self._change(work)

    def rename_sheet(self, code: str, sheet_id: int, name: str) -> SheetRow:
        """The host renames a sheet (and its player): the name must be free, as a join's."""
        def work(db: sqlite3.Connection) -> SheetRow:
            sheet = _existing(db, code, sheet_id)
            _check_name_free(db, code, name, sheet.id, sheet.player)
            db.execute("UPDATE sheets SET name=?, name_key=?, updated=? WHERE id=?",
                       (name, name_key(name), time.time(), sheet_id))
            if sheet.player is not None:
                db.execute("UPDATE players SET name=?, name_key=? WHERE id=?", (name, name_key(name), sheet.player))
            _bump(db, code)
            return _sheet(db.execute("SELECT * FROM sheets WHERE id=?", (sheet_id,)).fetchone())

        return self._change(work)

    def hide(self, code: str, hidden: bool, player_id: int | None = None, sheet_id: int | None = None) -> bool:
        """The host hides a name from the projector and the other phones (`hidden`), or shows it again: a
        player's (their sheet's with it), or a sheet's (its player's with it). False: no such player or sheet
        in the game."""
        def work(db: sqlite3.Connection) -> bool:
            player, sheet = player_id, sheet_id
            if sheet is not None:
                row = db.execute("SELECT player FROM sheets WHERE game=? AND id=?", (code, sheet)).fetchone()
                if row is None:
                    return False
                player = row[0]
            elif db.execute("SELECT 1 FROM players WHERE game=? AND id=?", (code, player)).fetchone() is None:
                return False
            else:
                row = db.execute("SELECT id FROM sheets WHERE game=? AND player=?", (code, player)).fetchone()
                sheet = row[0] if row is not None else None
            db.execute("UPDATE players SET hidden=? WHERE game=? AND id=?", (int(hidden), code, player))
            db.execute("UPDATE sheets SET hidden=? WHERE game=? AND id=?", (int(hidden), code, sheet))
            _bump(db, code)
            return True

        return self._change(work)

    def sheet(self, code: str, sheet_id: int) -> SheetRow | None:
        rows = self._read("SELECT * FROM sheets WHERE game=? AND id=?", (code, sheet_id))
        return _sheet(rows[0]) if rows else None

    def sheets(self, code: str) -> list[SheetRow]:
        return [_sheet(row) for row in self._read("SELECT * FROM sheets WHERE game=? ORDER BY id", (code,))]

    def update_boxes(self, code: str, sheet_id: int,
                     change: Callable[[list[dict[str, Any]]], list[dict[str, Any]]], host: bool = False) -> SheetRow:
        """Changes a sheet's boxes: `change` is given the boxes as stored now (inside the write, so two
        corrections at once both count) and returns them changed."""
        def work(db: sqlite3.Connection) -> SheetRow:
            game = _game(db.execute("SELECT * FROM games WHERE code=?", (code,)).fetchone())
            if not host:
                _open_for_players(game, "only the host can still correct a sheet")
            boxes = change(_existing(db, code, sheet_id).boxes)
            db.execute("UPDATE sheets SET boxes=?, updated=? WHERE game=? AND id=?",
                       (json.dumps(boxes), time.time(), code, sheet_id))
            _rescore(db, sheet_id)  # the ranking moves in the same transaction as the boxes
            db.execute("UPDATE games SET version=version+1 WHERE code=?", (code,))
            return _sheet(db.execute("SELECT * FROM sheets WHERE id=?", (sheet_id,)).fetchone())

        return self._change(work)

    def delete_sheet(self, code: str, sheet_id: int) -> None:
        def work(db: sqlite3.Connection) -> None:
            _existing(db, code, sheet_id)  # removed meanwhile (a second click): 404, not a second "deleted"
            db.execute("DELETE FROM crops WHERE sheet=?", (sheet_id,))
            db.execute("DELETE FROM sheets WHERE game=? AND id=?", (code, sheet_id))
            db.execute("UPDATE games SET version=version+1 WHERE code=?", (code,))

        self._change(work)

    def crop(self, sheet_id: int, box: int) -> bytes | None:
        rows = self._read("SELECT png FROM crops WHERE sheet=? AND box=?", (sheet_id, box))
        return bytes(rows[0][0]) if rows else None

    # --- big games: counts, pages and the ranking kept as sheets arrive (paperplay.serve.ranking) ---------------

    def counts(self, code: str) -> Counts:
        row = self._read("SELECT (SELECT count(*) FROM players WHERE game=?), count(*), "
                         "coalesce(sum(flagged > 0), 0), coalesce(sum(empty > 0), 0), "
                         "coalesce(sum(flagged > empty), 0), coalesce(sum(ranked), 0) FROM sheets WHERE game=?",
                         (code, code))[0]
        return Counts(*(int(v) for v in row))

    def players_page(self, code: str, offset: int, limit: int) -> list[tuple[Player, int | None, int]]:
        """Players in the order they joined, `limit` from the `offset`-th: each with the id of the sheet they handed
        in (None: not yet) and its boxes to check."""
        rows = self._read("SELECT p.*, s.id AS sheet, s.flagged AS sheet_flagged FROM players AS p "
                          "LEFT JOIN sheets AS s ON s.game=p.game AND s.player=p.id "
                          "WHERE p.game=? ORDER BY p.id LIMIT ? OFFSET ?",
                          (code, limit, offset))
        return [(_player(row), row["sheet"], int(row["sheet_flagged"] or 0)) for row in rows]

    def sheets_page(self, code: str, offset: int, limit: int) -> list[SheetRow]:
        """Sheets in the order they were handed in, `limit` from the `offset`-th."""
        return [_sheet(row) for row in self._read("SELECT * FROM sheets WHERE game=? ORDER BY id LIMIT ? OFFSET ?",
                                                  (code, limit, offset))]

    def ranking(self, code: str, offset: int, limit: int) -> list[Ranked]:
        """The ranked sheets, highest total first (then in the order they were handed in), `limit` from the
        `offset`-th, each with its place."""
        from paperplay.serve.ranking import places

        rows = self._read("SELECT id, name, hidden, player, total FROM sheets WHERE game=? AND ranked=1 "
                          "ORDER BY total DESC, id LIMIT ? OFFSET ?", (code, limit, offset))
        if not rows:
            return []
        above = self._read("SELECT count(*) FROM sheets WHERE game=? AND ranked=1 AND total>?",
                           (code, rows[0]["total"]))[0][0]
        return places([tuple(row) for row in rows], offset, int(above) + 1)

    def place(self, code: str, sheet_id: int) -> tuple[int, int] | None:
        """A sheet's place in the ranking and the number of ranked sheets (None: it is not ranked)."""
        row = self._read("SELECT total FROM sheets WHERE game=? AND id=? AND ranked=1", (code, sheet_id))
        if not row:
            return None
        above, of = self._read("SELECT coalesce(sum(total > ?), 0), count(*) FROM sheets WHERE game=? AND ranked=1",
                               (row[0][0], code))[0]
        return int(above) + 1, int(of)

    def standings(self, code: str) -> list[tuple[int, int]]:
        """Each total of the ranked sheets with how many have it, highest first: what a phone needs to know its
        place from its own total (paperplay.serve.ranking.places_by_total)."""
        return [(int(r[0]), int(r[1])) for r in self._read(
            "SELECT total, count(*) FROM sheets WHERE game=? AND ranked=1 GROUP BY total ORDER BY total DESC", (code,))]

    def recent(self, code: str, limit: int) -> list[tuple[int, float]]:
        """The `limit` sheets changed last (id, when): a big game's phones ask again for their own sheet when it is
        among them."""
        return [(int(r[0]), float(r[1])) for r in self._read(
            "SELECT id, updated FROM sheets WHERE game=? ORDER BY updated DESC, id DESC LIMIT ?", (code, limit))]


def _existing(db: sqlite3.Connection, code: str, sheet_id: int) -> SheetRow:
    """The sheet as stored now, or a 404 (removed by the host meanwhile)."""
    row = db.execute("SELECT * FROM sheets WHERE game=? AND id=?", (code, sheet_id)).fetchone()
    if row is None:
        raise Conflict(f"id: no sheet {sheet_id} in game {code[:4]}-{code[4:]} (removed meanwhile)", Code.NO_SHEET)
    return _sheet(row)


def _rescore(db: sqlite3.Connection, sheet_id: int) -> None:
    """Keeps a sheet's standing (total, ranked, flagged, empty) in its columns, refereed as the results referee it
    (paperplay.serve.ranking.standing), in the transaction that stored its boxes."""
    from paperplay.serve.ranking import standing

    row = db.execute("SELECT s.kind, s.boxes, s.name, g.seed, g.variant, g.code FROM sheets AS s JOIN games AS g "
                     "ON g.code=s.game WHERE s.id=?", (sheet_id,)).fetchone()
    now = standing(row["seed"], row["variant"], row["kind"], json.loads(row["boxes"]), row["code"], row["name"])
    db.execute("UPDATE sheets SET total=?, ranked=?, flagged=?, empty=? WHERE id=?",
               (now.total, int(now.ranked), now.flagged, now.empty, sheet_id))


def _bump(db: sqlite3.Connection, code: str) -> None:
    """The game changed: its version goes up (pages following it are woken)."""
    db.execute("UPDATE games SET version=version+1 WHERE code=?", (code,))


def _waiting(db: sqlite3.Connection, code: str) -> int:
    """Players who joined the game and have not handed in yet."""
    return int(db.execute("SELECT count(*) FROM players WHERE game=? AND id NOT IN (SELECT player FROM sheets "
                          "WHERE game=? AND player IS NOT NULL)", (code, code)).fetchone()[0])


def _open_for_players(game: Game, what: str) -> None:
    if game.revealed:
        raise Conflict(f"code: the game is revealed; {what}", Code.REVEALED)
    if game.locked:
        raise Conflict(f"code: the host has locked the game; {what}", Code.LOCKED)


def _check_name_free(db: sqlite3.Connection, code: str, name: str, sheet_id: int | None = None,
                     player_id: int | None = None) -> None:
    """Refuses a name whose key (paperplay.serve.names.key: case, width, invisible characters and
    lookalike letters aside) is a player's or a sheet's of the game already (but for the sheet and
    player given, a rename's own)."""
    wanted = name_key(name)
    for table, own in (("players", player_id), ("sheets", sheet_id)):
        for row in db.execute(f"SELECT id, name FROM {table} WHERE game=?", (code,)):
            if row[0] != own and name_key(row[1]) == wanted:
                same = "is" if row[1] == name else f"looks the same as {row[1]!r}, which is"
                raise Conflict(f"name: {name!r} {same} taken in this game; choose another name", Code.NAME_TAKEN)


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
                bool(row["revealed"]), row["version"], row["created"], bool(row["locked"]), row["view"] or "")


def _sheet(row: sqlite3.Row) -> SheetRow:
    return SheetRow(row["id"], row["game"], row["name"], row["token"], row["idempotency"], row["kind"],
                    row["printed"], json.loads(row["boxes"]), row["created"], row["updated"], row["player"],
                    bool(row["hidden"]), total=row["total"] if row["ranked"] else None)


def _player(row: sqlite3.Row) -> Player:
    return Player(row["id"], row["game"], row["name"], row["token"], row["joined"], bool(row["hidden"]),
                  row["number"] or 0)
