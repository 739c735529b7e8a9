"""What a game gives besides its state: the results (JSON and the page), the kit and sheets (PDF), the join
QR code, and the server's health. docs/reference/api.md."""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from paperplay.seeds import display_code
from paperplay.serve import checks
from paperplay.serve.errors import ApiError, Code
from paperplay.serve.store import Game
from paperplay.serve.web import (
    CSP, Json, Server, big, game_of, is_host, join_url, names_shown, need_host, page_of, paging, shown_name,
)


def _revealed(game: Game) -> None:
    if not game.revealed:
        raise ApiError(Code.NOT_REVEALED, f"code: game {display_code(game.code)} is not revealed yet; the results "
                                           "come after the host reveals it")


async def results(request: Request) -> Response:
    """The results: the names the host hid are "hidden name" but for the host (whose answer is made for it
    alone; everyone else's once a version)."""
    server: Server = request.app.state.server
    game = game_of(request)
    _revealed(game)
    asked = paging(request, always=big(game))
    if asked is not None:  # a page of the ranking kept as sheets arrive (paperplay.serve.ranking)
        return Json(await run_in_threadpool(ranking_page, server, game, *asked, is_host(request)))
    if is_host(request):
        return Json(await run_in_threadpool(checks.results, game, server.store.sheets(game.code)))
    data = await server.live.made_once(f"{game.code}/results", game.version, lambda: bytes(Json(
        checks.results(game, names_shown(game, server.store.sheets(game.code)))).body))
    return Response(data, media_type="application/json")


PAGE_TOP = 100
"""The sheets a big game's results page shows: the top of its ranking (the API pages through the rest)."""


def page_sheets(server: Server, game: Game) -> list[Any]:
    """The sheets the results page shows: every one of a game of up to 200 players; the first PAGE_TOP of the
    ranking of a bigger one (their places are their places in the whole ranking: every sheet above is among them)."""
    if not big(game):
        return server.store.sheets(game.code)
    found = (server.store.sheet(game.code, row.id) for row in server.store.ranking(game.code, 0, PAGE_TOP))
    return [sheet for sheet in found if sheet is not None]


def ranking_page(server: Server, game: Game, offset: int, size: int, host: bool) -> dict[str, Any]:
    """A page of the ranking: "ranking" (place, id, player, name, hidden, total), "page", "per_page", "of" (the
    ranked sheets) and the game's "counts"."""
    from paperplay.serve.ranking import ranked_json

    counts = server.store.counts(game.code)
    rows = [ranked_json(row, shown_name(game, row.name, row.hidden, host))
            for row in server.store.ranking(game.code, offset, size)]
    return page_of(rows, "ranking", offset, size, counts.ranked) | {"counts": {
        "handed_in": counts.handed_in, "incomplete": counts.incomplete, "unsettled": counts.unsettled}}


async def results_page(request: Request) -> Response:
    server: Server = request.app.state.server
    game = game_of(request)
    _revealed(game)
    page = await server.live.made_once(f"{game.code}/results.html", game.version,
                                       lambda: checks.results_page(game, names_shown(game, page_sheets(server, game))))
    return Response(page, media_type="text/html; charset=utf-8", headers={"Content-Security-Policy": CSP})


async def kit_pdf(request: Request) -> Response:
    need_host(request)
    game = game_of(request)
    data = await run_in_threadpool(_kit, game)
    return _pdf(data, f"streams-{game.code}-kit.pdf")


def kit_document(game: Game) -> Any:
    """The game's kit (paperplay kit streams): until the reveal without the caller's sheet, which holds
    the seed and the draw (the server calls the tiles)."""
    from paperplay.games import find_game

    doc = find_game("streams").module().kit(game.seed, {"players": printed(game), "variant": game.variant,
                                                         "lang": game.lang})
    return doc if game.revealed else type(doc)(doc.title, doc.pages[1:], doc.forms, doc.subject)


def _kit(game: Game) -> bytes:
    from paperplay.render.pdf import render_bytes

    return render_bytes(kit_document(game))


async def sheets_pdf(request: Request) -> Response:
    need_host(request)
    game = game_of(request)
    if game.variant is not None:
        raise ApiError(Code.VARIANT_SHEETS, f"code: game {display_code(game.code)} is variant {game.variant}; "
                                             "scannable sheets are for the published game (the kit has this "
                                             "variant's sheets)")
    data = await run_in_threadpool(_scannable_sheets, game)
    return _pdf(data, f"streams-{game.code}-sheets.pdf")


def _scannable_sheets(game: Game) -> bytes:
    from paperplay.games import find_game
    from paperplay.render.pdf import render_bytes

    return render_bytes(find_game("streams").module().sheets(game.seed, {"players": printed(game),
                                                                          "scannable": True}))


def printed(game: Game) -> int:
    """The sheets a kit or the scannable sheets' PDF holds: one a player, at most MAX_PLAYERS (a bigger game's
    players print their own from the phone: player_sheet)."""
    from paperplay.streams.api import MAX_PLAYERS

    return min(game.players, MAX_PLAYERS)


def _pdf(data: bytes, name: str) -> Response:
    return Response(data, media_type="application/pdf",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


async def join_qr(request: Request) -> Response:
    """The join address's QR code: drawn once a game (10 ms each), off the loop that answers the phones."""
    server: Server = request.app.state.server
    game = game_of(request)
    svg = await server.live.made_once(f"{game.code}/join.svg", 0, lambda: _qr_svg(join_url(server, game)))
    return Response(svg, media_type="image/svg+xml")


def _qr_svg(text: str) -> bytes:
    import io

    import qrcode
    import qrcode.image.svg

    out = io.BytesIO()
    qrcode.make(text, image_factory=qrcode.image.svg.SvgPathImage, border=2).save(out)
    return out.getvalue()


async def health(request: Request) -> Response:
    server: Server = request.app.state.server
    return Json({"ok": True, "photo_workers_ready": server.photos.ready, "photos_waiting": server.photos.waiting,
                 "phones_waiting": server.live.waiting, "uploads_in_flight": server.door.in_flight})
