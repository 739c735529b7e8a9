"""paperplay serve on the internet (paperplay.serve.internet): the client's address behind trusted proxies and
hostile X-Forwarded-For headers, the limits on joins and hand-ins from one client (429 too_many with
Retry-After), --public-url, --trusted-proxy and the limits' options, through a real uvicorn run as the
serve command runs it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from paperplay.errors import InputError
from paperplay.serve.internet import client_of, counted_as, public_url, rate, trusted_proxies

ROOT = Path(__file__).resolve().parents[1]
LOCAL = trusted_proxies(["127.0.0.1"])
SEED = "7KQ2-M9XD"


# --- the client's address --------------------------------------------------------------------------

def test_a_header_from_a_peer_that_is_not_trusted_is_never_read():
    assert client_of("198.51.100.4", ["203.0.113.9"], ()) == "198.51.100.4"
    assert client_of("198.51.100.4", ["203.0.113.9"], LOCAL) == "198.51.100.4"
    assert client_of("127.0.0.1", ["203.0.113.9"], trusted_proxies(["10.0.0.0/8"])) == "127.0.0.1"


def test_through_a_trusted_proxy_the_client_is_the_right_most_address_that_is_not_a_proxys():
    assert client_of("127.0.0.1", ["203.0.113.9"], LOCAL) == "203.0.113.9"
    # what the client wrote itself stays to the left, unread
    assert client_of("127.0.0.1", ["1.1.1.1, 127.0.0.1, 203.0.113.9"], LOCAL) == "203.0.113.9"
    chain = trusted_proxies(["127.0.0.1", "10.0.0.0/8"])
    assert client_of("127.0.0.1", ["6.6.6.6, 203.0.113.9, 10.0.0.7, 10.1.2.3"], chain) == "203.0.113.9"
    assert client_of("127.0.0.1", ["6.6.6.6, 203.0.113.9", "10.0.0.7"], chain) == "203.0.113.9"  # two header lines
    assert client_of("127.0.0.1", ["10.0.0.7"], chain) == "10.0.0.7"  # every hop trusted: the first
    assert client_of("::1", ["2001:db8::7"], trusted_proxies(["::1"])) == "2001:db8::7"
    assert client_of("127.0.0.1", ["::ffff:203.0.113.9"], LOCAL) == "203.0.113.9"
    # a port and brackets are taken off (RFC 7239's way of writing a node)
    assert client_of("127.0.0.1", ["203.0.113.9:5123"], LOCAL) == "203.0.113.9"
    assert client_of("127.0.0.1", ["[2001:db8::7]:443"], LOCAL) == "2001:db8::7"
    assert client_of("127.0.0.1", ["[2001:DB8::7]"], LOCAL) == "2001:db8::7"


@pytest.mark.parametrize("header", [
    "garbage", "unknown", "", " , ", "fe80::1%eth0", "[fe80::1%25eth0]:80", "[2001:db8::7", "[2001:db8::7]x",
    "203.0.113.9:99999999", "203.0.113.9:port", "203.0.113.9/24", "999.1.1.1", "0x7f.1", "2001:db8::7:80:1:2:3:4",
    "\u0661\u0662\u0663.1.1.1", "203.0.113.9\x00", "a" * 100_000, "1.2.3.4 5.6.7.8", "_hidden", "[]", "[]:80",
])
def test_a_hostile_or_malformed_entry_is_never_the_client(header):
    """What a trusted proxy hands on that is not an address: the proxy (the hop that handed it on) is the client."""
    assert client_of("127.0.0.1", [header], LOCAL) == "127.0.0.1"
    assert client_of("127.0.0.1", [f"{header}, 203.0.113.9"], LOCAL) == "203.0.113.9"  # left of the client: unread


def test_a_huge_header_or_many_hops_cost_no_more_than_a_small_one_and_cannot_hide_the_client():
    import time

    many = ", ".join(f"10.0.{i // 250}.{i % 250}" for i in range(20_000))
    started = time.perf_counter()
    assert client_of("127.0.0.1", [f"{many}, 203.0.113.9"], LOCAL) == "203.0.113.9"
    assert client_of("127.0.0.1", ["x" * 1_000_000 + ", 203.0.113.9"], LOCAL) == "203.0.113.9"
    everything = trusted_proxies(["0.0.0.0/0"])  # every hop trusted: the walk stops after MAX_HOPS
    assert client_of("127.0.0.1", [many], everything).startswith("10.0.")
    assert time.perf_counter() - started < 0.5


def test_an_ipv6_client_is_counted_by_its_64_network():
    assert counted_as("2001:db8:1:2:aaaa::1") == counted_as("2001:db8:1:2:bbbb::9") == "2001:db8:1:2::/64"
    assert counted_as("2001:db8:1:3::1") != counted_as("2001:db8:1:2::1")
    assert counted_as("203.0.113.9") == "203.0.113.9"


def test_the_buckets_stay_bounded_when_many_clients_keep_theirs_half_used():
    pytest.importorskip("starlette", reason="paperplay serve needs the serve extra (pip install '.[serve]')")
    from paperplay.serve.web import Pace

    pace = Pace(burst=5, per_second=0.001, kept=10)  # nobody's bucket fills again during the test
    assert all(pace.take(f"203.0.113.{i}") == 0.0 for i in range(200))
    assert len(pace._buckets) <= 10
    assert pace.take("203.0.113.199") == 0.0 and pace.take("203.0.113.199") == 0.0  # the latest are kept
    for _ in range(3):
        pace.take("203.0.113.199")
    assert pace.take("203.0.113.199") > 0  # its 5 are used: it waits


# --- the options -----------------------------------------------------------------------------------

def test_trusted_proxies_are_addresses_or_networks():
    assert [str(n) for n in trusted_proxies(["127.0.0.1", "10.0.0.0/8", "::1", "192.168.1.7/24"])] == [
        "127.0.0.1/32", "10.0.0.0/8", "::1/128", "192.168.1.0/24"]
    for bad in ("", "localhost", "10.0.0.0/33", "fe80::1%eth0", "1.2.3.4.5", "*"):
        with pytest.raises(InputError) as caught:
            trusted_proxies([bad])
        assert caught.value.field == "trusted-proxy" and "expected the address of a proxy" in str(caught.value)


def test_limits_are_n_a_period():
    assert (rate("600/h", "x").count, rate("600/h", "x").seconds) == (600, 3600.0)
    assert rate("5/s", "x").per_second == 5.0 and rate(" 30 / MIN ", "x").seconds == 60.0
    for bad in ("600", "0/h", "-5/h", "600/day", "1e3/h", "5.5/s", "²/h", "/h", "99999999/h", "600/h/h"):
        with pytest.raises(InputError) as caught:
            rate(bad, "limit-joins")
        assert caught.value.field == "limit-joins" and "expected N/PERIOD" in str(caught.value)


def test_the_public_url_is_an_address_players_open():
    assert public_url("https://games.example.org") == "https://games.example.org"
    assert public_url("https://Games.Example.org/") == "https://games.example.org"
    assert public_url("http://203.0.113.9:8080") == "http://203.0.113.9:8080"
    assert public_url("https://[2001:db8::7]:8443") == "https://[2001:db8::7]:8443"
    cases = {
        "games.example.org": "must start with https://", "ftp://games.example.org": "must start with https://",
        "https://": "names no host", "https://:443": "names no host",
        "https://games.example.org/night": "has a path", "https://games.example.org?x=1": "query or fragment",
        "https://games.example.org/#top": "query or fragment", "https://games.example.org?": "query or fragment",
        "https://user:secret@games.example.org": "user name or password",
        "https://games.example.org:99999": "not a port", "https://games.example.org:0": "not a port",
        "https://games example.org": "spaces or control", "https://games.exa\tmple.org": "spaces or control",
        "https://ga_mes.example.org": "not a name", "https://" + "a" * 400: "too long",
    }
    for bad, why in cases.items():
        with pytest.raises(InputError) as caught:
            public_url(bad)
        assert caught.value.field == "public-url" and why in str(caught.value), (bad, str(caught.value))
        assert "\n" not in str(caught.value) and "secret" not in str(caught.value)


def test_bad_options_of_the_internet_are_one_line_and_exit_2(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cases = [
        (["--trusted-proxy", "proxy.local"], "paperplay: error: --trusted-proxy: is 'proxy.local'; expected the "
                                              "address of a proxy"),
        (["--trusted-proxy", "127.0.0.1", "--trusted-proxy", "10.0.0.0/99"], "paperplay: error: --trusted-proxy: "
                                                                            "is '10.0.0.0/99'"),
        (["--public-url", "games.example.org"], "paperplay: error: --public-url: is 'games.example.org'; it must "
                                                 "start with https://"),
        (["--public-url", "https://games.example.org/x?y"], "paperplay: error: --public-url: is "
                                                             "'https://games.example.org/x?y'; it has a path"),
        (["--limit-joins", "lots"], "paperplay: error: --limit-joins: is 'lots'; expected N/PERIOD"),
        (["--limit-hand-ins", "0/min"], "paperplay: error: --limit-hand-ins: is '0/min'; expected N/PERIOD"),
    ]
    for args, message in cases:
        result = subprocess.run([sys.executable, "-m", "paperplay", "serve", "--db", str(tmp_path / "g.db"), *args],
                                capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60)
        assert result.returncode == 2, (args, result.stderr)
        assert result.stderr.startswith(message) and result.stderr.count("\n") == 1, (args, result.stderr)
        assert result.stdout == ""
    assert not (tmp_path / "g.db").exists()  # refused before anything is opened


# --- through uvicorn, as paperplay serve runs it ------------------------------------------------------

pytest.importorskip("starlette", reason="paperplay serve needs the serve extra (pip install '.[serve]')")
pytest.importorskip("uvicorn", reason="paperplay serve needs the serve extra (pip install '.[serve]')")

from lab.loadtest import Client  # noqa: E402
from test_serve_api import Running  # noqa: E402


class Edge(Running):
    """A server in this process, its uvicorn set up by the serve command's own uvicorn_config."""

    def __init__(self, db: Path, proxies: tuple[str, ...] = (), joins: str = "600/h", hand_ins: str = "1200/h",
                 public: str | None = None) -> None:
        import uvicorn

        from lab.loadtest import wait_until_up
        from paperplay.cli.serve_cmds import uvicorn_config
        from paperplay.serve.app import Server, build_app
        from paperplay.serve.guard import Door, Hosts
        from paperplay.serve.photos import PhotoReader
        from paperplay.serve.store import SqliteStore
        from paperplay.serve.web import paced

        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.base = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.store = SqliteStore(db)
        networks = trusted_proxies(proxies)
        door = Door(Hosts(["games.example.org"] if public else []), public_url=public or "", proxies=networks)
        self.server = Server(self.store, PhotoReader(1, 8), public or self.base, door=door,
                             joins=paced(rate(joins, "x")), hand_ins=paced(rate(hand_ins, "x")))
        self.uvicorn = uvicorn.Server(uvicorn_config(build_app(self.server), networks))
        self.thread = threading.Thread(target=self.uvicorn.run, kwargs={"sockets": [self.sock]}, daemon=True)
        self.thread.start()
        wait_until_up(self.base, workers=False)
        self.client = Client(self.base, self.store.host_key())


@pytest.fixture
def edge(tmp_path, request):
    server = Edge(tmp_path / "games.db", **getattr(request, "param", {}))
    yield server
    server.stop()


def new_game(client: Client, players: int = 50) -> str:
    answer = client.post("/api/games", {"players": players, "seed": SEED}, host=True)
    assert answer.status == 201, answer.body
    return str(answer.json()["code"])


def join(client: Client, code: str, name: str, forwarded: str | None = None, host: bool = False):
    headers = {"X-Forwarded-For": forwarded} if forwarded is not None else {}
    return client.post(f"/api/games/{code}/players", {"name": name}, headers=headers, host=host)


@pytest.mark.parametrize("edge", [{"proxies": ("127.0.0.1",), "joins": "2/h", "hand_ins": "1/h"}], indirect=True)
def test_through_a_trusted_proxy_two_clients_are_limited_separately_with_retry_after(edge):
    client = edge.client
    code = new_game(client)
    assert [join(client, code, f"a{i}", "203.0.113.9").status for i in range(2)] == [201, 201]
    refused = join(client, code, "a3", "203.0.113.9")
    assert refused.status == 429 and refused.json()["code"] == "too_many"
    assert 1 <= int(refused.headers["retry-after"]) <= 1800
    assert "203.0.113.9" in refused.json()["error"] and "\n" not in refused.json()["error"]
    assert join(client, code, "b1", "198.51.100.4").status == 201  # another client: its own bucket
    assert join(client, code, "c1", "6.6.6.6, 198.51.100.5").status == 201  # the spoofed left part is unread
    assert join(client, code, "c2", "203.0.113.9, 198.51.100.5").status == 201
    assert join(client, code, "c3", "203.0.113.9, 198.51.100.5").status == 429
    # IPv6: one /64 is one client
    assert join(client, code, "d1", "2001:db8:1:2::1").status == 201
    assert join(client, code, "d2", "2001:db8:1:2::2").status == 201
    assert join(client, code, "d3", "2001:db8:1:2:ffff::3").status == 429
    # the host is never limited, through the proxy or not
    assert [join(client, code, f"h{i}", "203.0.113.9", host=True).status for i in range(3)] == [201] * 3
    # hand-ins have their own limit (the refusal comes before anything else is looked at)
    for turn in range(20):
        assert client.post(f"/api/games/{code}/call", host=True).status == 200
    from paperplay.streams.rules import draw, tile_json
    from paperplay.seeds import canonical_seed

    tiles = [tile_json(t) for t in draw(canonical_seed(SEED))]
    first = client.post(f"/api/games/{code}/sheets", {"name": "Zed", "cells": tiles},
                        headers={"X-Forwarded-For": "192.0.2.1", "Idempotency-Key": "zed-sheet-1"})
    assert first.status == 201
    retry = client.post(f"/api/games/{code}/sheets", {"name": "Zed", "cells": tiles},
                        headers={"X-Forwarded-For": "192.0.2.1", "Idempotency-Key": "zed-sheet-1"})
    assert retry.status == 200  # a retry that finds its sheet is not counted
    second = client.post(f"/api/games/{code}/sheets", {"name": "Yan", "cells": tiles},
                         headers={"X-Forwarded-For": "192.0.2.1"})
    assert second.status == 429 and second.json()["code"] == "too_many" and "retry-after" in second.headers
    photo = client.request("POST", f"/api/games/{code}/sheets", body=b"--x--\r\n",
                           headers={"X-Forwarded-For": "192.0.2.1", "Content-Type": "multipart/form-data; boundary=x"})
    assert photo.status == 429 and photo.json()["code"] == "too_many"


@pytest.mark.parametrize("edge", [{"joins": "1/h"}], indirect=True)
def test_a_spoofed_header_from_a_peer_that_is_not_trusted_is_ignored_and_uvicorn_does_not_read_it(edge):
    """Without --trusted-proxy the header is nobody's word: every request here is 127.0.0.1's (this computer's
    own, not limited), whatever it says; uvicorn's own proxy headers (which trust 127.0.0.1) are off, else the
    second join would be limited as 203.0.113.9's."""
    import logging

    lines: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: lines.append(record.getMessage())  # type: ignore[method-assign]
    logging.getLogger("uvicorn.error").addHandler(handler)
    try:
        client = edge.client
        code = new_game(client)
        statuses = [join(client, code, f"p{i}", "203.0.113.9").status for i in range(4)]
    finally:
        logging.getLogger("uvicorn.error").removeHandler(handler)
    assert statuses == [201] * 4
    told = [line for line in lines if "carry X-Forwarded-For, but no --trusted-proxy is given" in line]
    assert len(told) == 1, lines  # the host is told once how to fix it


@pytest.mark.parametrize("edge", [{"proxies": ("127.0.0.1",), "joins": "1/h"}], indirect=True)
def test_hostile_forwarded_headers_get_a_clear_answer_never_a_5xx(edge):
    client = edge.client
    code = new_game(client)
    hostile = ["garbage", "fe80::1%eth0", "[::1]:80", "203.0.113.9:99999", ", , ,", "1.2.3.4, " * 500 + "x",
               "\u00ff\u00fe", "unknown", "[2001:db8::1"]
    for index, header in enumerate(hostile):
        answer = join(client, code, f"x{index}", header)
        assert answer.status in (201, 429), (header, answer.status, answer.body)
    huge = join(client, code, "y", "9.9.9.9, " * 4000 + "203.0.113.77")
    assert huge.status == 201 and join(client, code, "y2", "203.0.113.77").status == 429
    assert client.get("/api/health").status == 200


@pytest.mark.parametrize("edge", [{"public": "https://games.example.org"}], indirect=True)
def test_the_public_url_names_join_links_and_qr_codes_and_its_host_is_the_servers(edge):
    client = edge.client
    created = client.post("/api/games", {"players": 4, "seed": SEED}, host=True).json()
    code = created["code"]
    assert created["join_url"] == f"https://games.example.org/join/{code}"
    assert created["projector_url"].startswith(f"https://games.example.org/projector/{code}?view=")
    assert client.get(f"/api/games/{code}").json()["join_url"] == f"https://games.example.org/join/{code}"
    from paperplay.serve.routes.files import _qr_svg

    svg = client.get(f"/api/games/{code}/join.svg")
    assert svg.status == 200 and svg.body == _qr_svg(f"https://games.example.org/join/{code}")
    proxied = client.get(f"/join/{code}", headers={"Host": "games.example.org"})
    assert proxied.status == 200  # a proxy passing the public Host on: the server's own name
    other = client.get(f"/join/{code}", headers={"Host": "evil.example.net"})
    assert other.status == 421 and other.json()["code"] == "wrong_host"
    page = client.get(f"/projector/{code}?view={created['projector_url'].split('view=')[1]}").body.decode()
    assert f">games.example.org/join/{code}<" in page  # the address under the QR code, as people type it
    assert "127.0.0.1" not in page
    # the server's own redirects keep the public address's scheme (https behind the proxy), not http
    slash = client.get(f"/join/{code}/", headers={"Host": "games.example.org"})
    assert slash.status == 307 and slash.headers["location"] == f"https://games.example.org/join/{code}"
    local = client.get(f"/join/{code}/")
    assert local.status == 307 and local.headers["location"].startswith("http://127.0.0.1:")


# --- a name hidden from the projector --------------------------------------------------------------

def _tiles() -> list:
    from paperplay.seeds import canonical_seed
    from paperplay.streams.rules import draw, tile_json

    return [tile_json(t) for t in draw(canonical_seed(SEED))]


def test_the_host_hides_a_name_from_the_projector_and_the_phones_and_can_undo(edge):
    client = edge.client
    created = client.post("/api/games", {"players": 4, "seed": SEED, "lang": "da"}, host=True).json()
    code, view = created["code"], created["projector_url"].split("view=")[1]
    ann = join(client, code, "Lewd Ann").json()
    join(client, code, "Bob")
    hidden = client.request("PATCH", f"/api/games/{code}/players/{ann['id']}", json_body={"hidden": True}, host=True)
    assert hidden.status == 200 and hidden.json() == {"id": ann["id"], "hidden": True}
    public = client.get(f"/api/games/{code}")
    assert b"Lewd Ann" not in public.body
    roster = {p["id"]: p for p in public.json()["roster"]}
    assert roster[ann["id"]]["name"] == "skjult navn" and roster[ann["id"]]["hidden"] is True  # the game's language
    assert client.get(f"/api/games/{code}?view={view}").body == public.body  # the projector's
    host = {p["id"]: p for p in client.get(f"/api/games/{code}", host=True).json()["roster"]}
    assert host[ann["id"]]["name"] == "Lewd Ann" and host[ann["id"]]["hidden"] is True  # the host sees it, marked
    listed = client.get("/api/games", host=True).json()["games"][0]
    assert "Lewd Ann" in listed["players_names"]
    # she hands in: her sheet is hidden with her; her own phone still sees her name
    for _ in range(20):
        client.post(f"/api/games/{code}/call", host=True)
    sheet = client.post(f"/api/games/{code}/sheets", {"cells": _tiles()},
                        headers={"X-Paperplay-Token": ann["token"]}).json()
    assert sheet["name"] == "Lewd Ann" and sheet["hidden"] is True
    own = client.get(f"/api/games/{code}/sheets/{sheet['id']}", headers={"X-Paperplay-Token": ann["token"]})
    assert own.json()["name"] == "Lewd Ann"
    public = client.get(f"/api/games/{code}")
    assert b"Lewd Ann" not in public.body and public.json()["handed_in"][0]["name"] == "skjult navn"
    assert client.post(f"/api/games/{code}/reveal", {"force": True}, host=True).status == 200
    for path in (f"/api/games/{code}/results", f"/api/games/{code}/results.html",
                 f"/api/games/{code}/sheets?view={view}"):
        answer = client.get(path)
        assert answer.status == 200 and b"Lewd Ann" not in answer.body and "skjult navn" in answer.body.decode(), path
    assert b"Lewd Ann" in client.get(f"/api/games/{code}/results", host=True).body
    # undone: the name shows again everywhere
    shown = client.request("PATCH", f"/api/games/{code}/players/{ann['id']}", json_body={"hidden": False}, host=True)
    assert shown.status == 200 and shown.json()["hidden"] is False
    assert b"Lewd Ann" in client.get(f"/api/games/{code}").body
    assert b"Lewd Ann" in client.get(f"/api/games/{code}/results").body


def test_a_sheet_handed_in_by_name_alone_is_hidden_on_the_sheet(edge):
    client = edge.client
    code = new_game(client, players=3)
    for _ in range(20):
        client.post(f"/api/games/{code}/call", host=True)
    sheet = client.typed(code, "Rude Name", _tiles()).json()
    path = f"/api/games/{code}/sheets/{sheet['id']}"
    answer = client.request("PATCH", path, json_body={"hidden": True}, host=True)
    assert answer.status == 200 and answer.json()["hidden"] is True and answer.json()["name"] == "Rude Name"
    public = client.get(f"/api/games/{code}")
    assert b"Rude Name" not in public.body and public.json()["roster"][0]["name"] == "hidden name"
    # renamed and shown again at once
    both = client.request("PATCH", path, json_body={"name": "Ruth", "hidden": False}, host=True)
    assert both.status == 200 and (both.json()["name"], both.json()["hidden"]) == ("Ruth", False)
    assert client.get(f"/api/games/{code}").json()["roster"][0]["name"] == "Ruth"


def test_hiding_a_name_is_the_hosts_and_bad_bodies_get_one_line(edge):
    client = edge.client
    code = new_game(client)
    ann = join(client, code, "Ann").json()
    path = f"/api/games/{code}/players/{ann['id']}"
    cases = [
        ({}, False, 401, "key_missing"),
        ({"hidden": True}, False, 401, "key_missing"),
        ({"hidden": "yes"}, True, 400, "bad_input"),
        ({"hidden": None}, True, 400, "bad_input"),
        ({"hidden": 1}, True, 400, "bad_input"),
        ({"hidden": True, "name": "x"}, True, 400, "unknown_field"),
    ]
    for body, host, status, code_ in cases:
        answer = client.request("PATCH", path, json_body=body, host=host)
        assert (answer.status, answer.json()["code"]) == (status, code_), (body, answer.body)
    assert client.request("PATCH", path, json_body={"hidden": True}, headers={"X-Paperplay-Token": ann["token"]},
                          ).status == 401  # a player cannot hide (or show) a name, not even their own
    missing = client.request("PATCH", f"/api/games/{code}/players/99999", json_body={"hidden": True}, host=True)
    assert (missing.status, missing.json()["code"]) == (404, "no_player")
    assert client.request("PATCH", f"/api/games/{code}/players/x", json_body={"hidden": True},
                          host=True).json()["code"] == "bad_number"
    sheets = client.request("PATCH", f"/api/games/{code}/sheets/12345", json_body={"hidden": True}, host=True)
    assert (sheets.status, sheets.json()["code"]) == (404, "no_sheet")
    assert b"Ann" in client.get(f"/api/games/{code}").body  # nothing was hidden by any of them


def test_the_serve_command_wires_the_proxy_the_public_url_and_the_limits(tmp_path):
    """paperplay serve itself, behind a proxy on this computer: its links name the public address, and each phone
    the proxy reports is limited on its own."""
    import re
    import signal

    from lab.loadtest import wait_until_up

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-m", "paperplay", "serve", "--port", "0", "--workers", "1",
                                "--db", str(tmp_path / "g.db"), "--public-url", "https://games.example.org",
                                "--trusted-proxy", "127.0.0.1", "--limit-joins", "2/h"],
                               cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        first = process.stdout.readline().decode()
        assert first.startswith("Host page: https://games.example.org/host?key="), first
        key = first.split("key=")[1].strip()
        lines = [process.stdout.readline().decode() for _ in range(2)]
        local = re.findall(r"passes it on to (http://\S+), where this server listens", "".join(lines))[0]
        wait_until_up(local, workers=False)
        client = Client(local, key)
        created = client.post("/api/games", {"players": 8, "seed": SEED}, host=True).json()
        assert created["join_url"].startswith("https://games.example.org/join/")
        code = created["code"]
        assert [join(client, code, f"n{i}", "203.0.113.9").status for i in range(3)] == [201, 201, 429]
        assert join(client, code, "other", "198.51.100.1").status == 201
        assert client.get(f"/join/{code}", headers={"Host": "games.example.org"}).status == 200
    finally:
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=20)
    assert process.returncode == 130 and "Traceback" not in err.decode(), err


# --- a database URL's password is never printed -------------------------------------------------------

def test_a_password_in_a_url_or_a_connection_string_is_written_as_stars():
    from paperplay.messages import without_passwords

    cases = {
        "postgresql://ann:hunter2@db.example.org:5432/night": "postgresql://ann:***@db.example.org:5432/night",
        "postgres://a:p@ss@h/db?sslmode=require": "postgres://a:***@h/db?sslmode=require",
        "postgresql://:hunter2@h/db": "postgresql://:***@h/db",
        "postgresql:/ann:hunter2@h/db": "postgresql:/ann:***@h/db",  # as a file path writes the URL
        "postgresql://h/db?password=hunter2&sslmode=require": "postgresql://h/db?password=***&sslmode=require",
        "host=db password=hunter2 user=ann": "host=db password=*** user=ann",
        "host=db password='hun ter2' user=ann": "host=db password=*** user=ann",
        "failed at postgresql://u:hunter2@h/db: refused": "failed at postgresql://u:***@h/db: refused",
    }
    for given, shown in cases.items():
        assert without_passwords(given) == shown
    for plain in ("postgresql://ann@db.example.org/night", "postgresql:///gamenight", "friday.db",
                  "https://games.example.org:8443/join/7KQ2-M9XD", "http://[::1]:8000/host?key=abc"):
        assert without_passwords(plain) == plain


@pytest.mark.parametrize("args", [
    ["worker", "--db", "mysql://ann:hunter2secret@db.example.org/night"],
    ["worker", "--db", "postgresql://ann:hunter2secret@127.0.0.1:1/night"],
    ["worker", "--db", "postgresql://ann:hunter2secret@127.0.0.1:1/night?sslmode=bogus"],
    ["serve", "--port", "0", "--db", "postgresql://ann:hunter2secret@127.0.0.1:1/night"],
    ["serve", "--port", "0", "--db", "postgres://ann:hunter2secret@127.0.0.1:1/night", "--workers", "99"],
])
def test_a_database_urls_password_is_never_printed(tmp_path, args):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-m", "paperplay", *args], capture_output=True, text=True,
                            cwd=tmp_path, env=env, timeout=60)
    assert result.returncode != 0 and "hunter2secret" not in result.stdout + result.stderr, result
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1, result.stderr
    help_text = subprocess.run([sys.executable, "-m", "paperplay", args[0], "--help"], capture_output=True, text=True,
                               cwd=tmp_path, env=env, timeout=60).stdout
    assert "password is never printed" in help_text or args[0] == "serve"
