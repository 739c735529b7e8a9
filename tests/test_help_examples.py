"""Every example in every command's --help runs as written, from a copy of docs/examples (the
inputs of the documentation's examples), and ends in 0."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest
import typer

from paperplay.cli.app import app

EXAMPLES = Path(__file__).parent.parent / "docs" / "examples"
SLOW = ("montecarlo",)
"""Examples that play hundreds of Monte Carlo games (minutes on CI): run with -m slow."""
NEEDS_PHOTOS = ("paperplay scan ",)
RUN_UNTIL_STOPPED = ("paperplay serve", "paperplay worker")
"""Examples that serve until Ctrl-C: tests/test_serve_process.py runs each and stops it (a worker's need a
PostgreSQL server: the photo worker tests run one)."""


def help_examples() -> list[tuple[str, str]]:
    group = typer.main.get_command(app)
    found = []
    helps = [("paperplay", group.help or "")] + [(name, command.help or "")
                                                 for name, command in group.commands.items()]  # type: ignore[attr-defined]
    for name, text in helps:
        for line in text.splitlines():
            match = re.match(r"\s*(?:Examples?:\s*)?(paperplay \S.*?)(?:\s{2,}\(.*)?$", line)
            if match and not match.group(1).endswith("."):
                found.append((name, match.group(1)))
    return found


CASES = [pytest.param(example, id=f"{name}: {example[10:60]}",
                      marks=[pytest.mark.slow] if any(s in example for s in SLOW) else [])
         for name, example in help_examples() if not example.startswith(NEEDS_PHOTOS + RUN_UNTIL_STOPPED)]


def test_every_command_shows_an_example():
    named = {name for name, _ in help_examples()}
    assert named == {"paperplay", *typer.main.get_command(app).commands}  # type: ignore[attr-defined]


@pytest.mark.parametrize("example", CASES)
def test_a_help_example_runs_as_written(tmp_path, monkeypatch, cli, example):
    """In-process (as the shell would call it: its words, a `> FILE` written from standard output)."""
    folder = tmp_path / "examples"
    shutil.copytree(EXAMPLES, folder)
    monkeypatch.chdir(folder)
    words = shlex.split(example)[1:]
    into = None
    if ">" in words:
        words, into = words[:words.index(">")], words[words.index(">") + 1]
    result = cli(*words, input="q\n")
    assert result.exit_code == 0, (example, result.stdout[-500:], result.stderr[-500:])
    if into is not None:
        (folder / into).write_text(result.stdout)
        assert (folder / into).stat().st_size > 100


def test_help_shows_each_example_on_one_line_to_copy(cli):
    """A wrapped example cannot be copied from the terminal (Click rewraps help text at 80 columns):
    each is shown whole on a line of its own, with nothing after it but the command."""
    shown = {"paperplay": cli("--help").stdout}
    for name in typer.main.get_command(app).commands:  # type: ignore[attr-defined]
        shown[name] = cli(name, "--help").stdout
    for name, example in help_examples():
        lines = [line.strip() for line in shown[name].splitlines()]
        assert example in lines, (name, example)
        assert len(shlex.split(example)) > 1
