"""The languages printed pages speak: gettext catalogues, one translator object per language.

Page builders take a Translator (never a global switched at run time), so one process can print
the same kit in two languages. English is the source language: its translator returns the
strings as written. The catalogues are paperplay/locale/<lang>/LC_MESSAGES/paperplay.po (the
source, edited by translators) and its compiled .mo (shipped); gettext is the standard library,
Babel is needed only to extract and compile (see docs/contributing.md, "Adding a language").

Rules summaries are game data, one file per language beside the English one:
templates/<game>/rules.txt (English) and templates/<game>/rules.<lang>.txt.
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Mapping
from functools import cache
from pathlib import Path

from paperplay.resources import load_lines, template_path

DOMAIN = "paperplay"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
LANGUAGES: dict[str, str] = {"en": "English", "da": "Dansk", "de": "Deutsch"}
"""The languages kits print in, by code, with their own names."""
SOURCE = "en"


class Translator:
    """Translates printed strings into one language (gettext/ngettext, as the catalogue has them)."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        if lang == SOURCE:
            self._catalogue: gettext.NullTranslations = gettext.NullTranslations()
        else:
            with open(LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.mo", "rb") as handle:
                self._catalogue = gettext.GNUTranslations(handle)

    def gettext(self, message: str) -> str:
        """The message in this language."""
        return self._catalogue.gettext(message)

    def ngettext(self, singular: str, plural: str, count: int) -> str:
        """The singular or plural of a message for count, by the language's plural rule."""
        return self._catalogue.ngettext(singular, plural, count)

    def rules(self, game: str) -> tuple[str, ...]:
        """A game's rules summary in this language (templates/<game>/rules.<lang>.txt), one printed line each."""
        name = f"{game}/rules.txt" if self.lang == SOURCE else f"{game}/rules.{self.lang}.txt"
        return load_lines(name)

    def __repr__(self) -> str:
        return f"Translator({self.lang!r})"


@cache
def translator(lang: str | None = None) -> Translator:
    """The translator of a language code (en, da, de); None means English."""
    lang = lang or SOURCE
    if lang not in LANGUAGES:
        from paperplay.errors import InputError

        raise InputError(f"is {lang!r}; expected one of {', '.join(LANGUAGES)}", field="lang")
    return Translator(lang)


ENGLISH = translator(SOURCE)


def N_(message: str) -> str:  # noqa: N802 (the gettext convention)
    """Marks a string for the catalogue where it is defined; it is translated where it is printed."""
    return message


def locale_lang(environ: Mapping[str, str] | None = None) -> str:
    """The language the locale asks for (LC_ALL, then LC_MESSAGES, then LANG, as gettext reads them),
    if paperplay prints in it; else English. LANG=da_DK.UTF-8 gives da; C, POSIX or fr_FR give en."""
    environ = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name, "")
        if value:
            code = value.split(".")[0].split("@")[0].split("_")[0].lower()
            return code if code in LANGUAGES else SOURCE
    return SOURCE


def rules_file(game: str, lang: str) -> Path:
    """Where a game's rules summary in a language lives (for tests and translators)."""
    return template_path(f"{game}/rules.txt" if lang == SOURCE else f"{game}/rules.{lang}.txt")
