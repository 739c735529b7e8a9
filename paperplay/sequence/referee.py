"""Referees Sequence Numbers positions and game logs (SPEC §7)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from paperplay.errors import InputError, Problem
from paperplay.jsonfile import validate
from paperplay.seeds import canonical_seed
from paperplay.sequence.rules import (
    MINUS, Board, Card, SequenceRules, Square, Window, best_sequences, complete_windows, make_board, make_deck,
    number_set, reshuffle, standard_rules,
)


def _sq(square: Sequence[int]) -> Square:
    return (int(square[0]), int(square[1]))


def _name(square: Square) -> str:
    return f"[{square[0]}, {square[1]}]"


def board_from_record(data: dict[str, Any], source: str, rules: SequenceRules) -> Board:
    """Returns a record's board, given as 10 rows or as a kit's board_seed (and numbers option)."""
    if ("board" in data) == ("board_seed" in data):
        raise InputError(f"{source}: give either field board (10 rows of 10) or field board_seed, not "
                         + ("both" if "board" in data else "neither"))
    if "board_seed" in data:
        try:
            seed = canonical_seed(data["board_seed"])
            numbers = number_set(data.get("numbers", "1-48"))
        except InputError as exc:
            raise InputError(f"{source}: {str(exc).replace('--numbers:', 'field numbers:', 1)}") from None
        return make_board(seed, numbers, rules)
    board = data["board"]
    size = rules.size
    if len(board) != size or any(len(row) != size for row in board):
        shape = f"{len(board)} rows of " + "/".join(sorted({str(len(r)) for r in board}) or ["0"])
        raise InputError(f"{source}: field board has {shape} squares; expected {size} rows of {size}")
    for r, c in sorted(rules.corners):
        if board[r][c] is not None:
            raise InputError(f"{source}: field board[{r}][{c}] is {board[r][c]}; expected null (a free corner)")
    counts: Counter[int] = Counter()
    for r, row in enumerate(board):
        for c, value in enumerate(row):
            if value is None and (r, c) not in rules.corners:
                raise InputError(f"{source}: field board[{r}][{c}] is null; only the four corners are free")
            if value is not None:
                counts[value] += 1
    wrong = sorted(n for n, k in counts.items() if k != 2)
    if wrong:
        n = wrong[0]
        raise InputError(f"{source}: field board holds {n} on {counts[n]} square{'s' if counts[n] != 1 else ''}; "
                         "expected every number on exactly two squares")
    return tuple(tuple(row) for row in board)


def _check_square(square: Sequence[int], where: str, source: str, rules: SequenceRules) -> Square:
    r, c = square
    if not (0 <= r < rules.size and 0 <= c < rules.size):
        raise InputError(f"{source}: {where} is [{r}, {c}], off the board; expected rows and columns 0-{rules.size - 1}")
    return (r, c)


def _teams_allowed(players: int, rules: SequenceRules) -> int:
    return max(rules.player_count(players).teams)


@dataclass(frozen=True)
class PositionResult:
    """The verdict on a position: sequence counts, one best set of lines, the winner, problems."""

    source: str
    sequences: dict[str, int]
    lines: dict[str, list[Window]]
    winner: str | None
    problems: tuple[Problem, ...]

    @property
    def valid(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.source,
            "valid": self.valid,
            "sequences": self.sequences,
            "lines": {k: [[list(s) for s in w] for w in v] for k, v in self.lines.items()},
            "winner": self.winner,
            "problems": [p.to_json() for p in self.problems],
        }

    def text_lines(self) -> list[str]:
        counts = ", ".join(f"{k} {v}" for k, v in self.sequences.items())
        head = f"{self.source}: position, sequences: {counts}; " + (
            f"{self.winner} has won" if self.winner else "nobody has won")
        out = [head + ("" if self.valid else " (NOT VALID)")]
        for colour, found in self.lines.items():
            for window in found:
                out.append(f"  {colour}: " + " ".join(_name(s) for s in window))
        out += [f"  x {p.rule}: {p.message}" for p in self.problems]
        return out


def verify_position(data: dict[str, Any], source: str, rules: SequenceRules | None = None) -> PositionResult:
    """Counts each colour's sequences on a position and finds what cannot happen in a game."""
    rules = rules or standard_rules()
    validate(data, "sequence-position", source)
    board = board_from_record(data, source, rules)
    players = data["players"]
    try:
        need = rules.player_count(players).to_win
        teams = _teams_allowed(players, rules)
    except InputError as exc:
        raise InputError(f"{source}: field {exc}") from None
    del board  # the board's numbers do not matter for counting; it is checked for shape above
    owner: dict[Square, list[str]] = {}
    chips: dict[str, set[Square]] = {}
    for colour, squares in data["chips"].items():
        mine: set[Square] = set()
        for i, square in enumerate(squares):
            sq = _check_square(square, f"field chips.{colour}[{i}]", source, rules)
            if sq in mine:
                raise InputError(f"{source}: field chips.{colour} lists {_name(sq)} twice")
            mine.add(sq)
            owner.setdefault(sq, []).append(colour)
        chips[colour] = mine
    problems: list[Problem] = []
    if len(chips) > teams:
        problems.append(Problem("sequence/colours", f"{len(chips)} colours ({', '.join(chips)}) are on the board, "
                                f"but {players} players play with at most {teams}"))
    for sq in sorted(owner):
        if sq in rules.corners:
            problems.append(Problem("sequence/corner", f"{' and '.join(owner[sq])} has a chip on corner {_name(sq)}, "
                                    "a free space where no chip is placed"))
        if len(owner[sq]) > 1:
            problems.append(Problem("sequence/square-taken", f"{_name(sq)} is claimed by {' and '.join(owner[sq])}"))
    found = {colour: best_sequences(squares - rules.corners, rules) for colour, squares in chips.items()}
    counts = {colour: len(v) for colour, v in found.items()}
    winners = [c for c, n in counts.items() if n >= need]
    if len(winners) > 1:
        problems.append(Problem("sequence/two-winners",
                                f"{' and '.join(winners)} both have {need} sequence{'s' if need > 1 else ''} or more; "
                                "the game ends when the first does"))
    winner = winners[0] if len(winners) == 1 else None
    return PositionResult(source, counts, found, winner, tuple(problems))


# Game logs ----------------------------------------------------------------------------------------


@dataclass
class _Game:
    rules: SequenceRules
    seed: str
    board: Board
    deck: list[Card]
    names: list[str]
    colour: dict[str, str]
    to_win: int
    hands: dict[str, list[Card]] = field(default_factory=dict)
    chips: dict[Square, str] = field(default_factory=dict)
    fixed: dict[str, list[Window]] = field(default_factory=dict)
    discards: list[Card] = field(default_factory=list)
    reshuffles: int = 0

    def draw(self) -> Card | None:
        if not self.deck and self.discards:
            # The draw pile ran out: the discard piles, in the order the cards were discarded,
            # are shuffled into a new draw pile (label sequence/reshuffle/<n>).
            self.reshuffles += 1
            self.deck = reshuffle(self.discards, self.seed, self.reshuffles)
            self.discards = []
        return self.deck.pop(0) if self.deck else None

    def squares_of(self, number: int) -> list[Square]:
        return [(r, c) for r, row in enumerate(self.board) for c, v in enumerate(row) if v == number]

    def locked(self) -> set[Square]:
        return {s for windows in self.fixed.values() for w in windows for s in w}


class _Illegal(Exception):
    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message


@dataclass(frozen=True)
class LogResult:
    """The verdict on a game log: the winner, a summary, or the first illegal action."""

    source: str
    winner: str | None
    turns: int
    sequences: dict[str, int]
    problems: tuple[dict[str, Any], ...]
    summary: str

    @property
    def valid(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {"file": self.source, "valid": self.valid, "winner": self.winner, "turns": self.turns,
                "sequences": self.sequences, "summary": self.summary, "problems": list(self.problems)}

    def text_lines(self) -> list[str]:
        out = [f"{self.source}: game log, {self.summary}"]
        for p in self.problems:
            out.append(f"  x turn {p['turn']} ({p['player']}) {p['rule']}: {p['message']}")
        return out


def _hand_text(hand: list[Card]) -> str:
    return ", ".join(c.text for c in hand) or "no cards"


def _seating_problem(names: list[str], colour: dict[str, str], players: int, rules: SequenceRules) -> str | None:
    teams = list(dict.fromkeys(colour[n] for n in names))
    allowed = rules.player_count(players).teams
    if len(teams) not in allowed:
        return (f"{players} players form {len(teams)} team{'s' if len(teams) != 1 else ''} "
                f"({', '.join(teams)}); expected {' or '.join(map(str, allowed))}")
    sizes = Counter(colour.values())
    if len(set(sizes.values())) > 1:
        return "teams are not equal: " + ", ".join(f"{c} {n}" for c, n in sizes.items())
    t = len(teams)
    for i, name in enumerate(names):
        if colour[name] != colour[names[i % t]]:
            return (f"seating: {name} ({colour[name]}) sits where a {colour[names[i % t]]} player belongs; "
                    "team members alternate with opponents around the table")
    return None


def _new_sequences(game: _Game, team: str, square: Square, claimed: list[list[list[int]]] | None) -> list[Window]:
    """The sequences a chip on `square` completes for `team` (RULINGS: fixed when made)."""
    owned = {s for s, c in game.chips.items() if c == team}
    fresh = [w for w in complete_windows(owned, game.rules) if square in w]
    fixed = list(game.fixed.get(team, []))

    def compatible(window: Window) -> bool:
        return all(len(set(window) & set(other)) <= 1 for other in fixed)

    chosen: list[Window] = []
    if claimed:
        for five in claimed:
            window = tuple(sorted(_sq(s) for s in five))
            match = next((w for w in fresh if tuple(sorted(w)) == window), None)
            if match is None:
                raise _Illegal("sequence/sequence-claim", f"the claimed sequence {' '.join(_name(s) for s in window)} "
                               f"is not a line of five completed by the chip on {_name(square)}")
            if not compatible(match):
                raise _Illegal("sequence/sequence-overlap", f"the claimed sequence {' '.join(_name(s) for s in window)}"
                               " shares more than one square with an earlier sequence")
            chosen.append(match)
            fixed.append(match)
        return chosen
    for window in fresh:  # reading order: the first is taken, then any that still fits
        if compatible(window):
            chosen.append(window)
            fixed.append(window)
    return chosen


def _play_turn(game: _Game, turn: dict[str, Any], name: str) -> None:
    rules = game.rules
    hand = game.hands[name]
    team = game.colour[name]
    dead = turn.get("dead_cards", [])
    if len(dead) > 1:
        raise _Illegal("sequence/dead-card", f"{name} turns in {len(dead)} dead cards; one exchange per turn")
    for text in dead:
        card = Card(text)
        if card not in hand:
            raise _Illegal("sequence/card-not-in-hand", f"{name} turns in {text!r}, which is not in the hand "
                           f"({_hand_text(hand)})")
        if card.kind != "equation" or card.value is None or any(s not in game.chips for s in game.squares_of(card.value)):
            raise _Illegal("sequence/dead-card", f"{text!r} is not dead: a square of its number is still open")
        hand.remove(card)
        game.discards.append(card)
        replacement = game.draw()
        if replacement is not None:
            hand.append(replacement)
    if turn.get("pass"):
        if hand:
            raise _Illegal("sequence/pass", f"{name} passes while holding {_hand_text(hand)}")
        listed = [f for f in ("card", "square", "remove", "sequences") if f in turn]
        if listed:
            raise _Illegal("sequence/pass", f"{name} passes, but the turn also gives field {listed[0]}; "
                           "a pass plays no card, places and removes nothing")
        return
    if "card" not in turn:
        raise _Illegal("sequence/no-card", f"{name} plays no card")
    card = Card(turn["card"])
    if card not in hand:
        raise _Illegal("sequence/card-not-in-hand", f"{name} plays {card.text!r}, which is not in the hand "
                       f"({_hand_text(hand)})")
    if card.kind == MINUS:
        if "remove" not in turn or "square" in turn:
            raise _Illegal("sequence/minus", "a Minus card removes one opponent chip (field remove) and places none")
        if "sequences" in turn:
            raise _Illegal("sequence/sequence-claim", "a Minus card completes no sequence, but the turn lists "
                           "field sequences")
        target = _sq(turn["remove"])
        holder = game.chips.get(target)
        if holder is None or holder == team:
            what = "no chip" if holder is None else f"{name}'s own team's chip"
            raise _Illegal("sequence/minus-target", f"Minus on {_name(target)}, which holds {what}; "
                           "it must remove an opponent's chip")
        if target in game.locked():
            raise _Illegal("sequence/minus-locked", f"Minus on {_name(target)}: that {holder} chip is part of a "
                           "completed sequence and cannot be removed")
        del game.chips[target]
    else:
        if "remove" in turn:
            raise _Illegal("sequence/remove", f"{card.text!r} places a chip and removes none; only a Minus card "
                           "removes one (field remove)")
        if "square" not in turn:
            raise _Illegal("sequence/square", f"{card.text!r} places a chip: give the square (field square)")
        square = _sq(turn["square"])
        if not (0 <= square[0] < rules.size and 0 <= square[1] < rules.size):
            raise _Illegal("sequence/square", f"{_name(square)} is off the board")
        if square in rules.corners:
            raise _Illegal("sequence/corner", f"{_name(square)} is a free corner; no chip is placed there")
        if square in game.chips:
            raise _Illegal("sequence/square-taken", f"{_name(square)} already holds a {game.chips[square]} chip")
        number = game.board[square[0]][square[1]]
        if card.kind == "equation" and card.value != number:
            raise _Illegal("sequence/square-number", f"{card.text!r} makes {card.value}, but {_name(square)} shows {number}")
        game.chips[square] = team
        made = _new_sequences(game, team, square, turn.get("sequences"))
        game.fixed.setdefault(team, []).extend(made)
    hand.remove(card)
    game.discards.append(card)
    if turn.get("draw", True):
        drawn = game.draw()
        if drawn is not None:
            hand.append(drawn)


def verify_log(data: dict[str, Any], source: str, rules: SequenceRules | None = None) -> LogResult:
    """Replays a game log; reports the first illegal action, or the winner."""
    rules = rules or standard_rules()
    validate(data, "sequence-log", source)
    try:
        seed = canonical_seed(data["seed"])
    except InputError as exc:
        raise InputError(f"{source}: field seed: {exc}") from None
    try:
        numbers = number_set(data.get("numbers", "1-48"))
    except InputError as exc:
        raise InputError(f"{source}: {str(exc).replace('--numbers:', 'field numbers:', 1)}") from None
    level = data.get("level", "mixed")
    names = [p["name"] for p in data["players"]]
    if len(set(names)) != len(names):
        raise InputError(f"{source}: field players names a player twice")
    colour = {p["name"]: p["colour"] for p in data["players"]}
    try:
        counts = rules.player_count(len(names))
    except InputError as exc:
        raise InputError(f"{source}: field {exc}") from None
    game = _Game(rules, seed, make_board(seed, numbers, rules), list(make_deck(seed, numbers, level, rules)),
                 names, colour, counts.to_win)
    for name in names:
        game.hands[name] = []
    for _ in range(counts.hand):  # dealt one at a time in seating order from the top of the deck
        for name in names:
            card = game.draw()
            if card is not None:
                game.hands[name].append(card)
    problems: list[dict[str, Any]] = []
    seating = _seating_problem(names, colour, len(names), rules)
    if seating:
        problems.append({"turn": 0, "player": None, "rule": "sequence/teams", "message": seating})
    winner: str | None = None
    played = 0
    for number, turn in enumerate(data["turns"], start=1):
        if problems:
            break
        name = turn["player"]
        expected = names[(number - 1) % len(names)]
        try:
            if winner is not None:
                raise _Illegal("sequence/game-over", f"{winner} has already won; no more turns are played")
            if name != expected:
                raise _Illegal("sequence/turn-order", f"it is {expected}'s turn, not {name}'s")
            _play_turn(game, turn, name)
        except _Illegal as exc:
            problems.append({"turn": number, "player": name, "rule": exc.rule, "message": exc.message})
            break
        played = number
        team = colour[name]
        if len(game.fixed.get(team, [])) >= counts.to_win:
            winner = team
    sequences = {c: len(game.fixed.get(c, [])) for c in dict.fromkeys(colour.values())}
    if problems:
        p = problems[0]
        summary = f"NOT VALID: the first illegal action is at turn {p['turn']}"
    elif winner:
        summary = f"{winner} wins at turn {played} with {sequences[winner]} sequence{'s' if sequences[winner] > 1 else ''}"
    else:
        summary = f"{played} legal turns, nobody has won yet"
    return LogResult(source, winner, played, sequences, tuple(problems), summary)


def verify_record(data: dict[str, Any], source: str) -> PositionResult | LogResult:
    """Referees a Sequence Numbers record: a game log when it has turns, else a position."""
    if isinstance(data, dict) and "turns" in data:
        return verify_log(data, source)
    return verify_position(data, source)
