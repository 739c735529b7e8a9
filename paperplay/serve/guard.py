"""The game night server's door (ASGI middleware): what every request meets before the app sees it.

- **Its own name.** A request whose `Host:` is not one of the server's own names gets 421: a web page
  elsewhere that rebinds its DNS name to this computer (DNS rebinding) can then not use the host's
  browser to act here. The server's own names: localhost (and *.localhost), every loopback address,
  every address of this computer's network interfaces (read again when the network changes), this
  computer's name (and name.local), and the names given with `paperplay serve --host-name`. The port
  is not compared.
- **Its numbers.** A malformed `Content-Length` is a 400 (paperplay.serve.numbers).
- **Bodies arrive before they are worked on.** A request's body is received in full (to a spool file
  past a small size) before the app is called: a photo takes a reading slot only once it is all here,
  so uploads trickling in a byte a second hold no slot. Each body has a time limit (408 past it), a
  size limit (413), and the bytes held by bodies not yet answered are capped, across all requests and
  for each client address (503 with Retry-After past either): memory and disk stay bounded however many
  phones send at once, and one person cannot take it all.
- **One line, never a traceback.** A client that goes away mid-upload is one log line; an error the
  app did not expect is one log line and a 500 (PAPERPLAY_DEBUG=1 logs its traceback).
- **Below the app** (`protocol()`, uvicorn's HTTP/1.1 protocol as `paperplay serve` runs it): a
  connection that sends no request head within 30 s is closed, and a request that breaks HTTP is one
  log line naming its client.

Errors are JSON, `{"error": "<one line naming the field>", "code": "<stable code>"}`.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO
from urllib.parse import urlsplit

from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from paperplay.serve import numbers
from paperplay.serve.errors import STATUS, Code
from paperplay.serve.internet import Network, client_of

LOG = logging.getLogger("uvicorn.error")
"""Where the server's lines go (uvicorn prints them in the host's terminal)."""


CLIENT = "paperplay.client"
"""The scope's key the door sets to the client's address (client_address)."""
BROKEN = "paperplay.broken"
"""The scope's key the protocol sets when a request's body breaks HTTP (the door's log line says so)."""
HEAD_SECONDS = 30.0
"""How long a connection may take to send a request's head (its first line and headers)."""
CONNECTIONS_PER_ADDRESS = 100
"""Connections open at once from one address other than this computer's own (a phone's browser opens six
or so, and waits on a few): one person's thousands of idle connections cannot take the server's open files,
which would shut every phone out."""


@dataclass
class Limits:
    """The door's limits (tests shorten them)."""

    upload_seconds: float = 120.0
    """How long a request's body may take to arrive: a 10 MB photo over poor Wi-Fi (1 Mbit/s) takes 80 s."""
    in_flight: int = 160 * 1024 * 1024
    """Bytes held at once by bodies received and not yet answered, across all requests (16 photos of 10 MB)."""
    per_client: int = 40 * 1024 * 1024
    """The same for one client address: one phone (or one person with many connections) holds at most a
    quarter of it."""
    largest_body: int = 10 * 1024 * 1024 + 64 * 1024
    """The largest body any request may have (a photo of 10 MB and its form)."""
    in_memory: int = 256 * 1024
    """A body past this size is spooled to a file."""
    retry_after: int = 5
    """Seconds a client is asked to wait (Retry-After) when the server is full."""


def answer(code: Code, message: str, headers: dict[str, str] | None = None) -> tuple[int, bytes, list[
        tuple[bytes, bytes]]]:
    """A one-line JSON error as the API writes it (<, > and & escaped), with its code's status."""
    from paperplay.messages import one_line

    text = json.dumps({"error": one_line(message), "code": str(code)}, ensure_ascii=False)
    body = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").encode()
    head = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    head += [(name.lower().encode(), value.encode()) for name, value in (headers or {}).items()]
    return STATUS[code], body, head


async def send_answer(send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


# --- the server's own names ---------------------------------------------------------------------------

def interface_addresses(by_name: bool = True) -> set[str]:
    """Every address of this computer's network interfaces that can be found without a dependency: with
    `by_name` its name's addresses (a name lookup: done at the start only), the address of its default
    routes, and on Linux each interface's IPv4 address (ioctl SIOCGIFADDR) and IPv6 addresses
    (/proc/net/if_inet6). Each source is tried on its own; one that fails adds nothing."""
    found: set[str] = set()
    for name in {socket.gethostname(), socket.getfqdn()} if by_name else ():
        try:
            found.update(str(info[4][0]).split("%")[0] for info in socket.getaddrinfo(name, None))
        except (OSError, UnicodeError):
            pass
    for family, probe in ((socket.AF_INET, "192.168.255.255"), (socket.AF_INET6, "fd00::1")):
        try:
            with socket.socket(family, socket.SOCK_DGRAM) as sock:
                sock.connect((probe, 9))  # picks the route; sends nothing
                found.add(str(sock.getsockname()[0]).split("%")[0])
        except OSError:
            pass
    if sys.platform.startswith("linux"):
        found |= _linux_ipv4() | _linux_ipv6()
    return {str(ipaddress.ip_address(a)) for a in found if _is_address(a)}


def _is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _linux_ipv4() -> set[str]:
    import fcntl
    import struct

    found: set[str] = set()
    try:
        names = [name for _, name in socket.if_nameindex()]
    except OSError:
        return found
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        for name in names:
            try:
                packed = fcntl.ioctl(sock.fileno(), 0x8915, struct.pack("256s", name.encode()[:15]))  # SIOCGIFADDR
            except OSError:  # an interface without an IPv4 address
                continue
            found.add(socket.inet_ntoa(packed[20:24]))
    return found


def _linux_ipv6() -> set[str]:
    try:
        lines = Path("/proc/net/if_inet6").read_text().splitlines()
    except OSError:
        return set()
    found = set()
    for line in lines:
        word = line.split()[0] if line.split() else ""
        if len(word) == 32:
            found.add(str(ipaddress.IPv6Address(bytes.fromhex(word))))
    return found


def host_part(value: str) -> str:
    """The name or address of a Host header, without its port, lower case, without a final dot:
    "[::1]:8000" -> "::1", "Game.Local.:80" -> "game.local"."""
    value = value.strip().lower()
    if value.startswith("["):
        inside, bracket, port = value[1:].partition("]")
        if not bracket or (port and not (port[0] == ":" and (port[1:].isdigit() or port == ":"))):
            return value  # "[::1", "[::1]x": no address, so none of the server's
        return inside.split("%")[0]
    name, colon, port = value.rpartition(":")
    if colon and (port.isdigit() or not port) and ":" not in name:
        value = name
    return value.rstrip(".")


class Hosts:
    """The names and addresses this server answers to. Addresses are read again (at most every
    `refresh` seconds) when a request names an address not known yet: the laptop may join the room's
    Wi-Fi after the server started."""

    def __init__(self, names: Iterable[str] = (), bound: str | None = None, refresh: float = 5.0) -> None:
        machine = socket.gethostname().lower()
        self.names = {"localhost", machine, f"{machine}.local", socket.getfqdn().lower()}
        self.names |= {host_part(name) for name in names if name.strip()}
        self.bound = bound
        self.refresh = refresh
        self._lock = threading.Lock()
        self._read_at = 0.0
        self.addresses: set[str] = set()
        self._allowed: set[str] = set()
        self._read(by_name=True)

    def _read(self, by_name: bool = False) -> None:
        found = interface_addresses(by_name) | (set() if by_name else self.addresses)
        if self.bound and _is_address(self.bound) and not ipaddress.ip_address(self.bound).is_unspecified:
            found.add(str(ipaddress.ip_address(self.bound)))
        with self._lock:
            self.addresses = found
            self._read_at = time.monotonic()

    def allows(self, header: str | None) -> bool:
        """Whether a request's Host header names this server (a request without one, HTTP/1.0 from a
        program rather than a browser, is let in). Headers let in are remembered (a few hundred): the
        room's phones all send the same one."""
        if header is None or header in self._allowed:
            return True
        if self._allows(header):
            if len(self._allowed) < 512:
                self._allowed.add(header)
            return True
        return False

    def _allows(self, header: str) -> bool:
        host = host_part(header)
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return host in self.names or host.endswith(".localhost")
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        if address.is_loopback or str(address) in self.addresses:
            return True
        if time.monotonic() - self._read_at > self.refresh:
            self._read()
            return str(address) in self.addresses
        return False


# --- the door -------------------------------------------------------------------------------------------

@dataclass
class Door:
    """What the door knows: the server's names, its limits, and the bytes it holds now."""

    hosts: Hosts | None = None
    """The server's own names: None, this computer's (made on the first request)."""
    limits: Limits = field(default_factory=Limits)
    in_flight: int = 0
    """Bytes held now by bodies received and not yet answered."""
    by_client: dict[str, int] = field(default_factory=dict)
    """The same bytes by client address."""
    public_url: str = ""
    """The address players open (`paperplay serve --public-url`), or "": a request naming its host is taken as
    arriving by its scheme (behind a proxy with TLS, the server's own redirects then stay https)."""
    proxies: tuple[Network, ...] = ()
    """The trusted proxies (`paperplay serve --trusted-proxy`): a request from one of them is the client's whose
    address its X-Forwarded-For names (paperplay.serve.internet)."""

    def take(self, client: str, count: int) -> str | None:
        """Counts `count` more bytes held for a client; or, past a limit, says whose limit (nothing counted)."""
        if self.in_flight + count > self.limits.in_flight:
            return "server"
        if self.by_client.get(client, 0) + count > self.limits.per_client:
            return "client"
        self.in_flight += count
        self.by_client[client] = self.by_client.get(client, 0) + count
        return None

    def give_back(self, client: str, count: int) -> None:
        self.in_flight -= count
        left = self.by_client.get(client, 0) - count
        if left > 0:
            self.by_client[client] = left
        else:
            self.by_client.pop(client, None)


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return str(value.decode("latin-1"))
    return None


def _peer(scope: Scope) -> str:
    client = scope.get("client")
    return f"{client[0]}" if client else ""


def client_address(scope: Scope | HTTPConnection) -> str:
    """The client's address that every per-client limit counts: the socket's peer, or behind a trusted proxy the
    address it reports (paperplay.serve.internet.client_of; worked out once a request, by the door). "" when the
    server cannot know (a test's request without a client)."""
    if isinstance(scope, HTTPConnection):
        scope = scope.scope
    found = scope.get(CLIENT)
    return str(found) if found is not None else _peer(scope)


def _client(scope: Scope) -> str:
    return client_address(scope) or "a client"


def _request(scope: Scope) -> str:
    """A request as a log line names it: its method, path (escaped, shortened) and client."""
    from paperplay.messages import one_line

    return f"{one_line(str(scope.get('method', '')))} {one_line(str(scope.get('path', '')))} from {_client(scope)}"


class Guard:
    """The ASGI middleware: the Host check, the body's arrival, one line for what goes wrong."""

    def __init__(self, app: ASGIApp, door: Door | None = None, spool: str | None = None) -> None:
        self.app = app
        self.door = door or Door()
        if self.door.hosts is None:
            self.door.hosts = Hosts()
        self.hosts = self.door.hosts
        self.limits = self.door.limits
        self.spool = spool
        self._told_proxy = False
        public = urlsplit(self.door.public_url)
        self._public = (host_part(public.netloc.rpartition("@")[2]), public.scheme) if public.scheme else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False
        scope[CLIENT] = self._client_of(scope)
        if self._public is not None and host_part(_header(scope, b"host") or "") == self._public[0]:
            scope["scheme"] = self._public[1]

        async def sending(message: Message) -> None:
            nonlocal started
            started = True
            await send(message)

        refused = self._refused(scope)
        if refused is not None:
            await send_answer(send, *refused)
            return
        held = 0
        body: IO[bytes] | None = None
        try:
            if self._has_body(scope):
                outcome = await self._receive_body(scope, receive)
                if not isinstance(outcome, tuple):  # the client went away
                    return
                body, held, refused = outcome
                if refused is not None:
                    await send_answer(send, *refused)
                    return
                receive = self._replay(body, receive)
            await self.app(scope, receive, sending)
        except Exception as exc:  # noqa: BLE001 - one line in the terminal, never a traceback
            self._log_error(scope, exc)
            if not started:
                await send_answer(send, *answer(Code.INTERNAL, f"internal error: {type(exc).__name__}: {exc}"))
        finally:
            self.door.give_back(_client(scope), held)
            if body is not None:
                body.close()

    def _client_of(self, scope: Scope) -> str:
        peer = _peer(scope)
        forwarded = [value.decode("latin-1") for key, value in scope.get("headers", ())
                     if key.lower() == b"x-forwarded-for"]
        if forwarded and not self._told_proxy and not self.door.proxies:
            from paperplay.serve.live import loopback

            if loopback(peer):
                self._told_proxy = True
                LOG.warning("paperplay: requests from %s carry X-Forwarded-For, but no --trusted-proxy is given: every "
                            "client behind that proxy counts as %s and is not limited; start the server with "
                            "--trusted-proxy %s", peer, peer, peer)
        return client_of(peer, forwarded, self.door.proxies) if forwarded else peer

    def _refused(self, scope: Scope) -> tuple[int, bytes, list[tuple[bytes, bytes]]] | None:
        host = _header(scope, b"host")
        if not self.hosts.allows(host):
            name = host_part(host or "")
            if not name:
                return answer(Code.WRONG_HOST, "Host: is empty; open the address paperplay serve printed")
            return answer(Code.WRONG_HOST, f"Host: {name!r} is not this server's name; open the address paperplay "
                                             f"serve printed, or start it with --host-name {name} if that name is "
                                             "yours")
        try:
            numbers.content_length(_header(scope, b"content-length"))
        except numbers.BadNumber as exc:
            return answer(Code.BAD_NUMBER, str(exc), {"Connection": "close"})
        return None

    @staticmethod
    def _has_body(scope: Scope) -> bool:
        length = _header(scope, b"content-length")
        return (length is not None and length != "0") or _header(scope, b"transfer-encoding") is not None

    def _what(self, scope: Scope) -> str:
        kind = (_header(scope, b"content-type") or "").split(";")[0].strip().lower()
        return "photo" if kind == "multipart/form-data" else "body"

    async def _receive_body(self, scope: Scope, receive: Receive) -> (
            tuple[IO[bytes], int, tuple[int, bytes, list[tuple[bytes, bytes]]] | None] | None):
        """Receives a request's body into a spool within the limits: the spool, the bytes it holds (counted
        in `in_flight` until the request ends) and the refusal when a limit is passed; None when the
        client went away (logged)."""
        limits = self.limits
        what = self._what(scope)
        declared = numbers.content_length(_header(scope, b"content-length"))
        close = {"Connection": "close"}
        client = _client(scope)

        def full(whose: str) -> tuple[int, bytes, list[tuple[bytes, bytes]]]:
            held_now = self.door.in_flight if whose == "server" else self.door.by_client.get(client, 0)
            return answer(Code.BUSY, f"{what}: {'the server' if whose == 'server' else 'this address'} is "
                                       f"sending {held_now:,} bytes of uploads already, its limit; send it again in "
                                       f"{limits.retry_after} seconds", {"Retry-After": str(limits.retry_after),
                                                                          **close})

        spool: IO[bytes] = tempfile.SpooledTemporaryFile(limits.in_memory, dir=self.spool)  # noqa: SIM115 - closed by the caller
        if declared is not None and declared > limits.largest_body:
            return spool, 0, answer(Code.TOO_LARGE, f"{what}: is {declared:,} bytes; expected at most "
                                                      f"{limits.largest_body:,}", close)
        if declared is not None and (whose := self.door.take(client, declared)) is not None:
            return spool, 0, full(whose)  # it would not fit now: said before it is sent
        self.door.give_back(client, declared or 0)  # counted as it arrives
        held = 0
        try:
            async with asyncio.timeout(limits.upload_seconds):
                while True:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        LOG.warning("paperplay: %s: the client %s after %s bytes of its %s (nothing stored)",
                                    _request(scope), "sent a broken body" if scope.get(BROKEN) else "went away",
                                    f"{held:,}", what)
                        self.door.give_back(client, held)
                        spool.close()
                        return None
                    chunk = message.get("body", b"")
                    if held + len(chunk) > limits.largest_body:
                        return spool, held, answer(Code.TOO_LARGE, f"{what}: is more than {limits.largest_body:,} "
                                                                     f"bytes; expected at most "
                                                                     f"{limits.largest_body:,}", close)
                    if (whose := self.door.take(client, len(chunk))) is not None:
                        return spool, held, full(whose)
                    held += len(chunk)
                    spool.write(chunk)
                    if not message.get("more_body", False):
                        break
        except TimeoutError:
            return spool, held, answer(Code.TOO_SLOW, f"{what}: did not arrive within {limits.upload_seconds:g} s "
                                                        f"({held:,} bytes came); send it again from a better place "
                                                        "in the room", close)
        spool.seek(0)
        return spool, held, None

    @staticmethod
    def _replay(body: IO[bytes], receive: Receive) -> Receive:
        """The body received, handed to the app as it would have arrived; then the client's own messages
        (its going away)."""
        done = False

        async def replayed() -> Message:
            nonlocal done
            if done:
                return await receive()
            chunk = body.read(256 * 1024)
            rest = body.read(1)
            if rest:
                body.seek(-1, 1)
            else:
                done = True
            return {"type": "http.request", "body": chunk, "more_body": not done}

        return replayed

    def _log_error(self, scope: Scope, exc: BaseException) -> None:
        from paperplay.errors import debugging
        from paperplay.messages import one_line, without_passwords

        where = ""
        trace = exc.__traceback__
        while trace is not None and trace.tb_next is not None:
            trace = trace.tb_next
        if trace is not None:
            where = f" at {Path(trace.tb_frame.f_code.co_filename).name}:{trace.tb_lineno}"
        LOG.error("paperplay: %s: internal error %s: %s%s%s", _request(scope), type(exc).__name__,
                  one_line(without_passwords(str(exc))), where,
                  "" if debugging() else " (PAPERPLAY_DEBUG=1 shows the traceback)", exc_info=exc if debugging()
                  else None)



# --- the connection (uvicorn's HTTP/1.1 protocol, with a deadline for a request's head) -----------------------

_QUIET = frozenset({
    "Invalid HTTP request received.",  # the protocol below writes its own line, with the client's address
    "Unsupported upgrade request.",  # a WebSocket or HTTP/2 upgrade from anyone: served as plain HTTP
    "No supported WebSocket library detected. Please use \"pip install 'uvicorn[standard]'\", or install "
    "'websockets' or 'wsproto' manually.",  # advice for a server that wants WebSockets: this one does not
})


class _Lines:
    """uvicorn's logger without its lines that a stranger's request can print and that say nothing to the host:
    a request that breaks HTTP (the protocol below writes one line with the client's address, or the door
    does), and an upgrade to WebSocket or HTTP/2 (answered as plain HTTP)."""

    def __init__(self, logger: logging.Logger) -> None:
        self._logger = logger

    def warning(self, message: str, *args: object, **kwargs: object) -> None:
        if message not in _QUIET:
            self._logger.warning(message, *args, **kwargs)  # type: ignore[arg-type]

    def __getattr__(self, name: str) -> object:
        return getattr(self._logger, name)


def bad_http(exc: BaseException | None) -> tuple[int, bytes, list[tuple[bytes, bytes]]]:
    """The answer to a request that breaks HTTP (h11's reason): a malformed Content-Length is a
    `bad_number`, anything else a `bad_input`."""
    reason = str(exc) if exc is not None and str(exc) else "malformed"
    if "content-length" in reason.lower():
        return answer(Code.BAD_NUMBER, f"Content-Length: is not a byte count ({reason}); expected digits 0-9")
    return answer(Code.BAD_INPUT, f"request: is not valid HTTP ({reason})")


class _Connections:
    """The connections open from each address (not this computer's): past CONNECTIONS_PER_ADDRESS its next ones
    are closed at once, with one log line until some end."""

    def __init__(self) -> None:
        self.open: dict[str, int] = {}
        self.told: set[str] = set()

    def admit(self, address: str) -> bool:
        if self.open.get(address, 0) >= CONNECTIONS_PER_ADDRESS:
            if address not in self.told:
                self.told.add(address)
                LOG.warning("paperplay: %s has %d connections open, the most one address may; its next ones are "
                            "closed until some end", address, CONNECTIONS_PER_ADDRESS)
            return False
        self.open[address] = self.open.get(address, 0) + 1
        return True

    def release(self, address: str) -> None:
        left = self.open.get(address, 0) - 1
        if left > 0:
            self.open[address] = left
        else:
            self.open.pop(address, None)
            self.told.discard(address)


def protocol(head_seconds: float = HEAD_SECONDS, proxies: tuple[Network, ...] = ()) -> type:
    """uvicorn's HTTP/1.1 protocol (h11) for `uvicorn.Config(http=...)`, with three changes: a connection that
    has not sent a request's head within `head_seconds` (of connecting, or of its last answer) is closed,
    so connections trickling their headers, or sending nothing, do not pile up; an address past
    CONNECTIONS_PER_ADDRESS open connections has its next ones closed at once (one log line; the trusted
    `proxies` carry every client's connections and are not counted); and a request that breaks HTTP is one
    log line naming its client (in the middle of a body, the door's line says it)."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    from paperplay.serve.internet import is_trusted
    from paperplay.serve.live import loopback

    connections = _Connections()

    class Protocol(H11Protocol):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)  # type: ignore[arg-type]
            self.logger = _Lines(self.logger)  # type: ignore[assignment]
            self._head_timer: asyncio.TimerHandle | None = None
            self._counted = ""

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            address = str(self.client[0]) if self.client else ""
            if address and not loopback(address) and not is_trusted(address, proxies):
                if not connections.admit(address):
                    transport.abort()
                    return
                self._counted = address
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            if self._counted:
                connections.release(self._counted)
                self._counted = ""
            super().connection_lost(exc)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def _arm(self) -> None:
            self._disarm()
            self._head_timer = self.loop.call_later(head_seconds, self._head_late)

        def _disarm(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_late(self) -> None:
            self._head_timer = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self.transport.close()

        def send_400_response(self, msg: str) -> None:
            """The API's one-line JSON error in place of uvicorn's text (called where h11's error is caught)."""
            cycle = self.cycle
            if cycle is not None and not cycle.response_complete:
                cycle.scope[BROKEN] = True  # type: ignore[literal-required]
                if cycle.response_started:
                    self.transport.close()
                    return
            else:
                client = self.client[0] if self.client else "a client"
                LOG.warning("paperplay: a request from %s is not valid HTTP; answered 400", client)
            status, body, headers = bad_http(sys.exc_info()[1])
            head = [*headers, (b"connection", b"close"), (b"cache-control", b"no-store"),
                    (b"x-content-type-options", b"nosniff")]
            try:
                for event in (h11.Response(status_code=status, headers=head), h11.Data(data=body), h11.EndOfMessage()):
                    self.transport.write(self.conn.send(event) or b"")
            except h11.LocalProtocolError:  # no answer can be framed any more: the connection just ends
                pass
            self.transport.close()

    return Protocol
