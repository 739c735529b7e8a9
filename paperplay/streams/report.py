"""Text lines for a refereed Streams sheet, shared by score and verify."""

from __future__ import annotations

from paperplay.messages import shown_name
from paperplay.seeds import display_code
from paperplay.streams.sheet import SheetResult


def result_lines(result: SheetResult) -> list[str]:
    """Describes a sheet's verdict in a few lines a player understands."""
    who = f" ({shown_name(result.sheet.player)})" if result.sheet.player else ""
    against = {
        "seed": f"checked against the draw of seed {display_code(result.seed or '')}",
        "draw": "checked against the recorded draw",
        "bag": "checked against the bag only (no seed or draw given)",
    }[result.checked_against]
    verdict = "valid" if result.valid else "NOT VALID"
    rules = result.sheet.rules
    variant = "" if rules.standard else f" (variant {rules.name})"
    lines = [f"{result.sheet.source}{who}: {result.score.total} points{variant}, {verdict}; {against}"]
    if result.score.series:
        parts = [f"{s.start}-{s.end} ({s.length}) {s.points}" for s in result.score.series]
        lines.append("  series (boxes, length, points): " + " · ".join(parts))
    else:
        lines.append("  no series of 2 or more boxes")
    if result.singles:
        lines.append(f"  single boxes (in no series): {result.singles} × {rules.points[1]} = {result.singles_points}")
    if result.score.wild_value is not None:
        lines.append(f"  the wild counts as {result.score.wild_value}")
    for problem in result.problems:
        lines.append(f"  x {problem.rule}: {problem.message}")
    return lines
