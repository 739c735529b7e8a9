"""paperplay serve in a room of strangers: hostile numbers (path, query, header, body) are a one-line 400,
never a 500 or a traceback in the host's terminal."""

from __future__ import annotations

import logging
import socket
from urllib.parse import quote

import pytest

for _module in ("starlette", "uvicorn", "multipart"):
    pytest.importorskip(_module, reason="paperplay serve needs the serve extra (pip install '.[serve]')")

from test_serve_api import CODE, TILES, Running, call_all, new_game  # noqa: E402

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


@pytest.mark.parametrize("value", [b"\xc2\xb2", b"\xb2", b"-1", b"1e3", b" 1x", b"99999999999999999999999"])
def test_a_hostile_content_length_is_a_400(running, logged, value):
    new_game(running.client)
    request = (b"POST /api/games/" + CODE.encode() + b"/sheets HTTP/1.1\r\nHost: 127.0.0.1\r\n"
               b"Content-Type: application/json\r\nContent-Length: " + value + b"\r\nConnection: close\r\n\r\n{}")
    status, _ = raw(running.base, request)
    assert status == 400
    assert logged.tracebacks() == []
