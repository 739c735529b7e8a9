"""The two kinds of failure and one verdict shape, shared by every game.

As python-chess separates a move it cannot parse (InvalidMoveError) from a move that breaks a
rule (IllegalMoveError), paperplay separates input that cannot be used (InputError, exit code 2)
from play that breaks a rule (a Problem, exit code 1), raised mid-replay as IllegalAction.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from dataclasses import dataclass
from enum import IntEnum
from typing import Any


class ExitCode(IntEnum):
    """paperplay's exit codes (docs/reference/exit-codes.md lists them with their messages)."""

    VALID = 0
    """Everything was valid."""
    RULE_BROKEN = 1
    """The input breaks a rule of the game (a Problem)."""
    BAD_INPUT = 2
    """The input cannot be used (an InputError), or standard output could not take what was written."""
    INTERNAL_ERROR = 3
    """A bug in paperplay: one line, the traceback only with PAPERPLAY_DEBUG=1."""
    INTERRUPTED = 130
    """Stopped by Ctrl-C (128 + SIGINT)."""
    PIPE_CLOSED = 141
    """Whoever read standard output stopped reading (128 + SIGPIPE, as a shell reports it); no message."""
    TERMINATED = 143
    """Stopped by SIGTERM (128 + SIGTERM)."""


def debugging() -> bool:
    """PAPERPLAY_DEBUG=1 asks for an internal error's traceback (docs/reference/exit-codes.md); unset, empty
    or 0 does not."""
    return os.environ.get("PAPERPLAY_DEBUG", "").strip() not in ("", "0")


class InputError(Exception):
    """Input that cannot be used at all (exit code 2): a missing file, bad JSON, a bad option.

    `field` names what was wrong (``players``, ``numbers``) when the message does not: the CLI
    turns it into its option (``--players: …``), a file reader into ``file: field players: …``.
    """

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field

    def __str__(self) -> str:
        return self.message

    def where(self, place: str) -> InputError:
        """The same error placed at a file (``place`` is the file's name) or an option (``--players``)."""
        if self.field is None or place.startswith("-"):
            return InputError(f"{place}: {self.message}")
        joiner = " " if self.message.startswith("is ") else ": "
        return InputError(f"{place}: field {self.field}{joiner}{self.message}")


Square = tuple[int, int]


@dataclass(frozen=True)
class Problem:
    """One broken rule: a rule code prefixed by its game (``streetcar/A``), a sentence a player
    understands, and where it happened (turn and player of a game log, square of a board). A Streams
    sheet's problems name their boxes in the message (one problem often concerns several boxes)."""

    rule: str
    message: str
    turn: int | None = None
    player: str | None = None
    square: Square | None = None

    def at(self, turn: int | None = None, player: str | None = None) -> Problem:
        """The same problem, placed at a turn of a game log."""
        return Problem(self.rule, self.message, turn, player, self.square)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rule": self.rule, "message": self.message}
        if self.turn is not None:
            out["turn"] = self.turn
            out["player"] = self.player
        if self.square is not None:
            out["square"] = list(self.square)
        return out


class IllegalAction(Exception):
    """An action in a game record breaks a rule: replay stops and reports its Problem."""

    def __init__(self, rule: str, message: str, square: Square | None = None) -> None:
        super().__init__(message)
        self.problem = Problem(rule, message, square=square)


class Verdict(ABC):
    """What refereeing one record gives, for every game: valid or not, every problem found, a JSON
    document and text lines for people."""

    source: str
    problems: tuple[Problem, ...]

    @property
    def valid(self) -> bool:
        return not self.problems

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode.VALID if self.valid else ExitCode.RULE_BROKEN

    @abstractmethod
    def to_json(self) -> dict[str, Any]: ...

    @abstractmethod
    def text_lines(self) -> list[str]: ...
