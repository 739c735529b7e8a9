"""paperplay.errors: the exit codes, and the verdict's code."""

from __future__ import annotations

import re
from pathlib import Path

from paperplay.errors import ExitCode, Problem

ROOT = Path(__file__).parent.parent


def test_the_exit_codes_page_lists_every_exit_code_and_no_other():
    page = (ROOT / "docs" / "reference" / "exit-codes.md").read_text(encoding="utf-8")
    table = page.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    listed = {int(n) for n in re.findall(r"\*\*(\d+)\*\*", table)}
    assert listed == {int(code) for code in ExitCode}


def test_a_verdict_is_valid_with_no_problem_and_breaks_a_rule_with_one():
    from paperplay.streetcar.referee import StateResult

    assert StateResult("s", 0, {}, ()).exit_code is ExitCode.VALID
    broken = StateResult("s", 1, {}, (Problem("streetcar/A", "a tile breaks rule A"),))
    assert broken.exit_code is ExitCode.RULE_BROKEN and broken.exit_code == 1
