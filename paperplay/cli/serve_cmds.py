"""The serve command: the game night server on the host's laptop (needs the serve extra)."""

from __future__ import annotations

import errno
import os
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated
from urllib.parse import urlsplit

import typer

from paperplay.cli import options as opt
from paperplay.cli.common import SHORT_HELP, guarded
from paperplay.errors import InputError
from paperplay.messages import printable, without_passwords
from paperplay.serve.internet import HAND_INS, JOINS, Network, rate, trusted_proxies
from paperplay.serve.internet import public_url as check_public_url

if TYPE_CHECKING:
    import uvicorn

    from paperplay.serve.store import Store

SERVE_PG_INSTALL = ("paperplay serve --db postgresql://… needs the serve-pg extra (psycopg with its pool, "
                    "procrastinate): in paperplay's folder, pip install '.[serve,serve-pg]'")
INSTALL = ("paperplay serve needs the serve extra (Starlette, uvicorn, python-multipart, and the scan extra for "
           "photos): in paperplay's folder, pip install '.[serve]' (or pip install 'paperplay[serve]' where it "
           "comes from a package index)")
DEFAULT_DB = Path("paperplay-games.db")
DEFAULT_PORT = 8000
BACKLOG = 2048
"""Connections the system queues before the server accepts them (a room's phones arrive at once); the system
caps it (Linux: net.core.somaxconn, 4096 by default)."""


def host_names(names: list[str]) -> list[str]:
    """The --host-name values: each a DNS name (gamenight.local) or an IP address."""
    from paperplay.serve.internet import is_host_name

    out = []
    for name in names:
        plain = name.strip().lower()
        if not is_host_name(plain):
            raise InputError(f"is {printable(repr(name))}; expected a name players' phones use to reach this "
                             "computer, e.g. gamenight.local, or an address", field="host-name")
        out.append(plain)
    return out


def _need_extra() -> None:
    try:
        import cv2  # noqa: F401
        import multipart  # type: ignore[import-untyped]  # noqa: F401
        import numpy  # noqa: F401
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
        import zxingcpp  # noqa: F401
    except ImportError:
        raise InputError(INSTALL) from None


def lan_address() -> str | None:
    """This computer's address on the local network (the one its default route uses), or None without one.
    Connecting a UDP socket sends nothing: it only picks the route."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.168.255.255", 9))
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith(("127.", "0.")) else str(address)


def _listen(host: str, port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise InputError(f"is {port}, which another program is using; give another, e.g. --port {port + 1}",
                             field="port") from None
        if exc.errno == errno.EACCES:
            raise InputError(f"is {port}; ports below 1024 need administrator rights: give one of 1024-65535",
                             field="port") from None
        raise InputError(f"is {port}; it cannot be opened ({exc.strerror})", field="port") from None
    sock.listen(BACKLOG)
    sock.set_inheritable(True)
    return sock


def _shown(path: Path | str) -> str:
    """A database's file name or URL as printed: its password never."""
    return printable(without_passwords(str(path)))


def _open_store(db: str, pool: int | None = None) -> Store:
    """The store --db names: a PostgreSQL URL (PgStore, `pool` connections at most), else a SQLite file (made if
    missing)."""
    from paperplay.serve.store import is_database_url

    if is_database_url(db):
        return _open_postgresql(db, pool)
    import sqlite3

    from paperplay.serve.store import SqliteStore

    path = Path(db)
    shown = _shown(path)
    if path.is_dir():
        raise InputError(f"{shown}: is a folder; expected the game database's file name", field="db")
    if not path.parent.is_dir():
        raise InputError(f"{shown}: its folder {_shown(path.parent)} does not exist; make it "
                         "first, or give another file name", field="db")
    try:
        return SqliteStore(path)
    except sqlite3.OperationalError as exc:  # a file it may not read or write, a full disk
        raise InputError(f"{shown}: cannot be used as the game database ({exc})", field="db") from None
    except sqlite3.DatabaseError as exc:
        raise InputError(f"{shown}: is not a paperplay game database ({exc}); give another file "
                         "name (a new one is made)", field="db") from None
    except OSError as exc:
        raise InputError(f"{shown}: cannot be opened ({exc.strerror})", field="db") from None


def _open_postgresql(url: str, pool: int | None = None) -> Store:
    """PgStore on the database at `url`: psycopg missing, a URL it cannot parse, a database it cannot reach or
    use, a schema newer than this paperplay's: one line on --db, the password never in it."""
    try:
        import psycopg
        import psycopg_pool  # noqa: F401
    except ImportError:
        raise InputError(SERVE_PG_INSTALL) from None
    from paperplay.serve.store import DatabaseRefused, StoreUnavailable
    from paperplay.serve.store_pg import PgStore

    shown = _shown(url)
    try:
        return PgStore(url, pool)
    except DatabaseRefused as exc:
        raise InputError(f"is {shown}; {_scrubbed(str(exc), url)}", field="db") from None
    except StoreUnavailable as exc:
        raise InputError(f"is {shown}; the database cannot be reached ({_scrubbed(str(exc), url)})",
                         field="db") from None
    except (psycopg.Error, ValueError) as exc:  # ValueError: a URL it cannot parse (a port that is no number)
        line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"is {shown}; the database cannot be used ({_scrubbed(line, url)})", field="db") from None


def _key_age(made: float, new: bool) -> str:
    """How old the host key is, in words: "made now", "made today", "made 3 days ago"."""
    import time

    if new:
        return "made now"
    days = int((time.time() - made) // 86400)
    return "made today" if days <= 0 else f"made {days} day{'s' if days != 1 else ''} ago"


def serve(
    lan: Annotated[bool, typer.Option("--lan", help="Let phones on the room's Wi-Fi reach it (default: this "
                                      "computer only).")] = False,
    port: Annotated[int, typer.Option("--port", "-p", click_type=opt.WHOLE, help="The port to listen on, "
                                      "1024-65535 (0: any free one).")] = DEFAULT_PORT,
    db: Annotated[str, typer.Option("--db", metavar="FILE|URL", click_type=opt.DATABASE,
                                    help="The game database: a SQLite file, made if missing (give the same one "
                                         "again to carry on after a restart), or a PostgreSQL database, "
                                         "postgresql://USER[:PASSWORD]@HOST[:PORT]/NAME, which any number of "
                                         "servers share (its password is never printed).")] = str(DEFAULT_DB),
    db_pool: Annotated[int | None, typer.Option("--db-pool", metavar="N", click_type=opt.WHOLE, help="With a "
                                                "PostgreSQL --db: connections this server keeps open to it at "
                                                "most, 2-100 (default: 10), and one more for its notifications.",
                                                show_default=False)] = None,
    workers: Annotated[int | None, typer.Option("--workers", click_type=opt.WHOLE, help="Processes that read "
                                                "photos, 1-16 (default: one a core, at most 4).",
                                                show_default=False)] = None,
    host_name: Annotated[list[str] | None, typer.Option("--host-name", metavar="NAME", help="A name phones use to "
                                                        "reach this computer, besides its addresses (repeatable); "
                                                        "a request naming another host gets 421.",
                                                        show_default=False)] = None,
    new_key: Annotated[bool, typer.Option("--new-key", help="Make a new host key and retire the old one (its links "
                                          "stop working).")] = False,
    public_url: Annotated[str | None, typer.Option("--public-url", metavar="URL", help="The address players open, "
                                                   "when it is not this computer's (a reverse proxy with TLS in "
                                                   "front): join links, QR codes and printed links name it, e.g. "
                                                   "https://games.example.org.", show_default=False)] = None,
    trusted_proxy: Annotated[list[str] | None, typer.Option("--trusted-proxy", metavar="ADDRESS", help="A reverse "
                                                            "proxy in front of this server, an address or network "
                                                            "(repeatable): its requests count as the client's its "
                                                            "X-Forwarded-For names.", show_default=False)] = None,
    limit_joins: Annotated[str, typer.Option("--limit-joins", metavar="N/PERIOD", help="Joins one client (address) "
                                             "may make: N at once, then N a PERIOD (s, min or h); the host is "
                                             "never limited.")] = JOINS,
    limit_hand_ins: Annotated[str, typer.Option("--limit-hand-ins", metavar="N/PERIOD", help="Hand-ins (typed or "
                                                "photos, each try) one client may make, as --limit-joins.")] = HAND_INS,
) -> None:
    """Runs a game night: the host's page, the players' phones, the projector.

    Prints the host page's link first (it holds a secret key: keep it to yourself), then serves
    until Ctrl-C. On the host page, start a game: the projector page shows the join link and its
    QR code; players hand in their sheets from their phones (typed, or a photo of a scannable
    sheet), the host calls the tiles, reveals the game, and everyone sees the ranking. Everything
    is kept in --db: stopped mid-game, run the same command again and carry on (the link still works).

    Examples:

    \b
      paperplay serve --lan
      paperplay serve --lan --port 8080 --db friday.db
      paperplay serve --db friday.db
      paperplay serve --lan --host-name gamenight.local
      paperplay serve --lan --db friday.db --new-key
      paperplay serve --public-url https://games.example.org --trusted-proxy 127.0.0.1
      paperplay serve --lan --limit-joins 1000/h --limit-hand-ins 2000/h
      paperplay serve --db postgresql://paperplay@db.example.org/gamenight --port 8001
      paperplay serve --db postgresql://paperplay@db.example.org/gamenight --db-pool 20

    The host key lasts until --new-key makes a new one: the link printed says how old it is.
    On the internet, behind a reverse proxy: --public-url names the address players open, and
    --trusted-proxy the proxy, so that each phone is limited on its own address (without it, every
    phone counts as the proxy's). The limits are each server process's own.
    With --db postgresql://…, any number of servers (on one machine or several) share the games:
    a change made through one reaches the phones of every other; photos are read by paperplay
    worker processes.
    """
    if not 0 <= port <= 65535:
        raise InputError(f"is {port}; expected a port 1024-65535 (or 0: any free one)", field="port")
    if workers is not None and not 1 <= workers <= 16:
        raise InputError(f"is {workers}; expected 1-16", field="workers")
    if db_pool is not None and not 2 <= db_pool <= 100:
        raise InputError(f"is {db_pool}; expected the connections a server keeps open to its database, 2-100",
                         field="db-pool")
    names = host_names(host_name or [])
    public = check_public_url(public_url) if public_url is not None else None
    proxies = trusted_proxies(trusted_proxy or [])
    joins, hand_ins = rate(limit_joins, "limit-joins"), rate(limit_hand_ins, "limit-hand-ins")
    if public is not None:
        names.append(str(urlsplit(public).hostname))
    _need_extra()
    import uvicorn

    from paperplay.serve.app import Server, build_app
    from paperplay.serve.guard import Door, Hosts
    from paperplay.serve.web import paced
    from paperplay.serve.live import raise_open_files
    from paperplay.serve.photos import PhotoReader

    store = _open_store(db, db_pool)
    sock = _listen("0.0.0.0" if lan else "127.0.0.1", port)
    port = sock.getsockname()[1]
    address = lan_address() if lan else "127.0.0.1"
    local = f"http://{address or '127.0.0.1'}:{port}"
    base = public or local
    count = workers or max(1, min(4, os.cpu_count() or 1))
    photos = PhotoReader(count, limit=8 * count)
    door = Door(Hosts(names, bound="0.0.0.0" if lan else "127.0.0.1"), public_url=public or "", proxies=proxies)
    server = Server(store, photos, base, door=door, joins=paced(joins), hand_ins=paced(hand_ins))
    raise_open_files()  # a socket a waiting phone
    # the workers are started before the first line: a Ctrl-C in the moment a process starts is lost
    # (paperplay.processes), and one pressed once the link is shown must stop the server
    photos.start()
    if new_key:
        store.new_host_key()
    _say_where(store, db, base, local, public, lan, address, new_key, proxies, (joins, hand_ins))
    sys.stdout.flush()
    try:
        uvicorn.Server(uvicorn_config(build_app(server), proxies)).run(sockets=[sock])
    finally:
        photos.close()
        store.close()
        sock.close()
        import shutil

        shutil.rmtree(server.spool, ignore_errors=True)
    raise KeyboardInterrupt  # the server ends only when stopped (Ctrl-C, SIGTERM): exit 130 or 143


def _say_where(store: Store, db: str, base: str, local: str, public: str | None, lan: bool, address: str | None,
               new_key: bool, proxies: tuple[Network, ...], limits: tuple[object, object]) -> None:
    """The serve command's first lines: the host page's link (with its key), where players join (`address`:
    this computer's on the room's network, None without one), the proxies, where games are kept."""
    joins, hand_ins = limits
    typer.echo(f"Host page: {base}/host?key={store.host_key()}")
    typer.echo(f"  (the link holds the host's key, {_key_age(store.host_key_made(), new_key)}: open it on this "
               "computer, keep it off the projector; --new-key makes a new one and retires it)")
    if public is not None:
        typer.echo(f"Players join at {public}/join/<game code> (the projector page shows the QR code); the proxy "
                   f"in front passes it on to {local}, where this server listens.")
    elif lan and address is None:
        typer.echo("  No network found: players can join once this computer is on the room's Wi-Fi; restart then.")
    elif lan:
        typer.echo(f"Players join on the same Wi-Fi at {base}/join/<game code> (the projector page shows the QR code).")
    else:
        typer.echo("Only this computer can reach it; with --lan, the phones on the room's Wi-Fi can too.")
    if proxies:
        typer.echo(f"Requests from {', '.join(str(n).removesuffix('/32').removesuffix('/128') for n in proxies)} come "
                   f"through a proxy: each phone counts as the address its X-Forwarded-For names (at most {joins} "
                   f"joins and {hand_ins} hand-ins each).")
    kept = f"the PostgreSQL database {_shown(db)}" if store.kind == "postgresql" else _shown(db)
    typer.echo(f"Games are kept in {kept}: Ctrl-C stops; the same command carries on later.")


def uvicorn_config(app: object, proxies: tuple[Network, ...] = ()) -> uvicorn.Config:
    """uvicorn's settings as paperplay serve runs it (tests run it so too): its own HTTP/1.1 protocol
    (paperplay.serve.guard.protocol), and uvicorn's proxy headers off: uvicorn would otherwise take
    X-Forwarded-For from 127.0.0.1 as the client's address; paperplay's own rule (--trusted-proxy) is the
    only one that applies."""
    import uvicorn

    from paperplay.serve.guard import protocol

    # no limit_concurrency: a thousand phones may wait at once (paperplay.serve.live bounds them instead)
    return uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off",  # type: ignore[arg-type]
                          timeout_graceful_shutdown=3, server_header=False, backlog=BACKLOG,
                          http=protocol(proxies=proxies), proxy_headers=False, forwarded_allow_ips="")


WORKER_INSTALL = ("paperplay worker needs the serve-pg extra (psycopg, procrastinate) and the scan extra (the photo "
                  "reader): in paperplay's folder, pip install '.[serve-pg,scan]'")
NOT_POSTGRESQL = ("photo workers need a PostgreSQL database (postgresql://USER@HOST/NAME, as the servers' --db); the "
                  "laptop evening reads photos in the server")


def worker(
    db: Annotated[str, typer.Option("--db", metavar="URL", help="The game database the servers use: "
                                    "postgresql://USER[:PASSWORD]@HOST[:PORT]/NAME (its password is never "
                                    "printed).", show_default=False)],
    concurrency: Annotated[int | None, typer.Option("--concurrency", "-c", click_type=opt.WHOLE, help="Photos read "
                                                    "at once, one process each, 1-64 (default: one a core, at most "
                                                    "4).", show_default=False)] = None,
) -> None:
    """Reads the photos handed in to a PostgreSQL game night, on any machine that reaches the database.

    A phone's photo is stored in the database and queued; its phone shows "reading…" until a worker
    has read it. Run as many workers as the evening needs, on as many machines: each reads
    --concurrency photos at once (one process and one core each). Prints a line now and then: photos
    read, refused, per second. Ctrl-C (or SIGTERM) stops it once the photo being read is stored; a
    second Ctrl-C stops at once, and that photo is read again by another worker (as it is when a
    worker's machine dies).

    Examples:

    \b
      paperplay worker --db postgresql://paperplay@db.example.org/gamenight
      paperplay worker --db postgresql://paperplay@10.0.0.5:5432/gamenight --concurrency 8
      paperplay worker --db postgresql:///gamenight -c 2

    The laptop evening (paperplay serve with no --db, or a file) needs no worker: its server reads the
    photos itself.
    """
    if concurrency is not None and not 1 <= concurrency <= 64:
        raise InputError(f"is {concurrency}; expected 1-64", field="concurrency")
    if not db.lower().startswith(("postgresql://", "postgres://")):
        raise InputError(f"is {printable(without_passwords(db))!r}; {NOT_POSTGRESQL}", field="db")
    try:
        import procrastinate  # noqa: F401
        import psycopg  # noqa: F401
    except ImportError:
        raise InputError(WORKER_INSTALL) from None
    _need_extra()
    from paperplay.serve.queue import run_worker

    count = concurrency or max(1, min(4, os.cpu_count() or 1))
    shown = without_passwords(db)  # the password is never printed

    def started() -> None:
        typer.echo(f"Reading photos from {shown} with {count} process{'es' if count != 1 else ''}: Ctrl-C stops "
                   "(the photo being read is stored first).")
        sys.stdout.flush()

    def progress(tally: object) -> None:
        typer.echo(f"  {tally.line()}")  # type: ignore[attr-defined]
        sys.stdout.flush()

    try:
        run_worker(db, count, progress=progress, started=started)
    except InputError:
        raise
    except Exception as exc:
        import psycopg

        if not isinstance(exc, psycopg.Error):
            raise
        line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"is {shown}; the database cannot be used ({_scrubbed(line, db)})", field="db") from None
    raise KeyboardInterrupt  # a worker ends only when stopped (Ctrl-C, SIGTERM): exit 130


def _scrubbed(line: str, url: str) -> str:
    """A database's error line without the URL's password: the URL redacted, and the password itself wherever the
    line quotes it (as written, or decoded)."""
    from urllib.parse import unquote

    line = without_passwords(line.replace(url, without_passwords(url)))
    try:
        password = urlsplit(url).password or ""
    except ValueError:
        password = ""
    for secret in {password, unquote(password)}:
        if len(secret) >= 3:
            line = line.replace(secret, "***")
    return line


def register(app: typer.Typer) -> None:
    app.command(cls=opt.OnceCommand, short_help=SHORT_HELP["serve"])(guarded(serve))
    app.command(cls=opt.OnceCommand, short_help=SHORT_HELP["worker"])(guarded(worker))
