"""The Sequence Numbers referee: positions and game logs (formats: docs/reference/formats/sequence-*.md)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paperplay.errors import IllegalAction, InputError, Problem, Verdict
from paperplay.jsonfile import validate
from paperplay.messages import counted, shorten
from paperplay.seeds import seed_field
from paperplay.sequence.rules import (
    MINUS, PLUS, Board, Card, CardKind, SequenceRules, Square, Window, best_sequences, complete_windows, evaluate,
    make_board, make_deck, number_set, reshuffle, standard_rules,
)


def _said(card: Card) -> str:
    """A card as a message quotes it (a long one shortened)."""
    return repr(shorten(card.text))


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
        seed = seed_field(data["board_seed"], source, "board_seed")
        try:
            numbers = number_set(data.get("numbers", "1-48"))
        except InputError as exc:
            raise exc.where(source) from None
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
        raise InputError(f"{source}: field board holds {n} on {counted(counts[n], 'square')}; "
                         "expected every number on exactly two squares")
    return tuple(tuple(row) for row in board)


def _check_square(square: Sequence[int], where: str, source: str, rules: SequenceRules) -> Square:
    r, c = square
    if not (0 <= r < rules.size and 0 <= c < rules.size):
        raise InputError(
            f"{source}: {where} is [{r}, {c}], off the board; expected rows and columns 0-{rules.size - 1}"
        )
    return (r, c)


def _teams_allowed(players: int, rules: SequenceRules) -> int:
    return max(rules.player_count(players).teams)


@dataclass(frozen=True)
class PositionResult(Verdict):
    """The verdict on a position: sequence counts, one best set of lines, the winner, problems."""

    source: str
    sequences: dict[str, int]
    lines: dict[str, list[Window]]
    winner: str | None
    problems: tuple[Problem, ...]

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
        counts = ", ".join(f"{k} {v}" for k, v in self.sequences.items()) or "none (no chips)"
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
        raise exc.where(source) from None
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
                                f"{' and '.join(winners)} both have {counted(need, 'sequence')} or more; "
                                "the game ends when the first does"))
    winner = winners[0] if len(winners) == 1 else None
    return PositionResult(source, counts, found, winner, tuple(problems))


# Game logs ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Turn:
    """One turn of a game log, read into typed values (docs/reference/rulings.md: Plus, Minus, dead cards, draws)."""

    player: str
    card: Card | None = None
    square: Square | None = None
    remove: Square | None = None
    dead_cards: tuple[Card, ...] = ()
    sequences: tuple[Window, ...] | None = None  # the sequences the log says this move completes
    draw: bool = True
    passes: bool = False
    drawn: tuple[Card, ...] | None = None  # a log with a deal records the cards drawn: the replacement first

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"player": self.player}
        if self.dead_cards:
            out["dead_cards"] = [c.text for c in self.dead_cards]
        if self.card is not None:
            out["card"] = self.card.text
        if self.square is not None:
            out["square"] = list(self.square)
        if self.remove is not None:
            out["remove"] = list(self.remove)
        if self.sequences is not None:
            out["sequences"] = [[list(s) for s in w] for w in self.sequences]
        if not self.draw:
            out["draw"] = False
        elif self.drawn is not None:
            out["draw"] = [c.text for c in self.drawn]
        if self.passes:
            out["pass"] = True
        return out


_AS_WRITTEN = str.maketrans({"×": "x", "*": "x", "X": "x", "÷": "/", "−": "-", "–": "-"})


def card_text(text: str) -> str:
    """A card as the deck writes it: an equation copied from the printed card (``5 × 6 + 16``, ``144 ÷ 3``)
    or typed (``5x6+16``) becomes ``5 x 6 + 16``; Plus and Minus in any case; anything else as it is."""
    plain = text.strip()
    if plain.lower() in (PLUS, MINUS):
        return plain.lower()
    tokens = re.findall(r"[0-9]+|[-+x/()]|\S", plain.translate(_AS_WRITTEN))
    return " ".join(tokens) if tokens else text


MAX_CARD_TEXT = 60
"""The longest card text read (a printed equation has a dozen characters): a longer one is refused before
it is worked out, so no text of deep brackets or thousand-digit numbers takes seconds (or the stack)."""


def _card(text: str, where: str) -> Card:
    if len(text) > MAX_CARD_TEXT:
        raise InputError(f"{where} is a text of {len(text):,} characters; expected a card as printed (an "
                         f"equation such as \"3 x 4 + 2\", plus or minus: at most {MAX_CARD_TEXT} characters)")
    card = Card(card_text(text))
    if card.kind == CardKind.EQUATION:
        try:
            value = evaluate(card.text)
        except (ValueError, ZeroDivisionError, IndexError):
            value = None
        if value is None or value.denominator != 1:
            raise InputError(f"{where} is {text!r}; expected an equation as printed on a card (such as "
                             "\"3 x 4 + 2\"), plus or minus")
    return card


def parse_turn(data: dict[str, Any], where: str) -> Turn:
    """Reads one turn of a log (already schema-checked) into a Turn; raises only InputError."""
    claimed = data.get("sequences")
    draw = data.get("draw", True)
    drawn = None if not isinstance(draw, list) else tuple(_card(t, f"{where}.draw[{i}]") for i, t in enumerate(draw))
    return Turn(
        player=data["player"],
        card=_card(data["card"], f"{where}.card") if "card" in data else None,
        square=_sq(data["square"]) if "square" in data else None,
        remove=_sq(data["remove"]) if "remove" in data else None,
        dead_cards=tuple(_card(t, f"{where}.dead_cards[{i}]") for i, t in enumerate(data.get("dead_cards", []))),
        sequences=None if claimed is None else tuple(tuple(_sq(s) for s in five) for five in claimed),
        draw=draw is not False,
        passes=data.get("pass", False),
        drawn=drawn,
    )


@dataclass
class Game:
    """Everything on and around the table: board, draw pile, hands, chips, fixed sequences."""

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
    turn: int = 0
    winner: str | None = None
    recorded: list[Card] | None = None  # a log with a deal: the cards this turn records drawn (no deck)

    @classmethod
    def deal(cls, rules: SequenceRules, seed: str, numbers: Sequence[int], level: str, names: list[str],
             colour: dict[str, str]) -> Game:
        """Sets the table: the seed's board and deck, hands dealt one card at a time in seating order."""
        counts = rules.player_count(len(names))
        game = cls(rules, seed, make_board(seed, numbers, rules), list(make_deck(seed, numbers, level, rules)),
                   names, colour, counts.to_win)
        game.hands = {name: [] for name in names}
        for _ in range(counts.hand):
            for name in names:
                card = game.draw()
                if card is not None:
                    game.hands[name].append(card)
        return game

    @classmethod
    def dealt(cls, rules: SequenceRules, board: Board, hands: dict[str, list[Card]], names: list[str],
              colour: dict[str, str]) -> Game:
        """Sets the table of a game played without a seed: the board and hands as the log records them;
        each turn's draws come from the log (see play)."""
        game = cls(rules, "", board, [], names, colour, rules.player_count(len(names)).to_win, recorded=[])
        game.hands = {name: list(hands[name]) for name in names}
        return game

    def draw(self) -> Card | None:
        if self.recorded is not None:
            return self.recorded.pop(0) if self.recorded else None
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

    def play(self, turn: Turn) -> None:
        """Plays the next turn of the game in seating order; raises IllegalAction at the first broken rule."""
        if self.winner is not None:
            raise IllegalAction("sequence/game-over", f"{self.winner} has already won; no more turns are played")
        expected = self.names[self.turn % len(self.names)]
        if turn.player != expected:
            raise IllegalAction("sequence/turn-order", f"it is {expected}'s turn, not {turn.player}'s")
        recorded = len(turn.drawn or ())
        if self.recorded is not None:
            self.recorded = list(turn.drawn or ())
        self.apply(turn)
        if self.recorded:
            raise IllegalAction("sequence/draw", f"{turn.player} records {counted(recorded, 'card')} "
                                f"drawn, but the turn draws {recorded - len(self.recorded)}")
        self.turn += 1
        team = self.colour[turn.player]
        if len(self.fixed.get(team, [])) >= self.to_win:
            self.winner = team

    def apply(self, turn: Turn) -> None:
        """Applies a turn's cards and chips for its player (whoever's turn it is): a dead card turned in,
        then a pass, or a card played: a Minus removes a chip, any other places one."""
        name = turn.player
        hand = self.hands[name]
        self._turn_in_dead_cards(turn, hand)
        if turn.passes:
            self._check_pass(turn, hand)
            return
        if turn.card is None:
            raise IllegalAction("sequence/no-card", f"{name} plays no card")
        card = turn.card
        if card not in hand:
            raise IllegalAction("sequence/card-not-in-hand", f"{name} plays {_said(card)}, which is not in the "
                                f"hand ({_hand_text(hand)})")
        if card.kind == MINUS:
            self._remove_chip(turn)
        else:
            self._place_chip(turn, card)
        hand.remove(card)
        self.discards.append(card)
        if turn.draw:
            drawn = self.draw()
            if drawn is not None:
                hand.append(drawn)

    def _turn_in_dead_cards(self, turn: Turn, hand: list[Card]) -> None:
        """At most one dead card a turn (an equation whose number has no open square), for a new one."""
        name = turn.player
        if len(turn.dead_cards) > 1:
            raise IllegalAction("sequence/dead-card", f"{name} turns in {len(turn.dead_cards)} dead cards; "
                                "one exchange per turn")
        for card in turn.dead_cards:
            if card not in hand:
                raise IllegalAction("sequence/card-not-in-hand", f"{name} turns in {_said(card)}, which is not in "
                                    f"the hand ({_hand_text(hand)})")
            if card.kind != CardKind.EQUATION or card.value is None or any(
                    s not in self.chips for s in self.squares_of(card.value)):
                raise IllegalAction("sequence/dead-card", f"{_said(card)} is not dead: a square of its number is "
                                    "still open")
            hand.remove(card)
            self.discards.append(card)
            replacement = self.draw()
            if replacement is not None:
                hand.append(replacement)

    def _check_pass(self, turn: Turn, hand: list[Card]) -> None:
        """A pass only with an empty hand, and it plays no card, places and removes nothing."""
        name = turn.player
        if hand:
            raise IllegalAction("sequence/pass", f"{name} passes while holding {_hand_text(hand)}")
        given = [f for f, v in (("card", turn.card), ("square", turn.square), ("remove", turn.remove),
                                ("sequences", turn.sequences)) if v is not None]
        if given:
            # A pass plays no card, so it places and removes nothing and completes no sequence.
            raise IllegalAction("sequence/pass", f"{name} passes, but the turn also gives field {given[0]}; "
                                "a pass plays no card, places and removes nothing")

    def _remove_chip(self, turn: Turn) -> None:
        """A Minus card removes one opponent chip that is in no completed sequence, and places none."""
        name, team = turn.player, self.colour[turn.player]
        if turn.remove is None or turn.square is not None:
            raise IllegalAction("sequence/minus", "a Minus card removes one opponent chip (field remove) and "
                                "places none")
        if turn.sequences:
            # A removal completes nothing.
            raise IllegalAction("sequence/minus", "a Minus card completes no sequence; it only removes a chip "
                                "(field sequences)")
        target = turn.remove
        holder = self.chips.get(target)
        if holder is None or holder == team:
            what = "no chip" if holder is None else f"{name}'s own team's chip"
            raise IllegalAction("sequence/minus-target", f"Minus on {_name(target)}, which holds {what}; "
                                "it must remove an opponent's chip")
        if target in self.locked():
            raise IllegalAction("sequence/minus-locked", f"Minus on {_name(target)}: that {holder} chip is "
                                "part of a completed sequence and cannot be removed")
        del self.chips[target]

    def _place_chip(self, turn: Turn, card: Card) -> None:
        """Any other card places a chip on an open square of its number (a Plus card: any open square),
        completing the sequences the turn names."""
        rules, team = self.rules, self.colour[turn.player]
        if turn.remove is not None:
            # Only a Minus card removes a chip.
            raise IllegalAction("sequence/remove", f"{_said(card)} places a chip; only a Minus card removes "
                                "one (field remove)")
        if turn.square is None:
            raise IllegalAction("sequence/square", f"{_said(card)} places a chip: give the square (field "
                                "square)")
        square = turn.square
        if not (0 <= square[0] < rules.size and 0 <= square[1] < rules.size):
            raise IllegalAction("sequence/square", f"{_name(square)} is off the board")
        if square in rules.corners:
            raise IllegalAction("sequence/corner", f"{_name(square)} is a free corner; no chip is placed there")
        if square in self.chips:
            raise IllegalAction("sequence/square-taken", f"{_name(square)} already holds a "
                                f"{self.chips[square]} chip")
        number = self.board[square[0]][square[1]]
        if card.kind == CardKind.EQUATION and card.value != number:
            raise IllegalAction("sequence/square-number", f"{_said(card)} makes {card.value}, but "
                                f"{_name(square)} shows {number}")
        self.chips[square] = team
        made = _new_sequences(self, team, square, turn.sequences)
        self.fixed.setdefault(team, []).extend(made)


def play_turn(game: Game, data: dict[str, Any]) -> None:
    """Reads one turn given as JSON and applies it for its player (for tests and tools)."""
    game.apply(parse_turn(data, "turn"))


@dataclass(frozen=True)
class SequenceLogResult(Verdict):
    """The verdict on a game log: the winner, a summary, or the first illegal action."""

    source: str
    winner: str | None
    turns: int
    sequences: dict[str, int]
    problems: tuple[Problem, ...]
    summary: str
    seed: str | None = None
    """The canonical seed that dealt the game, if one did (the command line notes a short one)."""

    def to_json(self) -> dict[str, Any]:
        return {"file": self.source, "valid": self.valid, "winner": self.winner, "turns": self.turns,
                "sequences": self.sequences, "summary": self.summary,
                "problems": [p.to_json() for p in self.problems]}

    def text_lines(self) -> list[str]:
        out = [f"{self.source}: game log, {self.summary}"]
        for p in self.problems:
            where = f"turn {p.turn} ({p.player})" if p.turn else "the players, before the first turn:"
            out.append(f"  x {where} {p.rule}: {p.message}")
        return out


def _hand_text(hand: list[Card]) -> str:
    return ", ".join(c.text for c in hand) or "no cards"


def _seating_problem(names: list[str], colour: dict[str, str], players: int, rules: SequenceRules) -> str | None:
    teams = list(dict.fromkeys(colour[n] for n in names))
    allowed = rules.player_count(players).teams
    if len(teams) not in allowed:
        return (f"{players} players form {counted(len(teams), 'team')} "
                f"({', '.join(teams)}); expected {' or '.join(map(str, allowed))}")
    sizes = Counter(colour.values())
    if len(set(sizes.values())) > 1:
        return "teams are not equal: " + ", ".join(f"{c} {n}" for c, n in sizes.items())
    for i, name in enumerate(names):  # the teams in the order they first sit, around and around
        belongs = teams[i % len(teams)]
        if colour[name] != belongs:
            return (f"seating: {name} ({colour[name]}) sits where a {belongs} player belongs; "
                    "team members alternate with opponents around the table")
    return None


def _new_sequences(game: Game, team: str, square: Square, claimed: Sequence[Window] | None) -> list[Window]:
    """The sequences a chip on `square` completes for `team` (docs/reference/rulings.md: fixed when made)."""
    owned = {s for s, c in game.chips.items() if c == team}
    fresh = [w for w in complete_windows(owned, game.rules) if square in w]
    fixed = list(game.fixed.get(team, []))

    def compatible(window: Window) -> bool:
        return all(len(set(window) & set(other)) <= 1 for other in fixed)

    chosen: list[Window] = []
    if claimed:
        for five in claimed:
            window = tuple(sorted(five))
            match = next((w for w in fresh if tuple(sorted(w)) == window), None)
            if match is None:
                raise IllegalAction("sequence/sequence-claim", f"the claimed sequence "
                                    f"{' '.join(_name(s) for s in window)} is not a line of five completed by the "
                                    f"chip on {_name(square)}")
            if not compatible(match):
                raise IllegalAction("sequence/sequence-overlap", f"the claimed sequence "
                                    f"{' '.join(_name(s) for s in window)} shares more than one square with an "
                                    "earlier sequence")
            chosen.append(match)
            fixed.append(match)
        return chosen
    for window in fresh:  # reading order: the first is taken, then any that still fits
        if compatible(window):
            chosen.append(window)
            fixed.append(window)
    return chosen


@dataclass(frozen=True)
class SequenceLog:
    """A game log read into typed values: the kit's options, the seating and every turn."""

    seed: str | None  # None: the game was played without a seed, from the deal below
    numbers: tuple[int, ...]
    level: str
    names: list[str]
    colour: dict[str, str]
    turns: tuple[Turn, ...]
    board: Board | None = None
    hands: dict[str, list[Card]] | None = None


def read_log(data: dict[str, Any], source: str, rules: SequenceRules | None = None) -> SequenceLog:
    """Reads a whole game log before anything is played; raises only InputError."""
    validate(data, "sequence-log", source)
    if ("seed" in data) == ("deal" in data):
        raise InputError(f"{source}: give either field seed (the kit's) or field deal (the board and hands of a "
                         "game played without a seed), not " + ("both" if "seed" in data else "neither"))
    seed = seed_field(data["seed"], source) if "seed" in data else None
    try:
        numbers = number_set(data.get("numbers", "1-48"))
    except InputError as exc:
        raise InputError(f"{source}: field numbers: {exc}") from None
    names = [p["name"] for p in data["players"]]
    if len(set(names)) != len(names):
        raise InputError(f"{source}: field players names a player twice")
    for index, turn in enumerate(data["turns"]):
        if turn["player"] not in names:  # as in a Streetcar log: a name no seat has is a record that cannot be used
            raise InputError(f"{source}: field turns[{index}].player is {turn['player']!r}; expected one of "
                             f"{', '.join(names)}")
    turns = tuple(parse_turn(t, f"{source}: field turns[{i}]") for i, t in enumerate(data["turns"]))
    for index, (turn, given) in enumerate(zip(turns, data["turns"])):
        where = f"{source}: field turns[{index}].draw"
        if seed is not None and turn.drawn is not None:
            raise InputError(f"{where} lists cards, but the log has a seed, which deals them; expected false (the "
                             "player forgot to draw) or no field draw")
        if seed is None and turn.draw and turn.drawn is None and not turn.passes:
            said = "is missing" if "draw" not in given else "is true"
            raise InputError(f"{where} {said}; a log with a deal records the cards drawn, e.g. [\"3 x 4 + 2\"] "
                             "([] when the draw pile is empty, false when the player forgot to draw)")
    colour = {p["name"]: p["colour"] for p in data["players"]}
    if seed is not None:
        return SequenceLog(seed, numbers, data.get("level", "mixed"), names, colour, turns)
    deal = data["deal"]
    board = board_from_record(deal, f"{source}: field deal", rules or standard_rules())
    for name in deal["hands"]:
        if name not in names:
            raise InputError(f"{source}: field deal.hands gives a hand to {name!r}, who is not playing; expected "
                             f"{', '.join(names)}")
    hands = {}
    for name in names:
        if name not in deal["hands"]:
            raise InputError(f"{source}: field deal.hands has no hand for {name!r}; expected one for each player")
        hands[name] = [_card(t, f"{source}: field deal.hands.{name}[{i}]") for i, t in enumerate(deal["hands"][name])]
    return SequenceLog(None, numbers, data.get("level", "mixed"), names, colour, turns, board, hands)


def verify_log(data: dict[str, Any], source: str, rules: SequenceRules | None = None) -> SequenceLogResult:
    """Reads a game log, then replays it; reports the first illegal action, or the winner."""
    rules = rules or standard_rules()
    log = read_log(data, source, rules)
    try:
        if log.seed is None:
            assert log.board is not None and log.hands is not None
            game = Game.dealt(rules, log.board, log.hands, log.names, log.colour)
        else:
            game = Game.deal(rules, log.seed, log.numbers, log.level, log.names, log.colour)
    except InputError as exc:
        raise exc.where(source) from None
    problems: tuple[Problem, ...] = ()
    seating = _seating_problem(log.names, log.colour, len(log.names), rules)
    if seating:
        problems = (Problem("sequence/teams", seating, turn=0, player=None),)
    elif log.hands is not None:
        size = rules.player_count(len(log.names)).hand
        for name in log.names:
            if len(log.hands[name]) != size:
                problems = (Problem("sequence/deal", f"{name} is dealt {len(log.hands[name])} cards; with "
                                    f"{len(log.names)} players each is dealt {size}", turn=0, player=None),)
                break
    for number, turn in enumerate(log.turns, start=1):
        if problems:
            break
        try:
            game.play(turn)
        except IllegalAction as exc:
            problems = (exc.problem.at(number, turn.player),)
    played = game.turn
    sequences = {c: len(game.fixed.get(c, [])) for c in dict.fromkeys(log.colour.values())}
    if problems and not problems[0].turn:
        what = "deal" if problems[0].rule == "sequence/deal" else "players' seating"
        summary = f"NOT VALID: the {what} breaks a rule before the first turn"
    elif problems:
        summary = f"NOT VALID: the first illegal action is at turn {problems[0].turn}"
    elif game.winner:
        n = sequences[game.winner]
        summary = f"{game.winner} wins at turn {played} with {counted(n, 'sequence')}"
    else:
        summary = f"{counted(played, 'legal turn')}, nobody has won yet"
    return SequenceLogResult(source, game.winner, played, sequences, problems, summary, log.seed)


def verify(data: dict[str, Any], source: str, folder: Path | None = None) -> PositionResult | SequenceLogResult:
    """Referees a Sequence Numbers record: a game log when it has turns, else a position (`folder` unused:
    a Sequence record names no other files)."""
    if isinstance(data, dict) and "turns" in data:
        return verify_log(data, source)
    return verify_position(data, source)
