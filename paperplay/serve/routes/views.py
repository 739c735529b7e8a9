"""The pages (HTML, rendered by paperplay.serve.pages): the host's, a player's, the projector's, the home page."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from paperplay.seeds import display_code
from paperplay.serve.web import CSP, Server, _given, game_of, has_view, is_host, join_url


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
    """The projector: its address holds the game's view token, never the host key (a host's link with
    ?key= is sent on to the view token's address; the page's data never holds the key: the host page
    hands it to the projector's window through the browser)."""
    server: Server = request.app.state.server
    game = game_of(request)
    if not has_view(request, game):
        if is_host(request):
            return RedirectResponse(f"/projector/{display_code(game.code)}?view={game.view}", status_code=303)
        return _page("<!doctype html><html lang=en><meta charset=utf-8><title>paperplay: projector</title>"
                     "<p>This page needs the projector's link, as the host page gives it (Open the projector view)."
                     "</p></html>", 401)
    return _page(_render("projector", code=display_code(game.code), key="", join_url=join_url(server, game),
                         lang=game.lang))


async def home(request: Request) -> Response:
    if request.query_params.get("key"):  # a host's link to the home page: the host page, with its key
        return RedirectResponse(f"/host?{request.url.query}", status_code=303)
    return _page(_render("home", lang=_lang(request)))
