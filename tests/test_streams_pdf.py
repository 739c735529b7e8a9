"""Streams PDFs read back: pages and sizes, text, QR codes from rendered pages, what pages reveal."""

from __future__ import annotations

import pytest

from conftest import run_paperplay
from paperplay.render.model import QR, Text
from paperplay.render.pdf import render_bytes, write_pdf
from paperplay.streams.pages import kit_document, sheets_document
from paperplay.streams.rules import draw
from pdfcheck import page_sizes_mm, page_texts, qr_texts

SEED, CODE = "7KQ2M9XD", "P2QPHGPH"
DRAW_TEXT = "11,3,5,17,27,25,6,4,13,15,16,1,28,15,7,18,23,8,20,24"


@pytest.fixture(scope="module")
def sheets_pdf(tmp_path_factory):
    out = tmp_path_factory.mktemp("pdf") / "sheets.pdf"
    result = run_paperplay("sheets", "--players", "3", "--seed", "7kq2-m9xd", "--names", "Søren,Zoë,José",
                           "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert str(out) in result.stdout and "P2QP-HGPH" in result.stdout and "7KQ2-M9XD" in result.stdout
    return out


def test_one_landscape_a4_page_per_player(sheets_pdf):
    assert page_sizes_mm(sheets_pdf) == [(297.0, 210.0)] * 3


def test_letter_paper(tmp_path):
    out = tmp_path / "letter.pdf"
    assert (
        run_paperplay("sheets", "--players", "2", "--seed", SEED, "--paper", "letter", "--out", str(out)).returncode
        == 0
    )
    assert page_sizes_mm(out) == [(279.4, 215.9)] * 2


def test_sheet_text_has_title_names_code_and_table(sheets_pdf):
    texts = page_texts(sheets_pdf)
    for n, (text, name) in enumerate(zip(texts, ["Søren", "Zoë", "José"]), start=1):
        assert "Streams" in text and name in text
        assert "Game P2QP-HGPH" in text and f"sheet {n} of 3" in text
        assert "Scoring table" in text and "300" in text and "Series points" in text


def test_no_player_page_holds_the_seed_or_the_draw(sheets_pdf):
    for n, text in enumerate(page_texts(sheets_pdf)):
        assert SEED not in text.replace("-", "") and "7KQ2" not in text
        assert all(SEED not in q for q in qr_texts(sheets_pdf, n))


def test_qr_decoded_from_a_rendered_page_equals_the_payload(sheets_pdf):
    assert qr_texts(sheets_pdf, 0) == [f"PAPERPLAY/1 streams code={CODE} sheet=1/3"]
    assert qr_texts(sheets_pdf, 2) == [f"PAPERPLAY/1 streams code={CODE} sheet=3/3"]


def test_same_seed_and_options_give_identical_bytes(tmp_path):
    first, second = tmp_path / "a.pdf", tmp_path / "b.pdf"
    for out in (first, second):
        assert run_paperplay("sheets", "--players", "4", "--seed", SEED, "--out", str(out)).returncode == 0
    assert first.read_bytes() == second.read_bytes()
    third = tmp_path / "c.pdf"
    run_paperplay("sheets", "--players", "4", "--seed", "OTHER", "--out", str(third))
    assert third.read_bytes() != first.read_bytes()


def test_model_pages_for_players_reveal_only_the_code():
    doc = kit_document(SEED, CODE, draw(SEED), players=5)
    for page in doc.pages:
        everything = " ".join(doc.texts(page)).replace("-", "")
        if page.role == "player":
            assert SEED not in everything and DRAW_TEXT not in everything
            assert CODE in everything
        else:
            assert f"seed={SEED}" in everything and f"draw={DRAW_TEXT}" in everything


def test_kit_has_caller_sheet_tiles_and_sheets(tmp_path):
    out = tmp_path / "kit.pdf"
    result = run_paperplay("kit", "streams", "--players", "2", "--seed", SEED, "--out", str(out))
    assert result.returncode == 0, result.stderr
    texts = page_texts(out)
    assert len(texts) == 4
    assert "caller's sheet" in texts[0] and "Seed 7KQ2-M9XD" in texts[0]
    assert "paperplay call streams --seed 7KQ2-M9XD calls them on screen" in " ".join(texts[0].split())
    assert qr_texts(out, 0) == [f"PAPERPLAY/1 streams seed={SEED} draw={DRAW_TEXT}"]
    assert "Streams tiles" in texts[1] and "Print at 100% / actual size" in texts[1]
    assert qr_texts(out, 1) == [f"PAPERPLAY/1 streams code={CODE} page=tiles"]
    assert all("Seed" not in t for t in texts[1:])


def test_tiles_page_has_the_forty_tiles_of_the_bag():
    doc = kit_document(SEED, CODE, draw(SEED), players=1)
    tiles = doc.pages[1]
    numbers = [int(i.text) for i in tiles.items if isinstance(i, Text) and i.size == 26]
    assert sorted(numbers) == sorted([*range(1, 31), *range(11, 20)])


def test_wild_in_the_draw_prints_as_star(tmp_path):
    out = tmp_path / "kit.pdf"
    run_paperplay("kit", "streams", "--players", "1", "--seed", "1", "--out", str(out))
    assert ",*," in qr_texts(out, 0)[0]


def test_default_output_path_and_no_overwrite_without_force(tmp_path):
    result = run_paperplay("sheets", "--players", "1", "--seed", SEED, cwd=tmp_path)
    assert result.returncode == 0
    target = tmp_path / "output" / f"streams-{SEED}-sheets.pdf"
    before = target.read_bytes()
    again = run_paperplay("sheets", "--players", "2", "--seed", SEED, cwd=tmp_path)
    assert again.returncode == 2 and "already exists" in again.stderr
    assert target.read_bytes() == before
    forced = run_paperplay("sheets", "--players", "2", "--seed", SEED, "--force", cwd=tmp_path)
    assert forced.returncode == 0 and target.read_bytes() != before


def test_unwritable_output_folder_is_an_input_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    result = run_paperplay("sheets", "--players", "1", "--out", str(blocker / "x.pdf"))
    assert result.returncode == 2 and result.stderr == (f"paperplay: error: {blocker}: is not a folder, so the "
                                                        "output x.pdf cannot go in it; give another path\n")
    assert "Traceback" not in result.stderr


def test_a_crash_mid_write_leaves_no_file(tmp_path, monkeypatch):
    import os

    target = tmp_path / "out.pdf"

    def broken_replace(*args, **kwargs):
        raise KeyboardInterrupt  # e.g. Ctrl-C between writing and renaming

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(KeyboardInterrupt):
        write_pdf(sheets_document(CODE, 2), target)
    assert list(tmp_path.iterdir()) == []


def test_every_player_page_has_one_vector_qr_and_shares_the_form():
    doc = sheets_document(CODE, 6)
    assert len(doc.forms) == 1
    for page in doc.pages:
        assert sum(isinstance(i, QR) for i in page.items) == 1
    data = render_bytes(doc)
    assert b"/Subtype /Image" not in data  # vector paths, no raster image
    assert data.count(b"/Subtype /Form") == 1  # drawn once, reused


def test_written_files_get_the_usual_permissions(tmp_path):
    import os
    import stat

    umask = os.umask(0o022)
    try:
        target = tmp_path / "out.pdf"
        write_pdf(sheets_document(CODE, 1), target)
        assert stat.S_IMODE(target.stat().st_mode) == 0o644  # readable by others, as a normal new file
    finally:
        os.umask(umask)
