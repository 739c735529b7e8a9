"""The examples of the README and the documentation site: their JSON documents parse, and the documented
records verify as shown."""

from __future__ import annotations

import json
import re
from pathlib import Path

from docpages import ROOT, all_text, text

from paperplay.sequence.referee import verify_log
from paperplay.streams.referee import referee, sheet_from_json

DOCS = all_text()
JSON_BLOCKS = [json.loads(block) for block in re.findall(r"```json\n(.*?)```", DOCS, re.S)]


def test_readme_json_blocks_parse():
    assert len(JSON_BLOCKS) >= 2


def test_readme_streams_sheet_scores_16():
    sheet = next(b for b in JSON_BLOCKS if b.get("game") == "streams" and "claimed_total" in b)
    result = referee(sheet_from_json(sheet, "README"))
    assert result.valid and result.score.total == 16


def test_readme_sequence_log_is_legal():
    log = next(b for b in JSON_BLOCKS if b.get("game") == "sequence" and "turns" in b)
    result = verify_log(log, "README")
    assert result.valid and result.turns == 3


def test_readme_commands_are_real_commands(cli):
    for command in sorted(set(re.findall(r"^\$ paperplay (\w+)", DOCS, re.M))):
        assert cli(command, "--help").exit_code == 0, command


def test_readme_streetcar_state_is_legal():
    from paperplay.streetcar.referee import verify_state

    state = next(b for b in JSON_BLOCKS if b.get("game") == "streetcar" and "tiles" in b)
    result = verify_state(state, "README")
    assert result.valid and result.stop_signs == {"E": (5, 0), "L": (5, 3)}


def test_readme_streetcar_game_is_the_tiny_example_and_verifies():
    from paperplay.streetcar.referee import verify_log

    log = next(b for b in JSON_BLOCKS if b.get("game") == "streetcar" and "turns" in b)
    assert log == json.loads((Path(__file__).parent / "data" / "streetcar-tiny-game.json").read_text())
    result = verify_log(log, "README")
    assert result.valid and result.winner == "Ann" and result.turns == 13


def test_readme_route_examples_print_what_the_readme_shows(cli, monkeypatch):
    import shlex

    monkeypatch.chdir(ROOT)
    shown = re.findall(r"^\$ paperplay (route .*)\n((?:[^$`].*\n)+)", DOCS, re.M)
    assert len(shown) >= 2
    for command, output in shown:
        assert cli(*shlex.split(command)).stdout == output, command


def test_the_python_api_example_runs_from_a_clones_root(tmp_path):
    import shutil
    import subprocess
    import sys

    block = re.search(r"```python\n(.*?)```", text(ROOT / "docs" / "reference" / "python-api.md"), re.S)
    assert block is not None
    shutil.copytree(ROOT / "docs" / "examples", tmp_path / "docs" / "examples")
    done = subprocess.run([sys.executable, "-c", block.group(1)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    lines = done.stdout.splitlines()
    assert (done.returncode, done.stderr, lines[:3]) == (0, "", ["(11, 3, 5)", "docs/examples/ann.json True",
                                                                 "docs/examples/bob.json True"]), done.stderr
    assert lines[3:] == ["docs/examples/board.json True", "{'place': 1, 'player': 'Bob', 'total': 29}"]
    assert (tmp_path / "output" / "ann-bob-kit.pdf").read_bytes().startswith(b"%PDF")
