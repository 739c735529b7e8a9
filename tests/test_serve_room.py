"""paperplay serve in a room of strangers: hand-ins only after the last tile and only as many as players,
players who join by name (lookalike names refused), the host's lock, rename, removal and reveal (refused
naming what is missing, or forced), corrections after the reveal, the projector's view token, a new host
key, the games list, and a database from before migrated in place. Each misuse: a clear 4xx, never a 5xx."""

from __future__ import annotations

import sqlite3
import threading

import pytest

for _module in ("starlette", "uvicorn", "multipart"):
    pytest.importorskip(_module, reason="paperplay serve needs the serve extra (pip install '.[serve]')")

from test_serve_api import CODE, TILES, Running, call_all, is_one_line_error, new_game  # noqa: E402


def join(client, name: str, code: str = CODE):
    return client.post(f"/api/games/{code}/players", {"name": name})


def hand_in(client, token: str, cells, code: str = CODE):
    return client.post(f"/api/games/{code}/sheets", {"cells": list(cells)}, headers={"X-Paperplay-Token": token})


def refused(answer, status: int, code: str) -> bool:
    return answer.status == status and is_one_line_error(answer) and answer.json()["code"] == code


@pytest.fixture
def running(tmp_path):
    server = Running(tmp_path / "games.db")
    yield server
    server.stop()


# --- when and how many -------------------------------------------------------------------------------

def test_hand_ins_open_after_the_last_tile(running):
    client = running.client
    new_game(client)
    for turn in (0, 10, 19):
        while client.get(f"/api/games/{CODE}").json()["turn"] < turn:
            client.post(f"/api/games/{CODE}/call", host=True)
        early = client.typed(CODE, "Ann", TILES)
        assert refused(early, 409, "too_early") and f"{turn} of 20 tiles are called" in early.json()["error"]
        assert client.get(f"/api/games/{CODE}").json()["open"] is False
    call_all(client, CODE, 1)
    assert client.get(f"/api/games/{CODE}").json()["open"] is True
    assert client.typed(CODE, "Ann", TILES).status == 201


def test_a_game_takes_its_number_of_players_and_the_host_raises_it(running):
    client = running.client
    new_game(client, players=2)
    call_all(client, CODE)
    assert client.typed(CODE, "Ann", TILES).status == 201
    assert client.typed(CODE, "Bob", TILES).status == 201
    surplus = client.typed(CODE, "Cy", TILES)
    assert refused(surplus, 409, "game_full") and "raise the number of players" in surplus.json()["error"]
    path = f"/api/games/{CODE}"
    assert client.request("PATCH", path, json_body={"players": 3}).status == 401
    below = client.request("PATCH", path, json_body={"players": 1}, host=True)
    assert refused(below, 409, "players_below_sheets")
    for bad in ({"players": 0}, {"players": "3"}, {"players": True}, {"locked": "yes"}, {}, {"colour": 1}):
        answer = client.request("PATCH", path, json_body=bad, host=True)
        assert answer.status == 400 and is_one_line_error(answer), (bad, answer.body)
    raised = client.request("PATCH", path, json_body={"players": 3}, host=True)
    assert raised.status == 200 and raised.json()["players"] == 3
    assert client.typed(CODE, "Cy", TILES).status == 201


def test_a_join_retried_with_its_idempotency_key_finds_the_player_it_made(running):
    client = running.client
    new_game(client, players=2)
    path = f"/api/games/{CODE}/players"
    first = client.post(path, {"name": "Ann"}, headers={"Idempotency-Key": "join-ann-0001"})
    again = client.post(path, {"name": "Ann"}, headers={"Idempotency-Key": "join-ann-0001"})
    assert (first.status, again.status) == (201, 200) and first.json() == again.json()
    other = client.post(path, {"name": "Ann"}, headers={"Idempotency-Key": "join-ann-0002"})
    assert refused(other, 409, "name_taken")
    assert refused(client.post(path, {"name": "Bo"}, headers={"Idempotency-Key": "short"}), 400, "bad_input")
    assert len(client.get(f"/api/games/{CODE}").json()["roster"]) == 1


def test_a_printed_sheet_and_a_player_hand_in_once(running):
    client = running.client
    new_game(client, players=3)
    call_all(client, CODE)
    ann = join(client, "Ann")
    assert ann.status == 201 and set(ann.json()) == {"id", "name", "joined", "token"}
    token = ann.json()["token"]
    sheet = hand_in(client, token, TILES)
    assert sheet.status == 201 and sheet.json()["name"] == "Ann" and sheet.json()["player"] == ann.json()["id"]
    again = hand_in(client, token, TILES)
    assert refused(again, 409, "handed_in")
    stranger = hand_in(client, "not-a-token", TILES)
    assert refused(stranger, 403, "not_yours")
    mine = client.get(f"/api/games/{CODE}/sheets/{sheet.json()['id']}", headers={"X-Paperplay-Token": token})
    assert mine.status == 200  # one token from join to corrections


# --- names -------------------------------------------------------------------------------------------

LOOKALIKES = ["ann", "ANN", " Ann ", "A\u200bnn", "An\u200dn", "\uff21nn", "\u0410nn", "A\u202enn", "Ann\ufe0f",
              "A\u2060nn", "\u0391nn"]


@pytest.mark.parametrize("other", LOOKALIKES)
def test_a_lookalike_of_a_name_taken_is_a_409(running, other):
    client = running.client
    new_game(client)
    assert join(client, "Ann").status == 201
    answer = join(client, other)
    assert refused(answer, 409, "name_taken") and "'Ann'" in answer.json()["error"], answer.body
    call_all(client, CODE)
    assert refused(client.typed(CODE, other, TILES), 409, "name_taken")


def test_names_are_kept_clean_and_distinct_names_are_two_players(running):
    client = running.client
    new_game(client, players=6)
    cases = {"  Søren   Kierkegaard ": "Søren Kierkegaard", "\uff22\uff4f\uff42": "Bob",
             "\u0915\u094d\u200d\u0937": "\u0915\u094d\u200d\u0937",  # a Devanagari joiner is kept
             "\U0001F469\u200d\U0001F4BB Dee": "\U0001F469\u200d\U0001F4BB Dee", "Ann\u202e": "Ann", "Anne": "Anne"}
    for typed, kept in cases.items():
        answer = join(client, typed)
        assert answer.status == 201 and answer.json()["name"] == kept, (typed, answer.body)
    for bad in ("", "\u200b\u200b", "\u202e", "x" * 41, 7, None):
        answer = join(client, bad)
        assert answer.status == 400 and answer.json()["code"] == "bad_input", (bad, answer.body)
    roster = client.get(f"/api/games/{CODE}").json()["roster"]
    assert [p["name"] for p in roster] == list(cases.values())


def test_names_module():
    from paperplay.serve.names import clean, key

    assert clean("A\u00a0\u2003nn\u3000B") == "A nn B" and clean("\u200dAnn\u200d") == "Ann"
    assert key("Ann") == key("\uff41\uff4e\uff4e") == key("\u0430nn") == key("A\u00adnn")
    assert key("Ann") != key("Anna") and key("René") != key("Rene") and key("Jo") != key("Joe")


# --- the host acts ---------------------------------------------------------------------------------

def test_the_host_locks_hand_ins_joins_and_corrections(running):
    client = running.client
    new_game(client)
    call_all(client, CODE)
    ann = client.typed(CODE, "Ann", TILES).json()
    path = f"/api/games/{CODE}"
    assert client.request("PATCH", path, json_body={"locked": True}).status == 401
    locked = client.request("PATCH", path, json_body={"locked": True}, host=True).json()
    assert locked["locked"] is True and locked["open"] is False
    assert refused(client.typed(CODE, "Bob", TILES), 409, "locked")
    assert refused(join(client, "Bob"), 409, "locked")
    sheet = f"{path}/sheets/{ann['id']}"
    fix = {"cells": {"1": 30}}
    assert refused(client.request("PUT", sheet, json_body=fix, headers={"X-Paperplay-Token": ann["token"]}), 409,
                   "locked")
    assert client.request("PUT", sheet, json_body=fix, host=True).status == 200  # the host still can
    client.request("PATCH", path, json_body={"locked": False}, host=True)
    assert client.typed(CODE, "Bob", TILES).status == 201


def test_the_host_renames_and_removes_sheets_and_players(running):
    client = running.client
    new_game(client)
    call_all(client, CODE)
    ann = client.typed(CODE, "Ann", TILES).json()
    bob = client.typed(CODE, "Bob", TILES).json()
    path = f"/api/games/{CODE}/sheets/{ann['id']}"
    assert client.request("PATCH", path, json_body={"name": "Annie"}).status == 401
    taken = client.request("PATCH", path, json_body={"name": "b\u200bob"}, host=True)
    assert refused(taken, 409, "name_taken")
    renamed = client.request("PATCH", path, json_body={"name": "Annie"}, host=True)
    assert renamed.status == 200 and renamed.json()["name"] == "Annie"
    assert client.request("PATCH", path, json_body={"name": "annie"}, host=True).status == 200  # its own name
    assert client.request("DELETE", f"/api/games/{CODE}/sheets/{bob['id']}", host=True).status == 200
    assert client.typed(CODE, "Bob", TILES).status == 201  # the name is free again
    cy = join(client, "Cy").json()
    assert client.request("DELETE", f"/api/games/{CODE}/players/{cy['id']}").status == 401
    assert client.request("DELETE", f"/api/games/{CODE}/players/{cy['id']}", host=True).json() == {"deleted": cy["id"]}
    assert refused(client.request("DELETE", f"/api/games/{CODE}/players/{cy['id']}", host=True), 404, "no_player")
    dee = join(client, "Dee").json()
    hand_in(client, dee["token"], TILES)
    assert refused(client.request("DELETE", f"/api/games/{CODE}/players/{dee['id']}", host=True), 409, "handed_in")


def test_the_state_shows_who_joined_handed_in_and_has_boxes_to_check(running):
    client = running.client
    new_game(client, players=3)
    ann, bob = join(client, "Ann").json(), join(client, "Bob").json()
    call_all(client, CODE)
    hand_in(client, ann["token"], [*TILES[:19], 30])  # 30 is not drawn: a box to check
    state = client.get(f"/api/games/{CODE}").json()
    rows = {p["name"]: p for p in state["roster"]}
    assert rows["Ann"]["handed_in"] and rows["Ann"]["to_check"] == 1 and rows["Ann"]["sheet"] is not None
    assert not rows["Bob"]["handed_in"] and rows["Bob"]["sheet"] is None and rows["Bob"]["joined"] > 0
    assert state["missing"] == {"sheets": 2, "incomplete": [], "unsettled": [rows["Ann"]["sheet"]]}
    fixed = client.request("PUT", f"/api/games/{CODE}/sheets/{rows['Ann']['sheet']}",
                           json_body={"cells": {"20": TILES[19]}}, headers={"X-Paperplay-Token": ann["token"]})
    assert fixed.json()["corrected"] == [20] and fixed.json()["boxes"][19]["corrected"] == "player"
    state = client.get(f"/api/games/{CODE}").json()
    assert state["missing"]["unsettled"] == [] and state["handed_in"][0]["corrected"] == 1  # marked, not blocking
    assert bob["name"] == "Bob"


def test_the_reveal_names_what_is_missing_unless_forced(running):
    client = running.client
    new_game(client, players=3)
    early = client.post(f"/api/games/{CODE}/reveal", host=True)
    assert refused(early, 409, "not_ready") and "0 of 20 tiles are called" in early.json()["error"]
    call_all(client, CODE)
    client.typed(CODE, "Ann", TILES)
    client.typed(CODE, "Bob", [*TILES[:19], 30])
    answer = client.post(f"/api/games/{CODE}/reveal", host=True)
    assert refused(answer, 409, "not_ready")
    assert "1 sheet of 3 is not handed in" in answer.json()["error"] and "boxes to check on 'Bob'" in answer.json()[
        "error"]
    assert client.get(f"/api/games/{CODE}").json()["revealed"] is False
    assert client.post(f"/api/games/{CODE}/reveal", {"force": "yes"}, host=True).status == 400
    forced = client.post(f"/api/games/{CODE}/reveal", {"force": True}, host=True)
    assert forced.status == 200 and forced.json()["revealed"]
    results = client.get(f"/api/games/{CODE}/results").json()
    assert results["unsettled"][0]["boxes"] == [20] and results["unsettled"][0]["name"] == "Bob"
    again = client.post(f"/api/games/{CODE}/reveal", host=True)  # revealed already: answered as it is
    assert again.status == 200


def test_a_correction_after_the_reveal_reaches_the_results_and_the_waiting_pages(running):
    client = running.client
    new_game(client, players=1)
    call_all(client, CODE)
    ann = client.typed(CODE, "Ann", [*TILES[:19], 30]).json()
    client.post(f"/api/games/{CODE}/reveal", {"force": True}, host=True)
    before = client.get(f"/api/games/{CODE}/results").json()
    assert before["results"][0]["valid"] is False
    version = client.get(f"/api/games/{CODE}").json()["version"]
    path = f"/api/games/{CODE}/sheets/{ann['id']}"
    player = client.request("PUT", path, json_body={"cells": {"20": TILES[19]}},
                            headers={"X-Paperplay-Token": ann["token"]})
    assert refused(player, 409, "revealed")
    later = threading.Timer(0.3, lambda: client.request("PUT", path, json_body={"cells": {"20": TILES[19]}},
                                                          host=True))
    later.start()
    woken = client.get(f"/api/games/{CODE}?wait={version}")  # a page following after the reveal
    later.join()
    assert woken.json()["version"] > version and woken.seconds < 3
    after = client.get(f"/api/games/{CODE}/results").json()
    assert after["results"][0]["valid"] is True and after["ranking"][0]["player"] == "Ann"


# --- the projector and the host's key ----------------------------------------------------------------

def test_the_projector_token_cannot_act_as_host(running):
    client = running.client
    created = client.post("/api/games", {"players": 1, "seed": "7KQ2-M9XD"}, host=True).json()
    view = created["projector_url"].split("?view=")[1]
    page = client.get(f"/projector/{CODE}?view={view}")
    assert page.status == 200 and client.key.encode() not in page.body
    with_view = {"X-Paperplay-Key": view}
    for method, path, body in (("POST", f"/api/games/{CODE}/call", None), ("POST", "/api/games", {"players": 2}),
                               ("PATCH", f"/api/games/{CODE}", {"locked": True}), ("GET", "/api/games", None),
                               ("POST", f"/api/games/{CODE}/reveal", {"force": True}),
                               ("GET", f"/api/games/{CODE}/sheets", None)):
        for answer in (client.request(method, f"{path}?view={view}", json_body=body),
                       client.request(method, f"{path}?key={view}", json_body=body),
                       client.request(method, path, json_body=body, headers=with_view)):
            assert answer.status == 401 and is_one_line_error(answer), (method, path, answer.body)
    call_all(client, CODE)
    client.typed(CODE, "Ann", TILES)
    client.post(f"/api/games/{CODE}/reveal", host=True)
    sheets = client.get(f"/api/games/{CODE}/sheets?view={view}")  # after the reveal: the boxes for its trains
    assert sheets.status == 200 and "token" not in sheets.json()["sheets"][0]
    assert client.get(f"/api/games/{CODE}/sheets?view=wrong").status == 401


def test_a_new_host_key_retires_the_old_one(running):
    client = running.client
    old = client.key
    new_game(client)
    made = running.store.host_key_made()
    new = running.store.new_host_key()
    assert new != old and running.store.host_key() == new and running.store.host_key_made() >= made
    answer = client.get("/api/games", host=True)
    assert refused(answer, 401, "key_wrong")
    assert client.get("/api/games", headers={"X-Paperplay-Key": new}).status == 200
    assert client.get(f"/host?key={old}").status == 401


def test_the_games_list_gives_date_and_players_names(running):
    client = running.client
    new_game(client, players=3)
    join(client, "Ann")
    call_all(client, CODE)
    client.typed(CODE, "Bob", TILES)
    games = client.get("/api/games", host=True).json()["games"]
    assert games[0]["players_names"] == ["Ann", "Bob"] and games[0]["created"] > 1.7e9
    assert games[0]["projector_url"].endswith(f"/projector/{CODE}?view=" + games[0]["projector_url"].split("=")[1])


# --- a database from before ---------------------------------------------------------------------------

VERSION_1 = """
CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE games (code TEXT PRIMARY KEY, seed TEXT NOT NULL, variant TEXT, lang TEXT NOT NULL,
    players INTEGER NOT NULL, turn INTEGER NOT NULL DEFAULT 0, revealed INTEGER NOT NULL DEFAULT 0,
    version INTEGER NOT NULL DEFAULT 1, created REAL NOT NULL);
CREATE TABLE sheets (id INTEGER PRIMARY KEY AUTOINCREMENT, game TEXT NOT NULL REFERENCES games(code),
    name TEXT NOT NULL, name_key TEXT NOT NULL, token TEXT NOT NULL, idempotency TEXT, kind TEXT NOT NULL,
    printed TEXT, boxes TEXT NOT NULL, created REAL NOT NULL, updated REAL NOT NULL, UNIQUE (game, name_key),
    UNIQUE (game, idempotency), UNIQUE (game, printed));
CREATE TABLE crops (sheet INTEGER NOT NULL REFERENCES sheets(id) ON DELETE CASCADE, box INTEGER NOT NULL,
    png BLOB NOT NULL, PRIMARY KEY (sheet, box));
"""
"""The schema of the first game night databases (version 1), as paperplay wrote them."""


def test_a_database_from_before_is_migrated_in_place(tmp_path):
    import json

    from paperplay.serve.store import SCHEMA_VERSION, SqliteStore

    path = tmp_path / "old.db"
    boxes = [{"value": t, "flagged": False, "why": None} for t in TILES]
    boxes[4] = {"value": 30, "flagged": False, "why": "corrected by hand"}  # a player's change, as stored then
    with sqlite3.connect(path) as db:
        db.executescript(VERSION_1)
        db.execute("INSERT INTO meta VALUES ('schema', '1'), ('host_key', 'old-key-0123456789')")
        db.execute("INSERT INTO games VALUES ('P2QPHGPH', '7KQ2M9XD', NULL, 'en', 4, 20, 0, 5, 1.7e9)")
        db.execute("INSERT INTO sheets (game, name, name_key, token, kind, boxes, created, updated) VALUES "
                   "('P2QPHGPH', 'Ann', 'ann', 'tok-ann', 'typed', ?, 1.7e9, 1.7e9)", (json.dumps(boxes),))
    store = SqliteStore(path)
    try:
        assert store.migrated_from == 1 and store.host_key() == "old-key-0123456789"
        game = store.game("P2QPHGPH")
        assert game is not None and game.turn == 20 and not game.locked and len(game.view) > 10
        assert store.sheets("P2QPHGPH")[0].player is None and store.players("P2QPHGPH") == []
        assert store._read("PRAGMA user_version")[0][0] == SCHEMA_VERSION
    finally:
        store.close()
    served = Running(path)
    try:
        state = served.client.get(f"/api/games/{CODE}").json()
        assert state["handed_in"][0]["name"] == "Ann" and state["handed_in"][0]["corrected"] == 1
        assert served.client.post(f"/api/games/{CODE}/players", {"name": "\u0430nn"}).json()["code"] == "name_taken"
        assert served.client.typed(CODE, "Bob", TILES).status == 201
    finally:
        served.stop()
    again = SqliteStore(path)
    assert again.migrated_from == SCHEMA_VERSION
    again.close()


def test_a_database_from_a_newer_paperplay_is_refused(tmp_path):
    from paperplay.serve.store import SCHEMA_VERSION, SqliteStore

    path = tmp_path / "new.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute("INSERT INTO meta VALUES ('schema', '99')")
    newest = f"schema version 99; this paperplay reads versions 1-{SCHEMA_VERSION}"
    with pytest.raises(sqlite3.DatabaseError, match=newest):
        SqliteStore(path)


# --- the hand-in core ----------------------------------------------------------------------------------

def test_a_photo_whose_qr_code_was_not_read_is_taken_as_the_games_sheet():
    from paperplay.handin import PhotoSheet, Refused, check_photo_game

    unread = PhotoSheet("", "", False, [], [], True)
    check_photo_game(unread, "P2QPHGPH")
    assert unread.code == "P2QPHGPH"
    other = PhotoSheet("ABCDEFGH", "1/4", True, [], [], True)
    with pytest.raises(Refused, match="shows a sheet of game ABCD-EFGH; this is game P2QP-HGPH"):
        check_photo_game(other, "P2QPHGPH")


def test_flags_are_worked_out_from_what_is_stored():
    from paperplay.handin import EMPTY, flags, typed_boxes
    from paperplay.streams.rules import draw

    drawn = list(draw("7KQ2M9XD"))
    boxes = typed_boxes(drawn)
    boxes[0] = {"value": None, "flagged": False, "why": None}
    boxes[1] = {"value": 30, "flagged": False, "why": None, "corrected": "player"}
    boxes[2] = {**boxes[2], "flagged": True, "why": "stale: 3 has not been called"}  # a flag stored long ago
    shown = flags(boxes, "typed", drawn)
    assert shown[0]["flagged"] and shown[0]["why"] == EMPTY
    assert not shown[1]["flagged"] and shown[1]["corrected"] == "player"
    assert not shown[2]["flagged"]  # worked out again: the tile is drawn
    assert all(not b["flagged"] for b in flags(typed_boxes(drawn), "typed", drawn))


def test_score_never_sees_an_empty_box():
    from paperplay.handin import score, sheet_document

    scored = score([("a.json", sheet_document("Ann", [None, *TILES[1:]], seed="7KQ2M9XD"))])
    assert scored.ranking == [] and "1 box (1) is empty" in scored.to_json()["results"][0]["error"]


def test_two_corrections_at_once_both_count_and_a_removed_sheet_is_a_404(running):
    from paperplay.serve.errors import Conflict

    client = running.client
    new_game(client)
    call_all(client, CODE)
    ann = client.typed(CODE, "Ann", [30] * 20).json()
    path = f"/api/games/{CODE}/sheets/{ann['id']}"
    import lab.loadtest as load

    answers = load.at_once([lambda n=n: client.request("PUT", path, json_body={"cells": {str(n): TILES[n - 1]}},
                                                        headers={"X-Paperplay-Token": ann["token"]})
                            for n in range(1, 9)])
    assert [a.status for a in answers] == [200] * 8
    boxes = client.get(path, host=True).json()["boxes"]
    assert [b["value"] for b in boxes[:8]] == TILES[:8] and all(b["corrected"] == "player" for b in boxes[:8])
    client.request("DELETE", path, host=True)
    with pytest.raises(Conflict, match="no sheet"):
        running.store.rename_sheet(running.store.games()[0].code, ann["id"], "Annie")
    assert refused(client.request("PATCH", path, json_body={"name": "Annie"}, host=True), 404, "no_sheet")


def test_serve_new_key_retires_the_old_key(tmp_path):
    import signal

    from lab.loadtest import Client, start_server

    process, base, first = start_server(tmp_path / "games.db")
    process.send_signal(signal.SIGINT)
    process.communicate(timeout=20)
    process, base, second = start_server(tmp_path / "games.db", "--new-key")
    try:
        assert second != first
        assert Client(base, first).get("/api/games", host=True).status == 401
        assert Client(base, second).get("/api/games", host=True).status == 200
    finally:
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=20)


def test_an_incomplete_sheet_stays_out_of_the_ranking_until_its_boxes_are_typed(running):
    """A photo with empty boxes is stored with them empty (test_serve_process reads such a photo); here the
    store is handed such a sheet directly, so the test needs no photo."""
    from paperplay.handin import EMPTY

    client = running.client
    new_game(client, players=2)
    call_all(client, CODE)
    client.typed(CODE, "Bob", TILES)
    boxes = [{"value": t, "flagged": False, "why": None} for t in TILES]
    boxes[2] = boxes[6] = {"value": None, "flagged": True, "why": EMPTY}
    code = running.store.games()[0].code
    ann, _ = running.store.add_sheet(code, "Ann", "photo", boxes, "1/2", turns=20)
    state = client.get(f"/api/games/{CODE}").json()
    assert state["missing"]["incomplete"] == [ann.id] and state["handed_in"][1]["empty"] == 2
    refused_reveal = client.post(f"/api/games/{CODE}/reveal", host=True)
    assert refused(refused_reveal, 409, "not_ready") and "incomplete (empty boxes): 'Ann'" in refused_reveal.json()[
        "error"]
    assert refused(client.get(f"/api/games/{CODE}/sheets/{ann.id}/file", host=True), 409, "incomplete")
    client.post(f"/api/games/{CODE}/reveal", {"force": True}, host=True)
    results = client.get(f"/api/games/{CODE}/results").json()
    assert [r["player"] for r in results["ranking"]] == ["Bob"] and results["incomplete"][0]["empty"] == [3, 7]
    assert b"2 boxes (3, 7) are empty" in client.get(f"/api/games/{CODE}/results.html").body
    path = f"/api/games/{CODE}/sheets/{ann.id}"
    one = client.request("PUT", path, json_body={"cells": {"3": TILES[2]}}, host=True).json()
    assert one["empty"] == [7] and not one["complete"]
    client.request("PUT", path, json_body={"cells": {"7": TILES[6]}}, host=True)
    results = client.get(f"/api/games/{CODE}/results").json()
    assert results["incomplete"] == [] and len(results["ranking"]) == 2


def test_a_readers_refusal_passes_its_code_through(monkeypatch, tmp_path):
    pytest.importorskip("cv2", reason="reading photos needs the scan extra (OpenCV)")
    from paperplay.handin import Refused, read_photo_sheet
    from paperplay.scan import pipeline
    from paperplay.scan.reader import ScanError

    class Covered(ScanError):
        code = "mark_covered"

    def refuse(*args, **kwargs):
        raise Covered("the top-left corner square is not in the photo; uncover it and take the photo again")

    monkeypatch.setattr(pipeline, "read_photo", refuse)
    with pytest.raises(Refused) as refused_photo:
        read_photo_sheet(tmp_path / "x.jpg", None)
    assert refused_photo.value.code == "mark_covered" and str(refused_photo.value).startswith("the top-left")
    monkeypatch.setattr(pipeline, "read_photo", lambda *a, **k: (_ for _ in ()).throw(ScanError("too dark")))
    with pytest.raises(Refused) as plain:
        read_photo_sheet(tmp_path / "x.jpg", None)
    assert plain.value.code == "bad_photo"
    from paperplay.serve.errors import ApiError
    from paperplay.serve.web import error

    answer = error(ApiError("mark_covered", "photo: x").code, "photo: x")
    assert answer.status_code == 400 and b'"code":"mark_covered"' in answer.body
