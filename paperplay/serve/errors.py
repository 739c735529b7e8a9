"""The game night server's errors: every error answer is `{"error": "<one line>", "code": "<code>"}`.

The code is stable (pages and scripts branch on it; the line is for people and may change). Each code
belongs to one HTTP status; docs/reference/api.md lists them. The door (paperplay.serve.guard) and
the strict numbers (paperplay.serve.numbers) answer with the same shape and their codes are listed here.
"""

from __future__ import annotations

from typing import Any

from enum import StrEnum


class Code(StrEnum):
    """The machine codes of the server's error answers (the status each goes with is in the comment)."""

    BAD_INPUT = "bad_input"                # 400 a field holds what it cannot (the line names the field)
    BAD_NUMBER = "bad_number"              # 400 a number that is not digits 0-9, or out of its bounds
    BAD_JSON = "bad_json"                  # 400 the body is not a JSON object
    UNKNOWN_FIELD = "unknown_field"        # 400 a field the call does not take
    BAD_PHOTO = "bad_photo"                # 400 the photo cannot be read as a sheet (the reader's reason)
    SHEET_BLANK = "sheet_blank"            # 400 no number is written on the photographed sheet yet
    WRONG_GAME = "wrong_game"              # 400 the photo shows a sheet of another game
    NO_PHOTOS = "no_photos"                # 400 photos are read for the published game's sheets only
    KEY_MISSING = "key_missing"            # 401 a host call without the host key
    KEY_WRONG = "key_wrong"                # 401 a host call with a key that is not the host's
    TOKEN_MISSING = "token_missing"        # 401 a player call without the player's or sheet's token
    NOT_YOURS = "not_yours"                # 403 a token that is not this sheet's (or player's)
    NO_GAME = "no_game"                    # 404 no game of that code here
    NO_SHEET = "no_sheet"                  # 404 no sheet of that id in the game
    NO_PLAYER = "no_player"                # 404 no player of that id in the game
    NO_BOX = "no_box"                      # 404 no image of that box
    NO_PAGE = "no_page"                    # 404 no such path
    NOT_ALLOWED = "method_not_allowed"     # 405 the path does not take that method
    TOO_SLOW = "too_slow"                  # 408 the body took longer than its time limit to arrive
    GAME_EXISTS = "game_exists"            # 409 the seed's game is on this server already
    TOO_MANY_GAMES = "too_many_games"      # 409 the database holds its most games
    ALL_CALLED = "all_called"              # 409 every tile is called
    WRONG_TURN = "wrong_turn"              # 409 a call of a turn further ahead than the next
    REVEALED = "revealed"                  # 409 the game is revealed: no more hand-ins, calls or player changes
    NOT_REVEALED = "not_revealed"          # 409 the results come after the reveal
    TOO_EARLY = "too_early"                # 409 hand-ins open once the last tile is called
    GAME_FULL = "game_full"                # 409 the game holds its number of players' sheets
    SHEET_USED = "sheet_used"              # 409 that printed sheet (its number) is handed in already
    NAME_TAKEN = "name_taken"              # 409 the name, or one that looks the same, is taken
    HANDED_IN = "handed_in"                # 409 this player has handed in a sheet already
    INCOMPLETE = "incomplete"              # 409 the sheet has empty boxes: type them first
    READING = "reading"                    # 409 the sheet's photo is still being read by a photo worker
    LOCKED = "locked"                      # 409 the host has locked hand-ins and corrections
    PLAYERS_BELOW = "players_below_sheets"  # 409 fewer players than sheets handed in
    NOT_READY = "not_ready"                # 409 the reveal: sheets missing, incomplete or unsettled
    VARIANT_SHEETS = "variant_sheets"      # 409 scannable sheets are for the published game
    TOO_LARGE = "too_large"                # 413 the body is over its size limit
    WRONG_TYPE = "wrong_type"              # 415 the Content-Type is not one the call takes
    WRONG_HOST = "wrong_host"              # 421 the Host header is not one of the server's own names
    TOO_FAST = "too_fast"                  # 429 a player's changes to one sheet come faster than the pace
    TOO_MANY = "too_many"                  # 429 more joins or hand-ins from one client than its limit
    INTERNAL = "internal"                  # 500 a bug in paperplay (one log line)
    BUSY = "busy"                          # 503 too much at once: try again after Retry-After seconds


STATUS = {
    Code.BAD_INPUT: 400, Code.BAD_NUMBER: 400, Code.BAD_JSON: 400, Code.UNKNOWN_FIELD: 400, Code.BAD_PHOTO: 400,
    Code.SHEET_BLANK: 400, Code.WRONG_GAME: 400, Code.NO_PHOTOS: 400,
    Code.KEY_MISSING: 401, Code.KEY_WRONG: 401, Code.TOKEN_MISSING: 401, Code.NOT_YOURS: 403,
    Code.NO_GAME: 404, Code.NO_SHEET: 404, Code.NO_PLAYER: 404, Code.NO_BOX: 404, Code.NO_PAGE: 404,
    Code.NOT_ALLOWED: 405, Code.TOO_SLOW: 408,
    Code.GAME_EXISTS: 409, Code.TOO_MANY_GAMES: 409, Code.ALL_CALLED: 409, Code.WRONG_TURN: 409,
    Code.REVEALED: 409, Code.NOT_REVEALED: 409, Code.TOO_EARLY: 409, Code.GAME_FULL: 409, Code.SHEET_USED: 409,
    Code.NAME_TAKEN: 409, Code.HANDED_IN: 409, Code.INCOMPLETE: 409, Code.LOCKED: 409, Code.PLAYERS_BELOW: 409,
    Code.READING: 409,
    Code.NOT_READY: 409,
    Code.VARIANT_SHEETS: 409,
    Code.TOO_LARGE: 413, Code.WRONG_TYPE: 415, Code.WRONG_HOST: 421, Code.TOO_FAST: 429, Code.TOO_MANY: 429,
    Code.INTERNAL: 500, Code.BUSY: 503,
}
"""The HTTP status of each code."""


class ApiError(Exception):
    """An answer other than success: its code (which gives its status) and one line naming the field."""

    def __init__(self, code: Code | str, message: str, headers: dict[str, str] | None = None,
                 status: int | None = None, extra: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.extra = extra or {}
        """Fields answered beside "error" and "code" (a refused photo's "hint" and "overlay")."""
        known = code in {c.value for c in Code}
        self.status = status if status is not None else STATUS[Code(code)] if known else 400
        self.message = message
        self.headers = headers or {}


class Conflict(Exception):
    """A change the game's state does not allow (HTTP 409): one line naming the field, and its code."""

    def __init__(self, message: str, code: Code = Code.REVEALED) -> None:
        super().__init__(message)
        self.code = code
