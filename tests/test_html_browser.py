"""The host's pages in a real browser: the system's Chromium driven by Playwright.

They skip only where no Chromium is installed and CI is not set; in CI they must run.
"""

from __future__ import annotations

import io
import json

import pytest

from paperplay.html.caller import caller_page
from paperplay.seeds import game_code
from paperplay.streams.rules import draw

pytestmark = pytest.mark.browser
SEED = "1"  # draws 27 14 13 16 5 6 1 22 14 15 4 12 24 8 15 13 10 * 16 21: a 6 at turn 6, the wild at 18
TILES = list(draw(SEED))


def caller_file(tmp_path, seed: str = SEED):
    path = tmp_path / f"caller-{seed}.html"
    path.write_bytes(caller_page(game_code("streams", seed), draw(seed)))
    return path.as_uri()


def called(tab) -> list[str]:
    return tab.eval_on_selector_all("#order li", "items => items.map(i => i.getAttribute('data-v'))")


def test_caller_steps_with_keys_and_taps_and_keeps_its_place(page, tmp_path):
    page.goto(caller_file(tmp_path))
    assert page.inner_text("#turn") == "turn 0/20" and called(page) == []
    for _ in range(3):
        page.keyboard.press("Space")
    assert page.inner_text("#turn") == "turn 3/20"
    assert page.inner_text("#tile") == str(TILES[2])
    assert called(page) == [str(t) for t in TILES[:3]]
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Backspace")
    assert page.inner_text("#turn") == "turn 1/20" and page.inner_text("#tile") == str(TILES[0])
    for key in ("Enter", "ArrowRight", "PageDown", "Space", "Space"):
        page.keyboard.press(key)
    assert page.inner_text("#turn") == "turn 6/20" and page.inner_text("#tile") == "6"
    assert "u" in page.get_attribute("#tile", "class").split()  # 6 and 9 are underlined
    page.mouse.click(1000, 360)  # right half: next
    page.mouse.click(1000, 360)
    page.mouse.click(200, 360)  # left half: back
    assert page.inner_text("#turn") == "turn 7/20"
    page.reload()
    assert page.inner_text("#turn") == "turn 7/20" and page.inner_text("#tile") == str(TILES[6])
    assert called(page) == [str(t) for t in TILES[:7]]
    page.keyboard.press("g")
    out = page.eval_on_selector_all("#grid li.out", "cells => cells.map(c => c.getAttribute('data-v'))")
    assert page.is_visible("#grid") and not page.is_visible("#order")
    assert sorted(out, key=int) == sorted({str(t) for t in TILES[:7]}, key=int)
    assert page.eval_on_selector_all("#grid li.twice", "cells => cells.length") == 0
    for _ in range(11):
        page.keyboard.press("Space")
    assert page.inner_text("#turn") == "turn 18/20" and page.is_visible("#tile svg.star")
    twice = page.eval_on_selector_all("#grid li.twice", "cells => cells.map(c => c.getAttribute('data-v'))")
    assert twice == ["13", "14", "15"]  # both copies of these are out
    page.keyboard.press("h")
    assert page.is_visible("#help")
    page.keyboard.press("Escape")
    assert not page.is_visible("#help")


def test_caller_a_held_key_calls_one_tile_not_the_next_ones(page, tmp_path):
    page.goto(caller_file(tmp_path))
    repeat = "key => document.dispatchEvent(new KeyboardEvent('keydown', {key: key, repeat: true, bubbles: true}))"
    page.keyboard.press("Space")
    for key in (" ", " ", "PageDown", "ArrowRight", "Enter"):  # what a held key sends after its first press
        page.evaluate(repeat, key)
    assert page.inner_text("#turn") == "turn 1/20" and called(page) == [str(TILES[0])]
    page.evaluate("key => document.dispatchEvent(new KeyboardEvent('keydown', {key: key, bubbles: true}))", " ")
    assert page.inner_text("#turn") == "turn 2/20"  # a new press still calls


def test_caller_help_is_a_modal_dialog_that_keeps_the_keyboard(page, tmp_path):
    page.goto(caller_file(tmp_path))
    page.keyboard.press("h")
    assert page.get_attribute("#help", "aria-modal") == "true"
    assert page.evaluate("document.activeElement.id") == "help"
    for _ in range(3):
        page.keyboard.press("Tab")  # never to the buttons behind the overlay
        assert page.evaluate("document.activeElement.id") == "help"
    page.keyboard.press("Escape")
    assert not page.is_visible("#help") and page.evaluate("document.activeElement.id") != "help"
    page.keyboard.press("Space")
    assert page.inner_text("#turn") == "turn 1/20"


def test_caller_help_is_closed_by_any_key_without_calling_a_tile(page, tmp_path):
    # A host closing the help with Space (or a clicker's Page Down) must not show the room the next tile.
    page.goto(caller_file(tmp_path))
    page.keyboard.press("Space")
    for key in ("Space", "Enter", "PageDown", "ArrowLeft", "g", "Escape"):
        page.keyboard.press("h")
        assert page.is_visible("#help")
        page.keyboard.press(key)
        assert not page.is_visible("#help"), key
        assert page.inner_text("#turn") == "turn 1/20" and page.is_visible("#order"), key
    page.keyboard.press("Space")
    assert page.inner_text("#turn") == "turn 2/20"


def test_caller_buttons_work_from_the_keyboard(page, tmp_path):
    page.goto(caller_file(tmp_path))
    page.focus("#b-list")
    page.keyboard.press("Enter")  # the focused button, not the next tile
    assert page.inner_text("#turn") == "turn 0/20" and page.get_attribute("#b-list", "aria-pressed") == "true"
    page.focus("#b-list")
    page.keyboard.press("Space")
    assert page.inner_text("#turn") == "turn 0/20" and page.get_attribute("#b-list", "aria-pressed") == "false"
    page.keyboard.press("Space")  # the button let go of the focus when pressed: Space calls again
    assert page.inner_text("#turn") == "turn 1/20"


def test_caller_without_full_screen_hides_its_button(page, tmp_path):
    # iPhone Safari has no Fullscreen API: no button, and F does nothing (no error).
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.add_init_script("for (const name of ['requestFullscreen', 'webkitRequestFullscreen']) "
                         "delete Element.prototype[name];"
                         "for (const name of ['exitFullscreen', 'webkitExitFullscreen']) "
                         "delete Document.prototype[name];")
    page.goto(caller_file(tmp_path))
    assert not page.is_visible("#b-full")
    page.keyboard.press("f")
    page.keyboard.press("Space")
    assert page.inner_text("#turn") == "turn 1/20" and errors == []


def test_caller_says_both_when_the_last_tile_is_the_wild(page, tmp_path):
    assert draw("101")[-1] == 0  # seed 101 draws the wild last
    page.goto(caller_file(tmp_path, "101"))
    for _ in range(20):
        page.keyboard.press("Space")
    note = page.inner_text("#note")
    assert "The wild: write it in any box" in note and "That was the last tile" in note


def test_caller_position_is_kept_per_game(page, tmp_path):
    page.goto(caller_file(tmp_path))
    page.keyboard.press("Space")
    page.goto(caller_file(tmp_path, "7KQ2M9XD"))
    assert page.inner_text("#turn") == "turn 0/20"
    page.goto(caller_file(tmp_path))
    assert page.inner_text("#turn") == "turn 1/20"


def test_caller_stops_at_the_ends(page, tmp_path):
    page.goto(caller_file(tmp_path))
    page.keyboard.press("ArrowLeft")
    assert page.inner_text("#turn") == "turn 0/20"
    for _ in range(25):
        page.keyboard.press("Space")
    assert page.inner_text("#turn") == "turn 20/20" and "last tile" in page.inner_text("#note")


def test_caller_speaks_only_when_asked_and_starts_again_on_r(page, tmp_path):
    page.add_init_script("window.spoken = []; window.speechSynthesis.cancel = () => {};"
                         "window.speechSynthesis.speak = words => window.spoken.push(words.text);")
    page.goto(caller_file(tmp_path))
    page.keyboard.press("Space")
    assert page.evaluate("window.spoken") == []  # off by default
    page.keyboard.press("s")
    assert page.get_attribute("#b-speak", "aria-pressed") == "true"
    for _ in range(17):
        page.keyboard.press("Space")
    assert page.evaluate("window.spoken") == [str(t) for t in TILES[1:17]] + ["wild"]
    page.keyboard.press("f")  # full screen, and back: no error either way
    page.keyboard.press("f")
    # the page's storage reaches the browser a moment after it is written: a second tab (a blank file beside it,
    # which writes nothing) sees it once it has (a reload at once sometimes read the storage as it was before)
    blank = tmp_path / "blank.html"
    blank.write_text("<!doctype html><title>blank</title>", encoding="utf-8")
    other = page.context.new_page()
    other.goto(blank.as_uri())
    other.wait_for_function("() => Object.keys(localStorage).some(k => localStorage.getItem(k).includes("
                            "'\"speak\":true'))", timeout=10_000)
    other.close()
    page.reload()
    assert page.get_attribute("#b-speak", "aria-pressed") == "true"
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.keyboard.press("r")
    assert page.inner_text("#turn") == "turn 18/20"
    page.once("dialog", lambda dialog: dialog.accept())
    page.keyboard.press("r")
    assert page.inner_text("#turn") == "turn 0/20" and called(page) == []


def test_caller_tile_is_drawn_large(page, tmp_path):
    from PIL import Image, ImageChops

    page.goto(caller_file(tmp_path))
    page.keyboard.press("Space")
    page.wait_for_timeout(450)  # let the tile's entrance finish
    shot = Image.open(io.BytesIO(page.screenshot())).convert("L")
    box = page.eval_on_selector(
        "#stage", "e => { const r = e.getBoundingClientRect(); return [r.x, r.y, r.right, r.bottom]; }"
    )
    stage = shot.crop(tuple(round(v) for v in box))
    ink = ImageChops.difference(stage, Image.new("L", stage.size, stage.getpixel((2, 2)))).point(
        lambda v: v > 60 and 255
    )
    left, top, right, bottom = ink.getbbox()
    assert bottom - top > 0.3 * 720, f"the tile is {bottom - top} px high in a 720 px window"
    assert page.inner_text("#tile") == "27"


def test_caller_follows_the_colour_scheme_and_reduced_motion(page, tmp_path):
    page.emulate_media(color_scheme="dark", reduced_motion="reduce")
    page.goto(caller_file(tmp_path))
    page.keyboard.press("Space")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(17, 20, 24)"
    assert page.evaluate("getComputedStyle(document.getElementById('tile')).animationName") == "none"
    page.emulate_media(color_scheme="light", reduced_motion="no-preference")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(255, 255, 255)"
    page.keyboard.press("Space")
    assert page.evaluate("getComputedStyle(document.getElementById('tile')).animationName") == "pop"


@pytest.fixture
def results_file(cli, write_json, tmp_path):
    """A results page made by `score --html`, with the `score --json` document of the same sheets."""
    from test_html_pages import sample_sheets

    sheets = sample_sheets(12)
    sheets[0]["player"] = "<b>Bob</b> & <script>x()</script>"
    sheets[1]["cells"][3] = "*"
    sheets[2]["claimed_total"] = 1
    files = [str(write_json(f"p{i}.json", s)) for i, s in enumerate(sheets)]
    out = tmp_path / "results.html"
    result = cli("score", *files, "--json", "--html", str(out))
    assert result.exit_code == 1, result.output
    return out.as_uri(), json.loads(result.stdout)


def test_results_page_shows_the_ranking_and_each_series(page, results_file):
    url, document = results_file
    page.goto(url)
    rows = page.eval_on_selector_all(
        ".ranking li", "items => items.map(i => [i.querySelector('.place').textContent, "
        "i.querySelector('.name').textContent, i.querySelector('.pts').textContent])")
    assert rows == [[str(r["place"]), r["player"], str(r["total"])] for r in document["ranking"]]
    trains = page.eval_on_selector_all(".sheet", """sheets => sheets.map(s => ({
        name: s.querySelector('.name').textContent,
        brackets: [...s.querySelectorAll('.s path')].flatMap(path => path.getAttribute('d').split('M').slice(1).map(
            segment => {  // each bracket is one M... segment of the path: measure it drawn alone
                const one = path.cloneNode();
                one.setAttribute('d', 'M' + segment);
                path.parentNode.appendChild(one);
                const b = one.getBBox();
                one.remove();
                return [b.x, b.x + b.width]; })),
        points: [...s.querySelectorAll('.s text')].map(t => t.textContent),
        boxes: s.querySelector('use[href="#boxes"]').getBBox().width}))""")
    results = {r["player"]: r for r in document["results"]}
    assert len(trains) == 12 and set(results) == {t["name"] for t in trains}
    for train in trains:
        width = train["boxes"] / 20
        series = results[train["name"]]["series"]
        assert [(round(a / width) + 1, round(b / width)) for a, b in train["brackets"]] == \
            [(s["start"], s["end"]) for s in series], train["name"]
        assert train["points"] == [str(s["points"]) for s in series]
    assert page.eval_on_selector_all(".name b, .name script", "found => found.length") == 0
    assert page.is_visible(".sheet.bad .problems") and page.is_visible(".sheet use.w")


def test_results_page_trains_are_labelled_for_a_screen_reader(page, results_file):
    url, document = results_file
    page.goto(url)
    trains = page.eval_on_selector_all(".sheet", """sheets => sheets.map(s => ({
        name: s.querySelector('.name').textContent, role: s.querySelector('svg.train').getAttribute('role'),
        label: s.querySelector('svg.train').getAttribute('aria-label'),
        shown: [...s.querySelectorAll('svg.train tspan')].map(t => t.textContent)}))""")
    results = {r["player"]: r for r in document["results"]}
    assert len(trains) == 12
    for train in trains:
        series = "; ".join(f"boxes {s['start']}-{s['end']}: {s['points']} point{'' if s['points'] == 1 else 's'}"
                           for s in results[train["name"]]["series"])
        numbers = train["label"].split(". Series: ")[0].removeprefix("Boxes: ").split()
        assert train["role"] == "img" and [n for n in numbers if not n.startswith("*")] == train["shown"], train
        assert train["label"].endswith(f"Series: {series or '-'}."), train
    assert sum("*=" in t["label"] for t in trains) == 1  # the wild with the value it took


def test_results_page_prints_on_one_page_and_fits_a_phone(page, results_file):
    from pypdf import PdfReader

    page.goto(results_file[0])
    for paper in ("A4", "Letter"):
        assert len(PdfReader(io.BytesIO(page.pdf(format=paper))).pages) == 1, paper
    page.set_viewport_size({"width": 375, "height": 800})
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 375
    # The train keeps digits a phone can read (a box of 20 about 27 px wide) and scrolls sideways in its strip.
    box = page.evaluate("document.querySelector('.train').getBoundingClientRect().width / 20")
    strip = page.evaluate("(s => [s.scrollWidth, s.clientWidth])(document.querySelector('.strip'))")
    assert box > 26 and strip[0] > strip[1]
    # The strip fades at its right edge (there is more to see); scrolled to its end, box 20 is clear of the fade.
    assert "linear-gradient" in page.evaluate("getComputedStyle(document.querySelector('.strip')).maskImage")
    gap = page.evaluate("""(s => { s.scrollLeft = s.scrollWidth;
        return s.getBoundingClientRect().right - s.querySelector('.train').getBoundingClientRect().right; })
        (document.querySelector('.strip'))""")
    assert gap >= 2.5 * 16 - 1, gap
    page.set_viewport_size({"width": 620, "height": 800})  # wide enough for the whole train: nothing scrolls
    assert page.evaluate("(s => s.scrollWidth - s.clientWidth)(document.querySelector('.strip'))") == 0


def test_results_page_grows_with_a_projector_screen(page, results_file):
    # "Project it to announce the winners": on a 1920-pixel screen the page fills it, not half of it.
    page.goto(results_file[0])
    measure = ("() => [parseFloat(getComputedStyle(document.querySelector('.ranking .name')).fontSize), "
               "document.querySelector('main').getBoundingClientRect().width]")
    page.set_viewport_size({"width": 1280, "height": 800})
    small, narrow = page.evaluate(measure)
    page.set_viewport_size({"width": 1920, "height": 1080})
    large, wide = page.evaluate(measure)
    assert small == 16 and large == 24 and wide > 1400 > narrow
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 1920


@pytest.mark.parametrize("size", [(1280, 720), (390, 844), (844, 390)])
def test_caller_tile_fits_its_stage_beside_a_long_grid(page, tmp_path, size):
    """A variant of 120 three-digit values: with the sorted grid shown, the tile shrinks to the space
    left above it (it was cut off, or on a phone not shown at all); the standard game keeps its size."""
    from paperplay.streams.rules import rules_from_data

    data = {"variant": "wide", "boxes": 30, "bag": [{"value": v, "count": 1} for v in range(880, 999)]
            + [{"value": "*", "count": 1}], "points": [0] + [100000 - i for i in range(30)]}
    rules = rules_from_data(data, "wide.json")
    wide = tmp_path / "wide.html"
    wide.write_bytes(caller_page(game_code("streams", "S"), draw("S", rules), rules))
    page.set_viewport_size({"width": size[0], "height": size[1]})
    sizes = {}
    for name, uri in (("wide", wide.as_uri()), ("standard", caller_file(tmp_path))):
        page.goto(uri)
        for _ in range(12):
            page.keyboard.press("Space")
        page.keyboard.press("g")
        page.wait_for_timeout(450)
        span = "e => { const r = e.getBoundingClientRect(); return [r.top, r.bottom]; }"
        tile, stage = page.eval_on_selector("#tile", span), page.eval_on_selector("#stage", span)
        assert stage[0] - 1 <= tile[0] and tile[1] <= stage[1] + 1, (name, tile, stage)
        sizes[name] = tile[1] - tile[0]
        page.evaluate("localStorage.clear()")
    assert sizes["wide"] > 60 and sizes["standard"] >= sizes["wide"]


@pytest.mark.parametrize("lang", ["en", "da"])
@pytest.mark.parametrize("size", [(390, 844), (844, 390), (1280, 720)])
def test_caller_help_and_grid_fit_a_phone_either_way_up(page, tmp_path, size, lang):
    """The help panel stays on the screen (it scrolls when taller), and each number of the sorted grid
    stays inside its box: on a 390 px phone both spilled over (the panel by up to 109 px in Danish)."""
    from paperplay.i18n import translator

    path = tmp_path / f"caller-{lang}.html"
    path.write_bytes(caller_page(game_code("streams", SEED), draw(SEED), t=translator(lang)))
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(path.as_uri())
    page.keyboard.press("h")
    box = page.eval_on_selector(".panel", "e => { const r = e.getBoundingClientRect(); "
                                          "return [r.left, r.top, r.right, r.bottom]; }")
    assert box[0] >= 0 and box[1] >= 0 and box[2] <= size[0] and box[3] <= size[1], box
    page.keyboard.press("Escape")
    for _ in range(20):
        page.keyboard.press("Space")
    page.keyboard.press("g")
    page.wait_for_timeout(300)
    spill = page.evaluate("""() => [...document.querySelectorAll('#grid li')].filter(li => {
        const s = li.querySelector('span').getBoundingClientRect(), b = li.getBoundingClientRect();
        return s.left < b.left - 0.5 || s.right > b.right + 0.5; }).length""")
    assert spill == 0
    page.evaluate("localStorage.clear()")


def test_caller_grid_counts_any_number_of_a_value_and_underlines_as_the_tiles_do(page, tmp_path):
    """A bag with six 2s, no wild and two-digit turned numbers (16 reads 91): the sorted grid counts
    ×3 and more (it showed ×2 for any count), has no wild cell, and underlines what the tiles page
    does; the tile in the middle is underlined the same way."""
    from paperplay.streams.rules import rules_from_data

    data = {"variant": "many", "boxes": 9, "points": list(range(10)),
            "bag": [{"value": 2, "count": 6}, {"value": 16, "count": 1}, {"value": 91, "count": 1},
                    {"value": 18, "count": 1}, {"value": 40, "count": 1}]}
    rules = rules_from_data(data, "many.json")
    drawn = draw("S", rules)
    path = tmp_path / "many.html"
    path.write_bytes(caller_page(game_code("streams", "S"), drawn, rules))
    page.goto(path.as_uri())
    for _ in range(9):
        page.keyboard.press("Space")
    page.keyboard.press("g")
    cells = page.eval_on_selector_all("#grid li", "cells => cells.map(c => [c.getAttribute('data-v'), "
                                      "getComputedStyle(c, '::after').content, c.querySelector('.u') !== null])")
    twos = drawn.count(2)
    assert twos >= 3
    assert [c[0] for c in cells] == ["2", "16", "18", "40", "91"]  # no wild cell
    assert cells[0][1] == f'"×{twos}"'
    assert {c[0] for c in cells if c[2]} == {"16", "91"} == {str(v) for v in rules.underlined}
    page.keyboard.press("g")
    last = drawn[-1]
    assert page.eval_on_selector("#tile", "t => t.classList.contains('u')") == (last in rules.underlined)


def test_results_page_keeps_three_digit_numbers_in_their_boxes(page, cli, write_json, tmp_path):
    """A variant of 30 boxes and values up to 999: each number stays inside its box (they ran together)."""
    values = list(range(800, 980, 6))
    variant = write_json("v.json", {"variant": "wide", "boxes": 30, "points": list(range(31)),
                                    "bag": [{"value": v, "count": 1} for v in values]})
    sheets = [write_json(f"s{i}.json", {"game": "streams", "variant": "wide", "player": f"P{i}",
                                        "cells": values[::-1] if i else values}) for i in range(2)]
    out = tmp_path / "results.html"
    result = cli("score", *map(str, sheets), "--variant", str(variant), "--html", str(out))
    assert result.exit_code == 0, result.output
    page.goto(out.as_uri())
    outside = page.evaluate("""() => [...document.querySelectorAll('svg.train text.n tspan')].filter(t => {
        const b = t.getBBox(), k = Math.round((parseFloat(t.getAttribute('x')) - 5) / 10);
        return b.x < k * 10 || b.x + b.width > k * 10 + 10; }).map(t => t.textContent)""")
    count = page.evaluate("document.querySelectorAll('svg.train text.n tspan').length")
    assert count == 60 and outside == []
