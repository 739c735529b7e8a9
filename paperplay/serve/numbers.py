"""Whole numbers as the game night server reads them from a path, a query, a header or a body.

One rule everywhere: a number is written with the digits 0-9. Fullwidth digits (０-９, what a phone's
Chinese or Japanese keyboard types) and other decimal digits whose compatibility form (NFKC) is 0-9 are
read as those digits. Anything else is refused with a 400 naming the field: a sign ("-1", "+1"), a space
(" 1"), an exponent ("1e3"), a decimal point, a superscript or subscript ("²", which NFKC would turn
into 2: it is an exponent, not a number), a circled digit, or the digits of another script ("٣",
Arabic-Indic three: NFKC keeps it as it is). Every number has bounds and a length cap, checked before
any work, so a megabyte of digits costs nothing.
"""

from __future__ import annotations

import unicodedata

from paperplay.errors import InputError
from paperplay.serve.errors import Code

ASCII_DIGITS = frozenset("0123456789")
CODE = Code.BAD_NUMBER
"""The error code of a number that cannot be read (beside the one-line message)."""


class BadNumber(InputError):
    """A number that is not one, or out of its bounds: a 400 naming its field."""

    code = CODE

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}", field=field)


def _shown(text: str) -> str:
    from paperplay.messages import shorten

    return shorten(repr(text), 40)  # repr escapes what cannot be seen (a zero-width space is '\u200b')


def digits_of(text: str) -> str | None:
    """The text as ASCII digits: each character a decimal digit whose NFKC form is 0-9 (fullwidth ３ is 3),
    or None when any character is not (a sign, a space, ², ٣, an empty text)."""
    if not text:
        return None
    if text.isascii():
        return text if all(c in ASCII_DIGITS for c in text) else None
    out = []
    for char in text:
        if unicodedata.category(char) != "Nd":  # ² is No (other number): refused
            return None
        plain = unicodedata.normalize("NFKC", char)
        if plain not in ASCII_DIGITS:  # ٣ stays ٣
            return None
        out.append(plain)
    return "".join(out)


def whole(value: str | None, field: str, low: int = 0, high: int = 10**12, *, what: str = "a whole number") -> int:
    """A whole number `low`-`high` written as text (a path segment, a query parameter, a header, a typed box),
    or BadNumber naming `field`: "wait: is '\\xb2'; expected a whole number 0-1000000000000 (digits 0-9)"."""
    expected = f"expected {what} {low}-{high} (digits 0-9)"
    if value is None or value == "":
        raise BadNumber(field, f"is missing; {expected}")
    cap = len(str(high)) + 2  # a leading zero or two is still the number
    if len(value) > cap:  # before any normalising: bounded work whatever arrives
        raise BadNumber(field, f"has {len(value):,} characters; {expected}")
    plain = digits_of(value)
    if plain is None:
        raise BadNumber(field, f"is {_shown(value)}; {expected}")
    number = int(plain)
    if not low <= number <= high:
        raise BadNumber(field, f"is {number}; {expected}")
    return number


def content_length(value: str | None, field: str = "Content-Length") -> int | None:
    """A request's Content-Length header (None when it has none): its byte count, or BadNumber. HTTP allows
    only ASCII digits; a header arrives as Latin-1 text, where no other character is a decimal digit."""
    if value is None:
        return None
    return whole(value, field, 0, 10**15, what="a byte count")
