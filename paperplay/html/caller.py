"""The projector caller: one page that shows a Streams draw tile by tile, for a room.

The page holds the draw (in its JSON data block) but never the seed; the game code is what it
shows. Everything dynamic is done by templates/html/caller.js.
"""

from __future__ import annotations

from collections.abc import Sequence

from paperplay.html.page import STAR_SYMBOL, asset, document, star_svg, text
from paperplay.seeds import display_code
from paperplay.streams.rules import WILD, StreamsRules, Tile, standard_rules, tile_json

KEYS = (
    ("Space, Enter, →, Page Down", "next tile"),
    ("←, Backspace, Page Up", "back one tile"),
    ("tap or click", "right half: next · left half: back"),
    ("G", "called tiles in draw order, or as a sorted grid"),
    ("S", "speak each tile aloud (off by default)"),
    ("F", "full screen"),
    ("R", "start again from turn 0"),
    ("H or ?", "this help; Esc closes it"),
)


def _grid_cells(rules: StreamsRules) -> str:
    values = sorted({t for t in rules.bag if t != WILD}) + [WILD]
    cells = []
    for value in values:
        shown = star_svg() if value == WILD else str(value)
        underline = ' class="u"' if value in (6, 9) else ""
        cells.append(f'<li data-v="{tile_json(value)}"><span{underline}>{shown}</span></li>')
    return "".join(cells)


def caller_page(code: str, drawn: Sequence[Tile], rules: StreamsRules | None = None) -> bytes:
    """Returns the projector page for a game code and its draw (the seed is not needed nor shown)."""
    shown = display_code(code)
    keys = "".join(f"<tr><th>{text(k)}</th><td>{text(v)}</td></tr>" for k, v in KEYS)
    body = f"""{STAR_SYMBOL}
<header class="bar">
<p class="game">Streams · game <b id="code">{shown}</b></p>
<p class="turn" id="turn" aria-live="polite">turn 0/{len(drawn)}</p>
<nav class="tools" aria-label="Tools">
<button type="button" id="b-list" aria-pressed="false">Grid <kbd>G</kbd></button>
<button type="button" id="b-speak" aria-pressed="false">Speak <kbd>S</kbd></button>
<button type="button" id="b-full">Full screen <kbd>F</kbd></button>
<button type="button" id="b-help" aria-expanded="false">Help <kbd>H</kbd></button>
</nav>
</header>
<main class="stage" id="stage">
<div class="tile" id="tile" aria-live="assertive" aria-atomic="true"></div>
<p class="note" id="note">Press Space, or tap the right half of the screen, for the first tile.</p>
</main>
<section class="called" aria-labelledby="called-title">
<h2 id="called-title">Called so far</h2>
<ol class="order" id="order"></ol>
<ol class="grid" id="grid" hidden>{_grid_cells(rules or standard_rules())}</ol>
</section>
<div class="help" id="help" hidden role="dialog" aria-labelledby="help-title">
<div class="panel">
<h2 id="help-title">Keys</h2>
<table>{keys}</table>
<p>The position is kept in this browser: after a reload or an accidental close, open the file
again and the game goes on where it was.</p>
</div>
</div>
<footer class="foot">For the organiser only: this file holds the whole draw of game {shown}.
Keep it to yourself until the game is over; the players see only the screen. Made with paperplay.</footer>"""
    data = {"game": "streams", "code": shown, "draw": [tile_json(t) for t in drawn]}
    return document(f"Streams caller · game {shown}", asset("base.css") + asset("caller.css"), body,
                    script=asset("caller.js"), data=data,
                    description="Streams caller for a projector; for the organiser only")
