"""The projector caller: one page that shows a Streams draw tile by tile, for a room.

The page holds the draw (in its JSON data block) but never the seed; the game code is what it
shows. Everything dynamic is done by templates/html/caller.js.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from paperplay.html.page import STAR_SYMBOL, asset, document, star_svg, text
from paperplay.i18n import ENGLISH, N_, Translator
from paperplay.seeds import display_code
from paperplay.streams.rules import WILD, StreamsRules, Tile, standard_rules, tile_json

KEYS = (
    (N_("Space, Enter, →, Page Down"), N_("next tile")),
    (N_("←, Backspace, Page Up"), N_("back one tile")),
    (N_("tap or click"), N_("right half: next · left half: back")),
    ("G", N_("called tiles in draw order, or as a sorted grid")),
    ("S", N_("speak each tile aloud (off by default)")),
    ("F", N_("full screen")),
    ("R", N_("start again from turn 0")),
    (N_("H or ?"), N_("this help; Esc closes it")),
)


def script_words(t: Translator) -> dict[str, str]:
    """The words caller.js shows or speaks, in the page's language (English ones are its defaults)."""
    _ = t.gettext
    return {"wild": _("wild"), "turn": _("turn {turn}/{total}"),
            "first": _("Press Space, or tap the right half of the screen, for the first tile."),
            "last": _("That was the last tile. Time to score the sheets."),
            "wild_note": _("The wild: write it in any box; it counts as any number."),
            "sorted": _("Out of the bag, sorted"), "called": _("Called so far"),
            "restart": _("Start the game again from turn 0?")}


def _grid_cells(rules: StreamsRules, wild: str) -> str:
    values = sorted({t for t in rules.bag if t != WILD}) + ([WILD] if WILD in rules.bag else [])
    cells = []
    for value in values:
        shown = star_svg(wild) if value == WILD else str(value)
        underline = ' class="u"' if value in rules.underlined else ""  # as on the tiles
        cells.append(f'<li data-v="{tile_json(value)}"><span{underline}>{shown}</span></li>')
    return "".join(cells)


def caller_page(code: str, drawn: Sequence[Tile], rules: StreamsRules | None = None,
                t: Translator = ENGLISH) -> bytes:
    """Returns the projector page for a game code and its draw (the seed is not needed nor shown),
    in the translator's language (its script's words travel in the data block)."""
    _ = t.gettext
    shown = display_code(code)
    words = script_words(t)
    keys = "".join(f"<tr><th>{text(_(k) if k not in ('G', 'S', 'F', 'R') else k)}</th><td>{text(_(v))}</td></tr>"
                   for k, v in KEYS)
    # The page's words, outside the f-string so that pybabel extract finds them.
    w = {"game": _("game"), "tools": _("Tools"), "grid": _("Grid"), "speak": _("Speak"), "full": _("Full screen"),
         "help": _("Help"), "keys": _("Keys"),
         "kept": _("The position is kept in this browser: after a reload or an accidental close, open the file "
                   "again and the game goes on where it was."),
         "foot": _("For the organiser only: this file holds the whole draw of game {code}. Keep it to yourself "
                   "until the game is over; the players see only the screen. Made with paperplay.").format(code=shown)}
    w = {key: text(value) for key, value in w.items()}
    rules = rules or standard_rules()
    variant = "" if rules.standard else " · " + text(_("variant {name}").format(name=rules.name))
    body = f"""{STAR_SYMBOL}
<header class="bar">
<p class="game">Streams · {w["game"]} <b id="code">{shown}</b>{variant}</p>
<p class="turn" id="turn" aria-live="polite">{text(words["turn"].format(turn=0, total=len(drawn)))}</p>
<nav class="tools" aria-label="{w["tools"]}">
<button type="button" id="b-list" aria-pressed="false">{w["grid"]} <kbd>G</kbd></button>
<button type="button" id="b-speak" aria-pressed="false">{w["speak"]} <kbd>S</kbd></button>
<button type="button" id="b-full">{w["full"]} <kbd>F</kbd></button>
<button type="button" id="b-help" aria-expanded="false">{w["help"]} <kbd>H</kbd></button>
</nav>
</header>
<main class="stage" id="stage">
<div class="tile" id="tile" aria-live="assertive" aria-atomic="true"></div>
<p class="note" id="note">{text(words["first"])}</p>
</main>
<section class="called" aria-labelledby="called-title">
<h2 id="called-title">{text(words["called"])}</h2>
<ol class="order" id="order"></ol>
<ol class="grid" id="grid" hidden>{_grid_cells(rules, words["wild"])}</ol>
</section>
<div class="help" id="help" hidden role="dialog" aria-modal="true" tabindex="-1" aria-labelledby="help-title">
<div class="panel">
<h2 id="help-title">{w["keys"]}</h2>
<table>{keys}</table>
<p>{w["kept"]}</p>
</div>
</div>
<footer class="foot">{w["foot"]}</footer>"""
    data: dict[str, Any] = {"game": "streams", "code": shown, "draw": [tile_json(tile) for tile in drawn]}
    if not rules.standard:
        data["variant"] = rules.name  # the position is kept per game code and variant
        data["underlined"] = sorted(rules.underlined)  # the script's default is the published bag's 6 and 9
    if t.lang != ENGLISH.lang:
        data.update(lang=t.lang, text=words)
    return document(_("Streams caller · game {code}").format(code=shown), asset("base.css") + asset("caller.css"),
                    body, script=asset("caller.js"), data=data,
                    description=_("Streams caller for a projector; for the organiser only"), lang=t.lang)
