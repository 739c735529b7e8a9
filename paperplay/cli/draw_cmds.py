"""Commands that reveal or call a seed's draw: draw and call."""

from __future__ import annotations

import os
import sys

import typer

from paperplay.cli.app import app
from paperplay.cli.common import Game, Level, guarded, print_json
from paperplay.errors import InputError
from paperplay.seeds import canonical_seed, display_code, game_code


@app.command()
@guarded
def draw(
    game: Game = typer.Argument(..., help="Which game: streams, streetcar or sequence."),
    seed: str = typer.Option(..., "--seed", "-s", help="The seed whose draw to show."),
    players: int = typer.Option(None, "--players", "-n", help="Streetcar: number of seats dealt (2-6, default 4)."),
    card_set: int = typer.Option(2, "--set", help="Streetcar: route card set, 2 or 3 stops."),
    numbers: str = typer.Option("1-48", "--numbers", help="Sequence: the kit's --numbers option."),
    level: Level = typer.Option(Level.mixed, "--level", help="Sequence: the kit's --level option."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document."),
) -> None:
    """Shows what a seed deals: Streams' tiles; Streetcar's cards per seat and bag; Sequence's board and deck.

    This reveals the draw: it is for the organiser, or for checking after the game.

    Examples: paperplay draw streams --seed 7KQ2-M9XD --json

              paperplay draw streetcar --seed 7KQ2-M9XD --players 4 --set 3

              paperplay draw sequence --seed 7KQ2-M9XD --level add
    """
    canonical = canonical_seed(seed)
    if game is Game.sequence:
        _draw_sequence(canonical, numbers, level.value, as_json)
        return
    if game is Game.streetcar:
        _draw_streetcar(canonical, players if players is not None else 4, card_set, as_json)
        return
    from paperplay.streams.rules import WILD, draw as streams_draw, tile_json

    tiles = streams_draw(canonical)
    if as_json:
        print_json({"game": "streams", "seed": canonical, "draw": [tile_json(t) for t in tiles]})
        return
    typer.echo(f"Streams draw for seed {display_code(canonical)} (game code {display_code(game_code('streams', canonical))})")
    for turn, tile in enumerate(tiles, start=1):
        typer.echo(f"{turn:>4}. {'* (wild)' if tile == WILD else tile}")


def _draw_streetcar(seed: str, players: int, card_set: int, as_json: bool) -> None:
    from paperplay.streetcar.deal import bag, deal

    seats = deal(seed, players, card_set)
    tiles = bag(seed, players)
    if as_json:
        print_json({"game": "streetcar", "seed": seed, "players": players, "set": card_set,
                    "seats": [s.to_json() for s in seats], "bag": tiles})
        return
    typer.echo(f"Streetcar deal for seed {display_code(seed)} (game code "
               f"{display_code(game_code('streetcar', seed))}), {players} players, {card_set}-stop route cards")
    for seat in seats:
        typer.echo(f"  seat {seat.seat}: line {seat.line}, route card {seat.route_card}: {' - '.join(seat.stops)}")
    typer.echo(f"Bag order ({len(tiles)} tiles, drawn from the front):")
    for start in range(0, len(tiles), 6):
        typer.echo("  " + ", ".join(f"{start + i + 1}. {t}" for i, t in enumerate(tiles[start:start + 6])))


def _draw_sequence(seed: str, numbers: str, level: str, as_json: bool) -> None:
    from paperplay.sequence.pages import deck_card_numbers
    from paperplay.sequence.rules import make_board, make_deck, number_set, number_set_name

    values = number_set(numbers)
    board = make_board(seed, values)
    deck = make_deck(seed, values, level)
    if as_json:
        print_json({"game": "sequence", "seed": seed, "numbers": number_set_name(values), "level": level,
                    "board": [list(row) for row in board], "deck": [card.text for card in deck]})
        return
    code = display_code(game_code("sequence", seed))
    typer.echo(f"Sequence Numbers board for seed {display_code(seed)} (game code {code}), "
               f"numbers {number_set_name(values)}, level {level}")
    typer.echo("      " + " ".join(f"{c:>4}" for c in range(len(board))))
    for r, row in enumerate(board):
        typer.echo(f"  {r:>2}  " + " ".join(f"{'FREE' if v is None else v:>4}" for v in row))
    typer.echo("Deck order, top first (card number as printed, then the card):")
    for position, (card, number) in enumerate(zip(deck, deck_card_numbers(deck)), start=1):
        typer.echo(f"  {position:>3}. #{number:<4} {card.text}")


_BIG = {
    "0": [" ### ", "#   #", "#   #", "#   #", " ### "],
    "1": ["  #  ", " ##  ", "  #  ", "  #  ", " ### "],
    "2": [" ### ", "#   #", "  ## ", " #   ", "#####"],
    "3": ["#### ", "    #", " ### ", "    #", "#### "],
    "4": ["#   #", "#   #", "#####", "    #", "    #"],
    "5": ["#####", "#    ", "#### ", "    #", "#### "],
    "6": [" ### ", "#    ", "#### ", "#   #", " ### "],
    "7": ["#####", "    #", "   # ", "  #  ", "  #  "],
    "8": [" ### ", "#   #", " ### ", "#   #", " ### "],
    "9": [" ### ", "#   #", " ####", "    #", " ### "],
    "*": ["# # #", " ### ", "#####", " ### ", "# # #"],
}


def big_text(text: str) -> list[str]:
    """Returns text in a five-line block font, so a room can read it off a screen."""
    rows = []
    for r in range(5):
        rows.append("  ".join(_BIG[ch][r] for ch in text).replace("#", "█"))
    return rows


@app.command()
@guarded
def call(
    game: Game = typer.Argument(..., help="The game to call: streams."),
    seed: str = typer.Option(..., "--seed", "-s", help="The seed whose draw to call."),
    start: int = typer.Option(1, "--from", help="Resume at this turn (1-20)."),
) -> None:
    """Calls the draw one tile at a time in the terminal: Enter shows the next tile.

    Keys: Enter for the next tile, b then Enter to go back one, q then Enter to stop.
    Stopped early? Resume later with --from K.

    Example: paperplay call streams --seed 7KQ2-M9XD --from 12
    """
    if game is not Game.streams:
        raise InputError(f"call {game.value}: only Streams is called tile by tile")
    canonical = canonical_seed(seed)
    from paperplay.streams.rules import WILD, draw as streams_draw

    tiles = streams_draw(canonical)
    if not 1 <= start <= len(tiles):
        raise InputError(f"--from: is {start}; expected a turn 1-{len(tiles)}")
    clear = sys.stdout.isatty() and os.environ.get("TERM") not in (None, "dumb")
    code = display_code(game_code("streams", canonical))
    turn = start
    typer.echo(f"Calling Streams, game {code}. Enter: next tile · b: back · q: quit")
    while True:
        try:
            answer = input(f"[Enter for turn {turn}/{len(tiles)}] " if turn <= len(tiles) else "").strip().lower()
        except (EOFError, KeyboardInterrupt):
            answer = "q"
        if answer == "q":
            if turn <= len(tiles):
                typer.echo(f"\nStopped before turn {turn}. Resume with: paperplay call streams --seed {canonical} --from {turn}")
            return
        if answer == "b":
            turn = max(1, turn - 2) if turn > 1 else 1
        if turn > len(tiles):
            typer.echo("All 20 tiles are called. Time to score: paperplay score SHEET.json --seed SEED")
            return
        tile = tiles[turn - 1]
        if clear:
            typer.echo("\033[2J\033[H", nl=False)
        typer.echo(f"\n  Game {code}    turn {turn}/{len(tiles)}\n")
        for row in big_text("*" if tile == WILD else str(tile)):
            typer.echo("    " + row)
        typer.echo(f"\n  {'WILD' if tile == WILD else tile}" + ("  (the wild: any one number)" if tile == WILD else ""))
        done = ", ".join("*" if t == WILD else str(t) for t in tiles[:turn])
        typer.echo(f"  called so far: {done}\n")
        turn += 1
        if turn > len(tiles):
            typer.echo("That was the last tile. Time to score: paperplay score SHEET.json --seed SEED")
            return
