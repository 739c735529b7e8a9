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
    go to the others."""
    from paperplay.serve.live import raise_open_files

    raise_open_files()
    out = HandIns()
    killed: list[Served] = []

    def bases() -> list[str]:
        return [s.base for s in servers if s not in killed]

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
