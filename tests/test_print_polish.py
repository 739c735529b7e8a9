"""The print-polish fixes of the kit pages, checked on the page models."""

from __future__ import annotations

from paperplay.render.model import Line, Text
from paperplay.sequence.pages import board_drawing, reads_otherwise_turned, underlines
from paperplay.sequence.rules import make_board, number_set


def test_numbers_that_read_otherwise_upside_down():
    assert [n for n in range(1, 100) if reads_otherwise_turned(str(n))] == [
        6, 9, 16, 18, 19, 61, 66, 68, 81, 86, 89, 91, 98, 99]
    assert not reads_otherwise_turned("8") and not reads_otherwise_turned("10") and not reads_otherwise_turned("69")


def test_sequence_board_underlines_6_9_and_18_81():
    board = make_board("7KQ2M9XD", number_set("times-tables"))
    items = board_drawing(board, 18.0)
    numbers = [i for i in items if isinstance(i, Text) and i.text.isdigit() and i.size > 10]
    lines = [i for i in items if isinstance(i, Line)]
    turned = [t for t in numbers if reads_otherwise_turned(t.text)]
    assert turned and len(lines) == len(turned)
    for text in turned:  # each line sits just under its own number
        assert any(abs(line.y1 - text.y) < 1.5 and abs((line.x1 + line.x2) / 2 - text.x) < 0.5 for line in lines)


def test_equation_underlines_only_the_turnable_numbers():
    lines = underlines(Text(30, 40, "6 × 9 + 18", size=14, bold=True, align="center"))
    assert len(lines) == 3 and lines[0].x2 < lines[1].x1 < lines[2].x1
    assert underlines(Text(30, 40, "7 × 8", size=14)) == []
