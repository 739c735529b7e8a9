"""The game night's three pages: the host's, the players' (phone first) and the projector's.

Each is one self-contained page as paperplay's other pages are (paperplay.html.page: inline CSS and
script allowed by hash, no external URL). What changes during the evening comes from the server's
API, which the pages' scripts (templates/html/serve-*.js) follow (each asks for the game's state, and the server
answers when it changes); so their CSP also lets them talk to their own server (connect-src 'self')
and show its images (img-src: the crops of flagged boxes). A name a player types only ever reaches a
page as data, and the scripts show it as text.

The pages speak English for now: their words go through gettext (say = t.gettext) but are not marked
for the catalogue yet; to translate them, mark them with _() / N_(), extract, and pass the game's
translator (render's `lang`) instead of ENGLISH.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from paperplay.html.page import STAR_SYMBOL, asset, document, text
from paperplay.html.results import boxes_symbol
from paperplay.i18n import ENGLISH, LANGUAGES, Translator
from paperplay.seeds import display_code

PAGES = ("host", "player", "projector")
BOXES = 20
_CSP_END = "base-uri 'none'"
_ICON = '<link rel="icon" href="data:,">\n'
_CSP_LIVE = "connect-src 'self'; img-src 'self' data: blob:; "


def render(name: str, **ctx: Any) -> str:
    """Returns one of the game night's pages as HTML text.

    - ``host``: ``key`` (the host's key, sent with every host call), ``lang`` (the language the new-game
      form offers first), ``variants`` (the variant names it offers).
    - ``player``: ``code`` (the game), ``lang`` (the game's language).
    - ``projector``: ``code``, ``key`` (the host's key, or "": then the projector cannot call tiles and
      shows the ranking without the sheets' boxes), ``join_url`` (the address the join QR code holds, with
      the host's address as the phones reach it), ``lang``.
    """
    builders: dict[str, Callable[..., str]] = {"host": host_page, "player": player_page, "projector": projector_page}
    if name not in builders:
        raise ValueError(f"unknown page {name!r}; expected one of {', '.join(PAGES)}")
    return builders[name](**ctx)


def _live(page: bytes) -> str:
    """The page as text, its CSP opened to its own server's API and to images (the server's, data: and blob:),
    with an empty icon (else the browser asks the server for /favicon.ico)."""
    source = page.decode("utf-8")
    head_end = source.index("</head>")
    at = source.index(_CSP_END, 0, head_end)
    source = source[:at] + _CSP_LIVE + source[at:]
    at = source.index("<meta name=\"viewport\"")
    return source[:at] + _ICON + source[at:]


def _words(t: Translator, words: dict[str, str]) -> dict[str, str]:
    """The words a script shows, in the page's language, for its data block."""
    return {key: t.gettext(value) for key, value in words.items()}


def _assemble(t: Translator, title: str, name: str, body: str, data: dict[str, Any], description: str,
              caller: bool = False) -> str:
    """One page from its body and data, its style (the results page's, the caller's for the projector,
    then serve.css and serve-<name>.css) and its script (serve.js, then serve-<name>.js)."""
    parts = ["base.css", *(["caller.css"] if caller else []), "results.css", "serve.css", f"serve-{name}.css"]
    style = "".join(asset(part) for part in parts)
    script = asset("serve.js") + asset(f"serve-{name}.js")
    return _live(document(title, style, body, script=script, data=data, description=description, lang=t.lang))


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

_COMMON = {
    "wild": "wild", "turn": "turn {turn}/{total}", "offline": "The server does not answer; trying again…",
    "points": "{n} points", "point": "{n} point", "valid": "valid", "not_valid": "not valid",
    "boxes_label": "Boxes: {numbers}. Series: {series}.", "series_label": "boxes {start}-{end}: {points} points",
    "wild_is": "the wild counts as {value}", "no_ranking": "No valid sheet to rank.",
    "variant": "variant {name}", "seed": "seed {seed}",
}


# --- the host's page ------------------------------------------------------------------------------

_HOST_WORDS = {
    **_COMMON,
    "creating": "Starting the game…", "calling": "Calling…", "called_all": "All 20 tiles are called.",
    "first": "Press “Next tile” for the first tile.", "none_in": "No sheet handed in yet.",
    "in": "{n} of {players}", "flagged": "{n} box to check", "flagged_n": "{n} boxes to check",
    "box_is": "box {box}: {value}", "player": "{n} player", "players_n": "{n} players",
    "checked": "all boxes sure", "typed": "typed", "photo": "photo",
    "confirm_reveal": "Reveal the results to everyone? Sheets can no longer be handed in or changed.",
    "confirm_new": "Leave game {code} and start a new one? (Its pages keep working.)",
    "reveal_hint": "When every sheet is in, reveal the results on the projector and the phones.",
    "revealed": "The results are revealed: they show on the projector and on every phone.",
    "lost": "Game {code} is no longer on this server; start a new one.",
    "game_line": "game {code} · {players} · turn {turn}/{turns}", "is_revealed": "revealed",
}


def host_page(key: str = "", lang: str | None = None, variants: list[str] | None = None) -> str:
    """The host's page: a new game, its kit, the caller's controls, the sheets handed in and the reveal."""
    t = ENGLISH  # see the module's docstring: the pages' words are not in the catalogue yet
    say = t.gettext
    from paperplay.streams.rules import shipped_variants

    languages = "".join(f'<option value="{code}"{" selected" if code == (lang or "en") else ""}>{text(name)}</option>'
                        for code, name in LANGUAGES.items())
    options = "".join(f'<option value="{text(v)}">{text(v)}</option>' for v in (variants or shipped_variants()))
    w = {key_: text(value) for key_, value in {
        "title": say("Streams game night"), "new": say("New game"), "players": say("Players"),
        "seed": say("Seed"), "seed_hint": say("Leave it empty for a new game; type a seed to play a known one again."),
        "lang": say("Language"), "lang_hint": say("The kit prints in it."), "variant": say("Variant"),
        "start": say("Start the game"),
        "game": say("Game"), "join": say("Players join at"), "kit": say("Download the kit (PDF)"),
        "sheets": say("Download the scannable sheets (PDF)"), "projector": say("Open the projector view"),
        "projector_hint": say("Show it on the big screen: the tile called, the join code, then the results."),
        "caller": say("Caller"), "next": say("Next tile"), "called": say("Called so far"),
        "handed": say("Sheets handed in"), "reveal": say("Reveal the results"),
        "reveal_hint": say(_HOST_WORDS["reveal_hint"]),
        "ranking": say("Ranking"), "another": say("New game…"), "games": say("Or open a game of this server"),
        "foot": say("Keep this page to yourself: its address holds the host's key. Made with paperplay."),
    }.items()}
    body = f"""{STAR_SYMBOL}
<header class="top">
<h1>{w["title"]}</h1>
</header>
<main>
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
<div id="game" class="columns" hidden>
<div>
<section class="card" aria-labelledby="game-title">
<h2 id="game-title">{w["game"]} <b id="code"></b> <span id="game-meta" class="muted"></span></h2>
<p>{w["join"]} <a id="join-link" class="address"></a></p>
<ul class="links">
<li><a id="kit-link" download>{w["kit"]}</a></li>
<li><a id="sheets-link" download>{w["sheets"]}</a></li>
<li><a id="projector-link" target="_blank" rel="noopener">{w["projector"]}</a>
<small>{w["projector_hint"]}</small></li>
</ul>
</section>
<section class="card caller" aria-labelledby="caller-title">
<h2 id="caller-title">{w["caller"]}</h2>
<div class="now">
<div class="tile" id="tile" aria-live="polite" aria-atomic="true"></div>
<div>
<p class="turn" id="turn"></p>
<button type="button" class="primary big" id="next">{w["next"]}</button>
<p class="note" id="note" role="status"></p>
</div>
</div>
<h3>{w["called"]}</h3>
<ol class="order" id="order"></ol>
</section>
</div>
<div>
<section class="card" aria-labelledby="handed-title">
<h2 id="handed-title">{w["handed"]} <span id="count" class="muted"></span></h2>
<ul class="handed" id="handed"></ul>
</section>
<section class="card" aria-labelledby="reveal-title">
<h2 id="reveal-title">{w["reveal"]}</h2>
<p id="reveal-hint">{w["reveal_hint"]}</p>
<button type="button" class="primary" id="reveal">{w["reveal"]}</button>
<div id="results" hidden>
<h3>{w["ranking"]}</h3>
<ol class="ranking" id="ranking"></ol>
</div>
</section>
<p><button type="button" id="another">{w["another"]}</button></p>
<p class="error" id="game-error" role="alert"></p>
</div>
</div>
</main>
<footer class="foot">{w["foot"]}</footer>"""
    data = {"page": "host", "key": key, "text": _words(t, _HOST_WORDS)}
    return _assemble(t, say("Streams game night · host"), "host", body, data,
                     say("The host's page of a Streams game night"))


# --- the player's page (a phone) ------------------------------------------------------------------

_PLAYER_WORDS = {
    **_COMMON,
    "need_name": "Write your name first.", "sending": "Sending your sheet…", "reading": "Reading your photo…",
    "need_box": "Box {box}: write a number, or * for the wild.", "bad_box": "Box {box}: {value} is not a number.",
    "all_sure": "Every box is read (tap one to change it). Wait for the host to reveal the results.",
    "check": "Check the boxes marked below: tap what you wrote.", "box": "Box {box}", "unsure": "not sure",
    "what": "What did you write in box {box}?", "other": "Something else", "ok": "OK",
    "saved": "Box {box} is now {value}.", "waiting": "Waiting for the reveal…", "place": "Place {place} of {n}",
    "not_ranked": "Your sheet is not valid, so it is not ranked.", "closed": "The results are out: sheets can no "
    "longer be handed in.", "lost": "This game is no longer on the server.", "hello": "Hello, {name}",
}


def player_page(code: str, lang: str | None = None) -> str:
    """A player's page, phone first: join with a name, hand in the sheet by photo or by typing the boxes,
    check the flagged boxes, then the score and the ranking after the reveal."""
    t = ENGLISH  # see the module's docstring: the pages' words are not in the catalogue yet
    say = t.gettext
    shown = display_code(code)
    boxes = "".join(f'<li><label for="c{n}">{n}</label><input id="c{n}" class="cell" type="text" inputmode="tel" '
                    f'maxlength="3" autocomplete="off" enterkeyhint="{"next" if n < BOXES else "done"}"></li>'
                    for n in range(1, BOXES + 1))
    w = {key: text(value) for key, value in {
        "game": say("game"), "title": say("Hand in your sheet"), "name": say("Your name"),
        "photo": say("Take a photo of your sheet"),
        "photo_hint": say("Lay the sheet flat in good light, with its QR code and all four corner marks in the "
                        "picture."),
        "or": say("or"), "type": say("Type the 20 boxes"),
        "type_hint": say("Each box's number, in order; the wild as *."),
        "send": say("Hand in"), "sheet": say("Your sheet"), "score": say("Your score"), "ranking": say("Ranking"),
        "foot": say("Your sheet is kept in this browser: reload the page and it is still here."),
    }.items()}
    body = f"""{STAR_SYMBOL}{boxes_symbol(BOXES)}
<header class="top">
<p class="game">Streams · {w["game"]} <b id="code">{shown}</b></p>
<h1 id="hello">{w["title"]}</h1>
</header>
<main>
<section class="card" id="join" aria-labelledby="hello">
<p class="field"><label for="name">{w["name"]}</label>
<input id="name" type="text" maxlength="40" autocomplete="nickname" enterkeyhint="done" required></p>
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
<p class="status" id="join-status" role="status" aria-live="polite"></p>
<p class="error" id="join-error" role="alert"></p>
</section>
<section class="card" id="sheet" hidden aria-labelledby="sheet-title">
<h2 id="sheet-title" tabindex="-1">{w["sheet"]}</h2>
<ol class="read" id="read"></ol>
<p class="status" id="sheet-status" role="status" aria-live="polite" tabindex="-1"></p>
<div id="flags"></div>
<p class="error" id="sheet-error" role="alert"></p>
</section>
<section class="card" id="result" hidden aria-labelledby="result-title">
<h2 id="result-title">{w["score"]}</h2>
<p class="total" id="total"></p>
<div class="strip" id="train"></div>
<p class="notes" id="result-notes"></p>
<h2>{w["ranking"]}</h2>
<ol class="ranking" id="ranking"></ol>
</section>
</main>
<footer class="foot">{w["foot"]}</footer>"""
    data = {"page": "player", "code": code, "boxes": BOXES, "text": _words(t, _PLAYER_WORDS)}
    return _assemble(t, say("Streams · game {code}").format(code=shown), "player", body, data,
                     say("Hand in your Streams sheet"))


# --- the projector's page (the big screen) --------------------------------------------------------

_PROJECTOR_WORDS = {
    **_COMMON,
    "first": "The game starts soon: join on your phone, then wait for the first tile.",
    "last": "That was the last tile. Hand in your sheet on your phone.",
    "wild_note": "The wild: write it in any box; it counts as any number.",
    "in": "{n} of {players} sheets in", "results": "Results",
}


def projector_page(code: str, key: str = "", join_url: str = "", lang: str | None = None) -> str:
    """The projector's page: the tile called (as `paperplay call --html` shows it), the join QR code and
    address, the sheets as they arrive, and the results once revealed."""
    t = ENGLISH  # see the module's docstring: the pages' words are not in the catalogue yet
    say = t.gettext
    shown = display_code(code)
    address = short_address(join_url)
    w = {key_: text(value) for key_, value in {
        "game": say("game"), "join": say("Join on your phone"), "called": say("Called so far"),
        "handed": say("Sheets handed in"), "ranking": say("Ranking"), "sheets": say("Sheets"),
        "legend": say("Each series of two or more boxes is bracketed, with its points under it."),
        "full": say("Full screen"),
        "foot": say("Space or → calls the next tile; F: full screen. Made with paperplay.") if key
        else say("F: full screen. Made with paperplay."),
    }.items()}
    qr = qr_svg(join_url, say("QR code of the join address {address}").format(address=address)) if join_url else ""
    body = f"""{STAR_SYMBOL}{boxes_symbol(BOXES)}
<header class="bar">
<p class="game">Streams · {w["game"]} <b id="code">{shown}</b> <span id="variant"></span></p>
<p class="turn" id="turn" aria-live="polite"></p>
<p class="in" id="in"></p>
<nav class="tools"><button type="button" id="b-full">{w["full"]} <kbd>F</kbd></button></nav>
</header>
<main class="room">
<div class="stage" id="stage">
<div class="tile" id="tile" aria-live="assertive" aria-atomic="true"></div>
<p class="note" id="note"></p>
</div>
<section class="results" id="results" hidden aria-labelledby="results-title">
<h2 id="results-title">{w["ranking"]}</h2>
<ol class="ranking big" id="ranking"></ol>
<h2>{w["sheets"]}</h2>
<p class="legend">{w["legend"]}</p>
<div id="trains"></div>
</section>
<aside class="join" aria-labelledby="join-title">
<h2 id="join-title">{w["join"]}</h2>
<div class="qr-box">{qr}</div>
<p class="address" id="address">{text(address)}</p>
<h2>{w["handed"]}</h2>
<ul class="handed" id="handed"></ul>
</aside>
</main>
<section class="called" aria-labelledby="called-title">
<h2 id="called-title">{w["called"]}</h2>
<ol class="order" id="order"></ol>
</section>
<footer class="foot">{w["foot"]}</footer>"""
    data = {"page": "projector", "code": code, "key": key, "text": _words(t, _PROJECTOR_WORDS)}
    return _assemble(t, say("Streams · game {code} · projector").format(code=shown), "projector", body,
                     data, say("The projector's page of a Streams game night"), caller=True)
