"""The game night server (`paperplay serve`): an ASGI app (Starlette) over the game database.

The routes are grouped by resource in paperplay.serve.routes (games, sheets, files, views: the pages);
what they share (reading requests, the host's key, writing answers) is paperplay.serve.web. Errors are
raised (paperplay.serve.errors.ApiError, a store Conflict, an InputError naming its field) and turned
into their one-line JSON answers, `{"error": "…", "code": "…"}`, by Starlette's exception handlers
here. docs/reference/api.md is the API: every endpoint, field and error code.
"""

from __future__ import annotations

import asyncio
import sqlite3

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from paperplay.errors import InputError
from paperplay.serve import checks
from paperplay.serve.errors import ApiError, Code, Conflict
from paperplay.serve.guard import LOG, Guard
from paperplay.serve.routes import files, games, players, sheets, views
from paperplay.serve.store import StoreUnavailable
from paperplay.serve.web import Server, error

__all__ = ["Server", "build_app"]


class Headers:
    """Adds the headers every answer carries: nothing cached, nothing sniffed, framed or referred."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                have = {name.lower() for name, _ in headers}
                for name, value in ((b"cache-control", b"no-store"), (b"x-content-type-options", b"nosniff"),
                                    (b"referrer-policy", b"no-referrer"), (b"x-frame-options", b"DENY")):
                    if name not in have:
                        headers.append((name, value))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, sending)


ROUTES = [
    Route("/", views.home),
    Route("/host", views.host_page),
    Route("/join/{code}", views.player_page),
    Route("/projector/{code}", views.projector_page),
    Route("/api/health", files.health),
    Route("/api/games", games.create_game, methods=["POST"]),
    Route("/api/games", games.list_games, methods=["GET"]),
    Route("/api/games/{code}", games.get_game, methods=["GET"]),
    Route("/api/games/{code}/events", games.game_events, methods=["GET"]),
    Route("/api/games/{code}", games.change_game, methods=["PATCH"]),
    Route("/api/games/{code}/players", players.join, methods=["POST"]),
    Route("/api/games/{code}/players", players.list_players, methods=["GET"]),
    Route("/api/games/{code}/players/{player}/sheet.pdf", players.own_sheet, methods=["GET"]),
    Route("/api/games/{code}/players/{player}", players.remove, methods=["DELETE"]),
    Route("/api/games/{code}/players/{player}", players.hide, methods=["PATCH"]),
    Route("/api/games/{code}/call", games.call_tile, methods=["POST"]),
    Route("/api/games/{code}/reveal", games.reveal, methods=["POST"]),
    Route("/api/games/{code}/sheets", sheets.hand_in, methods=["POST"]),
    Route("/api/games/{code}/sheets", sheets.list_sheets, methods=["GET"]),
    Route("/api/games/{code}/sheets/{sheet}", sheets.get_sheet, methods=["GET"]),
    Route("/api/games/{code}/sheets/{sheet}", sheets.correct_sheet, methods=["PUT"]),
    Route("/api/games/{code}/sheets/{sheet}", sheets.rename_sheet, methods=["PATCH"]),
    Route("/api/games/{code}/sheets/{sheet}", sheets.delete_sheet, methods=["DELETE"]),
    Route("/api/games/{code}/sheets/{sheet}/file", sheets.sheet_file, methods=["GET"]),
    Route("/api/games/{code}/sheets/{sheet}/boxes/{box}.png", sheets.box_image, methods=["GET"]),
    Route("/api/games/{code}/results", files.results, methods=["GET"]),
    Route("/api/games/{code}/results.html", files.results_page, methods=["GET"]),
    Route("/api/games/{code}/kit.pdf", files.kit_pdf, methods=["GET"]),
    Route("/api/games/{code}/sheets.pdf", files.sheets_pdf, methods=["GET"]),
    Route("/api/games/{code}/join.svg", files.join_qr, methods=["GET"]),
]


async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return error(exc.code, exc.message, exc.headers, exc.status, exc.extra)


async def _conflict(request: Request, exc: Exception) -> Response:
    return error(getattr(exc, "code", Code.REVEALED), str(exc))


async def _input_error(request: Request, exc: Exception) -> Response:
    """A field that holds what it cannot: 400 with the field named (a BadNumber carries its own code)."""
    return error(getattr(exc, "code", None) or Code.BAD_INPUT, str(exc), status=getattr(exc, "status", 400))


async def _http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own: no route (404), a method the route does not take (405), a malformed form (400)."""
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        return error(Code.NO_PAGE, f"path: no such page ({checks.shown(request.url.path)[1:-1]})")
    if exc.status_code == 405:
        return error(Code.NOT_ALLOWED, f"path: {request.method} is not allowed here "
                                       f"({checks.shown(request.url.path)[1:-1]})")
    if exc.status_code == 413:
        return error(Code.TOO_LARGE, f"photo: {exc.detail}")
    return error(Code.BAD_INPUT, f"photo: {exc.detail}", status=400)


_DATABASE_TROUBLE = ("full", "locked", "busy", "disk i/o")
"""What SQLite says when the database cannot be written just now (the disk is full, another program holds it):
the server is in trouble, not the request."""


async def _database_trouble(request: Request, exc: Exception) -> Response:
    """The database cannot be written now: 503 with Retry-After (nothing was stored) and one line for the host."""
    text = str(exc)
    if not any(word in text.lower() for word in _DATABASE_TROUBLE):
        raise exc  # a bug: the door's one line and a 500
    LOG.error("paperplay: %s %s: the game database cannot be written (%s); nothing was stored", request.method,
              checks.shown(request.url.path)[1:-1], text)
    return error(Code.BUSY, f"database: cannot be written now ({text}); nothing was stored: send it again in a "
                            "few seconds", {"Retry-After": "5"})


async def _unavailable(request: Request, exc: Exception) -> Response:
    """The database cannot be reached now (PostgreSQL away, every connection busy): 503 with Retry-After."""
    LOG.error("paperplay: %s %s: the game database cannot be reached (%s); nothing was stored", request.method,
              checks.shown(request.url.path)[1:-1], exc)
    return error(Code.BUSY, "database: cannot be reached now; nothing was stored: send it again in a few seconds",
                 {"Retry-After": "5"})


async def _crashed(request: Request, exc: Exception) -> Response:
    LOG.error("paperplay serve: internal error on %s %s: %s: %s", request.method, request.url.path,
              type(exc).__name__, exc)
    return error(Code.INTERNAL, f"internal error: {type(exc).__name__}: {exc}")


class Wakeups:
    """Ties the database's notifications to the waiting phones, on the first request (the server's event loop
    runs by then): a change committed by any server process (or photo worker) wakes this process's phones
    (Store.listen: PgStore's LISTEN/NOTIFY). Only for a store shared by several processes (PostgreSQL); a
    laptop's SQLite store is written by this process alone, whose routes wake their own phones."""

    def __init__(self, app: ASGIApp, server: Server) -> None:
        self.app = app
        self.server = server
        self.listening: asyncio.Future[None] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.listening is None:
            loop = asyncio.get_running_loop()
            live = self.server.live

            def woken(key: str) -> None:
                try:
                    loop.call_soon_threadsafe(live.notify, key)
                except RuntimeError:  # the server is stopping: its loop is closed
                    pass

            self.listening = asyncio.ensure_future(asyncio.to_thread(self.server.store.listen, woken))
        if not self.listening.done():
            await asyncio.shield(self.listening)
        await self.app(scope, receive, send)


def build_app(server: Server) -> Starlette:
    """The ASGI app over a Server (its store open, its photo workers started or to be started)."""
    import logging

    checks.warm_up()
    # the form parser's own words for a malformed upload ("Expected boundary character …", with no client or
    # request) would reach the host's terminal: the phone's 400 says it, and the door logs what is the host's
    logging.getLogger("python_multipart").setLevel(logging.ERROR)
    logging.getLogger("multipart").setLevel(logging.ERROR)
    app = Starlette(routes=ROUTES, exception_handlers={
        ApiError: _api_error, Conflict: _conflict, InputError: _input_error, HTTPException: _http_error,
        sqlite3.OperationalError: _database_trouble, StoreUnavailable: _unavailable,
        Exception: _crashed})
    app.state.server = server
    if server.store.kind != "sqlite":
        app.add_middleware(Wakeups, server=server)
    app.add_middleware(Guard, door=server.door, spool=str(server.spool))
    app.add_middleware(Headers)
    return app
