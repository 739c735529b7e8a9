"""paperplay serve against a mischievous stranger on the room's Wi-Fi: each misuse found by attacking a
running server, kept as a fast test. Races are made certain, not likely: the request is held at the
point where the other one slips in (its body's reading is slowed, or the other change is made there)."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

for _module in ("starlette", "uvicorn", "multipart"):
    pytest.importorskip(_module, reason="paperplay serve needs the serve extra (pip install '.[serve]')")

from test_serve_api import CODE, TILES, Running, call_all, is_one_line_error, new_game  # noqa: E402
from test_serve_resilience import logged, running  # noqa: E402, F401 - fixtures

from paperplay.serve.errors import Code, Conflict  # noqa: E402


@pytest.fixture
def ready(running):
    """A game of 3 players whose tiles are all called (hand-ins are open)."""
    new_game(running.client, players=3)
    call_all(running.client, CODE)
    return running


def at_once(*calls: Any) -> list[Any]:
    """Runs the calls on threads of their own, started together; their answers in order."""
    answers: list[Any] = [None] * len(calls)
    start = threading.Barrier(len(calls))

    def run(index: int) -> None:
        start.wait()
        answers[index] = calls[index]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return answers


def slow_bodies(monkeypatch, seconds: float = 0.3, then: Any = None) -> None:
    """Every route's body is read `seconds` late (what a slow phone does), and `then()` runs meanwhile: a
    request holds what it read before its body (its sheet, its player) while another change is made."""
    from paperplay.serve.routes import players, sheets

    for module in (sheets, players):
        real = module.json_body

        async def late(request: Any, optional: bool = False, _real: Any = real) -> dict[str, Any]:
            data = await _real(request, optional)
            await asyncio.sleep(seconds)
            if then is not None:
                then()
            return data

        monkeypatch.setattr(module, "json_body", late)


def owner(token: str) -> dict[str, str]:
    return {"X-Paperplay-Token": token}


def no_tracebacks(logged) -> None:
    assert logged.tracebacks() == []


# --- corrections, renames and removals at once ------------------------------------------------------------

def test_two_corrections_sent_at_once_both_hold(ready, monkeypatch, logged):
    client = ready.client
    sheet = client.typed(CODE, "Ann", TILES).json()
    slow_bodies(monkeypatch)  # each correction reads the sheet before the other one writes it
    path = f"/api/games/{CODE}/sheets/{sheet['id']}"
    first, second = at_once(
        lambda: client.request("PUT", path, json_body={"cells": {"3": 30}}, headers=owner(sheet["token"])),
        lambda: client.request("PUT", path, json_body={"cells": {"7": 29}}, headers=owner(sheet["token"])))
    assert first.status == second.status == 200
    stored = client.get(path, host=True).json()
    assert (stored["boxes"][2]["value"], stored["boxes"][6]["value"]) == (30, 29)  # neither acknowledged one lost
    assert stored["corrected"] == [3, 7]
    no_tracebacks(logged)


def test_corrections_sent_at_once_are_checked_together(ready, monkeypatch):
    """Each of two corrections alone is a legal sheet; both together would hold two wilds: the second is
    refused, as it would be were it sent after the first."""
    client = ready.client
    cells = [t if t != "*" else 1 for t in TILES]
    sheet = client.typed(CODE, "Ann", cells).json()
    slow_bodies(monkeypatch)
    path = f"/api/games/{CODE}/sheets/{sheet['id']}"
    answers = at_once(*(lambda box=box: client.request("PUT", path, json_body={"cells": {str(box): "*"}},
                                                        headers=owner(sheet["token"])) for box in (2, 5)))
    assert sorted(a.status for a in answers) == [200, 400]
    stored = client.get(path, host=True).json()
    assert [b["value"] for b in stored["boxes"]].count("*") == 1


@pytest.mark.parametrize("method", ["PUT", "PATCH"])
def test_a_change_to_a_sheet_the_host_removes_meanwhile_is_a_404_not_a_500(ready, monkeypatch, logged, method):
    client = ready.client
    sheet = client.typed(CODE, "Ann", TILES).json()
    slow_bodies(monkeypatch, 0.0, then=lambda: ready.store.delete_sheet(CODE.replace("-", ""), sheet["id"]))
    body = {"cells": {"1": 30}} if method == "PUT" else {"name": "Annie"}
    answer = client.request(method, f"/api/games/{CODE}/sheets/{sheet['id']}", json_body=body, host=True)
    assert answer.status == 404 and answer.json()["code"] == "no_sheet" and is_one_line_error(answer)
    no_tracebacks(logged)


def test_a_sheet_removed_twice_at_once_is_removed_once(ready):
    client = ready.client
    sheet = client.typed(CODE, "Ann", TILES).json()
    code = CODE.replace("-", "")
    ready.store.delete_sheet(code, sheet["id"])
    with pytest.raises(Conflict) as second:  # the second of two clicks that both found the sheet
        ready.store.delete_sheet(code, sheet["id"])
    assert second.value.code == Code.NO_SHEET
    answer = client.request("DELETE", f"/api/games/{CODE}/sheets/{sheet['id']}", host=True)
    assert answer.status == 404 and answer.json()["code"] == "no_sheet"


def test_a_player_the_host_removes_while_handing_in_is_refused_and_nothing_is_stored(ready, monkeypatch, logged):
    client = ready.client
    player = client.post(f"/api/games/{CODE}/players", {"name": "Ann"}).json()
    slow_bodies(monkeypatch, 0.0, then=lambda: ready.store.delete_player(CODE.replace("-", ""), player["id"]))
    answer = client.request("POST", f"/api/games/{CODE}/sheets", json_body={"cells": TILES},
                            headers=owner(player["token"]))
    assert answer.status == 403 and answer.json()["code"] == "not_yours" and is_one_line_error(answer)
    state = client.get(f"/api/games/{CODE}").json()
    assert state["handed_in"] == [] and state["roster"] == []
    no_tracebacks(logged)


def test_the_host_cannot_lower_the_players_below_those_who_joined(ready):
    client = ready.client
    tokens = [client.post(f"/api/games/{CODE}/players", {"name": name}).json()["token"] for name in ("Ann", "Bob")]
    lowered = client.request("PATCH", f"/api/games/{CODE}", json_body={"players": 1}, host=True)
    assert lowered.status == 409 and lowered.json()["code"] == "players_below_sheets"
    assert "2 more players have joined" in lowered.json()["error"]
    for token in tokens:  # each who joined can still hand in
        handed = client.request("POST", f"/api/games/{CODE}/sheets", json_body={"cells": TILES}, headers=owner(token))
        assert handed.status == 201
    assert client.request("PATCH", f"/api/games/{CODE}", json_body={"players": 2}, host=True).status == 200


# --- lookalike names ----------------------------------------------------------------------------------------

LOOKALIKES = [
    ("Ann", "\u034fAnn"),        # a combining grapheme joiner: drawn as nothing
    ("Ann", "Ann\U000e0100"),    # an ideographic variation selector
    ("Ann", "A\u180bnn"),        # a Mongolian variation selector
    ("Ann", "A\u17b4nn"),        # a Khmer inherent vowel: drawn as nothing
    ("Ann", "A\u200ann"),        # a hair space
    ("Ann", "A\u2009nn"),        # a thin space
    ("Ann", "A nn"),
    ("Ann", "\ua4eenn"),         # Lisu A
    ("Ann", "\u13aaNN"),         # Cherokee A
    ("Bob", "B\u1d0fb"),         # a small capital O
    ("Bob", "\u13f4ob"),         # Cherokee B
    ("Eve", "\u0415\u0475\u0415"),  # Cyrillic E, izhitsa, E
    ("Zoe", "\u0396\u03bf\u03b5"),  # Greek Zeta, omicron, epsilon
    ("Oscar", "\u0585scar"),     # Armenian o
]


@pytest.mark.parametrize(("first", "second"), LOOKALIKES)
def test_names_that_only_look_different_are_one_players(first, second):
    from paperplay.serve.names import clean, key

    assert key(first) == key(second) and clean(first) != "" and clean(second) != ""


@pytest.mark.parametrize(("first", "second"), [("Ann", "\u00c1nn"), ("Zoe", "Zo\u00eb"), ("Jo", "Jon"),
                                                ("\U0001f600", "\U0001f601"), ("\u0391\u03bd\u03bd\u03b1", "Anna")])
def test_names_that_differ_are_two_players(first, second):
    from paperplay.serve.names import key

    assert key(first) != key(second)


def test_marks_that_draw_nothing_are_not_kept_in_a_name_but_emoji_selectors_are():
    from paperplay.serve.names import clean

    assert clean("\u034fAnn\U000e0100") == "Ann" and clean("A\u180bnn") == "Ann"
    assert clean("\u2764\ufe0f") == "\u2764\ufe0f"  # a red heart, drawn as an emoji
    assert clean("\U0001f468\u200d\U0001f469\u200d\U0001f467") == "\U0001f468\u200d\U0001f469\u200d\U0001f467"


def test_a_lookalike_of_a_name_taken_is_a_409_at_the_door(running):
    client = running.client
    new_game(client, players=5)
    assert client.post(f"/api/games/{CODE}/players", {"name": "Ann"}).status == 201
    for name in ("\u034fAnn", "A\u200ann", "\u13aaNN"):
        answer = client.post(f"/api/games/{CODE}/players", {"name": name})
        assert answer.status == 409 and answer.json()["code"] == "name_taken" and is_one_line_error(answer)
    assert [p["name"] for p in client.get(f"/api/games/{CODE}").json()["roster"]] == ["Ann"]


# --- uploads --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("body", [
    b"--other\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"a.png\"\r\n\r\nxx\r\n--other--\r\n",
    b"junk" * 100 + b"--XyZ\r\nContent-Disposition: form-data; name=\"photo\"\r\n\r\nxx\r\n--XyZ--\r\n",
    b"--XyZ\r\nContent-Disposition: form-data; name=\"" + b"n" * 70_000 + b"\"\r\n\r\nx\r\n--XyZ--\r\n",
], ids=["another boundary", "junk before the first part", "a huge field name"])
def test_a_malformed_upload_is_a_400_and_nothing_in_the_hosts_terminal(ready, caplog, logged, body):
    answer = ready.client.request("POST", f"/api/games/{CODE}/sheets", body=body,
                                  headers={"Content-Type": "multipart/form-data; boundary=XyZ"})
    assert answer.status == 400 and is_one_line_error(answer)
    # not the form parser's "Expected boundary character …" (Python prints a library's warning when nothing
    # handles it: uvicorn's handlers are for its own loggers)
    assert [r.getMessage() for r in caplog.records if r.name.startswith(("python_multipart", "multipart"))] == []
    no_tracebacks(logged)


@pytest.mark.parametrize("upgrade", [b"websocket", b"h2c", b"nonsense"])
def test_an_upgrade_request_is_served_as_http_and_prints_nothing(running, logged, upgrade):
    from test_serve_resilience import raw

    status, body = raw(running.base, b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade, close\r\n"
                                     b"Upgrade: " + upgrade + b"\r\nSec-WebSocket-Key: eHh4eHh4eHh4eHh4eHh4eA==\r\n"
                                     b"Sec-WebSocket-Version: 13\r\n\r\n")
    assert status == 200 and b'"ok":true' in body
    assert [r.getMessage() for r in logged.records] == []  # not "No supported WebSocket library detected …"


# --- the Host header ------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("host", "allowed"), [
    (b"[::1]", True), (b"[::1]:8000", True), (b"[::1]:", True), (b"[::1", False), (b"[::1]x", False),
    (b"[::1]:80:80", False), (b"127.0.0.1:abc", False)])
def test_a_host_header_that_is_no_address_is_not_the_servers(running, host, allowed):
    from test_serve_resilience import get_with_host

    status, body = get_with_host(running.base, host)
    assert status == (200 if allowed else 421)
    assert allowed or b"wrong_host" in body


def test_an_empty_host_header_is_a_421_that_offers_no_empty_name(running):
    from test_serve_resilience import raw

    status, body = raw(running.base, b"GET /api/health HTTP/1.1\r\nHost: \r\nConnection: close\r\n\r\n")
    assert status == 421 and b"wrong_host" in body and b"--host-name  " not in body


# --- after the reveal ------------------------------------------------------------------------------------------

def test_the_results_are_worked_out_once_however_many_phones_ask_and_follow_a_correction(ready, monkeypatch):
    from paperplay.serve import checks

    client = ready.client
    sheet = client.typed(CODE, "Ann", TILES).json()
    assert client.post(f"/api/games/{CODE}/reveal", {"force": True}, host=True).status == 200
    made = []
    real = checks.results

    def counted(*args: Any) -> Any:
        made.append(1)
        return real(*args)

    monkeypatch.setattr(checks, "results", counted)
    answers = at_once(*(lambda: client.get(f"/api/games/{CODE}/results") for _ in range(20)))
    assert {a.status for a in answers} == {200} and len({a.body for a in answers}) == 1
    assert len(made) == 1  # a phone's refresh costs nothing: 200 sheets take a quarter of a second
    total = answers[0].json()["results"][0]["total"]
    best = sorted(t for t in TILES if t != "*") + ["*"] * TILES.count("*")  # one long rising series
    fixed = client.request("PUT", f"/api/games/{CODE}/sheets/{sheet['id']}", json_body={"cells": best}, host=True)
    assert fixed.status == 200
    after = client.get(f"/api/games/{CODE}/results").json()
    assert len(made) == 2 and after["results"][0]["total"] != total  # the host's correction, at once
    page = client.get(f"/api/games/{CODE}/results.html")
    assert page.status == 200 and b"Ann" in page.body
    assert "default-src 'none'" in page.headers["content-security-policy"]  # names are players' text


# --- phones that go away ----------------------------------------------------------------------------------------

def test_a_phone_that_goes_away_while_waiting_frees_its_place_at_once(running):
    import socket
    import time

    client = running.client
    new_game(client)
    version = client.get(f"/api/games/{CODE}").json()["version"]
    host, port = running.base.removeprefix("http://").split(":")
    phones = []
    for _ in range(20):  # a page reloaded 20 times: each reload leaves its last wait behind
        sock = socket.create_connection((host, int(port)))
        sock.sendall(f"GET /api/games/{CODE}?wait={version} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        phones.append(sock)

    def waiting() -> int:
        return int(client.get("/api/health").json()["phones_waiting"])

    deadline = time.monotonic() + 5
    while waiting() < 20 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert waiting() == 20
    for sock in phones:
        sock.close()
    deadline = time.monotonic() + 2  # not the 25 s of a wait
    while waiting() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert waiting() == 0
    stayed = client.get(f"/api/games/{CODE}?wait={version - 1}")  # a phone that stays is answered as before
    assert stayed.status == 200 and stayed.json()["version"] == version


# --- photos ---------------------------------------------------------------------------------------------------

def test_a_photo_whose_qr_code_holds_the_game_code_alone_is_this_games_sheet():
    """A long seed's full code is 27 characters whose first 8 are the game code; a sheet printed with the game
    code alone was refused as "shows a sheet of game J7J8-CPHF; this is game J7J8-CPHF"."""
    from paperplay.handin import PhotoSheet, Refused, check_photo_game
    from paperplay.seeds import canonical_seed, full_code

    code = full_code("streams", canonical_seed("PHOTO123456789"))
    assert len(code) == 27
    for shown in (code, code[:8]):
        sheet = PhotoSheet(shown, "1/4", True, [], [], True)
        check_photo_game(sheet, code)
        assert sheet.code == code
    other = full_code("streams", canonical_seed("ANOTHER-SEED-42"))
    for shown in (other, other[:8]):
        with pytest.raises(Refused) as refused:
            check_photo_game(PhotoSheet(shown, "1/4", True, [], [], True), code)
        assert refused.value.code == "wrong_game"


def test_one_address_has_at_most_two_photos_read_at_once():
    """One person sending photo after photo (each a second of a worker's time) cannot take every worker."""
    from paperplay.serve.photos import Full, PhotoReader

    reader = PhotoReader(workers=1, limit=8)
    reader.reserve("10.0.0.5")
    reader.reserve("10.0.0.5")
    with pytest.raises(Full) as third:
        reader.reserve("10.0.0.5")
    assert third.value.whose == "address" and reader.waiting == 2
    reader.reserve("10.0.0.6")  # another phone still gets its place
    for _ in range(5):
        reader.reserve("127.0.0.1")  # this computer's own (a load test, a proxy) has no share of its own
    with pytest.raises(Full) as full:
        reader.reserve("10.0.0.7")
    assert full.value.whose == "server"
    reader.release("10.0.0.5")
    reader.reserve("10.0.0.5")  # a place given back is free again
    assert reader.waiting == 8


def test_a_phone_past_its_share_of_photos_gets_503_with_retry_after(ready, monkeypatch):
    from lab.loadtest import multipart
    from paperplay.serve import live

    monkeypatch.setattr(live, "loopback", lambda address: False)  # this test's phone is on the room's Wi-Fi
    monkeypatch.setattr(ready.server.photos, "per_address", 0)
    body, kind = multipart({}, {"photo": ("sheet.jpg", b"\xff\xd8 not read", "image/jpeg")})
    answer = ready.client.request("POST", f"/api/games/{CODE}/sheets", body=body, headers={"Content-Type": kind})
    assert answer.status == 503 and answer.json()["code"] == "busy" and answer.headers["retry-after"] == "5"
    assert "from this phone" in answer.json()["error"] and ready.server.photos.waiting == 0


# --- connections ------------------------------------------------------------------------------------------

def test_one_address_cannot_hold_every_open_file_with_idle_connections(tmp_path, monkeypatch):
    import logging
    import socket
    import time

    from test_serve_resilience import Logged

    from paperplay.serve import guard, live

    monkeypatch.setattr(live, "loopback", lambda address: False)  # this test's client is a phone on the Wi-Fi
    monkeypatch.setattr(guard, "CONNECTIONS_PER_ADDRESS", 5)
    server = Running(tmp_path / "games.db")
    logged = Logged()  # after the server: uvicorn sets its loggers' handlers as it starts
    logging.getLogger("uvicorn").addHandler(logged)
    try:
        host, port = server.base.removeprefix("http://").split(":")

        def connect() -> socket.socket:
            sock = socket.create_connection((host, int(port)), timeout=5)
            sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # a head never finished
            return sock

        def closed(sock: socket.socket) -> bool:
            sock.settimeout(2)
            try:
                return sock.recv(1) == b""
            except ConnectionResetError:
                return True
            except TimeoutError:
                return False

        held = [connect() for _ in range(5)]
        time.sleep(0.2)
        extra = [connect() for _ in range(3)]
        assert [closed(sock) for sock in extra] == [True] * 3  # closed at once, not after 30 s
        told = [r.getMessage() for r in logged.records if "connections open" in r.getMessage()]
        assert len(told) == 1 and "the most one address may" in told[0]  # one line, not one a connection
        for sock in held + extra:
            sock.close()
        time.sleep(0.3)
        answer = server.client.get("/api/health")  # the address is let in again once its connections end
        assert answer.status == 200
    finally:
        logging.getLogger("uvicorn").removeHandler(logged)
        server.stop()


def test_a_host_link_to_the_home_page_keeps_its_key(running):
    import http.client

    host, port = running.base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    connection.request("GET", f"/?key={running.client.key}&lang=da")
    answer = connection.getresponse()
    assert answer.status == 303 and answer.getheader("location") == f"/host?key={running.client.key}&lang=da"
    connection.close()
    page = running.client.get(f"/host?key={running.client.key}&lang=da")
    assert page.status == 200  # not the 401 page that /host without its key is


# --- who may call ----------------------------------------------------------------------------------------------

HOST_ONLY = [("GET", "/api/games", None), ("POST", "/api/games", {"players": 2}),
             ("PATCH", "/api/games/{c}", {"locked": True}), ("POST", "/api/games/{c}/call", None),
             ("POST", "/api/games/{c}/reveal", {"force": True}),
             ("GET", "/api/games/{c}/sheets", None), ("PATCH", "/api/games/{c}/sheets/{s}", {"name": "Zed"}),
             ("DELETE", "/api/games/{c}/sheets/{s}", None), ("DELETE", "/api/games/{c}/players/{p}", None),
             ("GET", "/api/games/{c}/kit.pdf", None), ("GET", "/api/games/{c}/sheets.pdf", None)]


def test_host_calls_need_the_host_key_not_the_view_token_nor_a_players(ready):
    from urllib.parse import parse_qs, urlsplit

    client = ready.client
    view = parse_qs(urlsplit(client.get(f"/api/games/{CODE}", host=True).json()["projector_url"]).query)["view"][0]
    player = client.post(f"/api/games/{CODE}/players", {"name": "Bob"}).json()
    sheet = client.typed(CODE, "Ann", TILES).json()
    before = client.get(f"/api/games/{CODE}").json()
    for method, path, body in HOST_ONLY:
        path = path.format(c=CODE, s=sheet["id"], p=player["id"])
        tries = [({}, path), ({"X-Paperplay-Key": view}, path), ({}, f"{path}?view={view}"),
                 ({"X-Paperplay-Key": player["token"]}, path), ({"X-Paperplay-Token": sheet["token"]}, path),
                 ({}, f"{path}?key={view}")]
        for headers, where in tries:
            answer = client.request(method, where, json_body=body, headers=headers)
            assert answer.status == 401, (method, where, headers, answer.status)
            assert answer.json()["code"] in ("key_missing", "key_wrong") and is_one_line_error(answer)
    after = client.get(f"/api/games/{CODE}").json()
    assert after == before  # nothing changed


def test_a_player_cannot_read_or_change_another_players_sheet(ready):
    client = ready.client
    ann = client.typed(CODE, "Ann", TILES).json()
    bob = client.typed(CODE, "Bob", TILES).json()
    base = f"/api/games/{CODE}/sheets/{ann['id']}"
    for method, path, body in [("GET", base, None), ("PUT", base, {"cells": {"1": 30}}), ("GET", f"{base}/file", None),
                               ("GET", f"{base}/boxes/1.png", None)]:
        answer = client.request(method, path, json_body=body, headers=owner(bob["token"]))
        assert answer.status == 403 and answer.json()["code"] == "not_yours"
        assert client.request(method, f"{path}?token={bob['token']}", json_body=body).status == 403
    assert client.get(base, host=True).json()["boxes"][0]["value"] == TILES[0]


# --- hand-ins out of turn ------------------------------------------------------------------------------------------

def test_hand_ins_are_taken_only_between_the_last_tile_and_the_lock_or_reveal(running):
    client = running.client
    new_game(client, players=5)
    for turn in range(20):
        early = client.typed(CODE, f"Early{turn}", TILES)
        assert early.status == 409 and early.json()["code"] == "too_early"
        client.post(f"/api/games/{CODE}/call", host=True)
    assert client.typed(CODE, "Ann", TILES).status == 201
    client.request("PATCH", f"/api/games/{CODE}", json_body={"locked": True}, host=True)
    assert client.typed(CODE, "Bob", TILES).json()["code"] == "locked"
    client.request("PATCH", f"/api/games/{CODE}", json_body={"locked": False}, host=True)
    client.post(f"/api/games/{CODE}/reveal", {"force": True}, host=True)
    assert client.typed(CODE, "Cy", TILES).json()["code"] == "revealed"
    assert [s["name"] for s in client.get(f"/api/games/{CODE}").json()["handed_in"]] == ["Ann"]


def test_the_last_place_taken_by_many_phones_at_once_goes_to_one(ready):
    client = ready.client
    client.request("PATCH", f"/api/games/{CODE}", json_body={"players": 1}, host=True)
    joins = (lambda i=i: client.post(f"/api/games/{CODE}/players", {"name": f"Joiner{i}"}) for i in range(3))
    answers = at_once(*(lambda i=i: client.typed(CODE, f"Phone{i}", TILES) for i in range(6)), *joins)
    assert sorted(a.status for a in answers) == [201] + [409] * 8
    assert {a.json()["code"] for a in answers if a.status == 409} == {"game_full"}
    state = client.get(f"/api/games/{CODE}").json()
    assert len(state["roster"]) == 1


def test_a_full_database_is_a_409_for_a_game_without_a_seed_too(running, monkeypatch, logged):
    from paperplay.serve import store

    monkeypatch.setattr(store, "MAX_GAMES", 1)
    assert running.client.post("/api/games", {"players": 2}, host=True).status == 201
    for body in ({"players": 2}, {"players": 2, "seed": "ANOTHER-SEED-42"}):
        full = running.client.post("/api/games", body, host=True)  # was a 500 (UnboundLocalError) without a seed
        assert full.status == 409 and full.json()["code"] == "too_many_games" and is_one_line_error(full)
    no_tracebacks(logged)


def test_a_database_that_cannot_be_written_is_a_503_not_a_500(running, monkeypatch, logged):
    import sqlite3

    new_game(running.client)

    def full(*args: Any) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(running.store, "join", full)
    answer = running.client.post(f"/api/games/{CODE}/players", {"name": "Ann"})
    assert answer.status == 503 and answer.json()["code"] == "busy" and answer.headers["retry-after"] == "5"
    assert "nothing was stored" in answer.json()["error"] and is_one_line_error(answer)
    lines = [r.getMessage() for r in logged.records]
    assert len(lines) == 1 and "disk is full" in lines[0] and not any(r.exc_info for r in logged.records)

    def bug(*args: Any) -> None:
        raise sqlite3.OperationalError("no such column: nmae")

    monkeypatch.setattr(running.store, "join", bug)
    assert running.client.post(f"/api/games/{CODE}/players", {"name": "Ann"}).json()["code"] == "internal"


def test_a_head_request_for_the_event_stream_is_answered_and_holds_nothing(running):
    from test_serve_resilience import raw

    new_game(running.client)
    status, body = raw(running.base, f"HEAD /api/games/{CODE}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                     "Connection: close\r\n\r\n".encode(), timeout=3)  # was held for 10 minutes
    assert status == 200 and body == b""
    assert running.client.get("/api/health").json()["phones_waiting"] == 0


@pytest.mark.parametrize(("name", "allowed"), [
    ("Vi\u1ec7t", True), ("Vie\u0323\u0302t", True),  # Vietnamese: two marks on one letter, composed or not
    ("\u05e9\u05c1\u05b8\u05dc\u05d5\u05b9\u05dd", True),  # Hebrew with points
    ("\u0915\u094d\u0937", True),  # Devanagari with a virama
    ("A" + "\u0301\u0300\u0302\u0303\u0304\u0306", False),  # six stacked (NFKC makes one Á): over the lines around
    ("Z" + "\u0336\u0337\u0338\u0335" * 9, False)])
def test_a_name_with_marks_stacked_past_a_few_on_one_letter_is_refused(running, name, allowed):
    new_game(running.client, players=3)
    answer = running.client.post(f"/api/games/{CODE}/players", {"name": name})
    assert answer.status == (201 if allowed else 400)
    assert allowed or ("marks on one letter" in answer.json()["error"] and is_one_line_error(answer))


def test_a_player_changing_a_sheet_without_pause_is_paced_and_the_host_never_is(ready):
    """One phone sending changes non-stop woke every waiting phone each time (2,100 state answers a second
    with 1,000 phones waiting): a sheet takes a whole sheet's changes at once, then 2 a second."""
    client = ready.client
    sheet = client.typed(CODE, "Ann", TILES).json()
    path = f"/api/games/{CODE}/sheets/{sheet['id']}"
    answers = [client.request("PUT", path, json_body={"cells": {"3": 30 if n % 2 else 29}},
                              headers=owner(sheet["token"])) for n in range(24)]
    statuses = [a.status for a in answers]
    assert statuses[:20] == [200] * 20 and 429 in statuses[20:], statuses
    paced = next(a for a in answers if a.status == 429)
    assert paced.json()["code"] == "too_fast" and is_one_line_error(paced)
    assert 1 <= int(paced.headers["retry-after"]) <= 2
    host = [client.request("PUT", path, json_body={"cells": {"4": 28}}, host=True).status for _ in range(5)]
    assert host == [200] * 5
    time.sleep(1.1)  # the pace refills: the player may change the sheet again
    again = client.request("PUT", path, json_body={"cells": {"3": 30}}, headers=owner(sheet["token"]))
    assert again.status == 200


def test_the_pace_forgets_sheets_it_no_longer_needs():
    from paperplay.serve.web import Pace

    pace = Pace(burst=2, per_second=1000.0, kept=3)
    assert [pace.take(k) for k in "abc"] == [0.0] * 3
    time.sleep(0.01)  # every bucket is full again
    assert pace.take("d") == 0.0 and len(pace._buckets) <= 2
    slow = Pace(burst=1, per_second=1.0)
    assert slow.take("x") == 0.0 and 0.9 < slow.take("x") <= 1.0
