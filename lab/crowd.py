"""Drives several `paperplay serve --db postgresql://…` processes and `paperplay worker` processes as a big room
would: thousands of phones waiting across the servers, a minute of typed hand-ins, photos queued for the
workers, and a server or a worker killed (kill -9) in the middle. `python benchmarks/run.py serve-pg` prints
its figures; tests/test_multiprocess.py plays a smaller room with the same functions.

Only the standard library on the client side (asyncio streams, lab.loadtest's `fetch`: one connection a
phone); psycopg (the serve-pg extra) to look into the database afterwards.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from lab.loadtest import Answer, fetch, percentile, start_server

ROOT = Path(__file__).resolve().parents[1]
WORKER = ("--concurrency", "1")
"""A measured worker reads one photo at a time: one process, one core (its figure is a core's)."""
RETRYABLE = (0, 429, 502, 503, 504)
"""Answers after which a phone sends the same hand-in again (with its idempotency key): none (the connection
failed or the server died under it), too many, a server busy or gone."""


@dataclass
class Served:
    """One `paperplay serve` process: its base URL and the host's key."""

    process: subprocess.Popen[bytes]
    base: str
    key: str

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> str:
        """Stops it (Ctrl-C) and returns what it wrote to stderr."""
        if self.alive():
            self.process.send_signal(signal.SIGINT)
        try:
            _, err = self.process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _, err = self.process.communicate(timeout=10)
        return err.decode(errors="replace")


def start_servers(url: str, count: int = 2, *args: str, root: Path | None = None) -> list[Served]:
    """Starts `count` `paperplay serve --port 0 --db URL` processes on the same database, one after the
    other (each migrates the schema under a lock; the later find it done)."""
    served = []
    for _ in range(count):
        process, base, key = start_server(url, *args, root=root, workers=False)
        served.append(Served(process, base, key))
    keys = {s.key for s in served}
    if len(keys) != 1:
        raise RuntimeError(f"the servers print different host keys: {keys}")
    return served


def start_worker(url: str, *args: str, root: Path | None = None) -> subprocess.Popen[bytes]:
    """Starts `paperplay worker --db URL` as its own process (output to a pipe it reads on exit)."""
    root = root or ROOT
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    return subprocess.Popen([sys.executable, "-m", "paperplay", "worker", "--db", url, *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)


def stop_worker(process: subprocess.Popen[bytes]) -> str:
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
    try:
        _, err = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        _, err = process.communicate(timeout=10)
    return err.decode(errors="replace")


def memory(pid: int) -> dict[str, int]:
    """A process's resident memory now and at its peak (bytes; Linux /proc)."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            out["rss" if name == "VmRSS" else "peak"] = int(value.split()[0]) * 1024
    return out


def database_connections(pid: int, port: int) -> int:
    """How many TCP connections a process holds to the database's port (Linux /proc: its sockets' inodes
    matched with /proc/net/tcp)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            remote_port = int(parts[2].rsplit(":", 1)[1], 16)
            if remote_port == port and parts[3] == "01" and parts[9] in inodes:  # 01: established
                count += 1
    return count


def db_port(url: str) -> int:
    return urlsplit(url).port or 5432


# --- phones waiting ------------------------------------------------------------------------------------

async def _poll_phone(base: str, code: str, version: int, deadline: float) -> tuple[int, float, int | None]:
    """A phone on `GET …?wait=VERSION`, asking again after each answer that has no newer version (a long poll
    ends after 25 s with the state as it is); its last status, when it had a newer version, and that turn."""
    status = 0
    while time.monotonic() < deadline:
        try:
            answer = await fetch(base, "GET", f"/api/games/{code}?wait={version}",
                                 timeout=max(1.0, deadline - time.monotonic()))
        except (OSError, TimeoutError):
            status = 0
            await asyncio.sleep(0.5)
            continue
        status = answer.status
        if status == 200:
            state = answer.json()
            if state["version"] != version:
                return status, time.perf_counter(), state.get("turn")
        else:
            await asyncio.sleep(0.5)
    return status, time.perf_counter(), None


async def _sse_phone(base: str, code: str, version: int, deadline: float) -> tuple[int, float, int | None]:
    """A phone on `GET …/events` (server-sent events): when the first state newer than `version` arrived."""
    parts = urlsplit(base)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    while time.monotonic() < deadline:
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), 30)
        except (OSError, TimeoutError):
            await asyncio.sleep(0.5)
            continue
        try:
            writer.write(f"GET /api/games/{code}/events HTTP/1.1\r\nHost: {host}:{port}\r\n"
                         "Accept: text/event-stream\r\n\r\n".encode())
            await writer.drain()
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
            status = int(head.split(b" ", 2)[1])
            if status != 200:
                return status, time.perf_counter(), None
            buffer = b""
            while time.monotonic() < deadline:
                chunk = await asyncio.wait_for(reader.read(65536), max(0.1, deadline - time.monotonic()))
                if not chunk:
                    break
                buffer += chunk
                # each event's state is one `data: {…}` line (the chunks' size lines in between are not)
                lines = buffer.split(b"\n")
                buffer = lines.pop()
                for line in lines:
                    if line.startswith(b"data: "):
                        state = json.loads(line[6:])
                        if state["version"] != version:
                            return 200, time.perf_counter(), state.get("turn")
        except (OSError, TimeoutError, asyncio.IncompleteReadError, ValueError, IndexError):
            await asyncio.sleep(0.5)
        finally:
            writer.close()
    return 0, time.perf_counter(), None


async def phones_held(bases: Sequence[str], wanted: Sequence[int], seconds: float = 90.0) -> list[int]:
    """Waits until each server holds its number of waiting phones (its health says so) or `seconds` pass."""
    deadline = time.monotonic() + seconds
    held = [0] * len(bases)
    while time.monotonic() < deadline:
        for i, base in enumerate(bases):
            try:
                answer = await fetch(base, "GET", "/api/health", timeout=10)
                held[i] = int(answer.json().get("phones_waiting", 0)) if answer.status == 200 else held[i]
            except (OSError, TimeoutError, ValueError):
                pass
        if all(h >= w for h, w in zip(held, wanted, strict=True)):
            break
        await asyncio.sleep(0.2)
    return held


async def crowd_waits(bases: Sequence[str], key: str, code: str, phones: int, sse_every: int = 5,
                      call_through: int = 0, pids: Sequence[int] = (), seconds: float = 60.0) -> dict[str, Any]:
    """`phones` phones wait for the next tile of game `code`, split evenly over the servers (every
    `sse_every`-th on server-sent events, the others on `?wait=`); the host calls the tile through server
    `call_through`. Returns how long after the call each phone had it, per server too, and the servers'
    memory before and with the phones held."""
    from paperplay.serve.live import raise_open_files

    raise_open_files()
    first = await fetch(bases[0], "GET", f"/api/games/{code}")
    state = first.json()
    version, turn = state["version"], state["turn"]
    before = [memory(pid) for pid in pids]
    deadline = time.monotonic() + 120 + seconds
    tasks: list[asyncio.Task[tuple[int, float, int | None]]] = []
    where: list[int] = []
    for i in range(phones):
        server = i % len(bases)
        phone = _sse_phone if sse_every and i % sse_every == sse_every - 1 else _poll_phone
        tasks.append(asyncio.create_task(phone(bases[server], code, version, deadline)))
        where.append(server)
        if i % 200 == 199:
            await asyncio.sleep(0.05)  # a room arrives over seconds, not in one instant
    wanted = [where.count(s) for s in range(len(bases))]
    held = await phones_held(bases, wanted)
    held_memory = [memory(pid) for pid in pids]
    started = time.perf_counter()
    call = await fetch(bases[call_through], "POST", f"/api/games/{code}/call", headers={"X-Paperplay-Key": key})
    if call.status != 200:
        raise RuntimeError(f"calling the tile: {call.status} {call.body[:200]!r}")
    answers = await asyncio.gather(*tasks)
    after = [memory(pid) for pid in pids]
    got = [(at - started, server) for (status, at, got_turn), server in zip(answers, where, strict=True)
           if status == 200 and got_turn == turn + 1]
    seconds_all = [s for s, _ in got]
    return {"phones": phones, "held": held, "wanted": wanted, "got": len(got), "call_ms": call.seconds * 1000,
            "sse": sum(1 for i in range(phones) if sse_every and i % sse_every == sse_every - 1),
            "max": max(seconds_all) if seconds_all else float("nan"),
            "p99": percentile(seconds_all, 0.99) if seconds_all else float("nan"),
            "p50": percentile(seconds_all, 0.5) if seconds_all else float("nan"),
            "by_server": [{"phones": wanted[s], "got": sum(1 for _, w in got if w == s),
                           "max": max((x for x, w in got if w == s), default=float("nan"))}
                          for s in range(len(bases))],
            "statuses": sorted({status for status, _, _ in answers}),
            "memory_before": before, "memory_held": held_memory, "memory_after": after}


# --- typed hand-ins ------------------------------------------------------------------------------------

@dataclass
class HandIns:
    """What the phones handing in were told: each phone's sheet id once acknowledged, and every answer's
    latency (seconds, from its first try to its acknowledgement, retries included)."""

    acknowledged: dict[int, int] = field(default_factory=dict)
    seconds: list[float] = field(default_factory=list)
    tries: dict[int, int] = field(default_factory=dict)
    statuses: dict[int, int] = field(default_factory=dict)
    calls: list[float] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)


async def hand_in_typed(bases: Callable[[], Sequence[str]], code: str, phone: int, cells: Sequence[Any],
                        out: HandIns, prefer: int, give_up: float = 120.0, name: str = "phone") -> None:
    """One phone hands in its typed sheet by name with its idempotency key, to server `prefer` while it
    lives (else to another, as a proxy does), trying again after a failed connection or a busy answer."""
    body = json.dumps({"name": f"{name} {phone}", "cells": list(cells)}).encode()
    headers = {"Content-Type": "application/json", "Idempotency-Key": f"{name}-{phone:06d}-typed"}
    started = time.perf_counter()
    tries = 0
    while time.perf_counter() - started < give_up:
        live = bases()
        base = live[(prefer + tries) % len(live)]
        tries += 1
        try:
            answer = await fetch(base, "POST", f"/api/games/{code}/sheets", body, headers, timeout=30)
        except (OSError, TimeoutError, asyncio.IncompleteReadError):
            answer = Answer(0, {}, b"", 0.0)
        out.statuses[answer.status] = out.statuses.get(answer.status, 0) + 1
        if answer.status in (200, 201):
            out.acknowledged[phone] = int(answer.json()["id"])
            out.seconds.append(time.perf_counter() - started)
            out.tries[phone] = tries
            return
        if answer.status not in RETRYABLE:
            raise RuntimeError(f"phone {phone}: {answer.status} {answer.body[:300]!r}")
        wait = float(answer.headers.get("retry-after", "0.5") or 0.5) if answer.status else 0.2
        await asyncio.sleep(min(wait, 5.0) * (0.5 + random.random()))
    out.failed.append(phone)


async def host_calls(base: str, key: str, out: HandIns, stop: asyncio.Event, every: float = 0.25) -> None:
    """The host calls the next tile of games of their own every `every` seconds while `stop` is not set."""
    while not stop.is_set():
        created = await fetch(base, "POST", "/api/games", json.dumps({"players": 2}).encode(),
                              {"Content-Type": "application/json", "X-Paperplay-Key": key})
        if created.status != 201:
            raise RuntimeError(f"the host's new game: {created.status} {created.body[:200]!r}")
        other = created.json()["code"]
        for _ in range(20):
            if stop.is_set():
                return
            answer = await fetch(base, "POST", f"/api/games/{other}/call", headers={"X-Paperplay-Key": key})
            if answer.status != 200:
                raise RuntimeError(f"the host's next tile: {answer.status} {answer.body[:200]!r}")
            out.calls.append(answer.seconds)
            try:
                await asyncio.wait_for(stop.wait(), every)
            except TimeoutError:
                pass


async def typed_minute(servers: Sequence[Served], code: str, cells: Sequence[Any], count: int, seconds: float,
                       kill_at: float | None = None, call_through: int = 0, name: str = "phone") -> HandIns:
    """`count` phones hand in typed sheets, arriving evenly over `seconds` and split over the servers, while
    the host calls tiles through server `call_through` every quarter second. With `kill_at` (a share of
    the phones, e.g. 0.5), the last server is killed (kill -9) when that share has been sent: its phones
    are refused, and send their sheet again to the next server (as a proxy's next upstream)."""
    from paperplay.serve.live import raise_open_files

    raise_open_files()
    out = HandIns()
    killed: list[Served] = []

    def bases() -> list[str]:  # a killed server stays listed: its phones learn it by failing, as a proxy does
        return [s.base for s in servers]

    stop = asyncio.Event()
    caller = asyncio.create_task(host_calls(servers[call_through].base, servers[call_through].key, out, stop))
    started = time.perf_counter()
    tasks = []
    for phone in range(count):
        due = started + seconds * phone / count
        await asyncio.sleep(max(0.0, due - time.perf_counter()))
        if kill_at is not None and not killed and phone >= kill_at * count:
            servers[-1].process.kill()
            killed.append(servers[-1])
        tasks.append(asyncio.create_task(hand_in_typed(bases, code, phone, cells, out, phone % len(servers),
                                                       name=name)))
    await asyncio.gather(*tasks)
    stop.set()
    await caller
    if killed:
        killed[0].process.communicate(timeout=10)
    return out


async def typed_flood(servers: Sequence[Served], code: str, cells: Sequence[Any], count: int, in_flight: int = 100,
                      name: str = "flood") -> tuple[HandIns, float]:
    """`count` phones hand in typed sheets as fast as the servers take them, `in_flight` at a time split over
    the servers: what they were told, and the sheets stored a second."""
    from paperplay.serve.live import raise_open_files

    raise_open_files()
    out = HandIns()
    gate = asyncio.Semaphore(in_flight)
    bases = [s.base for s in servers]

    async def one(phone: int) -> None:
        async with gate:
            await hand_in_typed(lambda: bases, code, phone, cells, out, phone % len(bases), name=name)

    started = time.perf_counter()
    await asyncio.gather(*(one(phone) for phone in range(count)))
    return out, len(out.acknowledged) / (time.perf_counter() - started)


# --- photos --------------------------------------------------------------------------------------------

def cached_photos(seed: str, count: int, players: int, folder: Path) -> list[bytes]:
    """Photos of scannable sheets 1..count of a seed's game (lab.loadtest.synthetic_photos), kept in `folder`
    so that the next run does not draw them again (about 0.4 s a photo)."""
    from lab.loadtest import synthetic_photos

    kept = folder / f"{seed}-{players}"
    if kept.is_dir() and len(list(kept.glob("*.jpg"))) >= count:
        return [(kept / f"{n:04d}.jpg").read_bytes() for n in range(1, count + 1)]
    photos = synthetic_photos(seed, count, players)
    kept.mkdir(parents=True, exist_ok=True)
    for n, data in enumerate(photos, start=1):
        (kept / f"{n:04d}.jpg").write_bytes(data)
    return photos


async def upload_photos(bases: Sequence[str], code: str, photos: Sequence[bytes], tag: str) -> list[Answer]:
    """Every photo handed in at once (split over the servers), each with its idempotency key."""
    from lab.loadtest import multipart

    async def one(i: int, data: bytes) -> Answer:
        body, kind = multipart({}, {"photo": ("sheet.jpg", data, "image/jpeg")})
        headers = {"Content-Type": kind, "Idempotency-Key": f"{tag}-photo-{i:05d}"}
        for _ in range(20):
            try:
                answer = await fetch(bases[i % len(bases)], "POST", f"/api/games/{code}/sheets", body, headers,
                                     timeout=60)
            except (OSError, TimeoutError):
                await asyncio.sleep(0.5)
                continue
            if answer.status not in RETRYABLE:
                return answer
            await asyncio.sleep(float(answer.headers.get("retry-after", "1") or 1))
        return answer

    return list(await asyncio.gather(*(one(i, data) for i, data in enumerate(photos))))


def answers_json(answers: Sequence[Answer]) -> list[dict[str, Any]]:
    return [a.json() for a in answers]


# --- looking at what was stored -------------------------------------------------------------------------

def all_sheets(base: str, key: str, code: str) -> list[dict[str, Any]]:
    """Every sheet of a game as the host's list shows it, page after page (a big game's list is paged)."""
    from lab.loadtest import Client
    from paperplay.serve.ranking import MAX_PER_PAGE

    client = Client(base, key, timeout=120)
    sheets: list[dict[str, Any]] = []
    page = 1
    while True:
        answer = client.get(f"/api/games/{code}/sheets?page={page}&per_page={MAX_PER_PAGE}", host=True)
        if answer.status != 200:
            raise RuntimeError(f"the host's list of sheets: {answer.status} {answer.body[:200]!r}")
        found = answer.json()
        sheets += found["sheets"]
        if not found["sheets"] or len(sheets) >= int(found.get("of", len(sheets))):
            return sheets
        page += 1


def stored_once(sheets: Sequence[dict[str, Any]], acknowledged: dict[int, int], name: str = "phone") -> dict[str, Any]:
    """Whether every acknowledged hand-in is stored, under the id it was answered with, and none twice."""
    by_name: dict[str, list[int]] = {}
    for sheet in sheets:
        by_name.setdefault(sheet["name"], []).append(int(sheet["id"]))
    twice = sorted(n for n, ids in by_name.items() if len(ids) > 1)
    lost = sorted(p for p, sheet_id in acknowledged.items() if by_name.get(f"{name} {p}") != [sheet_id])
    return {"acknowledged": len(acknowledged), "stored": len(sheets), "twice": twice, "lost": lost,
            "ok": not twice and not lost}


def database_size(url: str) -> int:
    """Bytes of every table of the database's public schema, with its indexes and TOAST."""
    import psycopg

    with psycopg.connect(url) as connection:
        row = connection.execute(
            "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r'").fetchone()
    return int(row[0]) if row else 0


def vacuumed(url: str) -> None:
    """VACUUM FULL: the tables rewritten, so that the sizes measured after it are what they hold (not the room
    deleted rows, such as the photos once read, leave behind)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("VACUUM FULL")


def big_game(client: Any, url: str, seed: str, players: int) -> str:
    """A new game of `seed` for `players` players: asked for as such, or, where the server takes fewer (a
    version from before big games), made with its most and raised in the database."""
    created = client.post("/api/games", {"players": players, "seed": seed}, host=True)
    if created.status == 201:
        return str(created.json()["code"])
    made = client.post("/api/games", {"players": 200, "seed": seed}, host=True)
    if made.status != 201:
        raise RuntimeError(f"creating the game: {created.status} {created.body[:200]!r}")
    code = str(made.json()["code"])
    import psycopg

    with psycopg.connect(url) as connection:
        changed = connection.execute("UPDATE games SET players = %s WHERE code IN (%s, %s)",
                                     (players, code, code.replace("-", ""))).rowcount
    if changed != 1:
        raise RuntimeError(f"raising game {code}'s players in the database changed {changed} rows")
    return code


async def photos_read(base: str, key: str, code: str, count: int, seconds: float = 600.0,
                      on_progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Waits until `count` photo sheets of the game are read (none "reading"; a refused photo leaves the list);
    when each was seen read (seconds from the call), sampled every 0.2 s."""
    started = time.perf_counter()
    seen: dict[int, float] = {}
    listed = 0
    while time.perf_counter() - started < seconds:
        listed_now = await asyncio.to_thread(all_sheets, base, key, code)
        sheets = [s for s in listed_now if s.get("kind") == "photo"]
        listed = len(sheets)
        now = time.perf_counter() - started
        for sheet in sheets:
            if sheet.get("state", "read") != "reading" and sheet["id"] not in seen:
                seen[sheet["id"]] = now
        if on_progress is not None:
            on_progress(len(seen))
        if len(seen) >= count or (listed == len(seen) and listed < count and now > 5):
            break
        await asyncio.sleep(0.2)
    times = sorted(seen.values())
    return {"read": len(seen), "listed": listed, "seconds": times[-1] if times else float("nan"),
            "first": times[0] if times else float("nan"), "times": times}


# --- the whole benchmark ----------------------------------------------------------------------------------

def _drain(url: str, served: Served, code: str, photos: Sequence[bytes], workers: int, tag: str,
           kill_after: int | None = None) -> dict[str, Any]:
    """Hands in the photos at once with no worker running (all queued), then starts `workers` photo workers
    and waits until every photo is read. With `kill_after`, one worker is killed (kill -9) once that many are
    read, and a new one started in its place (as systemd's Restart= would)."""
    vacuumed(url)
    size_before = database_size(url)
    answers = asyncio.run(upload_photos([served.base], code, photos, tag))
    size_queued = database_size(url)
    statuses: dict[int, int] = {}
    for answer in answers:
        statuses[answer.status] = statuses.get(answer.status, 0) + 1
    queued = {int(a.json()["id"]) for a in answers if a.status in (200, 202)}
    started = time.perf_counter()
    running = [start_worker(url, *WORKER) for _ in range(workers)]
    killed: list[int] = []

    worker_connections = [0]
    port = db_port(url)

    def progress(read: int) -> None:
        for worker in running:
            try:
                worker_connections[0] = max(worker_connections[0], database_connections(worker.pid, port))
            except OSError:
                pass
        if kill_after is not None and not killed and read >= kill_after:
            running[0].kill()
            running[0].communicate(timeout=10)
            killed.append(read)
            running[0] = start_worker(url, *WORKER)

    try:
        done = asyncio.run(photos_read(served.base, served.key, code, len(queued), on_progress=progress))
    finally:
        logs = [stop_worker(worker) for worker in running]
    sheets = [s for s in all_sheets(served.base, served.key, code) if s.get("kind") == "photo"]
    ids = [int(s["id"]) for s in sheets]
    printed = [s.get("printed") for s in sheets]
    tokens = {int(a.json()["id"]): a.json()["token"] for a in answers if a.status in (200, 202)}
    from lab.loadtest import Client

    looked = Client(served.base, timeout=30)
    refusals: dict[str, int] = {}
    for sheet_id in sorted(queued - set(ids)):  # a photo refused: its phone is told why
        told = looked.get(f"/api/games/{code}/sheets/{sheet_id}", headers={"X-Paperplay-Token": tokens[sheet_id]})
        reason = told.json().get("code", str(told.status)) if told.status == 200 else str(told.status)
        refusals[reason] = refusals.get(reason, 0) + 1
    vacuumed(url)
    size_after = database_size(url)
    steady = (len(done["times"]) - 1) / (done["times"][-1] - done["times"][0]) if len(done["times"]) > 1 else 0.0
    return {"photos": len(photos), "statuses": statuses, "queued": len(queued), "workers": workers,
            "read": done["read"], "seconds": done["seconds"], "first": done["first"],
            "per_second": done["read"] / done["seconds"] if done["read"] else 0.0, "steady_per_second": steady,
            "killed_after": killed[0] if killed else None,
            "stored_once": len(ids) == len(set(ids)) and len(printed) == len(set(printed)) and set(ids) <= queued,
            "stored": len(ids), "refused": len(queued) - len(ids), "refusals": refusals,
            "worker_connections": worker_connections[0],
            "database": {"before": size_before, "queued": size_queued, "after": size_after},
            "tracebacks": sum(log.count("Traceback") for log in logs), "wall": time.perf_counter() - started}


def big_room(url: str, photo_sets: dict[str, Sequence[bytes]], phones: int = 5000, typed: int = 5000,
             seconds: float = 60.0, kill_typed: int = 2000, say: Callable[[str], None] = print) -> dict[str, Any]:
    """The serve-pg benchmark on a fresh database `url`: two servers, `phones` phones waiting across them for
    the next tile, `typed` typed hand-ins over `seconds`, then `kill_typed` more with a server killed half
    way; photos (photo_sets' "one", "two", "kill": photos of sheets 1..n of seeds BENCHPGA, BENCHPGB,
    BENCHPGC in games of n players) drained by one worker, by two, and by two with one killed. Returns every
    figure (JSON-ready)."""
    from lab.loadtest import Client
    from paperplay.streams.rules import draw, tile_json

    import threading

    port = db_port(url)
    out: dict[str, Any] = {"cores": os.cpu_count(), "phones": phones, "typed": typed, "seconds": seconds}
    servers = start_servers(url, 2)
    peak_connections = [0, 0]
    sampling = threading.Event()

    def sample() -> None:  # the most connections each server held, every 0.2 s
        while not sampling.wait(0.2):
            for i, served in enumerate(servers[:2]):
                try:
                    peak_connections[i] = max(peak_connections[i], database_connections(served.pid, port))
                except OSError:
                    pass

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        a, b = servers
        client = Client(a.base, a.key, timeout=120)
        out["memory_idle"] = [memory(s.pid) for s in servers]
        out["connections_idle"] = [database_connections(s.pid, port) for s in servers]
        seed = "BENCHBIGROOM5K"
        code = big_game(client, url, seed, max(phones, typed))
        tiles = [tile_json(t) for t in draw(seed)]
        client.post(f"/api/games/{code}/call", host=True)
        say(f"  {phones:,} phones waiting across two servers …")
        out["waiting"] = asyncio.run(crowd_waits([a.base, b.base], a.key, code, phones, call_through=0,
                                                 pids=[a.pid, b.pid]))
        out["connections_waiting"] = [database_connections(s.pid, port) for s in servers]
        for _ in tiles[1:]:
            client.post(f"/api/games/{code}/call", host=True)
        vacuumed(url)
        size_before = database_size(url)
        say(f"  {typed:,} typed hand-ins over {seconds:.0f} s …")
        load_before = os.getloadavg()[0]
        hand = asyncio.run(typed_minute(servers, code, tiles, typed, seconds))
        out["typed_load_average"] = [load_before, os.getloadavg()[0]]
        out["connections_after_burst"] = [database_connections(s.pid, port) for s in servers]
        out["memory_after_burst"] = [memory(s.pid) for s in servers]
        out["hand_ins"] = {"seconds": hand.seconds, "calls": hand.calls, "statuses": hand.statuses,
                           "failed": hand.failed, "retried": sum(1 for t in hand.tries.values() if t > 1)}
        out["hand_ins"]["check"] = stored_once(all_sheets(a.base, a.key, code), hand.acknowledged)
        vacuumed(url)
        out["database"] = {"before": size_before, "after": database_size(url), "sheets": len(hand.acknowledged)}

        seed3 = "BENCHFLOODROOM"
        code3 = big_game(client, url, seed3, kill_typed)
        tiles3 = [tile_json(t) for t in draw(seed3)]
        for _ in tiles3:
            client.post(f"/api/games/{code3}/call", host=True)
        say(f"  {kill_typed:,} typed hand-ins as fast as the servers take them …")
        flood, rate = asyncio.run(typed_flood(servers, code3, tiles3, kill_typed))
        out["flood"] = {"count": len(flood.acknowledged), "per_second": rate, "seconds": flood.seconds,
                        "statuses": flood.statuses}

        seed2 = "BENCHKILLROOM2K"
        code2 = big_game(client, url, seed2, kill_typed)
        tiles2 = [tile_json(t) for t in draw(seed2)]
        for _ in tiles2:
            client.post(f"/api/games/{code2}/call", host=True)
        say(f"  {kill_typed:,} typed hand-ins, one server killed (kill -9) half way …")
        killed = asyncio.run(typed_minute(servers, code2, tiles2, kill_typed, seconds / 3, kill_at=0.5, name="kill"))
        out["kill_server"] = {"seconds": killed.seconds, "statuses": killed.statuses, "failed": killed.failed,
                              "retried": sum(1 for t in killed.tries.values() if t > 1),
                              "check": stored_once(all_sheets(a.base, a.key, code2), killed.acknowledged, "kill")}
        servers[1] = start_servers(url, 1)[0]
        out["connections_peak"] = list(peak_connections)

        for label, seed_, workers, kill_after in (("one", "BENCHPGA", 1, None), ("two", "BENCHPGB", 2, None),
                                                  ("kill", "BENCHPGC", 2, 20)):
            photos = photo_sets.get(label)
            if not photos:
                continue
            game = big_game(client, url, seed_, len(photos))
            for _ in range(20):
                client.post(f"/api/games/{game}/call", host=True)
            say(f"  {len(photos)} photos queued, {workers} worker{'s' if workers > 1 else ''}"
                f"{', one killed (kill -9)' if kill_after else ''} …")
            out[f"photos_{label}"] = _drain(url, a, game, photos, workers, f"bench-{label}", kill_after)
    finally:
        sampling.set()
        out["server_logs"] = [s.stop()[-3000:] for s in servers]
    out["tracebacks"] = sum(log.count("Traceback") for log in out["server_logs"])
    return out
