"""The games: create, list, follow (long-poll), call the next tile, reveal. docs/reference/api.md."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from paperplay.errors import InputError
from paperplay.seeds import canonical_seed, display_code, game_code, generate_seed, seed_warning
from paperplay.serve import checks, numbers
from paperplay.serve.errors import ApiError, Code, Conflict
from paperplay.serve.store import Game
from paperplay.serve.web import WAIT_LIMIT, Json, Server, game_of, join_url, json_body, need_host, only_fields, state
from paperplay.streams.rules import tile_json


async def create_game(request: Request) -> Response:
    need_host(request)
    data = await json_body(request)
    only_fields(data, ("players", "seed", "variant", "lang"))
    players = checks.check_players(data.get("players"))
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
    return Json({"code": display_code(game.code), "join_url": join_url(server, game),
                 "seed_warning": seed_warning(game.seed, named=False)}, status_code=201)


async def list_games(request: Request) -> Response:
    need_host(request)
    server: Server = request.app.state.server
    games = await run_in_threadpool(server.store.games)
    # the host's answers only: whether players could find a game's draw (never the seed before the reveal)
    return Json({"games": [state(server, g, server.store.sheets(g.code))
                           | {"seed_warning": seed_warning(g.seed, named=False)} for g in games]})


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
    need_host(request)
    server: Server = request.app.state.server
    game = await run_in_threadpool(server.store.reveal, game_of(request).code)
    server.notify(game.code)
    return Json(state(server, game, server.store.sheets(game.code)))
