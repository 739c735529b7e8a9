"""Makes any text safe to show as one line of a message: control characters escaped, long values shortened."""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

# Characters that would break a message over lines or garble a terminal: C0 and C1 controls,
# DEL, the Unicode line and paragraph separators, and lone surrogates (which cannot be encoded).
# And the bidirectional controls, which reorder what follows them on the screen.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069"
                     "\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_LONG_WORD = 120
_LONG_MESSAGE = 600


def _escape(match: re.Match[str]) -> str:
    char = match[0]
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """The text with its control characters and line breaks escaped (a line of a report stays one line
    and cannot garble the terminal, whatever a file's names hold)."""
    return _UNSAFE.sub(_escape, text)


NAME_SHOWN = 60
"""How many characters of a player's name a report shows."""


_URL_PASSWORD = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*:/{1,3}[^:/?#@\s]*):\S*@")
_KEY_PASSWORD = re.compile(r"(?i)\b((?:pg)?password\s*=\s*)('(?:[^'\\]|\\.)*'?|[^\s&;]*)")


def without_passwords(text: str) -> str:
    """The text with every password of a URL or a connection string in it written as *** (a database URL's
    password is never printed): postgresql://ann:***@db.example.org/night, password=***."""
    text = _URL_PASSWORD.sub(r"\1:***@", text)
    return _KEY_PASSWORD.sub(r"\1***", text)


def shown_name(name: str) -> str:
    """A player's name as a report line shows it: escaped, a long one shortened (only when that makes it
    shorter), one that is blank or has spaces at either end quoted."""
    if len(name) > NAME_SHOWN + 20:
        name = shorten(name, NAME_SHOWN)
    return repr(name) if name.strip() != name or not name else printable(name)


def shorten(text: str, limit: int = _LONG_WORD) -> str:
    """Shortens a long value to its start and end around the number of characters left out."""
    if len(text) <= limit:
        return text
    head, tail = limit * 2 // 3, limit // 4
    return f"{text[:head]}…({len(text) - head - tail:,} characters)…{text[-tail:]}"


def one_line(message: str) -> str:
    """Returns a message as one printable line: controls and newlines escaped, long values shortened."""
    text = printable(message)
    text = re.sub(rf"\S{{{_LONG_WORD + 1},}}", lambda m: shorten(m[0]), text)
    return shorten(text, _LONG_MESSAGE)


REPORT_LINE = 1000
"""The longest line of a report the terminal shows whole: longer ones (a 200,000-character card, a player's
name as long) are shortened, the long values in them first."""


def report_line(text: str) -> str:
    """A line of a report as the terminal shows it: escaped; a line longer than REPORT_LINE shortened, its
    long values first (--json keeps every value whole)."""
    text = printable(text)
    if len(text) <= REPORT_LINE:
        return text
    text = re.sub(rf"\S{{{_LONG_WORD + 1},}}", lambda m: shorten(m[0]), text)
    return shorten(text, REPORT_LINE)


def did_you_mean(value: str, values: Sequence[str], also: Sequence[str] = ()) -> str:
    """' (did you mean X?)' for the choice closest to a mistyped value, when one is close; `also` are
    further words a user may have meant (--version beside the commands)."""
    close = difflib.get_close_matches(value.lower(), [*values, *also], n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


def counted(n: int, word: str, plural: str | None = None) -> str:
    """`n` and the noun in the right number for English messages: 1 turn, 2 turns (0 tiles)."""
    return f"{n} {word if n == 1 else plural or word + 's'}"
