"""Every console example in the README and on every page of the documentation site (docs/) runs as a
test and prints what the page shows.

Commands run in a fresh folder holding the files of docs/examples/ and tests/data/, as a reader
who copied them would. What varies from run to run is compared loosely: times (``0.11 s``),
sizes (``55 KB``), a rate column, and for a command without ``--seed`` the new seed and code.
On a page, ``…`` stands for any text within a line, and a line of just ``…`` for any lines. A block
shown on several pages runs once.
"""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from paperplay.cli.app import app
from docpages import PAGES, ROOT, name, text


def _blocks() -> dict[str, str]:
    """Every console block, once, by where it is first shown (page and block number)."""
    found: dict[str, str] = {}
    for page in PAGES:
        for i, block in enumerate(re.findall(r"```console\n(.*?)```", text(page), re.S)):
            if block not in found.values():
                found[f"{name(page)}:{i + 1}"] = block
    return found


BLOCKS = _blocks()


def _examples(block: str) -> list[tuple[str, list[str]]]:
    """The block's commands, each with the lines shown after it."""
    out: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            out.append((line[2:], []))
        elif out:
            out[-1][1].append(line)
    return out


def _normalise(lines: list[str], fresh_seed: bool) -> list[str]:
    out = []
    for line in lines:
        line = line.rstrip()
        if not line.strip():
            continue
        line = re.sub(r"\b\d+\.\d+ s\b", "<t> s", line)
        line = re.sub(r"\b\d+(?:\.\d+)? (KB|bytes)\b", r"<n> \1", line)
        if fresh_seed:
            line = re.sub(r"\b[2-9A-Z]{4}-[2-9A-Z]{4}-[2-9A-Z]{3}-[2-9A-Z]{3}\b", "<seed>", line)
            line = re.sub(r"\b[2-9A-Z]{4}-[2-9A-Z]{4}\b", "<code>", line)
            line = re.sub(r"-[2-9A-Z]{14}-", "-<seed>-", line)
        out.append(line)
    return out


def _pattern(expected: list[str]) -> re.Pattern[str]:
    parts = []
    for line in expected:
        if line.strip() == "…":
            parts.append(r"(?:.*\n)*?")
        else:
            pieces = line.split("…")
            parts.append(r"\s*.*".join(re.escape(piece.rstrip()) for piece in pieces[:-1])
                         + (r"\s*.*" if len(pieces) > 1 else "") + re.escape(pieces[-1]) + r"\n")
    return re.compile("".join(parts))


def _run(command: str, cwd: Path, last_code: int) -> tuple[str, int]:
    words = shlex.split(command)
    if words[0] == "echo" and words[1:] == ["$?"]:
        return f"{last_code}\n", 0
    assert words[0] != "cd", "examples run from the repository's root"
    if words[0] == "cat":
        return (cwd / words[1]).read_text(encoding="utf-8"), 0
    assert words[0] == "paperplay", f"a console example runs {words[0]!r}"
    result = CliRunner().invoke(app, words[1:], input="\n")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.stdout, result.exit_code


@pytest.fixture
def folder(tmp_path, monkeypatch):
    # As a clone's root holds them: every example names its files from there.
    shutil.copytree(ROOT / "docs" / "examples", tmp_path / "docs" / "examples")
    shutil.copytree(ROOT / "tests" / "data", tmp_path / "tests" / "data")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_readme_and_the_site_have_console_examples():
    assert sum(len(_examples(b)) for b in BLOCKS.values()) >= 30
    assert any(where.startswith("README.md:") for where in BLOCKS)


@pytest.mark.parametrize("block", BLOCKS.values(), ids=BLOCKS.keys())
def test_console_example(block, folder):
    code = 0
    for command, shown in _examples(block):
        output, code = _run(command, folder, code)
        fresh = "paperplay" in command and "--seed" not in command
        actual = "".join(line + "\n" for line in _normalise(output.splitlines(), fresh))
        expected = _normalise(shown, fresh)
        assert _pattern(expected).fullmatch(actual), f"$ {command}\n--- the page shows:\n" + "\n".join(shown) + \
            "\n--- it printed:\n" + output
