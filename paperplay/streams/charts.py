"""The strategy lab's chart: score distributions of several strategies as a page model."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from paperplay.render.model import Document, Line, Page, Rect, Text, paper_size
from paperplay.streams.lab import Summary

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")


def score_axis(summaries: Sequence[Summary]) -> tuple[int, int, int]:
    """The axis (cap, bin width, tick step): 0-150+ in bins of 5 while nearly every game scores less
    (the published game), else 30 bins of a round width (1, 2 or 5 times a power of ten) that reach the
    95th percentile of all the scores (a variant's big points table), a tick every 5 bins."""
    scores = sorted(s for summary in summaries for s in summary.scores)
    high = scores[int(0.95 * (len(scores) - 1))] if scores else 0
    if high <= 150:
        return 150, 5, 25
    width = next(m * 10 ** k for k in range(20) for m in (1, 2, 5) if 30 * m * 10 ** k >= high)
    return 30 * width, width, 5 * width


def histogram_page(summaries: Sequence[Summary], title: str) -> Page:
    """One histogram per strategy, stacked on the same score axis (A4 landscape), means marked."""
    cap, bin_width, tick_step = score_axis(summaries)
    width, height = paper_size("a4", landscape=True)
    left, right, top = 28.0, width - 12.0, 24.0
    bins = cap // bin_width + 1  # the last bin holds everything from `cap` up
    panel = min(40.0, (height - top - 22) / max(1, len(summaries)))
    height = min(height, top + panel * len(summaries) + 16)  # no empty half page for a few strategies
    items: list[Any] = [Text(left, 14, title, size=13, bold=True)]
    scale = (right - left) / bins
    for row, summary in enumerate(summaries):
        y0 = top + row * panel
        base = y0 + panel - 8
        counts = [0] * bins
        for s in summary.scores:
            counts[min(bins - 1, s // bin_width)] += 1
        tallest = max(counts) or 1
        colour = COLOURS[row % len(COLOURS)]
        for i, n in enumerate(counts):
            if n:
                h = (panel - 14) * n / tallest
                items.append(Rect(left + i * scale + 0.3, base - h, scale - 0.6, h, stroke=0, fill=colour))
        items.append(Line(left, base, right, base, width=0.6, color="#444444"))
        mean_x = left + min(summary.mean, cap + bin_width) / bin_width * scale
        items.append(Line(mean_x, y0 + 6, mean_x, base, width=0.8, color="#000000"))
        label = (f"{summary.name}: mean {summary.mean:.1f} ± {summary.stderr:.1f}, median {summary.median:g}, "
                 f"10th-90th {summary.percentile(10):g}-{summary.percentile(90):g}, {summary.games} games")
        items.append(Text(left, y0 + 4, label, size=8.5, bold=True, color=colour))
        for tick in range(0, cap + 1, tick_step):
            x = left + tick / bin_width * scale
            items.append(Line(x, base, x, base + 1.2, width=0.4, color="#444444"))
            items.append(Text(x, base + 4.2, f"{tick}+" if tick == cap else str(tick), size=6, align="center",
                              color="#444444"))
    items.append(Text(left, height - 8, f"Final score, bins of {bin_width}; the line marks the mean.", size=7,
                      color="#444444"))
    return Page(width, height, tuple(items), "player", "score distributions")


def histogram_document(summaries: Sequence[Summary], title: str) -> Document:
    return Document(title=title, pages=(histogram_page(summaries, title),))
