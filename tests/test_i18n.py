"""Kits in the players' language: the catalogues are complete and compiled, a Danish or German
kit has no English left on it (checked on the PDF's text), the same seed deals the same game in
every language, and --lang / the locale choose the language."""

from __future__ import annotations

import gettext
import re
from functools import cache
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from paperplay.games import find_game
from paperplay.i18n import LANGUAGES, SOURCE, locale_lang, rules_file, translator
from paperplay.render.fit import walk
from paperplay.render.model import QR, Document, Text
from paperplay.render.pdf import write_pdf

PACKAGE = Path(__file__).resolve().parent.parent / "paperplay"
LOCALE_DIR = PACKAGE / "locale"
"""The catalogues in the repository (.po sources and committed .mo); an installed paperplay ships the .mo."""
TRANSLATED = [lang for lang in LANGUAGES if lang != SOURCE]
FIELD = re.compile(r"\{[^}]*\}")


@cache
def extracted() -> dict[str, tuple[str, ...]]:
    """Every printed string in the code (as `pybabel extract -k N_` finds them), by msgid."""
    keywords = {"_": None, "gettext": None, "ngettext": (1, 2), "N_": None}
    found: dict[str, tuple[str, ...]] = {}
    for _file, _line, message, _comments, _context in extract_from_dir(str(PACKAGE), keywords=keywords):
        ids = message if isinstance(message, tuple) else (message,)
        found[ids[0]] = ids
    return found


@cache
def catalogue(lang: str):
    with open(LOCALE_DIR / lang / "LC_MESSAGES" / "paperplay.po", "rb") as handle:
        return read_po(handle, locale=lang)


def _translations(lang: str) -> dict[str, tuple[str, ...]]:
    out = {}
    for message in catalogue(lang):
        if message.id:
            ids = message.id if isinstance(message.id, tuple) else (message.id,)
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            out[ids[0]] = strings
    return out


def test_the_code_has_printed_strings_to_translate():
    assert len(extracted()) > 100
    assert "Game {code}" in extracted() and extracted()["{n} stop"] == ("{n} stop", "{n} stops")


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_catalogue_is_complete_and_in_step_with_the_code(lang):
    po = catalogue(lang)
    assert po.num_plurals == 2 and po.plural_expr.replace(" ", "") == "(n!=1)"
    translations = _translations(lang)
    missing = sorted(set(extracted()) - set(translations))
    stale = sorted(set(translations) - set(extracted()))
    assert missing == [] and stale == [], "run pybabel extract/update (see docs/contributing.md, Adding a language)"
    for msgid, strings in translations.items():
        message = po[extracted()[msgid] if len(extracted()[msgid]) == 1 else msgid]
        assert not message.fuzzy, msgid
        assert all(s.strip() for s in strings), f"{lang}: {msgid!r} is not translated"
        # The same fields ({code}, {n}, …) in the translation as in the English.
        wanted = set(FIELD.findall(msgid))
        assert all(set(FIELD.findall(s)) == wanted for s in strings), f"{lang}: {msgid!r} -> {strings!r}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_committed_mo_matches_its_po(lang):
    with open(LOCALE_DIR / lang / "LC_MESSAGES" / "paperplay.mo", "rb") as handle:
        compiled = gettext.GNUTranslations(handle)
    t = translator(lang)
    for msgid, strings in _translations(lang).items():
        ids = extracted()[msgid]
        if len(ids) == 1:
            assert compiled.gettext(msgid) == strings[0] == t.gettext(msgid), f"recompile: pybabel compile ({msgid!r})"
        else:
            assert [compiled.ngettext(ids[0], ids[1], n) for n in (1, 2)] == list(strings), msgid


def test_plural_forms_come_from_the_catalogue():
    da, de = translator("da"), translator("de")
    assert da.ngettext("{n} stop", "{n} stops", 1).format(n=1) == "1 stop"
    assert de.ngettext("{n} stop", "{n} stops", 1).format(n=1) == "1 Haltestelle"
    assert de.ngettext("{n} stop", "{n} stops", 3).format(n=3) == "3 Haltestellen"
    assert da.ngettext("{n} player", "{n} players", 2).format(n=2) == "2 spillere"


@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize("game", ["streetcar", "sequence"])
def test_every_language_has_the_rules_summary(game, lang):
    english = rules_file(game, SOURCE).read_text(encoding="utf-8").splitlines()
    lines = rules_file(game, lang).read_text(encoding="utf-8").splitlines()
    assert lines[0] and not set(lines) & {line for line in english if line}
    assert abs(len(lines) - len(english)) <= 2


def test_the_danish_sequence_rules_use_the_rulebook_words():
    text = rules_file("sequence", "da").read_text(encoding="utf-8").lower()
    for word in ("sekvensnumre", "sekvens", "frit rum", "plus-kort", "minus-kort", "dødkort", "hold", "kortbunke"):
        assert word in text
    t = translator("da")
    # the card back's two lines spell the game's one-word name, hyphenated: SEKVENS- / NUMRE
    assert (t.gettext("Sequence Numbers"), t.gettext("SEQUENCE"), t.gettext("NUMBERS"), t.gettext("FREE")) == (
        "Sekvensnumre", "SEKVENS-", "NUMRE", "FRI")
    assert translator("de").gettext("SEQUENCE") == "SEQUENZ-"  # Sequenz-Zahlen


VARIANT = Path(__file__).parent / "data" / "streams-variant-big.json"
KITS = {"streams": {"players": 2}, "streetcar": {"players": 2, "set": 3}, "sequence": {}}


@cache
def kit(game: str, lang: str, seed: str = "7KQ2M9XD", **options: object) -> Document:
    return find_game(game).module().kit(seed, {**KITS[game], **options, "lang": lang})


@cache
def pdf_text(game: str, lang: str, folder: Path) -> str:
    """The text of a kit's PDF as PDFium extracts it (pypdf reads the same, ten times slower)."""
    import pypdfium2

    path = folder / f"{game}-{lang}.pdf"
    write_pdf(kit(game, lang), path, False)
    pdf = pypdfium2.PdfDocument(str(path))
    try:
        return "\n".join(page.get_textpage().get_text_range().replace("\r\n", "\n") for page in pdf)
    finally:
        pdf.close()


def english_left(text: str, lang: str) -> list[str]:
    """The English of the catalogue (its words between the fields, 10 letters or more) and of the
    rules summaries found in a page text, where the language's translation differs."""
    leftovers = []
    translations = _translations(lang)
    for msgid, ids in extracted().items():
        if translations[msgid] == ids:
            continue  # the same in both languages (START, STOP, PLUS, MINUS, …)
        for english in ids:
            for part in FIELD.split(english):
                if len(part.strip()) >= 10 and part.strip() in text:
                    leftovers.append(part.strip())
    for game in ("streetcar", "sequence"):
        leftovers += [line for line in rules_file(game, SOURCE).read_text(encoding="utf-8").splitlines()
                      if len(line) >= 10 and line in text]
    return leftovers


@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize("game", sorted(KITS))
def test_no_english_is_left_on_a_danish_or_german_kit(game, lang, tmp_path_factory):
    folder = tmp_path_factory.getbasetemp()
    text = pdf_text(game, lang, folder)
    assert english_left(text, lang) == []
    t = translator(lang)
    assert t.gettext("Game {code}").split(" ")[0] in text  # the check reads the PDF's text
    # The check would find English: the same kit in English has plenty.
    assert len(english_left(pdf_text(game, SOURCE, folder), lang)) > 5


@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize(("game", "options"), [("sequence", {"poster": True, "paper": "letter"}),
                                                ("streetcar", {"paper": "a3", "players": 6}),
                                                ("streams", {"variant": str(VARIANT)})])
def test_no_english_is_left_on_other_options_pages(game, options, lang):
    """The pages other options add (poster, A3 board, a variant), checked on the page models' texts."""
    doc = kit(game, lang, **options)
    text = "\n".join(t for page in doc.pages for t in doc.texts(page))
    assert english_left(text, lang) == []


def _dealt(doc: Document) -> list[str]:
    """What a kit deals, language aside: its QR payloads, and its texts made of numbers, single
    capital letters (locations) and signs (cards, board, draw, deck order, stops)."""
    out: list[str] = []

    def visit(items) -> None:
        for item in items:
            if isinstance(item, QR):
                out.append(item.payload)
            elif isinstance(item, Text) and re.fullmatch(r"[\d\s#×÷+\-=?,.]*(\b[A-Z]\b[\s\-,]*)*[\d\s]*", item.text):
                out.append(item.text)
            elif hasattr(item, "items"):
                visit(item.items)

    for page in doc.pages:
        visit(page.items)
    for items in doc.forms.values():
        visit(items)
    return out


@pytest.mark.parametrize("game", sorted(KITS))
def test_the_same_seed_deals_the_same_game_in_every_language(game):
    dealt = {lang: _dealt(kit(game, lang)) for lang in LANGUAGES}
    assert len(dealt[SOURCE]) > 20
    assert dealt["da"] == dealt[SOURCE] == dealt["de"]
    assert _dealt(kit(game, "da", "OTHER")) != dealt["da"]  # the check sees a different deal


@pytest.mark.parametrize(("environ", "lang"), [
    ({"LANG": "da_DK.UTF-8"}, "da"), ({"LANG": "de_AT.UTF-8"}, "de"), ({"LANG": "de"}, "de"),
    ({"LANG": "da_DK.UTF-8", "LC_ALL": "de_DE.UTF-8"}, "de"), ({"LANG": "de_DE", "LC_MESSAGES": "da_DK"}, "da"),
    ({"LANG": "fr_FR.UTF-8"}, "en"), ({"LANG": "C.UTF-8"}, "en"), ({"LANG": "POSIX"}, "en"), ({}, "en"),
    ({"LC_ALL": "", "LANG": "da_DK"}, "da"),
])
def test_the_default_language_comes_from_the_locale(environ, lang):
    assert locale_lang(environ) == lang


def test_cli_kit_and_sheets_print_in_the_language_asked(cli, tmp_path, monkeypatch):
    from pdfcheck import page_texts

    monkeypatch.setenv("LANG", "de_DE.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    result = cli("sheets", "--players", "1", "--seed", "S", "--out", str(tmp_path / "de.pdf"))
    assert result.exit_code == 0 and "Wertungsblatt" in page_texts(tmp_path / "de.pdf")[0]
    result = cli("sheets", "--players", "1", "--seed", "S", "--lang", "da", "--out", str(tmp_path / "da.pdf"))
    assert result.exit_code == 0 and "Pointtabel" in page_texts(tmp_path / "da.pdf")[0]
    result = cli("kit", "streetcar", "--seed", "S", "--lang", "en", "--out", str(tmp_path / "en.pdf"))
    assert result.exit_code == 0 and "deal master" in page_texts(tmp_path / "en.pdf")[0]
    result = cli("kit", "sequence", "--seed", "S", "--lang", "fr", "--out", str(tmp_path / "fr.pdf"))
    assert result.exit_code == 2 and "--lang" in result.stderr and "en, da, de" in result.stderr
    assert not (tmp_path / "fr.pdf").exists()


def test_cli_route_pdf_in_german(cli, write_json, tmp_path):
    from pdfcheck import page_texts
    from test_streetcar_route import LOOP_BOARD, LOOP_TILES

    state = write_json("loop.json", {"game": "streetcar", "board": LOOP_BOARD, "tiles": LOOP_TILES,
                                         "stop_signs": {"A": [1, 0]}})
    out = tmp_path / "route.pdf"
    result = cli("route", str(state), "--line", "1", "--stops", "A", "--pdf", str(out), "--lang", "de")
    assert result.exit_code == 0, result.stderr
    text = page_texts(out)[0]
    assert "Linie 1, vollständig, 6 Felder" in text and "Haltestelle A" in text and "complete" not in text


def test_every_literal_given_to_gettext_is_in_the_catalogue():
    """pybabel extract does not look inside f-strings: a _("…") there would never be translated."""
    calls = re.compile(r"""(?:\b_|\.gettext|\bN_)\(\s*"((?:[^"\\]|\\.)*)"\s*[),]""")
    for path in PACKAGE.rglob("*.py"):
        for literal in calls.findall(path.read_text(encoding="utf-8")):
            if literal and not literal.endswith(" "):  # implicit concatenations are joined by extract
                assert any(msgid.startswith(literal) for msgid in extracted()), f"{path.name}: {literal!r}"


def _visible(page: bytes) -> str:
    """A page's text as a reader sees it: no tags, no script, no data block."""
    html = page.decode("utf-8")
    html = re.sub(r"<script.*?</script>|<style.*?</style>", " ", html, flags=re.S)
    return re.sub(r"<[^>]+>", " ", html)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_projector_caller_speaks_the_language(lang):
    from paperplay.html.caller import caller_page, script_words
    from paperplay.html.page import read_data
    from paperplay.seeds import game_code
    from paperplay.streams.rules import draw

    t = translator(lang)
    page = caller_page(game_code("streams", "S"), draw("S"), t=t)
    assert f'<html lang="{lang}">'.encode() in page
    assert english_left(_visible(page), lang) == []
    data = read_data(page)
    assert data["lang"] == lang and data["text"] == script_words(t) and data["text"]["called"] in _visible(page)
    english = caller_page(game_code("streams", "S"), draw("S"))
    assert "text" not in read_data(english) and len(english_left(_visible(english), lang)) > 5
    assert read_data(english)["draw"] == data["draw"]


def test_cli_results_page_and_caller_in_the_language_asked(cli, write_json, tmp_path):
    from conftest import SPEC_SHEET

    sheet = write_json("ann.json", SPEC_SHEET)
    out = tmp_path / "results.html"
    result = cli("score", str(sheet), "--html", str(out), "--lang", "de")
    assert result.exit_code in (0, 1), result.stderr
    page = out.read_bytes()
    assert b'<html lang="de">' in page and "Rangliste" in _visible(page)
    assert english_left(_visible(page), "de") == []
    result = cli("call", "streams", "--seed", "S", "--html", str(tmp_path / "caller.html"), "--lang", "da")
    assert result.exit_code == 0 and "Råbt op" in (tmp_path / "caller.html").read_text(encoding="utf-8")


@pytest.mark.browser
def test_the_danish_caller_counts_turns_in_danish(tmp_path, request):
    """In Chromium: the script shows the page's words (from the data block), not English."""
    from paperplay.html.caller import caller_page
    from paperplay.seeds import game_code
    from paperplay.streams.rules import draw

    tab = request.getfixturevalue("page")
    path = tmp_path / "caller-da.html"
    path.write_bytes(caller_page(game_code("streams", "1"), draw("1"), t=translator("da")))
    tab.goto(path.as_uri())
    assert tab.inner_text("#turn") == "tur 0/20" and "mellemrum" in tab.inner_text("#note")
    for _ in range(18):
        tab.keyboard.press("Space")
    assert tab.inner_text("#turn") == "tur 18/20" and tab.inner_text("#note").startswith("Jokeren")
    tab.keyboard.press("g")
    assert tab.inner_text("#called-title") == "Ude af posen, sorteret"


def test_danish_kits_say_inches_and_the_route_rule_in_danish():
    texts = {game: " ".join(i.text for page in kit(game, "da").pages for i, _, _ in walk(page.items)
                            if isinstance(i, Text)) for game in ("streams", "streetcar")}
    assert "2 tm." in texts["streams"] and "2 in" not in texts["streams"]
    assert "gennem stopskiltbrikkerne ved dine stop" in texts["streetcar"]
    assert "stops stopskiltbrikker" not in texts["streetcar"]
