"""The players of a game: join by name (the phone keeps the token), and the host removes one.
docs/reference/api.md."""

from __future__ import annotations

import math
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from paperplay.seeds import display_code
from paperplay.serve import checks, numbers
from paperplay.serve.errors import ApiError, Code
from paperplay.serve.store import Game
from paperplay.serve.web import (
    Json, Server, game_of, idempotency_key, is_host, json_body, limit, need_host, only_fields, page_of, paging,
)


async def list_players(request: Request) -> Response:
    """The host's roster, a page at a time (?page=, ?per_page=; the first PER_PAGE when neither is given)."""
    need_host(request)
    server: Server = request.app.state.server
    game = game_of(request)
    asked = paging(request, always=True)
    assert asked is not None
    offset, size = asked

    def page() -> dict[str, Any]:
        rows = [{"id": p.id, "number": p.number, "name": p.name, "hidden": p.hidden, "joined": p.joined,
                 "handed_in": sheet is not None, "sheet": sheet, "to_check": flagged}
                for p, sheet, flagged in server.store.players_page(game.code, offset, size)]
        return page_of(rows, "players", offset, size, server.store.counts(game.code).joined)

    return Json(await run_in_threadpool(page))


async def own_sheet(request: Request) -> Response:
    """A player's own scannable sheet (PDF, one page): for that player (their token) or the host."""
    from paperplay.serve.ranking import OWN_SHEETS
    from paperplay.streams.api import MAX_SHEET_NUMBER

    server: Server = request.app.state.server
    game = game_of(request)
    text = request.path_params["player"]
    player_id = numbers.whole(text, "id", 0, 10**12)
    if is_host(request):
        player = server.store.player(game.code, player_id)
    else:
        token = request.headers.get("x-paperplay-token") or request.query_params.get("token") or ""
        if not token:
            raise ApiError(Code.TOKEN_MISSING, "token: missing; a player's sheet is printed with the token their join "
                                               "gave (header X-Paperplay-Token or ?token=)")
        player = server.store.player_by_token(game.code, token)
        if player is not None and player.id != player_id:
            raise ApiError(Code.NOT_YOURS, f"token: is not player {player_id}'s; a player prints their own sheet only")
    if player is None or player.id != player_id:
        raise ApiError(Code.NO_PLAYER if is_host(request) else Code.NOT_YOURS,
                       f"id: no player {checks.shown(text)} in game {display_code(game.code)}" if is_host(request)
                       else "token: is no player's of this game; join the game first")
    if game.variant is not None:
        raise ApiError(Code.VARIANT_SHEETS, f"code: game {display_code(game.code)} is variant {game.variant}; "
                                             "scannable sheets are for the published game (the kit has this "
                                             "variant's sheets)")
    if not is_host(request) and (wait := server.prints.take(f"{game.code}/{player.id}")):
        seconds = max(1, math.ceil(wait))
        raise ApiError(Code.TOO_FAST, f"id: player {player.id}'s sheet was drawn {server.prints.burst} times just now; "
                                      f"ask again in {seconds} s", {"Retry-After": str(seconds)})
    number = OWN_SHEETS + player.number
    if number > MAX_SHEET_NUMBER:  # numbers of players the host removed are never given again
        raise ApiError(Code.GAME_FULL, f"id: player {player.id}'s number is past the last own sheet's "
                                       f"({MAX_SHEET_NUMBER - OWN_SHEETS:,}); type the sheet on the phone, or hand in "
                                       "one of the kit's sheets")
    data = await run_in_threadpool(_own_sheet, game, number, player.name)
    return Response(data, media_type="application/pdf",
                    headers={"Content-Disposition": f'attachment; filename="streams-{game.code}-sheet-{number}.pdf"'})


def _own_sheet(game: Game, number: int, name: str) -> bytes:
    from paperplay.render.pdf import render_bytes
    from paperplay.seeds import full_code
    from paperplay.streams.scansheet import own_sheet_document

    return render_bytes(own_sheet_document(game.code, full_code("streams", game.seed), number, name))


async def join(request: Request) -> Response:
    """A player joins with a name first: 201 with the player's id and token."""
    server: Server = request.app.state.server
    game = game_of(request)
    limit(request, server.joins, "joins")
    data = await json_body(request)
    only_fields(data, ("name",))
    name = checks.check_name(data.get("name"))
    player, new = await run_in_threadpool(server.store.join, game.code, name, idempotency_key(request))
    server.notify(game.code)
    return Json({"id": player.id, "name": player.name, "joined": player.joined, "token": player.token},
                status_code=201 if new else 200)


def _named(request: Request) -> tuple[Server, Game, int, ApiError]:
    """A host call on one player: the server, the game, the player's id and the answer when there is none."""
    need_host(request)
    server: Server = request.app.state.server
    game = game_of(request)
    text = request.path_params["player"]
    player_id = numbers.whole(text, "id", 0, 10**12)
    return server, game, player_id, ApiError(Code.NO_PLAYER, f"id: no player {checks.shown(text)} in game "
                                                             f"{display_code(game.code)}")


async def hide(request: Request) -> Response:
    """The host hides a player's name from the projector and the other phones (their sheet's with it), or shows it
    again."""
    server, game, player_id, missing = _named(request)
    data = await json_body(request)
    only_fields(data, ("hidden",))
    hidden = checks.check_hidden(data)
    if not await run_in_threadpool(server.store.hide, game.code, hidden, player_id):
        raise missing
    server.notify(game.code)
    return Json({"id": player_id, "hidden": hidden})


async def remove(request: Request) -> Response:
    """The host removes a player who has not handed in."""
    server, game, player_id, missing = _named(request)
    if not await run_in_threadpool(server.store.delete_player, game.code, player_id):
        raise missing
    server.notify(game.code)
    return Json({"deleted": player_id})
