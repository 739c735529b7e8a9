"""Seeds, reproducible randomness, game codes and the QR payload, as docs/reference/seeds.md fixes them.

Every draw, deal and shuffle in paperplay comes from here, so another program that follows that page
reproduces it bit for bit. Codes come in two derivations: a seed of at most 8 characters (every seed
paperplay made before seeds grew to 14) keeps derivation 1, one SHA-256 word as the 8-character game
code; a longer seed has derivation 2, a 27-character full code (a commitment to the seed of 132 bits)
whose first 8 characters are the game code.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Iterator, MutableSequence
from typing import TypeVar

from paperplay.errors import InputError

ALPHABET = "23456789ABCDEFGHJKMNPQRSTVWXYZ"
"""Letters of generated seeds and game codes: no 0/O, 1/I/L or U, which read alike."""

MAX_SEED_LENGTH = 32
SEED_LENGTH = 14
"""Characters of a generated seed: 30**14 is about 2**68.7 seeds."""
OLD_SEED_LENGTH = 8
"""Seeds of at most this many characters keep derivation 1 (paperplay's generated seeds had 8)."""
STRONG_LENGTH = 13
"""The fewest characters of a seed no one can find from its code: 30**13 is about 2**63.8."""
CODE_LENGTH = 8
FULL_CODE_LENGTH = 27
"""Characters of a full code (derivation 2): 30**27 is about 2**132.5."""
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
    """Returns a fresh random canonical seed of 14 characters from ALPHABET, drawn among the seeds
    seed_weakness accepts (it turns down about one random string in 22, so a seed typed back in is
    never called guessable)."""
    while True:
        seed = "".join(secrets.choice(ALPHABET) for _ in range(SEED_LENGTH))
        if seed_weakness(seed) is None:
            return seed


def display_code(code: str) -> str:
    """Writes a seed or code for people: an 8-character one in two groups of four (``7KQ2-M9XD``), a
    generated 14-character seed as 4-4-3-3 (``7KQ2-M9XD-A3B-CEF``), and a full code (27 characters) as
    the game code it begins with, which is what people read; any other seed as it is."""
    if len(code) == FULL_CODE_LENGTH:
        code = code[:CODE_LENGTH]
    if len(code) == CODE_LENGTH:
        return f"{code[:4]}-{code[4:]}"
    if len(code) == SEED_LENGTH:
        return f"{code[:4]}-{code[4:8]}-{code[8:11]}-{code[11:]}"
    return code


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


def _base30(value: int, length: int) -> str:
    """`value` modulo 30**length as `length` digits of ALPHABET, the most significant first."""
    digits = []
    for _ in range(length):
        value, digit = divmod(value, len(ALPHABET))
        digits.append(ALPHABET[digit])
    return "".join(reversed(digits))


def derivation(seed: str) -> int:
    """Which derivation of codes a canonical seed has: 1 for at most OLD_SEED_LENGTH characters, else 2."""
    return 1 if len(seed) <= OLD_SEED_LENGTH else 2


def old_game_code(game: str, seed: str) -> str:
    """The game code of derivation 1: the first word of label ``code/<game>``, modulo 30**8."""
    return _base30(next(words(f"code/{game}", seed)), CODE_LENGTH)


def full_code(game: str, seed: str) -> str:
    """Returns what the pages of a game carry in their QR codes: for a seed of derivation 2 the
    27-character full code, the first three words of label ``commit/<game>`` (192 bits) modulo 30**27,
    a commitment to the seed; for a seed of derivation 1 its 8-character game code."""
    if derivation(seed) == 1:
        return old_game_code(game, seed)
    stream = words(f"commit/{game}", seed)
    value = (next(stream) << 128) | (next(stream) << 64) | next(stream)
    return _base30(value, FULL_CODE_LENGTH)


def game_code(game: str, seed: str) -> str:
    """Returns the 8-character game code players may see instead of the seed (the full code's first 8)."""
    return full_code(game, seed)[:CODE_LENGTH]


def code_mismatch(game: str, seed: str, code: str) -> str | None:
    """Why a canonical code read from a page or a file (8 or 27 characters) is not the seed's, or None.

    A full code must be the seed's in full (no other seed has it: 2**132 tries). An 8-character code is
    the seed's game code; for a seed of derivation 2 the game code of derivation 1 is also taken, so
    that pages printed with it before seeds grew still check."""
    if len(code) == FULL_CODE_LENGTH:
        if derivation(seed) == 1:
            return (f"is a full code of 27 characters, but seed {seed} has {len(seed)} characters, too few to have "
                    f"one (its game code is {old_game_code(game, seed)})")
        if code != full_code(game, seed):
            return (f"is {code}, but seed {seed} has full code {full_code(game, seed)}: the pages were not printed "
                    "with this seed")
        return None
    if len(code) != CODE_LENGTH:
        return f"is {code}; expected a game code of {CODE_LENGTH} characters (or a full code of {FULL_CODE_LENGTH})"
    if code == game_code(game, seed) or (derivation(seed) == 2 and code == old_game_code(game, seed)):
        return None
    return f"is {code}, but seed {seed} has game code {game_code(game, seed)}"


_VOWELS = frozenset("AEY")


def seed_weakness(seed: str) -> str | None:
    """Why players could find a canonical seed by trying seeds against its game code, or None.

    Strong: at least STRONG_LENGTH characters, all of ALPHABET, and nothing of a person's choosing in
    it: at least 8 different characters, no character three times running, no four characters repeated
    or running along the alphabet, and not 4 or more of A, E and Y making a third of its letters (words).
    generate_seed draws only seeds this accepts."""
    if len(seed) < STRONG_LENGTH:
        return f"is short ({len(seed)} characters)"
    others = sorted(set(seed) - set(ALPHABET))
    if others:
        return f"looks chosen by a person (it has {', '.join(others)}, which paperplay's seeds never have)"
    letters = sum(ch.isalpha() for ch in seed)
    vowels = sum(ch in _VOWELS for ch in seed)
    runs = any(ALPHABET.find(seed[i:i + 4]) >= 0 or ALPHABET[::-1].find(seed[i:i + 4]) >= 0
               or seed.count(seed[i:i + 4]) > 1 for i in range(len(seed) - 3))
    if len(set(seed)) < 8 or re.search(r"(.)\1\1", seed) or runs or (vowels >= 4 and 3 * vowels >= letters):
        return "looks chosen by a person (it repeats itself, runs along the alphabet or reads like words)"
    return None


def seed_warning(seed: str, named: bool = True) -> str | None:
    """The line a host gets when a typed seed is short or guessable (None for a strong seed); `named`:
    the seed is named in it (not where the line may be shown before the reveal, as on the server)."""
    reason = seed_weakness(seed)
    if reason is None:
        return None
    return (f"{f'seed {display_code(seed)}' if named else 'the seed'} {reason}: players could find the draw by "
            "trying seeds against the game code")


def seed_note(seed: str) -> str | None:
    """The note on a checked game whose seed is short or guessable (None for a strong seed)."""
    reason = seed_weakness(seed)
    if reason is None:
        return None
    if derivation(seed) == 1:
        return (f"seed {display_code(seed)} {reason}: players could have found the draw from the game code before "
                "it was revealed, and other seeds have the same 8-character code")
    return f"seed {display_code(seed)} {reason}: players could have found the draw before it was revealed"


PAYLOAD_VERSIONS = ("1", "2")
"""QR payloads `PAPERPLAY/<version> <game> key=value …`: the version is the derivation of its codes."""


def qr_text(game: str, fields: dict[str, str]) -> str:
    """Returns a page's QR payload. Version 2 when field code is a full code or field seed a seed of
    derivation 2; then a scannable sheet's `sheet=n/N scan=1` is written `scan=n/N`, which keeps its QR
    code at version 4 (33 modules) as the scanner expects. Else version 1, as paperplay always wrote."""
    version = 2 if (len(fields.get("code", "")) == FULL_CODE_LENGTH
                    or ("seed" in fields and derivation(fields["seed"]) == 2)) else 1
    if version == 2 and fields.get("scan") == "1" and "sheet" in fields:
        fields = {key: value for key, value in fields.items() if key not in ("sheet", "scan")} | {
            "scan": fields["sheet"]}
    return " ".join([f"PAPERPLAY/{version} {game}"] + [f"{key}={value}" for key, value in fields.items()])


def read_payload(text: str) -> dict[str, str] | None:
    """The fields of a paperplay QR payload (None for any other text): `version` ("1" or "2"), `game`,
    and each `key=value`. Field code is the code as printed (8 characters, or a full code of 27 in
    version 2); version 2's `scan=n/N` is read as `sheet=n/N` and `scan=1`, as version 1 writes them."""
    parts = text.split()
    if not parts or not parts[0].startswith("PAPERPLAY/") or parts[0][len("PAPERPLAY/"):] not in PAYLOAD_VERSIONS:
        return None
    fields = {"version": parts[0][len("PAPERPLAY/"):], "game": parts[1] if len(parts) > 1 else ""}
    for part in parts[2:]:
        key, _, value = part.partition("=")
        if key not in ("version", "game"):
            fields[key] = value
    if fields["version"] == "2" and "/" in fields.get("scan", "") and "sheet" not in fields:
        fields["sheet"], fields["scan"] = fields["scan"], "1"
    return fields


def written_code(code: str) -> str:
    """A code as a sheet file carries it: a full code as it is (so the seed can be checked against it in
    full), a game code as display_code shows it."""
    return code if len(code) == FULL_CODE_LENGTH else display_code(code)
