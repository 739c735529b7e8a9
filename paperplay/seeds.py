"""Seeds and reproducible randomness, exactly as docs/reference/seeds.md fixes them.

Every draw, deal and shuffle in paperplay comes from here, so another program that follows
docs/reference/seeds.md reproduces it bit for bit.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterator, MutableSequence
from typing import TypeVar

from paperplay.errors import InputError

ALPHABET = "23456789ABCDEFGHJKMNPQRSTVWXYZ"
"""Letters of generated seeds and game codes: no 0/O, 1/I/L or U, which read alike."""

MAX_SEED_LENGTH = 32
_WORD_MODULUS = 2**64
_T = TypeVar("_T")


def canonical_seed(text: str) -> str:
    """Returns the canonical form of a seed: its ASCII letters and digits, uppercased.

    Raises InputError when fewer than 1 or more than 32 such characters remain.
    """
    kept = "".join(ch for ch in text if ch.isascii() and ch.isalnum()).upper()
    if not kept:
        raise InputError(
            f"seed {text!r} has no ASCII letters or digits; a seed is 1-32 letters and digits, "
            "e.g. 7KQ2-M9XD"
        )
    if len(kept) > MAX_SEED_LENGTH:
        raise InputError(
            f"seed {text!r} has {len(kept)} letters and digits; at most {MAX_SEED_LENGTH} are allowed"
        )
    return kept


def seed_field(text: str, source: str, field: str = "seed") -> str:
    """canonical_seed of a file's field; an error names the file and the field."""
    try:
        return canonical_seed(text)
    except InputError as exc:
        raise InputError(f"{source}: field {field}: {exc}") from None


def generate_seed() -> str:
    """Returns a fresh random canonical seed of 8 characters from ALPHABET."""
    return "".join(secrets.choice(ALPHABET) for _ in range(8))


def display_code(code: str) -> str:
    """Writes an 8-character seed or game code in two groups of four: ``7KQ2-M9XD``."""
    return f"{code[:4]}-{code[4:]}" if len(code) == 8 else code


def words(label: str, seed: str) -> Iterator[int]:
    """Yields the random 64-bit words for a label and a canonical seed, without end."""
    block = 0
    while True:
        digest = hashlib.sha256(f"paperplay:{label}:{seed}:{block}".encode()).digest()
        for offset in range(0, 32, 8):
            yield int.from_bytes(digest[offset : offset + 8], "big")
        block += 1


class Rng:
    """A stream of random words for a label and a seed, with randbelow and shuffle on top."""

    __slots__ = ("_words",)

    def __init__(self, label: str, seed: str) -> None:
        self._words = words(label, seed)

    def randbelow(self, n: int) -> int:
        """Returns a uniform integer in [0, n) by rejection of the words at or above the limit."""
        if not 0 < n <= _WORD_MODULUS:
            raise ValueError(f"randbelow needs a bound in 1..2**64, not {n}")
        limit = _WORD_MODULUS - (_WORD_MODULUS % n)
        for word in self._words:
            if word < limit:
                return word % n
        raise AssertionError("unreachable: the word stream never ends")

    def shuffle(self, items: MutableSequence[_T]) -> None:
        """Shuffles items in place, Fisher-Yates from the end."""
        for i in range(len(items) - 1, 0, -1):
            j = self.randbelow(i + 1)
            items[i], items[j] = items[j], items[i]


def shuffled(items: list[_T], label: str, seed: str) -> list[_T]:
    """Returns a shuffled copy of items for a label and a canonical seed."""
    result = list(items)
    Rng(label, seed).shuffle(result)
    return result


def game_code(game: str, seed: str) -> str:
    """Returns the 8-character game code players may see instead of the seed."""
    value = next(words(f"code/{game}", seed)) % len(ALPHABET) ** 8
    digits = []
    for _ in range(8):
        value, digit = divmod(value, len(ALPHABET))
        digits.append(ALPHABET[digit])
    return "".join(reversed(digits))
