"""Plays whole legal Sequence Numbers games from a seed: example logs, tests and benchmarks."""

from __future__ import annotations

from typing import Any

from paperplay.seeds import Rng, canonical_seed
from paperplay.sequence.referee import Game, Turn
from paperplay.sequence.rules import MINUS, PLUS, Card, Square, number_set, standard_rules, windows

COLOURS = ("red", "blue", "green")


def _potential(game: Game, team: str, square: Square) -> int:
    """How much a chip on a square helps: own chips in the runs of five through it."""
    score = 0
    corners = game.rules.corners
    for window in windows(game.rules.size, game.rules.length):
        if square not in window:
            continue
        holders = [game.chips.get(s) for s in window if s not in corners and s != square]
        if any(h is not None and h != team for h in holders):
            continue
        mine = sum(1 for h in holders if h == team) + sum(1 for s in window if s in corners)
        score += 4 ** mine
    return score


def play_game(seed: str, players: int = 2, teams: int | None = None, level: str = "mixed",
              numbers: str = "1-48", max_turns: int = 400, forget_every: int = 0) -> dict[str, Any]:
    """Plays a legal game with a greedy strategy and returns its log (schema sequence-log)."""
    rules = standard_rules()
    seed = canonical_seed(seed)
    team_count = teams or max(rules.player_count(players).teams)
    names = [f"P{i + 1}" for i in range(players)]
    colour = {name: COLOURS[i % team_count] for i, name in enumerate(names)}
    game = Game.deal(rules, seed, number_set(numbers), level, names, colour)
    rng = Rng("selfplay", seed)
    turns: list[Turn] = []
    for number in range(max_turns):
        name = names[number % players]
        team = colour[name]
        hand = game.hands[name]
        open_squares = [(r, c) for r in range(rules.size) for c in range(rules.size)
                        if (r, c) not in rules.corners and (r, c) not in game.chips]
        dead = [c for c in hand if c.value is not None and all(s in game.chips for s in game.squares_of(c.value))]
        options: list[tuple[int, int, Card, Square | None, Square | None]] = []
        playable = [c for c in hand if c not in dead[:1]] if dead else list(hand)
        locked = game.locked()
        for index, card in enumerate(playable):
            if card.value is not None:
                for square in game.squares_of(card.value):
                    if square not in game.chips:
                        options.append((_potential(game, team, square), -index, card, square, None))
            elif card.kind == PLUS and open_squares:
                best = max(open_squares, key=lambda s: _potential(game, team, s))
                options.append((_potential(game, team, best) - 8, -index, card, best, None))
            elif card.kind == MINUS:
                targets = [s for s, c in game.chips.items() if c != team and s not in locked]
                if targets:
                    target = max(targets, key=lambda s: _potential(game, game.chips[s], s))
                    options.append((_potential(game, game.chips[target], target) - 16, -index, card, None, target))
        draw = not (forget_every and rng.randbelow(forget_every) == 0)
        if options:
            _, _, card, place, remove = max(options, key=lambda o: (o[0], o[1]))
            turn = Turn(name, card, place, remove, tuple(dead[:1]), draw=draw)
        elif not dead and not hand:
            turn = Turn(name, dead_cards=(), draw=draw, passes=True)
        else:
            break  # nothing playable: stop the log here (rare)
        game.play(turn)
        turns.append(turn)
        if game.winner is not None:
            break
    return {
        "game": "sequence",
        "seed": seed,
        "numbers": numbers,
        "level": level,
        "players": [{"name": n, "colour": colour[n]} for n in names],
        "turns": [t.to_json() for t in turns],
    }
