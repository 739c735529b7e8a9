"""The store contract (paperplay.serve.store.Store): SqliteStore and PgStore answer every call alike, each rule
with a legal and an illegal case (any_store runs each test against both); PgStore's own: migrations, two server
processes on one database (two stores), LISTEN/NOTIFY, a URL's password never shown."""

from __future__ import annotations

import threading
import time

import pytest

from paperplay.serve.errors import Code, Conflict

CODE = "P2QPHGPH"
SEED = "7KQ2M9XD"
TURNS = 20


def _boxes(value: int = 1) -> list[dict]:
    from paperplay.handin import typed_boxes

    return typed_boxes([value] * TURNS)


def _refused(code: Code, call, *args, **kwargs) -> Conflict:
    with pytest.raises(Conflict) as caught:
        call(*args, **kwargs)
    assert caught.value.code == code, (caught.value.code, str(caught.value))
    return caught.value


def _game(store, players: int = 3, called: int = TURNS) -> str:
    store.create_game(CODE, SEED, None, "en", players)
    for _ in range(called):
        store.call(CODE, TURNS)
    return CODE


def test_a_store_says_its_kind_and_its_largest_game(any_store):
    assert (any_store.kind, any_store.max_players) in {("sqlite", 200), ("postgresql", 100_000)}


def test_the_host_key_stays_until_a_new_one_is_made(any_store):
    key = any_store.host_key()
    assert len(key) >= 30 and any_store.host_key() == key and any_store.host_key_made() <= time.time()
    new = any_store.new_host_key()
    assert new != key and any_store.host_key() == new


def test_a_game_is_made_once(any_store):
    game = any_store.create_game(CODE, SEED, None, "en", 4)
    assert (game.code, game.players, game.turn, game.revealed, game.locked) == (CODE, 4, 0, False, False)
    assert len(game.view) >= 20 and any_store.game(CODE) == game
    assert [g.code for g in any_store.games()] == [CODE]
    _refused(Code.GAME_EXISTS, any_store.create_game, CODE, SEED, None, "en", 4)
    assert any_store.game("NOSUCHGM") is None and len(any_store.games()) == 1


def test_tiles_are_called_in_turn_until_all_are_called(any_store):
    any_store.create_game(CODE, SEED, None, "en", 4)
    game, new = any_store.call(CODE, TURNS, 1)
    assert new and game.turn == 1
    again, new = any_store.call(CODE, TURNS, 1)  # a retried call: answered again, nothing called
    assert not new and again.turn == 1 and again.version == game.version
    _refused(Code.WRONG_TURN, any_store.call, CODE, TURNS, 3)
    for _ in range(TURNS - 1):
        any_store.call(CODE, TURNS)
    _refused(Code.ALL_CALLED, any_store.call, CODE, TURNS)
    assert any_store.game(CODE).turn == TURNS


def test_joining_by_name(any_store):
    code = _game(any_store, players=2)
    ann, new = any_store.join(code, "Ann", "key-1")
    assert new and ann.name == "Ann" and len(ann.token) >= 20
    again, new = any_store.join(code, "Ann", "key-1")  # a retried join finds the player it made
    assert not new and again == ann
    error = _refused(Code.NAME_TAKEN, any_store.join, code, "ＡＮＮ")  # a lookalike (full-width letters)
    assert "looks the same as 'Ann'" in str(error)
    bob, _ = any_store.join(code, "Bob")
    _refused(Code.GAME_FULL, any_store.join, code, "Cy")
    assert [p.name for p in any_store.players(code)] == ["Ann", "Bob"]
    assert any_store.player_by_token(code, bob.token) == bob and any_store.player_by_token(code, "nope") is None


def test_a_revealed_or_locked_game_takes_no_one(any_store):
    code = _game(any_store)
    any_store.update_game(code, locked=True)
    _refused(Code.LOCKED, any_store.join, code, "Ann")
    _refused(Code.LOCKED, any_store.add_sheet, code, "Ann", "typed", _boxes(), turns=TURNS)
    any_store.update_game(code, locked=False)
    any_store.join(code, "Ann")
    game = any_store.reveal(code)
    assert game.revealed and any_store.reveal(code).version == game.version  # revealed once
    _refused(Code.REVEALED, any_store.join, code, "Bob")
    _refused(Code.REVEALED, any_store.add_sheet, code, "Bob", "typed", _boxes(), turns=TURNS)
    _refused(Code.REVEALED, any_store.call, code, TURNS)


def test_hand_ins_open_after_the_last_tile(any_store):
    code = _game(any_store, called=TURNS - 1)
    _refused(Code.TOO_EARLY, any_store.add_sheet, code, "Ann", "typed", _boxes(), turns=TURNS)
    any_store.call(code, TURNS)
    sheet, new = any_store.add_sheet(code, "Ann", "typed", _boxes(), turns=TURNS)
    assert new and sheet.name == "Ann" and sheet.cells == [1] * TURNS and sheet.state == "read"


def test_a_hand_in_is_stored_once(any_store):
    code = _game(any_store)
    first, new = any_store.add_sheet(code, "Ann", "typed", _boxes(), idempotency="k", turns=TURNS)
    again, new_again = any_store.add_sheet(code, "Ann", "typed", _boxes(2), idempotency="k", turns=TURNS)
    assert new and not new_again and again == first and any_store.by_idempotency(code, "k") == first
    assert any_store.by_idempotency(code, "other") is None and len(any_store.sheets(code)) == 1
    _refused(Code.NAME_TAKEN, any_store.add_sheet, code, "ann", "typed", _boxes(), turns=TURNS)


def test_a_printed_sheet_is_handed_in_once(any_store):
    code = _game(any_store)
    any_store.add_sheet(code, "Ann", "photo", _boxes(), printed="3/40", crops=[b"png1", b"png2"], turns=TURNS)
    error = _refused(Code.SHEET_USED, any_store.add_sheet, code, "Bob", "photo", _boxes(), printed="3/40",
                     turns=TURNS)
    assert "'Ann'" in str(error)
    sheet = any_store.sheets(code)[0]
    assert any_store.crop(sheet.id, 2) == b"png2" and any_store.crop(sheet.id, 3) is None


def test_a_player_hands_in_once_and_the_game_fills(any_store):
    code = _game(any_store, players=2)
    ann, _ = any_store.join(code, "Ann")
    sheet, _ = any_store.add_sheet(code, "Ann", "typed", _boxes(), player=ann, turns=TURNS)
    assert sheet.player == ann.id and sheet.token == ann.token
    _refused(Code.HANDED_IN, any_store.add_sheet, code, "Ann", "typed", _boxes(), player=ann, turns=TURNS)
    _refused(Code.HANDED_IN, any_store.delete_player, code, ann.id)
    any_store.add_sheet(code, "Bob", "typed", _boxes(), turns=TURNS)
    _refused(Code.GAME_FULL, any_store.add_sheet, code, "Cy", "typed", _boxes(), turns=TURNS)


def test_a_removed_player_cannot_hand_in(any_store):
    code = _game(any_store)
    ann, _ = any_store.join(code, "Ann")
    assert any_store.delete_player(code, ann.id) is True
    assert any_store.delete_player(code, ann.id) is False
    _refused(Code.NOT_YOURS, any_store.add_sheet, code, "Ann", "typed", _boxes(), player=ann, turns=TURNS)


def test_players_never_below_the_sheets(any_store):
    code = _game(any_store, players=4)
    any_store.add_sheet(code, "Ann", "typed", _boxes(), turns=TURNS)
    any_store.add_sheet(code, "Bob", "typed", _boxes(), turns=TURNS)
    any_store.join(code, "Cy")
    error = _refused(Code.PLAYERS_BELOW, any_store.update_game, code, players=1)
    assert "2 sheets are handed in already" in str(error)
    error = _refused(Code.PLAYERS_BELOW, any_store.update_game, code, players=2)
    assert "1 more players have joined" in str(error)
    assert any_store.game(code).players == 4
    assert any_store.update_game(code, players=3).players == 3


def test_sheets_are_renamed_hidden_corrected_and_removed(any_store):
    code = _game(any_store)
    ann, _ = any_store.join(code, "Ann")
    sheet, _ = any_store.add_sheet(code, "Ann", "typed", _boxes(), player=ann, turns=TURNS)
    other, _ = any_store.add_sheet(code, "Bob", "typed", _boxes(), turns=TURNS)
    _refused(Code.NAME_TAKEN, any_store.rename_sheet, code, sheet.id, "BOB")
    renamed = any_store.rename_sheet(code, sheet.id, "Anna")
    assert renamed.name == "Anna" and any_store.players(code)[0].name == "Anna"
    assert any_store.rename_sheet(code, sheet.id, "anna").name == "anna"  # its own name, in other letters
    assert any_store.hide(code, True, player_id=ann.id) is True
    assert any_store.sheet(code, sheet.id).hidden and any_store.players(code)[0].hidden
    assert any_store.hide(code, True, sheet_id=999_999) is False and any_store.hide(code, True, 999_999) is False
    version = any_store.game(code).version

    def doubled(boxes):
        return [{**box, "value": 2} for box in boxes]

    assert any_store.update_boxes(code, other.id, doubled).cells == [2] * TURNS
    assert any_store.game(code).version == version + 1
    any_store.delete_sheet(code, other.id)
    _refused(Code.NO_SHEET, any_store.delete_sheet, code, other.id)  # a second click
    _refused(Code.NO_SHEET, any_store.update_boxes, code, other.id, doubled)
    assert [s.id for s in any_store.sheets(code)] == [sheet.id] and any_store.sheet(code, other.id) is None
    any_store.reveal(code)
    _refused(Code.REVEALED, any_store.update_boxes, code, sheet.id, doubled)
    assert any_store.update_boxes(code, sheet.id, doubled, host=True).cells == [2] * TURNS


def test_every_change_raises_the_version(any_store):
    code = _game(any_store)
    seen = [any_store.game(code).version]
    ann, _ = any_store.join(code, "Ann")
    seen.append(any_store.game(code).version)
    sheet, _ = any_store.add_sheet(code, "Ann", "typed", _boxes(), player=ann, turns=TURNS)
    seen.append(any_store.game(code).version)
    any_store.update_game(code, locked=True)
    seen.append(any_store.game(code).version)
    any_store.reveal(code)
    seen.append(any_store.game(code).version)
    assert seen == sorted(set(seen)), seen
    before = any_store.game(code).version
    _refused(Code.REVEALED, any_store.join, code, "Bob")  # a refused change changes nothing
    assert any_store.game(code).version == before


# --- PostgreSQL: schema, several processes, notifications ----------------------------------------------------------

def test_a_new_database_is_migrated_and_a_newer_one_refused(pg_fresh_url):
    import psycopg

    from paperplay.serve.store import DatabaseRefused
    from paperplay.serve.store_pg import SCHEMA_VERSION, PgStore

    first = PgStore(pg_fresh_url)
    second = PgStore(pg_fresh_url)  # a second server: nothing left to migrate, the same key
    try:
        assert first.migrated_from == 0 and second.migrated_from == SCHEMA_VERSION
        assert first.host_key() == second.host_key()
    finally:
        first.close()
        second.close()
    with psycopg.connect(pg_fresh_url, autocommit=True) as connection:
        connection.execute("UPDATE meta SET value = %s WHERE name = 'schema'", (str(SCHEMA_VERSION + 1),))
    with pytest.raises(DatabaseRefused, match=f"version {SCHEMA_VERSION + 1}, made by a newer paperplay"):
        PgStore(pg_fresh_url)


def test_a_database_of_an_older_version_is_migrated_in_place(pg_fresh_url):
    """A database made by an earlier paperplay (schema version 2: no standings, player numbers or counts) is
    brought up to date on start: its sheets are scored, its players numbered, its places counted."""
    import json

    import psycopg

    from paperplay.serve import store_pg
    from paperplay.streams.rules import draw, tile_json

    with psycopg.connect(pg_fresh_url, autocommit=True) as connection:
        connection.execute("CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
        for step in (1, 2):
            for statement in store_pg.MIGRATIONS[step]:
                connection.execute(statement)
        connection.execute("INSERT INTO meta VALUES ('schema', '2'), ('host_key', 'old-key-0123456789'), "
                           "('host_key_made', '1.7e9')")
        connection.execute("INSERT INTO games (code, seed, lang, players, turn, created, view) VALUES "
                           "(%s, %s, 'en', 4, 20, 1.7e9, 'v')", (CODE, SEED))
        cells = json.dumps(_boxes_of([tile_json(t) for t in draw(SEED)]))
        for name in ("Ann", "Bob"):
            connection.execute("INSERT INTO sheets (game, name, name_key, token, kind, boxes, created, updated) "
                               "VALUES (%s, %s, %s, 't', 'typed', %s, 0, 0)", (CODE, name, name.lower(), cells))
        connection.execute("INSERT INTO players (game, name, name_key, token, joined) VALUES (%s, 'Cy', 'cy', 't', 0)",
                           (CODE,))
    store = store_pg.PgStore(pg_fresh_url, 2)
    try:
        assert store.migrated_from == 2 and store.host_key() == "old-key-0123456789"
        assert [r.place for r in store.ranking(CODE, 0, 10)] == [1, 1]
        assert store.players(CODE)[0].number == 1 and store.counts(CODE).joined == 1
        store.add_sheet(CODE, "Di", "typed", _boxes(), turns=TURNS)  # the 4th place of 4: 2 sheets, Cy, Di
        _refused(Code.GAME_FULL, store.join, CODE, "Ed")
    finally:
        store.close()


def _boxes_of(cells: list) -> list[dict]:
    from paperplay.handin import typed_boxes

    return typed_boxes(cells)


def test_servers_started_together_migrate_once(pg_fresh_url):
    from paperplay.serve.store_pg import PgStore

    stores: list = []
    errors: list = []

    def start() -> None:
        try:
            stores.append(PgStore(pg_fresh_url, size=2))
        except Exception as exc:  # noqa: BLE001 - told below
            errors.append(exc)

    threads = [threading.Thread(target=start) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert errors == [] and sorted(s.migrated_from for s in stores)[0] == 0
        assert len({s.host_key() for s in stores}) == 1
    finally:
        for store in stores:
            store.close()


@pytest.fixture
def two_servers(pg_clean_url):
    from paperplay.serve.store_pg import PgStore

    one, other = PgStore(pg_clean_url, size=4), PgStore(pg_clean_url, size=4)
    yield one, other
    one.close()
    other.close()


def test_a_unique_index_is_the_backstop_and_answers_as_the_check_would(pg_clean_url):
    """Were two writes ever to pass the checks together, the unique indexes refuse the second: the same Conflict
    (name_taken, sheet_used, handed_in), nothing half-stored."""
    from paperplay.serve.store_pg import PgStore

    store = PgStore(pg_clean_url, size=2)
    try:
        code = _game(store)
        ann, _ = store.join(code, "Ann")
        store.add_sheet(code, "Bob", "typed", _boxes(), printed="3/40", turns=TURNS)
        store.add_sheet(code, "Ann", "typed", _boxes(), player=ann, turns=TURNS)
        for sql, args, code_wanted in (
                ("INSERT INTO players (game, name, name_key, token, joined) VALUES (%s, 'ann', 'ann', 't', 0)", (code,),
                 Code.NAME_TAKEN),
                ("INSERT INTO sheets (game, name, name_key, token, kind, printed, boxes, created, updated) VALUES "
                 "(%s, 'Cy', 'cy', 't', 'photo', '3/40', '[]', 0, 0)", (code,), Code.SHEET_USED),
                ("INSERT INTO sheets (game, name, name_key, token, kind, boxes, created, updated, player) VALUES "
                 "(%s, 'Di', 'di', 't', 'typed', '[]', 0, 0, %s)", (code, ann.id), Code.HANDED_IN)):
            _refused(code_wanted, store._change, lambda cursor, q=sql, a=args: cursor.execute(q, a))
        assert [p.name for p in store.players(code)] == ["Ann"] and len(store.sheets(code)) == 2
    finally:
        store.close()


def test_a_games_places_are_counted_as_they_come_and_go(pg_clean_url):
    """PgStore keeps a game's players and sheets by name alone counted in its row (a join at 100,000 players
    counts no rows): the counts stay the rows' through joins, removals and hand-ins, and the last place is
    refused and freed as on SQLite."""
    import psycopg

    from paperplay.serve.store_pg import PgStore

    store = PgStore(pg_clean_url, size=2)
    try:
        code = _game(store, players=4)
        ann, _ = store.join(code, "Ann")
        bob, _ = store.join(code, "Bob")
        store.add_sheet(code, "Ann", "typed", _boxes(), player=ann, turns=TURNS)
        cy, _ = store.add_sheet(code, "Cy", "typed", _boxes(), turns=TURNS)
        store.add_sheet(code, "Di", "typed", _boxes(), turns=TURNS)
        _refused(Code.GAME_FULL, store.join, code, "Ed")
        store.delete_sheet(code, cy.id)
        store.delete_player(code, bob.id)
        store.join(code, "Ed")
        with psycopg.connect(pg_clean_url) as connection:
            kept = connection.execute("SELECT joined, alone FROM games WHERE code = %s", (code,)).fetchone()
            rows = connection.execute("SELECT (SELECT count(*) FROM players WHERE game = %s), (SELECT count(*) FROM "
                                      "sheets WHERE game = %s AND player IS NULL)", (code, code)).fetchone()
        assert kept == rows == (2, 1)
        assert store.counts(code).joined == 2
    finally:
        store.close()


def test_a_join_through_one_server_is_seen_by_the_other(two_servers):
    one, other = two_servers
    code = _game(one)
    ann, _ = one.join(code, "Ann", "k")
    assert other.players(code) == [ann] and other.player_by_token(code, ann.token) == ann
    assert other.join(code, "Ann", "k") == (ann, False)  # the retry reaches the other server: the same player
    _refused(Code.NAME_TAKEN, other.join, code, "ANN")
    assert other.host_key() == one.host_key() and other.game(code).view == one.game(code).view


def test_the_last_place_goes_to_exactly_one_of_many_at_once(two_servers):
    one, other = two_servers
    code = _game(one, players=5)
    for name in ("A", "B", "C", "D"):
        one.join(code, name)
    outcomes: list = []
    start = threading.Barrier(8)

    def join(store, name: str) -> None:
        start.wait()
        try:
            store.join(code, name)
            outcomes.append("joined")
        except Conflict as exc:
            outcomes.append(exc.code)

    threads = [threading.Thread(target=join, args=((one, other)[i % 2], f"late {i}")) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(map(str, outcomes)) == sorted(["joined"] + [str(Code.GAME_FULL)] * 7)
    assert len(other.players(code)) == 5


def test_one_name_at_once_through_two_servers_is_taken_once(two_servers):
    one, other = two_servers
    code = _game(one, players=50)
    outcomes: list = []
    start = threading.Barrier(6)

    def hand_in(store, name: str) -> None:
        start.wait()
        try:
            store.add_sheet(code, name, "typed", _boxes(), turns=TURNS)
            outcomes.append("stored")
        except Conflict as exc:
            outcomes.append(exc.code)

    threads = [threading.Thread(target=hand_in, args=((one, other)[i % 2], ("Zoë", "ZOË", "zoë")[i % 3]))
               for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(map(str, outcomes)) == sorted(["stored"] + [str(Code.NAME_TAKEN)] * 5)


def test_a_change_through_one_server_wakes_the_other_within_two_seconds(two_servers):
    one, other = two_servers
    code = _game(one)
    heard: list[str] = []
    woken = threading.Event()

    def callback(key: str) -> None:
        heard.append(key)
        woken.set()

    other.listen(callback)
    started = time.monotonic()
    one.join(code, "Ann")
    assert woken.wait(2.0), "no notification within 2 s"
    assert code in heard and time.monotonic() - started < 2.0
    heard.clear()
    woken.clear()
    _refused(Code.NAME_TAKEN, one.join, code, "ann")  # a refused change commits nothing: no notification
    one.call(code, TURNS, TURNS)  # an answered retry changes nothing either
    time.sleep(0.3)
    assert heard == []


def test_the_listener_connects_again_and_wakes_every_game(two_servers, pg_clean_url):
    import psycopg

    from paperplay.serve import store_pg

    one, other = two_servers
    code = _game(one)
    heard: list[str] = []
    other.listen(heard.append)
    with psycopg.connect(pg_clean_url, autocommit=True) as admin:  # this database's listeners alone
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = %s AND datname = "
                      "current_database()", (f"LISTEN {store_pg.CHANNEL}",))
    deadline = time.monotonic() + 5
    while code not in heard and time.monotonic() < deadline:
        time.sleep(0.05)
    assert code in heard, "the listener did not come back"
    heard.clear()
    one.join(code, "Ann")
    deadline = time.monotonic() + 2
    while code not in heard and time.monotonic() < deadline:
        time.sleep(0.05)
    assert code in heard


def test_an_unreachable_database_is_one_line_without_its_password(pg_url):
    from urllib.parse import urlsplit

    from conftest import run_paperplay

    parts = urlsplit(pg_url)
    for url in ("postgresql://ann:S3cretPw@127.0.0.1:1/games",
                f"postgresql://ann:S3cretPw@{parts.hostname}:{parts.port}/paperplay_no_such_db"):
        result = run_paperplay("serve", "--db", url, "--port", "0", timeout=60)
        assert result.returncode == 2, result.stdout + result.stderr
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("paperplay: error: --db: is postgresql://ann:***@"), lines
        assert "S3cretPw" not in result.stdout + result.stderr


def test_the_laptop_evening_never_imports_psycopg(tmp_path):
    """A SQLite game night (no --db, or a file) loads neither psycopg nor procrastinate: the serve-pg extra is
    for PostgreSQL alone (and the laptop's start stays as quick as it was)."""
    import subprocess
    import sys

    program = ("import sys\n"
               "from paperplay.cli import serve_cmds\n"
               "from paperplay.serve.app import Server, build_app\n"
               "from paperplay.serve.photos import PhotoReader\n"
               f"store = serve_cmds._open_store({str(tmp_path / 'games.db')!r})\n"
               "build_app(Server(store, PhotoReader(1, 1), 'http://127.0.0.1:1'))\n"
               "store.close()\n"
               "print(store.kind, sorted(m for m in sys.modules if m.split('.')[0] in "
               "('psycopg', 'psycopg_pool', 'procrastinate') or m == 'paperplay.serve.store_pg'))\n")
    done = subprocess.run([sys.executable, "-W", "ignore", "-c", program], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "sqlite []"


def test_a_postgresql_url_without_the_extra_names_the_extra(tmp_path):
    """Without psycopg (the serve-pg extra), serve --db postgresql://… says which extra to install: one line,
    exit 2, the password not in it."""
    import subprocess
    import sys

    program = ("import sys\n"
               "sys.modules['psycopg'] = None  # not installed\n"
               "sys.argv = ['paperplay', 'serve', '--port', '0', '--db', 'postgresql://ann:S3cretPw@127.0.0.1/night']\n"
               "from paperplay.cli.entry import main\n"
               "main()\n")
    import os
    from pathlib import Path

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    done = subprocess.run([sys.executable, "-W", "ignore", "-c", program], capture_output=True, text=True,
                          timeout=60, cwd=tmp_path, env=env)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "needs the serve-pg extra" in lines[0] and "pip install '.[serve,serve-pg]'" in lines[0]
    assert "S3cretPw" not in done.stdout + done.stderr
