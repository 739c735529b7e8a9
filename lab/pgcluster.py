"""A throwaway PostgreSQL database for the benchmarks and the multi-process tests: a database of its own in the
cluster PAPERPLAY_TEST_POSTGRES names, or a cluster of its own made with the system's initdb in a temporary
folder (as the postgres user when run as root: initdb refuses root), stopped and deleted afterwards.

    with throwaway_database() as url:      # postgresql://postgres@127.0.0.1:PORT/paperplay_bench_…
        ...

Needs PostgreSQL's server programs (Debian: apt-get install postgresql) unless PAPERPLAY_TEST_POSTGRES is set,
and psycopg (the serve-pg extra).
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ENV = "PAPERPLAY_TEST_POSTGRES"


def server_programs() -> Path | None:
    """The folder of PostgreSQL's initdb and pg_ctl (Debian keeps them off PATH), or None."""
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    folders = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda f: int(f.split("/")[-2]), reverse=True)
    return next((Path(f) for f in folders if (Path(f) / "initdb").is_file()), None)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _as_postgres(command: list[str]) -> list[str]:
    """The command run as the postgres user when this process is root (initdb and postgres refuse root)."""
    if os.geteuid() != 0:
        return command
    import shlex

    return ["su", "postgres", "-s", "/bin/sh", "-c", shlex.join(command)]


@contextmanager
def own_cluster(max_connections: int = 300, settings: dict[str, str] | None = None) -> Iterator[str]:
    """A new cluster in a temporary folder, listening on 127.0.0.1 on a free port; yields its admin URL
    (user postgres, database postgres, no password) and stops and deletes it afterwards."""
    programs = server_programs()
    if programs is None:
        raise RuntimeError(f"PostgreSQL's server programs (initdb) are not installed: apt-get install postgresql, "
                           f"or set {ENV}=postgresql://USER@HOST:PORT/postgres")
    folder = Path(tempfile.mkdtemp(prefix="paperplay-pg-"))
    data = folder / "data"
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    port = _free_port()
    options = {"listen_addresses": "127.0.0.1", "max_connections": str(max_connections),
               "unix_socket_directories": str(folder), **(settings or {})}
    started = False
    try:
        subprocess.run(_as_postgres([str(programs / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust",
                                     "--no-sync", "-E", "UTF8", "--locale", "C"]), check=True, capture_output=True)
        flags = f"-p {port} " + " ".join(f"-c {name}={value}" for name, value in options.items())
        subprocess.run(_as_postgres([str(programs / "pg_ctl"), "-D", str(data), "-o", flags, "-l",
                                     str(folder / "log"), "-w", "-t", "60", "start"]), check=True,
                       capture_output=True)
        started = True
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    except subprocess.CalledProcessError as exc:
        log = (folder / "log").read_text(errors="replace")[-2000:] if (folder / "log").is_file() else ""
        raise RuntimeError(f"starting a PostgreSQL cluster: {exc.stderr.decode(errors='replace')[-2000:]} {log}") \
            from None
    finally:
        if started:
            subprocess.run(_as_postgres([str(programs / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w",
                                         "stop"]), capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


@contextmanager
def fresh_database(admin_url: str, prefix: str = "paperplay_bench") -> Iterator[str]:
    """A new, empty database in the cluster of `admin_url`; yields its URL, drops it afterwards (with whatever
    is still connected to it)."""
    import psycopg

    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield with_database(admin_url, name)
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def throwaway_database(prefix: str = "paperplay_bench") -> Iterator[str]:
    """A fresh database in PAPERPLAY_TEST_POSTGRES's cluster when set, else in a cluster of its own."""
    if os.environ.get(ENV):
        with fresh_database(os.environ[ENV], prefix) as url:
            yield url
        return
    with own_cluster() as admin, fresh_database(admin, prefix) as url:
        yield url
