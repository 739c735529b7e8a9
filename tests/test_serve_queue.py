"""Photo workers (paperplay.serve.queue, `paperplay worker`): a photo handed in to a PostgreSQL game is
committed with its job and answered 202, read by a worker, stored once; refused photos free their place;
a worker that dies mid-photo loses nothing. The laptop evening (SQLite) reads photos in the server."""

from __future__ import annotations

import pytest


# --- the command --------------------------------------------------------------------------------------

def test_a_worker_on_a_sqlite_file_is_refused_in_one_line(cli, tmp_path):
    for db in (str(tmp_path / "games.db"), "games.db", "sqlite:///games.db", ""):
        result = cli("worker", "--db", db)
        assert result.exit_code == 2, (db, result.output)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("paperplay: error: --db: is "), lines
        assert "photo workers need a PostgreSQL database" in lines[0]
        assert "the laptop evening reads photos in the server" in lines[0]
    assert not (tmp_path / "games.db").exists()  # nothing made


@pytest.mark.parametrize("given", ["0", "65", "-1", "two"])
def test_a_worker_concurrency_out_of_bounds_is_refused(cli, given):
    result = cli("worker", "--db", "postgresql://paperplay:SECRET@127.0.0.1:1/games", "--concurrency", given)
    assert result.exit_code == 2, result.output
    assert "--concurrency" in result.stderr and "SECRET" not in result.output + result.stderr


def test_a_worker_needs_its_database(cli):
    result = cli("worker")
    assert result.exit_code == 2 and "--db" in result.stderr and "SECRET" not in result.stderr


def test_the_worker_help_says_how_to_run_one(cli):
    result = cli("worker", "--help")
    assert result.exit_code == 0
    assert "paperplay worker --db postgresql://" in result.stdout and "--concurrency" in result.stdout


# --- a PostgreSQL game night: photos answered 202, read by a worker -------------------------------------

SEED = "7KQ2-M9XD"


def _tiles(seed: str) -> list:
    from paperplay.seeds import canonical_seed
    from paperplay.streams.rules import draw, tile_json

    return [tile_json(t) for t in draw(canonical_seed(seed))]


class PgNight:
    """A server in this process (uvicorn in a thread) over the test session's PostgreSQL database, and what a
    photo worker of this process needs (no process started: photos are read on a thread)."""

    def __init__(self, url: str) -> None:
        import socket
        import threading

        import uvicorn

        from lab.loadtest import Client, wait_until_up
        from paperplay.cli.serve_cmds import uvicorn_config
        from paperplay.serve.app import Server, build_app
        from paperplay.serve.photos import PhotoReader
        from paperplay.serve.store import open_store

        self.url = url
        self.store = open_store(url)
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.base = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.server = Server(self.store, PhotoReader(1, 8), self.base)
        self.uvicorn = uvicorn.Server(uvicorn_config(build_app(self.server)))
        self.thread = threading.Thread(target=self.uvicorn.run, kwargs={"sockets": [self.sock]}, daemon=True)
        self.thread.start()
        wait_until_up(self.base, workers=False)
        self.client = Client(self.base, self.store.host_key())

    def game(self, seed: str, players: int = 4, lang: str = "en") -> str:
        answer = self.client.post("/api/games", {"players": players, "seed": seed, "lang": lang}, host=True)
        assert answer.status == 201, answer.body
        code = answer.json()["code"]
        for _ in range(20):
            assert self.client.post(f"/api/games/{code}/call", host=True).status == 200
        return code

    def work(self, photos=None):
        """Runs a photo worker until the queue is empty; its tally."""
        import asyncio

        from paperplay.serve import queue

        photos = photos or queue.Photos(self.store, queue.thread_reader())
        app = queue.make_app(self.url)

        async def run():
            async with app.open_async():
                return await queue.work(app, photos, wait=False, signals=False)

        return asyncio.run(run())

    def housekeeping(self):
        import asyncio

        from paperplay.serve import queue

        app = queue.make_app(self.url)

        async def run():
            async with app.open_async():
                return await queue.housekeeping(app, self.store)

        return asyncio.run(run())

    def sql(self, query: str, *args):
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as connection:
            cursor = connection.execute(query, args)
            return cursor.fetchall() if cursor.description else cursor.rowcount

    def photo(self, code: str, data: bytes, token: str | None = None, name: str | None = None,
              key: str | None = None):
        from lab.loadtest import multipart

        body, kind = multipart({"name": name} if name is not None else {}, {"photo": ("sheet.jpg", data, "image/jpeg")})
        headers = {"Content-Type": kind, **({"Idempotency-Key": key} if key else {}),
                   **({"X-Paperplay-Token": token} if token else {})}
        return self.client.request("POST", f"/api/games/{code}/sheets", body=body, headers=headers)

    def typed(self, code: str, name: str, cells: list, token: str | None = None):
        return self.client.post(f"/api/games/{code}/sheets", {"name": name, "cells": cells},
                                headers={"X-Paperplay-Token": token} if token else {})

    def sheet(self, code: str, answer: dict, wait: int | None = None):
        path = f"/api/games/{code}/sheets/{answer['id']}" + (f"?wait={wait}" if wait is not None else "")
        return self.client.get(path, headers={"X-Paperplay-Token": answer["token"]})

    def stop(self) -> None:
        self.uvicorn.should_exit = True
        self.thread.join(10)
        self.server.photos.close()
        self.store.close()
        self.sock.close()


@pytest.fixture(scope="module")
def night(pg_url):
    for module in ("procrastinate", "psycopg", "starlette", "uvicorn", "multipart"):
        pytest.importorskip(module, reason=f"photo workers need {module} (the serve-pg and serve extras)")
    running = PgNight(pg_url)
    yield running
    running.stop()


@pytest.fixture(scope="module")
def sheet_photos():
    from test_serve_process import photos_of

    return photos_of(SEED, 5, 40)


def _blank_photo() -> bytes:
    """A photo of a table with a blank sheet of paper (no sheet found: refused with advice and an overlay)."""
    import io

    from PIL import Image, ImageDraw

    table = Image.new("L", (1200, 900), 120)
    ImageDraw.Draw(table).rectangle((200, 100, 900, 800), fill=235)
    photo = io.BytesIO()
    table.save(photo, "JPEG")
    return photo.getvalue()


@pytest.fixture(scope="module")
def game(night):
    """Game SEED for 40 players, every tile called: hand-ins are open."""
    return night.game(SEED, players=40)


def test_a_photo_is_answered_202_at_once_then_read_by_a_worker_and_its_bytes_deleted(night, game, sheet_photos):
    joined = night.client.post(f"/api/games/{game}/players", {"name": "Ann"}).json()
    answer = night.photo(game, sheet_photos[0], token=joined["token"], key="queue-photo-1")
    assert answer.status == 202, answer.body
    queued = answer.json()
    assert queued["state"] == "reading" and queued["token"] == joined["token"] and queued["name"] == "Ann"
    assert queued["complete"] is False and isinstance(queued["version"], int)
    assert night.sql("SELECT count(*) FROM photos WHERE sheet = %s", queued["id"]) == [(1,)]
    again = night.photo(game, sheet_photos[0], token=joined["token"], key="queue-photo-1")
    assert again.status == 200 and again.json()["id"] == queued["id"]  # a retry: the same sheet, queued once
    assert night.sheet(game, queued).json()["state"] == "reading"
    fix = night.client.request("PUT", f"/api/games/{game}/sheets/{queued['id']}", json_body={"cells": {"1": 3}},
                               headers={"X-Paperplay-Token": queued["token"]})
    assert fix.status == 409 and fix.json()["code"] == "reading"
    twice = night.photo(game, sheet_photos[1], token=joined["token"])
    assert twice.status == 409 and twice.json()["code"] == "handed_in"  # the reading sheet is the player's one
    tally = night.work()
    assert tally.read >= 1
    read = night.sheet(game, queued).json()
    assert read["state"] == "read" and read["name"] == "Ann" and read["kind"] == "photo" and read["printed"] == "1/40"
    assert [box["value"] for box in read["boxes"]] == _tiles(SEED)
    assert night.sql("SELECT count(*) FROM photos WHERE sheet = %s", queued["id"]) == [(0,)]


def test_a_phone_waiting_on_its_sheet_gets_the_boxes_once_read(night, game, sheet_photos):
    import threading
    import time

    answer = night.photo(game, sheet_photos[1], name="Bob")
    assert answer.status == 202, answer.body
    queued = answer.json()
    got = {}
    phone = threading.Thread(target=lambda: got.update(answer=night.sheet(game, queued, wait=queued["version"])))
    phone.start()
    time.sleep(0.3)
    night.work()
    read_at = time.monotonic()
    phone.join(30)
    assert got["answer"].status == 200 and got["answer"].json()["state"] == "read", got
    assert time.monotonic() - read_at < 3  # woken by the reading, not by the wait's end
    assert got["answer"].json()["name"] == "Bob" and got["answer"].json()["printed"] == "2/40"


def test_a_job_run_twice_stores_the_sheet_once_and_one_for_a_removed_sheet_does_nothing(night, game, sheet_photos):
    import asyncio

    from paperplay.serve import queue

    queued = night.photo(game, sheet_photos[2], name="Cy").json()
    photos = queue.Photos(night.store, queue.thread_reader())
    assert asyncio.run(photos.read(queued["id"])) == "read"
    assert asyncio.run(photos.read(queued["id"])) == "nothing"  # the job again (a worker thought dead)
    assert night.sql("SELECT count(*) FROM crops WHERE sheet = %s", queued["id"]) == [(20,)]
    assert night.sheet(game, queued).json()["state"] == "read"
    removed = night.photo(game, sheet_photos[4], name="Dee").json()  # the host removes it before it is read
    assert night.client.request("DELETE", f"/api/games/{game}/sheets/{removed['id']}", host=True).status == 200
    assert night.sql("SELECT count(*) FROM photos WHERE sheet = %s", removed["id"]) == [(0,)]  # gone with it
    assert asyncio.run(photos.read(removed["id"])) == "nothing"
    night.work()  # its job, run: nothing stored, nothing refused
    assert night.sheet(game, removed).status == 404


def test_a_worker_killed_mid_photo_is_taken_over_and_the_sheet_stored_once(night, game, sheet_photos):
    queued = night.photo(game, sheet_photos[3], name="Eve").json()
    # a worker took the job and died (kill -9): its heartbeat a minute old, the job left "doing"
    worker = night.sql("INSERT INTO procrastinate_workers (last_heartbeat) VALUES (now() - interval '60 seconds') "
                       "RETURNING id")[0][0]
    assert night.sql("UPDATE procrastinate_jobs SET status = 'doing', worker_id = %s WHERE args ->> 'sheet_id' = %s",
                     worker, str(queued["id"])) == 1
    tally = night.work()
    assert tally.read == 0 and night.sheet(game, queued).json()["state"] == "reading"  # nobody takes a running job
    assert night.housekeeping() == 1  # the dead worker's job, back in the queue
    assert night.work().read == 1
    read = night.sheet(game, queued).json()
    assert read["state"] == "read" and read["printed"] == "4/40"
    sheets = night.client.get(f"/api/games/{game}/sheets", host=True).json()["sheets"]
    assert [s["printed"] for s in sheets].count("4/40") == 1
    assert night.sql("SELECT count(*) FROM procrastinate_jobs WHERE args ->> 'sheet_id' = %s", str(queued["id"])) == [
        (0,)]  # done and deleted


def test_a_refused_photo_frees_its_place_and_tells_its_phone_why_in_the_games_language(night):
    code = night.game("QUEUEFULL", players=1, lang="da")
    ann = night.client.post(f"/api/games/{code}/players", {"name": "Ann"}).json()
    answer = night.photo(code, _blank_photo(), token=ann["token"])
    assert answer.status == 202, answer.body
    queued = answer.json()
    full = night.typed(code, "Bob", _tiles("QUEUEFULL"))
    assert full.status == 409 and full.json()["code"] == "game_full"  # the photo being read holds the place
    night.work()
    refused = night.sheet(code, queued)
    assert refused.status == 200, refused.body
    said = refused.json()
    assert said["state"] == "refused" and said["code"] == "no_sheet_found" and said["id"] == queued["id"]
    assert said["error"].startswith("photo: no paperplay sheet found") and said["hint"].startswith("Fotograf")
    assert said["overlay"].startswith("data:image/png;base64,")
    assert night.client.get(f"/api/games/{code}/sheets/{queued['id']}").status == 401  # the token's, or the host's
    state = night.client.get(f"/api/games/{code}").json()
    assert state["handed_in"] == [] and [p["handed_in"] for p in state["roster"]] == [False]
    assert night.sql("SELECT count(*) FROM photos WHERE sheet = %s", queued["id"]) == [(0,)]
    typed = night.typed(code, "Ann", _tiles("QUEUEFULL"), token=ann["token"])
    assert typed.status == 201, typed.body  # her place is free again
