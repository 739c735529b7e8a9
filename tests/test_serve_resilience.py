"""paperplay serve in a room of strangers: hostile numbers (path, query, header, body) are a one-line 400,
never a 500 or a traceback in the host's terminal."""

from __future__ import annotations

import json
import logging
import socket
import time
from urllib.parse import quote

import pytest

for _module in ("starlette", "uvicorn", "multipart"):
    pytest.importorskip(_module, reason="paperplay serve needs the serve extra (pip install '.[serve]')")

from test_serve_api import CODE, TILES, Running, call_all, new_game  # noqa: E402

from paperplay.serve.guard import Hosts, host_part, interface_addresses  # noqa: E402
from paperplay.serve.numbers import BadNumber, content_length, digits_of, whole  # noqa: E402


@pytest.fixture
def running(tmp_path):
    server = Running(tmp_path / "games.db")
    yield server
    server.stop()


class Logged(logging.Handler):
    """Every record uvicorn logs while a test runs (its error log is what the host's terminal shows)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def tracebacks(self) -> list[str]:
        return [record.getMessage() for record in self.records if record.exc_info or record.levelno >= logging.ERROR]


@pytest.fixture
def logged():
    handler = Logged()
    logger = logging.getLogger("uvicorn")
    logger.addHandler(handler)
    yield handler
    logger.removeHandler(handler)


def raw(base: str, request: bytes, timeout: float = 10) -> tuple[int, bytes]:
    """Sends bytes as they are (a client library would refuse a hostile header) and reads the answer."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as sock:
        sock.sendall(request)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ")[1]), body


# --- numbers ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, number", [("0", 0), ("12", 12), ("007", 7), ("１２", 12), ("𝟏𝟐", 12)])
def test_digits_and_fullwidth_digits_are_read(text, number):
    assert whole(text, "n", 0, 100) == number


@pytest.mark.parametrize("text", ["²", "1²", "₂", "①", "٣", "१", "-1", "+1", " 1", "1 ", "1e3", "1.0", "0x1", "1_0",
                                  "", "\u200b1", "1\x00", "Ⅻ", "½"])
def test_anything_else_is_a_400_naming_the_field(text):
    assert digits_of(text) is None
    with pytest.raises(BadNumber, match=r"^wait: .*expected .* 0-100 \(digits 0-9\)$"):
        whole(text, "wait", 0, 100)


def test_numbers_have_bounds_and_a_length_cap_checked_before_any_work():
    with pytest.raises(BadNumber, match="^box: is 21; expected"):
        whole("21", "box", 1, 20)
    with pytest.raises(BadNumber, match="^id: has 1,000,000 characters"):
        whole("１" * 1_000_000, "id", 0, 10**12)
    with pytest.raises(BadNumber, match="^n: is missing"):
        whole(None, "n")
    assert content_length(None) is None and content_length("0") == 0 and content_length("123") == 123
    with pytest.raises(BadNumber, match="^Content-Length: is '²'"):
        content_length("²")


HOSTILE = ["²", "-1", "1e3", "%20%31", "%D9%A3", "99999999999999999999999", "1.5"]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_numbers_in_a_path_or_query_are_a_400_never_a_500(running, logged, text):
    client = running.client
    new_game(client)
    call_all(client, CODE)
    token = client.typed(CODE, "Ann", TILES).json()["token"]
    for path in (f"/api/games/{CODE}/sheets/{text}", f"/api/games/{CODE}?wait={text}",
                 f"/api/games/{CODE}/sheets/1/boxes/{text}.png?token={token}",
                 f"/api/games/{CODE}/sheets/{text}/file"):
        answer = client.get(path.replace("²", "%C2%B2"), host=True)
        assert answer.status == 400, (path, answer.body)
        field = answer.json()["error"].split(":")[0]
        assert field in ("id", "wait", "box"), answer.body
    assert logged.tracebacks() == []


def test_fullwidth_digits_in_a_path_or_query_are_read(running):
    client = running.client
    new_game(client)
    call_all(client, CODE)
    ann = client.typed(CODE, "Ann", TILES).json()
    assert client.get(f"/api/games/{CODE}/sheets/%EF%BC%91", host=True).json()["id"] == ann["id"] == 1  # "１"
    version = client.get(f"/api/games/{CODE}").json()["version"]
    fullwidth = quote("".join(chr(0xFF10 + int(d)) for d in str(version - 1)))
    assert client.get(f"/api/games/{CODE}?wait={fullwidth}").json()["version"] == version  # answered at once


def test_hostile_typed_boxes_are_a_400_naming_the_box(running, logged):
    client = running.client
    new_game(client)
    call_all(client, CODE)
    for value in ("²", "-1", "1e3", " 7", "٣", "1.0"):
        answer = client.typed(CODE, "Ann", [value, *TILES[1:]])
        assert answer.status == 400 and answer.json()["error"].startswith("cells[0]: is "), answer.body
    fullwidth = "".join(chr(0xFF10 + int(d)) for d in str(TILES[0])) if TILES[0] != "*" else "*"
    assert client.typed(CODE, "Ann", [fullwidth, *TILES[1:]]).status == 201
    token = client.get(f"/api/games/{CODE}/sheets/1", host=True).json()["id"]
    for cells in ({"²": 3}, {"-1": 3}, {"1": "²"}, {"21": 3}, {"０": 3}):
        answer = client.request("PUT", f"/api/games/{CODE}/sheets/{token}", json_body={"cells": cells}, host=True)
        assert answer.status == 400 and answer.json()["error"].startswith("cells"), (cells, answer.body)
    assert logged.tracebacks() == []


@pytest.mark.parametrize("value", [b"\xc2\xb2", b"\xb2", b"-1", b"1e3", b" 1x", b"\xef\xbc\x91"])
def test_a_hostile_content_length_is_a_400(running, logged, value):
    new_game(running.client)
    request = (b"POST /api/games/" + CODE.encode() + b"/sheets HTTP/1.1\r\nHost: 127.0.0.1\r\n"
               b"Content-Type: application/json\r\nContent-Length: " + value + b"\r\nConnection: close\r\n\r\n{}")
    status, body = raw(running.base, request)
    assert status == 400
    document = json.loads(body)
    assert document["code"] == "bad_number" and document["error"].startswith("Content-Length: "), document
    assert logged.tracebacks() == []


def test_a_huge_content_length_is_a_413_before_any_byte_is_read(running):
    new_game(running.client)
    status, body = raw(running.base, b"POST /api/games/" + CODE.encode() + b"/sheets HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                     b"Content-Type: application/json\r\nContent-Length: 99999999999999999999999\r\n"
                                     b"Connection: close\r\n\r\n{}")
    assert (status, json.loads(body)["code"]) in ((413, "too_large"), (400, "bad_number"))


def test_the_door_reads_content_length_itself_where_no_http_parser_did():
    """Behind another server (or a test client), the door's own check gives the same answer."""
    from paperplay.serve.guard import Door, Guard

    async def app(scope, receive, send):  # never reached
        raise AssertionError("the app was called")

    sent: list[dict] = []

    async def send(message):
        sent.append(message)

    async def receive():
        return {"type": "http.request", "body": b"{}", "more_body": False}

    guard = Guard(app, Door(Hosts()))
    for value in (b"\xb2", b"-1", b"1e3", b""):
        sent.clear()
        scope = {"type": "http", "method": "POST", "path": "/api/games", "client": ("10.0.0.9", 5),
                 "headers": [(b"host", b"localhost"), (b"content-length", value)]}
        run_coroutine(lambda scope=scope: guard(scope, receive, send))
        assert sent[0]["status"] == 400 and json.loads(sent[1]["body"])["code"] == "bad_number", value


# --- the server's own names (DNS rebinding) ------------------------------------------------------------

def get_with_host(base: str, host: bytes | None, path: str = "/api/health") -> tuple[int, bytes]:
    version = b"HTTP/1.1" if host is not None else b"HTTP/1.0"  # HTTP/1.1 needs a Host
    head = b"GET " + path.encode() + b" " + version + b"\r\n" + (b"Host: " + host + b"\r\n" if host else b"")
    return raw(base, head + b"Connection: close\r\n\r\n")


def test_host_part_drops_the_port_the_case_and_a_final_dot():
    assert [host_part(h) for h in ("localhost:8000", "[::1]:80", "[::1]", "Game.Local.:8000", "127.0.0.1",
                                   "[fe80::1%25eth0]:8000", "::1")] == [
        "localhost", "::1", "::1", "game.local", "127.0.0.1", "fe80::1", "::1"]


def test_the_servers_own_names_are_its_loopback_interfaces_and_given_names():
    hosts = Hosts(["gamenight.local", "Party.Example."])
    own = sorted(interface_addresses())
    assert own, "no address of this computer was found"
    for host in ("localhost", "LOCALHOST:8000", "127.0.0.1:8000", "127.0.0.2", "[::1]:8000", "[::ffff:127.0.0.1]",
                 "gamenight.local", "party.example:80", "app.localhost", socket.gethostname(), *own,
                 *(f"[{a}]:8000" if ":" in a else f"{a}:8000" for a in own), None):
        assert hosts.allows(host), host
    for host in ("evil.example", "evil.example:8000", "localhost.evil.example", "gamenight.local.evil", "8.8.8.8",
                 "[2001:db8::1]", "", "127.0.0.1.nip.io"):
        assert not hosts.allows(host), host


def test_an_address_the_computer_gets_later_is_its_own_once_read_again(monkeypatch):
    import paperplay.serve.guard as guard

    hosts = Hosts(refresh=0)
    assert not hosts.allows("10.99.98.97")
    monkeypatch.setattr(guard, "interface_addresses", lambda by_name=True: {"10.99.98.97"})
    assert hosts.allows("10.99.98.97:8000")  # the laptop joined the room's Wi-Fi after the server started


def test_a_request_naming_another_host_gets_421(running, logged):
    status, body = get_with_host(running.base, b"evil.example:8000")
    assert status == 421
    document = json.loads(body)
    assert document["code"] == "wrong_host" and document["error"].startswith("Host: 'evil.example' is not")
    assert "\n" not in document["error"] and "--host-name evil.example" in document["error"]
    new_game(running.client)
    assert get_with_host(running.base, b"evil.example", f"/api/games/{CODE}")[0] == 421
    for host in (b"127.0.0.1", b"localhost:1", b"[::1]", None):
        assert get_with_host(running.base, host)[0] == 200, host
    assert logged.tracebacks() == []


# --- bodies: they arrive before they are worked on -------------------------------------------------------

def settled(done, seconds: float = 5.0) -> None:
    """Waits until `done()` (the server's loop finishes a request after the client has its answer)."""
    deadline = time.monotonic() + seconds
    while not done() and time.monotonic() < deadline:
        time.sleep(0.02)


def slow_upload(base: str, code: str, declared: int = 100_000) -> socket.socket:
    """An upload that sends its headers and a few bytes, then nothing (a phone a byte a minute)."""
    host, port = base.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=30)
    sock.sendall(f"POST /api/games/{code}/sheets HTTP/1.1\r\nHost: {host}\r\nContent-Type: multipart/form-data; "
                 f"boundary=b\r\nContent-Length: {declared}\r\n\r\n--b\r\n".encode())
    return sock


def answer_of(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    sock.close()
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    fields = {k.lower(): v for k, _, v in (line.partition(": ") for line in lines[1:])}
    return int(lines[0].split(" ")[1]), fields, body


def test_a_trickling_upload_holds_no_reading_slot_and_gets_408(running, logged):
    client = running.client
    new_game(client)
    call_all(client, CODE)
    running.server.photos.limit = 1  # one reading slot
    running.server.door.limits.upload_seconds = 1.5
    slow = [slow_upload(running.base, CODE) for _ in range(3)]
    answer = client.photo(CODE, b"hello, not an image")
    assert answer.status == 400 and "is not an image" in answer.json()["error"]  # it had the slot: read, refused
    for sock in slow:
        status, headers, body = answer_of(sock)
        assert status == 408 and json.loads(body)["code"] == "too_slow", body
        assert json.loads(body)["error"].startswith("photo: did not arrive within 1.5 s")
    settled(lambda: running.server.door.in_flight == 0)  # given back once each answer is sent
    assert running.server.photos.waiting == 0 and running.server.door.in_flight == 0
    assert logged.tracebacks() == []


def test_bytes_in_flight_are_capped_with_503_and_retry_after(running, logged):
    client = running.client
    new_game(client)
    call_all(client, CODE)
    running.server.door.limits.in_flight = 50_000
    running.server.door.limits.per_client = 10**9
    holding = slow_upload(running.base, CODE, declared=40_000)
    holding.sendall(b"x" * 30_000)  # 30,000 bytes held while the rest is awaited
    settled(lambda: running.server.door.in_flight >= 30_000)
    over = client.photo(CODE, b"\xff\xd8" + b"\0" * 30_000)
    assert over.status == 503 and over.headers["retry-after"] == "5", over.body
    assert over.json()["code"] == "busy" and over.json()["error"].startswith("photo: the server is sending 30,")
    streamed = client.request("POST", f"/api/games/{CODE}/sheets", body=b"{" + b" " * 40_000 + b"}",
                              headers={"Content-Type": "application/json"}, chunked=True)
    assert streamed.status == 503 and streamed.headers["retry-after"] == "5"
    small = client.typed(CODE, "Ann", TILES)  # 200 bytes still fit
    assert small.status == 201
    holding.close()
    settled(lambda: running.server.door.in_flight == 0)
    assert running.server.door.in_flight == 0
    assert client.photo(CODE, b"hello").status == 400  # room again: read (and refused: not an image)
    assert logged.tracebacks() == []


def test_one_address_holds_at_most_its_share_of_the_bytes_in_flight(running):
    client = running.client
    new_game(client)
    call_all(client, CODE)
    running.server.door.limits.per_client = 50_000
    holding = slow_upload(running.base, CODE, declared=40_000)
    holding.sendall(b"x" * 30_000)
    settled(lambda: running.server.door.in_flight >= 30_000)
    over = client.photo(CODE, b"\xff\xd8" + b"\0" * 30_000)
    assert over.status == 503 and over.headers["retry-after"] == "5"
    assert over.json()["error"].startswith("photo: this address is sending 30,"), over.body
    holding.close()
    settled(lambda: running.server.door.in_flight == 0)
    assert running.server.door.by_client == {}
    assert client.photo(CODE, b"\xff\xd8" + b"\0" * 30_000).status == 400  # its share is free again


def test_an_aborted_upload_is_one_log_line(running, logged):
    new_game(running.client)
    sock = slow_upload(running.base, CODE)
    sock.sendall(b"x" * 1000)
    time.sleep(0.2)
    sock.close()
    settled(lambda: bool(logged.records) and running.server.door.in_flight == 0)
    time.sleep(0.2)
    lines = [record.getMessage() for record in logged.records]
    assert len(lines) == 1 and "the client went away after 1,005 bytes of its photo" in lines[0], lines
    assert "\n" not in lines[0] and logged.tracebacks() == []
    assert running.server.door.in_flight == 0


def test_a_broken_upload_is_one_log_line_never_a_traceback(running, logged):
    new_game(running.client)
    status, _ = raw(running.base, f"POST /api/games/{CODE}/sheets HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                                  "multipart/form-data; boundary=b\r\nTransfer-Encoding: chunked\r\n\r\n"
                                  "zz\r\nbroken\r\n".encode())
    assert status == 400
    time.sleep(0.2)
    lines = [record.getMessage() for record in logged.records]
    assert len(lines) == 1 and "the client sent a broken body after 0 bytes of its photo" in lines[0], lines
    assert raw(running.base, b"NOT HTTP AT ALL\r\n\r\n")[0] == 400
    time.sleep(0.2)
    lines = [record.getMessage() for record in logged.records]
    assert len(lines) == 2 and lines[1] == "paperplay: a request from 127.0.0.1 is not valid HTTP; answered 400"
    assert logged.tracebacks() == []


def test_a_connection_that_sends_no_request_head_in_time_is_closed(tmp_path):
    server = Running(tmp_path / "games.db", head_seconds=0.5)
    try:
        host, port = server.base.removeprefix("http://").split(":")
        idle = socket.create_connection((host, int(port)), timeout=5)
        trickling = socket.create_connection((host, int(port)), timeout=5)
        trickling.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        started = time.monotonic()
        assert idle.recv(100) == b"" and trickling.recv(100) == b""  # closed by the server
        assert time.monotonic() - started < 3
        kept = socket.create_connection((host, int(port)), timeout=5)  # one that asks in time is answered
        kept.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        assert kept.recv(100).startswith(b"HTTP/1.1 200")
        for sock in (idle, trickling, kept):
            sock.close()
    finally:
        server.stop()


def test_an_unexpected_error_is_a_one_line_500_and_one_log_line(running, logged, monkeypatch):
    def broken() -> None:
        raise RuntimeError("disk on fire\nsecond line")

    monkeypatch.setattr(running.store, "games", broken)
    answer = running.client.get("/api/games", host=True)
    assert answer.status == 500 and "\n" not in answer.json()["error"]
    assert [r.exc_info for r in logged.records] == [None]
    line = logged.records[0].getMessage()
    assert "RuntimeError: disk on fire" in line and "\n" not in line


# --- many waiting phones ----------------------------------------------------------------------------------

def run_coroutine(make):
    """Runs the coroutine `make()` returns on an event loop of its own thread: a browser test's
    Playwright may still hold a running loop in this one."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as thread:
        return thread.submit(lambda: asyncio.run(make())).result()


def waiting_phones(running: Running, phones: int) -> dict:
    from lab.loadtest import phones_waiting

    return run_coroutine(lambda: phones_waiting(running.base, running.store.host_key(), phones))


def test_300_waiting_phones_all_get_the_next_tile_within_2_s(running):
    renders = running.server.live.renders
    result = waiting_phones(running, 300)
    assert result["statuses"] == [200] and result["got"] == 300, result["statuses"]
    assert result["all_within"] < 2.0, result["all_within"]
    assert max(result["others"]) < 2.0  # the host's page kept being answered
    assert running.server.live.renders - renders <= 3  # once a version (two versions were asked for), not 300


@pytest.mark.slow
def test_1000_waiting_phones_all_get_the_next_tile_within_2_s(running):
    from paperplay.serve.live import raise_open_files

    raise_open_files()
    result = waiting_phones(running, 1000)
    assert result["statuses"] == [200] and result["got"] == 1000
    assert result["all_within"] < 2.0, result["all_within"]


def test_past_the_limit_a_phone_is_answered_at_once_not_refused(running):
    running.server.live.max_waiting = 0
    new_game(running.client)
    version = running.client.get(f"/api/games/{CODE}").json()["version"]
    answer = running.client.get(f"/api/games/{CODE}?wait={version}")
    assert answer.status == 200 and answer.json()["version"] == version and answer.seconds < 2


# --- the whole process (uvicorn as paperplay serve runs it) ------------------------------------------------

def test_the_served_process_answers_421_and_400_and_prints_one_line_for_an_aborted_upload(tmp_path):
    import signal

    from lab.loadtest import Client, start_server

    process, base, key = start_server(tmp_path / "games.db", "--workers", "1", "--host-name", "GameNight.local")
    try:
        port = base.rsplit(":", 1)[1].encode()
        assert get_with_host(base, b"evil.example:" + port)[0] == 421
        assert get_with_host(base, b"attacker.example")[0] == 421
        for host in (b"gamenight.local:" + port, b"gamenight.local", b"127.0.0.1:" + port, b"localhost"):
            assert get_with_host(base, host)[0] == 200, host
        client = Client(base, key)
        code = client.post("/api/games", {"players": 2}, host=True).json()["code"]
        for path in (f"/api/games/{code}/sheets/%C2%B2", f"/api/games/{code}?wait=%C2%B2",
                     f"/api/games/{code}?wait=-1"):
            assert client.get(path, host=True).status == 400, path
        assert client.post(f"/api/games/{code}/sheets", {"name": "Ann", "cells": ["²"] * 20}).status in (400, 409)
        status, _ = raw(base, f"POST /api/games/{code}/sheets HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \xb2\r\n"
                              "Content-Type: application/json\r\n\r\n{}".encode("latin-1"))
        assert status == 400
        aborted = slow_upload(base, code)
        aborted.close()
        time.sleep(0.5)
    finally:
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=20)
    assert "Traceback" not in err.decode() and "Exception in ASGI" not in err.decode(), err.decode()[-3000:]
    assert err.decode().count("the client went away after 5 bytes of its photo") == 1, err.decode()


def test_a_host_name_that_is_no_name_is_refused_with_one_line(tmp_path):
    from test_serve_process import run_paperplay

    for bad in ("bad name", "evil.example/x", "-x", "a" * 254):
        result = run_paperplay("serve", "--host-name", bad, "--db", str(tmp_path / "g.db"), cwd=tmp_path)
        assert result.returncode == 2 and result.stderr.startswith("paperplay: error: --host-name: is "), result.stderr
        assert result.stderr.count("\n") == 1


def read_events(sock: socket.socket, count: int, seconds: float = 5.0) -> list[dict]:
    """Reads the next `count` state events of a server-sent event stream (fewer if it ends)."""
    sock.settimeout(seconds)
    data = b""
    events: list[dict] = []
    while len(events) < count:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
        blocks = data.split(b"\n\n")
        events = [json.loads(line[6:]) for block in blocks[:-1] for line in block.split(b"\n")
                  if line.startswith(b"data: ")]
    return events


def open_events(base: str, path: str) -> socket.socket:
    host, port = base.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=5)
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
    return sock


def test_server_sent_events_send_the_state_then_each_new_one(running):
    client = running.client
    new_game(client)
    sock = open_events(running.base, f"/api/games/{CODE}/events")
    try:
        first = read_events(sock, 1)
        assert first[0]["turn"] == 0 and first[0]["code"] == CODE
        started = time.monotonic()
        client.post(f"/api/games/{CODE}/call", host=True)
        then = read_events(sock, 1)
        assert [e["turn"] for e in then] == [1] and time.monotonic() - started < 2
        assert then[0]["version"] > first[0]["version"] and "seed" not in then[0]
    finally:
        sock.close()
    assert client.get("/api/games/ZZZZ-ZZZZ/events").status == 404


def test_the_game_is_read_once_for_every_phone_a_change_wakes(running):
    """On PostgreSQL each reading of the game is a query: 2,500 phones woken at once must not make 2,500."""
    import asyncio

    from lab.loadtest import fetch

    client = running.client
    new_game(client)
    client.post(f"/api/games/{CODE}/call", host=True)
    version = client.get(f"/api/games/{CODE}").json()["version"]
    store = running.server.store
    reads: list[str] = []
    real_game = store.game

    def counted(code: str):
        reads.append(code)
        return real_game(code)

    async def room() -> list[int]:
        phones = [asyncio.create_task(fetch(running.base, "GET", f"/api/games/{CODE}?wait={version}"))
                  for _ in range(60)]
        while running.server.live.waiting < 60:
            await asyncio.sleep(0.02)
        store.game = counted  # from here: the call, and every phone's wake-up
        await asyncio.to_thread(client.post, f"/api/games/{CODE}/call", None, True)
        return [json.loads(a.body)["turn"] for a in await asyncio.gather(*phones)]

    try:
        assert run_coroutine(room) == [2] * 60  # a browser test's loop may run in this thread
    finally:
        store.game = real_game
    assert len(reads) <= 3, len(reads)  # the call's own, and one for the 60 phones (was 61)


def test_a_reading_shared_by_the_woken_phones_is_read_again_after_each_change():
    from paperplay.serve.live import Live

    live = Live()
    readings = iter(range(100))
    assert live.fresh("G", lambda: next(readings)) == 0
    assert live.fresh("G", lambda: next(readings)) == 0  # no change notified: the same reading
    assert live.fresh("H", lambda: next(readings)) == 1  # another game: its own
    live.notify("G")
    assert live.fresh("G", lambda: next(readings)) == 2
    assert live.fresh("G", lambda: next(readings)) == 2 and live.fresh("H", lambda: next(readings)) == 1

    def gone() -> int:
        raise LookupError("no game")

    live.notify("G")
    with pytest.raises(LookupError):
        live.fresh("G", gone)
    assert live.fresh("G", lambda: next(readings)) == 3  # a failed reading is not kept


def test_an_event_stream_tells_a_proxy_not_to_buffer_it(running):
    new_game(running.client)
    sock = open_events(running.base, f"/api/games/{CODE}/events")
    try:
        head = b""
        while b"\r\n\r\n" not in head:
            head += sock.recv(65536)
    finally:
        sock.close()
    fields = head.split(b"\r\n\r\n")[0].lower().split(b"\r\n")
    assert b"x-accel-buffering: no" in fields and b"content-type: text/event-stream; charset=utf-8" in fields
    assert "x-accel-buffering" not in running.client.get(f"/api/games/{CODE}").headers  # a whole answer: no need


def test_past_the_limit_an_event_stream_ends_after_the_state(running):
    new_game(running.client)
    running.server.live.max_waiting = 0
    sock = open_events(running.base, f"/api/games/{CODE}/events")
    try:
        assert [e["turn"] for e in read_events(sock, 2, seconds=3)] == [0]  # then the stream ended
    finally:
        sock.close()
    assert running.server.live.waiting == 0


def test_the_open_files_limit_is_raised_to_the_hard_limit():
    resource = pytest.importorskip("resource", reason="no per-process open-files limit on this system")
    from paperplay.serve.live import raise_open_files

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        if hard != resource.RLIM_INFINITY and hard > 256:
            resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))  # a low soft limit, as some systems ship
            assert raise_open_files() == hard
            assert resource.getrlimit(resource.RLIMIT_NOFILE) == (hard, hard)
        assert raise_open_files() >= 256
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_the_load_generator_plays_a_room_against_a_running_server(running, capsys):
    from lab.loadtest import main

    from concurrent.futures import ThreadPoolExecutor

    link = f"{running.base}/host?key={running.store.host_key()}"
    with ThreadPoolExecutor(1) as thread:  # its event loops on a thread of their own (see run_coroutine)
        assert thread.submit(main, [link, "--phones", "20", "--typed", "5"]).result() == 0
    out = capsys.readouterr().out
    assert "20 phones waiting (?wait=)    20 had the next tile within" in out
    assert "5 typed sheets at once" in out and "(statuses [201])" in out
    link = f"{running.base}/host?key=k"
    for bad in (["nonsense"], [f"{running.base}/host"], [link, "--typed", "0"], [link, "--phones", "0"]):
        with pytest.raises(SystemExit) as stopped:
            main(bad)
        assert stopped.value.code == 2


def test_one_address_holds_at_most_its_share_of_the_waiting_places():
    from paperplay.serve.live import Live

    live = Live(max_waiting=100, per_address=3)
    assert [live.hold("10.0.0.5") for _ in range(4)] == [True, True, True, False]
    assert live.hold("10.0.0.6") and all(live.hold("127.0.0.1") for _ in range(10))  # this computer: not counted
    assert live.by_address == {"10.0.0.5": 3, "10.0.0.6": 1} and live.waiting == 14

    async def one_more() -> tuple[bool, float]:
        started = time.monotonic()
        changed = await live.wait("GAME", 5.0, "10.0.0.5")
        return changed, time.monotonic() - started

    changed, seconds = run_coroutine(one_more)
    assert not changed and seconds < 0.5  # answered at once, as it is
    live.release("10.0.0.5")
    assert live.by_address["10.0.0.5"] == 2 and live.hold("10.0.0.5")
    full = Live(max_waiting=2, per_address=50)
    assert [full.hold("127.0.0.1") for _ in range(3)] == [True, True, False]
