"""paperplay serve over PostgreSQL against a mischievous stranger: what #44 added (photos queued for workers,
paged lists, a player's own sheet, hiding names) attacked on a running server, each finding kept as a fast test.
Skipped with one line without a PostgreSQL cluster (tests/conftest.py: pg_clean_url)."""

from __future__ import annotations

import pytest

for _module in ("starlette", "uvicorn", "multipart"):
    pytest.importorskip(_module, reason="paperplay serve needs the serve extra (pip install '.[serve]')")

from test_serve_api import CODE, Running, call_all, is_one_line_error, new_game  # noqa: E402
from test_serve_resilience import logged  # noqa: E402, F401 - fixture


@pytest.fixture
def pg_ready(pg_clean_url):
    """A server over PostgreSQL (photos queued for photo workers, none running) with a game whose tiles are all
    called."""
    server = Running(pg_clean_url)
    try:
        new_game(server.client, players=3)
        call_all(server.client, CODE)
        yield server
    finally:
        server.stop()


def queued_jobs(url: str) -> int:
    import psycopg

    with psycopg.connect(url) as connection:
        row = connection.execute("SELECT count(*) FROM procrastinate_jobs").fetchone()
    return int(row[0]) if row else 0


NOT_IMAGES = {"nothing": b"", "text": b"hello, not a photo", "a JPEG cut after its first segment":
              b"\xff\xd8\xff\xe0\x00\x10JFIF\x00", "a PNG signature alone": b"\x89PNG\r\n\x1a\n"}


@pytest.mark.parametrize("data", NOT_IMAGES.values(), ids=NOT_IMAGES.keys())
def test_a_photo_that_is_no_image_is_a_400_at_once_and_takes_no_place(pg_ready, pg_clean_url, logged, data):
    """Was a 202: the non-image was stored as a sheet "reading", took one of the game's places and a worker's turn,
    and was refused only later; the laptop's server says 400 not_image at once, and so does this one now."""
    client = pg_ready.client
    answer = client.photo(CODE, data, name="Ann")
    assert answer.status == 400 and answer.json()["code"] == "not_image" and is_one_line_error(answer)
    assert answer.json()["hint"]  # what to do, as the laptop's answer says it
    state = client.get(f"/api/games/{CODE}", host=True).json()
    assert state["handed_in"] == [] and state["counts"]["handed_in"] == 0
    assert queued_jobs(pg_clean_url) == 0
    assert logged.tracebacks() == []


def png_header(width: int = 1200, height: int = 1600) -> bytes:
    """The first bytes of a PNG (its signature and size): an image to the server's check, queued for a worker (none
    runs here, so it stays "reading")."""
    import struct
    import zlib

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))


def test_a_phone_waiting_on_its_photo_is_told_at_once_when_the_host_removes_the_sheet(pg_ready, logged):
    """Was answered after the whole wait (25 s): the removal woke the phones following the game, not the one waiting
    on that sheet's photo."""
    import threading
    import time

    client = pg_ready.client
    queued = client.photo(CODE, png_header(), name="Ann")
    assert queued.status == 202 and queued.json()["state"] == "reading"
    sheet, version = queued.json(), queued.json()["version"]
    answers: list = []
    phone = threading.Thread(target=lambda: answers.append(client.get(
        f"/api/games/{CODE}/sheets/{sheet['id']}?wait={version}", headers={"X-Paperplay-Token": sheet["token"]})))
    phone.start()
    deadline = time.monotonic() + 5
    while client.get("/api/health").json()["phones_waiting"] < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    removed = client.request("DELETE", f"/api/games/{CODE}/sheets/{sheet['id']}", host=True)
    assert removed.status == 200
    phone.join(5)
    assert answers, "the phone was still held 5 s after its sheet was removed"
    assert answers[0].status == 404 and answers[0].json()["code"] == "no_sheet" and is_one_line_error(answers[0])
    assert logged.tracebacks() == []


@pytest.mark.parametrize("given", [None, "Ann"], ids=["a photo handed in without a name", "a photo named Ann"])
def test_a_name_the_host_gives_a_sheet_while_its_photo_is_read_is_kept(pg_ready, given):
    """The host's rename was answered 200, then lost: the photo worker stored the name the photo was handed in under
    (or read from its sheet number) over it."""
    from paperplay.handin import typed_boxes
    from paperplay.serve.photos import PhotoTaken
    from test_serve_api import TILES

    client = pg_ready.client
    queued = client.photo(CODE, png_header(), name=given)
    assert queued.status == 202
    sheet = queued.json()
    path = f"/api/games/{CODE}/sheets/{sheet['id']}"
    renamed = client.request("PATCH", path, json_body={"name": "Zed"}, host=True)
    assert renamed.status == 200 and renamed.json()["name"] == "Zed"
    read = PhotoTaken(given or "Sheet 7", "7/40", typed_boxes(TILES), [])  # what the worker read meanwhile
    assert pg_ready.store.finish_photo(sheet["id"], read) == "read"
    stored = client.get(path, host=True).json()
    assert stored["state"] == "read" and stored["name"] == "Zed" and stored["printed"] == "7/40"


def test_the_file_of_a_sheet_whose_photo_is_being_read_is_a_409_reading(pg_ready):
    """Was 409 incomplete ("20 boxes are empty; type what they hold first"): nothing to type, the photo is read."""
    client = pg_ready.client
    sheet = client.photo(CODE, png_header(), name="Ann").json()
    answer = client.get(f"/api/games/{CODE}/sheets/{sheet['id']}/file", headers={"X-Paperplay-Token": sheet["token"]})
    assert answer.status == 409 and answer.json()["code"] == "reading" and is_one_line_error(answer)


def test_a_player_numbered_past_the_last_own_sheet_number_is_told_so_not_a_500(pg_ready, pg_clean_url, logged):
    """A player's number is never given again once the host removes them: a game of 100,000 players whose host removed
    some numbers players past 100,000, whose own sheet (number 200 + theirs) was over the QR code's 100,200: a 500."""
    import psycopg

    client = pg_ready.client
    with psycopg.connect(pg_clean_url) as connection:
        connection.execute("UPDATE games SET numbered = 100000")  # 100,000 joins, some removed by the host
    player = client.post(f"/api/games/{CODE}/players", {"name": "Ann"}).json()
    answer = client.get(f"/api/games/{CODE}/players/{player['id']}/sheet.pdf",
                        headers={"X-Paperplay-Token": player["token"]})
    assert answer.status == 409 and answer.json()["code"] == "game_full" and is_one_line_error(answer)
    assert "type" in answer.json()["error"]  # what the player can do instead
    assert logged.tracebacks() == []


def test_a_photo_over_the_pixel_limit_is_a_400_at_once_as_on_the_laptop(pg_ready, pg_clean_url):
    """A small file whose header claims 20,000 × 20,000 pixels: the laptop's server says 400 photo_too_large at once
    (from the header); this one queued it (202) for a worker to refuse."""
    client = pg_ready.client
    answer = client.photo(CODE, png_header(20_000, 20_000), name="Ann")
    assert answer.status == 400 and answer.json()["code"] == "photo_too_large" and is_one_line_error(answer)
    assert answer.json()["error"].startswith("photo: is 20000 × 20000 pixels; expected a photo of at most")
    assert queued_jobs(pg_clean_url) == 0
    assert client.photo(CODE, png_header(4000, 3000), name="Ann").status == 202  # a phone's 12 megapixels
