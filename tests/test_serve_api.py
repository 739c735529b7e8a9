"""paperplay serve: the game night server's API, its access rules, bad input, what it never tells before
the reveal, its results (the same document as `paperplay score --json`), and what survives a restart."""

from __future__ import annotations

import json
import re
import socket
import struct
import subprocess
import sys
import threading
import zlib
from pathlib import Path

import pytest

for _module in ("starlette", "uvicorn", "multipart"):
    pytest.importorskip(_module, reason="paperplay serve needs the serve extra (pip install '.[serve]')")

from paperplay.seeds import canonical_seed, display_code, game_code  # noqa: E402
from lab.loadtest import Client, at_once  # noqa: E402
from paperplay.streams.rules import draw, tile_json  # noqa: E402

SEED = "7KQ2-M9XD"
CODE = display_code(game_code("streams", canonical_seed(SEED)))
TILES = [tile_json(t) for t in draw(canonical_seed(SEED))]
ROOT = Path(__file__).resolve().parents[1]


def quick_uvicorn(config: object) -> object:
    """uvicorn's Server, whose main loop also wakes when `stop_soon()` is called from another thread: it looked
    for should_exit every 0.1 s, and stopping a server in a test waited for that tick (the default suite stops
    about 170); and with no connection open, its shutdown skips the 0.1 s it gives open connections to close.
    Nothing else changes: it ticks every 0.1 s as before, and with a connection open shuts down as uvicorn does."""
    import asyncio

    import uvicorn

    class Quick(uvicorn.Server):
        async def main_loop(self) -> None:
            self.wake = asyncio.Event()
            self.loop = asyncio.get_running_loop()
            counter = 0
            should_exit = await self.on_tick(counter)
            while not should_exit:
                counter = (counter + 1) % 864_000
                try:
                    await asyncio.wait_for(self.wake.wait(), 0.1)
                except TimeoutError:
                    pass
                should_exit = await self.on_tick(counter)

        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            if self.server_state.connections or not hasattr(self, "_wait_tasks_to_complete"):
                await super().shutdown(sockets)  # uvicorn's own: asks each connection to close, waits 0.1 s
                return
            for server in self.servers:  # no connection is open: uvicorn's shutdown without that 0.1 s
                server.close()
            for sock in sockets or []:
                sock.close()
            await self._wait_tasks_to_complete()
            if not self.force_exit:
                await self.lifespan.shutdown()

        def stop_soon(self) -> None:
            self.should_exit = True
            loop = getattr(self, "loop", None)
            if loop is not None and not loop.is_closed():
                try:
                    loop.call_soon_threadsafe(self.wake.set)
                except RuntimeError:  # the loop closed meanwhile: it has stopped
                    pass

    return Quick(config)


class Running:
    """A server in this process (uvicorn in a thread) over a database in a temporary folder."""

    def __init__(self, db: Path | str, workers: int = 1, limit: int = 8, head_seconds: float = 30.0) -> None:
        import uvicorn

        from paperplay.serve.app import Server, build_app
        from paperplay.serve.guard import protocol
        from paperplay.serve.photos import PhotoReader
        from paperplay.serve.store import open_store

        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.base = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.store = open_store(db)  # a SQLite file, or a PostgreSQL URL
        self.server = Server(self.store, PhotoReader(workers, limit), self.base)
        config = uvicorn.Config(build_app(self.server), log_level="warning", access_log=False, lifespan="off",
                                http=protocol(head_seconds))  # as paperplay serve runs it
        self.uvicorn = quick_uvicorn(config)
        self.thread = threading.Thread(target=self.uvicorn.run, kwargs={"sockets": [self.sock]}, daemon=True)
        self.thread.start()
        from lab.loadtest import wait_until_up

        wait_until_up(self.base, workers=False)
        self.client = Client(self.base, self.store.host_key())

    def stop(self) -> None:
        stop_soon = getattr(self.uvicorn, "stop_soon", None)  # a subclass's own uvicorn (test_serve_edge) has none
        if stop_soon is not None:
            stop_soon()
        else:
            self.uvicorn.should_exit = True
        self.thread.join(10)
        self.server.photos.close()
        self.store.close()
        self.sock.close()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def running(request, tmp_path):
    """A server over a SQLite file, and (tests marked postgres, their own .ci/run step) over a PostgreSQL database:
    the API answers alike on both. A test of the laptop's own ways (photos read in the server) uses `laptop`."""
    server = Running(tmp_path / "games.db" if request.param == "sqlite" else request.getfixturevalue("pg_clean_url"))
    yield server
    server.stop()


@pytest.fixture
def laptop(tmp_path):
    """A server over a SQLite file: the laptop evening (photos read in the server itself)."""
    server = Running(tmp_path / "games.db")
    yield server
    server.stop()


def new_game(client: Client, players: int = 4, seed: str | None = SEED, **more) -> str:
    request = {"players": players, **({"seed": seed} if seed is not None else {}), **more}
    answer = client.post("/api/games", request, host=True)
    assert answer.status == 201, answer.body
    return answer.json()["code"]


def call_all(client: Client, code: str, turns: int = 20) -> None:
    for turn in range(1, turns + 1):
        answer = client.post(f"/api/games/{code}/call", host=True)
        assert answer.status == 200, answer.body


def is_one_line_error(answer) -> bool:
    document = answer.json()
    beside = list(document)[2:]  # a refused photo's advice and overlay (the API reference)
    return (answer.headers["content-type"].startswith("application/json") and list(document)[:2] == ["error", "code"]
            and set(beside) <= {"hint", "overlay"} and all(isinstance(document[f], str) for f in beside)
            and all("\n" not in document[f] for f in ("error", *beside))
            and isinstance(document["error"], str) and "\n" not in document["error"] and document["error"]
            and re.fullmatch(r"[a-z_]+", document["code"]) is not None)


# --- the contract -----------------------------------------------------------------------------------

def test_a_game_from_start_to_results(running):
    client = running.client
    created = client.post("/api/games", {"players": 3, "seed": SEED, "lang": "da"}, host=True)
    assert created.status == 201
    assert {k: v for k, v in created.json().items() if k != "projector_url"} == {
        "code": CODE, "join_url": f"{running.base}/join/{CODE}", "seed_warning": (
            "the seed is short (8 characters): players could find the draw by trying seeds against the game code")}
    assert re.fullmatch(rf"{running.base}/projector/{CODE}\?view=[\w-]+", created.json()["projector_url"])
    assert client.key not in created.json()["projector_url"]
    state = client.get(f"/api/games/{CODE}").json()
    assert (state["code"], state["turn"], state["turns"], state["called"], state["revealed"], state["lang"]) == (
        CODE, 0, 20, [], False, "da")
    for turn, tile in enumerate(TILES, start=1):
        answer = client.post(f"/api/games/{CODE}/call", host=True)
        assert answer.status == 200 and answer.json()["turn"] == turn and answer.json()["tile"] == tile
    too_many = client.post(f"/api/games/{CODE}/call", host=True)
    assert too_many.status == 409 and "all 20 tiles are called" in too_many.json()["error"]
    ann = client.typed(CODE, "Ann", TILES)
    assert ann.status == 201
    sheet = ann.json()
    assert sheet["name"] == "Ann" and sheet["kind"] == "typed" and sheet["flagged"] == []
    assert [b["value"] for b in sheet["boxes"]] == TILES and sheet["token"]
    bob_cells = [TILES[1], TILES[0], *TILES[2:19], 30]  # 30 is not drawn: flagged at once, a problem later
    bob = client.typed(CODE, "Bob", bob_cells).json()
    assert bob["flagged"] == [20] and "has not been called" in bob["boxes"][19]["why"]
    state = client.get(f"/api/games/{CODE}").json()
    assert [s["name"] for s in state["handed_in"]] == ["Ann", "Bob"] and state["called"] == TILES
    early = client.get(f"/api/games/{CODE}/results")
    assert early.status == 409 and is_one_line_error(early)
    refused = client.post(f"/api/games/{CODE}/reveal", host=True)  # Cy has not handed in; Bob's box 20
    assert refused.status == 409 and refused.json()["code"] == "not_ready" and is_one_line_error(refused)
    assert "1 sheet of 3 is not handed in" in refused.json()["error"] and "'Bob'" in refused.json()["error"]
    revealed = client.post(f"/api/games/{CODE}/reveal", {"force": True}, host=True).json()
    assert revealed["revealed"] and revealed["seed"] == SEED and revealed["draw"] == TILES
    late = client.typed(CODE, "Cy", TILES)
    assert late.status == 409
    results = client.get(f"/api/games/{CODE}/results").json()
    assert [r["player"] for r in results["ranking"]] == ["Ann"]
    assert results["results"][1]["valid"] is False
    page = client.get(f"/api/games/{CODE}/results.html")
    assert page.status == 200 and b"Ann" in page.body


def score_json(client: Client, code: str, ids: list[int], folder: Path) -> dict:
    """What `paperplay score --json` prints for the sheets' files, as the host downloads them (after the
    reveal) into `folder`: the document the server's results must be."""
    files = []
    for sheet_id in ids:
        answer = client.get(f"/api/games/{code}/sheets/{sheet_id}/file", host=True)
        assert answer.status == 200, answer.body
        name = re.search(r'filename="([^"]+)"', answer.headers["content-disposition"])[1]
        (folder / name).write_bytes(answer.body)
        files.append(name)
    score = subprocess.run([sys.executable, "-m", "paperplay", "score", *files, "--json"], cwd=folder,
                           capture_output=True, text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert score.returncode in (0, 1), score.stderr
    return json.loads(score.stdout)


def test_results_are_what_paperplay_score_json_prints(running, tmp_path):
    client = running.client
    new_game(client)
    call_all(client, CODE)
    names = ["Ann", "<script>alert(1)</script>", "Søren", "Dee"]
    cells = [TILES, list(reversed(TILES)), [*TILES[:19], "*"], sorted(TILES, key=lambda t: 0 if t == "*" else t)]
    ids = []
    for name, sheet in zip(names, cells):
        answer = client.typed(CODE, name, sheet)
        assert answer.status == 201, answer.body
        ids.append(answer.json()["id"])
    client.post(f"/api/games/{CODE}/reveal", {"force": True}, host=True)
    scored = score_json(client, CODE, ids, tmp_path)
    served = client.get(f"/api/games/{CODE}/results").json()
    assert served.pop("incomplete") == [] and served.pop("unsettled") == [
        {"id": ids[2], "name": "Søren", "file": f"sheet-{ids[2]}.json", "boxes": [20]}]  # the wild, not drawn
    assert served == scored
    assert len(served["ranking"]) >= 2 and served["results"][1]["player"] == names[1]


def test_calls_are_idempotent_by_turn(running):
    client = running.client
    new_game(client)
    first = client.post(f"/api/games/{CODE}/call", {"turn": 1}, host=True)
    again = client.post(f"/api/games/{CODE}/call", {"turn": 1}, host=True)
    assert first.json() == again.json() and first.json()["tile"] == TILES[0]
    skipped = client.post(f"/api/games/{CODE}/call", {"turn": 3}, host=True)
    assert skipped.status == 409 and "the next turn to call is 2" in skipped.json()["error"]
    assert client.get(f"/api/games/{CODE}").json()["turn"] == 1


def test_a_new_game_without_a_seed_gets_a_fresh_one_and_codes_are_unique(running):
    client = running.client
    one, two = new_game(client, seed=None), new_game(client, seed=None)
    assert one != two and re.fullmatch(r"[2-9A-Z]{4}-[2-9A-Z]{4}", one)
    new_game(client)
    again = client.post("/api/games", {"players": 2, "seed": SEED}, host=True)
    assert again.status == 409 and is_one_line_error(again)
    listed = client.get("/api/games", host=True).json()["games"]
    assert [g["code"] for g in listed] == [one, two, CODE]


def test_a_player_corrects_their_own_sheet_only(running):
    client = running.client
    new_game(client)
    call_all(client, CODE)
    ann = client.typed(CODE, "Ann", [*TILES[:19], 30]).json()
    bob = client.typed(CODE, "Bob", TILES).json()
    path = f"/api/games/{CODE}/sheets/{ann['id']}"
    fixed = client.request("PUT", path, json_body={"cells": {"20": TILES[19]}},
                           headers={"X-Paperplay-Token": ann["token"]})
    assert fixed.status == 200 and fixed.json()["flagged"] == [] and fixed.json()["boxes"][19]["value"] == TILES[19]
    assert fixed.json()["boxes"][19]["corrected"] == "player" and fixed.json()["corrected"] == [20]
    whole = client.request("PUT", f"{path}?token={ann['token']}", json_body={"cells": TILES})
    assert whole.status == 200 and [b["value"] for b in whole.json()["boxes"]] == TILES
    stranger = client.request("PUT", path, json_body={"cells": TILES}, headers={"X-Paperplay-Token": bob["token"]})
    assert stranger.status == 403 and is_one_line_error(stranger) and stranger.json()["error"].startswith("token:")
    nobody = client.request("PUT", path, json_body={"cells": TILES})
    assert nobody.status == 401
    assert client.get(path, headers={"X-Paperplay-Token": bob["token"]}).status == 403
    assert client.get(path, headers={"X-Paperplay-Token": ann["token"]}).json()["token"] == ann["token"]
    by_host = client.request("PUT", path, json_body={"cells": {"1": 30}}, host=True)
    assert by_host.status == 200 and "token" not in by_host.json()
    assert by_host.json()["boxes"][0]["corrected"] == "host"
    listed = client.get(f"/api/games/{CODE}/sheets", host=True).json()["sheets"]
    assert [s["name"] for s in listed] == ["Ann", "Bob"] and all("token" not in s for s in listed)
    assert client.request("DELETE", path, headers={"X-Paperplay-Token": ann["token"]}).status == 401
    assert client.request("DELETE", path, host=True).json() == {"deleted": ann["id"]}
    assert client.get(path, host=True).status == 404


def test_idempotency_keys_store_a_sheet_once(running):
    client = running.client
    new_game(client)
    call_all(client, CODE)
    first = client.typed(CODE, "Ann", TILES, key="retry-0001-ann")
    again = client.typed(CODE, "Ann", TILES, key="retry-0001-ann")
    assert (first.status, again.status) == (201, 200) and first.json() == again.json()
    same_name = client.typed(CODE, " ann ", TILES, key="retry-0002-ann")
    assert same_name.status == 409 and same_name.json()["error"].startswith("name:")
    bad = client.typed(CODE, "Bo", TILES, key="short")
    assert bad.status == 400 and bad.json()["error"].startswith("Idempotency-Key:")
    together = at_once([lambda: client.typed(CODE, "Cy", TILES, key="retry-0003-cy-x") for _ in range(6)])
    assert sorted(a.status for a in together) == [200] * 5 + [201]
    assert len({a.json()["id"] for a in together}) == 1
    assert len(client.get(f"/api/games/{CODE}/sheets", host=True).json()["sheets"]) == 2


def test_a_long_poll_answers_when_the_state_changes(running):
    client = running.client
    new_game(client)
    version = client.get(f"/api/games/{CODE}").json()["version"]
    later = threading.Timer(0.3, lambda: client.post(f"/api/games/{CODE}/call", host=True))
    later.start()
    answer = client.get(f"/api/games/{CODE}?wait={version}")
    later.join()
    assert answer.json()["turn"] == 1 and answer.json()["version"] > version and 0.2 < answer.seconds < 5


def test_pdfs_and_the_join_qr_code(running):
    pypdf = pytest.importorskip("pypdf", reason="the test extra's pypdf reads the PDFs")
    import io

    client = running.client
    new_game(client, players=2)
    kit = client.get(f"/api/games/{CODE}/kit.pdf", host=True)
    assert kit.status == 200 and kit.headers["content-type"] == "application/pdf"
    text = " ".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(kit.body)).pages)
    assert CODE in text and SEED not in text and canonical_seed(SEED) not in text  # no caller's sheet before
    sheets = client.get(f"/api/games/{CODE}/sheets.pdf", host=True)
    assert sheets.status == 200 and len(pypdf.PdfReader(io.BytesIO(sheets.body)).pages) == 2
    assert client.get(f"/api/games/{CODE}/kit.pdf").status == 401
    client.post(f"/api/games/{CODE}/reveal", {"force": True}, host=True)
    after = client.get(f"/api/games/{CODE}/kit.pdf", host=True)
    text = " ".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(after.body)).pages)
    assert SEED in text
    qr = client.get(f"/api/games/{CODE}/join.svg")
    assert qr.status == 200 and qr.body.lstrip().startswith(b"<?xml") and b"<svg" in qr.body


def test_the_kit_holds_no_seed_before_the_reveal():
    import dataclasses
    import time

    from paperplay.serve.routes.files import kit_document
    from paperplay.serve.store import Game

    game = Game(game_code("streams", canonical_seed(SEED)), canonical_seed(SEED), None, "de", 3, 0, False, 1,
                time.time())
    for revealed in (False, True):
        doc = kit_document(dataclasses.replace(game, revealed=revealed))
        texts = " ".join([doc.title, doc.subject, *(t for page in doc.pages for t in doc.texts(page))])
        assert (SEED in texts or canonical_seed(SEED) in texts) is revealed
        assert CODE in texts


def test_pages_are_served_with_their_policy(running):
    client = running.client
    new_game(client)
    host = client.get("/host", host=True)
    assert client.get("/host").status == 401
    host = client.get(f"/host?key={client.key}")
    assert host.status == 200 and "default-src 'none'" in host.headers["content-security-policy"]
    projector = client.get(f"/api/games/{CODE}", host=True).json()["projector_url"].removeprefix(running.base)
    for path in (f"/join/{CODE}", projector, f"/join/{CODE.replace('-', '').lower()}"):
        page = client.get(path)
        assert page.status == 200 and page.headers["content-type"].startswith("text/html"), path
        assert client.key.encode() not in page.body
    assert client.get("/join/NOPE-NOPE").status == 404
    assert client.get(f"/projector/{CODE}").status == 401 and client.get(f"/projector/{CODE}?view=x").status == 401
    moved = client.get(f"/projector/{CODE}?key={client.key}")  # an old link: sent on to the view token's address
    assert moved.status == 303 and moved.headers["location"] == projector


# --- access -----------------------------------------------------------------------------------------

HOST_CALLS = [("POST", "/api/games", {"players": 2}), ("GET", "/api/games", None),
              ("POST", f"/api/games/{CODE}/call", None), ("POST", f"/api/games/{CODE}/reveal", {"force": True}),
              ("GET", f"/api/games/{CODE}/sheets", None), ("GET", f"/api/games/{CODE}/kit.pdf", None),
              ("GET", f"/api/games/{CODE}/sheets.pdf", None), ("DELETE", f"/api/games/{CODE}/sheets/1", None)]


@pytest.mark.parametrize(("method", "path", "body"), HOST_CALLS)
def test_host_calls_need_the_key(running, method, path, body):
    client = running.client
    new_game(client)
    if not path.endswith("/call"):
        call_all(client, CODE)
        client.typed(CODE, "Ann", TILES)
    for headers in ({}, {"X-Paperplay-Key": "wrong"}, {"X-Paperplay-Key": client.key[:-1]}):
        answer = client.request(method, path, json_body=body, headers=headers)
        assert answer.status == 401 and is_one_line_error(answer) and answer.json()["error"].startswith("key:")
    sep = "&" if "?" in path else "?"
    assert client.request(method, f"{path}{sep}key=nope", json_body=body).status == 401
    assert client.request(method, f"{path}{sep}key={client.key}", json_body=body).status in (200, 201)
    state = client.get(f"/api/games/{CODE}").json()
    assert state["revealed"] is (path.endswith("/reveal"))


def test_the_key_is_compared_in_constant_time():
    import inspect

    from paperplay.serve import web

    assert "hmac.compare_digest" in inspect.getsource(web._same)


# --- bad input --------------------------------------------------------------------------------------

BAD_GAMES = [
    ({"players": 0}, "players: is 0; expected a whole number 1-{most}"),
    ({"players": "4"}, "players: is '4'; expected a whole number 1-{most}"),
    ({"players": True}, "players: is True"),
    ({}, "players: is None"),
    ({"players": 2, "seed": "!!"}, "seed: seed '!!' has no ASCII letters or digits"),
    ({"players": 2, "seed": 7}, "seed: is 7; expected a seed as text"),
    ({"players": 2, "variant": "../../etc/passwd"}, "variant: is '../../etc/passwd'; expected one of standard"),
    ({"players": 2, "variant": "x.json"}, "variant: is 'x.json'"),
    ({"players": 2, "lang": "fr"}, "lang: is 'fr'; expected one of en, da, de"),
    ({"players": 2, "colour": "red"}, "colour: unknown field; expected players, seed, variant, lang"),
]


@pytest.mark.parametrize(("request_body", "message"), BAD_GAMES)
def test_a_bad_new_game_is_a_400_naming_the_field(running, request_body, message):
    answer = running.client.post("/api/games", request_body, host=True)
    message = message.replace("{most}", str(running.store.max_players))  # 200 in a SQLite file, 100000 on PostgreSQL
    assert answer.status == 400 and is_one_line_error(answer) and answer.json()["error"].startswith(message)


BAD_SHEETS = [
    ({"name": "Ann", "cells": TILES[:19]}, "cells: has 19 boxes; expected 20"),
    ({"name": "Ann", "cells": [*TILES[:19], 31]}, "cells[19]: is 31; expected an integer 1-30, or \"*\""),
    ({"name": "Ann", "cells": [*TILES[:19], "a"]}, "cells[19]: is 'a'"),
    ({"name": "Ann", "cells": [*TILES[:19], None]}, "cells[19]: is None"),
    ({"name": "Ann", "cells": [*TILES[:19], 2.5]}, "cells[19]: is 2.5"),
    ({"name": "Ann", "cells": "1 2 3"}, "cells: is '1 2 3'; expected a list of 20 boxes"),
    ({"name": "Ann"}, "cells: is None"),
    ({"cells": TILES}, "name: is None; expected the player's name as text"),
    ({"name": "  ", "cells": TILES}, "name: is empty"),
    ({"name": "\u200b\u2060\u202e", "cells": TILES}, "name: is empty"),
    ({"name": "A" * 41, "cells": TILES}, "name: has 41 characters; expected at most 40"),
    ({"name": "Ａ" * 41, "cells": TILES}, "name: has 41 characters; expected at most 40"),
    ({"name": "Ann", "cells": TILES, "total": 9}, "total: unknown field; expected name, cells"),
]


@pytest.mark.parametrize(("request_body", "message"), BAD_SHEETS)
def test_a_bad_typed_sheet_is_a_400_naming_the_field(running, request_body, message):
    client = running.client
    new_game(client)
    call_all(client, CODE)
    answer = client.post(f"/api/games/{CODE}/sheets", request_body)
    assert answer.status == 400 and is_one_line_error(answer), answer.body
    assert answer.json()["error"].startswith(message)
    assert client.get(f"/api/games/{CODE}").json()["handed_in"] == []


def test_malformed_bodies(running):
    client = running.client
    new_game(client)
    call_all(client, CODE)
    path = f"/api/games/{CODE}/sheets"
    cases = [
        (b"{nope", {"Content-Type": "application/json"}, 400, "body: is not JSON"),
        (b"[1, 2]", {"Content-Type": "application/json"}, 400, "body: expected a JSON object"),
        (b"\xff\xfe", {"Content-Type": "application/json"}, 400, "body: is not JSON"),
        (b"[" * 100_000, {"Content-Type": "application/json"}, 413, "body: is 100,000 bytes"),
        (b'{"name": "A"}', {"Content-Type": "text/plain"}, 415, "Content-Type: is 'text/plain'"),
        (b'{"name": "A"}', {}, 415, "Content-Type: is 'missing'"),
        (b"--x\r\nbroken", {"Content-Type": "multipart/form-data; boundary=x"}, 400, "photo:"),
    ]
    for body, headers, status, message in cases:
        answer = client.request("POST", path, body=body, headers=headers)
        assert answer.status == status and is_one_line_error(answer), (body[:20], answer.body)
        assert answer.json()["error"].startswith(message), answer.body
    deep = client.request("POST", path, body=b"[" * 60_000, headers={"Content-Type": "application/json"})
    assert deep.status == 400 and is_one_line_error(deep)
    for path, status in (("/api/nothing", 404), (f"/api/games/{CODE}/sheets/99", 404), ("/api/games/ZZZZ", 404),
                         (f"/api/games/{CODE}/sheets/abc", 400), (f"/api/games/{CODE}/sheets/1/boxes/1.png", 404)):
        answer = client.get(path, host=True)
        assert answer.status == status and is_one_line_error(answer), path
    wrong_method = client.request("PUT", f"/api/games/{CODE}")
    assert wrong_method.status == 405 and is_one_line_error(wrong_method)


def _png_header(width: int, height: int) -> bytes:
    """A PNG that claims a size but holds one row: a decoder must refuse it before allocating it."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00" * (width + 1))) + chunk(b"IEND", b""))


def test_uploads_over_10_mb_are_refused_while_they_arrive(running):
    client = running.client
    new_game(client)
    call_all(client, CODE)
    big = b"\xff\xd8" + b"\0" * (10 * 1024 * 1024 + 1)
    declared = client.photo(CODE, big)
    assert declared.status == 413 and declared.json()["error"].startswith("photo: is 10,")
    from lab.loadtest import multipart

    body, kind = multipart({}, {"photo": ("big.jpg", big + b"\0" * 2_000_000, "image/jpeg")})
    streamed = client.request("POST", f"/api/games/{CODE}/sheets", body=body, headers={"Content-Type": kind},
                              chunked=True)
    assert streamed.status == 413 and streamed.json()["error"].startswith("photo: is more than")
    assert running.server.photos.waiting == 0


def test_photos_that_are_no_photos_are_a_one_line_400(laptop):
    client = laptop.client
    new_game(client)
    call_all(client, CODE)
    for data, message in ((b"hello, not an image", "photo: is not an image that can be read"),
                          (_png_header(20_000, 20_000), "photo: is 20000 × 20000 pixels; expected a photo of at most"),
                          (b"\xff\xd8\xff\xe0\x00\x10JFIF" + b"\0" * 100, "photo: is not an image that can be read"),
                          (b"", "photo: is not an image that can be read")):
        answer = client.photo(CODE, data)
        assert answer.status == 400 and is_one_line_error(answer), answer.body
        assert answer.json()["error"].startswith(message), answer.body
    no_file = client.request("POST", f"/api/games/{CODE}/sheets", body=b"--b\r\nContent-Disposition: form-data; "
                             b"name=\"name\"\r\n\r\nAnn\r\n--b--\r\n",
                             headers={"Content-Type": "multipart/form-data; boundary=b"})
    assert no_file.status == 400 and no_file.json()["error"].startswith("photo: missing")


def test_a_full_photo_queue_answers_503_with_retry_after(running):
    client = running.client
    new_game(client)
    call_all(client, CODE)
    running.server.photos.limit = 0
    answer = client.photo(CODE, b"\xff\xd8whatever")
    assert answer.status == 503 and answer.headers["retry-after"] == "5" and is_one_line_error(answer)


# --- nothing told before the reveal ------------------------------------------------------------------

def _tile_lists(node):
    """Every list of tiles (integers and "*") in a JSON document."""
    if isinstance(node, dict):
        for value in node.values():
            yield from _tile_lists(value)
    elif isinstance(node, list):
        if node and all(isinstance(v, int) or v == "*" for v in node):
            yield node
        for value in node:
            yield from _tile_lists(value)


def test_no_answer_holds_the_seed_or_an_uncalled_tile_before_the_reveal(running):
    client = running.client
    seed = "LEAKCHECK7"
    code = new_game(client, seed=seed)
    tiles = [tile_json(t) for t in draw(seed)]
    written = list(reversed(tiles))  # the sheets' own boxes are echoed: never the draw's order
    assert written[0] != tiles[0]
    early = client.typed(code, "Ann", written)  # hand-ins open after the last tile
    assert early.status == 409 and early.json()["code"] == "too_early" and is_one_line_error(early)
    for turn in range(1, 13):
        client.post(f"/api/games/{code}/call", host=True)
        client.get(f"/api/games/{code}")
        client.get(f"/api/games/{code}?wait=0")
        client.get("/api/games", host=True)
        client.get(f"/api/games/{code}/sheets", host=True)
        client.get(f"/api/games/{code}/results")
        client.get(f"/api/games/{code}/results.html")
        client.typed(code, f"P{turn}", written)
        client.post(f"/api/games/{code}/call", {"turn": turn + 5}, host=True)
        client.get(f"/projector/{code}", host=True)
        client.get(f"/join/{code}")
        client.get(f"/host?key={client.key}")
        for answer_body in client.seen:
            assert seed.encode() not in answer_body.upper() and display_code(seed).encode() not in answer_body
            if answer_body.startswith(b"{"):
                for tiles_shown in _tile_lists(json.loads(answer_body)):
                    # a list longer than the turn that follows the draw would tell what comes next
                    if len(tiles_shown) > turn and tiles_shown[:turn + 1] == tiles[:turn + 1]:
                        raise AssertionError(f"turn {turn}: an answer holds the draw beyond it: {answer_body[:300]}")
        client.seen.clear()
    state = client.get(f"/api/games/{code}").json()
    assert state["called"] == tiles[:12] and "seed" not in state and "draw" not in state
    revealed = client.post(f"/api/games/{code}/reveal", {"force": True}, host=True).json()
    assert revealed["draw"] == tiles and revealed["seed"] == display_code(seed)


def test_names_are_data_never_markup(running):
    client = running.client
    new_game(client)
    call_all(client, CODE)
    answer = client.typed(CODE, "<script>x</script>&amp;", TILES)
    assert b"<script>" not in answer.body and b"\\u003cscript\\u003ex" in answer.body
    assert answer.json()["name"] == "<script>x</script>&amp;"
    client.post(f"/api/games/{CODE}/reveal", {"force": True}, host=True)
    for path in (f"/api/games/{CODE}", f"/api/games/{CODE}/results"):
        assert b"<script>" not in client.get(path).body
    page = client.get(f"/api/games/{CODE}/results.html").body
    assert b"<script>x" not in page and b"&lt;script&gt;x" in page


# --- restart ----------------------------------------------------------------------------------------

def test_everything_is_where_it_was_after_a_restart(tmp_path):
    first = Running(tmp_path / "games.db")
    key = first.client.key
    new_game(first.client)
    call_all(first.client, CODE)
    ann = first.client.typed(CODE, "Ann", TILES).json()
    first.stop()
    second = Running(tmp_path / "games.db")
    try:
        assert second.client.key == key
        state = second.client.get(f"/api/games/{CODE}").json()
        assert state["turn"] == 20 and state["called"] == TILES and state["handed_in"][0]["name"] == "Ann"
        again = second.client.get(f"/api/games/{CODE}/sheets/{ann['id']}", headers={"X-Paperplay-Token": ann["token"]})
        assert again.status == 200 and again.json()["boxes"] == ann["boxes"]
        assert second.client.post(f"/api/games/{CODE}/call", {"turn": 20}, host=True).json()["tile"] == TILES[19]
    finally:
        second.stop()


def test_a_database_of_another_kind_is_refused(tmp_path):
    from paperplay.serve.store import SqliteStore

    other = tmp_path / "other.db"
    import sqlite3

    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute("INSERT INTO meta VALUES ('schema', '99')")
    with pytest.raises(sqlite3.DatabaseError, match="schema version 99"):
        SqliteStore(other)


def test_writes_that_arrive_together_are_committed_together_each_on_its_own_terms(tmp_path):
    from paperplay.serve.store import Conflict, SqliteStore

    store = SqliteStore(tmp_path / "games.db")
    code = game_code("streams", canonical_seed(SEED))
    store.create_game(code, canonical_seed(SEED), None, "en", 40)
    batches = []
    run = store._run
    store._run = lambda batch: (batches.append(len(batch)), run(batch))[1]
    boxes = [{"value": t, "flagged": False, "why": None} for t in TILES]
    names = [f"p{i}" for i in range(24)] + ["P0"]  # the last is p0 again: refused alone
    gate = threading.Barrier(len(names))
    outcomes: dict[str, object] = {}

    def hand_in(name: str) -> None:
        gate.wait()
        try:
            outcomes[name] = store.add_sheet(code, name, "typed", boxes)[0].id
        except Conflict as exc:
            outcomes[name] = exc

    threads = [threading.Thread(target=hand_in, args=(name,)) for name in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    refused = [name for name, got in outcomes.items() if isinstance(got, Conflict)]
    assert len(refused) == 1 and refused[0] in ("p0", "P0")
    assert sorted(s.name.lower() for s in store.sheets(code)) == sorted(f"p{i}" for i in range(24))
    assert sum(batches) == len(names)
    store.close()
    reopened = SqliteStore(tmp_path / "games.db")
    assert len(reopened.sheets(code)) == 24
    reopened.close()


def test_only_the_serve_command_loads_the_web_server():
    check = ("import sys, paperplay.cli.app; "
             "print(sorted({m.split('.')[0] for m in sys.modules} & {'starlette', 'uvicorn', 'multipart', 'cv2'}))")
    result = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, cwd=ROOT)
    assert result.stdout.strip() == "[]", result.stderr


def test_every_error_code_is_in_the_api_reference_with_its_status():
    from paperplay.serve.errors import STATUS, Code

    document = (ROOT / "docs" / "reference" / "api.md").read_text(encoding="utf-8")
    listed = dict(re.findall(r"^\| `([a-z_]+)` \| (\d+) \|", document, re.M))
    assert set(listed) == {code.value for code in Code}
    assert all(int(listed[code.value]) == STATUS[code] for code in Code)


def test_every_refusal_of_the_photo_reader_is_in_the_api_reference():
    pytest.importorskip("numpy", reason="the photo reader needs the scan extra (pip install '.[scan]')")
    from paperplay.scan.refusal import CODES

    document = (ROOT / "docs" / "reference" / "api.md").read_text(encoding="utf-8")
    section = document.split("### A refused photo", 1)[1]
    assert {code for code in CODES if f"`{code}`" not in section} == set()


# --- several servers on one PostgreSQL database ------------------------------------------------------

def test_a_change_through_one_server_wakes_the_phones_of_another(pg_clean_url):
    """Two servers over one PostgreSQL database: a phone waiting on one is answered within 2 s of a join made
    through the other (LISTEN/NOTIFY, wired at the first request), and both serve the same host key and game."""
    import time

    one, other = Running(pg_clean_url), Running(pg_clean_url)
    try:
        assert one.client.key == other.client.key
        code = new_game(one.client)
        version = other.client.get(f"/api/games/{code}").json()["version"]
        answers: list = []
        waiting = threading.Thread(target=lambda: answers.append(
            (other.client.get(f"/api/games/{code}?wait={version}"), time.monotonic())))
        waiting.start()
        time.sleep(0.3)  # the phone is held
        assert answers == []
        joined_at = time.monotonic()
        assert one.client.post(f"/api/games/{code}/players", {"name": "Ann"}).status == 201
        waiting.join(5)
        answer, when = answers[0]
        assert answer.status == 200 and answer.json()["version"] > version and when - joined_at < 2.0
        assert b'"Ann"' in answer.body
    finally:
        one.stop()
        other.stop()


def test_a_database_out_of_reach_is_a_503_with_retry_after(pg_clean_url):
    """PostgreSQL away (here: the server's pool closed under it): 503 busy with Retry-After, one line, never a
    500; nothing is stored."""
    server = Running(pg_clean_url)
    try:
        code = new_game(server.client)
        server.store._pool.close()
        for answer in (server.client.get(f"/api/games/{code}"),
                       server.client.post(f"/api/games/{code}/players", {"name": "Ann"})):
            assert answer.status == 503 and answer.json()["code"] == "busy", answer.body
            assert answer.headers["retry-after"] == "5" and is_one_line_error(answer)
    finally:
        server.stop()


def test_the_serve_command_on_postgresql_never_prints_the_password(pg_url, tmp_path):
    import os
    import signal

    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(pg_url)
    url = urlunsplit(parts._replace(netloc=f"{parts.username}:S3cretPw@{parts.hostname}:{parts.port}"))
    process = subprocess.Popen([sys.executable, "-m", "paperplay", "serve", "--port", "0", "--workers", "1", "--db",
                                url], cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        lines = [process.stdout.readline()]
        while lines[-1] and not lines[-1].startswith("Games are kept"):
            lines.append(process.stdout.readline())
        assert lines[0].startswith("Host page: http://127.0.0.1:"), lines
        assert f"Games are kept in the PostgreSQL database postgresql://{parts.username}:***@" in lines[-1], lines
    finally:
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=20)
    assert process.returncode == 130 and "Traceback" not in err, err
    assert "S3cretPw" not in "".join(lines) + out + err
