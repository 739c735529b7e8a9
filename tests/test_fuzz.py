"""Fuzzing the command line: malformed records of every format and odd options never crash or hang.

Each case mutates a valid record (types, sizes, nesting, unicode, numbers; dropped, duplicated and
reordered turns; text-level damage such as deep nesting, huge integers, NaN, truncation) or builds
a command line from odd option values, runs paperplay in-process, and checks:

- the exit code is 0, 1 or 2 (never 3, an internal error);
- nothing prints a traceback; an input error (exit 2) is exactly one line on stderr;
- no file is left behind: no temporary file, and no output file unless the command succeeded;
- the case ends within CASE_SECONDS (a hang fails the test).

The quick run (in the default `pytest`) tries a few dozen cases per format; the long run,
`pytest -m fuzz --hypothesis-profile=long tests/test_fuzz.py`, tries 10,000 per format. Set
PAPERPLAY_FUZZ_REPORT=FILE to write the figures (cases per format, exit codes, failures) as JSON.
"""

from __future__ import annotations

import copy
import json
import re
import os
import signal
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from conftest import DATA, SPEC_SHEET
from paperplay.cli.app import main

CASE_SECONDS = 20.0
QUICK = settings(max_examples=30, deadline=None, database=None, derandomize=True,
                 suppress_health_check=list(HealthCheck))

# ---------------------------------------------------------------------------------------------
# Running paperplay in-process, with a time bound


class Hang(BaseException):
    """A case ran longer than CASE_SECONDS (BaseException: nothing in paperplay may swallow it)."""


def _alarm(signum: int, frame: Any) -> None:
    raise Hang(f"no answer after {CASE_SECONDS} s")


def run_cli(args: list[str], cwd: Path, stdin: str = "") -> tuple[int, str, str]:
    """Runs paperplay's main() with args in cwd; returns (exit code, stdout, stderr)."""
    runner = CliRunner()
    previous = signal.signal(signal.SIGALRM, _alarm)
    here = os.getcwd()
    code: Any = 0
    with runner.isolation(input=stdin) as streams:
        os.chdir(cwd)
        signal.setitimer(signal.ITIMER_REAL, CASE_SECONDS)
        try:
            main(list(args))
        except SystemExit as exc:
            code = exc.code
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
            os.chdir(here)
        out = streams[0].getvalue().decode("utf-8", "replace")
        err = streams[1].getvalue().decode("utf-8", "replace")
    return (code if isinstance(code, int) else -1), out, err


FIGURES: dict[str, Counter[str]] = defaultdict(Counter)
SLOWEST: dict[str, tuple[list[str], bytes]] = {}


def files_in(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file() or p.is_symlink()}


def check_case(kind: str, args: list[str], folder: Path, outputs: tuple[str, ...] = ()) -> tuple[int, str, str]:
    """Runs one case and asserts the hardening rules; counts it in FIGURES[kind]."""
    before = files_in(folder)
    started = time.perf_counter()
    code, out, err = run_cli(args, folder)
    figures = FIGURES[kind]
    figures["cases"] += 1
    seconds = time.perf_counter() - started
    figures["seconds"] += seconds
    if seconds > figures["slowest case (s)"]:
        figures["slowest case (s)"] = round(seconds, 3)
        SLOWEST[kind] = (args, (folder / "record.json").read_bytes() if (folder / "record.json").exists() else b"")
    figures[f"exit {code}"] += 1
    shown = f"paperplay {' '.join(map(repr, args))}\nexit {code}\nstderr: {err[:2000]!r}"
    if "Traceback" in err or "Traceback" in out:
        figures["tracebacks"] += 1
    if code == 2 and len(err.splitlines()) != 1:
        figures["multi-line errors"] += 1
    assert "Traceback" not in err + out, shown
    assert code in (0, 1, 2), shown
    lines = err.splitlines()
    if code == 2:
        assert len(lines) == 1 and lines[0].startswith("paperplay: error: "), shown
    for line in lines:
        assert line.startswith(("paperplay: ", "Playing", "Reviewing")), shown
    left = files_in(folder) - before
    for name in left:  # the next case starts from the same folder
        (folder / name).unlink()
    assert not [f for f in left if f.endswith(".part")], f"temporary file left: {left}\n{shown}"
    if code == 2:  # but the page a refused photo's line names: what the reader found on it (paperplay scan)
        named = set(re.findall(r"\(what was found: (\S+?)\)$", err.strip()))
        unnamed = {f for f in left if f not in named and str(folder / f) not in named}
        assert not unnamed, f"files written by a command that failed: {unnamed}\n{shown}"
    else:  # exit 1 may still write its output (route --pdf draws an incomplete route)
        assert left <= {str(Path(o)) for o in outputs}, f"unexpected files: {left}\n{shown}"
    return code, out, err


# ---------------------------------------------------------------------------------------------
# Valid records of every format


def _streams_sheet() -> dict[str, Any]:
    from paperplay.streams.rules import draw

    sheet = copy.deepcopy(SPEC_SHEET)
    cells, placements = list(sheet["cells"]), []
    taken: set[int] = set()
    for tile in draw("7KQ2M9XD"):
        box = next(i for i, c in enumerate(cells) if c == tile and i not in taken)
        taken.add(box)
        placements.append(box + 1)
    sheet["placements"] = placements
    sheet["claimed_series"] = [{"start": 2, "end": 3, "points": 1}, {"start": 5, "end": 7}]
    return sheet


def _streams_sheet_with_draw() -> dict[str, Any]:
    """The same sheet with its draw written out instead of its seed (a physical bag's record)."""
    from paperplay.streams.rules import draw, tile_json

    sheet = _streams_sheet()
    del sheet["seed"]
    sheet["draw"] = [tile_json(t) for t in draw("7KQ2M9XD")]
    return sheet


SEQUENCE_POSITION = {"game": "sequence", "players": 2, "board_seed": "7KQ2-M9XD", "numbers": "1-48",
                     "chips": {"red": [[0, 1], [0, 2], [0, 3], [0, 4], [2, 2]], "blue": [[4, 4], [5, 5]]}}

VARIANT = Path(__file__).parent.parent / "docs/examples/my-variant.json"
VARIANT_SHEET = {"game": "streams", "seed": "7KQ2-M9XD", "player": "Ann",
                 "cells": [1, 3, 4, 5, 6, 7, 11, 13, 15, 15, 16, 17, 25, 27, 28],
                 "placements": [7, 2, 3, 12, 14, 13, 5, 4, 8, 9, 11, 1, 15, 10, 6],
                 "claimed_series": [{"start": 1, "end": 3, "points": 3}], "claimed_total": 5}
"""A sheet of docs/examples/my-variant.json (read with --variant: its own bounds)."""

FORMATS = {
    "streams-sheet": _streams_sheet,
    "streams-sheet-draw": _streams_sheet_with_draw,
    "streetcar-state": lambda: json.loads((DATA / "streetcar-state.json").read_text(encoding="utf-8")),
    "streetcar-log": lambda: json.loads((DATA / "streetcar-tiny-game.json").read_text(encoding="utf-8")),
    "sequence-position": lambda: copy.deepcopy(SEQUENCE_POSITION),
    "sequence-log": lambda: json.loads((DATA / "sequence-game.json").read_text(encoding="utf-8")),
    "sequence-log-dealt": lambda: json.loads((DATA / "sequence-game-dealt.json").read_text(encoding="utf-8")),
    "streams-variant": lambda: json.loads((DATA / "streams-variant-big.json").read_text(encoding="utf-8")),
    "streams-variant-sheet": lambda: copy.deepcopy(VARIANT_SHEET),
}

# ---------------------------------------------------------------------------------------------
# Mutations

ODD_TEXT = ["", " ", "standard", "\ud800", "a\nb", "x\x00y", "²", "٣", "*", "X", "_", "..", "../x.json",
            "/dev/zero", "board.json", "plus", "minus", "1-48", "0-47", "times-tables", "red", "blue",
            "9" * 40, "x" * 3000, "7KQ2-M9XD", "straight", "curve", "N", "A", "B", "Ann", "P1", "P2",
            "2 x 3 + 4", "22 - 3", "1 / 0", "((((1", "1 +", "\u2028", "e\u0301", "🚋", "\x1b[31m"]
ODD_INTS = [0, 1, -1, 2, 3, 5, 7, 9, 10, 11, 12, 19, 20, 21, 30, 31, 47, 48, 90, 180, 270, 360, 10**6,
            10**12, -(10**12), 2**63, 10**29, -(2**64)]
ODD_FLOATS = [7.0, 0.0, 1.0, 2.0, 90.0, 0.5, -1.5, 1e300, -0.0, 1e-300]

TEXT = st.one_of(st.sampled_from(ODD_TEXT), st.text(max_size=12))
LEAF = st.one_of(st.none(), st.booleans(), st.sampled_from(ODD_INTS), st.integers(-100, 100),
                 st.sampled_from(ODD_FLOATS), st.floats(allow_nan=False, allow_infinity=False), TEXT)
VALUE = st.recursive(LEAF, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=3),
                     max_leaves=6)


def _pick(doc: Any, data: st.DataObject) -> tuple[Any, Any]:
    """Walks from the root to a random node; returns (parent container, key) of the node."""
    parent, key = None, None
    node = doc
    while isinstance(node, (dict, list)) and node:
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        if parent is not None and data.draw(st.integers(0, 3), label="stop") == 0:
            break
        k = data.draw(st.sampled_from(keys), label="key")
        parent, key, node = node, k, node[k]
    return parent, key


def _mutate_once(doc: Any, data: st.DataObject) -> Any:
    parent, key = _pick(doc, data)
    if parent is None:
        return data.draw(VALUE, label="whole")
    node = parent[key]
    op = data.draw(st.sampled_from(["replace", "replace", "delete", "add", "retype", "number", "unicode",
                                    "duplicate", "reorder", "nest"]), label="op")
    if op == "replace":
        parent[key] = data.draw(VALUE, label="value")
    elif op == "delete":
        del parent[key]
    elif op == "add":
        if isinstance(node, list):
            node.insert(data.draw(st.integers(0, len(node)), label="at"), data.draw(VALUE, label="item"))
        elif isinstance(node, dict):
            node[data.draw(TEXT, label="new key")] = data.draw(VALUE, label="value")
        else:
            parent[key] = [node, data.draw(VALUE, label="item")]
    elif op == "retype":
        if isinstance(node, bool) or node is None:
            parent[key] = data.draw(st.sampled_from([0, 1, "true", [], {}]), label="retyped")
        elif isinstance(node, int):
            parent[key] = data.draw(st.sampled_from([float(node), str(node), [node], {"v": node}, None]),
                                    label="retyped")
        elif isinstance(node, str):
            parent[key] = data.draw(st.sampled_from([[node], {node: node}, len(node), node.upper(),
                                                     node * 50]), label="retyped")
        elif isinstance(node, list):
            parent[key] = data.draw(st.sampled_from([{str(i): v for i, v in enumerate(node)}, node[:1],
                                                     node * 3, [node]]), label="retyped")
        else:
            parent[key] = list(node.values()) if isinstance(node, dict) else node
    elif op == "number":
        if isinstance(node, (int, float)) and not isinstance(node, bool):
            parent[key] = data.draw(st.sampled_from([node + 1, node - 1, -node, node * 1000, float(node),
                                                     node + 0.5, 10**25, 2**53 + 1]), label="number")
        else:
            parent[key] = data.draw(st.sampled_from(ODD_INTS + ODD_FLOATS), label="number")
    elif op == "unicode":
        text = node if isinstance(node, str) else json.dumps(node)
        extra = data.draw(st.sampled_from(["\ud800", "\n", "\x00", "²", "🚋", "\u202e", "\t", "\x7f"]),
                          label="char")
        at = data.draw(st.integers(0, len(text)), label="at")
        parent[key] = text[:at] + extra + text[at:]
    elif op == "duplicate" and isinstance(node, list) and node:
        i = data.draw(st.integers(0, len(node) - 1), label="item")
        node.insert(i, copy.deepcopy(node[i]))
    elif op == "reorder" and isinstance(node, list) and len(node) > 1:
        parent[key] = data.draw(st.permutations(node), label="order")
    elif op == "nest":
        parent[key] = data.draw(st.sampled_from([[node], {"value": node}, [[[node]]]]), label="nested")
    return doc


def _turn_edit(doc: Any, data: st.DataObject) -> None:
    """Drops, duplicates or swaps whole turns of a game log."""
    turns = doc.get("turns") if isinstance(doc, dict) else None
    if not isinstance(turns, list) or not turns:
        return
    i = data.draw(st.integers(0, len(turns) - 1), label="turn")
    op = data.draw(st.sampled_from(["drop", "duplicate", "swap", "truncate"]), label="turn op")
    if op == "drop":
        del turns[i]
    elif op == "duplicate":
        turns.insert(i, copy.deepcopy(turns[i]))
    elif op == "swap":
        j = data.draw(st.integers(0, len(turns) - 1), label="other turn")
        turns[i], turns[j] = turns[j], turns[i]
    else:
        del turns[i:]


def _text_damage(text: str, data: st.DataObject) -> str | bytes:
    op = data.draw(st.sampled_from(["deep", "digits", "nan", "truncate", "bytes", "bom", "huge-float"]),
                   label="text op")
    if op == "deep":
        n = data.draw(st.sampled_from([30, 200, 1000, 5000, 100_000]), label="depth")
        return "[" * n + text + "]" * n
    if op == "digits":
        n = data.draw(st.sampled_from([31, 400, 4301, 20_000]), label="digits")
        return text.replace("2", "9" * n, 1)
    if op == "nan":
        return text.replace("1", data.draw(st.sampled_from(["NaN", "Infinity", "-Infinity"]), label="const"), 1)
    if op == "huge-float":
        return text.replace("1", "1e999", 1)
    if op == "truncate":
        return text[: data.draw(st.integers(0, max(0, len(text) - 1)), label="cut")]
    if op == "bom":
        return "\ufeff" + text
    raw = text.encode("utf-8")
    at = data.draw(st.integers(0, len(raw)), label="at")
    return raw[:at] + b"\xff\xfe\x80" + raw[at:]


def mutated_record(kind: str, data: st.DataObject, folder: Path) -> str | bytes:
    doc = FORMATS[kind]()
    if kind == "streetcar-state" and data.draw(st.integers(0, 4), label="board file?") == 0:
        # The board as a file beside the record (the tiny game's board), itself sometimes damaged.
        board = json.loads((DATA / "streetcar-tiny-game.json").read_text(encoding="utf-8"))["board"]
        if data.draw(st.booleans(), label="damage board"):
            board = _mutate_once({"board": board}, data).get("board")
        (folder / "board.json").write_text(json.dumps(board), encoding="utf-8")
        doc["board"] = "board.json"
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        if "log" in kind and data.draw(st.integers(0, 3), label="turn edit?") == 0:
            _turn_edit(doc, data)
        else:
            doc = _mutate_once(doc, data)
    text = json.dumps(doc)  # ensure_ascii: lone surrogates survive as \ud800 escapes
    if data.draw(st.integers(0, 9), label="text damage?") == 0:
        return _text_damage(text, data)
    return text


def commands_for(kind: str, data: st.DataObject) -> tuple[list[str], tuple[str, ...]]:
    """A command that reads record.json, and the output files it may write."""
    extra = ["--json"] if data.draw(st.booleans(), label="json") else []
    if kind in ("streams-sheet", "streams-sheet-draw", "streams-variant-sheet"):
        choice = data.draw(st.sampled_from(["verify", "score", "score-seed", "review", "score-html"]), label="command")
        variant = ["--variant", str(VARIANT)] if kind == "streams-variant-sheet" else []
        if choice == "review":
            return ["review", "record.json", "--budget", "100", *variant, *extra], ()
        if choice == "score-html":  # the results page writes what the sheet holds: names, claims
            return ["score", "record.json", "--html", "r.html", *variant], ("r.html",)
        if variant:
            return ["score", "record.json", *variant, *extra], ()
        if choice == "score-seed":
            return ["score", "record.json", "--seed", "7KQ2-M9XD", *extra], ()
        return [choice, "record.json", *extra], ()
    if kind == "streetcar-state":
        choice = data.draw(st.sampled_from(["verify", "route", "route", "route-card", "route-pdf"]), label="command")
        if choice == "verify":
            return ["verify", "record.json", *extra], ()
        if choice == "route-card":
            return ["route", "record.json", "--line", "4", "--card", "3", "--set", "3", "--ordered", *extra], ()
        if choice == "route-pdf":
            return ["route", "record.json", "--line", "2", "--stops", "B,E", "--pdf", "route.pdf"], ("route.pdf",)
        return ["route", "record.json", "--line", "2", "--stops", "B,E", *extra], ()
    if kind == "streams-variant":
        choice = data.draw(st.sampled_from(["draw", "sheets", "score", "simulate"]), label="command")
        if choice == "sheets":
            return ["sheets", "-n", "2", "--seed", "S", "--variant", "record.json", "--out", "out.pdf"], ("out.pdf",)
        if choice == "score":
            return ["score", "--cells", "1 2 3", "--variant", "record.json", *extra], ()
        if choice == "simulate":
            return ["simulate", "--strategy", "gap", "--games", "2", "--variant", "record.json", *extra], ()
        return ["draw", "streams", "--seed", "S", "--variant", "record.json", *extra], ()
    return ["verify", "record.json", *extra], ()


def check_record(kind: str, data: st.DataObject, folder: Path) -> None:
    record = mutated_record(kind, data, folder)
    path = folder / "record.json"
    if isinstance(record, bytes):
        path.write_bytes(record)
    else:
        path.write_text(record, encoding="utf-8")
    args, outputs = commands_for(kind, data)
    try:
        check_case(kind, args, folder, outputs)
    finally:
        for name in ("record.json", "board.json"):
            (folder / name).unlink(missing_ok=True)


# ---------------------------------------------------------------------------------------------
# Odd options

SEEDS = st.one_of(st.sampled_from(["7KQ2-M9XD", "", "-", "A" * 33, "A" * 100_000, "a\nb", "\ud800", "²", "LAB",
                                   "7kq2m9xd", "--json"]), st.text(max_size=10))
NUMS = st.one_of(st.sampled_from(["0", "1", "2", "3", "4", "5", "6", "7", "9", "20", "200", "201", "-1",
                                  "²", "1.5", "", "nan", "1e3", "99999999999999999999", "4" * 5000, "0x10",
                                  " 3", "٣"]), st.integers(-10, 300).map(str))
CELLS = st.one_of(
    st.sampled_from(["4 3 6 5 1 7 15 11 13 15 17 16 18 8 23 20 25 27 28 24",
                     "3 _ _ 12 _ _ _ 15 _ _ _ _ 21 _ _ _ _ _ _ 29", "_ " * 20, "* " * 20, "1 2 ²",
                     "4 3 6 5 1 7 15 11 13 15 17 16 18 8 23 20 25 27 28 *", "x" * 200, "", "31 " * 20]),
    st.lists(st.sampled_from(["_", "*", "X", "1", "30", "11", "0", "²", "-", "15"]), min_size=0, max_size=22)
    .map(" ".join))
NUMBER_SETS = st.one_of(st.sampled_from(["1-48", "0-47", "times-tables", "1000000000000-1000000000047",
                                         "9953-10000", "9954-10001", "1-47", "48-1", ",".join(map(str, range(48))),
                                         ",".join(["1"] * 48), "²-49", "1,2,²", "", "1-48\n"]), TEXT)
OFFSETS = st.sampled_from(["0,0", "1.5,-0.5", "nan,0", "0,inf", "99,99", "1", "1,2,3", "", "٣,0", "-20,20",
                           "1e1,0", ".5,.5"])
STRATEGIES = st.sampled_from(["gap", "random", "proportional", "", " ", "montecarlo:100", "montecarlo:0",
                              "montecarlo:²", "montecarlo:99999999999", "coach:3", "nope", "gap,gap",
                              "random,,gap", ","])


@st.composite
def option_case(draw: Any) -> tuple[list[str], tuple[str, ...]]:
    command = draw(st.sampled_from(["draw", "draw", "score", "advise", "simulate", "route", "schema", "call",
                                    "sheets", "kit", "review", "verify"]))
    maybe = lambda option, values: [option, draw(values)] if draw(st.booleans()) else []  # noqa: E731
    if command == "draw":
        game = draw(st.sampled_from(["streams", "streetcar", "sequence", "strms", ""]))
        return ["draw", game, "--seed", draw(SEEDS), *maybe("--players", NUMS), *maybe("--set", NUMS),
                *maybe("--numbers", NUMBER_SETS), *maybe("--level", st.sampled_from(["add", "mixed", "x"])),
                *maybe("--json", st.just("--json"))[1:]], ()
    if command == "score":
        return ["score", "--cells", draw(CELLS), *maybe("--draw", CELLS), *maybe("--seed", SEEDS)], ()
    if command == "advise":
        return ["advise", "--cells", draw(CELLS), "--tile", draw(NUMS | st.sampled_from(["*", "X"])),
                *maybe("--seen", CELLS), "--budget", draw(st.sampled_from(["100", "500", "99", "0", "-5", "²",
                                                                          "100000000000"])),
                *maybe("--top", NUMS), *maybe("--seed", SEEDS)], ()
    if command == "simulate":
        which = draw(st.sampled_from(["--strategy", "--compare"]))
        games = draw(st.sampled_from(["1", "2", "5", "0", "-1", "²", "1000001", "100001", "x"]))
        out = draw(st.sampled_from([[], ["--plot", "lab.png"], ["--plot", "lab.txt"], ["--plot", "lab.pdf"]]))
        return ["simulate", which, draw(STRATEGIES), "--games", games, *maybe("--seed", SEEDS), *out], (
            ("lab.png", "lab.pdf") if out else ())
    if command == "route":
        stops = draw(st.sampled_from([["--stops", "B,E"], ["--stops", ""], ["--stops", "B,B"], ["--stops", "Z"],
                                      ["--stops", ",".join("ABCDEFGHIJKLMNOPQRSTUVWXYZ"[:draw(st.integers(3, 26))])],
                                      ["--card", draw(NUMS)], ["--stops", draw(TEXT)]]))
        return ["route", str(DATA / "streetcar-state.json"), "--line", draw(NUMS), *stops,
                *maybe("--set", NUMS)], ()
    if command == "schema":
        return ["schema", draw(st.sampled_from(["streams-sheet", "sequence-log", "nope", "../x", "\ud800"]))], ()
    if command == "call":
        return ["call", draw(st.sampled_from(["streams", "sequence"])), "--seed", draw(SEEDS),
                *maybe("--from", NUMS)], ()
    if command == "sheets":
        # output names that name a folder or go through a file; names long enough to shrink or be refused
        out = draw(st.sampled_from(["out.pdf", "out.pdf", "sub/out.pdf", "\x00.pdf", ".", "sub/", "sub/.", "..",
                                    "", "out.pdf/x.pdf"]))
        names = st.one_of(TEXT, st.sampled_from(["Ann," + "W" * 30, "i" * 200, "Å" * 60 + ",Bo", "\u202eEve",
                                                 " , ", "A" * 100_000]))
        return ["sheets", "--players", draw(st.sampled_from(["1", "2", "0", "201", "²", "x"])),
                *maybe("--names", names), *maybe("--seed", SEEDS),
                *maybe("--paper", st.sampled_from(["a4", "b5", "LETTER"])), "--out", out], (out,)
    if command == "kit":
        game = draw(st.sampled_from(["streams", "sequence", "streetcar"]))
        # Kits cost up to a second to render: most cases carry one bad option, so they stop early.
        bad = draw(st.sampled_from([["--back-offset", draw(OFFSETS)], ["--numbers", draw(NUMBER_SETS)],
                                    ["--players", draw(NUMS)], ["--seed", draw(SEEDS)], ["--set", draw(NUMS)]]))
        return ["kit", game, *bad, "--out", "kit.pdf"], ("kit.pdf",)
    if command == "review":
        return ["review", draw(st.sampled_from(["missing.json", "", ".", "\x00"])), *maybe("--budget", NUMS)], ()
    return ["verify", draw(st.sampled_from(["missing.json", ".", "\x00", "\ud800", "x" * 5000]))], ()


def check_options(data: st.DataObject, folder: Path) -> None:
    args, outputs = data.draw(option_case(), label="command line")
    check_case("options", args, folder, outputs)


# ---------------------------------------------------------------------------------------------
# The tests: a quick run by default, the long run with -m fuzz --hypothesis-profile=long

from hypothesis import given  # noqa: E402


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


@pytest.fixture(autouse=True)
def report():
    """Writes the figures so far after each test (PAPERPLAY_FUZZ_REPORT=FILE)."""
    yield
    target = os.environ.get("PAPERPLAY_FUZZ_REPORT")
    if target:
        figures = {k: {n: round(x, 2) for n, x in v.items()} for k, v in sorted(FIGURES.items())}
        Path(target).write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
        for kind, (args, record) in SLOWEST.items():
            Path(f"{target}.{kind}.slowest.json").write_bytes(record)
            Path(f"{target}.{kind}.slowest.args").write_text(json.dumps(args), encoding="utf-8")


@pytest.mark.parametrize("kind", sorted(FORMATS))
@QUICK
@given(data=st.data())
def test_fuzz_records_quick(kind, data, folder):
    check_record(kind, data, folder)


@QUICK
@given(data=st.data())
def test_fuzz_options_quick(data, folder):
    check_options(data, folder)


@pytest.mark.fuzz
@pytest.mark.parametrize("kind", sorted(FORMATS))
@given(data=st.data())
def test_fuzz_records_long(kind, data, folder):
    check_record(kind, data, folder)


@pytest.mark.fuzz
@given(data=st.data())
def test_fuzz_options_long(data, folder):
    check_options(data, folder)
