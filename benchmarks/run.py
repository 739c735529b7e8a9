"""Prints paperplay's speed and size figures on this machine (not a test: nothing here fails).

Run: python benchmarks/run.py            (all figures; the coach group takes several minutes)
     python benchmarks/run.py streams    (only the Streams ones; also sequence, streetcar, coach, pages, serve,
                                          serve-pg: many servers on PostgreSQL, about 6 minutes)
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def whole_process(args: list[str], repeat: int = 5) -> tuple[float, int]:
    """Median wall time of a whole `python -m paperplay …` process, and the PDF's size."""
    times = []
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "out.pdf"
        for _ in range(repeat):
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "paperplay", *args, "--out", str(out), "--force"],
                           check=True, capture_output=True)
            times.append(time.perf_counter() - started)
        return statistics.median(times), out.stat().st_size


def replay_time(verify_log: Any, logs: list[dict[str, Any]]) -> tuple[float, float]:
    """Milliseconds per game to referee every log (each must be legal), and the mean turns per log."""
    verify_log(logs[0], "warm-up")
    started = time.perf_counter()
    for log in logs:
        assert verify_log(log, "bench").valid
    per = (time.perf_counter() - started) / len(logs) * 1000
    return per, sum(len(log["turns"]) for log in logs) / len(logs)


def streams() -> None:
    from paperplay.render.pdf import render_bytes
    from paperplay.seeds import shuffled
    from paperplay.streams.pages import sheets_document
    from paperplay.streams.rules import draw, score

    print("Streams")
    t8, size8 = whole_process(["sheets", "--players", "8", "--seed", "BENCH"])
    t200, size200 = whole_process(["sheets", "--players", "200", "--seed", "BENCH"], repeat=3)
    print(f"  paperplay sheets --players 8    whole process {t8:.3f} s   {size8 / 1024:.1f} KB   (target < 0.3 s)")
    print(f"  paperplay sheets --players 200  whole process {t200:.3f} s   {size200 / 1024:.1f} KB")

    # In-process render cost per page: the difference between 200 and 8 pages, over 192 pages.
    render_bytes(sheets_document("P2QPHGPH", 2))  # warm up fonts and imports
    timings = {}
    for players in (8, 200):
        doc = sheets_document("P2QPHGPH", players)
        runs = []
        for _ in range(3):
            started = time.perf_counter()
            data = render_bytes(doc)
            runs.append(time.perf_counter() - started)
        timings[players] = (min(runs), len(data))
    ms = (timings[200][0] - timings[8][0]) / 192 * 1000
    kb = (timings[200][1] - timings[8][1]) / 192 / 1024
    print(f"  each additional page            {ms:.2f} ms   {kb:.2f} KB   (targets < 2 ms, < 2 KB)")
    print(f"  whole process, per page (200)   {t200 / 200 * 1000:.2f} ms   {size200 / 200 / 1024:.2f} KB")

    sheets = [shuffled(list(draw(f"S{i}")), "bench", f"S{i}") for i in range(10_000)]
    started = time.perf_counter()
    for cells in sheets:
        score(cells)
    elapsed = time.perf_counter() - started
    print(f"  scoring 10,000 sheets           {elapsed:.3f} s   {10_000 / elapsed:,.0f} sheets/s   (target < 1 s)")


def sequence() -> None:
    from paperplay.sequence.referee import verify_log
    from paperplay.sequence.rules import best_sequences
    from paperplay.sequence.selfplay import play_game

    print("Sequence Numbers")
    crowded = [{(r, c) for r in range(10) for c in range(10) if (r * 7 + c * 3 + k) % 3 != 0} for k in range(3)]
    runs = 2000
    started = time.perf_counter()
    for i in range(runs):
        best_sequences(crowded[i % 3])
    per = (time.perf_counter() - started) / runs * 1000
    print(f"  sequence counting, crowded board   {per:.3f} ms per position   (target < 1 ms)")
    logs = [play_game(f"G{i}", players) for i, players in enumerate([2, 3, 4, 6] * 5)]
    per, turns = replay_time(verify_log, logs)
    print(f"  full game replay (avg {turns:.0f} turns)    {per:.1f} ms per game   (target < 50 ms)")
    kit, size = whole_process(["kit", "sequence", "--seed", "BENCH"], repeat=3)
    print(f"  paperplay kit sequence             whole process {kit:.3f} s   {size / 1024:.0f} KB   (target < 1.5 s)")


def streetcar() -> None:
    from paperplay.streetcar.data import route_cards
    from paperplay.streetcar.game import new_game, play_turn
    from paperplay.streetcar.referee import verify_log
    from paperplay.streetcar.route import Network, route_answer
    from paperplay.streetcar.selfplay import play_game

    print("Streetcar")
    # A crowded board: a 6-player game played to the end (116 tiles).
    log = play_game("B3", 6)
    game = new_game(log, "bench")
    for turn in log["turns"]:
        play_turn(game, turn, "bench")
    queries = [(line, stops, ordered) for card_set in (2, 3) for card in route_cards(card_set)
               for line, stops in enumerate(card, 1) for ordered in (False, True)]
    started = time.perf_counter()
    found = 0
    for line, stops, ordered in queries:
        net = Network(game.geo, game.layout, game.stop_signs)
        found += route_answer(net, line, stops, ordered).complete
    per = (time.perf_counter() - started) / len(queries) * 1000
    print(f"  route query, board of {len(game.layout)} tiles     {per:.2f} ms per query, graph built each time "
          f"({len(queries)} queries, {found} complete)   (target < 5 ms)")
    net = Network(game.geo, game.layout, game.stop_signs)
    started = time.perf_counter()
    for line, stops, ordered in queries:
        net.shortest(line, stops, ordered)
    per = (time.perf_counter() - started) / len(queries) * 1000
    print(f"  route search alone                  {per:.2f} ms per query")
    logs = [play_game(f"R{i}", 4) for i in range(8)]
    per, turns = replay_time(verify_log, logs)
    print(f"  full 4-player game replay (avg {turns:.0f} turns)   {per:.1f} ms per game   (target < 100 ms)")
    for paper in ("a4", "a3"):
        kit, size = whole_process(["kit", "streetcar", "--seed", "BENCH", "--paper", paper], repeat=3)
        print(f"  paperplay kit streetcar --paper {paper}  whole process {kit:.3f} s   {size / 1024:.0f} KB   "
              "(targets < 1.5 s, < 1 MB)")


def coach() -> None:
    from paperplay.seeds import Rng
    from paperplay.streams.coach.playout import Scorer, unseen_counts
    from paperplay.streams.coach.search import search
    from paperplay.streams.lab import paired, simulate
    from paperplay.streams.rules import standard_rules

    print("Streams coach (games drawn from seeds LABG1, LABG2, ...; mean ± standard error)")
    runs = [(["random", "proportional", "gap"], 2000, 1), (["montecarlo"], 300, 2), (["coach"], COACH_GAMES, 2)]
    results = []
    for names, games, jobs in runs:
        for summary in simulate(names, games, "LAB", jobs):
            results.append(summary)
            per_move = 1000 / summary.rate / 20  # the rate is per process (timed in the workers)
            print(f"  {summary.name:<13} {summary.games:5d} games   mean {summary.mean:6.2f} ± {summary.stderr:4.2f}   "
                  f"median {summary.median:5g}   {summary.rate:8.1f} games/s a process "
                  f"({jobs} process{'es' if jobs > 1 else ''}, {per_move:.2f} ms a move)")
    by = {s.name: s for s in results}
    short = min(by["proportional"].games, by["montecarlo"].games)
    prop = type(by["proportional"])("proportional", by["proportional"].scores[:short], 1.0)
    mc = type(by["montecarlo"])("montecarlo", by["montecarlo"].scores[:short], 1.0)
    d, e = paired(prop, mc)
    print(f"  montecarlo - proportional on the same {short} games: {d:+.2f} ± {e:.2f}")
    short = min(by["montecarlo"].games, by["coach"].games)
    mc = type(by["montecarlo"])("montecarlo", by["montecarlo"].scores[:short], 1.0)
    best = type(by["coach"])("coach", by["coach"].scores[:short], 1.0)
    d, e = paired(mc, best)
    print(f"  coach - montecarlo on the same {short} games: {d:+.2f} ± {e:.2f}")
    rules = standard_rules()
    started = time.perf_counter()
    search([-1] * 20, 11, unseen_counts(rules, [11]), Rng("bench", "B"), Scorer(rules))  # two tiles deep
    first = time.perf_counter() - started
    for tile in ("11", "17", "*"):
        empty = ["advise", "--cells", " ".join(["_"] * 20), "--tile", tile]
        advise, out = whole_process_plain(empty)
        plain, _ = whole_process_plain(empty, env={"PAPERPLAY_NO_JIT": "1"})
        tiles = out.strip().splitlines()[-1].split(" tiles placed")[0].lstrip("(")
        print(f"  paperplay advise on an empty sheet, tile {tile:>2}: {advise:.2f} s whole process "
              f"(compiled kernel if installed and repaid), {plain:.2f} s (plain Python); {tiles} tiles (target < 1 s)")
    print(f"  one search in-process, tile 11 (two tiles deep, one process): {first:.2f} s")


COACH_GAMES = 300


def whole_process_plain(args: list[str], repeat: int = 3, env: dict[str, str] | None = None) -> tuple[float, str]:
    """Median wall time of a whole `python -m paperplay …` process that writes no file."""
    times = []
    out = ""
    for _ in range(repeat):
        started = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", "paperplay", *args], check=True, capture_output=True,
                             text=True, env={**os.environ, **(env or {})}).stdout
        times.append(time.perf_counter() - started)
    return statistics.median(times), out


def pages() -> None:
    """The host's HTML pages: whole-process time and size of the caller and of 30 players' results."""
    import json
    import random

    from paperplay.streams.rules import draw, tile_json

    print("Host's pages (HTML)")
    with tempfile.TemporaryDirectory() as folder:
        tiles = list(draw("BENCH"))
        rng = random.Random(30)
        files = []
        for i in range(30):
            cells = tiles[:]
            rng.shuffle(cells)
            path = Path(folder) / f"p{i + 1:02}.json"
            path.write_text(json.dumps({"game": "streams", "seed": "BENCH", "player": f"Player {i + 1}",
                                        "cells": [tile_json(t) for t in cells]}), encoding="utf-8")
            files.append(str(path))
        for what, args in (("call streams --html", ["call", "streams", "--seed", "BENCH"]),
                           ("score 30 sheets --html", ["score", *files])):
            out = Path(folder) / "page.html"
            times = []
            for _ in range(5):
                started = time.perf_counter()
                subprocess.run([sys.executable, "-m", "paperplay", *args, "--html", str(out), "--force"],
                               check=True, capture_output=True)
                times.append(time.perf_counter() - started)
            print(f"  paperplay {what:<24} whole process {statistics.median(times):.3f} s   "
                  f"{out.stat().st_size:,} bytes   (targets < 0.5 s, < 50 KB)")


def serve() -> None:
    """The game night server under a room's load: 30 typed hand-ins at once, then 8 photos at once while
    the host calls tiles; then a room of strangers: 1,000 phones waiting for the next tile, 200 typed
    hand-ins at once, a photo while 16 uploads trickle in a byte a second (needs the serve extra,
    pypdfium2 and a handwriting font for the photos)."""
    import signal

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # lab/ (the load generator)
    from lab.loadtest import figures, measure, room, room_lines, start_server, startup_times, synthetic_photos

    print("Game night server (paperplay serve)")
    photos = synthetic_photos("LOADTEST", 8, 30)
    room_photo = synthetic_photos("LOADROOM", 1, 30)[0]
    with tempfile.TemporaryDirectory() as folder:
        process, base, key = start_server(Path(folder) / "games.db")
        try:
            result = measure(base, key, process.pid, typed=30, photos=photos)
        finally:
            process.send_signal(signal.SIGINT)
            process.communicate(timeout=30)
        load = os.getloadavg()[0]
        process, base, key = start_server(Path(folder) / "room.db")  # the room on a server of its own
        try:
            crowd = room(base, key, process.pid, phones=1000, typed=200, photo=room_photo, photo_seed="LOADROOM")
        finally:
            process.send_signal(signal.SIGINT)
            _, err = process.communicate(timeout=30)
    print(f"  30 typed sheets at once         {figures(result['typed'])}   (target: each < 1 s)")
    print(f"  8 photos at once                {figures(result['photos'])}   (target: each < 3 s)")
    print(f"    of which waiting for a worker {figures(result['queued'])}")
    print(f"    of which reading              {figures(result['read'])}")
    print(f"  host's next tile meanwhile      {figures(result['calls'])}   ({len(result['calls'])} calls; "
          "target: each < 100 ms)")
    print(f"  peak RSS, server and workers    {result['peak_rss'] / 2**20:.0f} MB   "
          f"({os.cpu_count()} cores, load average {load:.1f} at the end)")
    bad = [s for s in result["statuses"] if s != 201]
    if bad:
        print(f"  answers other than 201: {bad}")
    print("\n".join(room_lines(crowd)))
    print(f"  tracebacks in the server's log  {err.decode().count('Traceback')}")
    start = startup_times()
    print(f"  paperplay serve --help          whole process {start['help']:.3f} s")
    print(f"  paperplay serve to its first line  {start['first_line']:.3f} s (median of 5; SQLite, the laptop evening)")


def serve_pg() -> None:
    """Many servers on PostgreSQL: two `paperplay serve --db postgresql://…` processes on a database of their
    own (a throwaway cluster made with initdb, or a new database in PAPERPLAY_TEST_POSTGRES's), 5,000 phones
    waiting across them, 5,000 typed hand-ins in a minute, photos drained by one and two `paperplay worker`
    processes, kill -9 of a server and of a worker; the figures also go to build/benchmarks/serve-pg.json
    (needs the serve and serve-pg extras, PostgreSQL's server programs, and what `serve` needs for photos)."""
    import json

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # lab/ (the load generator)
    from lab.crowd import big_room, cached_photos
    from lab.pgcluster import throwaway_database

    from lab.pgcluster import ENV, server_programs

    root = Path(__file__).resolve().parents[1]
    print("Many servers on PostgreSQL (paperplay serve --db postgresql://…, paperplay worker)")
    try:
        import procrastinate  # noqa: F401
        import psycopg  # noqa: F401
    except ImportError:
        print("  left out: needs the serve-pg extra (pip install '.[serve,serve-pg]')")
        return
    if not os.environ.get(ENV) and server_programs() is None:
        print(f"  left out: needs PostgreSQL's server programs (apt-get install postgresql) or {ENV}")
        return
    folder = root / "build" / "bench-photos"  # drawn once (about 3 minutes), then read from there
    photos = {"one": cached_photos("BENCHPGA", 200, 200, folder), "two": cached_photos("BENCHPGB", 200, 200, folder),
              "kill": cached_photos("BENCHPGC", 60, 60, folder)}
    with throwaway_database() as url:
        result = big_room(url, photos)
    out = root / "build" / "benchmarks" / "serve-pg.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    print("\n".join(serve_pg_lines(result)))
    print(f"  (every figure: {out.relative_to(root)})")


def serve_pg_lines(r: dict[str, Any]) -> list[str]:
    """The serve-pg figures as a table."""
    from lab.loadtest import percentile

    def ms(seconds: float) -> str:
        return f"{seconds * 1000:,.0f} ms"

    w = r["waiting"]
    lines = [f"  {'what':<50} {'figure':<44} target",
             f"  {w['phones']:,} phones waiting, {w['wanted'][0]:,} + {w['wanted'][1]:,} on two servers "
             f"({w['sse']:,} on events)".ljust(52)
             + f" {w['got']:,} had the next tile: max {ms(w['max'])}, p99 {ms(w['p99'])}".ljust(45) + " all < 3 s"]
    for i, server in enumerate(w["by_server"]):
        lines.append(f"    on server {'AB'[i]} (tile called through A)".ljust(52)
                     + f" {server['got']:,} of {server['phones']:,}, max {ms(server['max'])}")
    hand = r["hand_ins"]
    seconds, calls = hand["seconds"], hand["calls"]
    check = hand["check"]
    lines += [f"  {len(seconds):,} typed hand-ins over {r['seconds']:.0f} s, split over both".ljust(52)
              + f" p50 {ms(percentile(seconds, 0.5))}, p99 {ms(percentile(seconds, 0.99))}, max "
                f"{ms(max(seconds))}".ljust(45) + " p99 <= 2 s",
              "    the host's next tile meanwhile".ljust(52)
              + f" p50 {ms(percentile(calls, 0.5))}, p99 {ms(percentile(calls, 0.99))}, max {ms(max(calls))}".ljust(45)
              + " each < 100 ms",
              "    stored once (every acknowledged sheet, none twice)".ljust(52)
              + f" {check['stored']:,} stored: {'yes' if check['ok'] else 'NO'}".ljust(45)
              + f" (answers {dict(sorted(hand['statuses'].items()))})"]
    flood = r["flood"]
    lines.append(f"  {flood['count']:,} typed hand-ins as fast as taken (100 at a time)".ljust(52)
                 + f" {flood['per_second']:.0f} sheets/s, p50 {ms(percentile(flood['seconds'], 0.5))}, p99 "
                   f"{ms(percentile(flood['seconds'], 0.99))}")
    kill = r["kill_server"]
    lines.append(f"  {len(kill['seconds']):,} hand-ins, server B killed (kill -9) half way".ljust(52)
                 + f" {kill['check']['stored']:,} stored once: {'yes' if kill['check']['ok'] else 'NO'}, "
                   f"{kill['retried']} sent again, p99 {ms(percentile(kill['seconds'], 0.99))}")
    for label, what in (("one", "one worker"), ("two", "two workers"), ("kill", "two workers, one killed (kill -9)")):
        p = r.get(f"photos_{label}")
        if p is None:
            continue
        lines.append(f"  {p['photos']} photos queued at once, {what}".ljust(52)
                     + f" {p['read']} read in {p['seconds']:.1f} s: {p['per_second']:.2f}/s "
                       f"({p['per_second'] / p['workers']:.2f}/s a worker)".ljust(45)
                     + f" read once: {'yes' if p['stored_once'] else 'NO'}"
                     + (f" (refused: {p['refusals']})" if p["refusals"] else ""))
    idle, held = r["memory_idle"], w["memory_held"]
    per = [(h["rss"] - i["rss"]) / max(1, n) * 1000 / 2**20 for i, h, n in zip(idle, held, w["wanted"])]
    lines += ["  server memory (RSS) idle / with its phones held".ljust(52)
              + " " + ", ".join(f"{i['rss'] / 2**20:.0f} / {h['rss'] / 2**20:.0f} MB" for i, h in zip(idle, held)),
              "    per 1,000 waiting phones".ljust(52) + " " + ", ".join(f"{p:.1f} MB" for p in per),
              "  database connections a server (idle, most held)".ljust(52)
              + " " + ", ".join(f"{a} / {b}" for a, b in zip(r["connections_idle"], r["connections_peak"])),
              "  database connections a worker (most held)".ljust(52)
              + f" {max((r[k]['worker_connections'] for k in ('photos_one', 'photos_two') if k in r), default=0)}"]
    db = r["database"]
    lines.append("  database size per 10,000 typed sheets".ljust(52)
                 + f" {(db['after'] - db['before']) / max(1, db['sheets']) * 10_000 / 2**20:.1f} MB "
                   f"({db['sheets']:,} sheets: {db['before'] / 2**20:.1f} -> {db['after'] / 2**20:.1f} MB)")
    photo = r.get("photos_two") or r.get("photos_one")
    if photo:
        d = photo["database"]
        lines.append("  database size per 10,000 photo sheets, once read".ljust(52)
                     + f" {(d['after'] - d['before']) / max(1, photo['stored']) * 10_000 / 2**20:.1f} MB "
                       f"(while queued: {(d['queued'] - d['before']) / max(1, photo['queued']) / 2**10:.0f} KB each)")
    lines.append(f"  tracebacks in the servers' logs  {r['tracebacks']}   ({r['cores']} cores, load average "
                 f"{r['typed_load_average'][1]:.1f} after the hand-ins)")
    return lines


SUITES = {"streams": streams, "sequence": sequence, "streetcar": streetcar, "coach": coach, "pages": pages,
          "serve": serve, "serve-pg": serve_pg}

if __name__ == "__main__":
    if {"-h", "--help"} & set(sys.argv[1:]):
        print(__doc__.strip())
        sys.exit(0)
    chosen = sys.argv[1:] or list(SUITES)
    unknown = [name for name in chosen if name not in SUITES]
    if unknown:
        sys.exit(f"usage: python benchmarks/run.py [{' '.join(SUITES)}]  (unknown: {' '.join(unknown)}; "
                 "no suite named runs them all)")
    for name in chosen:
        SUITES[name]()
