"""The host's HTML pages as files: self-contained, a strict CSP, escaped text, the right payloads."""

from __future__ import annotations

import base64
import hashlib
import json
import re

import html5lib
import pytest

from paperplay.html.caller import caller_page
from paperplay.html.page import read_data
from paperplay.html.results import BOX, results_page
from paperplay.seeds import game_code
from paperplay.streams.rules import draw
from paperplay.streams.referee import ranking, referee, sheet_from_json

SEED = "7KQ2M9XD"


def sheet(player: str, cells: list, **more: object) -> dict:
    return {"game": "streams", "seed": SEED, "player": player, "cells": cells, **more}


def sample_sheets(players: int) -> list[dict]:
    """Sheets of the draw of SEED in varied orders (some ascending runs, some shuffled)."""
    import random

    tiles = list(draw(SEED))
    rng = random.Random(players)
    sheets = []
    for i in range(players):
        cells = tiles[:]
        rng.shuffle(cells)
        if i % 2:
            cells[:12] = sorted(cells[:12])
        sheets.append(sheet(f"Player {i + 1}", cells))
    return sheets


def scored(sheets: list[dict]) -> tuple[list[dict], list[list]]:
    results = [referee(sheet_from_json(s, f"p{i}.json")).to_json() for i, s in enumerate(sheets)]
    return results, [s["cells"] for s in sheets]


def inline(page: str, tag: str) -> list[str]:
    return re.findall(rf"<{tag}>(.*?)</{tag}>", page, re.S)


def check_self_contained(page: bytes) -> str:
    """No URL, a CSP allowing exactly the page's inline style and script by hash, valid HTML5."""
    source = page.decode("utf-8")
    assert not re.search(r"https?:|//[a-z0-9.-]+\.[a-z]{2,}|\bsrc=|@import|url\(", source, re.I)
    policy = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', source)
    assert policy and source.index(policy.group(0)) < source.index("<style>")
    directives = dict(d.strip().split(" ", 1) for d in policy.group(1).split(";"))
    assert directives["default-src"] == "'none'" and "unsafe" not in policy.group(1)
    styles, scripts = inline(source, "style"), inline(source, "script")
    sha = lambda code: "'sha256-" + base64.b64encode(hashlib.sha256(code.encode()).digest()).decode() + "'"  # noqa: E731
    assert [directives["style-src"]] == [sha(s) for s in styles]
    assert directives["script-src"] == (" ".join(sha(s) for s in scripts) if scripts else "'none'")
    assert not re.search(r"<[^>]+\s(on[a-z]+|style)=", source), "inline handlers and style attributes break the CSP"
    parser = html5lib.HTMLParser(strict=True)
    parser.parse(source)
    assert not parser.errors
    return source


def test_caller_page_holds_the_draw_and_the_code_but_never_the_seed():
    page = caller_page(game_code("streams", SEED), draw(SEED))
    source = check_self_contained(page)
    assert read_data(page) == {"game": "streams", "code": "P2QP-HGPH", "draw": list(draw(SEED))}
    assert "P2QP-HGPH" in source and SEED not in source and "7KQ2-M9XD" not in source
    assert "For the organiser only" in source
    assert page == caller_page(game_code("streams", SEED), draw(SEED))


def test_caller_page_keeps_the_wild_in_its_data():
    page = caller_page(game_code("streams", "1"), draw("1"))
    assert read_data(page)["draw"][17] == "*"
    assert len(page) < 50_000


def test_results_page_ranks_escapes_and_brackets_every_series():
    sheets = sample_sheets(5)
    sheets[1]["player"] = "<script>alert('x')</script> & co"
    sheets[2]["cells"][4] = "*"
    sheets[3]["claimed_total"] = 999
    results, cells = scored(sheets)
    page = results_page(results, cells, ranking(results))
    source = check_self_contained(page)
    assert "<script>alert" not in source and "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; co" in source
    assert read_data(page) == {"game": "streams", "seeds": [SEED], "ranking": ranking(results)}
    assert "P2QP-HGPH" in source and "7KQ2-M9XD" in source  # results come after the game: the seed is shown
    assert "streams/claim-total" in source and "not valid" in source
    trains = re.findall(r'<span class="name">([^<]*)</span>.*?<svg class="train"(.*?)</svg>', source, re.S)
    by_name = {r["player"]: r for r in results}
    assert len(trains) == 5
    for name, svg in trains:
        import html

        drawn = [
            (int(x) // BOX + 1, (int(x) + int(w)) // BOX + 1) for x, w in re.findall(r"M(\d+) -8\.1v2\.5h(\d+)", svg)
        ]
        expected = by_name[html.unescape(name)]["series"]
        assert drawn == [(s["start"], s["end"]) for s in expected]
        assert re.findall(r"<text x=\"[\d.]+\">(\d+)</text>", svg) == [str(s["points"]) for s in expected]
    assert page == results_page(results, cells, ranking(results))


def test_results_page_for_30_players_is_under_50_kb():
    results, cells = scored(sample_sheets(30))
    assert len(results_page(results, cells, ranking(results))) < 50_000


def test_results_page_refuses_a_ranking_of_other_results():
    results, cells = scored(sample_sheets(3))
    with pytest.raises(ValueError):
        results_page(results, cells, ranking(results)[:1])


# The command line: --html writes the pages, never overwrites without --force.

def test_call_html_writes_the_page_and_warns_it_is_for_the_organiser(cli, tmp_path):
    out = tmp_path / "caller.html"
    result = cli("call", "streams", "--seed", SEED, "--html", str(out))
    assert result.exit_code == 0, result.output
    assert "For the organiser only" in result.stdout and "[Enter" not in result.stdout
    assert read_data(out.read_bytes())["draw"] == list(draw(SEED))
    again = cli("call", "streams", "--seed", SEED, "--html", str(out))
    assert again.exit_code == 2 and "already exists" in again.stderr and len(again.stderr.splitlines()) == 1
    assert cli("call", "streams", "--seed", SEED, "--html", str(out), "--force").exit_code == 0
    assert list(tmp_path.iterdir()) == [out]


def test_kit_streams_html_writes_the_kit_and_the_page(cli, tmp_path):
    result = cli(
        "kit", "streams", "--seed", SEED, "--out", str(tmp_path / "kit.pdf"), "--html", str(tmp_path / "c.html")
    )
    assert result.exit_code == 0, result.output
    assert (tmp_path / "kit.pdf").stat().st_size > 0 and read_data((tmp_path / "c.html").read_bytes())[
        "code"
    ] == "P2QP-HGPH"
    (tmp_path / "kit.pdf").unlink()
    kept = cli("kit", "streams", "--seed", SEED, "--out", str(tmp_path / "kit.pdf"), "--html", str(tmp_path / "c.html"))
    assert kept.exit_code == 2 and "c.html" in kept.stderr and not (tmp_path / "kit.pdf").exists()
    other = cli("kit", "sequence", "--seed", SEED, "--out", str(tmp_path / "s.pdf"), "--html", str(tmp_path / "s.html"))
    assert other.exit_code == 2 and "Streams" in other.stderr and not (tmp_path / "s.pdf").exists()


def test_score_html_matches_score_json(cli, write_json, tmp_path):
    files = [str(write_json(f"p{i}.json", s)) for i, s in enumerate(sample_sheets(4))]
    out = tmp_path / "results.html"
    result = cli("score", *files, "--json", "--html", str(out))
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)  # --json keeps stdout to the one document
    assert "Wrote" in result.stderr
    assert read_data(out.read_bytes())["ranking"] == document["ranking"]
    assert cli("score", *files, "--html", str(out)).exit_code == 2


def test_verify_html_is_for_streams_sheets_only(cli, write_json, tmp_path):
    ann = write_json("ann.json", sample_sheets(1)[0])
    board = write_json("board.json", {"game": "streetcar", "board": "standard", "tiles": []})
    refused = cli("verify", str(ann), str(board), "--html", str(tmp_path / "r.html"))
    assert refused.exit_code == 2 and len(refused.stderr.splitlines()) == 1 and "board.json" in refused.stderr
    assert not (tmp_path / "r.html").exists()
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    done = cli("verify", str(ann), str(broken), "--html", str(tmp_path / "r.html"))
    assert done.exit_code == 2 and "not read" in (tmp_path / "r.html").read_text(encoding="utf-8")


def test_pages_are_the_same_bytes_from_separate_processes(write_json, tmp_path):
    import os
    import subprocess
    import sys

    files = [str(write_json(f"p{i}.json", s)) for i, s in enumerate(sample_sheets(3))]
    pages = []
    for hash_seed in ("1", "2"):  # set and dict orders must not leak into the page
        out = tmp_path / f"r{hash_seed}.html"
        subprocess.run([sys.executable, "-m", "paperplay", "score", *files, "--html", str(out)], check=True,
                       capture_output=True, env={**os.environ, "PYTHONHASHSEED": hash_seed}, timeout=60)
        pages.append(out.read_bytes())
    assert pages[0] == pages[1]


def test_a_variants_pages_name_it_and_keep_their_own_position():
    from paperplay.i18n import translator
    from paperplay.seeds import game_code
    from paperplay.streams.rules import draw, rules_from_data, standard_rules

    data = {"variant": "big-bag", "boxes": 20, "bag": [{"value": v, "count": 2} for v in range(1, 31)]
            + [{"value": "*", "count": 1}], "points": list(standard_rules().points)}
    rules = rules_from_data(data, "big.json")
    page = caller_page(game_code("streams", "S"), draw("S", rules), rules, translator("de")).decode()
    assert "Variante big-bag" in page and read_data(page.encode())["variant"] == "big-bag"
    assert 'aria-label="Joker"' in page and 'aria-label="wild"' not in page
    assert "Leertaste, Eingabe, →, Bild ab" in page
    standard = caller_page(game_code("streams", "S"), draw("S")).decode()
    assert "variant" not in read_data(standard.encode()) and "· variant" not in standard
    row = {"file": "a.json", "player": "Ann", "seed": None, "checked_against": "bag", "valid": True, "total": 3,
           "series": [], "wild_value": None, "problems": [], "variant": "big-bag"}
    cells = [1] * 20
    results = results_page([row], [cells], [{"place": 1, "player": "Ann", "total": 3}], translator("en")).decode()
    assert "variant big-bag" in results


def test_results_page_says_what_each_sheet_was_checked_against_and_counts_unread_files():
    # Sheets checked against different things: each row says which; two sheets of one name show their
    # files; a file that could not be read is counted in the header too.
    sheets = sample_sheets(3)
    sheets[1]["player"] = sheets[0]["player"]
    del sheets[2]["seed"]  # checked against the bag only
    results, cells = scored(sheets)
    results.append({"file": "gone.json", "valid": False, "error": "gone.json: no such file"})
    cells.append(None)
    source = results_page(results, cells, ranking(results)).decode()
    assert source.count("checked against the draw of seed 7KQ2-M9XD</p>") == 2
    assert source.count("checked against the bag only (no seed or draw was given)</p>") == 1
    assert source.count('<small class="file">p0.json</small>') == 1 and '<small class="file">p2.json' not in source
    assert "3 sheets, " in source and "1 file not read" in source
    alone = results_page(*scored(sample_sheets(2)), ranking(scored(sample_sheets(2))[0])).decode()
    assert "checked against the draw" not in alone.split("<main>")[1] and "not read" not in alone
    assert '<small class="file">' not in alone


@pytest.mark.parametrize(("lang", "one", "two"), [("en", "boxes 1-2: 1 point", "boxes 3-5: 3 points"),
                                                  ("de", "Felder 1-2: 1 Punkt", "Felder 3-5: 3 Punkte")])
def test_a_trains_label_counts_one_point_in_the_singular(lang, one, two):
    from paperplay.html.results import train_label
    from paperplay.i18n import translator

    result = {"series": [{"start": 1, "end": 2, "points": 1}, {"start": 3, "end": 5, "points": 3}]}
    label = train_label([1, 2, 30, 3, 4] + [9] * 15, result, translator(lang))
    assert label.endswith(f"{one}; {two}.")
