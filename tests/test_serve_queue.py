"""Photo workers (paperplay.serve.queue, `paperplay worker`): a photo handed in to a PostgreSQL game is
committed with its job and answered 202, read by a worker, stored once; refused photos free their place;
a worker that dies mid-photo loses nothing. The laptop evening (SQLite) reads photos in the server."""

from __future__ import annotations

import pytest


# --- the command --------------------------------------------------------------------------------------

def test_a_worker_on_a_sqlite_file_is_refused_in_one_line(cli, tmp_path):
    for db in (str(tmp_path / "games.db"), "games.db", "sqlite:///games.db", ""):
        result = cli("worker", "--db", db)
        assert result.exit_code == 2, (db, result.output)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("paperplay: error: --db: is "), lines
        assert "photo workers need a PostgreSQL database" in lines[0]
        assert "the laptop evening reads photos in the server" in lines[0]
    assert not (tmp_path / "games.db").exists()  # nothing made


@pytest.mark.parametrize("given", ["0", "65", "-1", "two"])
def test_a_worker_concurrency_out_of_bounds_is_refused(cli, given):
    result = cli("worker", "--db", "postgresql://paperplay:SECRET@127.0.0.1:1/games", "--concurrency", given)
    assert result.exit_code == 2, result.output
    assert "--concurrency" in result.stderr and "SECRET" not in result.output + result.stderr


def test_a_worker_needs_its_database(cli):
    result = cli("worker")
    assert result.exit_code == 2 and "--db" in result.stderr and "SECRET" not in result.stderr


def test_the_worker_help_says_how_to_run_one(cli):
    result = cli("worker", "--help")
    assert result.exit_code == 0
    assert "paperplay worker --db postgresql://" in result.stdout and "--concurrency" in result.stdout
