"""The pages (HTML, rendered by paperplay.serve.pages): the host's, a player's, the projector's, the home page."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from paperplay.seeds import display_code
from paperplay.serve.web import CSP, Server, _given, game_of, is_host, join_url


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
    """The host's and the home page's language: ?lang=, else the browser's (Accept-Language), else English."""
    from paperplay.serve.pages import page_lang

    return page_lang(request.query_params.get("lang"), request.headers.get("accept-language"))


def _local_only(server: Server) -> bool:
    """The server answers this computer only (no --lan, or no network): phones cannot join."""
    from urllib.parse import urlsplit

    return (urlsplit(server.base_url).hostname or "") in ("127.0.0.1", "localhost", "::1")


async def host_page(request: Request) -> Response:
    from paperplay.streams.rules import shipped_variants

    if not is_host(request):
        return _page("<!doctype html><html lang=en><meta charset=utf-8><title>paperplay: host page</title>"
                     "<p>This page needs the host's link, with its key, as <code>paperplay serve</code> printed it."
                     "</p></html>", 401)
    key = _given(request, "x-paperplay-key", "key")
    return _page(_render("host", key=key, lang=_lang(request), variants=shipped_variants(),
                         local_only=_local_only(request.app.state.server)))


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
    if request.query_params.get("key"):
        return RedirectResponse("/host", status_code=303)
    return _page(_render("home", lang=_lang(request)))
