"""The game night server (`paperplay serve`): an ASGI app (Starlette) over the game database.

Pages (paperplay.serve.pages renders them; each calls the API below from the same origin):

    GET /host?key=KEY[&lang=L]  the host's page (the key is the secret the serve command printed; 401
                                without it): pages.render("host", key=, lang=, variants=)
    GET /join/{code}            a player's page: hand in a sheet (typed, or a photo), correct it:
                                pages.render("player", code=, lang=)
    GET /projector/{code}[?key=KEY]  the projector: the tiles called, the join QR code, then the ranking:
                                pages.render("projector", code=, key= (the key if valid, else ""),
                                join_url=, lang=)
An unknown game's page is a 404 (JSON error). Pages are sent with a CSP header that allows inline
scripts and styles, images from the server, data: and blob:, and requests to the server only.

The JSON API. Every answer is JSON (UTF-8, `<`, `>` and `&` written as \\u escapes, never cached);
every error is `{"error": "<one line, naming the field>"}` with its status: 400 bad input, 401 no or
wrong host key, 403 not your sheet, 404 no such game/sheet, 409 not now (the game's state), 413 too
large, 415 wrong Content-Type, 503 busy (with Retry-After, seconds). Host calls carry the key as
`X-Paperplay-Key: KEY` or `?key=KEY`; a sheet's owner carries its token as `X-Paperplay-Token: TOKEN`
or `?token=TOKEN` (the host's key works wherever a token does). Codes are written either way
(7KQ2-M9XD or 7KQ2M9XD); answers write them 7KQ2-M9XD. A tile is an integer, or "*" for the wild.
Before the reveal no answer holds the seed or a tile not yet called.

    POST /api/games                       host  {"players": N, "seed"?: S, "variant"?: V, "lang"?: en|da|de}
                                                -> 201 {"code", "join_url"}
    GET  /api/games                       host  -> {"games": [game state, ...]} (newest last)
    GET  /api/games/{code}[?wait=V]       any   -> game state (below); with wait=V, answered when the
                                                state's version differs from V, or after 25 s as it is
    GET  /api/games/{code}/events         any   server-sent events (text/event-stream): the game state now, then
                                                each new one (event "state", id its version, data the state),
                                                a comment every 15 s; the stream ends after 10 minutes
                                                (a browser's EventSource opens the next one by itself)
    POST /api/games/{code}/call           host  body optional {"turn": K}: call turn K (a retry of a turn
                                                called already answers it again; another K is 409)
                                                -> {"turn", "tile", "turns", "called"}
    POST /api/games/{code}/reveal         host  -> game state, now with "seed" and "draw"
    POST /api/games/{code}/sheets         any   hand in a sheet -> 201 (200: a retry, see below) sheet
           application/json     {"name": "Ann", "cells": [20 tiles]}
           multipart/form-data  photo=<JPEG or PNG, at most 10 MB>, name=<optional; default "sheet n/N">
           Header `Idempotency-Key: <8-100 letters, digits, - or _>`: a retry with the same key gets
           the sheet stored the first time (never a second sheet).
    GET  /api/games/{code}/sheets         host  -> {"sheets": [sheet, ...]} (tokens left out)
    GET  /api/games/{code}/sheets/{id}    token -> sheet
    PUT  /api/games/{code}/sheets/{id}    token {"cells": [20 tiles]} or {"cells": {"7": 12, ...}} (some
                                                boxes by number): each box named is set and unflagged
                                                -> sheet. After the reveal, only the host may.
    DELETE /api/games/{code}/sheets/{id}  host  -> {"deleted": id}
    GET  /api/games/{code}/sheets/{id}/file        token  the sheet file (streams-sheet JSON) that
                                                `paperplay score` reads (its seed once revealed)
    GET  /api/games/{code}/sheets/{id}/boxes/{n}.png  token  box n as photographed (photo sheets)
    GET  /api/games/{code}/results        any   after the reveal (409 before): exactly what
                                                `paperplay score sheet-<id>.json ... --json` prints
                                                for the sheet files above: {"results", "ranking"}
    GET  /api/games/{code}/results.html   any   after the reveal: the results page (one HTML file)
    GET  /api/games/{code}/kit.pdf        host  the kit in the game's language: the tiles to cut out
                                                and one sheet a player (the caller's sheet, which holds
                                                the seed, only after the reveal)
    GET  /api/games/{code}/sheets.pdf     host  scannable sheets, one a player (the published game)
    GET  /api/games/{code}/join.svg       any   the join URL's QR code (SVG)
    GET  /api/health                      any   -> {"ok": true, "photo_workers_ready": bool, "photos_waiting": n,
                                                "phones_waiting": n, "uploads_in_flight": bytes}

Game state: {"code", "game": "streams", "variant" (null: the published game), "lang", "players",
"turn" (tiles called), "turns" (20), "called": [tiles], "last" (the last tile called, or null),
"handed_in": [{"id", "name", "kind", "flagged"}], "revealed", "version", "join_url"}; once
revealed also "seed" and "draw".

Sheet: {"id", "name", "kind": "typed"|"photo", "printed" (a photo's "n/N", else null), "boxes": [{"box",
"value", "flagged", "why"} + for a photo "free", "free_p", "matched", "matched_p", "candidates"
(values to offer, likeliest first), "crop" (a flagged box's image, a PNG data URL; else null), "crop_url"
(the box's image: a URL)], "flagged": [box numbers],
"created", "updated"}; its owner's answers (hand-in, GET and PUT with its token) also hold "token".
A typed box is flagged when its number has not been called (or is written more often than called).
A photo is matched to the draw once every tile is called (else read freely).
"""

from __future__ import annotations

import hmac
import json
import re
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from paperplay.errors import InputError
from paperplay.seeds import canonical_seed, display_code, game_code, generate_seed
from paperplay.serve import game as rules
from paperplay.serve import numbers
from paperplay.serve.guard import Door, Guard
from paperplay.serve.live import Live
from paperplay.serve.photos import Full, PhotoReader
from paperplay.serve.store import Conflict, Game, SheetRow, Store
from paperplay.streams.rules import draw, tile_json

MAX_PHOTO = 10 * 1024 * 1024
"""The largest photo upload (bytes): a phone's photo is 2-6 MB."""
MAX_JSON = 64 * 1024
"""The largest JSON body (a typed sheet is about 200 bytes)."""
FORM_ROOM = 64 * 1024
"""What a photo's form may hold besides the photo (its name field, the parts' headers)."""
WAIT_LIMIT = 25.0
"""The longest a `?wait=` request is held before it is answered as it is."""
RETRY_AFTER = 5
_IDEMPOTENCY = re.compile(r"[A-Za-z0-9_-]{8,100}")
CSP = ("default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
       "img-src 'self' data: blob:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")


class ApiError(Exception):
    """An answer other than success: its status and one line naming the field."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


class _TooLarge(Exception):
    pass


class Json(JSONResponse):
    """JSON as the API writes it: UTF-8, and <, > and & escaped, so no browser takes it for a page."""

    def render(self, content: Any) -> bytes:
        text = json.dumps(content, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").encode()


def error(status: int, message: str, headers: dict[str, str] | None = None) -> Json:
    from paperplay.messages import one_line

    return Json({"error": one_line(message)}, status_code=status, headers=headers)


@dataclass
class Server:
    """What the app works with: the database, the photo workers, the address players reach."""

    store: Store
    photos: PhotoReader
    base_url: str
    spool: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="paperplay-serve-")))
    live: Live = field(default_factory=Live)
    """The phones waiting for a game to change (paperplay.serve.live)."""
    door: Door = field(default_factory=Door)
    """The server's own names, the limits on requests' bodies and the bytes they hold (paperplay.serve.guard)."""

    def notify(self, code: str) -> None:
        self.live.notify(code)


# --- access -----------------------------------------------------------------------------------------

def _given(request: Request, header: str, query: str) -> str:
    return request.headers.get(header) or request.query_params.get(query) or ""


def _same(given: str, secret: str) -> bool:
    return hmac.compare_digest(given.encode("utf-8", "surrogatepass"), secret.encode())


def is_host(request: Request) -> bool:
    server: Server = request.app.state.server
    return _same(_given(request, "x-paperplay-key", "key"), server.store.host_key())


def need_host(request: Request) -> None:
    if not is_host(request):
        given = _given(request, "x-paperplay-key", "key")
        raise ApiError(401, f"key: {'is wrong' if given else 'missing'}; host calls carry the key of the host page's "
                            "link (header X-Paperplay-Key or ?key=)")


def need_owner(request: Request, sheet: SheetRow) -> None:
    """The sheet's token, or the host's key; else 403 (401 when nothing was given)."""
    if is_host(request):
        return
    token = _given(request, "x-paperplay-token", "token")
    if not token:
        raise ApiError(401, "token: missing; a sheet is read and corrected with the token its hand-in gave "
                            "(header X-Paperplay-Token or ?token=)")
    if not _same(token, sheet.token):
        raise ApiError(403, f"token: is not sheet {sheet.id}'s; a player can only see and correct their own sheet")


# --- reading requests -------------------------------------------------------------------------------

def limited(request: Request, limit: int, what: str) -> Request:
    """The request with its body counted as it arrives: past `limit` bytes it stops with a 413."""
    declared = numbers.content_length(request.headers.get("content-length"))
    if declared is not None and declared > limit:
        raise ApiError(413, f"{what}: is {declared:,} bytes; expected at most {limit:,}")
    receive = request.receive
    seen = 0

    async def counted() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > limit:
                raise _TooLarge(f"{what}: is more than {limit:,} bytes; expected at most {limit:,}")
        return message

    return Request(request.scope, counted)


async def json_body(request: Request, optional: bool = False) -> dict[str, Any]:
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    body = await limited(request, MAX_JSON, "body").body()
    if optional and not body.strip():
        return {}
    if kind != "application/json":
        raise ApiError(415, f"Content-Type: is {kind or 'missing'!r}; expected application/json")
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise ApiError(400, f"body: is not JSON ({str(exc).split(':')[0]})") from None
    if not isinstance(data, dict):
        raise ApiError(400, "body: expected a JSON object")
    return data


def only_fields(data: dict[str, Any], allowed: tuple[str, ...]) -> None:
    for name in data:
        if name not in allowed:
            raise ApiError(400, f"{rules.shown(name)[1:-1]}: unknown field; expected {', '.join(allowed)}")


def game_of(request: Request) -> Game:
    server: Server = request.app.state.server
    text = request.path_params["code"]
    try:
        code = canonical_seed(text)
    except InputError:
        code = ""
    found = server.store.game(code) if len(code) == 8 else None
    if found is None:
        raise ApiError(404, f"code: no game {rules.shown(text)} on this server")
    return found


def sheet_of(request: Request, game: Game) -> SheetRow:
    server: Server = request.app.state.server
    text = request.path_params["sheet"]
    found = server.store.sheet(game.code, numbers.whole(text, "id", 0, 10**12))
    if found is None:
        raise ApiError(404, f"id: no sheet {rules.shown(text)} in game {display_code(game.code)}")
    return found


# --- answers ----------------------------------------------------------------------------------------

def state(server: Server, game: Game, sheets: list[SheetRow]) -> dict[str, Any]:
    called = rules.called_tiles(game)
    out: dict[str, Any] = {
        "code": display_code(game.code), "game": "streams", "variant": game.variant, "lang": game.lang,
        "players": game.players, "turn": game.turn, "turns": rules.total_turns(game),
        "called": [tile_json(t) for t in called[:game.turn]],
        "last": tile_json(called[game.turn - 1]) if game.turn else None,
        "handed_in": [{"id": s.id, "name": s.name, "kind": s.kind, "flagged": sum(b["flagged"] for b in s.boxes)}
                      for s in sheets],
        "revealed": game.revealed, "version": game.version, "join_url": join_url(server, game),
    }
    if game.revealed:
        out["seed"] = display_code(game.seed)
        out["draw"] = [tile_json(t) for t in called]
    return out


def join_url(server: Server, game: Game) -> str:
    return f"{server.base_url}/join/{display_code(game.code)}"


def sheet_view(server: Server, game: Game, sheet: SheetRow, token: bool = False) -> dict[str, Any]:
    """A sheet as the API shows it; `token` for its owner's answers. A photo's flagged boxes carry their
    image as a data URL ("crop", what the pages show), every box its URL ("crop_url")."""
    import base64

    base = f"/api/games/{display_code(game.code)}/sheets/{sheet.id}"
    boxes = []
    for number, box in enumerate(sheet.boxes, start=1):
        view = {"box": number, **box}
        if sheet.kind == "photo":
            view["candidates"] = list(dict.fromkeys(v for v in (box["value"], box.get("matched"), box.get("free"))
                                                    if v is not None))
            png = server.store.crop(sheet.id, number) if box["flagged"] else None
            view["crop"] = "data:image/png;base64," + base64.b64encode(png).decode() if png else None
            view["crop_url"] = f"{base}/boxes/{number}.png" + (f"?token={sheet.token}" if token else "")
        boxes.append(view)
    out: dict[str, Any] = {"id": sheet.id, "name": sheet.name, "kind": sheet.kind, "printed": sheet.printed,
                           "boxes": boxes, "flagged": [b["box"] for b in boxes if b["flagged"]],
                           "created": sheet.created, "updated": sheet.updated}
    if token:
        out["token"] = sheet.token
    return out


# --- endpoints --------------------------------------------------------------------------------------

async def create_game(request: Request) -> Response:
    need_host(request)
    data = await json_body(request)
    only_fields(data, ("players", "seed", "variant", "lang"))
    players = rules.check_players(data.get("players"))
    variant = rules.check_variant(data.get("variant"))
    lang = rules.check_lang(data.get("lang"))
    seed = data.get("seed")
    if seed is not None:
        if not isinstance(seed, str):
            raise ApiError(400, f"seed: is {rules.shown(seed)}; expected a seed as text, e.g. 7KQ2-M9XD")
        try:
            seed = canonical_seed(seed)
        except InputError as exc:
            raise ApiError(400, f"seed: {exc}") from None
    server: Server = request.app.state.server
    for _ in range(5):  # a fresh seed's game code is new but for a one-in-a-trillion collision
        chosen = seed or generate_seed()
        try:
            game = await run_in_threadpool(server.store.create_game, game_code("streams", chosen), chosen, variant,
                                           lang, players)
            break
        except Conflict:
            if seed is not None:
                raise
    return Json({"code": display_code(game.code), "join_url": join_url(server, game)}, status_code=201)


async def list_games(request: Request) -> Response:
    need_host(request)
    server: Server = request.app.state.server
    games = await run_in_threadpool(server.store.games)
    return Json({"games": [state(server, g, server.store.sheets(g.code)) for g in games]})


async def get_game(request: Request) -> Response:
    server: Server = request.app.state.server
    game = game_of(request)
    wait = request.query_params.get("wait")
    if wait is not None:
        seen = numbers.whole(wait, "wait", 0, 10**12, what="the version of the state last seen,")
        current = [game]

        def changed() -> bool:
            current[0] = game_of(request)
            return current[0].version != seen

        await server.live.wait_for(game.code, changed, WAIT_LIMIT)
        game = current[0]
    return Response(rendered_state(server, game), media_type="application/json")


def rendered_state(server: Server, game: Game) -> bytes:
    """The game's state as JSON, rendered once a version whatever the number of phones asking
    (paperplay.serve.live)."""
    return server.live.rendered(game.code, game.version,
                                lambda: bytes(Json(state(server, game, server.store.sheets(game.code))).body))


async def game_events(request: Request) -> Response:
    server: Server = request.app.state.server
    game = game_of(request)

    def current() -> tuple[int, bytes]:
        now = game_of(request)
        return now.version, rendered_state(server, now)

    return StreamingResponse(server.live.events(game.code, current), media_type="text/event-stream")


async def call_tile(request: Request) -> Response:
    need_host(request)
    server: Server = request.app.state.server
    game = game_of(request)
    data = await json_body(request, optional=True)
    only_fields(data, ("turn",))
    turn = data.get("turn")
    total = rules.total_turns(game)
    if turn is not None and (not isinstance(turn, int) or isinstance(turn, bool) or not 1 <= turn <= total):
        raise ApiError(400, f"turn: is {rules.shown(turn)}; expected the turn to call, 1-{total}")
    game, _ = await run_in_threadpool(server.store.call, game.code, total, turn)
    server.notify(game.code)
    called = rules.called_tiles(game)
    shown = turn if turn is not None else game.turn
    return Json({"turn": shown, "tile": tile_json(called[shown - 1]), "turns": total,
                 "called": [tile_json(t) for t in called[:game.turn]]})


async def reveal(request: Request) -> Response:
    need_host(request)
    server: Server = request.app.state.server
    game = await run_in_threadpool(server.store.reveal, game_of(request).code)
    server.notify(game.code)
    return Json(state(server, game, server.store.sheets(game.code)))


def _idempotency(request: Request) -> str | None:
    key = request.headers.get("idempotency-key")
    if key is None:
        return None
    if not _IDEMPOTENCY.fullmatch(key):
        raise ApiError(400, "Idempotency-Key: expected 8-100 letters, digits, - or _ (one random key a hand-in)")
    return key


async def hand_in(request: Request) -> Response:
    server: Server = request.app.state.server
    game = game_of(request)
    key = _idempotency(request)
    if key is not None:
        done = await run_in_threadpool(server.store.by_idempotency, game.code, key)
        if done is not None:
            return Json(sheet_view(server, game, done, token=True), status_code=200)
    if game.revealed:
        raise ApiError(409, "code: the game is revealed; sheets can no longer be handed in")
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind == "multipart/form-data":
        return await _hand_in_photo(request, server, game, key)
    if kind != "application/json":
        raise ApiError(415, f"Content-Type: is {kind or 'missing'!r}; expected application/json (a typed sheet) or "
                            "multipart/form-data (a photo)")
    data = await json_body(request)
    only_fields(data, ("name", "cells"))
    name = rules.check_name(data.get("name"))
    cells = rules.check_cells(data.get("cells"), rules.game_rules(game.variant))
    rules.check_document(game, name, cells)
    boxes = rules.typed_boxes(cells, rules.called_tiles(game)[:game.turn])
    sheet, new = await run_in_threadpool(server.store.add_sheet, game.code, name, "typed", boxes, None, key)
    server.notify(game.code)
    return Json(sheet_view(server, game, sheet, token=True), status_code=201 if new else 200)


async def _hand_in_photo(request: Request, server: Server, game: Game, key: str | None) -> Response:
    if game.variant is not None:
        raise ApiError(400, f"photo: game {display_code(game.code)} is variant {game.variant}; photos are read for "
                            "the published game's scannable sheets only: type the sheet instead")
    try:
        server.photos.reserve()
    except Full:
        raise ApiError(503, f"photo: {server.photos.limit} photos are being read; send it again in a few seconds",
                       {"Retry-After": str(RETRY_AFTER)}) from None
    path = None
    try:
        form_request = limited(request, MAX_PHOTO + FORM_ROOM, "photo")
        async with form_request.form(max_files=1, max_fields=2, max_part_size=FORM_ROOM) as form:
            photo = form.get("photo")
            name_field = form.get("name")
            if photo is None or isinstance(photo, str):
                raise ApiError(400, "photo: missing; expected the photo as the form's file field 'photo'")
            if photo.size is not None and photo.size > MAX_PHOTO:
                raise ApiError(413, f"photo: is {photo.size:,} bytes; expected at most {MAX_PHOTO:,}")
            name = rules.check_name(name_field) if name_field not in (None, "") else None
            handle, named = tempfile.mkstemp(suffix=".photo", dir=server.spool)
            path = named
            await run_in_threadpool(_save, photo.file, handle)
        game = game_of(request)
        total = rules.total_turns(game)
        drawn = rules.called_tiles(game) if game.turn >= total or game.revealed else None
        sent = time.perf_counter()
        try:
            read = await server.photos.read(path, drawn)
        except TimeoutError:
            raise ApiError(503, "photo: took too long to read; send it again", {"Retry-After": str(RETRY_AFTER)}) \
                from None
    finally:
        server.photos.release()
        if path is not None:
            Path(path).unlink(missing_ok=True)
    # how long the photo waited for a worker and was read (ms), for the benchmark and the browser's tools
    timing = {"Server-Timing": f"queue;dur={(time.perf_counter() - sent - read['seconds']) * 1000:.0f}, "
                               f"read;dur={read['seconds'] * 1000:.0f}"}
    if "error" in read:
        raise ApiError(400, f"photo: {read['error']}", timing)
    if read["code"] != game.code:
        raise ApiError(400, f"photo: shows a sheet of game {display_code(read['code'])}; this is game "
                            f"{display_code(game.code)}")
    name = name or f"sheet {read['sheet']}"
    sheet, new = await run_in_threadpool(server.store.add_sheet, game.code, name, "photo", read["boxes"],
                                         read["sheet"], key, read["crops"])
    server.notify(game.code)
    return Json(sheet_view(server, game, sheet, token=True), status_code=201 if new else 200, headers=timing)


def _save(source: Any, handle: int) -> None:
    import shutil

    source.seek(0)
    with open(handle, "wb") as out:
        shutil.copyfileobj(source, out, 1024 * 1024)


async def list_sheets(request: Request) -> Response:
    need_host(request)
    server: Server = request.app.state.server
    game = game_of(request)
    return Json({"sheets": [sheet_view(server, game, s) for s in server.store.sheets(game.code)]})


async def get_sheet(request: Request) -> Response:
    server: Server = request.app.state.server
    game = game_of(request)
    sheet = sheet_of(request, game)
    need_owner(request, sheet)
    return Json(sheet_view(server, game, sheet, token=not is_host(request)))


async def correct_sheet(request: Request) -> Response:
    server: Server = request.app.state.server
    game = game_of(request)
    sheet = sheet_of(request, game)
    need_owner(request, sheet)
    data = await json_body(request)
    only_fields(data, ("cells",))
    variant = rules.game_rules(game.variant)
    changes = rules.check_corrections(data.get("cells"), variant)
    boxes = rules.corrected(sheet.boxes, changes)
    rules.check_document(game, sheet.name, [rules.check_tile(b["value"], "cells", variant) for b in boxes])
    host = is_host(request)
    sheet = await run_in_threadpool(server.store.update_boxes, game.code, sheet.id, boxes, host)
    server.notify(game.code)
    return Json(sheet_view(server, game, sheet, token=not host))


async def delete_sheet(request: Request) -> Response:
    need_host(request)
    server: Server = request.app.state.server
    game = game_of(request)
    sheet = sheet_of(request, game)
    await run_in_threadpool(server.store.delete_sheet, game.code, sheet.id)
    server.notify(game.code)
    return Json({"deleted": sheet.id})


async def sheet_file(request: Request) -> Response:
    game = game_of(request)
    sheet = sheet_of(request, game)
    need_owner(request, sheet)
    return Json(rules.sheet_document(game, sheet),
                headers={"Content-Disposition": f'attachment; filename="{rules.source_name(sheet)}"'})


async def box_image(request: Request) -> Response:
    server: Server = request.app.state.server
    game = game_of(request)
    sheet = sheet_of(request, game)
    need_owner(request, sheet)
    box = request.path_params["box"]
    png = server.store.crop(sheet.id, numbers.whole(box, "box", 1, 99))
    if png is None:
        raise ApiError(404, f"box: sheet {sheet.id} has no image of box {rules.shown(box)}")
    return Response(png, media_type="image/png")


def _revealed(game: Game) -> None:
    if not game.revealed:
        raise ApiError(409, f"code: game {display_code(game.code)} is not revealed yet; the results come after the "
                            "host reveals it")


async def results(request: Request) -> Response:
    server: Server = request.app.state.server
    game = game_of(request)
    _revealed(game)
    sheets = server.store.sheets(game.code)
    return Json(await run_in_threadpool(rules.results, game, sheets))


async def results_page(request: Request) -> Response:
    server: Server = request.app.state.server
    game = game_of(request)
    _revealed(game)
    page = await run_in_threadpool(rules.results_page, game, server.store.sheets(game.code))
    return Response(page, media_type="text/html; charset=utf-8")


async def kit_pdf(request: Request) -> Response:
    need_host(request)
    game = game_of(request)
    data = await run_in_threadpool(_kit, game)
    return _pdf(data, f"streams-{game.code}-kit.pdf")


def kit_document(game: Game) -> Any:
    """The game's kit (paperplay kit streams): until the reveal without the caller's sheet, which holds
    the seed and the draw (the server calls the tiles)."""
    from paperplay.games import find_game

    doc = find_game("streams").module().kit(game.seed, {"players": game.players, "variant": game.variant,
                                                         "lang": game.lang})
    return doc if game.revealed else type(doc)(doc.title, doc.pages[1:], doc.forms, doc.subject)


def _kit(game: Game) -> bytes:
    from paperplay.render.pdf import render_bytes

    return render_bytes(kit_document(game))


async def sheets_pdf(request: Request) -> Response:
    need_host(request)
    game = game_of(request)
    if game.variant is not None:
        raise ApiError(409, f"code: game {display_code(game.code)} is variant {game.variant}; scannable sheets are "
                            "for the published game (the kit has this variant's sheets)")
    data = await run_in_threadpool(_scannable_sheets, game)
    return _pdf(data, f"streams-{game.code}-sheets.pdf")


def _scannable_sheets(game: Game) -> bytes:
    from paperplay.games import find_game
    from paperplay.render.pdf import render_bytes

    return render_bytes(find_game("streams").module().sheets(game.seed, {"players": game.players,
                                                                          "scannable": True}))


def _pdf(data: bytes, name: str) -> Response:
    return Response(data, media_type="application/pdf",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


async def join_qr(request: Request) -> Response:
    import io

    import qrcode
    import qrcode.image.svg

    server: Server = request.app.state.server
    image = qrcode.make(join_url(server, game_of(request)), image_factory=qrcode.image.svg.SvgPathImage, border=2)
    out = io.BytesIO()
    image.save(out)
    return Response(out.getvalue(), media_type="image/svg+xml")


async def health(request: Request) -> Response:
    server: Server = request.app.state.server
    return Json({"ok": True, "photo_workers_ready": server.photos.ready, "photos_waiting": server.photos.waiting,
                 "phones_waiting": server.live.waiting, "uploads_in_flight": server.door.in_flight})


# --- pages ------------------------------------------------------------------------------------------

def _render(name: str, **ctx: Any) -> str:
    """A page from paperplay.serve.pages; a plain one while that module is not there."""
    try:
        from paperplay.serve import pages
    except ImportError:
        from html import escape

        words = " ".join(f"{k}={escape(str(v))}" for k, v in ctx.items())
        return (f"<!doctype html><html lang=en><meta charset=utf-8><title>paperplay {escape(name)}</title>"
                f"<p>paperplay game night: the {escape(name)} page ({words}) comes here.</p></html>")
    page: str = pages.render(name, **ctx)
    return page


def _page(html: str, status: int = 200) -> Response:
    return HTMLResponse(html, status_code=status, headers={"Content-Security-Policy": CSP})


def _lang(request: Request) -> str:
    from paperplay.i18n import LANGUAGES

    lang = request.query_params.get("lang", "en")
    return lang if lang in LANGUAGES else "en"


async def host_page(request: Request) -> Response:
    from paperplay.streams.rules import shipped_variants

    if not is_host(request):
        return _page("<!doctype html><html lang=en><meta charset=utf-8><title>paperplay: host page</title>"
                     "<p>This page needs the host's link, with its key, as <code>paperplay serve</code> printed it."
                     "</p></html>", 401)
    key = _given(request, "x-paperplay-key", "key")
    return _page(_render("host", key=key, lang=_lang(request), variants=shipped_variants()))


async def player_page(request: Request) -> Response:
    game = game_of(request)
    return _page(_render("player", code=display_code(game.code), lang=game.lang))


async def projector_page(request: Request) -> Response:
    server: Server = request.app.state.server
    game = game_of(request)
    key = _given(request, "x-paperplay-key", "key") if is_host(request) else ""
    return _page(_render("projector", code=display_code(game.code), key=key, join_url=join_url(server, game),
                         lang=game.lang))


async def home(request: Request) -> Response:
    return RedirectResponse("/host", status_code=303) if request.query_params.get("key") else _page(
        "<!doctype html><html lang=en><meta charset=utf-8><title>paperplay</title>"
        "<p>paperplay game night. Players: open the link or scan the QR code on the projector.</p></html>")


# --- the app ----------------------------------------------------------------------------------------

def _api(handler: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
    """Turns the errors an endpoint raises into their JSON answers."""

    async def answer(request: Request) -> Response:
        try:
            return await handler(request)
        except ApiError as exc:
            return error(exc.status, exc.message, exc.headers)
        except _TooLarge as exc:
            return error(413, str(exc))
        except InputError as exc:
            return error(400, str(exc))
        except Conflict as exc:
            return error(409, str(exc))
        except HTTPException as exc:  # the form parser's: a malformed multipart body
            return error(exc.status_code, f"photo: {exc.detail}")

    return answer


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


def build_app(server: Server) -> Starlette:
    """The ASGI app over a Server (its store open, its photo workers started or to be started)."""
    routes = [
        Route("/", home),
        Route("/host", host_page),
        Route("/join/{code}", _api(player_page)),
        Route("/projector/{code}", _api(projector_page)),
        Route("/api/health", _api(health)),
        Route("/api/games", _api(create_game), methods=["POST"]),
        Route("/api/games", _api(list_games), methods=["GET"]),
        Route("/api/games/{code}", _api(get_game), methods=["GET"]),
        Route("/api/games/{code}/events", _api(game_events), methods=["GET"]),
        Route("/api/games/{code}/call", _api(call_tile), methods=["POST"]),
        Route("/api/games/{code}/reveal", _api(reveal), methods=["POST"]),
        Route("/api/games/{code}/sheets", _api(hand_in), methods=["POST"]),
        Route("/api/games/{code}/sheets", _api(list_sheets), methods=["GET"]),
        Route("/api/games/{code}/sheets/{sheet}", _api(get_sheet), methods=["GET"]),
        Route("/api/games/{code}/sheets/{sheet}", _api(correct_sheet), methods=["PUT"]),
        Route("/api/games/{code}/sheets/{sheet}", _api(delete_sheet), methods=["DELETE"]),
        Route("/api/games/{code}/sheets/{sheet}/file", _api(sheet_file), methods=["GET"]),
        Route("/api/games/{code}/sheets/{sheet}/boxes/{box}.png", _api(box_image), methods=["GET"]),
        Route("/api/games/{code}/results", _api(results), methods=["GET"]),
        Route("/api/games/{code}/results.html", _api(results_page), methods=["GET"]),
        Route("/api/games/{code}/kit.pdf", _api(kit_pdf), methods=["GET"]),
        Route("/api/games/{code}/sheets.pdf", _api(sheets_pdf), methods=["GET"]),
        Route("/api/games/{code}/join.svg", _api(join_qr), methods=["GET"]),
    ]

    async def not_found(request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status_code", 404)
        what = "no such page" if status == 404 else f"{request.method} is not allowed here"
        return error(status, f"path: {what} ({rules.shown(request.url.path)[1:-1]})")

    async def crashed(request: Request, exc: Exception) -> Response:
        return error(500, f"internal error: {type(exc).__name__}: {exc}")

    rules.warm_up()
    app = Starlette(routes=routes, exception_handlers={404: not_found, 405: not_found, Exception: crashed})
    app.state.server = server
    app.add_middleware(Guard, door=server.door, spool=str(server.spool))
    app.add_middleware(Headers)
    return app


def drawn_tiles(game: Game) -> list[Any]:
    """The whole draw of a game (for tests and the benchmark; never an answer before the reveal)."""
    return list(draw(game.seed, rules.game_rules(game.variant)))
