"""A big game on PostgreSQL, measured: a game of 100,000 players filled with 100,000 handed-in sheets by bulk insert
(COPY; each row's standing worked out by the server's own paperplay.serve.ranking.standing), then, through a real
`paperplay serve --db postgresql://…` process: how long a host's correction takes to reach phones waiting on the
game (the issue: within 3 s at 100,000 sheets), the size and time of the state every phone reads, a sheet's place,
pages of the sheets and of the ranking, and the database's own time for the place and top-of-ranking queries.

    python lab/bigroom.py --db postgresql://postgres@127.0.0.1:5433/bigroom            # 100,000 sheets
    python lab/bigroom.py --db postgresql://…/bigroom --sheets 20000 --phones 100 --out figures.json

The database named in --db is made when missing and emptied first (its games only: use a database of its own).
Needs the serve-pg extra (psycopg). Prints one JSON document of figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import secrets
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from lab.crowd import _poll_phone, start_servers  # noqa: E402
from lab.loadtest import Client, fetch, percentile  # noqa: E402

SEED = "BIGR00M9XD"
POOL = 1000
"""Distinct sheets written (each one's standing refereed once); the rows cycle through them."""


def _ensure_database(url: str) -> None:
    """Makes the database of --db when it is missing (connecting to the cluster's `postgres` database)."""
    import psycopg
    from psycopg import sql
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as connection:
        if connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None:
            connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def _one(row: tuple[Any, ...] | None) -> tuple[Any, ...]:
    """A query's one row (these queries always give one)."""
    if row is None:
        raise SystemExit("bigroom: the database answered no row where one was expected")
    return row


def _empty(url: str) -> None:
    import psycopg

    with psycopg.connect(url) as connection:
        if _one(connection.execute("SELECT to_regclass('games')").fetchone())[0] is not None:
            connection.execute("DELETE FROM games")


def _pool(seed: str, count: int) -> list[tuple[str, Any]]:
    """`count` sheets as players write them (the draw shuffled, runs kept in order now and then, a box left empty
    or a number written twice in some), each with its standing."""
    from paperplay.handin import typed_boxes
    from paperplay.seeds import canonical_seed
    from paperplay.serve.ranking import standing
    from paperplay.streams.rules import WILD, draw, tile_json

    seed = canonical_seed(seed)
    drawn = list(draw(seed))
    rng = random.Random(44)
    out = []
    for _ in range(count):
        cells: list[Any] = list(drawn)
        rng.shuffle(cells)
        start, length = rng.randrange(14), rng.randrange(2, 7)
        cells[start:start + length] = sorted(cells[start:start + length], key=lambda t: 0 if t == WILD else t)
        roll = rng.random()
        if roll < 0.03:
            cells[rng.randrange(20)] = None
        elif roll < 0.06:
            cells[rng.randrange(20)] = cells[rng.randrange(20)]
        boxes = typed_boxes([None if c is None else tile_json(c) for c in cells])  # type: ignore[misc]
        out.append((json.dumps(boxes), standing(seed, None, "typed", boxes)))
    return out


def fill(url: str, code: str, sheets: int, seed: str) -> dict[str, float]:
    """Bulk-inserts `sheets` typed sheets (by name alone) into game `code`, then ANALYZE; the game's version is
    bumped (with its NOTIFY) so the servers render it anew."""
    import psycopg

    started = time.perf_counter()
    pool = _pool(seed, POOL)
    refereed = time.perf_counter() - started
    started = time.perf_counter()
    now = time.time()
    columns = "game, name, name_key, token, kind, boxes, created, updated, total, ranked, flagged, empty"
    with psycopg.connect(url) as connection:
        # the store's row triggers (a game's places taken) count one row at a time: off for the bulk insert, and the
        # game's count of sheets by name alone set once after it, in the same transaction
        connection.execute("ALTER TABLE sheets DISABLE TRIGGER USER")
        with connection.cursor() as cursor, cursor.copy(f"COPY sheets ({columns}) FROM STDIN") as copy:
            for n in range(sheets):
                boxes, now_standing = pool[n % len(pool)]
                name = f"player {n + 1}"
                copy.write_row((code, name, name, secrets.token_urlsafe(18), "typed", boxes, now, now,
                                now_standing.total, now_standing.ranked, now_standing.flagged, now_standing.empty))
        connection.execute("ALTER TABLE sheets ENABLE TRIGGER USER")
        has_alone = connection.execute("SELECT 1 FROM information_schema.columns WHERE table_name = 'games' "
                                       "AND column_name = 'alone'").fetchone()
        if has_alone is not None:
            connection.execute("UPDATE games SET alone = alone + %s WHERE code = %s", (sheets, code))
        connection.execute("UPDATE games SET version = version + 1 WHERE code = %s", (code,))
        connection.execute("SELECT pg_notify('paperplay', %s)", (code,))
    copied = time.perf_counter() - started
    started = time.perf_counter()
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("ANALYZE sheets")
    return {"referee_pool_s": round(refereed, 2), "copy_s": round(copied, 2),
            "analyze_s": round(time.perf_counter() - started, 2)}


def _timed(work: Any, repeat: int = 5) -> tuple[float, Any]:
    """The median milliseconds of `work()` over `repeat` runs, and its last result."""
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = work()
        times.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(times), 1), result


def database_queries(url: str, code: str, sheet_id: int) -> dict[str, float]:
    """The database's own time (ms, median of 5) for what a big game asks most: a sheet's place, the top 10,
    a page of 500 nine tenths down the ranking, the counts."""
    import psycopg

    with psycopg.connect(url) as connection:
        total = _one(connection.execute("SELECT total FROM sheets WHERE id = %s", (sheet_id,)).fetchone())[0]
        ranked = _one(connection.execute("SELECT count(*) FROM sheets WHERE game = %s AND ranked",
                                          (code,)).fetchone())[0]
        queries = {
            "place_ms": ("SELECT count(*) FROM sheets WHERE game = %s AND ranked AND total > %s", (code, total)),
            "top10_ms": ("SELECT id, name, total FROM sheets WHERE game = %s AND ranked ORDER BY total DESC, id "
                         "LIMIT 10", (code,)),
            "ranking_page_deep_ms": ("SELECT id, name, total FROM sheets WHERE game = %s AND ranked "
                                     "ORDER BY total DESC, id LIMIT 500 OFFSET %s", (code, ranked * 9 // 10)),
            "counts_ms": ("SELECT count(*), count(*) FILTER (WHERE flagged > 0), count(*) FILTER (WHERE ranked) "
                          "FROM sheets WHERE game = %s", (code,)),
        }
        return {name: _timed(lambda q=query, a=args: connection.execute(q, a).fetchall())[0]
                for name, (query, args) in queries.items()}


async def correction_reaches_phones(base: str, key: str, code: str, sheet: dict[str, Any], cells: list[Any],
                                    phones: int) -> dict[str, Any]:
    """`phones` phones wait on the game (GET ?wait=VERSION); the host corrects `sheet`: how long from the
    correction sent until each phone has the new state, and the sheet's place before and after."""
    state = (await fetch(base, "GET", f"/api/games/{code}")).json()
    version = state["version"]
    deadline = time.monotonic() + 60
    waiting = [asyncio.create_task(_poll_phone(base, code, version, deadline)) for _ in range(phones)]
    await asyncio.sleep(min(5.0, 0.5 + phones / 200))  # every phone's question is in
    owner = {"X-Paperplay-Token": sheet["token"]}
    before = (await fetch(base, "GET", f"/api/games/{code}/sheets/{sheet['id']}", headers=owner)).json()
    sent = time.perf_counter()
    answer = await fetch(base, "PUT", f"/api/games/{code}/sheets/{sheet['id']}", json.dumps({"cells": cells}).encode(),
                         {"Content-Type": "application/json", "X-Paperplay-Key": key})
    corrected = time.perf_counter()
    if answer.status != 200:
        raise RuntimeError(f"the correction: {answer.status} {answer.body[:200]!r}")
    done = await asyncio.gather(*waiting)
    after = (await fetch(base, "GET", f"/api/games/{code}/sheets/{sheet['id']}", headers=owner)).json()
    reached = [(when - sent) * 1000 for status, when, _ in done if status == 200]
    return {"phones": phones, "reached": len(reached), "correction_ms": round((corrected - sent) * 1000, 1),
            "reach_p50_ms": round(percentile(reached, 50), 1) if reached else None,
            "reach_max_ms": round(max(reached), 1) if reached else None,
            "place_before": [before.get("place"), before.get("of")],
            "place_after": [after.get("place"), after.get("of")]}


def http_figures(base: str, key: str, code: str, sheet: dict[str, Any], sheets: int) -> dict[str, Any]:
    """Times (ms, median of 5) and sizes of what the pages ask: the phones' state (rendered once a version: the
    first ask after a change renders it), a sheet with its place, a page of the sheets and of the ranking."""
    client = Client(base, key)
    owner = {"X-Paperplay-Token": sheet["token"]}
    out: dict[str, Any] = {}
    renders = []
    for _ in range(5):  # a change, then the first phone's ask renders the state anew
        client.request("PATCH", f"/api/games/{code}", {"locked": False}, host=True)
        started = time.perf_counter()
        state = client.get(f"/api/games/{code}")
        renders.append((time.perf_counter() - started) * 1000)
    out["state_render_ms"] = round(statistics.median(renders), 1)
    out["state_bytes"] = len(state.body)
    out["state_cached_ms"], _ = _timed(lambda: client.get(f"/api/games/{code}"))
    out["host_state_ms"], host = _timed(lambda: client.get(f"/api/games/{code}", host=True))
    out["host_state_bytes"] = len(host.body)
    out["sheet_with_place_ms"], _ = _timed(lambda: client.get(f"/api/games/{code}/sheets/{sheet['id']}",
                                                              headers=owner))
    page_number = max(1, sheets // 1000)  # a page in the middle
    path = f"/api/games/{code}/sheets?page={page_number}&per_page=500"
    out["sheets_page_500_ms"], page = _timed(lambda: client.get(path, host=True))
    out["sheets_page_500_bytes"] = len(page.body)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="example: python lab/bigroom.py --db postgresql://postgres@127.0.0.1:5433/"
                                            "bigroom --sheets 100000 --phones 200")
    parser.add_argument("--db", required=True, help="postgresql://… of a database of its own (made when missing)")
    parser.add_argument("--sheets", type=int, default=100_000, help="sheets handed in (default 100000)")
    parser.add_argument("--phones", type=int, default=200, help="phones waiting when the host corrects (default 200)")
    parser.add_argument("--out", type=Path, help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    if not 1 <= args.sheets <= 100_000 or not 1 <= args.phones <= 5000:
        parser.error("--sheets: expected 1-100000; --phones: expected 1-5000")
    _ensure_database(args.db)
    _empty(args.db)
    [served] = start_servers(args.db, 1)
    figures: dict[str, Any] = {"sheets": args.sheets}
    try:
        from lab.crowd import big_game
        from paperplay.serve.store import MAX_PLAYERS_PG

        client = Client(served.base, served.key)
        code = big_game(client, args.db, SEED, MAX_PLAYERS_PG)
        for _ in range(20):
            client.post(f"/api/games/{code}/call", host=True)
        stored = code.replace("-", "")
        figures["fill"] = fill(args.db, stored, args.sheets, SEED)
        import psycopg

        with psycopg.connect(args.db) as connection:  # a sheet in the middle of the ranking, and the best cells
            ranked = _one(connection.execute("SELECT count(*) FROM sheets WHERE game = %s AND ranked",
                                              (stored,)).fetchone())
            row = connection.execute("SELECT id, token FROM sheets WHERE game = %s AND ranked ORDER BY total DESC, id "
                                     "OFFSET %s LIMIT 1", (stored, ranked[0] // 2)).fetchone()
            row = _one(row)
            sheet = {"id": row[0], "token": row[1]}
        from paperplay.seeds import canonical_seed
        from paperplay.streams.rules import WILD, draw, tile_json

        best = [tile_json(t) for t in sorted(draw(canonical_seed(SEED)), key=lambda t: 0 if t == WILD else t)]
        figures["database"] = database_queries(args.db, stored, sheet["id"])
        figures["http"] = http_figures(served.base, served.key, code, sheet, args.sheets)
        figures["correction"] = asyncio.run(correction_reaches_phones(served.base, served.key, code, sheet, best,
                                                                      args.phones))
    finally:
        served.stop()
    text = json.dumps(figures, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
