"""Phones that follow a game: `GET /api/games/{code}?wait=VERSION` is held until the game changes, and
`GET /api/games/{code}/events` streams each new state (server-sent events).

A room holds a thousand of them at once. Each waits on one asyncio event of its game (no thread, no
timer of its own beyond its deadline); a change wakes them all, and the game's state is rendered once
for its version, not once a phone: every phone is sent the same bytes. Past `max_waiting` phones held
at once, or `per_address` from one address (this computer's own addresses are not counted: the host's
pages, a load test), a phone is answered at once with the state as it is (it asks again: memory stays
bounded and nobody gets a 503).
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar, cast

T = TypeVar("T")

MAX_WAITING = 5000
"""Phones held at once across all games (each costs a socket and a few kilobytes)."""
MAX_WAITING_PER_ADDRESS = 50
"""Phones held at once from one address other than this computer's own (a phone has a tab or two open):
one person's thousand connections cannot take the room's places."""
HEARTBEAT = 15.0
"""Seconds between the comments that keep a quiet event stream open through proxies and phones' radios."""
STREAM_SECONDS = 600.0
"""How long one event stream lasts; the browser then opens a new one (EventSource does it by itself)."""


class Live:
    """The waiting phones of every game and the last state rendered of each."""

    def __init__(self, max_waiting: int = MAX_WAITING, per_address: int = MAX_WAITING_PER_ADDRESS) -> None:
        self.max_waiting = max_waiting
        self.per_address = per_address
        self.waiting = 0
        """Phones held now."""
        self.by_address: dict[str, int] = {}
        """Phones held now by address (loopback addresses not counted)."""
        self._events: dict[str, asyncio.Event] = {}
        self._rendered: dict[str, tuple[int, bytes]] = {}
        self._making: dict[str, asyncio.Lock] = {}
        self.renders = 0
        """States rendered so far (for the tests: once a version)."""
        self._changes: dict[str, int] = {}
        self._read: dict[str, tuple[int, Any]] = {}

    def notify(self, code: str) -> None:
        """The game changed (its change is committed): every phone waiting on it is woken."""
        self._changes[code] = self._changes.get(code, 0) + 1
        event = self._events.pop(code, None)
        if event is not None:
            event.set()

    def hold(self, address: str) -> bool:
        """Counts one more phone held from `address`; False (nothing counted) past a limit."""
        counted = bool(address) and not loopback(address)
        if self.waiting >= self.max_waiting or (counted and self.by_address.get(address, 0) >= self.per_address):
            return False
        self.waiting += 1
        if counted:
            self.by_address[address] = self.by_address.get(address, 0) + 1
        return True

    def release(self, address: str) -> None:
        self.waiting -= 1
        left = self.by_address.get(address, 0) - 1
        if left > 0:
            self.by_address[address] = left
        else:
            self.by_address.pop(address, None)

    async def wait(self, code: str, seconds: float, address: str = "") -> bool:
        """Waits until the game changes or `seconds` pass; whether it changed. The caller has read the
        version it compares with just before, with no await between (a change committed in between would
        otherwise be missed until the deadline). Returns at once past the limits of phones held."""
        if seconds <= 0 or not self.hold(address):
            return False
        event = self._events.setdefault(code, asyncio.Event())
        try:
            async with asyncio.timeout(seconds):
                await event.wait()
            return True
        except TimeoutError:
            return False
        finally:
            self.release(address)

    async def wait_for(self, code: str, changed: Callable[[], bool], seconds: float, address: str = "",
                       receive: Callable[[], Awaitable[Any]] | None = None) -> None:
        """Waits until `changed()` (read again after each change of the game) or `seconds` pass; with
        `receive` (the request's, its body read), also until the phone goes away: a phone that reloads its
        page leaves no place held for the rest of the wait (one reloading fast would fill its address's)."""
        if receive is None:
            await self._wait_for(code, changed, seconds, address)
            return
        waiting = asyncio.ensure_future(self._wait_for(code, changed, seconds, address))
        watching = asyncio.ensure_future(_gone(receive))
        try:
            await asyncio.wait((waiting, watching), return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiting.cancel()
            watching.cancel()
        if waiting.done() and not waiting.cancelled():
            waiting.result()  # what changed() raised (the game is gone), if anything

    async def _wait_for(self, code: str, changed: Callable[[], bool], seconds: float, address: str) -> None:
        deadline = time.monotonic() + seconds
        while not changed():
            if not await self.wait(code, deadline - time.monotonic(), address):
                return

    async def events(self, code: str, current: Callable[[], tuple[int, bytes]], heartbeat: float = HEARTBEAT,
                     seconds: float = STREAM_SECONDS, address: str = "") -> AsyncIterator[bytes]:
        """A game's server-sent events (text/event-stream): its state now, then each new state (an event
        `state`, its id the version, its data the state's JSON), a comment every `heartbeat` seconds, for
        `seconds`. `current()` reads the game's version and its state rendered. Past `max_waiting` phones
        held (or `per_address` from its address), the stream ends after the first state (the browser asks
        again a few seconds later)."""
        held = self.hold(address)
        try:
            yield b"retry: 3000\n\n"
            deadline = time.monotonic() + seconds
            version = -1
            while True:
                event = self._events.setdefault(code, asyncio.Event())  # before the read: no change is missed
                now, data = current()
                if now != version:
                    version = now
                    yield b"event: state\nid: %d\ndata: %s\n\n" % (version, data)
                left = deadline - time.monotonic()
                if not held or left <= 0:
                    return
                try:
                    async with asyncio.timeout(min(heartbeat, left)):
                        await event.wait()
                except TimeoutError:
                    yield b": still here\n\n"
        finally:
            if held:
                self.release(address)

    async def made_once(self, key: str, version: int, make: Callable[[], bytes]) -> bytes:
        """What `make()` gives (run on a worker thread) for a game's `version`, made once however many phones
        ask at once: the first makes it, the others wait for it (the results after the reveal, which every
        phone asks for at the same moment and which take a quarter of a second for 200 sheets)."""
        async with self._making.setdefault(key, asyncio.Lock()):
            cached = self._rendered.get(key)
            if cached is not None and cached[0] >= version:
                return cached[1]
            data = await asyncio.to_thread(make)
            self._rendered[key] = (version, data)
            return data

    def fresh(self, code: str, read: Callable[[], T]) -> T:
        """What `read()` gives (the game's row), read once since the last change notified: the first phone woken
        reads it, the thousands woken with it share that reading (on PostgreSQL each reading is a query: 2,500
        of them one after the other held every phone's answer back by seconds). Every committed change is
        notified (by the route that made it, or by the database's notification), so a reading is never older
        than the last change this process has heard of."""
        changes = self._changes.get(code, 0)
        cached = self._read.get(code)
        if cached is not None and cached[0] == changes:
            return cast(T, cached[1])
        value = read()
        self._read[code] = (changes, value)
        return value

    def rendered(self, code: str, version: int, render: Callable[[], bytes]) -> bytes:
        """The game's state at `version`, rendered once (the first phone to ask renders it)."""
        cached = self._rendered.get(code)
        if cached is not None and cached[0] == version:
            return cached[1]
        data = render()
        self.renders += 1
        if cached is None or cached[0] < version:
            self._rendered[code] = (version, data)
        return data


async def _gone(receive: Callable[[], Awaitable[Any]]) -> None:
    """Returns when the client has gone away (ASGI's http.disconnect)."""
    while (await receive()).get("type") != "http.disconnect":
        pass


@functools.lru_cache(maxsize=4096)
def loopback(address: str) -> bool:
    """Whether an address is this computer's own loopback (its pages and tools are not phones)."""
    import ipaddress

    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def raise_open_files() -> int:
    """Raises this process's open-files soft limit to its hard limit where the system allows (each
    waiting phone is a socket: a common soft limit of 1,024 would refuse the room's last phones);
    returns the limit in force (0 where the system has no such limit)."""
    try:
        import resource
    except ImportError:  # Windows: no per-process limit to raise
        return 0
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 16)
    if soft == resource.RLIM_INFINITY or soft >= wanted:
        return int(soft)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    except (ValueError, OSError):  # macOS refuses more than OPEN_MAX: keep what there is
        return int(soft)
    return int(wanted)
