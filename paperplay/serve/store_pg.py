"""The game night's database on PostgreSQL (PgStore): any number of server processes, on one machine or several,
share the games, the host's key, the view tokens and the idempotency records (`paperplay serve --db
postgresql://…`). The serve-pg extra: imported only for a postgresql:// database (paperplay.serve.store.open_store).

- Every write is one transaction that first locks its game's row (`SELECT … FOR UPDATE`): a game's writes
  take turns across processes, so the checks a write makes (game_full, name_taken, sheet_used, handed_in)
  hold when it commits. Unique indexes are the backstop: a unique violation is answered as the same Conflict.
- Names: the claimed names of a game (its players', and its sheets' handed in by name alone) are looked up
  by their key (paperplay.serve.names.key) in an index, (game, name_key): a join is an index lookup, also
  at 100,000 players.
- Every write that raises a game's version sends `pg_notify('paperplay', code)` in its transaction (delivered
  at commit); `listen()` hands every committed change of ANY process to the server's waiting phones.
- The schema is migrated on start (MIGRATIONS, its version in meta's 'schema' row) under an advisory lock:
  servers and workers starting together migrate once; a database migrated by a newer paperplay is refused.
- A connection pool (psycopg_pool) of POOL_SIZE connections at most a process (serve's --db-pool), POOL_MIN at least,
  and one more connection for LISTEN.
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import psycopg
from psycopg import sql as pgsql
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from paperplay.serve import store_photos
from paperplay.serve.errors import Code, Conflict
from paperplay.serve.store import (MAX_GAMES, MAX_PLAYERS_PG, Counts, DatabaseRefused, Game, Player, Refusal,
                                   SheetRow, StoreUnavailable, _open_for_players, name_key)

if TYPE_CHECKING:
    from paperplay.serve.ranking import Ranked
    from paperplay.serve.photos import PhotoRefused, PhotoTaken
    from paperplay.serve.queue import PhotoJob

_T = TypeVar("_T")
Cursor = psycopg.Cursor[dict[str, Any]]

CHANNEL = "paperplay"
"""The LISTEN/NOTIFY channel: each notification's payload is a game's code (or a sheet's key,
paperplay.serve.web.sheet_key)."""
POOL_SIZE = 10
"""Connections a server process keeps open at most (`paperplay serve --db-pool`, 2-100)."""
POOL_MIN = 2
"""Connections a server process keeps open at least."""
CONNECT_SECONDS = 10
"""How long opening the database may take before --db is refused."""
MIGRATION_LOCK = 0x7061_7065_7270
"""The advisory lock under which the schema is migrated (servers and workers starting together)."""
GAMES_LOCK = 0x7061_7065_7267
"""The advisory lock under which a game is made (the count of games and its code checked once at a time)."""
LISTEN_BACKOFF = (0.5, 10.0)
"""The listener's first and longest wait (seconds) before it connects again after losing its connection."""

MIGRATIONS: dict[int, tuple[str, ...]] = {
    1: (  # the games, their players and sheets, the host's key (as SQLite's schema version 4)
        "CREATE TABLE IF NOT EXISTS games (code TEXT PRIMARY KEY, seed TEXT NOT NULL, variant TEXT, "
        "lang TEXT NOT NULL, players INTEGER NOT NULL, turn INTEGER NOT NULL DEFAULT 0, "
        "revealed BOOLEAN NOT NULL DEFAULT false, "
        "version BIGINT NOT NULL DEFAULT 1, created DOUBLE PRECISION NOT NULL, "
        "locked BOOLEAN NOT NULL DEFAULT false, view TEXT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS players (id BIGSERIAL PRIMARY KEY, "
        "game TEXT NOT NULL REFERENCES games(code) ON DELETE CASCADE, name TEXT NOT NULL, name_key TEXT NOT NULL, "
        "token TEXT NOT NULL, joined DOUBLE PRECISION NOT NULL, idempotency TEXT, "
        "hidden BOOLEAN NOT NULL DEFAULT false, "
        "CONSTRAINT players_name UNIQUE (game, name_key), CONSTRAINT players_idempotency UNIQUE (game, idempotency))",
        "CREATE INDEX IF NOT EXISTS players_token ON players (game, token)",
        "CREATE TABLE IF NOT EXISTS sheets (id BIGSERIAL PRIMARY KEY, "
        "game TEXT NOT NULL REFERENCES games(code) ON DELETE CASCADE, name TEXT NOT NULL, name_key TEXT NOT NULL, "
        "token TEXT NOT NULL, idempotency TEXT, kind TEXT NOT NULL, printed TEXT, boxes TEXT NOT NULL, "
        "created DOUBLE PRECISION NOT NULL, updated DOUBLE PRECISION NOT NULL, player BIGINT, "
        "hidden BOOLEAN NOT NULL DEFAULT false, "
        "CONSTRAINT sheets_name UNIQUE (game, name_key), CONSTRAINT sheets_idempotency UNIQUE (game, idempotency), "
        "CONSTRAINT sheets_printed UNIQUE (game, printed), CONSTRAINT sheets_player UNIQUE (player))",
        "CREATE INDEX IF NOT EXISTS sheets_game ON sheets (game, id)",
        "CREATE INDEX IF NOT EXISTS sheets_alone ON sheets (game) WHERE player IS NULL",
        "CREATE TABLE IF NOT EXISTS crops (sheet BIGINT NOT NULL REFERENCES sheets(id) ON DELETE CASCADE, "
        "box INTEGER NOT NULL, png BYTEA NOT NULL, PRIMARY KEY (sheet, box))",
    ),
    2: store_photos.SCHEMA,  # photos read by photo workers: a sheet's state, its photo, the refusals
    3: (  # a sheet's standing kept as it is stored (paperplay.serve.ranking); a player's number (SQLite's version 5)
        "ALTER TABLE sheets ADD COLUMN IF NOT EXISTS total INTEGER",
        "ALTER TABLE sheets ADD COLUMN IF NOT EXISTS ranked BOOLEAN NOT NULL DEFAULT false",
        "ALTER TABLE sheets ADD COLUMN IF NOT EXISTS flagged INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE sheets ADD COLUMN IF NOT EXISTS empty INTEGER NOT NULL DEFAULT 0",
        "CREATE INDEX IF NOT EXISTS sheets_ranking ON sheets (game, total DESC, id) WHERE ranked",
        "ALTER TABLE players ADD COLUMN IF NOT EXISTS number INTEGER",
        "UPDATE players SET number = n.number FROM (SELECT id, row_number() OVER (PARTITION BY game ORDER BY id) "
        "AS number FROM players) AS n WHERE n.id = players.id",
        "CREATE UNIQUE INDEX IF NOT EXISTS players_number ON players (game, number)",
        "ALTER TABLE games ADD COLUMN IF NOT EXISTS numbered INTEGER NOT NULL DEFAULT 0",
        "UPDATE games SET numbered = (SELECT count(*) FROM players WHERE players.game = games.code)",
    ),
    4: (  # a game's places taken, counted as players join and leave and sheets come and go (no count of 100,000 rows)
        "ALTER TABLE games ADD COLUMN IF NOT EXISTS joined INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE games ADD COLUMN IF NOT EXISTS alone INTEGER NOT NULL DEFAULT 0",
        "UPDATE games SET joined = (SELECT count(*) FROM players WHERE players.game = games.code), "
        "alone = (SELECT count(*) FROM sheets WHERE sheets.game = games.code AND sheets.player IS NULL)",
        """CREATE OR REPLACE FUNCTION paperplay_joined() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'INSERT' THEN
                UPDATE games SET joined = joined + 1 WHERE code = NEW.game;
                RETURN NEW;
            END IF;
            UPDATE games SET joined = joined - 1 WHERE code = OLD.game;
            RETURN OLD;
        END $$""",
        """CREATE OR REPLACE FUNCTION paperplay_alone() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'INSERT' THEN
                UPDATE games SET alone = alone + 1 WHERE code = NEW.game AND NEW.player IS NULL;
                RETURN NEW;
            END IF;
            UPDATE games SET alone = alone - 1 WHERE code = OLD.game AND OLD.player IS NULL;
            RETURN OLD;
        END $$""",
        "DROP TRIGGER IF EXISTS players_joined ON players",
        "CREATE TRIGGER players_joined AFTER INSERT OR DELETE ON players FOR EACH ROW EXECUTE FUNCTION "
        "paperplay_joined()",
        "DROP TRIGGER IF EXISTS sheets_alone ON sheets",
        "CREATE TRIGGER sheets_alone AFTER INSERT OR DELETE ON sheets FOR EACH ROW EXECUTE FUNCTION paperplay_alone()",
    ),
    5: (  # a big game's phones learn from the state which sheets changed last (paperplay.serve.web.state)
        "CREATE INDEX IF NOT EXISTS sheets_updated ON sheets (game, updated DESC, id DESC)",
    ),
    6: (  # the places counted once a statement, not once a row (many rows at once, a game's removal: one update)
        "DROP TRIGGER IF EXISTS players_joined ON players",
        "DROP TRIGGER IF EXISTS sheets_alone ON sheets",
        "DROP FUNCTION IF EXISTS paperplay_joined()",
        "DROP FUNCTION IF EXISTS paperplay_alone()",
        """CREATE OR REPLACE FUNCTION paperplay_joined_in() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE games SET joined = joined + c.n FROM (SELECT game, count(*) AS n FROM added
                GROUP BY game) AS c WHERE games.code = c.game;
            RETURN NULL;
        END $$""",
        """CREATE OR REPLACE FUNCTION paperplay_joined_out() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE games SET joined = joined - c.n FROM (SELECT game, count(*) AS n FROM gone
                GROUP BY game) AS c WHERE games.code = c.game;
            RETURN NULL;
        END $$""",
        """CREATE OR REPLACE FUNCTION paperplay_alone_in() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE games SET alone = alone + c.n FROM (SELECT game, count(*) AS n FROM added WHERE player IS NULL
                GROUP BY game) AS c WHERE games.code = c.game;
            RETURN NULL;
        END $$""",
        """CREATE OR REPLACE FUNCTION paperplay_alone_out() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE games SET alone = alone - c.n FROM (SELECT game, count(*) AS n FROM gone WHERE player IS NULL
                GROUP BY game) AS c WHERE games.code = c.game;
            RETURN NULL;
        END $$""",
        "CREATE TRIGGER players_joined_in AFTER INSERT ON players REFERENCING NEW TABLE AS added FOR EACH STATEMENT "
        "EXECUTE FUNCTION paperplay_joined_in()",
        "CREATE TRIGGER players_joined_out AFTER DELETE ON players REFERENCING OLD TABLE AS gone FOR EACH STATEMENT "
        "EXECUTE FUNCTION paperplay_joined_out()",
        "CREATE TRIGGER sheets_alone_in AFTER INSERT ON sheets REFERENCING NEW TABLE AS added FOR EACH STATEMENT "
        "EXECUTE FUNCTION paperplay_alone_in()",
        "CREATE TRIGGER sheets_alone_out AFTER DELETE ON sheets REFERENCING OLD TABLE AS gone FOR EACH STATEMENT "
        "EXECUTE FUNCTION paperplay_alone_out()",
    ),
}
"""The changes from each version to the next (version 0: an empty database)."""
SCHEMA_VERSION = max(MIGRATIONS)

_CONFLICTS = {
    "games_pkey": ("seed: gives a game code this server has already; leave out the seed for a new game",
                   Code.GAME_EXISTS),
    "players_name": ("name: is taken in this game; choose another name", Code.NAME_TAKEN),
    "sheets_name": ("name: is taken in this game; choose another name", Code.NAME_TAKEN),
    "sheets_printed": ("photo: shows a sheet that has been handed in already", Code.SHEET_USED),
    "sheets_player": ("token: this player has handed in a sheet already; correct that sheet instead",
                      Code.HANDED_IN),
}
"""What a unique index's violation is answered (the checks before the write say it first, in more words)."""

logger = logging.getLogger("paperplay.store")


class PgStore:
    """The games in a PostgreSQL database, shared by any number of server processes; used from any thread."""

    kind: Literal["sqlite", "postgresql"] = "postgresql"
    max_players = MAX_PLAYERS_PG

    def __init__(self, url: str, size: int | None = None) -> None:
        self.url = url
        size = size or POOL_SIZE
        try:
            with psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_SECONDS) as connection:
                self.migrated_from = migrate(connection)
        except psycopg.OperationalError as exc:
            raise StoreUnavailable(_first_line(exc)) from None
        self._pool = ConnectionPool(url, min_size=min(POOL_MIN, size), max_size=size, open=False,
                                    kwargs={"autocommit": True, "row_factory": dict_row}, name="paperplay",
                                    timeout=30)
        self._pool.open(wait=True, timeout=CONNECT_SECONDS)
        self._listener: threading.Thread | None = None
        self._stop = threading.Event()

    def close(self) -> None:
        self._stop.set()
        if self._listener is not None:
            self._listener.join(timeout=3)
        self._pool.close()

    # --- transactions -------------------------------------------------------------------------------------------

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[dict[str, Any]]]:
        """A connection of the pool; the database away (or every connection busy for 30 s): StoreUnavailable."""
        try:
            with self._pool.connection() as connection:
                yield connection  # type: ignore[misc]  # the pool's connections make dict rows (its kwargs)
        except psycopg.OperationalError as exc:
            raise StoreUnavailable(_first_line(exc)) from None

    def _change(self, work: Callable[[Cursor], _T]) -> _T:
        """Runs `work` in one transaction and returns once it is committed; a Conflict it raises undoes it all,
        and a unique index's violation is answered as its Conflict."""
        try:
            with self._connection() as connection, connection.transaction(), connection.cursor() as cursor:
                return work(cursor)
        except psycopg.errors.UniqueViolation as exc:
            constraint = exc.diag.constraint_name or ""
            message, code = _CONFLICTS.get(constraint, (f"the change clashes with another made at once "
                                                        f"({constraint}); send it again", Code.BUSY))
            raise Conflict(message, code) from None

    def _read(self, query: str, args: Sequence[Any] = ()) -> list[dict[str, Any]]:
        with self._connection() as connection:
            return connection.execute(query, args).fetchall()

    # --- wake-ups across processes ------------------------------------------------------------------------------

    def listen(self, callback: Callable[[str], None]) -> None:
        """Calls `callback(code)` for every change committed through any process (LISTEN/NOTIFY), from a daemon
        thread with a connection of its own; after a lost connection it connects again (waiting longer each
        time, at most LISTEN_BACKOFF[1] s) and calls `callback` for every game (changes may have been missed
        meanwhile). Returns once it listens (or after CONNECT_SECONDS, trying on in the background)."""
        if self._listener is not None:
            return
        ready = threading.Event()
        self._listener = threading.Thread(target=self._listen, args=(callback, ready), name="paperplay-listen",
                                          daemon=True)
        self._listener.start()
        ready.wait(CONNECT_SECONDS)

    def _listen(self, callback: Callable[[str], None], ready: threading.Event) -> None:
        wait, lost = LISTEN_BACKOFF[0], False
        while not self._stop.is_set():
            try:
                with psycopg.connect(self.url, autocommit=True, connect_timeout=CONNECT_SECONDS) as connection:
                    connection.execute(f"LISTEN {CHANNEL}")
                    ready.set()
                    if lost:
                        logger.warning("paperplay: the database's notifications are back")
                        for row in connection.execute("SELECT code FROM games").fetchall():
                            _called(callback, str(row[0]))
                    wait, lost = LISTEN_BACKOFF[0], False
                    while not self._stop.is_set():
                        for note in connection.notifies(timeout=1.0):
                            _called(callback, note.payload)
            except psycopg.Error as exc:
                if self._stop.is_set():
                    return
                if not lost:
                    logger.warning("paperplay: lost the database's notifications (%s); connecting again",
                                   _first_line(exc))
                lost = True
                self._stop.wait(wait)
                wait = min(wait * 2, LISTEN_BACKOFF[1])

    # --- the host's key -----------------------------------------------------------------------------------------

    def host_key(self) -> str:
        return str(self._read("SELECT value FROM meta WHERE name = 'host_key'")[0]["value"])

    def host_key_made(self) -> float:
        return float(self._read("SELECT value FROM meta WHERE name = 'host_key_made'")[0]["value"])

    def new_host_key(self) -> str:
        """Makes a new host key and retires the old one (its links get 401 from now on, on every server)."""
        return self._change(_new_key)

    # --- games --------------------------------------------------------------------------------------------------

    def create_game(self, code: str, seed: str, variant: str | None, lang: str, players: int) -> Game:
        def work(cursor: Cursor) -> Game:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", (GAMES_LOCK,))
            if _one(cursor, "SELECT 1 FROM games WHERE code = %s", (code,)) is not None:
                raise Conflict(f"seed: gives game code {code}, which this server has already; leave out the seed "
                               "for a new game, or open that game", Code.GAME_EXISTS)
            if _one(cursor, "SELECT count(*) AS n FROM games", ())["n"] >= MAX_GAMES:  # type: ignore[index]
                raise Conflict(f"players: this database holds {MAX_GAMES} games already; start the server with "
                               "another --db", Code.TOO_MANY_GAMES)
            row = _one(cursor, "INSERT INTO games (code, seed, variant, lang, players, created, view) "
                       "VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING *",
                       (code, seed, variant, lang, players, time.time(), secrets.token_urlsafe(18)))
            _notify(cursor, code)
            return _game(row)

        return self._change(work)

    def game(self, code: str) -> Game | None:
        rows = self._read("SELECT * FROM games WHERE code = %s", (code,))
        return _game(rows[0]) if rows else None

    def games(self) -> list[Game]:
        return [_game(row) for row in self._read("SELECT * FROM games ORDER BY created, code")]

    def call(self, code: str, total: int, expected: int | None = None) -> tuple[Game, bool]:
        """Calls the next turn (as SqliteStore.call)."""
        def work(cursor: Cursor) -> tuple[Game, bool]:
            game = _locked(cursor, code)
            if expected is not None and expected <= game.turn:
                return game, False
            if game.revealed:
                raise Conflict("code: the game is revealed; no more tiles are called")
            if game.turn >= total:
                raise Conflict(f"turn: all {total} tiles are called; reveal the game to score it", Code.ALL_CALLED)
            if expected is not None and expected != game.turn + 1:
                raise Conflict(f"turn: is {expected}; the next turn to call is {game.turn + 1}", Code.WRONG_TURN)
            row = _one(cursor, "UPDATE games SET turn = turn + 1, version = version + 1 WHERE code = %s RETURNING *",
                       (code,))
            _notify(cursor, code)
            return _game(row), True

        return self._change(work)

    def reveal(self, code: str) -> Game:
        def work(cursor: Cursor) -> Game:
            game = _locked(cursor, code)
            if game.revealed:
                return game
            row = _one(cursor, "UPDATE games SET revealed = true, version = version + 1 WHERE code = %s RETURNING *",
                       (code,))
            _notify(cursor, code)
            return _game(row)

        return self._change(work)

    def update_game(self, code: str, players: int | None = None, locked: bool | None = None) -> Game:
        """The host changes the number of players (never below the sheets handed in) or locks the game."""
        def work(cursor: Cursor) -> Game:
            _locked(cursor, code)
            if players is not None:
                count = _count(cursor, "SELECT count(*) AS n FROM sheets WHERE game = %s", (code,))
                if players < count:
                    raise Conflict(f"players: is {players}; {count} sheets are handed in already (remove sheets "
                                   "first)", Code.PLAYERS_BELOW)
                waiting = _waiting(cursor, code)
                if players < count + waiting:
                    raise Conflict(f"players: is {players}; {count} sheets are handed in and {waiting} more players "
                                   "have joined (remove players first)", Code.PLAYERS_BELOW)
                cursor.execute("UPDATE games SET players = %s WHERE code = %s", (players, code))
            if locked is not None:
                cursor.execute("UPDATE games SET locked = %s WHERE code = %s", (locked, code))
            return _game(_bump(cursor, code))

        return self._change(work)

    # --- players ------------------------------------------------------------------------------------------------

    def join(self, code: str, name: str, idempotency: str | None = None) -> tuple[Player, bool]:
        """A player joins by name (as SqliteStore.join)."""
        def work(cursor: Cursor) -> tuple[Player, bool]:
            game = _locked(cursor, code)
            if idempotency is not None:
                row = _one(cursor, "SELECT * FROM players WHERE game = %s AND idempotency = %s", (code, idempotency))
                if row is not None:
                    return _player(row), False
            _open_for_players(game, "players can no longer join")
            _check_name_free(cursor, code, name)
            if _taken(cursor, code) >= min(game.players, MAX_PLAYERS_PG):
                raise Conflict(f"code: the game takes {game.players} players and has them all; the host can raise "
                               "the number of players", Code.GAME_FULL)
            number = _count(cursor, "UPDATE games SET numbered = numbered + 1 WHERE code = %s RETURNING numbered AS n",
                            (code,))  # never given twice, a removed player's neither
            row = _one(cursor, "INSERT INTO players (game, name, name_key, token, joined, idempotency, number) "
                       "VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING *",
                       (code, name, name_key(name), secrets.token_urlsafe(18), time.time(), idempotency, number))
            _bump(cursor, code)
            return _player(row), True

        return self._change(work)

    def players(self, code: str) -> list[Player]:
        return [_player(row) for row in self._read("SELECT * FROM players WHERE game = %s ORDER BY id", (code,))]

    def player(self, code: str, player_id: int) -> Player | None:
        rows = self._read("SELECT * FROM players WHERE game = %s AND id = %s", (code, player_id))
        return _player(rows[0]) if rows else None

    def player_by_token(self, code: str, token: str) -> Player | None:
        rows = self._read("SELECT * FROM players WHERE game = %s AND token = %s", (code, token))
        return _player(rows[0]) if rows else None

    def delete_player(self, code: str, player_id: int) -> bool:
        """Removes a player who has not handed in (False: no such player)."""
        def work(cursor: Cursor) -> bool:
            _locked(cursor, code)
            sheet = _one(cursor, "SELECT id FROM sheets WHERE game = %s AND player = %s", (code, player_id))
            if sheet is not None:
                raise Conflict(f"id: player {player_id} has handed in sheet {sheet['id']}; remove the sheet first",
                               Code.HANDED_IN)
            cursor.execute("DELETE FROM players WHERE game = %s AND id = %s", (code, player_id))
            gone = cursor.rowcount > 0
            if gone:
                _bump(cursor, code)
            return gone

        return self._change(work)

    def hide(self, code: str, hidden: bool, player_id: int | None = None, sheet_id: int | None = None) -> bool:
        """The host hides a name (as SqliteStore.hide)."""
        def work(cursor: Cursor) -> bool:
            _locked(cursor, code)
            player, sheet = player_id, sheet_id
            if sheet is not None:
                row = _one(cursor, "SELECT player FROM sheets WHERE game = %s AND id = %s", (code, sheet))
                if row is None:
                    return False
                player = row["player"]
            elif _one(cursor, "SELECT 1 FROM players WHERE game = %s AND id = %s", (code, player)) is None:
                return False
            else:
                row = _one(cursor, "SELECT id FROM sheets WHERE game = %s AND player = %s", (code, player))
                sheet = row["id"] if row is not None else None
            cursor.execute("UPDATE players SET hidden = %s WHERE game = %s AND id = %s", (hidden, code, player))
            cursor.execute("UPDATE sheets SET hidden = %s WHERE game = %s AND id = %s", (hidden, code, sheet))
            _bump(cursor, code)
            return True

        return self._change(work)

    # --- sheets -------------------------------------------------------------------------------------------------

    def by_idempotency(self, code: str, key: str) -> SheetRow | None:
        rows = self._read("SELECT * FROM sheets WHERE game = %s AND idempotency = %s", (code, key))
        return _sheet(rows[0]) if rows else None

    def add_sheet(self, code: str, name: str, kind: str, boxes: list[dict[str, Any]], printed: str | None = None,
                  idempotency: str | None = None, crops: Sequence[bytes] = (), player: Player | None = None,
                  turns: int = 0) -> tuple[SheetRow, bool]:
        """Stores a handed-in sheet (as SqliteStore.add_sheet)."""
        def work(cursor: Cursor) -> tuple[SheetRow, bool]:
            done = self._admit(cursor, code, name, idempotency, player, turns, printed)
            if done is not None:
                return done, False
            row = self._insert(cursor, code, name, kind, boxes, printed, idempotency, player, "read")
            cursor.executemany("INSERT INTO crops (sheet, box, png) VALUES (%s, %s, %s)",
                               [(row["id"], box, png) for box, png in enumerate(crops, start=1)])
            _bump(cursor, code)
            return _sheet(_rescore(cursor, int(row["id"]))), True

        return self._change(work)

    def _admit(self, cursor: Cursor, code: str, name: str | None, idempotency: str | None, player: Player | None,
               turns: int, printed: str | None = None) -> SheetRow | None:
        """A hand-in's checks with its game locked: the sheet stored under its idempotency key already (a retry),
        or None when a new one may be stored; a Conflict when not."""
        game = _locked(cursor, code)
        if idempotency is not None:
            row = _one(cursor, "SELECT * FROM sheets WHERE game = %s AND idempotency = %s", (code, idempotency))
            if row is not None:
                return _sheet(row)
        _open_for_players(game, "sheets can no longer be handed in")
        if game.turn < turns:
            raise Conflict(f"code: hand-ins open after the last tile; {game.turn} of {turns} tiles are called",
                           Code.TOO_EARLY)
        if printed is not None:
            other = _one(cursor, "SELECT name FROM sheets WHERE game = %s AND printed = %s", (code, printed))
            if other is not None:
                raise Conflict(f"photo: shows sheet {printed}, which {other['name']!r} has handed in already",
                               Code.SHEET_USED)
        if player is not None:
            if _one(cursor, "SELECT 1 FROM players WHERE id = %s AND game = %s", (player.id, code)) is None:
                raise Conflict(f"token: {player.name!r} is no longer a player of this game (the host removed "
                               "them); join again", Code.NOT_YOURS)
            mine = _one(cursor, "SELECT id FROM sheets WHERE game = %s AND player = %s", (code, player.id))
            if mine is not None:
                raise Conflict(f"token: {player.name!r} has handed in sheet {mine['id']} already; correct that "
                               "sheet instead", Code.HANDED_IN)
        elif name is not None:
            _check_name_free(cursor, code, name)
        if _taken(cursor, code) - (player is not None) >= min(game.players, MAX_PLAYERS_PG):
            raise Conflict(f"code: the game takes {game.players} sheets and has them all; the host can raise the "
                           "number of players", Code.GAME_FULL)
        return None

    @staticmethod
    def _insert(cursor: Cursor, code: str, name: str, kind: str, boxes: list[dict[str, Any]], printed: str | None,
                idempotency: str | None, player: Player | None, state: str, token: str | None = None
                ) -> dict[str, Any]:
        now = time.time()
        hidden = False
        if player is not None:  # a hidden player's sheet is hidden too
            row = _one(cursor, "SELECT hidden FROM players WHERE id = %s", (player.id,))
            hidden = bool(row and row["hidden"])
        row = _one(cursor, "INSERT INTO sheets (game, name, name_key, token, idempotency, kind, printed, boxes, "
                   "created, updated, player, hidden, state) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, "
                   "%s) RETURNING *",
                   (code, name, name_key(name), token or (player.token if player else secrets.token_urlsafe(18)),
                    idempotency, kind, printed, json.dumps(boxes), now, now, player.id if player else None, hidden,
                    state))
        assert row is not None
        return row

    def rename_sheet(self, code: str, sheet_id: int, name: str) -> SheetRow:
        """The host renames a sheet (and its player): the name must be free, as a join's."""
        def work(cursor: Cursor) -> SheetRow:
            _locked(cursor, code)
            sheet = _existing(cursor, code, sheet_id)
            _check_name_free(cursor, code, name, sheet.id, sheet.player)
            row = _one(cursor, "UPDATE sheets SET name = %s, name_key = %s, updated = %s WHERE id = %s RETURNING *",
                       (name, name_key(name), time.time(), sheet_id))
            if sheet.player is not None:
                cursor.execute("UPDATE players SET name = %s, name_key = %s WHERE id = %s",
                               (name, name_key(name), sheet.player))
            _bump(cursor, code)
            return _sheet(row)

        return self._change(work)

    def sheet(self, code: str, sheet_id: int) -> SheetRow | None:
        rows = self._read("SELECT * FROM sheets WHERE game = %s AND id = %s", (code, sheet_id))
        return _sheet(rows[0]) if rows else None

    def sheets(self, code: str) -> list[SheetRow]:
        return [_sheet(row) for row in self._read("SELECT * FROM sheets WHERE game = %s ORDER BY id", (code,))]

    def update_boxes(self, code: str, sheet_id: int,
                     change: Callable[[list[dict[str, Any]]], list[dict[str, Any]]], host: bool = False) -> SheetRow:
        """Changes a sheet's boxes: `change` is given the boxes as stored now (inside the write)."""
        def work(cursor: Cursor) -> SheetRow:
            game = _locked(cursor, code)
            if not host:
                _open_for_players(game, "only the host can still correct a sheet")
            boxes = change(_existing(cursor, code, sheet_id).boxes)
            cursor.execute("UPDATE sheets SET boxes = %s, updated = %s WHERE game = %s AND id = %s",
                           (json.dumps(boxes), time.time(), code, sheet_id))
            _bump(cursor, code)
            return _sheet(_rescore(cursor, sheet_id))  # the ranking moves in the same transaction as the boxes

        return self._change(work)

    def delete_sheet(self, code: str, sheet_id: int) -> None:
        def work(cursor: Cursor) -> None:
            _locked(cursor, code)
            _existing(cursor, code, sheet_id)  # removed meanwhile (a second click): 404, not a second "deleted"
            cursor.execute("DELETE FROM sheets WHERE game = %s AND id = %s", (code, sheet_id))  # crops, photo too
            _bump(cursor, code)
            _notify(cursor, f"{code}/{sheet_id}")  # a phone waiting on its photo's reading (web.sheet_key)

        self._change(work)

    def crop(self, sheet_id: int, box: int) -> bytes | None:
        rows = self._read("SELECT png FROM crops WHERE sheet = %s AND box = %s", (sheet_id, box))
        return bytes(rows[0]["png"]) if rows else None

    # --- big games: counts, pages and the ranking kept as sheets arrive (paperplay.serve.ranking) ---------------

    def counts(self, code: str) -> Counts:
        row = self._read("SELECT coalesce((SELECT joined FROM games WHERE code = %s), 0) AS joined, "
                         "count(*) AS handed_in, "
                         "count(*) FILTER (WHERE flagged > 0) AS to_check, count(*) FILTER (WHERE empty > 0) "
                         "AS incomplete, count(*) FILTER (WHERE flagged > empty) AS unsettled, "
                         "count(*) FILTER (WHERE ranked) AS ranked FROM sheets WHERE game = %s", (code, code))[0]
        return Counts(*(int(row[name]) for name in ("joined", "handed_in", "to_check", "incomplete", "unsettled",
                                                    "ranked")))

    def players_page(self, code: str, offset: int, limit: int) -> list[tuple[Player, int | None, int]]:
        """Players in the order they joined, `limit` from the `offset`-th, each with the id of the sheet they
        handed in (None: not yet) and its boxes to check."""
        rows = self._read("SELECT p.*, s.id AS sheet, s.flagged AS sheet_flagged FROM players AS p "
                          "LEFT JOIN sheets AS s ON s.player = p.id WHERE p.game = %s ORDER BY p.id LIMIT %s "
                          "OFFSET %s", (code, limit, offset))
        return [(_player(row), None if row["sheet"] is None else int(row["sheet"]), int(row["sheet_flagged"] or 0))
                for row in rows]

    def sheets_page(self, code: str, offset: int, limit: int) -> list[SheetRow]:
        """Sheets in the order they were handed in, `limit` from the `offset`-th."""
        return [_sheet(row) for row in self._read("SELECT * FROM sheets WHERE game = %s ORDER BY id LIMIT %s "
                                                  "OFFSET %s", (code, limit, offset))]

    def ranking(self, code: str, offset: int, limit: int) -> list[Ranked]:
        """The ranked sheets, highest total first (then in the order they were handed in), `limit` from the
        `offset`-th, each with its place."""
        from paperplay.serve.ranking import places

        with self._connection() as connection, connection.transaction():  # one snapshot for the page and its place
            rows = connection.execute("SELECT id, name, hidden, player, total FROM sheets WHERE game = %s AND ranked "
                                      "ORDER BY total DESC, id LIMIT %s OFFSET %s", (code, limit, offset)).fetchall()
            if not rows:
                return []
            above = connection.execute("SELECT count(*) AS n FROM sheets WHERE game = %s AND ranked AND total > %s",
                                       (code, rows[0]["total"])).fetchone()
        return places([(int(r["id"]), r["name"], r["hidden"], r["player"], int(r["total"])) for r in rows], offset,
                      int(above["n"] if above else 0) + 1)

    def place(self, code: str, sheet_id: int) -> tuple[int, int] | None:
        """A sheet's place in the ranking and the number of ranked sheets (None: it is not ranked)."""
        rows = self._read("SELECT (SELECT count(*) FROM sheets WHERE game = s.game AND ranked AND total > s.total) "
                          "AS above, (SELECT count(*) FROM sheets WHERE game = s.game AND ranked) AS of "
                          "FROM sheets AS s WHERE s.game = %s AND s.id = %s AND s.ranked", (code, sheet_id))
        return (int(rows[0]["above"]) + 1, int(rows[0]["of"])) if rows else None

    def standings(self, code: str) -> list[tuple[int, int]]:
        """Each total of the ranked sheets with how many have it, highest first (one pass over the ranking's
        index)."""
        return [(int(r["total"]), int(r["n"])) for r in self._read(
            "SELECT total, count(*) AS n FROM sheets WHERE game = %s AND ranked GROUP BY total ORDER BY total DESC",
            (code,))]

    def recent(self, code: str, limit: int) -> list[tuple[int, float]]:
        """The `limit` sheets changed last (id, when)."""
        return [(int(r["id"]), float(r["updated"])) for r in self._read(
            "SELECT id, updated FROM sheets WHERE game = %s ORDER BY updated DESC, id DESC LIMIT %s", (code, limit))]

    # --- photos read by photo workers (paperplay.serve.queue, paperplay.serve.store_photos) --------------------

    def add_photo(self, code: str, name: str | None, photo: bytes, idempotency: str | None = None,
                  player: Player | None = None, turns: int = 0) -> tuple[SheetRow, bool]:
        """Stores a photo's sheet as "reading" (its boxes empty), the photo, and its job, in one transaction:
        the sheet counts toward the game's players (and the player's one hand-in) from now on. Refused as
        add_sheet refuses (a name given must be free); returns the sheet and whether it is new."""
        def work(cursor: Cursor) -> tuple[SheetRow, bool]:
            done = self._admit(cursor, code, name, idempotency, player, turns)
            if done is not None:
                return done, False
            token = player.token if player is not None else secrets.token_urlsafe(18)
            shown = player.name if player is not None else name or store_photos.placeholder(token)
            row = self._insert(cursor, code, shown, "photo", store_photos.empty_boxes(), None, idempotency, player,
                               "reading", token)
            store_photos.keep_photo(cursor.connection, int(row["id"]), photo, player is not None or name is not None)
            _bump(cursor, code)
            return _sheet(_rescore(cursor, int(row["id"]))), True

        return self._change(work)

    def photo_job(self, sheet_id: int) -> PhotoJob | None:
        """What a worker needs to read a "reading" sheet's photo; None when it is gone or read already."""
        from paperplay.serve.queue import PhotoJob

        with self._connection() as connection:
            found = store_photos.photo_job(connection, sheet_id)
        if found is None:
            return None
        code, photo, name = found
        game = self.game(code)
        return None if game is None else PhotoJob(sheet_id, game, photo, name)

    def finish_photo(self, sheet_id: int, taken: PhotoTaken | PhotoRefused) -> str | None:
        """Stores what a sheet's photo gave ("read", "refused"; None: the sheet is gone or stored already), with
        its game's row locked first (as every write locks it)."""
        def work(cursor: Cursor) -> str | None:
            row = _one(cursor, "SELECT game FROM sheets WHERE id = %s", (sheet_id,))
            if row is None:
                return None
            _locked(cursor, str(row["game"]))
            outcome = store_photos.finish(cursor.connection, sheet_id, taken, _bump_on, _notify_on)
            if outcome == "read":
                _rescore(cursor, sheet_id)
            return outcome

        return self._change(work)

    def refusal(self, code: str, sheet_id: int | None = None, idempotency: str | None = None) -> Refusal | None:
        with self._connection() as connection:
            return store_photos.refusal(connection, code, sheet_id, idempotency)

    def requeue_photos(self, older: float) -> list[int]:
        with self._connection() as connection, connection.transaction():
            return store_photos.requeue(connection, older)

    def forget_refusals(self, kept: float) -> int:
        with self._connection() as connection:
            return store_photos.forget_refusals(connection, kept)


# --- the schema ---------------------------------------------------------------------------------------------------

def migrate(connection: psycopg.Connection[Any]) -> int:
    """Brings the database's schema to SCHEMA_VERSION under an advisory lock (servers starting together
    migrate once) and makes the host's key if there is none; the version it had (0: a new database). A
    database of a newer paperplay: DatabaseRefused."""
    with connection.transaction(), connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        cursor.execute("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
        cursor.execute("SELECT value FROM meta WHERE name = 'schema'")
        row = cursor.fetchone()
        version = int(row[0]) if row is not None and str(row[0]).isdigit() else (0 if row is None else -1)
        if not 0 <= version <= SCHEMA_VERSION:
            raise DatabaseRefused(f"its paperplay schema is version {row[0] if row else '?'}, made by a newer "
                                  f"paperplay; this one reads versions 1-{SCHEMA_VERSION}: upgrade paperplay")
        for step in range(version + 1, SCHEMA_VERSION + 1):
            for statement in MIGRATIONS[step]:
                cursor.execute(statement)
        if 0 < version < 3:  # the sheets stored before their standing was kept
            with connection.cursor(row_factory=dict_row) as rows:
                for (sheet_id,) in cursor.execute("SELECT id FROM sheets").fetchall():
                    _rescore(rows, int(sheet_id))
        cursor.execute("INSERT INTO meta VALUES ('schema', %s) ON CONFLICT (name) DO UPDATE SET value = "
                       "excluded.value", (str(SCHEMA_VERSION),))
        now = str(time.time())
        cursor.execute("INSERT INTO meta VALUES ('host_key', %s), ('host_key_made', %s) ON CONFLICT DO NOTHING",
                       (secrets.token_urlsafe(24), now))
    from paperplay.serve.queue import ensure_schema

    ensure_schema(connection)  # the photo queue's tables (procrastinate's)
    return version


# --- the parts of a write -------------------------------------------------------------------------------------------

def _one(cursor: Cursor, query: str, args: Sequence[Any]) -> dict[str, Any] | None:
    cursor.execute(query, args)
    return cursor.fetchone()


def _count(cursor: Cursor, query: str, args: Sequence[Any]) -> int:
    row = _one(cursor, query, args)
    return int(row["n"]) if row is not None else 0


def _locked(cursor: Cursor, code: str) -> Game:
    """The game's row, locked until the transaction ends: the game's writes take turns, in every process."""
    row = _one(cursor, "SELECT * FROM games WHERE code = %s FOR UPDATE", (code,))
    if row is None:
        raise Conflict(f"code: no game {code[:4]}-{code[4:]} here", Code.NO_GAME)
    return _game(row)


def _notify(cursor: Cursor, key: str) -> None:
    """Wakes the pages following `key` in every server process, once the transaction commits."""
    cursor.execute("SELECT pg_notify(%s, %s)", (CHANNEL, key))


def _bump(cursor: Cursor, code: str) -> dict[str, Any]:
    """The game changed: its version goes up and every server's pages following it are woken (at commit)."""
    row = _one(cursor, "UPDATE games SET version = version + 1 WHERE code = %s RETURNING *, pg_notify(%s, code)",
               (code, CHANNEL))
    assert row is not None
    return row


def _bump_on(connection: Any, code: str) -> None:
    with connection.cursor(row_factory=dict_row) as cursor:
        _bump(cursor, code)


def _notify_on(connection: Any, key: str) -> None:
    with connection.cursor(row_factory=dict_row) as cursor:
        _notify(cursor, key)


def _new_key(cursor: Cursor) -> str:
    key = secrets.token_urlsafe(24)
    cursor.execute("INSERT INTO meta VALUES ('host_key', %s), ('host_key_made', %s) ON CONFLICT (name) DO UPDATE "
                   "SET value = excluded.value", (key, str(time.time())))
    return key


def _rescore(cursor: Cursor, sheet_id: int) -> dict[str, Any]:
    """Keeps a sheet's standing (total, ranked, flagged, empty) in its columns, refereed as the results referee it
    (paperplay.serve.ranking.standing), in the transaction that stored its boxes; the sheet's row as it is now."""
    from paperplay.serve.ranking import standing

    row = _one(cursor, "SELECT s.kind, s.boxes, s.name, g.seed, g.variant, g.code FROM sheets AS s JOIN games AS g "
               "ON g.code = s.game WHERE s.id = %s", (sheet_id,))
    assert row is not None
    now = standing(row["seed"], row["variant"], row["kind"], json.loads(row["boxes"]), row["code"], row["name"])
    stored = _one(cursor, "UPDATE sheets SET total = %s, ranked = %s, flagged = %s, empty = %s WHERE id = %s "
                  "RETURNING *", (now.total, now.ranked, now.flagged, now.empty, sheet_id))
    assert stored is not None
    return stored


def _taken(cursor: Cursor, code: str) -> int:
    """The places of a game taken: its players (handed in or not) and its sheets handed in by name alone (kept
    counted in its row by the triggers of migrations 4 and 6)."""
    return _count(cursor, "SELECT joined + alone AS n FROM games WHERE code = %s", (code,))


def _waiting(cursor: Cursor, code: str) -> int:
    """Players who joined the game and have not handed in yet."""
    return _count(cursor, "SELECT (SELECT count(*) FROM players WHERE game = %s) - (SELECT count(*) FROM sheets "
                          "WHERE game = %s AND player IS NOT NULL) AS n", (code, code))


def _existing(cursor: Cursor, code: str, sheet_id: int) -> SheetRow:
    row = _one(cursor, "SELECT * FROM sheets WHERE game = %s AND id = %s", (code, sheet_id))
    if row is None:
        raise Conflict(f"id: no sheet {sheet_id} in game {code[:4]}-{code[4:]} (removed meanwhile)", Code.NO_SHEET)
    return _sheet(row)


def _check_name_free(cursor: Cursor, code: str, name: str, sheet_id: int | None = None,
                     player_id: int | None = None) -> None:
    """Refuses a name whose key is a player's or a sheet's of the game already (but for the sheet and player
    given, a rename's own): one lookup in each table's (game, name_key) index."""
    wanted = name_key(name)
    for table, own in (("players", player_id), ("sheets", sheet_id)):
        query = pgsql.SQL("SELECT id, name FROM {} WHERE game = %s AND name_key = %s").format(pgsql.Identifier(table))
        cursor.execute(query, (code, wanted))
        for row in cursor.fetchall():
            if row["id"] != own:
                same = "is" if row["name"] == name else f"looks the same as {row['name']!r}, which is"
                raise Conflict(f"name: {name!r} {same} taken in this game; choose another name", Code.NAME_TAKEN)


def _called(callback: Callable[[str], None], key: str) -> None:
    try:
        callback(key)
    except Exception as exc:  # noqa: BLE001 - a callback's bug must not stop the listener
        logger.error("paperplay: a notification's callback failed: %s: %s", type(exc).__name__, exc)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _game(row: dict[str, Any] | None) -> Game:
    assert row is not None
    return Game(row["code"], row["seed"], row["variant"], row["lang"], row["players"], row["turn"],
                bool(row["revealed"]), int(row["version"]), float(row["created"]), bool(row["locked"]),
                row["view"] or "")


def _sheet(row: dict[str, Any] | None) -> SheetRow:
    assert row is not None
    return SheetRow(int(row["id"]), row["game"], row["name"], row["token"], row["idempotency"], row["kind"],
                    row["printed"], json.loads(row["boxes"]), float(row["created"]), float(row["updated"]),
                    None if row["player"] is None else int(row["player"]), bool(row["hidden"]),
                    str(row.get("state") or "read"), int(row["total"]) if row.get("ranked") else None)


def _player(row: dict[str, Any] | None) -> Player:
    assert row is not None
    return Player(int(row["id"]), row["game"], row["name"], row["token"], float(row["joined"]), bool(row["hidden"]),
                  int(row.get("number") or 0))
