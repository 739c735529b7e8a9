"""paperplay serve, big games: the ranking kept as sheets arrive (columns the store fills as a sheet is stored or
corrected) agrees with the results' own refereeing of every sheet, places share ties as the results do, a big
game's state is bounded, lists and results are paged (hostile numbers refused), a game takes up to its store's
most players, and a player prints their own scannable sheet."""

from __future__ import annotations

import dataclasses
import random

import pytest

for _module in ("starlette", "uvicorn", "multipart"):
    pytest.importorskip(_module, reason="paperplay serve needs the serve extra (pip install '.[serve]')")

from paperplay.handin import corrected, typed_boxes  # noqa: E402
from paperplay.seeds import canonical_seed, game_code  # noqa: E402
from paperplay.serve import checks  # noqa: E402
from paperplay.streams.rules import WILD, draw, tile_json  # noqa: E402
from tests.test_serve_api import Running, call_all, is_one_line_error, new_game  # noqa: E402

SEED = "7KQ2M9XD"
CODE = game_code("streams", SEED)


@pytest.fixture
def store(any_store):
    """A store of each kind (SQLite and PostgreSQL: tests/conftest.py's any_store): the ranking is kept alike."""
    return any_store


def _ready(store, seed: str = SEED, players: int = 200) -> str:
    """A game with every tile called (hand-ins open)."""
    code = game_code("streams", canonical_seed(seed))
    store.create_game(code, canonical_seed(seed), None, "en", players)
    for _ in range(20):
        store.call(code, 20)
    return code


def _random_cells(rng: random.Random, drawn: list) -> list:
    """A sheet as players write them: the drawn tiles in some order, now and then a box left empty, a number
    not drawn or written twice (not valid), or a run kept in order (a high total)."""
    cells = list(drawn)
    rng.shuffle(cells)
    if rng.random() < 0.4:
        start = rng.randrange(15)
        cells[start:start + 6] = sorted(cells[start:start + 6], key=lambda t: 0 if t == WILD else t)
    roll = rng.random()
    if roll < 0.1:
        cells[rng.randrange(20)] = None
    elif roll < 0.2:
        cells[rng.randrange(20)] = cells[rng.randrange(20)]
    return [None if c is None else tile_json(c) for c in cells]


def _brute_force(store, code: str) -> list[tuple[int, int, int]]:
    """(place, total, id) of each ranked sheet, by refereeing every sheet as the results do."""
    game = dataclasses.replace(store.game(code), revealed=True)
    sheets = store.sheets(code)
    by_file = {checks.source_name(s): s.id for s in sheets}
    results = checks.results(game, sheets)
    files = [r["file"] for r in results["results"] if r.get("valid")]
    ordered = sorted(files, key=lambda f: next(-r["total"] for r in results["results"] if r["file"] == f))
    return [(row["place"], row["total"], by_file[f]) for row, f in zip(results["ranking"], ordered)]


@pytest.mark.parametrize("seed", ["7KQ2M9XD", "1", "BIGROOM9"])
def test_the_kept_ranking_is_the_results_ranking(store, seed):
    """Property: on random games (random sheets, corrections, removals) the top of the kept ranking and every
    sheet's place are what refereeing every sheet gives."""
    rng = random.Random(seed)
    code = _ready(store, seed)
    drawn = draw(canonical_seed(seed))
    ids = []
    for n in range(60):
        sheet, _ = store.add_sheet(code, f"p{n}", "typed", typed_boxes(_random_cells(rng, drawn)), turns=20)
        ids.append(sheet.id)
    for sheet_id in rng.sample(ids, 10):  # corrections: a box set, an empty box filled
        box, tile = rng.randrange(1, 21), rng.choice(drawn)
        store.update_boxes(code, sheet_id, lambda boxes, b=box, t=tile: corrected(boxes, {b: t}, "host"), host=True)
    for sheet_id in rng.sample(ids, 5):
        store.delete_sheet(code, sheet_id)
    expected = _brute_force(store, code)
    kept = store.ranking(code, 0, 500)
    assert [(r.place, r.total) for r in kept] == [(p, t) for p, t, _ in expected]
    assert len(expected) >= 30  # the games are not all invalid
    for place, _, sheet_id in expected:
        assert store.place(code, sheet_id) == (place, len(expected))
    # pages of any size give the same places
    paged = [r for offset in range(0, len(kept), 7) for r in store.ranking(code, offset, 7)]
    assert [(r.id, r.place) for r in paged] == [(r.id, r.place) for r in kept]
    ranked = {r.id for r in kept}
    assert all(store.place(code, i) is None for i in {s.id for s in store.sheets(code)} - ranked)
    # a phone's place from its own total and the state's places is the same place
    from paperplay.serve.ranking import places_by_total

    by_total = dict(map(tuple, places_by_total(store.standings(code))))
    for sheet in store.sheets(code):
        assert (sheet.total is None) == (sheet.id not in ranked)
        if sheet.total is not None:
            assert by_total[sheet.total] == store.place(code, sheet.id)[0]


def test_ties_share_a_place_and_the_next_is_skipped(store):
    code = _ready(store)
    drawn = draw(SEED)
    best = sorted(drawn, key=lambda t: 0 if t == WILD else t)
    shuffled = list(drawn)
    random.Random(3).shuffle(shuffled)
    ids = [store.add_sheet(code, name, "typed", typed_boxes([tile_json(t) for t in cells]), turns=20)[0].id
           for name, cells in (("low", shuffled), ("a", best), ("b", best))]
    places = [store.place(code, i) for i in ids]
    assert places[1] == places[2] == (1, 3) and places[0] == (3, 3)
    assert [r.place for r in store.ranking(code, 0, 10)] == [1, 1, 3]
    assert [r.place for r in store.ranking(code, 1, 10)] == [1, 3]  # a page starting inside the tie


def test_a_correction_moves_a_place_in_the_same_transaction(store):
    code = _ready(store)
    drawn = draw(SEED)
    best = [tile_json(t) for t in sorted(drawn, key=lambda t: 0 if t == WILD else t)]
    shuffled = [tile_json(t) for t in drawn]
    one = store.add_sheet(code, "one", "typed", typed_boxes(best), turns=20)[0]
    two = store.add_sheet(code, "two", "typed", typed_boxes(shuffled), turns=20)[0]
    assert store.place(code, two.id) == (2, 2)
    version = store.game(code).version
    store.update_boxes(code, two.id, lambda boxes: corrected(boxes, dict(enumerate(best, start=1)), "host"), True)
    assert store.game(code).version == version + 1
    assert store.place(code, two.id) == (1, 2) == store.place(code, one.id)
    store.update_boxes(code, one.id, lambda boxes: corrected(boxes, {1: 31}, "host"), True)  # 31: not drawn
    assert store.place(code, one.id) is None and store.place(code, two.id) == (1, 1)
    counts = store.counts(code)
    assert (counts.handed_in, counts.ranked) == (2, 1)


def test_an_older_database_gets_its_sheets_scored_when_migrated(tmp_path):
    import sqlite3

    from paperplay.serve import store as module

    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    db.executescript(module._SCHEMA)
    for step in (2, 3, 4):
        for sql in module.MIGRATIONS[step]:
            db.execute(sql)
    db.execute("INSERT INTO meta VALUES ('schema', '4')")
    db.execute("INSERT INTO games (code, seed, variant, lang, players, turn, created, view) "
               "VALUES (?, ?, NULL, 'en', 4, 20, 0, 'v')", (CODE, SEED))
    import json

    cells = [tile_json(t) for t in draw(SEED)]
    for name in ("a", "b"):
        db.execute("INSERT INTO sheets (game, name, name_key, token, kind, boxes, created, updated) "
                   "VALUES (?, ?, ?, 't', 'typed', ?, 0, 0)", (CODE, name, name, json.dumps(typed_boxes(cells))))
    db.execute("INSERT INTO players (game, name, name_key, token, joined) VALUES (?, 'c', 'c', 't', 0)", (CODE,))
    db.commit()
    db.close()
    opened = module.SqliteStore(path)
    try:
        assert opened.migrated_from == 4
        assert [r.place for r in opened.ranking(CODE, 0, 10)] == [1, 1]
        assert opened.players(CODE)[0].number == 1
    finally:
        opened.close()


def test_each_store_takes_its_most_players(store):
    """SQLite: 200 a game, as the laptop evening always took; PostgreSQL: 100,000 (hand-ins beyond 200 taken)."""
    assert store.max_players == {"sqlite": 200, "postgresql": 100_000}[store.kind]
    if store.kind == "sqlite":
        return
    code = _ready(store, players=300)
    drawn = [tile_json(t) for t in draw(SEED)]
    for n in range(201):
        store.add_sheet(code, f"p{n}", "typed", typed_boxes(drawn), turns=20)
    assert store.counts(code).handed_in == 201 and store.place(code, store.ranking(code, 200, 1)[0].id) == (1, 201)


def test_player_numbers_are_never_given_twice(store):
    code = _ready(store)
    a, _ = store.join(code, "Ann")
    b, _ = store.join(code, "Bob")
    assert (a.number, b.number) == (1, 2)
    store.delete_player(code, b.id)
    c, _ = store.join(code, "Cy")
    assert c.number == 3


# --- the API ----------------------------------------------------------------------------------------

@pytest.fixture
def running(tmp_path):
    server = Running(tmp_path / "games.db")
    yield server
    server.stop()


def _hand_in(client, code: str, count: int, cells: list) -> list[dict]:
    out = []
    for n in range(count):
        answer = client.typed(code, f"player {n}", cells)
        assert answer.status == 201, answer.body
        out.append(answer.json())
    return out


def test_a_small_game_keeps_its_whole_lists(running):
    client = running.client
    code = new_game(client, players=5)
    call_all(client, code)
    _hand_in(client, code, 3, [tile_json(t) for t in draw(SEED)])
    state = client.get(f"/api/games/{code}").json()
    assert state["paged"] is False and len(state["handed_in"]) == 3 and len(state["roster"]) == 3
    assert state["counts"]["handed_in"] == 3 and [r["place"] for r in state["top"]] == [1, 1, 1]
    whole = client.get(f"/api/games/{code}/sheets", host=True).json()
    assert list(whole) == ["sheets"] and len(whole["sheets"]) == 3


def test_a_big_game_state_is_bounded_and_its_lists_are_paged(running):
    client = running.client
    running.store.max_players = 1000  # as a PostgreSQL store takes (the SQLite file's is 200)
    code = new_game(client, players=600)
    call_all(client, code)
    drawn = [tile_json(t) for t in draw(SEED)]
    best = [tile_json(t) for t in sorted(draw(SEED), key=lambda t: 0 if t == WILD else t)]
    sheets = _hand_in(client, code, 14, drawn)
    star = client.typed(code, "star", best).json()
    for n in range(5):
        assert client.post(f"/api/games/{code}/players", {"name": f"joiner {n}"}).status == 201
    state = client.get(f"/api/games/{code}").json()
    assert state["paged"] is True and state["roster"] == [] and state["handed_in"] == []
    assert state["counts"] == {"joined": 5, "handed_in": 15, "to_check": 0, "incomplete": 0, "unsettled": 0,
                               "ranked": 15}
    assert len(state["top"]) == 10 and state["top"][0]["name"] == "star" and state["top"][0]["place"] == 1
    assert state["missing"]["sheets"] == 585
    page = client.get(f"/api/games/{code}/sheets?page=2&per_page=4", host=True).json()
    assert (page["page"], page["per_page"], page["of"]) == (2, 4, 15)
    assert [s["id"] for s in page["sheets"]] == [s["id"] for s in sheets[4:8]]
    first = client.get(f"/api/games/{code}/sheets", host=True).json()
    assert (first["page"], first["per_page"], len(first["sheets"])) == (1, 100, 15)
    roster = client.get(f"/api/games/{code}/players?per_page=2&page=%EF%BC%93", host=True).json()  # fullwidth 3
    assert [p["name"] for p in roster["players"]] == ["joiner 4"] and roster["of"] == 5
    # a phone's own place, and a correction that moves it
    mine = client.get(f"/api/games/{code}/sheets/{sheets[0]['id']}", headers={"X-Paperplay-Token": sheets[0]["token"]})
    assert (mine.json()["place"], mine.json()["of"]) == (2, 15)
    fixed = client.request("PUT", f"/api/games/{code}/sheets/{sheets[0]['id']}", {"cells": best}, host=True).json()
    best_total = client.get(f"/api/games/{code}/sheets/{star['id']}", host=True).json()["total"]
    assert (fixed["place"], fixed["of"], fixed["total"]) == (1, 15, best_total) and best_total > mine.json()["total"]
    after = client.get(f"/api/games/{code}").json()
    assert after["recent"][0][0] == sheets[0]["id"] and len(after["recent"]) == 15
    assert [fixed["total"], 1] in after["places"] and after["places"][0] == [fixed["total"], 1]
    top = client.get(f"/api/games/{code}").json()["top"]  # equal totals: in the order handed in
    assert [(r["id"], r["place"]) for r in top[:3]] == [(sheets[0]["id"], 1), (star["id"], 1), (sheets[1]["id"], 3)]
    client.request("PUT", f"/api/games/{code}/sheets/{sheets[2]['id']}", {"cells": {"2": drawn[0]}}, host=True)  # twice
    refused = client.post(f"/api/games/{code}/reveal", host=True)
    assert refused.status == 409 and "585 sheets of 600 are not handed in" in refused.json()["error"]
    client.post(f"/api/games/{code}/reveal", {"force": True}, host=True)
    results = client.get(f"/api/games/{code}/results?per_page=3").json()
    assert [r["place"] for r in results["ranking"]] == [1, 1, 3] and results["of"] == 14
    whole = client.get(f"/api/games/{code}/results").json()  # a big game's results: always a page
    assert (whole["page"], whole["per_page"], len(whole["ranking"])) == (1, 100, 14)
    page = client.get(f"/api/games/{code}/results.html")
    assert page.status == 200 and b"star" in page.body


HOSTILE_PAGES = ["page=0", "page=-1", "page=1e3", "per_page=0", "per_page=501", "per_page=%C2%B2",
                 "page=" + "9" * 40, "per_page=", "page=1.5", "page=%D9%A3"]


def test_hostile_page_numbers_are_refused(running):
    client = running.client
    code = new_game(client, players=5)
    for query in HOSTILE_PAGES:
        for path in ("sheets", "players", "results"):
            answer = client.get(f"/api/games/{code}/{path}?{query}", host=True)
            if path == "results":  # before the reveal the results are refused first
                assert answer.status == 409 and answer.json()["code"] == "not_revealed"
                continue
            assert answer.status == 400 and answer.json()["code"] == "bad_number" and is_one_line_error(answer), query
            assert answer.json()["error"].startswith(query.split("=")[0] + ": ")
    client.post(f"/api/games/{code}/reveal", {"force": True}, host=True)
    for query in HOSTILE_PAGES:
        answer = client.get(f"/api/games/{code}/results?{query}")
        assert answer.status == 400 and answer.json()["code"] == "bad_number", query
    legal = client.get(f"/api/games/{code}/results?page=1&per_page=500").json()
    assert (legal["ranking"], legal["page"], legal["per_page"], legal["of"]) == ([], 1, 500, 0)


def test_the_roster_is_the_hosts(running):
    client = running.client
    code = new_game(client, players=5)
    answer = client.get(f"/api/games/{code}/players")
    assert answer.status == 401 and answer.json()["code"] == "key_missing"


def test_a_game_takes_up_to_its_stores_players(running):
    client = running.client
    assert running.store.max_players == 200 and running.store.kind == "sqlite"
    refused = client.post("/api/games", {"players": 201}, host=True)
    assert refused.status == 400 and "expected a whole number 1-200" in refused.json()["error"]
    code = new_game(client, players=200)
    raised = client.request("PATCH", f"/api/games/{code}", {"players": 201}, host=True)
    assert raised.status == 400 and raised.json()["error"].startswith("players: is 201")
    running.store.max_players = 100_000
    assert client.request("PATCH", f"/api/games/{code}", {"players": 100_000}, host=True).status == 200
    assert client.post("/api/games", {"players": 100_001}, host=True).status == 400


# --- a player's own sheet ---------------------------------------------------------------------------

def test_a_player_prints_their_own_sheet(running, tmp_path):
    for module in ("pypdf", "pypdfium2", "zxingcpp"):
        pytest.importorskip(module, reason=f"reading the PDF back needs {module} (the test extra)")
    import time

    from pdfcheck import page_texts, qr_texts

    client = running.client
    code = new_game(client, players=5)
    ann = client.post(f"/api/games/{code}/players", {"name": "Ann"}).json()
    bob = client.post(f"/api/games/{code}/players", {"name": "Bob"}).json()
    started = time.perf_counter()
    answer = client.get(f"/api/games/{code}/players/{bob['id']}/sheet.pdf?token={bob['token']}")
    seconds = time.perf_counter() - started
    assert answer.status == 200 and answer.headers["content-type"] == "application/pdf", answer.body[:200]
    assert seconds < 2.0  # one page, drawn as the kit draws it (about 0.1 s)
    path = tmp_path / "bob.pdf"
    path.write_bytes(answer.body)
    texts = page_texts(path)
    assert len(texts) == 1 and "sheet 202" in texts[0] and "Bob" in texts[0]
    assert answer.headers["content-disposition"] == f'attachment; filename="streams-{CODE}-sheet-202.pdf"'
    [payload] = qr_texts(path, 0)
    assert payload.startswith("PAPERPLAY/") and ("sheet=202/100200" in payload or "scan=202/100200" in payload)
    host = client.get(f"/api/games/{code}/players/{ann['id']}/sheet.pdf", host=True)
    assert host.status == 200
    for _ in range(5):  # asked again and again: 5 at once, then one every 10 s (the host is never paced)
        again = client.get(f"/api/games/{code}/players/{bob['id']}/sheet.pdf?token={bob['token']}")
    assert again.status == 429 and again.json()["code"] == "too_fast" and int(again.headers["retry-after"]) >= 1
    assert client.get(f"/api/games/{code}/players/{bob['id']}/sheet.pdf", host=True).status == 200
    other = client.get(f"/api/games/{code}/players/{ann['id']}/sheet.pdf?token={bob['token']}")
    assert other.status == 403 and other.json()["code"] == "not_yours" and is_one_line_error(other)
    nobody = client.get(f"/api/games/{code}/players/{ann['id']}/sheet.pdf")
    assert nobody.status == 401 and nobody.json()["code"] == "token_missing"
    wrong = client.get(f"/api/games/{code}/players/{ann['id']}/sheet.pdf?token=not-a-token")
    assert wrong.status == 403
    for bad in ("-1", "x", "9" * 30):
        assert client.get(f"/api/games/{code}/players/{bad}/sheet.pdf", host=True).json()["code"] == "bad_number"
    assert client.get(f"/api/games/{code}/players/999/sheet.pdf", host=True).json()["code"] == "no_player"


@pytest.mark.parametrize("seed", ["7KQ2M9XD", "XDJXK9R68ZS3PKXE"])
@pytest.mark.parametrize("number", [201, 100_200])
def test_own_sheet_numbers_beyond_200_keep_the_qr_code_the_scanner_reads(seed, number):
    """The payload stays a version 4 code (33 modules, what scan reads) for every number, the game's full code
    where it fits, else its game code, which the server takes for the game as well."""
    from paperplay.render.model import QR
    from paperplay.render.pdf import qr_modules
    from paperplay.scan.reader import check_sheet_fields, parse_payload
    from paperplay.seeds import full_code
    from paperplay.streams.scansheet import own_sheet_document

    seed = canonical_seed(seed)
    code = game_code("streams", seed)
    doc = own_sheet_document(code, full_code("streams", seed), number, "Ann")
    [qr] = [item for page in doc.pages for item in page.items if isinstance(item, QR)]
    assert len(doc.pages) == 1 and len(qr_modules(qr.payload)) == 33
    fields = parse_payload(qr.payload)
    check_sheet_fields(fields)
    assert fields["sheet"] == f"{number}/100200" and fields["code"] in (code, full_code("streams", seed))
    with pytest.raises(ValueError):
        own_sheet_document(code, full_code("streams", seed), 100_201)


@pytest.fixture(scope="module")
def own_scan(tmp_path_factory):
    """A photo of a player's own sheet (number 4321), filled in, read back by the scanner: its Scan."""
    from tests.test_serve_process import photos_of

    photos_of(SEED, 0, 1)  # skips without what draws photos
    import numpy as np
    import pypdfium2

    from lab.synth import PX_PER_MM, TRAIN_FONTS, fill_sheet, font_files, make_hand, photograph
    from paperplay.render.pdf import render_bytes
    from paperplay.scan.pipeline import read_photo
    from paperplay.seeds import full_code
    from paperplay.streams.scansheet import layout, own_sheet_document

    pdf = pypdfium2.PdfDocument(render_bytes(own_sheet_document(CODE, full_code("streams", SEED), 4321, "Ann")))
    try:
        image = pdf[0].render(scale=PX_PER_MM * 25.4 / 72, grayscale=True).to_numpy()
    finally:
        pdf.close()
    image = np.ascontiguousarray(image[:, :, 0] if image.ndim == 3 else image)
    rng = np.random.default_rng([44, 1])
    drawn = list(draw(SEED))
    filled, _ = fill_sheet(image, layout("a4").cells, drawn, make_hand(rng, font_files(TRAIN_FONTS), None,
                                                                      font_share=1.0), rng)
    path = tmp_path_factory.mktemp("own") / "own.jpg"
    path.write_bytes(photograph(filled, rng)[0])
    return read_photo(path, drawn)


def test_an_own_sheet_scans_back_and_is_handed_in_once(store, own_scan):
    """A photo of a player's own sheet, filled in, reads back its game and number; the store takes that printed
    sheet once."""
    from paperplay.serve.errors import Conflict

    assert (own_scan.code, own_scan.sheet) == (CODE, "4321/100200")
    drawn = list(draw(SEED))
    code = _ready(store)
    store.add_sheet(code, "Ann", "photo", typed_boxes([tile_json(t) for t in drawn]), printed=own_scan.sheet,
                    turns=20)
    with pytest.raises(Conflict) as taken:
        store.add_sheet(code, "Eve", "photo", typed_boxes([tile_json(t) for t in drawn]), printed=own_scan.sheet,
                        turns=20)
    assert "4321/100200" in str(taken.value) or taken.value.code.value == "sheet_used"


@pytest.mark.browser
def test_a_big_games_phone_prints_its_sheet_and_follows_its_place(running, page):
    """In a browser: a phone of a game past 200 players offers its own sheet, then shows its place, which moves
    when the host corrects another sheet (from the state's places, without asking for its own sheet)."""
    import json
    import time

    client = running.client
    running.store.max_players = 1000
    code = new_game(client, players=500)
    call_all(client, code)
    drawn = [tile_json(t) for t in draw(SEED)]
    best = [tile_json(t) for t in sorted(draw(SEED), key=lambda t: 0 if t == WILD else t)]
    others = _hand_in(client, code, 3, drawn)
    ann = client.post(f"/api/games/{code}/players", {"name": "Ann"}).json()
    page.goto(f"{running.base}/")
    page.evaluate("([k, v]) => localStorage.setItem(k, v)", [f"paperplay:serve:{code}", json.dumps(
        {"player": ann["id"], "token": ann["token"], "name": "Ann", "sheet": None, "boxes": None})])
    page.goto(f"{running.base}/join/{code}")
    link = page.locator("#own-link")
    link.wait_for(state="visible")
    assert f"/players/{ann['id']}/sheet.pdf?token=" in link.get_attribute("href")
    page.locator("#typing summary").click()  # the phone hands in its typed boxes
    for box, value in enumerate(drawn, start=1):
        page.fill(f"#c{box}", str(value))
    page.locator("#type-form button[type=submit]").click()
    place = page.locator("#my-place")

    def shows(text: str) -> bool:
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            if place.is_visible() and place.text_content() == text:
                return True
            time.sleep(0.05)
        return False

    assert shows("Place 1 of 4")  # every sheet scores the same here
    assert not page.locator("#own").is_visible()
    client.request("PUT", f"/api/games/{code}/sheets/{others[0]['id']}", {"cells": best}, host=True)
    assert shows("Place 2 of 4")
