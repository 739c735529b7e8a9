"""What every route of the game night server shares: the Server it works with, reading requests (bodies,
the host's key, a sheet's token, the game and sheet a path names) and writing answers (JSON, the game's
state, a sheet). The routes are in paperplay.serve.routes; docs/reference/api.md is the API.
"""

from __future__ import annotations

import hmac
import json
import math
import re
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import Message

from paperplay.errors import InputError
from paperplay.i18n import N_
from paperplay.seeds import canonical_seed, display_code, full_code
from paperplay.serve import checks, numbers
from paperplay.serve.errors import STATUS, ApiError, Code
from paperplay.serve.guard import Door, client_address
from paperplay.serve.internet import HAND_INS, JOINS, Rate, counted_as, rate
from paperplay.serve.live import Live
from paperplay.serve.photos import PhotoReader
from paperplay.serve.store import Game, Refusal, SheetRow, Store
from paperplay.streams.rules import tile_json

MAX_PHOTO = 10 * 1024 * 1024
"""The largest photo upload (bytes): a phone's photo is 2-6 MB."""
MAX_JSON = 64 * 1024
"""The largest JSON body (a typed sheet is about 200 bytes)."""
FORM_ROOM = 64 * 1024
"""What a photo's form may hold besides the photo (its name field, the parts' headers)."""
WAIT_LIMIT = 25.0
"""The longest a `?wait=` request is held before it is answered as it is."""
RETRY_AFTER = 5
CSP = ("default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
       "img-src 'self' data: blob:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")


class Json(JSONResponse):
    """JSON as the API writes it: UTF-8, and <, > and & escaped, so no browser takes it for a page."""

    def render(self, content: Any) -> bytes:
        text = json.dumps(content, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").encode()


def error(code: Code | str, message: str, headers: dict[str, str] | None = None, status: int | None = None,
          extra: dict[str, Any] | None = None) -> Json:
    """An error answer: `{"error": "<one line>", "code": "<code>"}` with the code's status (a code of the
    photo reader's own, passed through, is a 400), and any `extra` fields beside them."""
    from paperplay.messages import one_line

    status = status or STATUS.get(Code(code) if code in _CODES else Code.BAD_INPUT, 400)
    return Json({"error": one_line(message), "code": str(code)} | (extra or {}), status_code=status,
                headers=headers)


_CODES = frozenset(code.value for code in Code)


class Pace:
    """A bucket for each key (a sheet's changes, a client's joins or hand-ins): `burst` at once, then
    `per_second`. What the host does is never paced. At most `kept` buckets are kept: past it, the full ones
    are forgotten (a full bucket is what a new key gets), then the least recently used."""

    def __init__(self, burst: int = 20, per_second: float = 2.0, kept: int = 10_000) -> None:
        self.burst, self.per_second, self.kept = burst, per_second, kept
        self._buckets: dict[str, tuple[float, float]] = {}  # key -> (changes left, when counted)

    def take(self, key: str) -> float:
        """Takes one change for `key`: 0 when it may go ahead, else the seconds until one is free."""
        now = time.monotonic()
        left, then = self._buckets.get(key, (float(self.burst), now))
        left = min(float(self.burst), left + (now - then) * self.per_second)
        if left < 1:
            self._buckets[key] = (left, now)
            return (1 - left) / self.per_second
        if len(self._buckets) >= self.kept and key not in self._buckets:  # bounded: full buckets are forgotten
            self._buckets = {k: v for k, v in self._buckets.items()
                             if v[0] + (now - v[1]) * self.per_second < self.burst}
            if len(self._buckets) >= self.kept:  # then the half used longest ago
                latest = sorted(self._buckets.items(), key=lambda item: item[1][1])[len(self._buckets) // 2:]
                self._buckets = dict(latest)
        self._buckets[key] = (left - 1, now)
        return 0.0


def paced(limit: Rate) -> Pace:
    """The buckets of a limit, one a client (a /64 network for IPv6), at most 10,000 kept."""
    return Pace(burst=limit.count, per_second=limit.per_second)


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
    pace: Pace = field(default_factory=lambda: Pace())
    """How fast a player may change a sheet (one player's stream of changes would wake every phone each time)."""
    prints: Pace = field(default_factory=lambda: Pace(burst=5, per_second=0.1))
    """How often a player may have their own sheet drawn (5 at once, then one every 10 s; the host is never paced)."""
    joins: Pace = field(default_factory=lambda: paced(rate(JOINS, "limit-joins")))
    """How many joins one client may make (`paperplay serve --limit-joins`)."""
    hand_ins: Pace = field(default_factory=lambda: paced(rate(HAND_INS, "limit-hand-ins")))
    """How many hand-ins (typed or photos, each try) one client may make (`paperplay serve --limit-hand-ins`)."""

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


_IDEMPOTENCY = re.compile(r"[A-Za-z0-9_-]{8,100}")


def idempotency_key(request: Request) -> str | None:
    """The request's Idempotency-Key (a retry with the same key gets what the first request made), or None."""
    key = request.headers.get("idempotency-key")
    if key is None:
        return None
    if not _IDEMPOTENCY.fullmatch(key):
        raise ApiError(Code.BAD_INPUT, "Idempotency-Key: expected 8-100 letters, digits, - or _ (one random key a "
                                       "request)")
    return key


def has_view(request: Request, game: Game) -> bool:
    """Whether the request carries the game's view token (?view=, the projector's): it follows the game."""
    given = request.query_params.get("view") or ""
    return bool(given) and bool(game.view) and _same(given, game.view)


def need_host(request: Request) -> None:
    if not is_host(request):
        given = _given(request, "x-paperplay-key", "key")
        raise ApiError(Code.KEY_WRONG if given else Code.KEY_MISSING,
                       f"key: {'is wrong' if given else 'missing'}; host calls carry the key of the host page's "
                       "link (header X-Paperplay-Key or ?key=)")


def need_owner(request: Request, sheet: SheetRow | Refusal) -> None:
    """The sheet's token, or the host's key; else 403 (401 when nothing was given)."""
    if is_host(request):
        return
    token = _given(request, "x-paperplay-token", "token")
    if not token:
        raise ApiError(Code.TOKEN_MISSING, "token: missing; a sheet is read and corrected with the token its hand-in "
                                           "gave (header X-Paperplay-Token or ?token=)")
    if not _same(token, sheet.token):
        raise ApiError(Code.NOT_YOURS, f"token: is not sheet {sheet.id}'s; a player can only see and correct their "
                                       "own sheet")


def limit(request: Request, pace: Pace, what: str) -> None:
    """Counts one `what` (joins, hand-ins) for the request's client; past the client's limit a 429 `too_many`
    with Retry-After. The host, and this computer's own addresses (its pages, a load test), are never limited."""
    from paperplay.serve.live import loopback

    client = client_address(request)
    if not client or loopback(client) or is_host(request):
        return
    wait = pace.take(counted_as(client))
    if wait:
        seconds = max(1, math.ceil(wait))
        every = 1 / pace.per_second
        raise ApiError(Code.TOO_MANY, f"request: {pace.burst} {what} at once, then one every {every:.3g} s, is what "
                                      f"one address ({client}) may send; send it again in {seconds} s",
                       {"Retry-After": str(seconds)})


# --- reading requests -------------------------------------------------------------------------------

def limited(request: Request, limit: int, what: str) -> Request:
    """The request with its body counted as it arrives: past `limit` bytes it stops with a 413."""
    declared = numbers.content_length(request.headers.get("content-length"))
    if declared is not None and declared > limit:
        raise ApiError(Code.TOO_LARGE, f"{what}: is {declared:,} bytes; expected at most {limit:,}")
    receive = request.receive
    seen = 0

    async def counted() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > limit:
                raise ApiError(Code.TOO_LARGE, f"{what}: is more than {limit:,} bytes; expected at most {limit:,}")
        return message

    return Request(request.scope, counted)


async def json_body(request: Request, optional: bool = False) -> dict[str, Any]:
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    body = await limited(request, MAX_JSON, "body").body()
    if optional and not body.strip():
        return {}
    if kind != "application/json":
        raise ApiError(Code.WRONG_TYPE, f"Content-Type: is {kind or 'missing'!r}; expected application/json")
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise ApiError(Code.BAD_JSON, f"body: is not JSON ({str(exc).split(':')[0]})") from None
    if not isinstance(data, dict):
        raise ApiError(Code.BAD_JSON, "body: expected a JSON object")
    return data


def paging(request: Request, always: bool = False) -> tuple[int, int] | None:
    """The page a list call asks for: (offset, per_page) from `?page=` (1 and up) and `?per_page=` (1-MAX_PER_PAGE,
    PER_PAGE when left out); None when neither is given and not `always` (the whole list, as a small game's)."""
    from paperplay.serve.ranking import MAX_PER_PAGE, PER_PAGE

    page, per_page = request.query_params.get("page"), request.query_params.get("per_page")
    if page is None and per_page is None and not always:
        return None
    number = 1 if page is None else numbers.whole(page, "page", 1, 10**9, what="a page number")
    size = PER_PAGE if per_page is None else numbers.whole(per_page, "per_page", 1, MAX_PER_PAGE,
                                                           what="a number of rows a page")
    return (number - 1) * size, size


def page_of(rows: list[dict[str, Any]], key: str, offset: int, size: int, of: int) -> dict[str, Any]:
    """A page of a list as the API answers it: the rows under `key`, the page, its size and the rows in all."""
    return {key: rows, "page": offset // size + 1, "per_page": size, "of": of}


def only_fields(data: dict[str, Any], allowed: tuple[str, ...]) -> None:
    for name in data:
        if name not in allowed:
            raise ApiError(Code.UNKNOWN_FIELD,
                           f"{checks.shown(name)[1:-1]}: unknown field; expected {', '.join(allowed)}")


def game_of(request: Request) -> Game:
    server: Server = request.app.state.server
    text = request.path_params["code"]
    try:
        code = canonical_seed(text)
    except InputError:
        code = ""
    found = server.store.game(code) if len(code) == 8 else None
    if found is None:
        raise ApiError(Code.NO_GAME, f"code: no game {checks.shown(text)} on this server")
    return found


def sheet_of(request: Request, game: Game) -> SheetRow:
    server: Server = request.app.state.server
    text = request.path_params["sheet"]
    found = server.store.sheet(game.code, numbers.whole(text, "id", 0, 10**12))
    if found is None:
        raise ApiError(Code.NO_SHEET, f"id: no sheet {checks.shown(text)} in game {display_code(game.code)}")
    return found


# --- answers ----------------------------------------------------------------------------------------

def drawn_for_flags(game: Game) -> list[Any] | None:
    """The draw a sheet's typed boxes are checked against: every tile, once all are called (hand-ins come
    after the last tile); None before."""
    return checks.called_tiles(game) if game.revealed or game.turn >= checks.total_turns(game) else None


def shown_boxes(game: Game, sheet: SheetRow) -> list[dict[str, Any]]:
    """The sheet's boxes with their flags worked out now (paperplay.handin.flags)."""
    from paperplay.handin import flags

    return flags(sheet.boxes, sheet.kind, drawn_for_flags(game))


def _summary(sheet: SheetRow, boxes: list[dict[str, Any]], name: str) -> dict[str, Any]:
    empty = sum(b["value"] is None for b in boxes)
    return {"id": sheet.id, "name": name, "hidden": sheet.hidden, "kind": sheet.kind, "state": sheet.state,
            "flagged": sum(b["flagged"] for b in boxes), "empty": empty, "complete": empty == 0,
            "corrected": sum(b["corrected"] == "player" for b in boxes)}


HIDDEN = N_("hidden name")
"""What the projector and the other phones show for a name the host has hidden (Store.hide)."""


def shown_name(game: Game, name: str, hidden: bool, host: bool = False) -> str:
    """A player's or sheet's name as a page shows it: a hidden one is "hidden name" (in the game's language),
    but for the host."""
    from paperplay.i18n import translator

    return name if host or not hidden else translator(game.lang).gettext(HIDDEN)


def names_shown(game: Game, sheets: list[SheetRow], host: bool = False) -> list[SheetRow]:
    """The sheets with their names as the pages show them (the results, the projector's sheets)."""
    import dataclasses

    return [dataclasses.replace(s, name=shown_name(game, s.name, s.hidden, host)) if s.hidden else s for s in sheets]


def big(game: Game) -> bool:
    """Whether the game is too big for whole lists in its state (paperplay.serve.ranking.FULL_LISTS)."""
    from paperplay.serve.ranking import FULL_LISTS

    return game.players > FULL_LISTS


def game_state(server: Server, game: Game, host: bool = False) -> dict[str, Any]:
    """The game's state as the pages follow it: whole lists for a game of up to FULL_LISTS players, counts and the
    top of the ranking beyond (its sheets are never all read)."""
    return state(server, game, [] if big(game) else server.store.sheets(game.code), host)


def top_of_ranking(server: Server, game: Game, host: bool = False) -> list[dict[str, Any]]:
    """The first TOP sheets of the ranking kept as sheets arrive (paperplay.serve.ranking)."""
    from paperplay.serve.ranking import TOP, ranked_json

    return [ranked_json(row, shown_name(game, row.name, row.hidden, host))
            for row in server.store.ranking(game.code, 0, TOP)]


def state(server: Server, game: Game, sheets: list[SheetRow], host: bool = False) -> dict[str, Any]:
    """The game's state (docs/reference/api.md): what every page follows. The names the host hid are "hidden
    name" but for the `host`. A big game's (game_state) has empty roster and handed_in lists ("paged": the pages
    page through GET …/players and …/sheets) and its counts and the top of its ranking instead."""
    called = checks.called_tiles(game)
    turns = checks.total_turns(game)
    paged = big(game)
    counts = server.store.counts(game.code)
    summaries = [_summary(s, shown_boxes(game, s), shown_name(game, s.name, s.hidden, host)) for s in sheets]
    by_player = {s.player: summary for s, summary in zip(sheets, summaries) if s.player is not None}
    roster = []
    for player in [] if paged else server.store.players(game.code):
        mine = by_player.get(player.id)
        roster.append({"id": player.id, "name": shown_name(game, player.name, player.hidden, host),
                       "hidden": player.hidden, "joined": player.joined, "handed_in": mine is not None,
                       "sheet": mine["id"] if mine else None, "to_check": mine["flagged"] if mine else 0})
    roster += [{"id": None, "name": s["name"], "hidden": sheet.hidden, "joined": None, "handed_in": True,
                "sheet": s["id"], "to_check": s["flagged"]} for sheet, s in zip(sheets, summaries)
               if sheet.player is None]
    out: dict[str, Any] = {
        "code": display_code(game.code), "game": "streams", "variant": game.variant, "lang": game.lang,
        "players": game.players, "turn": game.turn, "turns": turns,
        "called": [tile_json(t) for t in called[:game.turn]],
        "last": tile_json(called[game.turn - 1]) if game.turn else None,
        "open": game.turn >= turns and not game.locked and not game.revealed,
        "locked": game.locked, "revealed": game.revealed, "created": game.created, "version": game.version,
        "join_url": join_url(server, game), "roster": roster, "handed_in": summaries,
        "full_code": full_code("streams", game.seed),
        "missing": {"sheets": max(0, game.players - counts.handed_in),
                    "incomplete": [s["id"] for s in summaries if not s["complete"]],
                    "unsettled": [s["id"] for s in summaries if s["flagged"] > s["empty"]]},
        "paged": paged,
        "counts": {"joined": counts.joined, "handed_in": counts.handed_in, "to_check": counts.to_check,
                   "incomplete": counts.incomplete, "unsettled": counts.unsettled, "ranked": counts.ranked},
        "top": top_of_ranking(server, game, host),
    }
    if paged:  # a phone works out its own place from its total, and asks for its sheet only when it changed
        from paperplay.serve.ranking import RECENT, places_by_total

        out["places"] = places_by_total(server.store.standings(game.code))
        out["recent"] = [[sheet_id, updated] for sheet_id, updated in server.store.recent(game.code, RECENT)]
    if game.revealed:
        out["seed"] = display_code(game.seed)
        out["draw"] = [tile_json(t) for t in called]
    return out


def placed(server: Server, game: Game, sheet: SheetRow) -> dict[str, Any]:
    """A sheet's place in the ranking kept as sheets arrive: "place" (equal totals share one), "of" (the ranked
    sheets) and "total" (what the ranking counts); place and total None for a sheet not ranked (empty boxes, or not
    valid)."""
    where = server.store.place(game.code, sheet.id)
    return {"place": where[0] if where else None, "of": where[1] if where else server.store.counts(game.code).ranked,
            "total": sheet.total if where else None}


def sheet_key(code: str, sheet_id: int) -> str:
    """What the phones waiting on one sheet's photo wait on (paperplay.serve.live), beside the game's code."""
    return f"{code}/{sheet_id}"


def refusal_view(game: Game, refusal: Refusal, token: bool = False) -> dict[str, Any]:
    """A photo the photo workers refused, as its phone is told: "state" "refused", the one line and code of the
    refusal, and, when the reader refused it, "hint" (what to do, in the game's language) and "overlay" (the
    photo with what the reader found drawn on it)."""
    from paperplay.serve.photos import PhotoRefused, retake

    out: dict[str, Any] = {"id": refusal.id, "player": refusal.player, "kind": "photo", "state": "refused",
                           "error": refusal.error, "code": refusal.code, "created": refusal.created}
    out |= retake(PhotoRefused(refusal.code, refusal.error, refusal.advice, refusal.overlay), game.lang)
    if token:
        out["token"] = refusal.token
    return out


def join_url(server: Server, game: Game) -> str:
    return f"{server.base_url}/join/{display_code(game.code)}"


def sheet_view(server: Server, game: Game, sheet: SheetRow, token: bool = False, hide: bool = False) -> dict[str, Any]:
    """A sheet as the API shows it; `token` for its owner's answers; with `hide` (the projector's list) a name
    the host hid is "hidden name". A photo's flagged or corrected boxes carry their image as a data URL ("crop",
    what the pages show), every box its URL ("crop_url")."""
    import base64

    base = f"/api/games/{display_code(game.code)}/sheets/{sheet.id}"
    boxes = []
    for number, box in enumerate(shown_boxes(game, sheet), start=1):
        view = {"box": number, **box}
        if sheet.kind == "photo":
            if "candidates" not in box:  # a sheet stored before the reader offered them
                view["candidates"] = list(dict.fromkeys(v for v in (box["value"], box.get("matched"),
                                                                    box.get("free")) if v is not None))
            png = server.store.crop(sheet.id, number) if box["flagged"] or box["corrected"] else None
            view["crop"] = "data:image/png;base64," + base64.b64encode(png).decode() if png else None
            view["crop_url"] = f"{base}/boxes/{number}.png" + (f"?token={sheet.token}" if token else "")
        boxes.append(view)
    out: dict[str, Any] = {"id": sheet.id, "name": shown_name(game, sheet.name, sheet.hidden, not hide),
                           "hidden": sheet.hidden, "player": sheet.player, "kind": sheet.kind,
                           "state": sheet.state, "printed": sheet.printed, "boxes": boxes,
                           "flagged": [b["box"] for b in boxes if b["flagged"]],
                           "empty": [b["box"] for b in boxes if b["value"] is None],
                           "corrected": [b["box"] for b in boxes if b["corrected"]],
                           "complete": all(b["value"] is not None for b in boxes),
                           "created": sheet.created, "updated": sheet.updated}
    if token:
        out["token"] = sheet.token
    return out
