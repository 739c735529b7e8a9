"""Shared fixtures: paths, a CLI runner, and a helper to run paperplay as a whole process."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from browser import find_chromium, launch
from paperplay.cli.app import app

DATA = Path(__file__).parent / "data"
NO_SKIPS = os.environ.get("PAPERPLAY_NO_SKIPS") == "1"
"""Set by .ci/run, which installs every extra and Debian package the tests use: a skip is a failure there."""


def has_modules(*names: str) -> bool:
    """Whether every module is installed (found, not imported)."""
    return all(importlib.util.find_spec(name) is not None for name in names)


SCAN_EXTRA = pytest.mark.skipif(not has_modules("numpy", "cv2", "zxingcpp"),
                                reason="needs the scan extra (pip install '.[scan]')")
"""For a test of paperplay scan that needs the scan extra (without it, scan says so first)."""


def _no_skip(report) -> None:
    if NO_SKIPS and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped, but PAPERPLAY_NO_SKIPS=1 (CI installs everything the tests need): {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """With PAPERPLAY_NO_SKIPS=1, a skipped test fails, saying why it was skipped (tests left out by -m
    are deselected, not skipped, and stay out)."""
    outcome = yield
    _no_skip(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    """... and so does a test module skipped as a whole (pytest.importorskip at its top)."""
    outcome = yield
    _no_skip(outcome.get_result())
DROP = object()
"""edited(document, path) with no value: the field at the end of the path is removed."""


def edited(document: object, path: tuple, value: object = DROP) -> object:
    """A deep copy of a JSON document with the value at `path` (keys and indexes) replaced, or removed."""
    import copy

    document = copy.deepcopy(document)
    node = document
    for key in path[:-1]:
        node = node[key]  # type: ignore[index]
    if value is DROP:
        del node[path[-1]]  # type: ignore[attr-defined]
    else:
        node[path[-1]] = value  # type: ignore[index]
    return document
SPEC_SHEET = {
    "game": "streams",
    "code": "P2QP-HGPH",
    "seed": "7KQ2-M9XD",
    "player": "Ann",
    "cells": [4, 3, 6, 5, 1, 7, 15, 11, 13, 15, 17, 16, 18, 8, 23, 20, 25, 27, 28, 24],
    "claimed_total": 16,
}


@pytest.fixture(autouse=True)
def english_locale(monkeypatch):
    """Kits print in the locale's language (paperplay.i18n.locale_lang): tests read English unless they ask."""
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")


@pytest.fixture
def cli():
    """Invokes the CLI in-process; returns the click Result (stdout, stderr, exit_code)."""
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None):
        return runner.invoke(app, list(args), input=input)

    return invoke


@pytest.fixture
def write_json(tmp_path):
    """Writes a JSON document to a file in tmp_path and returns its path."""

    def write(name: str, document: object) -> Path:
        path = tmp_path / name
        path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
        return path

    return write


def run_paperplay(*args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Runs ``python -m paperplay`` as a separate process."""
    return subprocess.run([sys.executable, "-m", "paperplay", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=timeout)


# Hypothesis profiles for the fuzz suite (tests/test_fuzz.py): the quick run is part of the default
# `pytest`; `pytest -m fuzz --hypothesis-profile=long tests/test_fuzz.py` runs 10,000 cases per format,
# and `--hypothesis-profile=medium` FUZZ_CASES of them (200 by default) for a shorter exploration.
from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile("medium", max_examples=int(os.environ.get("FUZZ_CASES", "200")), deadline=None,
                          database=None, suppress_health_check=list(HealthCheck))
settings.register_profile("long", max_examples=10_000, deadline=None, database=None,
                          suppress_health_check=list(HealthCheck))


# The browser tests' fixtures: one Chromium for the whole session, shared by every test module.
@pytest.fixture(scope="session")
def browser():
    """One Chromium for the whole test session."""
    executable = find_chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("needs the test extra's Playwright (pip install '.[test]')")
    if executable is None:
        if os.environ.get("CI"):
            pytest.fail("no Chromium: CI must install it (.ci/run installs chromium)")
        pytest.skip("needs Debian's chromium (apt-get install chromium)")
    with sync_playwright() as playwright:
        chromium = launch(playwright, executable)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    """A fresh tab in its own context (its own localStorage); fails the test on any console error."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    tab.on("pageerror", lambda error: errors.append(str(error)))
    yield tab
    context.close()
    assert errors == [], "the page logged errors (a CSP violation?)"


# PostgreSQL (the serve-pg extra): a database of the test session's own in the cluster PAPERPLAY_TEST_POSTGRES
# names (.ci/run starts a throwaway cluster and sets it), dropped at the end. A test gets a schema of its own in
# it (pg_fresh_url: migrations) or one migrated once and emptied before it (pg_clean_url): tests never see each
# other's games.
POSTGRES = "PAPERPLAY_TEST_POSTGRES"


@pytest.fixture(scope="session")
def pg_url():
    """The URL of a fresh database made for this test session (skips with one line without a cluster)."""
    admin = os.environ.get(POSTGRES)
    if not admin:
        pytest.skip(f"PostgreSQL: set {POSTGRES}=postgresql://USER@HOST:PORT/postgres (a cluster the tests may make "
                    "databases in; .ci/run starts one)")
    if not has_modules("psycopg", "psycopg_pool"):
        pytest.skip("PostgreSQL: needs the serve-pg extra (pip install '.[serve-pg]')")
    import psycopg

    from lab.pgcluster import fresh_database

    try:
        psycopg.connect(admin, connect_timeout=5).close()
    except psycopg.OperationalError as exc:
        pytest.skip(f"PostgreSQL: {POSTGRES} cannot be reached ({str(exc).strip().splitlines()[0]})")
    with fresh_database(admin, prefix=f"paperplay_test_{os.getpid()}") as url:
        yield url


@pytest.fixture
def pg_fresh_url(pg_url):
    """A URL of the session's database whose search_path is a new, empty schema: a database of the test's own
    (two stores opened on it are two servers on one database)."""
    import uuid
    from urllib.parse import quote

    import psycopg

    schema = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_url, autocommit=True) as connection:
        connection.execute(f'CREATE SCHEMA "{schema}"')
    joiner = "&" if "?" in pg_url else "?"
    return f"{pg_url}{joiner}options={quote(f'-c search_path={schema}')}"


@pytest.fixture(scope="session")
def _pg_shared_url(pg_url):
    """A schema of the session's database migrated once, for the tests that need no schema of their own."""
    from urllib.parse import quote

    import psycopg

    from paperplay.serve.store_pg import PgStore

    with psycopg.connect(pg_url, autocommit=True) as connection:
        connection.execute('CREATE SCHEMA IF NOT EXISTS "shared"')
    joiner = "&" if "?" in pg_url else "?"
    url = f"{pg_url}{joiner}options={quote('-c search_path=shared')}"
    PgStore(url, 2).close()  # migrated
    return url


@pytest.fixture
def pg_clean_url(_pg_shared_url):
    """A URL of a migrated schema with no games, players, sheets or photo jobs in it (emptied before the test:
    quicker than a new schema, which makes every table and the photo queue's anew)."""
    import psycopg

    with psycopg.connect(_pg_shared_url, autocommit=True) as connection:
        connection.execute("TRUNCATE games, procrastinate_jobs RESTART IDENTITY CASCADE")
    return _pg_shared_url


@pytest.fixture(params=["sqlite", "postgresql"])
def any_store(request, tmp_path):
    """An open Store of each kind (SqliteStore on a new file, PgStore on an emptied schema): the store contract's
    tests run against both."""
    if request.param == "sqlite":
        from paperplay.serve.store import SqliteStore

        store = SqliteStore(tmp_path / "games.db")
    else:
        url = request.getfixturevalue("pg_clean_url")
        from paperplay.serve.store import open_store

        store = open_store(url)
    yield store
    store.close()
