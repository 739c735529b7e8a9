"""The results page: the ranking, then each player's train of boxes with its series bracketed.

It is drawn from the referee's own JSON results (`score --json`) and the sheets' boxes; nothing is
scored here. The page needs no script: it is HTML and SVG, so it prints as it shows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from paperplay.html.page import STAR_SYMBOL, asset, document, text
from paperplay.i18n import ENGLISH, N_, Translator
from paperplay.seeds import display_code, game_code
from paperplay.streams.rules import WILD, Tile

BOX = 10  # SVG units per box; a series bracket spans its boxes less one unit at each end
_CHECKED = {
    "seed": N_("checked against the draw of seed {seed}"),
    "draw": N_("checked against a recorded draw list"),
    "bag": N_("checked against the bag only (no seed or draw was given)"),
}


def _checked(result: dict[str, Any], t: Translator = ENGLISH) -> str:
    return t.gettext(_CHECKED[result["checked_against"]]).format(seed=display_code(result["seed"] or ""))


def _name(result: dict[str, Any]) -> str:
    return result.get("player") or result["file"]


def boxes_symbol(count: int = 20) -> str:
    """The empty train (a frame and its walls), defined once and used by every sheet's SVG."""
    walls = "".join(f"M{BOX * k} 0v{BOX}" for k in range(1, count))
    return (f'<svg class="defs" aria-hidden="true"><symbol id="boxes" viewBox="0 0 {BOX * count} {BOX}">'
            f'<rect class="boxes" width="{BOX * count}" height="{BOX}"/><path class="walls" d="{walls}"/>'
            "</symbol></svg>")


def train_label(cells: Sequence[Tile], result: dict[str, Any], t: Translator = ENGLISH) -> str:
    """What the train shows, in words for a screen reader: the numbers in their boxes, then each series."""
    _ = t.gettext
    wild = result.get("wild_value")
    numbers = " ".join(str(tile) if tile != WILD else ("*" if wild is None else f"*={wild}") for tile in cells)
    series = "; ".join(t.ngettext("boxes {start}-{end}: {points} point", "boxes {start}-{end}: {points} points",
                                  s["points"]).format(**s) for s in result["series"])
    return _("Boxes: {numbers}. Series: {series}.").format(numbers=numbers, series=series or "-")


def train_svg(cells: Sequence[Tile], result: dict[str, Any], t: Translator = ENGLISH) -> str:
    """The boxes with their numbers, the wild with its value, and each series bracketed with its points;
    labelled in words for a screen reader (see train_label)."""
    width = BOX * len(cells)
    parts = [f'<svg class="train" viewBox="-0.5 -0.5 {width + 1} 21" role="img" '
             f'aria-label="{text(train_label(cells, result, t))}">'
             f'<use href="#boxes" width="{width}" height="{BOX}"/><text class="n" y="7.3">']
    wild_at = None
    for k, tile in enumerate(cells):
        if tile == WILD:
            wild_at = k
            continue
        underline = ' class="u"' if tile in (6, 9) else ""
        smaller = ' font-size="4"' if len(str(tile)) >= 3 else ""  # a variant's three digits fit the box
        parts.append(f'<tspan x="{BOX * k + 5}"{underline}{smaller}>{tile}</tspan>')
    parts.append("</text>")
    if wild_at is not None:
        x = BOX * wild_at
        parts.append(f'<use href="#star" class="w" x="{x + 2.2}" y="0.6" width="5.6" height="5.6"/>')
        if result.get("wild_value") is not None:
            parts.append(f'<text class="wv" x="{x + 5}" y="9.2">={result["wild_value"]}</text>')
    # The brackets (y 11.5-14) are one path; the group is moved down so each points text needs no y.
    brackets, points = [], []
    for series in result["series"]:
        left, right = BOX * (series["start"] - 1) + 1, BOX * series["end"] - 1
        brackets.append(f"M{left} -8.1v2.5h{right - left}v-2.5")
        points.append(f'<text x="{(left + right) / 2:g}">{series["points"]}</text>')
    parts.append('<g class="s" transform="translate(0 19.6)">')
    if brackets:
        parts.append(f'<path d="{"".join(brackets)}"/>{"".join(points)}')
    parts.append("</g></svg>")
    return "".join(parts)


def _row(result: dict[str, Any], cells: Sequence[Tile] | None, place: int | None, t: Translator = ENGLISH,
         file: bool = False, checked: bool = False) -> str:
    """One sheet's row; with `file`, its file name beside the player's (two sheets share the name), with
    `checked`, what it was checked against (the sheets were not all checked against the same)."""
    _ = t.gettext
    if "error" in result:
        not_read = text(_("not read"))
        return (f'<article class="sheet err"><div class="who"><h3><span class="place">–</span>'
                f'<span class="name">{text(result["file"])}</span></h3><p><span class="verdict">{not_read}'
                f'</span></p></div><p class="problem">{text(result["error"])}</p></article>')
    valid = result["valid"]
    points = text(t.ngettext("{n} point", "{n} points", result["total"])).replace(
        "{n}", f'<b>{result["total"]}</b>')
    verdict = text(_("valid") if valid else _("not valid"))
    name = text(_name(result)) + (f' <small class="file">{text(result["file"])}</small>'
                                  if file and result.get("player") else "")
    head = (f'<div class="who"><h3><span class="place">{place if place is not None else "–"}</span>'
            f'<span class="name">{name}</span></h3>'
            f'<p>{points} '
            f'<span class="verdict">{verdict}</span></p></div>')
    body = [f'<article class="sheet {"ok" if valid else "bad"}">', head]
    if cells is not None:
        # In a strip of its own: on a phone the train keeps readable digits and scrolls sideways.
        body.append(f'<div class="strip">{train_svg(cells, result, t)}</div>')
    notes = [text(_checked(result, t))] if checked and "checked_against" in result else []
    if result.get("wild_value") is not None:
        notes.append(text(_("the wild counts as {value}").format(value=result["wild_value"])))
    body.append(f'<p class="notes">{" · ".join(notes)}</p>' if notes else "")
    if result["problems"]:
        body.append('<ul class="problems">' + "".join(
            f'<li><code>{text(p["rule"])}</code> {text(p["message"])}</li>' for p in result["problems"]) + "</ul>")
    body.append("</article>")
    return "".join(body)


def _order(results: Sequence[dict[str, Any]], ranking: Sequence[dict[str, Any]]) -> list[tuple[int, int | None]]:
    """Indices of the rows, ranked sheets first in ranking order (with their places), then the rest."""
    ranked = sorted((i for i, r in enumerate(results) if r.get("valid")), key=lambda i: -results[i]["total"])
    if [results[i]["total"] for i in ranked] != [row["total"] for row in ranking]:
        raise ValueError("the ranking does not belong to these results")
    rest = [i for i, r in enumerate(results) if not r.get("valid") and "error" not in r]
    errors = [i for i, r in enumerate(results) if "error" in r]
    return ([(i, row["place"]) for i, row in zip(ranked, ranking)]
            + [(i, None) for i in rest] + [(i, None) for i in errors])


def _summary(results: Sequence[dict[str, Any]], seeds: list[str], t: Translator = ENGLISH) -> tuple[str, str]:
    """The page's title line (game code when one seed) and what the sheets were checked against."""
    _ = t.gettext
    if len(seeds) == 1:
        code = display_code(game_code("streams", seeds[0]))
        title = _("game {code}").format(code=code)
        meta = [text(_("Game {code}")).replace("{code}", f"<b>{code}</b>"),
                text(_("seed {seed}")).replace("{seed}", f"<b>{display_code(seeds[0])}</b>")]
    else:
        title = _("results")
        meta = [text(_("Seeds {seeds}")).replace("{seeds}", ", ".join(f"<b>{display_code(s)}</b>" for s in seeds))
                ] if seeds else []
    variants = sorted({r["variant"] for r in results if "variant" in r})  # only variants' sheets say one
    if variants:
        meta.append(text(_("variant {name}").format(name=", ".join(variants))))
    checked = sorted({_checked(r, t) for r in results if "checked_against" in r})
    counted = [r for r in results if "error" not in r]
    meta.append(text(t.ngettext("{n} sheet, {valid} valid", "{n} sheets, {valid} valid", len(counted)).format(
        n=len(counted), valid=sum(1 for r in counted if r["valid"]))))
    unread = len(results) - len(counted)
    if unread:
        meta.append(text(t.ngettext("{n} file not read", "{n} files not read", unread).format(n=unread)))
    return title, " · ".join(meta) + ("<br>" + text(_("Sheets {how}.").format(how="; ".join(checked)))
                                      if checked else "")


def results_page(results: Sequence[dict[str, Any]], cells: Sequence[Sequence[Tile] | None],
                 ranking: Sequence[dict[str, Any]], t: Translator = ENGLISH) -> bytes:
    """Returns the results page for the referee's JSON results, the sheets' boxes and the ranking.

    `results` and `ranking` are exactly what ``score --json`` prints; `cells` holds each sheet's boxes
    (None for a file that could not be read).
    """
    _ = t.gettext
    seeds = sorted({r["seed"] for r in results if r.get("seed")})
    title, meta = _summary(results, seeds, t)
    ranks = "".join(f'<li><b class="place">{row["place"]}</b><span class="name">{text(row["player"])}</span>'
                    f'<span class="pts">{row["total"]}</span></li>' for row in ranking)
    names = Counter(r["player"] for r in results if r.get("player"))
    mixed = len({_checked(r, t) for r in results if "checked_against" in r}) > 1
    rows = "\n".join(_row(results[i], cells[i], place, t, file=names[results[i].get("player")] > 1, checked=mixed)
                     for i, place in _order(results, ranking))
    # The page's words, outside the f-string so that pybabel extract finds them.
    w = {"title": _("Streams results"), "ranking": _("Ranking"), "none": _("No valid sheet to rank."),
         "sheets": _("Sheets"), "legend": _("Each series of two or more boxes is bracketed, with its points under it."),
         "foot": _("Scored by paperplay with the Streams rules; anyone with the seed can check these results.")}
    w = {key: text(value) for key, value in w.items()}
    body = f"""{STAR_SYMBOL}{boxes_symbol(max((len(c) for c in cells if c is not None), default=20))}
<header class="top">
<h1>{w["title"]}</h1>
<p class="meta">{meta}</p>
</header>
<main>
<section class="rank" aria-labelledby="rank-title">
<h2 id="rank-title">{w["ranking"]}</h2>
{f'<ol class="ranking">{ranks}</ol>' if ranks else f'<p>{w["none"]}</p>'}
</section>
<section class="sheets" aria-labelledby="sheets-title">
<h2 id="sheets-title">{w["sheets"]}</h2>
<p class="legend">{w["legend"]}</p>
{rows}
</section>
</main>
<footer class="foot">{w["foot"]}</footer>"""
    # The ranking as `score --json` prints it; every sheet's series are in its drawing.
    data = {"game": "streams", "seeds": seeds, "ranking": list(ranking)}
    return document(f"Streams {title}", asset("base.css") + asset("results.css"), body, data=data,
                    description=_("Streams results: ranking and every sheet's series"), lang=t.lang)
