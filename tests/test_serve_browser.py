"""A whole game night in a real browser: `paperplay serve` in its own process, the host's page, the
projector and three phones (390×844) in Debian's Chromium driven by Playwright.

The host starts a game and calls its 20 tiles while the projector follows; one phone hands in a photo
of a scannable sheet (made by lab/synth.py, as the scan tests make theirs), one types its boxes,
one types a box wrong and fixes it with one tap; the host reveals, and the projector's ranking is the
one `paperplay score --json` gives for the same sheet files.

Run as a script, it plays the same evening and writes the docs' screenshots:
    python tests/test_serve_browser.py   (docs/serve-host.png, docs/serve-player.png, docs/serve-projector.png)
"""

from __future__ import annotations

import io
import json
import os
import random
import re
import select
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from browser import find_chromium, launch  # noqa: E402

from paperplay.seeds import display_code, game_code  # noqa: E402
from paperplay.streams.rules import WILD, draw  # noqa: E402

pytestmark = pytest.mark.browser
ROOT = Path(__file__).parent.parent
DOCS = ROOT / "docs"
DIGITS = Path(__file__).parent / "data" / "digits-heldout.npz"
SEED = "FRYDAY26"  # draws 15 6 25 14 29 20 23 12 * 19 7 1 13 10 16 12 9 28 11 15: the wild at turn 9
CODE = display_code(game_code("streams", SEED))
TILES = list(draw(SEED))
PHONE = {"width": 390, "height": 844}
PHOTO_HAND = 28
"""The synthetic writer and photo (rng [35, 28]) whose reading flags boxes 8 (15?) and 12 (19?) of Ann's sheet,
both read right (the reader flags no box at all on most of these photos)."""
SERVE_MODULES = ("starlette", "uvicorn", "multipart", "numpy", "cv2", "zxingcpp")


def arrangement(keep: int, salt: str) -> list[Any]:
    """A player's boxes: the draw shuffled, its first `keep` boxes in ascending order (the wild as 15)."""
    cells = TILES[:]
    random.Random(f"{SEED}-{salt}").shuffle(cells)
    cells[:keep] = sorted(cells[:keep], key=lambda t: 15 if t == WILD else t)
    return cells


ANN = arrangement(16, "ann")  # hands in a photo
BOB = arrangement(12, "bob")  # types the sheet
CLEO = arrangement(8, "cleo")  # types it with one box wrong, then fixes that box
CLEO_WRONG = next(k for k, t in enumerate(CLEO) if t == 12)  # writes 21 (not drawn) for this 12
BOB_NAME = "<b>Bob</b> & co"  # a name is text, never HTML


def sheet_photo(cells: list[Any], hand: int = PHOTO_HAND) -> bytes:
    """A phone's photo (JPEG) of scannable sheet 1/3 of the game, filled in with these boxes."""
    import numpy as np

    from lab import evaluate
    from lab.synth import fill_sheet, make_hand, photograph, rendered_page
    from paperplay.streams.scansheet import layout

    rng = np.random.default_rng([35, hand])
    writer = make_hand(rng, {}, evaluate.heldout_digits(DIGITS))  # load_digits' held-out samples: no font needed
    page, _ = fill_sheet(rendered_page("a4", game_code("streams", SEED), 1, 3), layout("a4").cells, cells, writer,
                         rng)
    jpeg, _ = photograph(page, rng)
    return jpeg


# --- the server -------------------------------------------------------------------------------------

@dataclass
class Served:
    base: str
    key: str
    process: subprocess.Popen[str]

    @property
    def host_url(self) -> str:
        return f"{self.base}/host?key={self.key}"


def start_server(db: Path) -> Served:
    """`python -m paperplay serve --port 0` on 127.0.0.1; its first line is the host page's link."""
    process = subprocess.Popen([sys.executable, "-m", "paperplay", "serve", "--port", "0", "--db", str(db),
                                "--workers", "1"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    assert process.stdout is not None
    deadline = time.monotonic() + 60
    line = ""
    while time.monotonic() < deadline and not line:
        ready, _, _ = select.select([process.stdout], [], [], 1)
        if ready:
            line = process.stdout.readline()
            if not line:
                break
    found = re.fullmatch(r"Host page: (http://[^/]+)/host\?key=(\S+)\n", line)
    if found is None:
        process.kill()
        raise AssertionError(f"paperplay serve did not start: {line!r} {process.communicate()[1]}")
    return Served(found[1], found[2], process)


def stop_server(served: Served) -> None:
    served.process.terminate()
    try:
        served.process.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        served.process.kill()
        served.process.communicate()


def need_serve_extra() -> None:
    import importlib.util

    for module in SERVE_MODULES:
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"no {module}: the serve extra is not installed (pip install '.[serve]')")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    need_serve_extra()
    if find_chromium() is None:
        pytest.skip("no Chromium installed (apt-get install chromium)")
    served = start_server(tmp_path_factory.mktemp("serve") / "games.db")
    yield served
    stop_server(served)


# --- the evening ------------------------------------------------------------------------------------

class Tabs:
    """Browser tabs, each in its own context (its own localStorage), failing on any console error."""

    def __init__(self, browser: Any) -> None:
        self.browser = browser
        self.contexts: list[Any] = []
        self.errors: list[str] = []

    def open(self, url: str, viewport: dict[str, int], dark: bool = False) -> Any:
        context = self.browser.new_context(viewport=viewport, color_scheme="dark" if dark else "light",
                                           reduced_motion="reduce")
        self.contexts.append(context)
        tab = context.new_page()
        tab.on("console", lambda m: self.errors.append(f"{url}: {m.text}") if m.type == "error" else None)
        tab.on("pageerror", lambda e: self.errors.append(f"{url}: {e}"))
        tab.on("dialog", lambda dialog: dialog.accept())
        tab.goto(url)
        return tab

    def close(self) -> None:
        for context in self.contexts:
            context.close()


def typed_tile(tile: Any) -> str:
    return "*" if tile == WILD else str(tile)


def type_sheet(phone: Any, name: str, cells: list[Any]) -> None:
    phone.fill("#name", name)
    phone.click("#typing summary")
    for k, tile in enumerate(cells, start=1):
        phone.fill(f"#c{k}", typed_tile(tile))
    phone.click("#type-form button[type=submit]")
    phone.wait_for_selector("#sheet:not([hidden])")


def wait_text(tab: Any, selector: str, text: str) -> None:
    """Waits until the element's text is `text` (the pages fill in what the server says)."""
    tab.wait_for_function("([selector, text]) => document.querySelector(selector).textContent === text",
                          arg=[selector, text])


def shown_boxes(phone: Any) -> list[str]:
    return phone.eval_on_selector_all("#read li span", "spans => spans.map(s => s.getAttribute('data-v'))")


def ranking_rows(tab: Any, selector: str = "#ranking li") -> list[tuple[int, str, int]]:
    rows = tab.eval_on_selector_all(selector, "items => items.map(i => [i.querySelector('.place').textContent, "
                                    "i.querySelector('.name').textContent, i.querySelector('.pts').textContent])")
    return [(int(place), name, int(total)) for place, name, total in rows]


def api(served: Served, path: str) -> Any:
    from urllib.request import Request, urlopen

    with urlopen(Request(served.base + path, headers={"X-Paperplay-Key": served.key}), timeout=30) as answer:
        return json.loads(answer.read())


def evening(browser: Any, served: Served, photo: bytes, shots: Path | None = None, bob: str = BOB_NAME
            ) -> dict[str, Any]:
    """Plays the whole evening; returns what the tests check. With `shots`, writes the docs' screenshots
    (where Bob is called Bob)."""
    tabs = Tabs(browser)
    seen: dict[str, Any] = {}
    try:
        host = tabs.open(served.host_url, {"width": 1024, "height": 900})
        host.fill("#players", "3")
        host.fill("#seed", "--")  # no letter nor digit: the server's one line says so
        host.click("#new-form button[type=submit]")
        host.wait_for_function("() => document.getElementById('new-error').textContent.startsWith('seed: ')")
        seen["bad_seed"] = host.inner_text("#new-error")
        if shots:
            host.screenshot(path=str(shots / "host-new.png"))
        host.fill("#seed", SEED)
        host.click("#new-form button[type=submit]")
        host.wait_for_selector("#game:not([hidden])")
        assert host.inner_text("#code") == CODE
        join_url = host.get_attribute("#join-link", "href")
        assert join_url == f"{served.base}/join/{CODE}"
        host.wait_for_function("() => /[?]view=/.test(document.getElementById('projector-link').href)")
        projector_url = host.get_attribute("#projector-link", "href")
        assert re.fullmatch(rf"{served.base}/projector/{CODE}\?view=[\w-]+", projector_url), projector_url
        assert served.key not in projector_url  # the projector's address holds its view token, never the key
        assert host.get_attribute("#kit-link", "href") == f"/api/games/{CODE}/kit.pdf?key={served.key}"

        projector = tabs.open(projector_url, {"width": 1280, "height": 720})
        wait_text(projector, "#turn", "turn 0/20")
        assert projector.inner_text("#address") == join_url.removeprefix("http://")
        seen["qr_png"] = projector.locator(".qr").screenshot()

        ann = tabs.open(join_url, PHONE)
        bob_phone = tabs.open(join_url, PHONE, dark=True)
        cleo = tabs.open(join_url, PHONE)
        if shots:
            cleo.click("#typing summary")
            cleo.screenshot(path=str(shots / "player-join.png"), full_page=True)
            cleo.click("#typing summary")

        # The caller: each tile on the host page, live on the projector.
        for turn in range(1, 21):
            host.wait_for_timeout(700 if turn > 1 else 0)  # the host page calls one tile at most every 0.7 s
            host.click("#next")
            host.wait_for_function("turn => document.getElementById('order').children.length === turn", arg=turn)
            if turn in (1, 9, 20):
                wait_text(projector, "#turn", f"turn {turn}/20")
                assert projector.get_attribute("#tile", "data-v") == typed_tile(TILES[turn - 1])
            if turn == 9 and shots:
                projector.screenshot(path=str(shots / "projector-live.png"))
        seen["host_called"] = host.eval_on_selector_all("#order li", "li => li.map(i => i.getAttribute('data-v'))")
        assert host.is_disabled("#next")
        projector.wait_for_function("() => document.getElementById('order').children.length === 20")
        assert projector.is_visible("#tile svg.star") is False  # turn 20 is a 15
        seen["projector_note"] = projector.inner_text("#note")

        # Ann hands in a photo; the box the reader is unsure of comes back with its crop and candidates.
        ann.fill("#name", "Ann")
        ann.set_input_files("#photo", files=[{"name": "sheet.jpg", "mimeType": "image/jpeg", "buffer": photo}])
        ann.wait_for_selector("#sheet:not([hidden])", timeout=60_000)
        seen["ann_read"] = shown_boxes(ann)
        seen["ann_flagged"] = ann.eval_on_selector_all("#read li.flag small", "s => s.map(n => +n.textContent)")
        seen["ann_crops"] = ann.eval_on_selector_all("#flags img.crop", "imgs => imgs.map(i => i.naturalWidth)")
        if shots:
            ann.screenshot(path=str(shots / "player.png"), full_page=False)
        for box in seen["ann_flagged"]:
            # She taps what she wrote: the candidate button showing it.
            ann.click(f"#check-{box} button.choice[data-v='{typed_tile(ANN[box - 1])}']")
            ann.wait_for_selector(f"#check-{box}", state="detached")
        seen["ann_after"] = shown_boxes(ann)
        seen["ann_flags_left"] = ann.eval_on_selector_all("#read li.flag", "items => items.length")

        # Bob types his boxes; his name is shown as text everywhere.
        type_sheet(bob_phone, bob, BOB)
        seen["bob_flags"] = bob_phone.eval_on_selector_all("#read li.flag", "items => items.length")
        if shots:
            bob_phone.screenshot(path=str(shots / "player-dark.png"))
        seen["bob_hello"] = bob_phone.inner_text("#hello")

        # Cleo types 21 for a 12: that box is flagged (21 was not called), and one tap on 12 fixes it.
        typed = CLEO[:]
        typed[CLEO_WRONG] = 21
        type_sheet(cleo, "Cleo", typed)
        seen["cleo_flagged"] = cleo.eval_on_selector_all("#read li.flag small", "s => s.map(n => +n.textContent)")
        seen["cleo_choices"] = cleo.eval_on_selector_all(
            f"#check-{CLEO_WRONG + 1} button.choice", "buttons => buttons.map(b => b.getAttribute('data-v'))")
        host.wait_for_function("() => document.querySelectorAll('#handed > li').length === 3"
                               " && document.querySelectorAll('#handed > li .flags').length === 1")
        seen["host_flags"] = host.inner_text("#handed")
        if shots:
            host.screenshot(path=str(shots / "host.png"), full_page=True)
        cleo.click(f"#check-{CLEO_WRONG + 1} button.choice[data-v='12']")
        cleo.wait_for_selector(f"#check-{CLEO_WRONG + 1}", state="detached")
        seen["cleo_after"] = shown_boxes(cleo)
        seen["cleo_status"] = cleo.inner_text("#sheet-status")

        # The projector lists the sheets as they arrive; the host's list has no box left to check.
        projector.wait_for_function("() => document.getElementById('handed').children.length === 3")
        seen["projector_handed"] = projector.eval_on_selector_all("#handed li", "li => li.map(i => i.textContent)")
        host.wait_for_function("() => document.querySelectorAll('#handed > li .sure').length === 3")
        seen["host_in"] = host.inner_text("#count")

        # A sure box can be asked again: a tap opens its question, and tapping its own value keeps it.
        bob_phone.click("#box-3 button")
        seen["bob_opened"] = bob_phone.eval_on_selector_all("#flags .check legend", "l => l.map(x => x.textContent)")
        bob_phone.click(f"#check-3 button.choice[data-v='{typed_tile(BOB[2])}']")
        bob_phone.wait_for_selector("#check-3", state="detached")

        # A reload keeps a phone's sheet (its token is in localStorage).
        bob_phone.reload()
        bob_phone.wait_for_selector("#sheet:not([hidden])")
        seen["bob_reloaded"] = shown_boxes(bob_phone)

        host.click("#reveal")
        projector.wait_for_selector("#results:not([hidden])")
        projector.wait_for_function("() => document.querySelectorAll('#trains .train').length === 3")
        seen["projector_ranking"] = ranking_rows(projector)
        seen["projector_trains"] = projector.eval_on_selector_all("#trains .name", "n => n.map(x => x.textContent)")
        seen["projector_game"] = projector.inner_text(".game")
        host.wait_for_selector("#results:not([hidden])")
        seen["host_ranking"] = ranking_rows(host)
        for name, phone in (("ann", ann), ("bob", bob_phone), ("cleo", cleo)):
            phone.wait_for_selector("#result:not([hidden])")
            seen[f"{name}_total"] = int(phone.inner_text("#total b"))
            seen[f"{name}_ranking"] = ranking_rows(phone)
            seen[f"{name}_mine"] = phone.inner_text("#ranking li.mine .name")
        if shots:
            projector.screenshot(path=str(shots / "projector.png"), full_page=False)
            ann.screenshot(path=str(shots / "player-result.png"))
            bob_phone.screenshot(path=str(shots / "player-result-dark.png"))
            projector.emulate_media(color_scheme="dark")
            projector.screenshot(path=str(shots / "projector-dark.png"))
    finally:
        seen["errors"] = list(tabs.errors)
        tabs.close()
    return seen


@pytest.fixture(scope="module")
def night(browser, served):
    pytest.importorskip("pypdfium2", reason="no pypdfium2 (pip install '.[test]'): the sheet's photo is rendered")
    return evening(browser, served, sheet_photo(ANN))


def score_json(served: Served, tmp_path: Path) -> dict[str, Any]:
    """`paperplay score --json` on the sheet files the server gives for the game's sheets."""
    files = []
    for sheet in api(served, f"/api/games/{CODE}/sheets")["sheets"]:
        path = tmp_path / f"sheet-{sheet['id']}.json"
        path.write_text(json.dumps(api(served, f"/api/games/{CODE}/sheets/{sheet['id']}/file")), encoding="utf-8")
        files.append(str(path))
    result = subprocess.run([sys.executable, "-m", "paperplay", "score", *files, "--json"], capture_output=True,
                            text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_the_pages_log_no_error(night, served):
    # but the browser's own note of the bad seed's answer, a 400 (a page cannot silence it)
    assert night["errors"] == [f"{served.host_url}: Failed to load resource: the server responded with a status of "
                               "400 (Bad Request)"]


def test_the_projectors_qr_code_reads_as_the_join_address(night, served):
    zxingcpp = pytest.importorskip("zxingcpp", reason="no zxing-cpp (pip install '.[test]')")
    from PIL import Image

    found = zxingcpp.read_barcodes(Image.open(io.BytesIO(night["qr_png"])).convert("L"))
    assert [code.text for code in found] == [f"{served.base}/join/{CODE}"]


def test_a_bad_seed_is_refused_in_one_line(night):
    assert night["bad_seed"].startswith("seed: ") and "\n" not in night["bad_seed"]


def test_the_host_calls_every_tile_and_the_projector_follows(night):
    assert night["host_called"] == [typed_tile(t) for t in TILES]
    assert night["projector_note"] == "That was the last tile. Hand in your sheet on your phone."


def test_a_photo_is_read_and_its_flagged_boxes_are_confirmed_with_one_tap(night):
    assert night["ann_read"] == [typed_tile(t) for t in ANN]
    assert night["ann_flagged"], "the photo was chosen for a flagged box; its reading changed"
    assert all(width > 0 for width in night["ann_crops"]) and len(night["ann_crops"]) == len(night["ann_flagged"])
    assert night["ann_after"] == [typed_tile(t) for t in ANN] and night["ann_flags_left"] == 0


def test_a_typed_sheet_keeps_its_name_as_text_and_survives_a_reload(night):
    assert night["bob_flags"] == 0
    assert night["bob_hello"] == f"Hello, {BOB_NAME}"
    assert night["bob_opened"] == ["What did you write in box 3?"]
    assert night["bob_reloaded"] == [typed_tile(t) for t in BOB]
    assert BOB_NAME in night["projector_handed"]


def test_a_wrong_box_is_flagged_and_fixed_by_its_player(night):
    assert night["cleo_flagged"] == [CLEO_WRONG + 1]
    assert "12" in night["cleo_choices"]  # the one tile called that no other box holds
    assert f"box {CLEO_WRONG + 1}: 21 (21 has not been called)" in night["host_flags"]
    assert night["cleo_after"] == [typed_tile(t) for t in CLEO]
    assert night["cleo_status"].startswith(f"Box {CLEO_WRONG + 1} is now 12.")
    assert night["host_in"] == "· 3 of 3"


def test_the_revealed_ranking_is_paperplay_scores(night, served, tmp_path):
    scored = score_json(served, tmp_path)
    expected = [(row["place"], row["player"], row["total"]) for row in scored["ranking"]]
    assert len(expected) == 3
    assert night["projector_ranking"] == expected
    assert night["host_ranking"] == expected
    assert night["projector_trains"] == [name for _, name, _ in expected]
    assert night["projector_game"] == f"Streams · game {CODE} · seed {display_code(SEED)}"
    totals = {r["player"]: r["total"] for r in scored["results"]}
    assert (night["ann_total"], night["bob_total"], night["cleo_total"]) == (totals["Ann"], totals[BOB_NAME],
                                                                             totals["Cleo"])
    assert night["ann_ranking"] == expected and night["ann_mine"] == "Ann"
    assert night["bob_mine"] == BOB_NAME and night["cleo_mine"] == "Cleo"


# --- the pages themselves (no browser) -------------------------------------------------------------

PAGES = {
    "host": {"key": "k3y<&>", "lang": "da", "variants": ["standard"]},
    "player": {"code": CODE, "lang": "de"},
    "projector": {"code": CODE, "key": "k3y", "join_url": f"http://192.168.1.20:8000/join/{CODE}"},
}


@pytest.mark.parametrize("name", PAGES)
def test_each_page_is_one_valid_file_whose_csp_allows_its_own_parts_and_server(name):
    import base64
    import hashlib

    import html5lib

    from paperplay.html.page import read_data
    from paperplay.serve.pages import render

    source = render(name, **PAGES[name])
    assert source == render(name, **PAGES[name])  # nothing depends on the time or the machine
    assert not re.search(r"\bsrc=|@import|url\(|<link (?!rel=\"icon\" href=\"data:,\">)", source)
    assert re.findall(r'href="([^"#][^"]*)"', source) == ["data:,"]
    policy = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', source)
    assert policy is not None and "unsafe" not in policy[1]
    directives = dict(d.strip().split(" ", 1) for d in policy[1].split(";"))
    sha = lambda code: "'sha256-" + base64.b64encode(hashlib.sha256(code.encode()).digest()).decode() + "'"  # noqa: E731
    styles = re.findall(r"<style>(.*?)</style>", source, re.S)
    scripts = re.findall(r"<script>(.*?)</script>", source, re.S)
    assert (directives["style-src"], directives["script-src"]) == (sha(styles[0]), sha(scripts[0]))
    assert (directives["default-src"], directives["connect-src"]) == ("'none'", "'self'")
    assert directives["img-src"] == "'self' data: blob:"
    assert not re.search(r"<[^>]+\s(on[a-z]+|style)=", source), "inline handlers and style attributes break the CSP"
    parser = html5lib.HTMLParser(strict=True)
    parser.parse(source)
    assert not parser.errors
    data = read_data(source)
    assert data["page"] == name and "{n} points" in data["text"].values()
    if name != "player":
        assert data["key"] == PAGES[name]["key"]  # in the data block, escaped: never markup


def test_the_projector_shows_the_join_address_and_its_qr_code_without_any_url_to_fetch():
    from paperplay.serve.pages import qr_svg, render, short_address

    source = render("projector", **PAGES["projector"])
    assert f'<p class="address" id="address">192.168.1.20:8000/join/{CODE}</p>' in source
    label = f"QR code of the join address 192.168.1.20:8000/join/{CODE}"
    assert qr_svg(PAGES["projector"]["join_url"], label) in source
    assert short_address("https://a.example/join/X") == "a.example/join/X"
    assert 'class="qr-box"></div>' in render("projector", code=CODE)  # no address given: no QR code
    with pytest.raises(ValueError, match="unknown page 'admin'; expected one of host, player, projector"):
        render("admin")


# --- the docs' screenshots --------------------------------------------------------------------------

def main() -> None:
    import tempfile

    from playwright.sync_api import sync_playwright
    from screenshots import shrink  # the README's screenshots' palette PNGs

    executable = find_chromium()
    if executable is None:
        sys.exit("no Chromium found: apt-get install chromium")
    keep = os.environ.get("PAPERPLAY_SHOTS_KEEP")  # a folder for every screenshot, to look at them
    with tempfile.TemporaryDirectory() as scratch, sync_playwright() as playwright:
        folder = keep or scratch
        served = start_server(Path(scratch) / "games.db")
        browser = launch(playwright, executable)
        try:
            night = evening(browser, served, sheet_photo(ANN), shots=Path(folder), bob="Bob")
        finally:
            browser.close()
            stop_server(served)
        if len(night["errors"]) > 1:
            sys.exit("the pages logged errors: " + "; ".join(night["errors"]))
        for name in ("host", "player", "projector", "projector-live"):
            shrink((Path(folder) / f"{name}.png").read_bytes(), DOCS / f"serve-{name}.png")


if __name__ == "__main__":
    main()
