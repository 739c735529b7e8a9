"""The games: create, list, follow (long-poll), call the next tile, reveal. docs/reference/api.md."""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from paperplay.errors import InputError
from paperplay.seeds import canonical_seed, display_code, game_code, generate_seed, seed_warning
from paperplay.serve import checks, numbers
from paperplay.serve.errors import ApiError, Code, Conflict
from paperplay.serve.guard import client_address
from paperplay.serve.store import Game
from paperplay.serve.web import (
    WAIT_LIMIT, Json, Server, game_of, game_state, is_host, join_url, json_body, need_host, only_fields,
)
from paperplay.streams.rules import tile_json


async def create_game(request: Request) -> Response:
    need_host(request)
    data = await json_body(request)
    only_fields(data, ("players", "seed", "variant", "lang"))
    server: Server = request.app.state.server
    players = checks.check_players(data.get("players"), server.store.max_players)
    variant = checks.check_variant(data.get("variant"))
    lang = checks.check_lang(data.get("lang"))
    seed = data.get("seed")
    if seed is not None:
        if not isinstance(seed, str):
            raise ApiError(Code.BAD_INPUT, f"seed: is {checks.shown(seed)}; expected a seed as text, e.g. 7KQ2-M9XD")
        try:
            seed = canonical_seed(seed)
        except InputError as exc:
            raise ApiError(Code.BAD_INPUT, f"seed: {exc}") from None
    for attempt in range(5):  # a fresh seed's game code is new but for a one-in-a-trillion collision
        chosen = seed or generate_seed()
        try:
            game = await run_in_threadpool(server.store.create_game, game_code("streams", chosen), chosen, variant,
                                           lang, players)
            break
        except Conflict as exc:
            if seed is not None or exc.code != Code.GAME_EXISTS or attempt == 4:
                raise  # a full database, or a seed given: said as it is (a drawn one is drawn again)
    return Json({"code": display_code(game.code), "join_url": join_url(server, game),
                 "projector_url": projector_url(server, game), "seed_warning": seed_warning(game.seed, named=False)},
                status_code=201)


async def list_games(request: Request) -> Response:
    """The host's control room: every game with its date and its players' names."""
    need_host(request)
    server: Server = request.app.state.server

    def listed() -> list[dict[str, Any]]:
        out = []
        for game in server.store.games():
            one = game_state(server, game, host=True)
            one["players_names"] = [p["name"] for p in one["roster"]]
            one["projector_url"] = projector_url(server, game)
            # the host's answers only: whether players could find the draw (never the seed before the reveal)
            one["seed_warning"] = seed_warning(game.seed, named=False)
            out.append(one)
        return out

    return Json({"games": await run_in_threadpool(listed)})


async def change_game(request: Request) -> Response:
    """The host changes the number of players (never below the sheets handed in) or locks the game."""
    need_host(request)
    server: Server = request.app.state.server
    game = game_of(request)
    data = await json_body(request)
    only_fields(data, ("players", "locked"))
    if not data:
        raise ApiError(Code.BAD_INPUT, "body: is empty; expected players, locked or both")
    players = checks.check_players(data["players"], server.store.max_players) if "players" in data else None
    locked = data.get("locked")
    if locked is not None and not isinstance(locked, bool):
        raise ApiError(Code.BAD_INPUT, f"locked: is {checks.shown(locked)}; expected true or false")
    game = await run_in_threadpool(server.store.update_game, game.code, players, locked)
    server.notify(game.code)
    return Json(game_state(server, game, host=True))


async def get_game(request: Request) -> Response:
    server: Server = request.app.state.server
    game = game_of(request)
    wait = request.query_params.get("wait")
    if wait is not None:
        seen = numbers.whole(wait, "wait", 0, 10**12, what="the version of the state last seen,")
        current = [game]

        def changed() -> bool:  # read once however many phones a change wakes (Live.fresh)
            current[0] = server.live.fresh(game.code, lambda: game_of(request))
            return current[0].version != seen

        await server.live.wait_for(game.code, changed, WAIT_LIMIT, client_address(request),
                                   request.receive)
        game = current[0]
    if is_host(request):  # the host's page: the projector's address too (never cached: one caller)
        return Json({**game_state(server, game, host=True),
                     "projector_url": projector_url(server, game)})
    return Response(rendered_state(server, game), media_type="application/json")


def rendered_state(server: Server, game: Game) -> bytes:
    """The game's state as JSON, rendered once a version whatever the number of phones asking
    (paperplay.serve.live)."""
    return server.live.rendered(game.code, game.version,
                                lambda: bytes(Json(game_state(server, game)).body))


async def game_events(request: Request) -> Response:
    server: Server = request.app.state.server
    game = game_of(request)

    def current() -> tuple[int, bytes]:
        now = server.live.fresh(game.code, lambda: game_of(request))
        return now.version, rendered_state(server, now)

    if request.method == "HEAD":  # the headers only: no stream held open (and no phone's place) for nothing
        return Response(media_type="text/event-stream")
    address = client_address(request)
    # X-Accel-Buffering: a reverse proxy (nginx) passes each event on as it comes, even with its buffering on
    return StreamingResponse(server.live.events(game.code, current, address=address),
                             media_type="text/event-stream", headers={"X-Accel-Buffering": "no"})


async def call_tile(request: Request) -> Response:
    need_host(request)
    server: Server = request.app.state.server
    game = game_of(request)
    data = await json_body(request, optional=True)
    only_fields(data, ("turn",))
    turn = data.get("turn")
    total = checks.total_turns(game)
    if turn is not None and (not isinstance(turn, int) or isinstance(turn, bool) or not 1 <= turn <= total):
        raise ApiError(Code.BAD_INPUT, f"turn: is {checks.shown(turn)}; expected the turn to call, 1-{total}")
    game, _ = await run_in_threadpool(server.store.call, game.code, total, turn)
    server.notify(game.code)
    called = checks.called_tiles(game)
    shown = turn if turn is not None else game.turn
    return Json({"turn": shown, "tile": tile_json(called[shown - 1]), "turns": total,
                 "called": [tile_json(t) for t in called[:game.turn]]})


async def reveal(request: Request) -> Response:
    """Reveals the game: 409 naming what is missing (sheets not handed in, incomplete sheets, boxes to check)
    unless the body is {"force": true}."""
    need_host(request)
    server: Server = request.app.state.server
    game = game_of(request)
    data = await json_body(request, optional=True)
    only_fields(data, ("force",))
    force = data.get("force", False)
    if not isinstance(force, bool):
        raise ApiError(Code.BAD_INPUT, f"force: is {checks.shown(force)}; expected true or false")
    if not game.revealed and not force:
        missing = what_is_missing(game_state(server, game, host=True))
        if missing:
            raise ApiError(Code.NOT_READY, f"reveal: {missing}; reveal with {{\"force\": true}} to score the "
                                           "sheets as they are (incomplete sheets stay out of the ranking)")
    game = await run_in_threadpool(server.store.reveal, game.code)
    server.notify(game.code)
    return Json(game_state(server, game, host=True))


def what_is_missing(now: dict[str, Any]) -> str:
    """What stands before the reveal, in words ("" when nothing does)."""
    from paperplay.messages import counted

    missing = now["missing"]
    said = []
    if now["turn"] < now["turns"]:
        said.append(f"{now['turn']} of {now['turns']} tiles are called")
    if missing["sheets"]:
        said.append(f"{counted(missing['sheets'], 'sheet')} of {now['players']} "
                    f"{'is' if missing['sheets'] == 1 else 'are'} not handed in")
    names = {s["id"]: s["name"] for s in now["handed_in"]}
    if now["paged"]:  # a big game: its counts (the control room pages through the sheets)
        counts = now["counts"]
        if counts["incomplete"]:
            said.append(f"{counted(counts['incomplete'], 'sheet')} incomplete (empty boxes)")
        if counts["unsettled"]:
            said.append(f"{counted(counts['unsettled'], 'sheet')} with boxes to check")
    if missing["incomplete"]:
        said.append("incomplete (empty boxes): " + ", ".join(f"{names[i]!r}" for i in missing["incomplete"]))
    if missing["unsettled"]:
        said.append("boxes to check on " + ", ".join(f"{names[i]!r}" for i in missing["unsettled"]))
    return "; ".join(said)


def projector_url(server: Server, game: Game) -> str:
    """The projector page's address: the game's view token, never the host's key."""
    return f"{server.base_url}/projector/{display_code(game.code)}?view={game.view}"
