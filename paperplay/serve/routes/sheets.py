"""The sheets of a game: hand one in (typed or a photo), read, correct, remove, its file, its boxes' images.
docs/reference/api.md."""

from __future__ import annotations

import math

import tempfile
import time
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from paperplay.seeds import display_code
from paperplay.serve import checks, numbers
from paperplay.serve.errors import ApiError, Code
from paperplay.serve.guard import client_address
from paperplay.serve.photos import Full, PhotoRefused, judge, not_an_image, retake
from paperplay.handin import check_complete, corrected, typed_boxes
from paperplay.serve.store import Game, Player, Refusal, SheetRow
from paperplay.serve.web import (
    FORM_ROOM, MAX_PHOTO, RETRY_AFTER, WAIT_LIMIT, Json, Server, big, game_of, has_view, idempotency_key, is_host,
    json_body, limit, limited, need_host, need_owner, only_fields, page_of, paging, placed, refusal_view, sheet_key,
    sheet_of, sheet_view,
)

def _open(game: Game) -> None:
    """Hand-ins open after the last tile, until the reveal, while the game is not locked (the store checks
    again as it stores: this answers before a photo is read)."""
    total = checks.total_turns(game)
    if game.revealed:
        raise ApiError(Code.REVEALED, "code: the game is revealed; sheets can no longer be handed in")
    if game.locked:
        raise ApiError(Code.LOCKED, "code: the host has locked the game; sheets can no longer be handed in")
    if game.turn < total:
        raise ApiError(Code.TOO_EARLY, f"code: hand-ins open after the last tile; {game.turn} of {total} tiles are "
                                       "called")


def _player(request: Request, server: Server, game: Game) -> Player | None:
    """The player handing in (their token, from joining), or None for a hand-in by name alone."""
    token = request.headers.get("x-paperplay-token") or request.query_params.get("token") or ""
    if not token:
        return None
    player = server.store.player_by_token(game.code, token)
    if player is None:
        raise ApiError(Code.NOT_YOURS, "token: is no player's of this game; join the game first (or hand in "
                                       "without a token)")
    return player


async def hand_in(request: Request) -> Response:
    server: Server = request.app.state.server
    game = game_of(request)
    key = idempotency_key(request)
    if key is not None:
        done = await run_in_threadpool(server.store.by_idempotency, game.code, key)
        if done is not None:
            return Json(sheet_view(server, game, done, token=True), status_code=200)
    limit(request, server.hand_ins, "hand-ins")
    _open(game)
    player = _player(request, server, game)
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind == "multipart/form-data":
        return await _hand_in_photo(request, server, game, key, player)
    if kind != "application/json":
        raise ApiError(Code.WRONG_TYPE, f"Content-Type: is {kind or 'missing'!r}; expected application/json (a typed "
                                        "sheet) or multipart/form-data (a photo)")
    data = await json_body(request)
    only_fields(data, ("name", "cells"))
    name = player.name if player is not None else checks.check_name(data.get("name"))
    cells = checks.check_cells(data.get("cells"), checks.game_rules(game.variant))
    checks.check_document(game, name, cells)
    sheet, new = await run_in_threadpool(server.store.add_sheet, game.code, name, "typed", typed_boxes(cells), None,
                                         key, (), player, checks.total_turns(game))
    server.notify(game.code)
    return Json(sheet_view(server, game, sheet, token=True), status_code=201 if new else 200)


async def _hand_in_photo(request: Request, server: Server, game: Game, key: str | None,
                         player: Player | None) -> Response:
    if game.variant is not None:
        raise ApiError(Code.NO_PHOTOS, f"photo: game {display_code(game.code)} is variant {game.variant}; photos are "
                                       "read for the published game's scannable sheets only: type the sheet instead")
    address = client_address(request)
    try:
        server.photos.reserve(address)
    except Full as full:
        busy = (f"{server.photos.limit} photos are being read" if full.whose == "server" else
                f"{server.photos.per_address} photos from this phone are being read already")
        raise ApiError(Code.BUSY, f"photo: {busy}; send it again in a few seconds",
                       {"Retry-After": str(RETRY_AFTER)}) from None
    path = None
    queued = getattr(server.store, "kind", "sqlite") == "postgresql"  # read by photo workers (serve.queue)
    try:
        form_request = limited(request, MAX_PHOTO + FORM_ROOM, "photo")
        async with form_request.form(max_files=1, max_fields=2, max_part_size=FORM_ROOM) as form:
            photo = form.get("photo")
            name_field = form.get("name")
            if photo is None or isinstance(photo, str):
                raise ApiError(Code.BAD_INPUT, "photo: missing; expected the photo as the form's file field 'photo'")
            if photo.size is not None and photo.size > MAX_PHOTO:
                raise ApiError(Code.TOO_LARGE, f"photo: is {photo.size:,} bytes; expected at most {MAX_PHOTO:,}")
            name = checks.check_name(name_field) if name_field not in (None, "") and player is None else None
            handle, named = tempfile.mkstemp(suffix=".photo", dir=server.spool)
            path = named
            await run_in_threadpool(_save, photo.file, handle)
        game = game_of(request)
        _open(game)
        data = await run_in_threadpool(Path(path).read_bytes)
        if (refused := not_an_image(data)) is not None:  # before a worker's turn, or a place in the game
            raise ApiError(refused.code, refused.error, extra=retake(refused, game.lang))
        if queued:
            return await _queue_photo(server, game, data, player.name if player else name, key, player)
        del data
        sent = time.perf_counter()
        try:  # every tile is called: the photo is matched to the draw
            read = await server.photos.read(path, checks.called_tiles(game))
        except TimeoutError:
            raise ApiError(Code.BUSY, "photo: took too long to read; send it again",
                           {"Retry-After": str(RETRY_AFTER)}) from None
    finally:
        server.photos.release(address)
        if path is not None:
            Path(path).unlink(missing_ok=True)
    # how long the photo waited for a worker and was read (ms), for the benchmark and the browser's tools
    timing = {"Server-Timing": f"queue;dur={(time.perf_counter() - sent - read['seconds']) * 1000:.0f}, "
                               f"read;dur={read['seconds'] * 1000:.0f}"}
    taken = judge(read, game.seed, player.name if player is not None else name)
    if isinstance(taken, PhotoRefused):
        raise ApiError(taken.code, taken.error, timing, extra=retake(taken, game.lang))
    sheet, new = await run_in_threadpool(server.store.add_sheet, game.code, taken.name, "photo", taken.boxes,
                                         taken.printed, key, taken.crops, player, checks.total_turns(game))
    server.notify(game.code)
    return Json(sheet_view(server, game, sheet, token=True), status_code=201 if new else 200, headers=timing)


async def _queue_photo(server: Server, game: Game, photo: bytes, name: str | None, key: str | None,
                       player: Player | None) -> Response:
    """A photo handed in to a PostgreSQL game: its sheet (state "reading"), its bytes and its job are committed
    together, and answered at once (202); a photo worker reads it (paperplay.serve.queue)."""
    store: Any = server.store  # PgStore (paperplay.serve.store_pg)
    sheet, new = await run_in_threadpool(store.add_photo, game.code, name, photo, key, player,
                                         checks.total_turns(game))
    server.notify(game.code)
    return Json(sheet_view(server, game, sheet, token=True) | {"version": game.version},
                status_code=202 if new else 200)


def _save(source: Any, handle: int) -> None:
    import shutil

    source.seek(0)
    with open(handle, "wb") as out:
        shutil.copyfileobj(source, out, 1024 * 1024)


async def list_sheets(request: Request) -> Response:
    """Every sheet (tokens left out): the host's; after the reveal also the projector's (its view token)."""
    server: Server = request.app.state.server
    game = game_of(request)
    if not (game.revealed and has_view(request, game)):
        need_host(request)
    hide = not is_host(request)
    asked = paging(request, always=big(game))
    if asked is None:
        return Json({"sheets": [sheet_view(server, game, s, hide=hide) for s in server.store.sheets(game.code)]})
    offset, size = asked

    def page() -> dict[str, Any]:
        rows = server.store.sheets_page(game.code, offset, size)
        return page_of([sheet_view(server, game, s, hide=hide) for s in rows], "sheets", offset, size,
                       server.store.counts(game.code).handed_in)

    return Json(await run_in_threadpool(page))


async def get_sheet(request: Request) -> Response:
    """A sheet for its owner (its token) or the host: with `?wait=VERSION` (the game's version last seen), held
    while its photo is being read ("reading"), or, once read, until the game changes (at most WAIT_LIMIT s).
    A photo the photo workers refused is answered as such ("refused", its line, code and advice)."""
    server: Server = request.app.state.server
    game = game_of(request)
    sheet_id = numbers.whole(request.path_params["sheet"], "id", 0, 10**12)
    found = _sheet_or_refusal(server, game, sheet_id)
    need_owner(request, found)
    wait = request.query_params.get("wait")
    if wait is not None:
        seen = numbers.whole(wait, "wait", 0, 10**12, what="the version of the state last seen,")
        reading = isinstance(found, SheetRow) and found.state == "reading"
        current: list[SheetRow | Refusal | None] = [found]

        def changed() -> bool:
            current[0] = _looked_up(server, game.code, sheet_id)
            now = current[0]
            if isinstance(now, SheetRow) and now.state == "reading":
                return False
            return now is None or reading or game_of(request).version != seen

        # a photo read wakes the phones waiting on that sheet alone (paperplay.serve.queue notifies both)
        await server.live.wait_for(sheet_key(game.code, sheet_id) if reading else game.code, changed, WAIT_LIMIT,
                                   client_address(request), request.receive)
        found = _sheet_or_refusal(server, game, sheet_id)
        game = game_of(request)
    host = is_host(request)
    if isinstance(found, Refusal):
        return Json(refusal_view(game, found, token=not host) | {"version": game.version})
    return Json(sheet_view(server, game, found, token=not host) | {"version": game.version}
                | placed(server, game, found))


def _looked_up(server: Server, code: str, sheet_id: int) -> SheetRow | Refusal | None:
    sheet = server.store.sheet(code, sheet_id)
    store: Any = server.store
    if sheet is None and getattr(store, "kind", "sqlite") == "postgresql":  # PgStore: a refused photo's record
        refusal: Refusal | None = store.refusal(code, sheet_id)
        return refusal
    return sheet


def _sheet_or_refusal(server: Server, game: Game, sheet_id: int) -> SheetRow | Refusal:
    found = _looked_up(server, game.code, sheet_id)
    if found is None:
        raise ApiError(Code.NO_SHEET, f"id: no sheet {sheet_id} in game {display_code(game.code)}")
    return found


def _not_reading(sheet: SheetRow) -> None:
    if sheet.state == "reading":
        raise ApiError(Code.READING, f"id: sheet {sheet.id}'s photo is still being read; its boxes come in a "
                                     "moment (GET it with ?wait=)")


async def correct_sheet(request: Request) -> Response:
    server: Server = request.app.state.server
    game = game_of(request)
    sheet = sheet_of(request, game)
    need_owner(request, sheet)
    _not_reading(sheet)
    data = await json_body(request)
    only_fields(data, ("cells",))
    variant = checks.game_rules(game.variant)
    changes = checks.check_corrections(data.get("cells"), variant)
    host = is_host(request)
    if not host and (wait := server.pace.take(f"{game.code}/{sheet.id}")):
        seconds = max(1, math.ceil(wait))
        raise ApiError(Code.TOO_FAST, f"cells: changes come faster than {server.pace.per_second:g} a second to one "
                                      f"sheet; wait {seconds} s", {"Retry-After": str(seconds)})

    def change(stored: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The correction made to the boxes as stored when it is written (another sent at once holds too)."""
        boxes = corrected(stored, changes, "host" if host else "player")
        if all(b["value"] is not None for b in boxes):
            checks.check_document(game, sheet.name, [checks.check_tile(b["value"], "cells", variant) for b in boxes])
        return boxes

    sheet = await run_in_threadpool(server.store.update_boxes, game.code, sheet.id, change, host)
    server.notify(game.code)
    return Json(sheet_view(server, game, sheet, token=not host) | placed(server, game, sheet))


async def rename_sheet(request: Request) -> Response:
    """The host renames a sheet (and the player who handed it in), or hides its name from the projector and the
    other phones (its player's with it), or both."""
    need_host(request)
    server: Server = request.app.state.server
    game = game_of(request)
    sheet = sheet_of(request, game)
    data = await json_body(request)
    only_fields(data, ("name", "hidden"))
    if not data:
        raise ApiError(Code.BAD_INPUT, "body: is empty; expected name, hidden or both")
    name = checks.check_name(data.get("name")) if "name" in data else None
    hidden = checks.check_hidden(data) if "hidden" in data else None
    if name is not None:
        sheet = await run_in_threadpool(server.store.rename_sheet, game.code, sheet.id, name)
    if hidden is not None and not await run_in_threadpool(server.store.hide, game.code, hidden, None, sheet.id):
        raise ApiError(Code.NO_SHEET, f"id: no sheet {sheet.id} in game {display_code(game.code)} (removed meanwhile)")
    sheet = sheet_of(request, game)
    server.notify(game.code)
    return Json(sheet_view(server, game, sheet))


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
    _not_reading(sheet)
    check_complete(sheet.cells, f"sheet {sheet.id}")
    return Json(checks.sheet_document(game, sheet),
                headers={"Content-Disposition": f'attachment; filename="{checks.source_name(sheet)}"'})


async def box_image(request: Request) -> Response:
    server: Server = request.app.state.server
    game = game_of(request)
    sheet = sheet_of(request, game)
    need_owner(request, sheet)
    box = request.path_params["box"]
    png = server.store.crop(sheet.id, numbers.whole(box, "box", 1, 99))
    if png is None:
        raise ApiError(Code.NO_BOX, f"box: sheet {sheet.id} has no image of box {checks.shown(box)}")
    return Response(png, media_type="image/png")
