"""The game night's pages: the home page, the host's, the players' (phone first) and the projector's.

Each is one self-contained page as paperplay's other pages are (paperplay.html.page: inline CSS and
script allowed by hash, no external URL). What changes during the evening comes from the server's
API, which the pages' scripts (templates/html/serve-*.js) follow (each asks for the game's state, and the server
answers when it changes); so their CSP also lets them talk to their own server (connect-src 'self')
and show its images (img-src: the crops of flagged boxes). A name a player types only ever reaches a
page as data, and the scripts show it as text.

The pages speak the kits' languages from the kits' own gettext catalogue: every word a page or its
script shows is marked here (N_, or `ngettext` below for a plural) and rendered into the page in its
language, the scripts' words as a table in the page's data (plurals as their two forms, which the
script picks with the browser's Intl.PluralRules). The phone and the projector speak the game's
language; the host page and the home page the browser's (Accept-Language) or ?lang=.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from paperplay.html.page import STAR_SYMBOL, asset, document, text
from paperplay.html.results import boxes_symbol
from paperplay.i18n import LANGUAGES, N_, SOURCE, Translator, translator
from paperplay.seeds import display_code

PAGES = ("home", "host", "player", "projector")
BOXES = 20
_CSP_END = "base-uri 'none'"
_ICON = '<link rel="icon" href="data:,">\n'
_CSP_LIVE = "connect-src 'self'; img-src 'self' data: blob:; "

Words = dict[str, "str | tuple[str, str]"]


def ngettext(singular: str, plural: str) -> tuple[str, str]:
    """Marks a plural for the catalogue (pybabel extracts `ngettext` calls); the page gets both forms in
    its language."""
    return (singular, plural)


def render(name: str, **ctx: Any) -> str:
    """Returns one of the game night's pages as HTML text.

    - ``home``: ``lang`` (the page's language).
    - ``host``: ``key`` (the host's key, sent with every host call), ``lang`` (the page's language, and
      the one the new-game form offers first), ``variants`` (the variant names it offers), ``local_only``
      (the server answers this computer only: phones cannot join, and the page says how to fix it).
    - ``player``: ``code`` (the game), ``lang`` (the game's language).
    - ``projector``: ``code``, ``view`` (the game's view token, to follow it), ``join_url`` (the address
      the join QR code holds, with the host's address as the phones reach it), ``lang``. The projector
      never holds the host key: opened from the host page, it is handed the key by that window.
    """
    builders: dict[str, Callable[..., str]] = {"home": home_page, "host": host_page, "player": player_page,
                                               "projector": projector_page}
    if name not in builders:
        raise ValueError(f"unknown page {name!r}; expected one of {', '.join(PAGES)}")
    return builders[name](**ctx)


def page_lang(asked: str | None, accept_language: str | None) -> str:
    """The language of the host's and the home page: ?lang= if paperplay speaks it, else the first of
    the browser's Accept-Language it speaks (by weight), else English."""
    if asked in LANGUAGES:
        return asked
    choices: list[tuple[float, int, str]] = []
    for at, part in enumerate((accept_language or "")[:1000].split(",")[:40]):
        bits = part.strip().split(";")
        code = bits[0].strip().split("-")[0].lower()
        weight = 1.0
        for bit in bits[1:]:
            name, _, value = bit.strip().partition("=")
            if name == "q":
                try:
                    weight = float(value) if value.replace(".", "", 1).isdigit() else 0.0
                except ValueError:
                    weight = 0.0
        if code in LANGUAGES and weight > 0:
            choices.append((-weight, at, code))
    return min(choices)[2] if choices else SOURCE


def _live(page: bytes) -> str:
    """The page as text, its CSP opened to its own server's API and to images (the server's, data: and blob:),
    with an empty icon (else the browser asks the server for /favicon.ico)."""
    source = page.decode("utf-8")
    head_end = source.index("</head>")
    at = source.index(_CSP_END, 0, head_end)
    source = source[:at] + _CSP_LIVE + source[at:]
    at = source.index("<meta name=\"viewport\"")
    return source[:at] + _ICON + source[at:]


def _words(t: Translator, words: Words) -> dict[str, Any]:
    """The words a script shows, in the page's language, for its data block: a plural as its two forms
    (one, other), which every language paperplay speaks has."""
    out: dict[str, Any] = {}
    for key, value in words.items():
        if isinstance(value, tuple):
            out[key] = [t.ngettext(value[0], value[1], 1), t.ngettext(value[0], value[1], 2)]
        else:
            out[key] = t.gettext(value)
    return out


def _assemble(t: Translator, title: str, name: str, body: str, data: dict[str, Any], description: str,
              caller: bool = False) -> str:
    """One page from its body and data, its style (the results page's, the caller's for the projector,
    then serve.css and serve-<name>.css) and its script (serve.js, then serve-<name>.js)."""
    parts = ["base.css", *(["caller.css"] if caller else []), "results.css", "serve.css", f"serve-{name}.css"]
    style = "".join(asset(part) for part in parts)
    script = asset("serve.js") + asset(f"serve-{name}.js")
    data = {**data, "lang": t.lang}
    live = '<div class="sr" id="announce" aria-live="polite" aria-atomic="true"></div>\n'
    return _live(document(title, style, body + live, script=script, data=data, description=description,
                          lang=t.lang))


def qr_svg(payload: str, label: str) -> str:
    """A QR code as an inline SVG: one path of dark runs on a white square with a four-module quiet zone
    (white in a dark theme too, as a phone's camera expects)."""
    from paperplay.render.pdf import qr_modules

    rows = qr_modules(payload)
    size = len(rows) + 8
    runs = []
    for y, row in enumerate(rows):
        x = 0
        while x < len(row):
            if row[x]:
                start = x
                while x < len(row) and row[x]:
                    x += 1
                runs.append(f"M{start + 4} {y + 4}h{x - start}v1h-{x - start}z")
            else:
                x += 1
    return (f'<svg class="qr" viewBox="0 0 {size} {size}" role="img" aria-label="{text(label)}" '
            f'shape-rendering="crispEdges"><rect width="{size}" height="{size}" fill="#fff"/>'
            f'<path fill="#000" d="{"".join(runs)}"/></svg>')


def short_address(url: str) -> str:
    """The join address as people read and type it: without its scheme."""
    for scheme in ("http://", "https://"):
        if url.startswith(scheme):
            return url[len(scheme):]
    return url


# --- shared words ---------------------------------------------------------------------------------

ERRORS: dict[str, str] = {
    "offline": N_("The server does not answer. This page tries again by itself; if it lasts, check the Wi-Fi."),
    "back": N_("The server answers again."),
    "busy": N_("The server is busy. This page tries again in a moment."),
    "too_slow": N_("The upload took too long. Move closer to the Wi-Fi and try again."),
    "too_large": N_("The photo is too large. Take it again, or type the boxes instead."),
    "bad_photo": N_("The photo could not be read. Take it again, flat and in good light with the whole sheet in "
                    "the picture, or type the boxes instead."),
    "sheet_blank": N_("No numbers are written on this sheet yet. Write your numbers first, then take the photo."),
    "wrong_game": N_("This sheet belongs to another game. Use a sheet of this game, or type the boxes."),
    "no_photos": N_("This game takes typed sheets only: type your 20 boxes."),
    "key_missing": N_("This page has no host key. Open the host link that the terminal printed."),
    "key_wrong": N_("The host key is not accepted (a new one may have been made). Open the host link that the "
                    "terminal printed."),
    "token_missing": N_("This phone cannot change that sheet. Use the phone that joined, or ask the host."),
    "not_yours": N_("This phone cannot change that sheet. Use the phone that joined, or ask the host."),
    "no_game": N_("This game is not on the server. Check the game code, or ask the host."),
    "no_sheet": N_("That sheet is no longer in the game (the host may have removed it)."),
    "no_player": N_("You are no longer in the game (the host removed you). Join again with your name."),
    "game_exists": N_("A game with this seed is on this server already: open it from the list below."),
    "too_many_games": N_("The server holds as many games as it can. Start it with another database file (--db)."),
    "all_called": N_("Every tile is called."),
    "wrong_turn": N_("Another window called a tile at the same moment. This page has caught up: press again."),
    "revealed": N_("The results are out: nothing more can be handed in or changed."),
    "not_revealed": N_("The results come after the reveal."),
    "too_early": N_("Hand-ins open after the last tile. Keep playing: this page tells you when."),
    "game_full": N_("The game is full. Ask the host to make room for one more player."),
    "sheet_used": N_("This printed sheet has been handed in already. Check that the photo shows your own sheet."),
    "name_taken": N_("That name, or one that looks the same, is taken. Add an initial, or choose another."),
    "handed_in": N_("This player has handed in a sheet already."),
    "incomplete": N_("Some boxes are still empty: type them first."),
    "reading": N_("The photo of this sheet is still being read. Wait a moment, then try again."),
    "locked": N_("The host has locked hand-ins and changes. Ask the host."),
    "players_below_sheets": N_("More sheets are handed in than that: choose at least as many players."),
    "not_ready": N_("Not everything is in yet: see what is missing."),
    "variant_sheets": N_("Scannable sheets are made for the published game only."),
    "too_fast": N_("Too many changes at once. Wait a moment, then try again."),
    "too_many": N_("Many phones on this network are joining or handing in at once. This page tries again by itself "
                   "in a moment."),
    "wrong_host": N_("This address is not the server's own. Open the link the terminal printed, or scan the QR "
                     "code."),
    "bad_input": N_("That was not accepted ({line}). Check what you typed and try again."),
    "other": N_("Something went wrong ({line}). Reload the page; if it happens again, tell the host."),
}
"""What a page says for each of the API's error codes (paperplay.serve.errors.Code), with what to do."""

_COMMON: Words = {
    **{f"e_{code}": words for code, words in ERRORS.items()},
    "wild": N_("wild"), "turn": N_("turn {turn}/{total}"),
    "points": ngettext("{n} point", "{n} points"), "valid": N_("valid"), "not_valid": N_("not valid"),
    "boxes_label": N_("Boxes: {numbers}. Series: {series}."),
    "series_label": ngettext("boxes {start}-{end}: {points} point", "boxes {start}-{end}: {points} points"),
    "wild_is": N_("the wild counts as {value}"), "no_ranking": N_("No valid sheet to rank."),
    "variant": N_("variant {name}"), "seed": N_("seed {seed}"),
    "joined_n": ngettext("{n} player has joined", "{n} players have joined"),
    "arrived": N_("{name} has joined."), "handed_news": N_("{name} has handed in."),
    "tile_news": N_("Tile {turn} of {total}: {tile}."), "wild_tile": N_("the wild"),
    "incomplete_sheet": N_("incomplete"), "unsettled": N_("boxes scored as read"),
    "place_of": N_("Place {place} of {n}"),
    "box": N_("Box {box}"), "empty": N_("empty"),
}


# --- the home page ----------------------------------------------------------------------------------

_HOME_WORDS: Words = {
    **_COMMON,
    "need_code": N_("Type the game code: 8 letters and digits, as the projector shows it."),
    "bad_code": N_("{code} is not a game code: it has 8 letters and digits, like 7KQ2-M9XD."),
    "looking": N_("Looking for the game…"),
}


def home_page(lang: str | None = None) -> str:
    """The home page `/`: a player types the game code (any case, with or without the dash) and lands on
    the game's join page."""
    t = translator(lang)
    _ = t.gettext
    w = {key: text(value) for key, value in {
        "title": _("Streams game night"), "code": _("Game code"),
        "hint": _("The code is on the projector, under the QR code, like 7KQ2-M9XD."),
        "go": _("Join the game"),
        "host": _("Hosting? Open the host link that the terminal printed when the server started."),
        "foot": _("Made with paperplay."),
    }.items()}
    body = f"""{STAR_SYMBOL}
<header class="top">
<h1>{w["title"]}</h1>
</header>
<main>
<form id="code-form" class="card" novalidate>
<p class="field"><label for="code">{w["code"]}</label>
<input id="code" name="code" type="text" autocomplete="off" spellcheck="false" autocapitalize="characters"
 maxlength="20" aria-describedby="code-hint" enterkeyhint="go" required>
<small id="code-hint">{w["hint"]}</small></p>
<p><button type="submit" class="primary big">{w["go"]}</button></p>
<p class="error" id="code-error" role="alert"></p>
</form>
<p class="muted">{w["host"]}</p>
</main>
<footer class="foot">{w["foot"]}</footer>"""
    data = {"page": "home", "text": _words(t, _HOME_WORDS)}
    return _assemble(t, _("Streams game night"), "home", body, data, _("Join a Streams game night"))


# --- the host's page ------------------------------------------------------------------------------

_HOST_WORDS: Words = {
    **_COMMON,
    "creating": N_("Starting the game…"), "calling": N_("Calling…"), "called_all": N_("All 20 tiles are called."),
    "first": N_("Press “Next tile” for the first tile."), "none_in": N_("No sheet handed in yet."),
    "nobody": N_("Nobody has joined yet: the players scan the QR code on the projector."),
    "in": N_("{n} of {players}"), "page_of": N_("page {page} of {pages}"),
    "flagged": ngettext("{n} box to check", "{n} boxes to check"),
    "empty_n": ngettext("{n} empty box", "{n} empty boxes"),
    "corrected_n": ngettext("{n} box changed by the player", "{n} boxes changed by the player"),
    "box_is": N_("box {box}: {value}"), "players_n": ngettext("{n} player", "{n} players"),
    "checked": N_("all boxes sure"), "typed": N_("typed"), "photo": N_("photo"),
    "joined_at": N_("joined {time}"), "waiting_sheet": N_("no sheet yet"), "has_sheet": N_("handed in"),
    "confirm_reveal": N_("Reveal the results to everyone? Sheets can then be corrected by you only."),
    "confirm_new": N_("Leave game {code} and start a new one? (Its pages keep working.)"),
    "confirm_remove_sheet": N_("Remove {name}'s sheet from the game? The player can hand in again."),
    "confirm_remove_player": N_("Remove {name} from the game?"),
    "reveal_hint": N_("When every sheet is in, reveal the results on the projector and the phones."),
    "revealed": N_("The results are revealed: they show on the projector and on every phone. You can still "
                   "correct a sheet; every page follows."),
    "lost": N_("Game {code} is no longer on this server; start a new one."),
    "game_line": N_("game {code} · {date} · {players}"), "is_revealed": N_("revealed"),
    "no_names": N_("nobody joined"),
    "missing_sheets": ngettext("{n} sheet is not handed in", "{n} sheets are not handed in"),
    "missing_incomplete": N_("incomplete: {names}"), "missing_unsettled": N_("boxes to check: {names}"),
    "ready": N_("Every sheet is in and settled."), "reveal_anyway": N_("Reveal anyway"),
    "forced_note": N_("Revealing anyway leaves incomplete sheets out of the ranking and scores boxes to check as "
                      "read."),
    "fix": N_("Check boxes"), "rename": N_("Rename"), "remove": N_("Remove"), "save": N_("Save"),
    "cancel": N_("Cancel"), "new_name": N_("New name for {name}"), "renamed": N_("{name} is renamed."),
    "removed": N_("{name} is removed."), "fixed": N_("Box {box} of {name} is now {value}."),
    "set_box": N_("Set box {box} to"), "other_value": N_("Another value for box {box}"),
    "box_image": N_("Box {box} as photographed"), "why": N_("why: {why}"),
    "lock": N_("Lock hand-ins"), "unlock": N_("Unlock hand-ins"),
    "hide_name": N_("Hide the name"), "show_name": N_("Show the name"),
    "hidden_mark": N_("hidden from the projector"),
    "name_hidden": N_("{name} is hidden from the projector and the other phones."),
    "name_shown": N_("{name} shows on the projector again."),
    "locked_note": N_("Locked: nobody can join, hand in or change a sheet; you still can."),
    "players_saved": N_("The game now takes {n} sheets."),
    "projector_opened": N_("The projector window is open: Space or → there calls the next tile."),
    "results_link": N_("Open the results page"),
    "bad_value": N_("Box {box}: write a number, or * for the wild."),
}


def host_page(key: str = "", lang: str | None = None, variants: list[str] | None = None,
              local_only: bool = False) -> str:
    """The host's page, a control room: a new game, its kit, the caller, who has joined and handed in,
    each sheet's boxes to check (fix, rename, remove), the lock, and a reveal that says what is missing."""
    from paperplay.streams.rules import shipped_variants

    t = translator(lang)
    _ = t.gettext
    languages = "".join(f'<option value="{code}"{" selected" if code == t.lang else ""}>{text(name)}</option>'
                        for code, name in LANGUAGES.items())
    options = "".join(f'<option value="{text(v)}">{text(v)}</option>' for v in (variants or shipped_variants()))
    w = {key_: text(value) for key_, value in {
        "title": _("Streams game night"), "new": _("New game"), "players": _("Players"),
        "seed": _("Seed"), "seed_hint": _("Leave it empty for a new game; type a seed to play a known one again."),
        "seed_weak": _("The seed given is short or guessable: players could find the draw by trying seeds against "
                       "the game code. Leave Seed empty for a new one."),
        "lang": _("Language"), "lang_hint": _("The kit, the phones and the projector speak it."),
        "variant": _("Variant"), "start": _("Start the game"),
        "game": _("Game"), "join": _("Players join at"), "kit": _("Download the kit (PDF)"),
        "sheets": _("Download the scannable sheets (PDF)"), "projector": _("Open the projector view"),
        "projector_hint": _("Show it on the big screen: the names as players join, each tile called, then the "
                            "results."),
        "caller": _("Caller"), "next": _("Next tile"), "called": _("Called so far"),
        "room": _("Players"), "handed": _("Sheets handed in"), "reveal": _("Reveal the results"),
        "page_back": _("Previous page"), "page_on": _("Next page"),
        "reveal_hint": _("When every sheet is in, reveal the results on the projector and the phones."),
        "ranking": _("Ranking"), "another": _("New game…"), "games": _("Or open a game of this server"),
        "count": _("Sheets the game takes"), "set": _("Set"),
        "local": _("Phones cannot reach this server: it answers this computer only."),
        "local_fix": _("Stop it (Ctrl-C) and start it again with: paperplay serve --lan. Its games are kept."),
        "foot": _("Keep this page to yourself: its address holds the host's key. Made with paperplay."),
    }.items()}
    warning = (f'<section class="card warn" role="alert" id="local"><p><b>{w["local"]}</b></p>'
               f'<p>{w["local_fix"]}</p></section>') if local_only else ""
    body = f"""{STAR_SYMBOL}
<header class="top">
<h1>{w["title"]}</h1>
</header>
<main>
{warning}
<section class="card" id="new" aria-labelledby="new-title">
<h2 id="new-title">{w["new"]}</h2>
<form id="new-form" class="fields" novalidate>
<p><label for="players">{w["players"]}</label>
<input id="players" name="players" type="number" min="1" max="200" value="4" required inputmode="numeric"></p>
<p><label for="seed">{w["seed"]}</label>
<input id="seed" name="seed" type="text" autocomplete="off" spellcheck="false" autocapitalize="characters"
 maxlength="20" aria-describedby="seed-hint">
<small id="seed-hint">{w["seed_hint"]}</small></p>
<p><label for="lang">{w["lang"]}</label>
<select id="lang" name="lang" aria-describedby="lang-hint">{languages}</select>
<small id="lang-hint">{w["lang_hint"]}</small></p>
<p><label for="variant">{w["variant"]}</label>
<select id="variant" name="variant">{options}</select></p>
<p class="wide"><button type="submit" class="primary">{w["start"]}</button></p>
<p class="wide error" id="new-error" role="alert"></p>
</form>
<div id="games" hidden>
<h3>{w["games"]}</h3>
<ul class="games" id="games-list"></ul>
</div>
</section>
{_host_game(w)}
</main>
<footer class="foot">{w["foot"]}</footer>"""
    data = {"page": "host", "key": key, "text": _words(t, _HOST_WORDS)}
    return _assemble(t, _("Streams game night · host"), "host", body, data,
                     _("The host's page of a Streams game night"))


def _host_game(w: dict[str, str]) -> str:
    """The host page's game: its links, the caller, who has joined, the reveal and its controls, the sheets."""
    return f"""<div id="game" class="columns" hidden>
<div>
<section class="card" aria-labelledby="game-title">
<h2 id="game-title">{w["game"]} <b id="code"></b> <span id="game-meta" class="muted"></span></h2>
<p class="note" id="seed-weak" hidden>{w["seed_weak"]}</p>
<p>{w["join"]} <a id="join-link" class="address"></a></p>
<ul class="links">
<li><a id="kit-link" download>{w["kit"]}</a></li>
<li><a id="sheets-link" download>{w["sheets"]}</a></li>
<li><a id="projector-link" target="_blank">{w["projector"]}</a>
<small>{w["projector_hint"]}</small></li>
</ul>
</section>
<section class="card caller" aria-labelledby="caller-title">
<h2 id="caller-title">{w["caller"]}</h2>
<div class="now">
<div class="tile" id="tile"></div>
<div>
<p class="turn" id="turn"></p>
<button type="button" class="primary big" id="next">{w["next"]}</button>
<p class="note" id="note" role="status"></p>
</div>
</div>
<h3>{w["called"]}</h3>
<ol class="order" id="order"></ol>
</section>
<section class="card" aria-labelledby="room-title">
<h2 id="room-title">{w["room"]} <span id="joined" class="muted"></span></h2>
<ul class="handed" id="roster"></ul>
</section>
</div>
<div>
<section class="card" aria-labelledby="reveal-title" id="reveal-card">
<h2 id="reveal-title">{w["reveal"]}</h2>
<p id="reveal-hint">{w["reveal_hint"]}</p>
<ul class="missing" id="missing"></ul>
<p class="actions"><button type="button" class="primary" id="reveal">{w["reveal"]}</button>
<button type="button" id="force" hidden></button>
<a id="results-link" hidden target="_blank"></a></p>
<div class="controls">
<p><button type="button" id="lock" aria-pressed="false"></button></p>
<form id="count-form" class="inline" novalidate><label for="count-input">{w["count"]}</label>
<input id="count-input" type="number" min="1" max="200" inputmode="numeric">
<button type="submit">{w["set"]}</button></form>
</div>
<p class="note" id="lock-note"></p>
<div id="results" hidden>
<h3>{w["ranking"]}</h3>
<ol class="ranking" id="ranking"></ol>
</div>
</section>
<section class="card" aria-labelledby="handed-title">
<h2 id="handed-title">{w["handed"]} <span id="count" class="muted"></span></h2>
<p class="status" id="sheet-status" role="status"></p>
<ul class="handed sheets" id="handed"></ul>
<p class="pager" id="pager" hidden><button type="button" id="page-back">{w["page_back"]}</button>
<span id="page-of" class="muted"></span> <button type="button" id="page-on">{w["page_on"]}</button></p>
</section>
<p><button type="button" id="another">{w["another"]}</button></p>
<p class="error" id="game-error" role="alert"></p>
</div>
</div>"""


# --- the player's page (a phone) ------------------------------------------------------------------

_PLAYER_WORDS: Words = {
    **_COMMON,
    "need_name": N_("Write your name first."), "joining": N_("Joining…"),
    "sending": N_("Sending your sheet…"), "reading": N_("Reading your photo…"),
    "queued": N_("Your photo is in. It is being read: keep this page open, your boxes show here in a moment."),
    "retrying": N_("The server does not answer; trying again…"),
    "need_box": N_("Box {box}: write a number, or * for the wild."),
    "bad_box": N_("Box {box}: {value} is not a number."),
    "all_sure": N_("Every box is read (tap one to change it). Wait for the host to reveal the results."),
    "check": N_("Check the boxes marked below: tap what you wrote."),
    "unsure": N_("not sure"),
    "what": N_("What did you write in box {box}?"), "other": N_("Something else"), "ok": N_("OK"),
    "saved": N_("Box {box} is now {value}."), "place": N_("Place {place} of {n}"),
    "not_ranked": N_("Your sheet is not valid, so it is not ranked."),
    "incomplete_out": N_("Your sheet was incomplete, so it is not ranked."),
    "closed": N_("The results are out: sheets can no longer be handed in."),
    "lost": N_("This game is no longer on the server."), "hello": N_("Hello, {name}"),
    "before": N_("The game starts soon: keep your sheet and a pen ready."),
    "follow": N_("Write the tile in a box of your sheet."),
    "opens": N_("You hand in your sheet here after the last tile."),
    "open_now": N_("That was the last tile: hand in your sheet now."),
    "locked_now": N_("The host has locked hand-ins for now."),
    "waiting": N_("Your sheet is in. Wait for the host to reveal the results."),
    "removed_player": N_("The host removed you from the game. Join again with your name."),
    "removed_sheet": N_("The host removed your sheet. Hand it in again."),
    "you": N_("you"),
}


def player_page(code: str, lang: str | None = None) -> str:
    """A player's page, phone first: join with a name, follow the tiles, hand in the sheet (a photo or the
    typed boxes) after the last tile, check the flagged boxes, then the score, the place and the ranking."""
    t = translator(lang)
    _ = t.gettext
    shown = display_code(code)
    boxes = "".join(f'<li><label for="c{n}">{n}</label><input id="c{n}" class="cell" type="text" inputmode="tel" '
                    f'maxlength="3" autocomplete="off" enterkeyhint="{"next" if n < BOXES else "done"}"></li>'
                    for n in range(1, BOXES + 1))
    w = {key: text(value) for key, value in {
        "game": _("game"), "title": _("Join the game"), "name": _("Your name"),
        "name_hint": _("As the others know you: it shows on the big screen."), "join": _("Join"),
        "hand_in": _("Hand in your sheet"),
        "photo": _("Take a photo of your sheet"),
        "photo_hint": _("Lay the sheet flat in good light, with its QR code and all four corner marks in the "
                        "picture."),
        "or": _("or"), "type": _("Type the 20 boxes"),
        "type_hint": _("Each box's number, in order; the wild as *."),
        "send": _("Hand in"), "sheet": _("Your sheet"), "score": _("Your score"), "ranking": _("Ranking"),
        "called": _("Called so far"), "last": _("Last tile"), "overlay": _("What the reader found on your photo"),
        "good": _("Like this: from straight above, the whole sheet filling the photo."),
        "bad": _("Not like this: at an angle, or from far away."),
        "foot": _("Your name and sheet are kept in this browser: reload the page and they are still here."),
        "own_sheet": _("Print or save my sheet"),
        "own_hint": _("A scannable score sheet with your own number: print it, or write on a copy of it."),
    }.items()}
    body = f"""{STAR_SYMBOL}{boxes_symbol(BOXES)}
<header class="top">
<p class="game">Streams · {w["game"]} <b id="code">{shown}</b></p>
<h1 id="hello" tabindex="-1">{w["title"]}</h1>
</header>
<main>
<section class="card" id="join" aria-labelledby="hello">
<form id="join-form" novalidate>
<p class="field"><label for="name">{w["name"]}</label>
<input id="name" type="text" maxlength="40" autocomplete="nickname" enterkeyhint="go" required
 aria-describedby="name-hint">
<small id="name-hint">{w["name_hint"]}</small></p>
<p><button type="submit" class="primary big">{w["join"]}</button></p>
</form>
<p class="status" id="join-status" role="status"></p>
<p class="error" id="join-error" role="alert"></p>
</section>
<section class="card" id="live" hidden aria-labelledby="live-turn">
<div class="now">
<div class="big-tile" id="tile" aria-label="{w["last"]}" role="img"></div>
<div>
<p class="turn" id="live-turn"></p>
<p class="note" id="live-note"></p>
</div>
</div>
<h2 class="small">{w["called"]}</h2>
<ol class="order" id="order"></ol>
<p class="own" id="own" hidden><a class="button" id="own-link" href="#" download>{w["own_sheet"]}</a>
<small>{w["own_hint"]}</small></p>
</section>
{_player_handin(w, boxes)}
<section class="card" id="sheet" hidden aria-labelledby="sheet-title">
<h2 id="sheet-title" tabindex="-1">{w["sheet"]}</h2>
<ol class="read" id="read"></ol>
<p class="place" id="my-place" hidden></p>
<p class="status" id="sheet-status" role="status" tabindex="-1"></p>
<div id="flags"></div>
<p class="error" id="sheet-error" role="alert"></p>
</section>
<section class="card" id="result" hidden aria-labelledby="result-title">
<h2 id="result-title" tabindex="-1">{w["score"]}</h2>
<p class="total" id="total"></p>
<p class="place" id="place"></p>
<div class="strip" id="train"></div>
<p class="notes" id="result-notes"></p>
<h2>{w["ranking"]}</h2>
<ol class="ranking" id="ranking"></ol>
</section>
</main>
<footer class="foot">{w["foot"]}</footer>"""
    data = {"page": "player", "code": code, "boxes": BOXES, "text": _words(t, _PLAYER_WORDS)}
    return _assemble(t, _("Streams · game {code}").format(code=shown), "player", body, data,
                     _("Join a Streams game night and hand in your sheet"))


def _player_handin(w: dict[str, str], boxes: str) -> str:
    """The phone's hand-in: a photo of the sheet or its 20 boxes typed, and a refused photo's picture."""
    return f"""<section class="card" id="handin" hidden aria-labelledby="handin-title">
<h2 id="handin-title" tabindex="-1">{w["hand_in"]}</h2>
{_photo_guide(w)}
<p class="photo">
<input id="photo" type="file" accept="image/*" capture="environment" class="sr" aria-describedby="photo-hint">
<label for="photo" class="button primary big">{w["photo"]}</label>
<small id="photo-hint">{w["photo_hint"]}</small></p>
<p class="or">{w["or"]}</p>
<details id="typing">
<summary>{w["type"]}</summary>
<form id="type-form" novalidate>
<p class="hint" id="type-hint">{w["type_hint"]}</p>
<ol class="cells" aria-describedby="type-hint">{boxes}</ol>
<button type="submit" class="primary">{w["send"]}</button>
</form>
</details>
<p class="status" id="handin-status" role="status"></p>
<p class="error" id="handin-error" role="alert"></p>
<figure id="overlay-box" hidden><img id="overlay" alt="{w["overlay"]}"><figcaption>{w["overlay"]}</figcaption>
</figure>
</section>"""


_SHEET_MARKS = "".join(f'<rect x="{x}" y="{y}" width="5" height="5"/>'
                       for x, y in ((36, 10), (79, 10), (36, 75), (79, 75)))
_BOXES = "".join(f'<rect x="{38 + 4.2 * n:.1f}" y="{y}" width="3.6" height="6" fill="none" stroke="#333" '
                 'stroke-width=".5"/>' for y in (56, 64) for n in range(10))


def _photo_guide(w: dict[str, str]) -> str:
    """How a photo of a sheet looks that the reader takes, and one it refuses (shown before the camera opens):
    drawings, the words in the captions."""
    good = (f'<svg viewBox="0 0 120 90" aria-hidden="true"><rect width="120" height="90" rx="4" fill="#4a4a4a"/>'
            f'<rect x="34" y="8" width="52" height="74" fill="#fff"/><g fill="#000">{_SHEET_MARKS}</g>'
            f'<rect x="44" y="12" width="9" height="9" fill="#777"/>{_BOXES}'
            '<circle cx="104" cy="16" r="10" fill="#1e7b34"/><path d="M99 16l4 4 7-8" fill="none" stroke="#fff" '
            'stroke-width="2.5"/></svg>')
    bad = ('<svg viewBox="0 0 120 90" aria-hidden="true"><rect width="120" height="90" rx="4" fill="#4a4a4a"/>'
           '<polygon points="52,40 74,40 84,72 40,72" fill="#fff"/><g fill="#000"><rect x="53" y="41" width="2" '
           'height="2"/><rect x="71" y="41" width="2" height="2"/><rect x="42" y="69" width="3" height="3"/>'
           '<rect x="80" y="69" width="3" height="3"/></g>'
           '<circle cx="104" cy="16" r="10" fill="#b3261e"/><path d="M99 11l10 10M109 11l-10 10" stroke="#fff" '
           'stroke-width="2.5"/></svg>')
    return (f'<div class="guide"><figure>{good}<figcaption>{w["good"]}</figcaption></figure>'
            f'<figure>{bad}<figcaption>{w["bad"]}</figcaption></figure></div>')


# --- the projector's page (the big screen) --------------------------------------------------------

_PROJECTOR_WORDS: Words = {
    **_COMMON,
    "first": N_("The game starts soon: join on your phone, then wait for the first tile."),
    "last": N_("That was the last tile. Hand in your sheet on your phone."),
    "wild_note": N_("The wild: write it in any box; it counts as any number."),
    "in": N_("{n} of {players} sheets in"), "results": N_("Results"),
    "no_voice": N_("This computer has no voice for this language: the tiles are shown, not spoken."),
    "speak_on": N_("Tiles are spoken."), "chime_on": N_("A chime sounds for each tile."),
    "key_given": N_("The host page handed over its key: Space or → calls the next tile."),
    "not_ranked": N_("not ranked"), "incomplete_sheet": N_("incomplete"),
}


def projector_page(code: str, view: str = "", join_url: str = "", lang: str | None = None, key: str = "") -> str:
    """The projector's page: the join QR code and the names as they arrive, the tile called (as
    `paperplay call --html` shows it, spoken if asked), then the results, which scroll by themselves.

    `key` is ignored (the projector never holds the host key; an older caller may still pass it)."""
    del key
    t = translator(lang)
    _ = t.gettext
    shown = display_code(code)
    address = short_address(join_url)
    w = {key_: text(value) for key_, value in {
        "game": _("game"), "join": _("Join on your phone"), "called": _("Called so far"),
        "joined": _("Here tonight"), "ranking": _("Ranking"), "sheets": _("Sheets"),
        "legend": _("Each series of two or more boxes is bracketed, with its points under it."),
        "full": _("Full screen"), "speak": _("Speak the tiles"), "chime": _("Chime"),
        "foot": _("F: full screen. Opened from the host page, Space or → calls the next tile. Made with paperplay."),
    }.items()}
    qr = qr_svg(join_url, _("QR code of the join address {address}").format(address=address)) if join_url else ""
    body = f"""{STAR_SYMBOL}{boxes_symbol(BOXES)}
<header class="bar">
<p class="game">Streams · {w["game"]} <b id="code">{shown}</b> <span id="variant"></span></p>
<p class="turn" id="turn"></p>
<p class="in" id="in"></p>
<nav class="tools">
<button type="button" id="b-speak" aria-pressed="false">{w["speak"]}</button>
<button type="button" id="b-chime" aria-pressed="false">{w["chime"]}</button>
<button type="button" id="b-full">{w["full"]} <kbd>F</kbd></button></nav>
<p class="voice" id="voice" role="status"></p>
</header>
<main class="room">
<div class="stage" id="stage">
<div class="tile" id="tile" aria-hidden="true"></div>
<ul class="lobby" id="lobby" aria-hidden="true"></ul>
<p class="note" id="note"></p>
</div>
<section class="results" id="results" hidden aria-labelledby="results-title" tabindex="0">
<h2 id="results-title">{w["ranking"]}</h2>
<ol class="ranking big" id="ranking"></ol>
<div id="all-sheets">
<h2>{w["sheets"]}</h2>
<p class="legend">{w["legend"]}</p>
<div id="trains"></div>
</div>
</section>
<aside class="join" aria-labelledby="join-title" id="join">
<h2 id="join-title">{w["join"]}</h2>
<div class="qr-box">{qr}</div>
<p class="address" id="address">{text(address)}</p>
<h2>{w["joined"]} <span id="joined-count" class="muted"></span></h2>
<ul class="handed names" id="handed"></ul>
</aside>
</main>
<section class="called" aria-labelledby="called-title">
<h2 id="called-title">{w["called"]}</h2>
<ol class="order" id="order"></ol>
</section>
<footer class="foot">{w["foot"]}</footer>"""
    data = {"page": "projector", "code": code, "view": view, "text": _words(t, _PROJECTOR_WORDS)}
    return _assemble(t, _("Streams · game {code} · projector").format(code=shown), "projector", body,
                     data, _("The projector's page of a Streams game night"), caller=True)
