"""Two `paperplay serve` processes and two `paperplay worker` processes on one PostgreSQL database, driven the way
a room drives them: the host creates the game through server A, players join through both, a tile called
through A reaches the phones waiting on B, typed sheets and photos are handed in through both, one server and
one worker are killed (kill -9) in the middle, and afterwards every acknowledged sheet is there once, every
photo is read once, and the reveal and the results pass the laptop evening's checks (the results are what
`paperplay score --json` prints for the same sheets).

Marked `multiprocess`: deselected from the default run; `.ci/run` runs them as their own step
(`pytest -m multiprocess`), with a PostgreSQL cluster of its own (PAPERPLAY_TEST_POSTGRES).
"""

from __future__ import annotations

import asyncio
import http.client
import os
import threading
import time
from pathlib import Path

import pytest

for _module in ("starlette", "uvicorn", "multipart"):
    pytest.importorskip(_module, reason="paperplay serve needs the serve extra (pip install '.[serve]')")
for _module in ("psycopg", "psycopg_pool", "procrastinate"):
    pytest.importorskip(_module, reason="PostgreSQL games need the serve-pg extra (pip install '.[serve-pg]')")

from lab.crowd import (  # noqa: E402
    Served, all_sheets, crowd_waits, start_servers, start_worker, stop_worker, stored_once, upload_photos,
)
from lab.loadtest import Client  # noqa: E402
from paperplay.seeds import canonical_seed, display_code, game_code  # noqa: E402
from paperplay.streams.rules import draw, tile_json  # noqa: E402
from test_serve_api import score_json  # noqa: E402
from test_serve_process import photos_of  # noqa: E402

pytestmark = pytest.mark.multiprocess

SEED = "MULTIPROCESS-ROOM"
CODE = display_code(game_code("streams", canonical_seed(SEED)))
TILES = [tile_json(t) for t in draw(canonical_seed(SEED))]
PLAYERS = 40
PHOTOS = 6
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def database():
    """A new database of its own in PAPERPLAY_TEST_POSTGRES's cluster, dropped afterwards."""
    admin = os.environ.get("PAPERPLAY_TEST_POSTGRES")
    if not admin:
        pytest.skip("PostgreSQL: set PAPERPLAY_TEST_POSTGRES=postgresql://USER@HOST:PORT/postgres (a cluster the "
                    "tests may make databases in)")
    import psycopg

    from lab.pgcluster import fresh_database

    try:
        psycopg.connect(admin, connect_timeout=5).close()
    except psycopg.OperationalError as exc:
        pytest.skip(f"PostgreSQL: PAPERPLAY_TEST_POSTGRES cannot be reached ({str(exc).strip().splitlines()[0]})")
    with fresh_database(admin, "paperplay_multiprocess") as url:
        yield url


@pytest.fixture(scope="module")
def photos():
    return photos_of(SEED, PHOTOS, PLAYERS)


class Room:
    """The processes of the test: two servers and two workers, stopped at the end whatever happened."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.servers: list[Served] = start_servers(url, 2)
        self.workers = [start_worker(url), start_worker(url)]
        self.logs: list[str] = []
        self.stopped = False

    @property
    def a(self) -> Client:
        return Client(self.servers[0].base, self.servers[0].key, timeout=30)

    @property
    def b(self) -> Client:
        return Client(self.servers[1].base, self.servers[1].key, timeout=30)

    def stop(self) -> None:
        if self.stopped:
            return
        self.stopped = True
        self.logs += [s.stop() for s in self.servers]
        self.logs += [stop_worker(w) for w in self.workers]


@pytest.fixture
def room(database):
    running = Room(database)
    yield running
    running.stop()


def test_two_servers_and_two_workers_play_a_room_with_kill_9_among_them(room, photos, tmp_path):
    a, b = room.a, room.b
    started = time.monotonic()
    # the host creates the game through A; its key, the projector's view token and the game hold on B too
    created = a.post("/api/games", {"players": PLAYERS, "seed": SEED}, host=True)
    assert created.status == 201, created.body
    projector = created.json()["projector_url"]
    view = projector.split("?view=")[1]
    assert b.get(f"/projector/{CODE}?view={view}").status == 200
    assert b.get(f"/projector/{CODE}?view=not-the-token").status in (401, 403)
    assert [g["code"] for g in b.get("/api/games", host=True).json()["games"]] == [CODE]
    assert b.get("/api/games", headers={"X-Paperplay-Key": "not-the-key"}).status == 401

    # players join through both servers; a lookalike of a name taken through A is refused through B
    joined = {}
    for i in range(24):
        client = a if i % 2 == 0 else b
        answer = client.post(f"/api/games/{CODE}/players", {"name": f"Player {i}"},
                             headers={"Idempotency-Key": f"join-player-{i:04d}"})
        assert answer.status == 201, answer.body
        joined[i] = answer.json()
    lookalike = b.post(f"/api/games/{CODE}/players", {"name": "PLAYER\u200b 0"})
    assert lookalike.status == 409 and lookalike.json()["code"] == "name_taken", lookalike.body
    again = b.post(f"/api/games/{CODE}/players", {"name": "Player 0"}, headers={"Idempotency-Key": "join-player-0000"})
    assert again.status == 200 and again.json()["id"] == joined[0]["id"]  # idempotency across processes
    roster = a.get(f"/api/games/{CODE}").json()["roster"]
    assert sorted(p["name"] for p in roster) == sorted(f"Player {i}" for i in range(24))

    # phones wait on both servers (?wait= and events); the tile called through A reaches those on B within 2 s
    servers = room.servers
    waited = asyncio.run(crowd_waits([servers[1].base, servers[0].base], servers[0].key, CODE, 120, sse_every=4,
                                     call_through=1, pids=[s.pid for s in servers]))
    assert waited["got"] == 120 and waited["statuses"] == [200], waited
    on_b = waited["by_server"][0]
    assert on_b["got"] == on_b["phones"] == 60 and on_b["max"] < 2.0, waited["by_server"]
    assert waited["max"] < 2.0

    # the other tiles through both (a call is idempotent by its turn: the same turn twice is one tile)
    for turn in range(2, 21):
        first = (a if turn % 2 else b).post(f"/api/games/{CODE}/call", {"turn": turn}, host=True)
        same = (b if turn % 2 else a).post(f"/api/games/{CODE}/call", {"turn": turn}, host=True)
        assert first.status == same.status == 200 and first.json()["tile"] == same.json()["tile"] == TILES[turn - 1]
    assert b.get(f"/api/games/{CODE}").json()["called"] == TILES

    # typed hand-ins through both; B is killed (kill -9) in the middle, and its phones go on through A
    acknowledged: dict[int, int] = {}
    lock = threading.Lock()
    pending = iter(range(24))
    b_dead = threading.Event()

    def phone_loop() -> None:
        while True:
            with lock:
                phone = next(pending, None)
            if phone is None:
                return
            cells = TILES if phone % 3 else [*TILES[:19], 30]  # 30 was not drawn: one box to check
            for attempt in range(40):
                client = b if phone % 2 and not b_dead.is_set() and attempt == 0 else a
                try:
                    answer = client.post(f"/api/games/{CODE}/sheets", {"cells": cells},
                                         headers={"X-Paperplay-Token": joined[phone]["token"],
                                                  "Idempotency-Key": f"hand-in-{phone:04d}"})
                except (OSError, http.client.HTTPException):
                    time.sleep(0.1)
                    continue
                if answer.status in (200, 201):
                    with lock:
                        acknowledged[phone] = answer.json()["id"]
                    break
                assert answer.status in (429, 503), answer.body
                time.sleep(0.2)

    threads = [threading.Thread(target=phone_loop) for _ in range(6)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 20
    while len(acknowledged) < 6 and time.monotonic() < deadline:
        time.sleep(0.005)
    room.servers[1].process.kill()  # kill -9: no clean-up
    room.servers[1].process.communicate(timeout=10)
    b_dead.set()
    for thread in threads:
        thread.join(60)
    assert len(acknowledged) == 24
    room.servers[1] = start_servers(room.url, 1)[0]  # B again, as systemd's Restart= would
    b = room.b

    # photos through both servers: answered at once (202), read by the workers; one worker is killed
    # (kill -9) once the first is read, and started again
    answers = asyncio.run(upload_photos([s.base for s in room.servers], CODE, photos, "multiprocess"))
    assert [x.status for x in answers] == [202] * PHOTOS, [x.body[:200] for x in answers]
    queued = [x.json() for x in answers]
    assert all(q["state"] == "reading" for q in queued)
    first = b.get(f"/api/games/{CODE}/sheets/{queued[0]['id']}?wait={queued[0]['version']}",
                  headers={"X-Paperplay-Token": queued[0]["token"]})
    assert first.status == 200
    room.workers[0].kill()
    room.workers[0].communicate(timeout=10)
    room.workers[0] = start_worker(room.url)
    read = {}
    for sheet in queued:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            answer = a.get(f"/api/games/{CODE}/sheets/{sheet['id']}?wait={sheet['version']}",
                           headers={"X-Paperplay-Token": sheet["token"]})
            if answer.status == 200 and answer.json()["state"] != "reading":
                read[sheet["id"]] = answer.json()
                break
        assert sheet["id"] in read, f"photo {sheet['id']} not read within 60 s"
    for sheet in read.values():
        assert sheet["state"] == "read" and sheet["kind"] == "photo", sheet
        assert [box["value"] for box in sheet["boxes"]] == TILES, sheet["name"]
    assert sorted(s["printed"] for s in read.values()) == sorted(f"{n}/{PLAYERS}" for n in range(1, PHOTOS + 1))

    # every acknowledged sheet is there once, every photo read once, through either server
    for served in room.servers:
        sheets = all_sheets(served.base, served.key, CODE)
        typed = [s for s in sheets if s["kind"] == "typed"]
        assert stored_once(typed, acknowledged, "Player")["ok"], stored_once(typed, acknowledged, "Player")
        photo_ids = sorted(s["id"] for s in sheets if s["kind"] == "photo")
        assert photo_ids == sorted(read) and len(sheets) == 24 + PHOTOS

    # the reveal through A (forced: 10 of 40 players have not handed in, 8 sheets have a box to check)
    refused = a.post(f"/api/games/{CODE}/reveal", host=True)
    assert refused.status == 409 and refused.json()["code"] == "not_ready"
    assert a.post(f"/api/games/{CODE}/reveal", {"force": True}, host=True).status == 200
    assert b.get(f"/api/games/{CODE}").json()["revealed"] is True
    late = b.post(f"/api/games/{CODE}/sheets", {"name": "Late", "cells": TILES})
    assert late.status == 409 and late.json()["code"] == "revealed"
    results_a, results_b = a.get(f"/api/games/{CODE}/results").json(), b.get(f"/api/games/{CODE}/results").json()
    assert results_a == results_b

    # ... and the results are what paperplay score --json prints for the same sheets (the laptop's check)
    ids = [sheet["id"] for sheet in all_sheets(room.servers[0].base, room.servers[0].key, CODE)]
    served_results = dict(results_a)
    served_results.pop("incomplete", None)
    served_results.pop("unsettled", None)
    assert served_results == score_json(a, CODE, ids, tmp_path)
    assert len(results_a["ranking"]) == 24 + PHOTOS - 8  # the 8 sheets with an undrawn 30 are not ranked

    room.stop()
    assert not any("Traceback" in log for log in room.logs), [log[-2000:] for log in room.logs if "Traceback" in log]
    assert time.monotonic() - started < 90
