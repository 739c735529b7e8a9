"""Players' names in a room of strangers: one name, one player, whatever the keyboard or the mischief.

`clean` is the name as it is kept and shown: compatibility-normalised (NFKC: a fullwidth "Ａnn" is
"Ann"), with control, bidirectional and invisible format characters and marks that draw nothing (the
combining grapheme joiner, variation selectors but the emoji ones) removed (the joiners U+200C and
U+200D stay: emoji sequences and Indic names need them), runs of spaces collapsed to one, 1-40
characters. `key` is what two names are compared by: the clean name case-folded, without spaces (a hair
space is hardly seen), joiners or variation selectors, with letters that look alike mapped to one (a
compact table of the Latin, Greek and Cyrillic lookalikes of Unicode's confusables list, TR39: Cyrillic
"А" and Greek "Α" are Latin "A"; then the rest of that list, paperplay.serve.lookalikes: Cherokee "Ꭺ",
Lisu "ꓮ", a small capital "ᴏ"), and the digits 0 and 1 read as the letters o and l. Two names with the
same key are one player's.
Only the standard library.
"""

from __future__ import annotations

import unicodedata

from paperplay.serve.lookalikes import PAIRS

LIMIT = 40
"""The longest name (characters): a line of the results page, a row of the host's list."""
JOINERS = frozenset("\u200c\u200d")
"""Zero-width non-joiner and joiner: kept in a name (Indic scripts and emoji sequences need them)."""
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e")  # Hangul fillers, braille blank: look like nothing
# default-ignorable marks (drawn as nothing, yet not format characters): the combining grapheme joiner,
# Khmer's inherent vowels, Mongolian's variation selectors, the variation selectors but the emoji ones
# (U+FE0E, U+FE0F: kept), and the ideographic variation selectors
_IGNORABLE_MARKS = frozenset("\u034f\u17b4\u17b5\u180b\u180c\u180d\u180f" + "".join(map(chr, range(0xFE00, 0xFE0E))))

# TR39 confusables, the compact part that matters for names typed on phones: Cyrillic and Greek letters
# that are drawn as Latin ones (lower case: the key is case-folded first), and a few symbols.
_LOOKALIKES = str.maketrans({
    # Cyrillic
    "а": "a", "в": "b", "с": "c", "ԁ": "d", "е": "e", "ё": "ë", "һ": "h", "і": "i", "ї": "ï", "ј": "j", "к": "k",
    "ӏ": "l", "м": "m", "н": "h", "о": "o", "р": "p", "ԛ": "q", "ѕ": "s", "т": "t", "у": "y", "ѡ": "w", "х": "x",
    "ү": "y", "ԝ": "w", "ь": "b", "г": "r", "п": "n", "л": "n", "ɡ": "g",
    # Greek
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u",
    "χ": "x", "γ": "y", "ω": "w", "ϲ": "c", "ϳ": "j", "μ": "u", "ς": "c", "σ": "o",
    # Latin lookalikes and digits
    "ı": "i", "ɩ": "i", "ℓ": "l", "ſ": "f", "ƅ": "b", "ɑ": "a", "ɒ": "a", "ɛ": "e", "ɔ": "c", "ʋ": "u",
    "0": "o", "1": "l", "|": "l", "ǀ": "l",
})
_TR39 = {ord(char): look for char, look in zip(PAIRS[::2], PAIRS[1::2], strict=True) if ord(char) not in _LOOKALIKES}
"""The rest of Unicode's confusables (paperplay.serve.lookalikes: Cherokee, Lisu, Armenian, Latin small capitals,
…), after the table above."""


def _dropped(char: str) -> bool:
    """A character a name loses: controls, bidirectional controls, invisible format characters (not the
    joiners), unassigned or private-use code points, surrogates, and characters that draw nothing."""
    if char in JOINERS:
        return False
    if char in _BIDI or char in _INVISIBLE or char in _IGNORABLE_MARKS or 0xE0100 <= ord(char) <= 0xE01EF:
        return True
    return unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Cn")


def clean(value: str) -> str:
    """The name as kept: NFKC, dropped characters removed, every run of spaces (any kind) one space,
    no space at either end. May be empty or too long: `check` says so."""
    text = unicodedata.normalize("NFKC", value)
    text = "".join(" " if char.isspace() or unicodedata.category(char) in ("Zl", "Zp", "Zs") else char
                   for char in text if char.isspace() or not _dropped(char))
    text = " ".join(text.split())
    # joiners only between two letters or symbols: one at an end, or next to a space, joins nothing
    while text and text[0] in JOINERS:
        text = text[1:]
    while text and text[-1] in JOINERS:
        text = text[:-1]
    return text.strip()


MARKS = 4
"""The most combining marks on one letter: Vietnamese writes two, Hebrew's points and Indic signs a few more;
dozens ("Zalgo" text) draw over the lines above and below a name on every page."""


def problem(name: str) -> str | None:
    """What is wrong with a clean name, or None: empty, longer than LIMIT characters, or a letter with
    more than MARKS combining marks stacked on it."""
    if not name:
        return "is empty (or holds only spaces and invisible characters); expected the player's name"
    if len(name) > LIMIT:
        return f"has {len(name)} characters; expected at most {LIMIT}"
    run = 0
    for char in name:
        run = run + 1 if unicodedata.category(char) in ("Mn", "Me") else 0
        if run > MARKS:
            return f"has more than {MARKS} accents or marks on one letter; expected a name that stays on its line"
    return None


def key(name: str) -> str:
    """What two names are compared by (two names with one key are one player's): see the module."""
    text = clean(name).casefold()
    text = "".join(char for char in text if char not in JOINERS and not 0xFE00 <= ord(char) <= 0xFE0F)
    text = unicodedata.normalize("NFD", text)
    text = text.translate(_LOOKALIKES).translate(_TR39)
    return "".join(unicodedata.normalize("NFC", text).split())  # "A nn" (a hair space) is "Ann"
