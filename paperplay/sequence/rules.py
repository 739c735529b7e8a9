"""Sequence Numbers rules: number sets, seeded boards and decks, equations, and counting sequences.

Pure: no files, no printing. Facts come from templates/sequence/game.json.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from functools import cache
from typing import Any

from paperplay.errors import InputError
from paperplay.messages import shorten
from paperplay.resources import load_template
from paperplay.seeds import Rng

Square = tuple[int, int]
Board = tuple[tuple[int | None, ...], ...]


class CardKind(StrEnum):
    """What a card is: an equation (its value a number on the board), or a Plus or a Minus card (its
    text is its kind)."""

    EQUATION = "equation"
    PLUS = "plus"
    MINUS = "minus"


PLUS, MINUS = CardKind.PLUS, CardKind.MINUS
LEVELS = tuple(load_template("sequence/game.json")["levels"])
"""Equation levels, as templates/sequence/game.json names them."""
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))
"""Line directions in reading order: along a row, down a column, diagonal down-right, down-left."""


@dataclass(frozen=True)
class PlayerCount:
    """What the number of players fixes: hand size, sequences to win, allowed team counts."""

    hand: int
    to_win: int
    teams: tuple[int, ...]


@dataclass(frozen=True)
class SequenceRules:
    """The facts of Sequence Numbers."""

    size: int
    corners: frozenset[Square]
    numbers_per_board: int
    plus_cards: int
    minus_cards: int
    length: int
    players: dict[int, PlayerCount]
    colours: tuple[dict[str, str], ...]
    min_distance: int
    levels: dict[str, dict[str, Any]]
    number_sets: dict[str, str]

    def player_count(self, players: int) -> PlayerCount:
        if players not in self.players:
            known = ", ".join(map(str, sorted(self.players)))
            extra = " (5 cannot split into equal teams)" if players == 5 else ""
            raise InputError(f"is {players}{extra}; Sequence Numbers is played by {known}", field="players")
        return self.players[players]


@cache
def standard_rules() -> SequenceRules:
    """Returns the rules, loaded from templates/sequence/game.json."""
    data = load_template("sequence/game.json")
    return SequenceRules(
        size=data["size"],
        corners=frozenset(tuple(c) for c in data["corners"]),
        numbers_per_board=data["numbers_per_board"],
        plus_cards=data["plus_cards"],
        minus_cards=data["minus_cards"],
        length=data["sequence_length"],
        players={int(k): PlayerCount(v["hand"], v["to_win"], tuple(v["teams"])) for k, v in data["players"].items()},
        colours=tuple(data["colours"]),
        min_distance=data["spread"]["min_manhattan_distance"],
        levels=data["levels"],
        number_sets=data["number_sets"],
    )


MAX_NUMBER = 10_000
"""The largest number a board may show (equations stay readable on a card)."""


def _board_number(digits: str, spec: str) -> int:
    if len(digits) > len(str(MAX_NUMBER)) or int(digits) > MAX_NUMBER:
        raise InputError(f"{shorten(spec)!r} holds {shorten(digits)}; expected numbers 0-{MAX_NUMBER:,}",
                         field="numbers")
    return int(digits)


def number_set(spec: str, rules: SequenceRules | None = None) -> tuple[int, ...]:
    """Returns the 48 board numbers of a --numbers option: a range A-B, 'times-tables', or a list."""
    rules = rules or standard_rules()
    count = rules.numbers_per_board
    text = spec.strip().lower()
    if text == "times-tables":
        products = sorted({a * b for a in range(1, 13) for b in range(1, 13)})
        return tuple(products[:count])
    match = re.fullmatch(r"([0-9]+)\s*-\s*([0-9]+)", text)
    if match:
        low, high = _board_number(match[1], spec), _board_number(match[2], spec)
        if high - low + 1 != count:
            raise InputError(f"{spec!r} holds {max(0, high - low + 1)} numbers; a board needs exactly {count}"
                             f" (e.g. 1-{count} or 0-{count - 1})", field="numbers")
        return tuple(range(low, high + 1))
    items = [i for i in re.split(r"[\s,]+", text) if i]
    if len(items) > 1 and all(re.fullmatch(r"[0-9]+", i) for i in items):
        values = sorted({_board_number(i, spec) for i in items})
        if len(values) != count or len(items) != count:
            raise InputError(f"the list holds {len(values)} different numbers; a board needs exactly {count}",
                             field="numbers")
        return tuple(values)
    if re.search(r"(^|[\s,])-\s*[0-9]", text):  # a minus sign before a number: below the board's numbers
        raise InputError(f"{shorten(spec)!r} holds a negative number; expected numbers 0-{MAX_NUMBER:,}",
                         field="numbers")
    raise InputError(f"{spec!r} is not a number set; expected a range such as 1-48 or 0-47, "
                     f"'times-tables', or {count} different numbers separated by commas", field="numbers")


def number_set_name(numbers: Sequence[int]) -> str:
    """Returns the short name of a number set, as shown on the kit and in QR codes."""
    if list(numbers) == list(range(numbers[0], numbers[0] + len(numbers))):
        return f"{numbers[0]}-{numbers[-1]}"
    if tuple(numbers) == number_set("times-tables"):
        return "times-tables"
    return ",".join(map(str, numbers))


def number_squares(rules: SequenceRules | None = None) -> list[Square]:
    """Returns the board's non-corner squares in reading order."""
    rules = rules or standard_rules()
    return [(r, c) for r in range(rules.size) for c in range(rules.size) if (r, c) not in rules.corners]


def too_close(a: Square, b: Square, rules: SequenceRules | None = None) -> bool:
    """Tells whether two squares of one number break the spread rule."""
    rules = rules or standard_rules()
    return a[0] == b[0] or a[1] == b[1] or abs(a[0] - b[0]) + abs(a[1] - b[1]) < rules.min_distance


def make_board(seed: str, numbers: Sequence[int], rules: SequenceRules | None = None) -> Board:
    """Lays out a board from a seed: every number twice, its two squares far apart.

    Label ``sequence/board``: the 96 tokens (each number twice, ascending) are shuffled onto the
    non-corner squares in reading order; then, while some number breaks the spread rule, the
    first such number in ascending order has its second square swapped with a square drawn by
    randbelow, when the swap leaves both numbers involved within the rule.
    """
    rules = rules or standard_rules()
    squares = number_squares(rules)
    rng = Rng("sequence/board", seed)
    tokens = [n for n in numbers for _ in range(2)]
    rng.shuffle(tokens)
    at: dict[Square, int] = dict(zip(squares, tokens))

    def places(n: int) -> list[Square]:
        return [s for s in squares if at[s] == n]

    def fine(n: int) -> bool:
        a, b = places(n)
        return not too_close(a, b, rules)

    for _ in range(100_000):
        bad = [n for n in numbers if not fine(n)]
        if not bad:
            break
        n = bad[0]
        mover = places(n)[1]
        other = squares[rng.randbelow(len(squares))]
        m = at[other]
        if m == n:
            continue
        at[mover], at[other] = m, n
        if not (fine(n) and fine(m)):
            at[mover], at[other] = n, m
    else:  # pragma: no cover - the repair converges in a few hundred swaps
        raise RuntimeError("board layout did not converge")
    return tuple(tuple(at.get((r, c)) for c in range(rules.size)) for r in range(rules.size))


def spread_problems(board: Board, rules: SequenceRules | None = None) -> list[str]:
    """Lists the numbers whose two squares break the spread rule."""
    rules = rules or standard_rules()
    where: dict[int, list[Square]] = {}
    for r, row in enumerate(board):
        for c, value in enumerate(row):
            if value is not None:
                where.setdefault(value, []).append((r, c))
    return [f"{n} at {a} and {b}" for n, (a, b) in sorted(where.items()) if too_close(a, b, rules)]


# Equations ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Card:
    """A card: an equation with its value, or a Plus or Minus card."""

    text: str

    @property
    def kind(self) -> CardKind:
        return CardKind(self.text) if self.text in (PLUS, MINUS) else CardKind.EQUATION

    @property
    def value(self) -> int | None:
        if self.kind != CardKind.EQUATION:
            return None
        result = evaluate(self.text)
        return int(result) if result.denominator == 1 else None


_TOKEN = re.compile(r"\s*([0-9]+|[-+x×*/÷()])")


def evaluate(text: str) -> Fraction:
    """Evaluates an equation card's text (``12 x 3 + 4``, ``56 / 7``) exactly, with the usual precedence."""
    tokens = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match:
            raise ValueError(f"cannot read {text!r} at {text[pos:]!r}")
        tokens.append(match[1])
        pos = match.end()
    index = 0

    def peek() -> str | None:
        return tokens[index] if index < len(tokens) else None

    def take() -> str:
        nonlocal index
        index += 1
        return tokens[index - 1]

    def atom() -> Fraction:
        token = take()
        if token == "(":
            value = expression()
            take()
            return value
        return Fraction(int(token))

    def term() -> Fraction:
        value = atom()
        while peek() in ("x", "×", "*", "/", "÷"):
            op = take()
            right = atom()
            value = value / right if op in ("/", "÷") else value * right
        return value

    def expression() -> Fraction:
        value = term()
        while peek() in ("+", "-"):
            op = take()
            right = term()
            value = value + right if op == "+" else value - right
        return value

    result = expression()
    if index != len(tokens):
        raise ValueError(f"cannot read {text!r}")
    return result


def _factor_pairs(n: int) -> list[tuple[int, int]]:
    pairs = [(a, n // a) for a in range(2, min(n, 13)) if n % a == 0 and n // a <= 12]
    return pairs or [(1, n)]


def _equation(n: int, kind: str, rng: Rng, rules: SequenceRules) -> str:
    """One equation of the given kind whose value is exactly n."""
    if kind == "+":
        top = max(n, 0)
        a = rng.randbelow(top + 1)
        return f"{a} + {n - a}"
    if kind == "-":
        b = 1 + rng.randbelow(rules.levels["add-sub"]["max_subtrahend"])
        return f"{n + b} - {b}"
    if kind == "x":
        if n == 0:
            return f"0 x {1 + rng.randbelow(9)}"
        pairs = _factor_pairs(n)
        a, b = pairs[rng.randbelow(len(pairs))]
        return f"{a} x {b}" if rng.randbelow(2) else f"{b} x {a}"
    if kind == "/":
        d = 2 + rng.randbelow(rules.levels["mul-div"]["max_divisor"] - 1)
        return f"{n * d} / {d}"
    if kind == "x+":
        # a x b + c with a small product below n (c >= 0).
        top = rules.levels["mixed"]["max_factor"]
        options = [(a, b) for a in range(2, top + 1) for b in range(2, top + 1) if a <= b and a * b < n]
        if not options:
            return _equation(n, "-", rng, rules)
        a, b = options[rng.randbelow(len(options))]
        return f"{a} x {b} + {n - a * b}"
    raise ValueError(kind)


_LEVEL_KINDS = {"add": ("+", "+"), "add-sub": ("+", "-"), "mul-div": ("x", "/")}
_MIXED_KINDS = ("+", "-", "x", "/", "x+")


def equations_for(n: int, level: str, rng: Rng, rules: SequenceRules | None = None) -> tuple[str, str]:
    """Two different equations equal to n at a level (the same twice only where no other exists)."""
    rules = rules or standard_rules()
    if level == "mixed":
        first = _MIXED_KINDS[rng.randbelow(len(_MIXED_KINDS))]
        second = _MIXED_KINDS[rng.randbelow(len(_MIXED_KINDS) - 1)]
        if second == first:
            second = _MIXED_KINDS[-1]
        # "1 x 37" teaches nothing: a number without a factor pair gets a x b + c instead.
        kinds = tuple("x+" if k == "x" and _factor_pairs(n) == [(1, n)] else k for k in (first, second))
    else:
        kinds = _LEVEL_KINDS[level]
    one = _equation(n, kinds[0], rng, rules)
    two = _equation(n, kinds[1], rng, rules)
    for _ in range(20):  # a few redraws for variety; small numbers may have only one equation
        if two != one:
            break
        two = _equation(n, kinds[1], rng, rules)
    if two == one and level != "add":
        two = _equation(n, "-", rng, rules)  # a subtraction always differs from any other form
    return one, two


def make_deck(seed: str, numbers: Sequence[int], level: str, rules: SequenceRules | None = None) -> tuple[Card, ...]:
    """Returns the 100 cards in deck order for a seed.

    Label ``sequence/deck``: first the two equations of each number, in ascending order of the
    numbers, then Plus and Minus cards are added and the whole deck is shuffled with the same
    random words (the first card of the result is the top of the deck).
    """
    rules = rules or standard_rules()
    if level not in LEVELS:
        raise InputError(f"is {level!r}; expected one of {', '.join(LEVELS)}", field="level")
    rng = Rng("sequence/deck", seed)
    cards: list[Card] = []
    for n in numbers:
        cards.extend(Card(text) for text in equations_for(n, level, rng, rules))
    cards += [Card(PLUS)] * rules.plus_cards + [Card(MINUS)] * rules.minus_cards
    rng.shuffle(cards)
    return tuple(cards)


def reshuffle(cards: Sequence[Card], seed: str, n: int) -> list[Card]:
    """Shuffles the discard piles into a new draw pile: the n-th reshuffle of a game (1, 2, …)."""
    pile = list(cards)
    Rng(f"sequence/reshuffle/{n}", seed).shuffle(pile)
    return pile


# Sequences ---------------------------------------------------------------------------------------

Window = tuple[Square, ...]


@cache
def lines(size: int = 10, length: int = 5) -> tuple[tuple[Square, ...], ...]:
    """Every full row, column and diagonal of at least `length` squares."""
    out: list[tuple[Square, ...]] = []
    for dr, dc in DIRECTIONS:
        for r in range(size):
            for c in range(size):
                pr, pc = r - dr, c - dc
                if 0 <= pr < size and 0 <= pc < size:
                    continue  # not the start of a line
                line = []
                rr, cc = r, c
                while 0 <= rr < size and 0 <= cc < size:
                    line.append((rr, cc))
                    rr, cc = rr + dr, cc + dc
                if len(line) >= length:
                    out.append(tuple(line))
    return tuple(out)


@cache
def windows(size: int = 10, length: int = 5) -> tuple[Window, ...]:
    """Every run of `length` squares in a line, in reading order (starting square, then direction)."""
    found = []
    for dr, dc in DIRECTIONS:
        for r in range(size):
            for c in range(size):
                run = tuple((r + k * dr, c + k * dc) for k in range(length))
                if all(0 <= rr < size and 0 <= cc < size for rr, cc in run):
                    found.append(((r, c), DIRECTIONS.index((dr, dc)), run))
    found.sort()
    return tuple(run for _, _, run in found)


def complete_windows(owned: Iterable[Square], rules: SequenceRules | None = None) -> list[Window]:
    """Every run of five squares that the colour holds (corners count for everyone), reading order."""
    rules = rules or standard_rules()
    have = set(owned) | rules.corners
    return [w for w in windows(rules.size, rules.length) if all(s in have for s in w)]


def best_sequences(owned: Iterable[Square], rules: SequenceRules | None = None) -> list[Window]:
    """Returns a largest set of sequences any two of which share at most one square.

    Two different lines cross in at most one square, so only runs on one line can conflict; on a
    line, runs that start 4 or more apart share at most one square, and taking them greedily from
    the start of each unbroken stretch is optimal (interval scheduling).
    """
    rules = rules or standard_rules()
    have = set(owned) | rules.corners
    chosen: list[Window] = []
    for line in lines(rules.size, rules.length):
        start = 0
        while start + rules.length <= len(line):
            run = line[start : start + rules.length]
            if all(s in have for s in run):
                chosen.append(run)
                start += rules.length - 1
            else:
                start += 1
    order = {w: i for i, w in enumerate(windows(rules.size, rules.length))}
    return sorted(chosen, key=order.__getitem__)
