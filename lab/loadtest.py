"""Drives a running game night server as a room of phones would: its tests and its benchmark use it.

Only the standard library (http.client and threads for a few phones, asyncio streams for a thousand):
what it measures is the server, not a client library. `python benchmarks/run.py serve` prints the
figures of `measure` and `room`.
"""

from __future__ import annotations

import functools
import http.client
import json
import os
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes
    seconds: float

    def json(self) -> Any:
        return json.loads(self.body)


class Client:
    """A client of one server (base URL); `key` is sent as the host's key when given."""

    def __init__(self, base: str, key: str | None = None, timeout: float = 60.0) -> None:
        parts = urlsplit(base)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.key = key
        self.timeout = timeout
        self.seen: list[bytes] = []
        self._lock = threading.Lock()

    def request(self, method: str, path: str, json_body: Any = None, body: bytes | None = None,
                headers: dict[str, str] | None = None, host: bool = False, chunked: bool = False) -> Answer:
        sent = dict(headers or {})
        if json_body is not None:
            body = json.dumps(json_body).encode()
            sent.setdefault("Content-Type", "application/json")
        if host and self.key is not None:
            sent["X-Paperplay-Key"] = self.key
        connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        started = time.perf_counter()
        try:
            if chunked and body is not None:
                connection.putrequest(method, path)
                for name, value in sent.items():
                    connection.putheader(name, value)
                connection.putheader("Transfer-Encoding", "chunked")
                connection.endheaders()
                try:
                    for at in range(0, len(body), 65536):
                        piece = body[at:at + 65536]
                        connection.send(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                    connection.send(b"0\r\n\r\n")
                except OSError:  # the server answered (413) and closed before the rest was sent
                    pass
            else:
                connection.request(method, path, body=body, headers=sent)
            response = connection.getresponse()
            data = response.read()
            answer = Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, data,
                            time.perf_counter() - started)
        finally:
            connection.close()
        with self._lock:
            self.seen.append(data)
        return answer

    def get(self, path: str, host: bool = False, **kw: Any) -> Answer:
        return self.request("GET", path, host=host, **kw)

    def post(self, path: str, json_body: Any = None, host: bool = False, **kw: Any) -> Answer:
        return self.request("POST", path, json_body=json_body, host=host, **kw)

    def photo(self, code: str, data: bytes, name: str | None = None, key: str | None = None) -> Answer:
        fields = {"name": name} if name is not None else {}
        body, kind = multipart(fields, {"photo": ("sheet.jpg", data, "image/jpeg")})
        headers = {"Content-Type": kind}
        if key is not None:
            headers["Idempotency-Key"] = key
        return self.request("POST", f"/api/games/{code}/sheets", body=body, headers=headers)

    def typed(self, code: str, name: str, cells: Sequence[Any], key: str | None = None) -> Answer:
        headers = {"Idempotency-Key": key} if key is not None else {}
        return self.post(f"/api/games/{code}/sheets", {"name": name, "cells": list(cells)}, headers=headers)


def multipart(fields: dict[str, str], files: dict[str, tuple[str, bytes, str]]) -> tuple[bytes, str]:
    """A multipart/form-data body and its Content-Type."""
    boundary = uuid.uuid4().hex
    parts = []
    for name, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'.encode()
                     + value.encode() + b"\r\n")
    for name, (filename, data, kind) in files.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
                     f"Content-Type: {kind}\r\n\r\n".encode() + data + b"\r\n")
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def start_server(db: Path | str, *args: str, cwd: Path | None = None, root: Path | None = None,
                 workers: bool = True) -> tuple[subprocess.Popen[bytes], str, str]:
    """Starts `paperplay serve --port 0 --db DB` as its own process (paperplay from `root`, default this
    checkout: another one measures a version from before); returns it, the base URL and the key (from its
    first line, `Host page: <url>`), once it answers (and, with `workers`, once its photo workers are up)."""
    root = root or Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    process = subprocess.Popen([sys.executable, "-m", "paperplay", "serve", "--port", "0", "--db", str(db), *args],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, env=env)
    assert process.stdout is not None
    first = process.stdout.readline().decode().strip()
    if not first.startswith("Host page: "):
        process.kill()
        raise RuntimeError(f"paperplay serve said {first!r}; stderr: {process.stderr.read().decode()[-2000:]}"
                           if process.stderr else first)
    url = first.removeprefix("Host page: ")
    base, _, key = url.partition("/host?key=")
    wait_until_up(base, workers=workers)
    return process, base, key


def wait_until_up(base: str, seconds: float = 60.0, workers: bool = True) -> None:
    """Waits until the server answers (and, with `workers`, until its photo workers have started)."""
    client = Client(base, timeout=2)
    deadline = time.monotonic() + seconds
    while True:
        try:
            answer = client.get("/api/health")
            if answer.status == 200 and (answer.json()["photo_workers_ready"] or not workers):
                return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"{base} is not up after {seconds:.0f} s")
        time.sleep(0.05)


def at_once(jobs: Sequence[Callable[[], Answer]]) -> list[Answer | BaseException]:
    """Runs the jobs in threads released together; each one's answer (or the exception it raised)."""
    gate = threading.Barrier(len(jobs))
    results: list[Answer | BaseException] = [RuntimeError("not run")] * len(jobs)

    def run(index: int) -> None:
        gate.wait()
        try:
            results[index] = jobs[index]()
        except BaseException as exc:  # noqa: BLE001 - handed back to the caller
            results[index] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(jobs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def peak_rss(pid: int) -> int:
    """The peak resident memory (bytes) of a process and its children, summed (Linux /proc)."""
    total = 0
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                total += int(line.split()[1]) * 1024
        pending += [int(c) for c in children]
    return total


def synthetic_photos(seed: str, count: int, players: int) -> list[bytes]:
    """Photos of filled-in scannable sheets 1..count of a seed's game, written as drawn (needs the scan
    extra, pypdfium2 and a handwriting font)."""
    import numpy as np

    from lab.synth import TRAIN_FONTS, fill_sheet, font_files, make_hand, photograph, rendered_page
    from paperplay.seeds import full_code
    from paperplay.streams.rules import draw
    from paperplay.streams.scansheet import layout

    fonts = font_files(TRAIN_FONTS)
    photos = []
    for sheet in range(1, count + 1):
        rng = np.random.default_rng([35, sheet])
        hand = make_hand(rng, fonts, None, font_share=1.0)
        page, _ = fill_sheet(rendered_page("a4", full_code("streams", seed), sheet, players), layout("a4").cells,
                             list(draw(seed)), hand, rng)
        photos.append(photograph(page, rng)[0])
    return photos


def startup_times(root: Path | None = None, repeat: int = 5) -> dict[str, float]:
    """Median whole-process seconds of `paperplay serve --help` and of `paperplay serve` (SQLite, the laptop
    evening) from its start to its first line, paperplay from `root` (default this checkout: another one
    measures a version from before)."""
    import signal
    import tempfile

    root = root or Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    helps, firsts = [], []
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(repeat):
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "paperplay", "serve", "--help"], check=True, capture_output=True,
                           env=env)
            helps.append(time.perf_counter() - started)
            started = time.perf_counter()
            process = subprocess.Popen([sys.executable, "-m", "paperplay", "serve", "--port", "0", "--db",
                                        str(Path(folder) / "games.db")], stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, env=env)
            assert process.stdout is not None
            first = process.stdout.readline().decode()
            firsts.append(time.perf_counter() - started)
            process.send_signal(signal.SIGINT)
            process.communicate(timeout=30)
            if not first.startswith("Host page: "):
                raise RuntimeError(f"paperplay serve said {first!r}")
    return {"help": statistics.median(helps), "first_line": statistics.median(firsts)}


def figures(seconds: Sequence[float]) -> str:
    ordered = sorted(seconds)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return (f"p50 {statistics.median(ordered) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, "
            f"max {ordered[-1] * 1000:.0f} ms")


def measure(base: str, key: str, pid: int | None, typed: int = 30, photos: Sequence[bytes] = (),
            seed: str = "LOADTEST") -> dict[str, Any]:
    """Plays the two bursts against a server once every tile is called (hand-ins open after the last
    tile): `typed` phones handing in typed sheets at once, then the photos at once while the host calls
    the tiles of other games every 100 ms. Returns the latencies (seconds)."""
    from paperplay.seeds import game_code
    from paperplay.streams.rules import draw, tile_json

    client = Client(base, key)
    players = max(typed + len(photos), 1)  # a game takes at most its number of players' sheets
    created = client.post("/api/games", {"players": players, "seed": seed}, host=True)
    if created.status != 201:
        raise RuntimeError(f"creating the game: {created.status} {created.body[:200]!r}")
    code = created.json()["code"]
    assert code.replace("-", "") == game_code("streams", seed)
    tiles = [tile_json(t) for t in draw(seed)]
    for _ in tiles:
        client.post(f"/api/games/{code}/call", host=True)
    out: dict[str, Any] = {"typed": [], "photos": [], "calls": [], "statuses": [], "queued": [], "read": []}
    if typed:
        answers = at_once([functools.partial(client.typed, code, f"phone {i}", tiles) for i in range(typed)])
        for answer in answers:
            if isinstance(answer, BaseException):
                raise answer
            out["statuses"].append(answer.status)
            out["typed"].append(answer.seconds)
    if photos:
        stop = threading.Event()

        def host_calls() -> None:
            """The host calls the next tile of another game every 100 ms as long as the burst lasts (a new
            game when one has all its tiles called)."""
            while not stop.is_set():
                other = client.post("/api/games", {"players": 1}, host=True).json()["code"]
                for turn in range(1, len(tiles) + 1):
                    if stop.is_set():
                        return
                    answer = client.post(f"/api/games/{other}/call", {"turn": turn}, host=True)
                    if answer.status != 200:
                        raise RuntimeError(f"calling a tile: {answer.status} {answer.body[:200]!r}")
                    out["calls"].append(answer.seconds)
                    stop.wait(0.1)

        caller = threading.Thread(target=host_calls)
        caller.start()
        try:
            answers = at_once([functools.partial(client.photo, code, data) for data in photos])
        finally:
            stop.set()
            caller.join()
        for answer in answers:
            if isinstance(answer, BaseException):
                raise answer
            out["statuses"].append(answer.status)
            out["photos"].append(answer.seconds)
            timing = dict(part.split(";dur=") for part in answer.headers.get("server-timing", "").split(", ") if part)
            out["queued"].append(float(timing.get("queue", "nan")) / 1000)
            out["read"].append(float(timing.get("read", "nan")) / 1000)
    out["code"] = code
    out["peak_rss"] = peak_rss(pid) if pid is not None else None
    return out


# --- a room of a thousand phones (asyncio streams: one connection each, no thread each) --------------

async def fetch(base: str, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None,
                timeout: float = 60.0) -> Answer:
    """One request on its own connection (Connection: close), answered or raising OSError/TimeoutError."""
    import asyncio

    parts = urlsplit(base)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    started = time.perf_counter()
    reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
    try:
        lines = [f"{method} {path} HTTP/1.1", f"Host: {host}:{port}", "Connection: close"]
        lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
        if body or method in ("POST", "PUT", "PATCH"):
            lines.append(f"Content-Length: {len(body)}")
        data = await asyncio.wait_for(_exchange(reader, writer, ("\r\n".join(lines) + "\r\n\r\n").encode() + body),
                                      timeout)
    finally:
        writer.close()
    return parse_answer(data, time.perf_counter() - started)


async def _exchange(reader: Any, writer: Any, request: bytes) -> bytes:
    """Sends the request while reading the answer (a server may answer, 503 or 413, and close before the
    body is all sent: its answer is read before the connection is reset)."""
    import asyncio

    async def sending() -> None:
        try:
            for at in range(0, len(request), 65536):
                writer.write(request[at:at + 65536])
                await writer.drain()
        except OSError:
            pass

    sender = asyncio.create_task(sending())
    data = b""
    try:
        while chunk := await reader.read(65536):
            data += chunk
    except OSError:
        if not data:
            raise
    await sender
    return data


def parse_answer(data: bytes, seconds: float) -> Answer:
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    if not lines[0].startswith("HTTP/"):
        raise OSError(f"no HTTP answer: {data[:80]!r}")
    fields = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
    return Answer(int(lines[0].split(" ")[1]), {k.lower(): v for k, v in fields.items()}, body, seconds)


async def _waiting(client: Client, base: str, code: str, count: int, seconds: float = 60.0) -> int:
    """Waits until the server holds `count` waiting phones (its health says so), or `seconds` pass; the
    count it holds (a server that does not say: the count assumed once the phones have sent)."""
    import asyncio

    deadline = time.monotonic() + seconds
    held = 0
    while time.monotonic() < deadline:
        answer = await fetch(base, "GET", "/api/health")
        if answer.status != 200:  # a server from before, full (it answered 503 past 400 connections)
            await asyncio.sleep(0.5)
            continue
        held = answer.json().get("phones_waiting", -1)
        if held < 0:  # a server from before: give its connections a moment to arrive
            await asyncio.sleep(3)
            return count
        if held >= count:
            return int(held)
        await asyncio.sleep(0.1)
    return int(held)


async def phones_waiting(base: str, key: str, phones: int = 1000, others: int = 20) -> dict[str, Any]:
    """`phones` phones wait on `GET /api/games/{code}?wait=V` at once; the host calls the next tile.
    Returns when each had it (seconds after the call), their statuses, and the latencies of `others`
    other requests (the host's page's state) made while the phones wait and the tile goes out."""
    import asyncio

    client = Client(base, key)
    created = client.post("/api/games", {"players": 2}, host=True)
    code = created.json()["code"]
    client.post(f"/api/games/{code}/call", host=True)
    version = client.get(f"/api/games/{code}").json()["version"]
    called: list[float] = []

    async def phone() -> tuple[int, float, int | None]:
        try:
            answer = await fetch(base, "GET", f"/api/games/{code}?wait={version}", timeout=120)
        except (OSError, TimeoutError):
            return 0, time.perf_counter(), None
        turn = answer.json().get("turn") if answer.status == 200 else None
        return answer.status, time.perf_counter(), turn

    async def other() -> float:
        answer = await fetch(base, "GET", "/api/games", headers={"X-Paperplay-Key": key})
        if answer.status != 200:
            raise RuntimeError(f"the host's list of games: {answer.status} {answer.body[:200]!r}")
        return answer.seconds

    tasks = [asyncio.create_task(phone()) for _ in range(phones)]
    held = await _waiting(client, base, code, phones)
    meanwhile = [await other() for _ in range(others // 2)]
    started = time.perf_counter()
    call = await fetch(base, "POST", f"/api/games/{code}/call", headers={"X-Paperplay-Key": key})
    called.append(call.seconds)
    meanwhile += await asyncio.gather(*(other() for _ in range(others - others // 2)))
    answers = await asyncio.gather(*tasks)
    got = [at - started for status, at, turn in answers if status == 200 and turn == 2]
    return {"phones": phones, "held": held, "got": len(got), "all_within": max(got) if got else float("nan"),
            "seconds": got, "statuses": sorted({status for status, _, _ in answers}), "others": meanwhile,
            "call": call.seconds}


async def typed_burst(base: str, key: str, count: int = 200, seed: str | None = None) -> dict[str, Any]:
    """`count` phones hand in typed sheets at once, after the last tile (hand-ins open then), in a new game
    (of `seed`, default a fresh one)."""
    import asyncio

    from paperplay.seeds import generate_seed
    from paperplay.streams.rules import draw, tile_json

    seed = seed or generate_seed()
    client = Client(base, key)
    created = client.post("/api/games", {"players": count, "seed": seed}, host=True)
    if created.status != 201:
        raise RuntimeError(f"creating the game: {created.status} {created.body[:200]!r}")
    code = created.json()["code"]
    tiles = [tile_json(t) for t in draw(seed)]
    for _ in tiles:
        client.post(f"/api/games/{code}/call", host=True)

    async def hand_in(index: int) -> Answer:
        body = json.dumps({"name": f"phone {index}", "cells": tiles}).encode()
        return await fetch(base, "POST", f"/api/games/{code}/sheets", body,
                           {"Content-Type": "application/json", "Idempotency-Key": f"typed-burst-{index:04d}"})

    answers = await asyncio.gather(*(hand_in(i) for i in range(count)))
    return {"seconds": [a.seconds for a in answers], "statuses": [a.status for a in answers]}


async def trickled_photo(base: str, key: str, photo: bytes, trickles: int = 16, seed: str = "LOADTEST",
                         players: int = 30) -> dict[str, Any]:
    """`trickles` uploads arrive a byte a second (each says it is 5 MB) while a real photo is handed in:
    the photo's answer and seconds, and how each trickle ended (its status, 0: still open when closed)."""
    import asyncio

    client = Client(base, key)
    created = client.post("/api/games", {"players": players, "seed": seed}, host=True)
    code = created.json()["code"] if created.status == 201 else display_of(seed)
    for _ in range(20):
        client.post(f"/api/games/{code}/call", host=True)
    parts = urlsplit(base)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    stop = asyncio.Event()

    async def trickle() -> int:
        reader, writer = await asyncio.open_connection(host, port)
        try:
            writer.write((f"POST /api/games/{code}/sheets HTTP/1.1\r\nHost: {host}:{port}\r\n"
                          "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 5000000\r\n\r\n"
                          "--b\r\n").encode())
            await writer.drain()
            while not stop.is_set():
                writer.write(b"x")
                await writer.drain()
                try:
                    data = await asyncio.wait_for(reader.read(65536), 1.0)
                except TimeoutError:
                    continue
                return parse_answer(data, 0).status if data else 0
            return 0
        except OSError:
            return 0
        finally:
            writer.close()

    tasks = [asyncio.create_task(trickle()) for _ in range(trickles)]
    await asyncio.sleep(2)
    body, kind = multipart({}, {"photo": ("sheet.jpg", photo, "image/jpeg")})
    answer = await fetch(base, "POST", f"/api/games/{code}/sheets", body, {"Content-Type": kind})
    stop.set()
    ended = await asyncio.gather(*tasks)
    return {"status": answer.status, "seconds": answer.seconds, "error": answer.body[:200] if answer.status >= 300
            else b"", "trickles": ended}


def display_of(seed: str) -> str:
    from paperplay.seeds import display_code, game_code

    return display_code(game_code("streams", seed))


def room(base: str, key: str, pid: int | None, phones: int = 1000, typed: int = 200,
         photo: bytes | None = None, photo_seed: str = "LOADTEST") -> dict[str, Any]:
    """The room's figures: `phones` waiting phones, `typed` typed hand-ins at once, a photo (a sheet of
    game `photo_seed`, not handed in yet) while 16 uploads trickle in, and the server's peak memory."""
    import asyncio

    from paperplay.serve.live import raise_open_files

    raise_open_files()
    out: dict[str, Any] = {"waiting": asyncio.run(phones_waiting(base, key, phones)),
                           "typed": asyncio.run(typed_burst(base, key, typed))}
    if photo is not None:
        out["trickled"] = asyncio.run(trickled_photo(base, key, photo, seed=photo_seed))
    out["peak_rss"] = peak_rss(pid) if pid is not None else None
    return out


def percentile(seconds: Sequence[float], share: float) -> float:
    ordered = sorted(seconds)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def room_lines(crowd: dict[str, Any]) -> list[str]:
    """The room's figures as `python benchmarks/run.py serve` prints them."""
    waiting, typed = crowd["waiting"], crowd["typed"]
    lines = [f"  {waiting['phones']:,} phones waiting (?wait=)    {waiting['got']:,} had the next tile within "
             f"{waiting['all_within']:.2f} s of the call (statuses {waiting['statuses']}; target: all within 2 s)",
             f"    the host's list of games meanwhile {figures(waiting['others'])}",
             f"  {len(typed['seconds'])} typed sheets at once        "
             f"p50 {percentile(typed['seconds'], 0.5) * 1000:.0f} ms, "
             f"p99 {percentile(typed['seconds'], 0.99) * 1000:.0f} ms (statuses {sorted(set(typed['statuses']))})"]
    if "trickled" in crowd:
        trickled = crowd["trickled"]
        lines.append(f"  a photo while 16 uploads trickle  {trickled['status']} in {trickled['seconds'] * 1000:.0f} ms "
                     "(target: read, 201)")
    if crowd.get("peak_rss"):
        lines.append(f"  peak RSS, server and workers    {crowd['peak_rss'] / 2**20:.0f} MB (the room's server)")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Plays a room against a running server: python -m lab.loadtest --help."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m lab.loadtest", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Plays a room of phones against a running `paperplay serve`, in new games of its own: "
                    "phones waiting for the next tile (each its own connection), then typed hand-ins at once. "
                    "It prints when every phone had the tile and the hand-ins' p50/p99.",
        epilog="examples:\n"
               "  python -m lab.loadtest 'http://127.0.0.1:8000/host?key=KEY'\n"
               "  python -m lab.loadtest 'http://192.168.1.20:8000/host?key=KEY' --phones 300 --typed 50\n"
               "(the link is the host page's, as paperplay serve printed it; run it on a test database, not "
               "on the evening's: it adds games)")
    parser.add_argument("link", help="the host page's link, http://HOST:PORT/host?key=KEY")
    parser.add_argument("--phones", type=int, default=1000, help="phones waiting at once (default 1000)")
    parser.add_argument("--typed", type=int, default=200, help="typed hand-ins at once, 1-200 (default 200)")
    args = parser.parse_args(argv)
    parts = urlsplit(args.link)
    key = dict(p.partition("=")[::2] for p in parts.query.split("&")).get("key", "")
    if parts.scheme != "http" or not parts.hostname or not key:
        parser.error(f"link: is {args.link!r}; expected the host page's link, http://HOST:PORT/host?key=KEY")
    if not 1 <= args.phones <= 20000:
        parser.error(f"--phones: is {args.phones}; expected 1-20000")
    if not 1 <= args.typed <= 200:
        parser.error(f"--typed: is {args.typed}; expected 1-200 (a game's most players)")
    base = f"http://{parts.netloc}"
    try:
        wait_until_up(base, seconds=5, workers=False)
        crowd = room(base, key, None, phones=args.phones, typed=args.typed)
    except (OSError, TimeoutError, RuntimeError) as exc:
        print(f"lab.loadtest: {base}: {exc}", file=sys.stderr)
        return 1
    print("\n".join(room_lines(crowd)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
