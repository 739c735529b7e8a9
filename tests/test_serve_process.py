"""paperplay serve as a whole process (uvicorn): its first line, Ctrl-C, bad options, kill -9 in the middle
of a burst of hand-ins (every acknowledged sheet is there after a restart, none twice), photos, and the
load figures (a light run here; the full one with -m slow and in benchmarks/run.py serve)."""

from __future__ import annotations

import http.client
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

for _module in ("starlette", "uvicorn", "multipart"):
    pytest.importorskip(_module, reason="paperplay serve needs the serve extra (pip install '.[serve]')")

from paperplay.seeds import canonical_seed, display_code, game_code  # noqa: E402
from lab.loadtest import Client, at_once, measure, start_server  # noqa: E402
from paperplay.streams.rules import draw, tile_json  # noqa: E402

SEED = "7KQ2-M9XD"
CODE = display_code(game_code("streams", canonical_seed(SEED)))
TILES = [tile_json(t) for t in draw(canonical_seed(SEED))]
ROOT = Path(__file__).resolve().parents[1]


def run_paperplay(*args: str, cwd: Path | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "paperplay", *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=timeout)


@pytest.fixture
def served(tmp_path):
    process, base, key = start_server(tmp_path / "games.db", "--workers", "1")
    yield process, Client(base, key), base
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
    process.communicate(timeout=20)


def test_the_first_line_is_the_host_page_and_ctrl_c_ends_with_130(tmp_path):
    process, base, key = start_server(tmp_path / "games.db")
    client = Client(base, key)
    page = client.get(f"/host?key={key}")
    assert page.status == 200
    assert client.post("/api/games", {"players": 2}, host=True).status == 201
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=20)
    assert process.returncode == 130
    assert err.decode().strip().splitlines()[-1] == "paperplay: interrupted"
    assert "Traceback" not in err.decode()
    again, base2, key2 = start_server(tmp_path / "games.db")
    try:
        assert key2 == key  # the host's link still works after a restart
        assert len(Client(base2, key2).get("/api/games", host=True).json()["games"]) == 1
    finally:
        again.send_signal(signal.SIGTERM)
        again.communicate(timeout=20)
    assert again.returncode == 143


def serve_examples() -> list[str]:
    import typer

    from paperplay.cli.app import app

    text = typer.main.get_command(app).commands["serve"].help  # type: ignore[attr-defined]
    return [line.strip() for line in text.splitlines() if line.strip().startswith("paperplay serve")]


@pytest.mark.parametrize("example", serve_examples())
def test_each_help_example_serves_until_ctrl_c(tmp_path, example, request):
    import shlex

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    words = shlex.split(example)
    if any(word.startswith("postgresql://") for word in words):  # the example's database: the tests' own
        url = request.getfixturevalue("pg_url")
        words = [url if word.startswith("postgresql://") else word for word in words]
    process = subprocess.Popen([sys.executable, "-m", *words], cwd=tmp_path, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = process.stdout.readline().decode()
    if not first.startswith("Host page: "):  # the example's port is taken on this computer
        out, err = process.communicate(timeout=20)
        assert "which another program is using" in err.decode(), (first, err)
        pytest.skip(f"{example}: its port is in use here")
    base = first.removeprefix("Host page: ").split("/host?key=")[0]
    if "--public-url" in example:  # the links name the proxy's address; the server listens where it says
        while "where this server listens" not in (line := process.stdout.readline().decode()):
            assert line, example
        base = re.findall(r"passes it on to (http://\S+), where", line)[0]
    from lab.loadtest import wait_until_up

    wait_until_up(base, workers=False)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=20)
    assert process.returncode == 130, err
    db = re.search(r"--db (\S+)", example)
    if db and db[1].startswith("postgresql://"):  # the games are in that database: no file made here
        assert list(tmp_path.iterdir()) == []
    else:
        assert (tmp_path / (db[1] if db else "paperplay-games.db")).is_file()


def test_bad_options_are_one_line_and_exit_2(tmp_path):
    folder = tmp_path / "folder"
    folder.mkdir()
    not_a_db = tmp_path / "notes.txt"
    not_a_db.write_text("shopping list: milk, eggs, a second Streams bag\n" * 50)
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    port = busy.getsockname()[1]
    cases = [
        (["--port", "70000"], "paperplay: error: --port: is 70000; expected a port 1024-65535 (or 0: any free one)"),
        (["--port", "x"], "paperplay: error: --port: is 'x'; expected a whole number"),
        (["--db", str(folder)], f"paperplay: error: --db: {folder}: is a folder; expected the game database's file"),
        (["--db", str(not_a_db)], f"paperplay: error: --db: {not_a_db}: is not a paperplay game database"),
        (["--port", str(port), "--db", str(tmp_path / "g.db")],
         f"paperplay: error: --port: is {port}, which another program is using; give another, e.g. --port {port + 1}"),
        (["--workers", "0"], "paperplay: error: --workers: is 0; expected 1-16"),
        (["--db", str(tmp_path / "nowhere" / "g.db")], f"paperplay: error: --db: {tmp_path / 'nowhere' / 'g.db'}: "
         f"its folder {tmp_path / 'nowhere'} does not exist"),
    ]
    try:
        for args, message in cases:
            result = run_paperplay("serve", *args, cwd=tmp_path)
            assert result.returncode == 2, (args, result.stderr)
            assert result.stderr.startswith(message) and result.stderr.count("\n") == 1, (args, result.stderr)
            assert result.stdout == ""
    finally:
        busy.close()
    assert not_a_db.read_text().startswith("shopping list")


def test_kill_9_in_a_burst_of_hand_ins_loses_no_acknowledged_sheet_and_stores_none_twice(tmp_path):
    db = tmp_path / "games.db"
    process, base, key = start_server(db, "--workers", "1")
    client = Client(base, key, timeout=10)
    assert client.post("/api/games", {"players": 60, "seed": SEED}, host=True).status == 201
    for _ in TILES:
        client.post(f"/api/games/{CODE}/call", host=True)
    phones = 60
    acknowledged: dict[int, int] = {}  # phone -> sheet id
    lock = threading.Lock()
    next_phone = iter(range(phones))

    def phone_loop() -> None:
        while True:
            with lock:
                phone = next(next_phone, None)
            if phone is None:
                return
            try:
                answer = client.typed(CODE, f"phone {phone}", TILES, key=f"phone-{phone:04d}-burst")
            except (OSError, http.client.HTTPException):  # the server was killed under it (even mid-answer)
                continue
            if answer.status in (200, 201):
                with lock:
                    acknowledged[phone] = answer.json()["id"]

    threads = [threading.Thread(target=phone_loop) for _ in range(8)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 30
    while len(acknowledged) < 15 and time.monotonic() < deadline:
        time.sleep(0.005)
    process.kill()  # kill -9: no clean-up at all
    process.communicate(timeout=10)
    for thread in threads:
        thread.join(30)
    assert 15 <= len(acknowledged) < phones, "the kill came after the burst"

    again, base, key2 = start_server(db, "--workers", "1")
    try:
        client = Client(base, key2, timeout=10)
        stored = client.get(f"/api/games/{CODE}/sheets", host=True).json()["sheets"]
        by_name = {}
        for sheet in stored:
            assert sheet["name"] not in by_name, f"{sheet['name']} stored twice"
            by_name[sheet["name"]] = sheet["id"]
        for phone, sheet_id in acknowledged.items():
            assert by_name.get(f"phone {phone}") == sheet_id, f"phone {phone}'s acknowledged sheet is lost"
        # every phone tries again with its key: the acknowledged (and the stored-but-unanswered) get their
        # sheet back, the others hand theirs in now; never a second sheet
        retries = at_once([lambda p=p: client.typed(CODE, f"phone {p}", TILES, key=f"phone-{p:04d}-burst")
                           for p in range(phones)])
        for phone, answer in enumerate(retries):
            assert not isinstance(answer, BaseException), answer
            assert answer.status == (200 if f"phone {phone}" in by_name else 201), (phone, answer.body)
            if phone in acknowledged:
                assert answer.json()["id"] == acknowledged[phone]
        final = client.get(f"/api/games/{CODE}/sheets", host=True).json()["sheets"]
        assert sorted(s["name"] for s in final) == sorted(f"phone {p}" for p in range(phones))
    finally:
        again.send_signal(signal.SIGINT)
        again.communicate(timeout=20)


def test_ten_phones_hand_in_at_once_each_answered_within_a_second(served):
    """The light load run (the whole one, 30 phones and 8 photos, is test_load_figures, -m slow)."""
    process, client, base = served
    figures = measure(base, client.key or "", process.pid, typed=10)
    assert figures["statuses"] == [201] * 10
    assert max(figures["typed"]) < 1.0, figures["typed"]


# --- photos -----------------------------------------------------------------------------------------

def photos_of(seed: str, count: int, players: int) -> list[bytes]:
    """Photos of sheets 1..count of a game of `seed` for `players` (skips without what draws them)."""
    for module in ("numpy", "cv2", "zxingcpp", "pypdfium2"):
        pytest.importorskip(module, reason=f"photos of sheets need {module} (the scan and test extras)")
    from lab.synth import TRAIN_FONTS, font_files

    if not font_files(TRAIN_FONTS):
        pytest.skip("no handwriting fonts installed (apt-get install fonts-dancingscript and the others of "
                    "lab.synth.TRAIN_FONTS)")
    from lab.loadtest import synthetic_photos

    return synthetic_photos(canonical_seed(seed), count, players)


@pytest.fixture(scope="module")
def photos():
    return photos_of(SEED, 2, 4)


def test_a_photo_is_read_matched_to_the_draw_and_its_owner_corrects_it(served, photos):
    process, client, _ = served
    assert client.post("/api/games", {"players": 4, "seed": SEED}, host=True).status == 201
    for _ in TILES[:-1]:
        client.post(f"/api/games/{CODE}/call", host=True)
    too_early = client.photo(CODE, photos[1], name="Bob")
    assert too_early.status == 409 and too_early.json()["code"] == "too_early"  # hand-ins open after the last tile
    client.post(f"/api/games/{CODE}/call", host=True)
    early = client.photo(CODE, photos[1], name="Bob")
    assert early.status == 201 and early.json()["name"] == "Bob", early.body
    answer = client.photo(CODE, photos[0], key="photo-of-sheet-1")
    assert answer.status == 201, answer.body
    sheet = answer.json()
    assert sheet["kind"] == "photo" and sheet["printed"] == "1/4" and sheet["name"] == "sheet 1/4"
    assert [box["value"] for box in sheet["boxes"]] == TILES
    assert all(box["matched"] is not None and box["candidates"][0] == box["value"] for box in sheet["boxes"])
    for box in sheet["boxes"]:
        assert (box["crop"] or "").startswith("data:image/png;base64,") == box["flagged"]
    image = client.get(sheet["boxes"][0]["crop_url"])
    assert image.status == 200 and image.body.startswith(b"\x89PNG")
    assert client.get(sheet["boxes"][0]["crop_url"].split("?")[0]).status == 401
    assert client.get(sheet["boxes"][0]["crop_url"].split("?")[0],
                      headers={"X-Paperplay-Token": early.json()["token"]}).status == 403
    retry = client.photo(CODE, photos[0], key="photo-of-sheet-1")
    assert retry.status == 200 and retry.json()["id"] == sheet["id"]
    twice = client.photo(CODE, photos[0], name="Cy")
    assert twice.status == 409 and twice.json() == {
        "error": "photo: shows sheet 1/4, which 'sheet 1/4' has handed in already", "code": "sheet_used"}
    fixed = client.request("PUT", f"/api/games/{CODE}/sheets/{sheet['id']}", json_body={"cells": {"3": 30}},
                           headers={"X-Paperplay-Token": sheet["token"]})
    assert fixed.status == 200 and fixed.json()["boxes"][2]["value"] == 30
    assert fixed.json()["boxes"][2]["free"] == sheet["boxes"][2]["free"]  # the reading is kept
    other = client.post("/api/games", {"players": 4, "seed": "OTHERGAME"}, host=True).json()["code"]
    for _ in TILES:
        client.post(f"/api/games/{other}/call", host=True)
    elsewhere = client.photo(other, photos[0])
    assert elsewhere.status == 400 and elsewhere.json() == {
        "error": f"photo: shows a sheet of game {CODE}; this is game {other}", "code": "wrong_game"}


@pytest.fixture(scope="module")
def unfinished(photos):
    """Photos of sheet 3: with nothing written, and with boxes 3 and 7 left empty."""
    import numpy as np

    from lab.synth import TRAIN_FONTS, fill_sheet, font_files, make_hand, photograph, rendered_page
    from paperplay.streams.rules import draw
    from paperplay.streams.scansheet import layout

    rng = np.random.default_rng([35, 3])
    hand = make_hand(rng, font_files(TRAIN_FONTS), None, font_share=1.0)
    page = rendered_page("a4", game_code("streams", canonical_seed(SEED)), 3, 4)
    blank, _ = fill_sheet(page, layout("a4").cells, [(None, None)] * 20, hand, rng)
    values = list(draw(canonical_seed(SEED)))
    partly, _ = fill_sheet(page, layout("a4").cells, [(None, None) if n in (3, 7) else v
                                                       for n, v in enumerate(values, start=1)], hand, rng)
    return photograph(blank, rng)[0], photograph(partly, rng)[0]


def test_a_blank_photo_is_refused_and_a_partly_empty_one_is_stored_incomplete(served, unfinished):
    process, client, _ = served
    blank, partly = unfinished
    assert client.post("/api/games", {"players": 2, "seed": SEED}, host=True).status == 201
    for _ in TILES:
        client.post(f"/api/games/{CODE}/call", host=True)
    refused = client.photo(CODE, blank, name="Ann")
    assert refused.status == 400 and refused.json()["code"] == "sheet_blank", refused.body
    assert "no numbers are written on this sheet yet" in refused.json()["error"]
    assert client.get(f"/api/games/{CODE}").json()["handed_in"] == []  # sheet 3/4 stays free
    stored = client.photo(CODE, partly, name="Ann")
    assert stored.status == 201, stored.body
    sheet = stored.json()
    assert sheet["printed"] == "3/4" and sheet["empty"] == [3, 7] and not sheet["complete"]
    assert {3, 7} <= set(sheet["flagged"]) and sheet["boxes"][2]["value"] is None
    path = f"/api/games/{CODE}/sheets/{sheet['id']}"
    assert client.get(f"{path}/file", host=True).json()["code"] == "incomplete"
    refused = client.post(f"/api/games/{CODE}/reveal", host=True)
    assert refused.status == 409 and "incomplete" in refused.json()["error"]
    forced = client.post(f"/api/games/{CODE}/reveal", {"force": True}, host=True)
    assert forced.status == 200
    results = client.get(f"/api/games/{CODE}/results").json()
    assert results["ranking"] == [] and results["incomplete"][0]["empty"] == [3, 7]
    page = client.get(f"/api/games/{CODE}/results.html")
    assert page.status == 200 and b"2 boxes (3, 7) are empty" in page.body  # listed apart from the ranking
    typed = client.request("PUT", path, json_body={"cells": {"3": TILES[2], "7": TILES[6]}}, host=True)
    assert typed.status == 200 and typed.json()["complete"] and typed.json()["empty"] == []
    results = client.get(f"/api/games/{CODE}/results").json()
    assert results["incomplete"] == [] and [r["player"] for r in results["ranking"]] == ["Ann"]


@pytest.mark.slow
def test_load_figures(tmp_path):
    """30 typed hand-ins at once, each within 1 s; 8 photos at once, each read within 3 s, while the host's
    next tile answers within 100 ms (python benchmarks/run.py serve prints the same figures)."""
    pytest.importorskip("pypdfium2", reason="the photos are rendered with pypdfium2 (the test extra)")
    from lab.loadtest import figures, synthetic_photos

    photos = synthetic_photos("LOADTEST", 8, 30)
    process, base, key = start_server(tmp_path / "games.db")
    try:
        result = measure(base, key, process.pid, typed=30, photos=photos)
    finally:
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=20)
    print(f"\ntyped {figures(result['typed'])}; photos {figures(result['photos'])} (read in "
          f"{figures(result['read'])}); host calls {figures(result['calls'])}; peak RSS "
          f"{result['peak_rss'] / 2**20:.0f} MB; load average {os.getloadavg()[0]:.1f}")
    assert result["statuses"] == [201] * 38
    assert max(result["typed"]) < 1.0
    assert max(result["photos"]) < 3.0
    assert max(result["calls"]) < 0.1


def test_a_photo_whose_qr_code_cannot_be_read_is_read_as_the_games_sheet(served, photos, tmp_path):
    """Handed in to a game, a sheet whose QR code is painted over is read by its corner marks as that game's
    sheet (it was "shows a sheet of game ; this is game …"); it is named after its player."""
    import cv2
    import numpy as np

    from paperplay.scan.reader import _project, load_gray, register
    from paperplay.streams.scansheet import layout

    source = tmp_path / "sheet.jpg"
    source.write_bytes(photos[0])
    page = register(load_gray(source))
    qx, qy, qs = layout(page.paper).qr
    image = cv2.imread(str(source))
    square = [np.round(_project(page.homography, [(qx, qy), (qx + qs, qy), (qx + qs, qy + qs), (qx, qy + qs)]))
              .astype(np.int32)]
    inside = np.zeros(image.shape[:2], np.uint8)
    cv2.fillPoly(inside, square, 1)
    cv2.fillPoly(image, square, [int(v) for v in image[inside > 0].mean(axis=0)])
    painted = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 92])[1].tobytes()
    process, client, _ = served
    assert client.post("/api/games", {"players": 4, "seed": SEED}, host=True).status == 201
    for _ in TILES:
        client.post(f"/api/games/{CODE}/call", host=True)
    nameless = client.photo(CODE, painted)
    assert nameless.status == 400 and nameless.json()["code"] == "bad_input", nameless.body
    assert nameless.json()["error"].startswith("name: missing; the sheet's QR code could not be read")
    named = client.photo(CODE, painted, name="Ann")
    assert named.status == 201, named.body
    sheet = named.json()
    assert sheet["name"] == "Ann" and sheet["printed"] is None and [b["value"] for b in sheet["boxes"]] == TILES


def test_a_refused_photo_says_how_to_retake_it_in_the_games_language_with_what_was_found(served):
    pytest.importorskip("cv2", reason="photos need the scan extra (pip install '.[scan]')")
    import base64
    import io

    from PIL import Image, ImageDraw

    process, client, _ = served
    assert client.post("/api/games", {"players": 2, "seed": SEED, "lang": "da"}, host=True).status == 201
    for _ in TILES:
        client.post(f"/api/games/{CODE}/call", host=True)
    table = Image.new("L", (1200, 900), 120)  # a photo of a table with a sheet-sized sheet of plain paper
    ImageDraw.Draw(table).rectangle((200, 100, 900, 800), fill=235)
    photo = io.BytesIO()
    table.save(photo, "JPEG")
    refused = client.photo(CODE, photo.getvalue(), name="Ann")
    answer = refused.json()
    assert refused.status == 400 and answer["code"] == "no_sheet_found", refused.body
    assert "\n" not in answer["error"] and answer["hint"].startswith("Fotograf"), answer["hint"]  # Danish
    assert answer["overlay"].startswith("data:image/png;base64,")
    shown = Image.open(io.BytesIO(base64.b64decode(answer["overlay"].split(",", 1)[1])))
    assert max(shown.size) <= 720 and shown.size[0] > shown.size[1]  # the photo, shrunk, as it was taken
    assert client.get(f"/api/games/{CODE}").json()["handed_in"] == []
