"""A game night server on the internet: the client's address behind trusted proxies, the limits on joins
and hand-ins from one client, and the public address that join links name.

**The client's address** (`client_of`) is the socket's peer, unless the peer is a trusted proxy
(`paperplay serve --trusted-proxy ADDRESS_OR_NETWORK`): then it is the right-most address of the
`X-Forwarded-For` header that is not a trusted proxy's. Each trusted proxy appends the address it
received the request from, so the entries to the right of the client's were written by proxies the
host trusts, and whatever the client wrote itself stays to the left, unread. An entry is a plain IPv4
or IPv6 address; a port (`203.0.113.7:5123`) and brackets (`[2001:db8::7]:443`) are taken off, as
RFC 7239 writes them. An entry that is not an address (garbage, `unknown`, an IPv6 zone `fe80::1%eth0`,
an empty one) ends the walk: the client is then the hop that handed the request on, the peer itself
with one proxy. A header from a peer that is not trusted is never read, and the RFC 7239 `Forwarded`
header is not read at all (one rule: the one every common proxy writes). At most MAX_HOPS entries and
MAX_HEADER characters from the right are read, so a huge header costs no more than a small one.

**Limits** (`Rate`) are "N/PERIOD" settings: N at once, then N a PERIOD (a token bucket a client,
paperplay.serve.web.Pace). An IPv6 client is counted by its /64 network (`counted_as`): one phone
holds a whole /64 and could otherwise take a fresh address for every request.

Only the standard library: the serve command checks its options with it before the web parts load.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from paperplay.errors import InputError
from paperplay.messages import printable

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address

MAX_HOPS = 20
"""Entries of X-Forwarded-For read from the right (a request crosses a few proxies, never 20)."""
MAX_HEADER = 2048
"""Characters of X-Forwarded-For read from the right."""


# --- the client's address ------------------------------------------------------------------------------

def trusted_proxies(values: Iterable[str]) -> tuple[Network, ...]:
    """The --trusted-proxy values: each an address (`127.0.0.1`, `::1`) or a network (`10.0.0.0/8`);
    an InputError naming the option otherwise."""
    out: list[Network] = []
    for value in values:
        text = value.strip()
        try:
            if "%" in text or not text:
                raise ValueError(text)
            out.append(ipaddress.ip_network(text, strict=False))
        except ValueError:
            raise InputError(f"is {printable(repr(value))}; expected the address of a proxy in front of this "
                             "server, e.g. 127.0.0.1, or a network, e.g. 10.0.0.0/8", field="trusted-proxy") from None
    return tuple(out)


def address(text: str) -> Address | None:
    """One X-Forwarded-For entry (or a peer's address) as an address: a port and brackets are taken off;
    None for anything else (an IPv6 zone too). An IPv4 address written as IPv6 (::ffff:a.b.c.d) is the
    IPv4 address."""
    text = text.strip()
    if not text or len(text) > 64 or "%" in text:
        return None
    if text.startswith("["):
        inside, bracket, rest = text[1:].partition("]")
        if not bracket or (rest and not re.fullmatch(r":\d{1,5}", rest)):
            return None
        text = inside
    elif text.count(":") == 1:  # an IPv4 address and its port
        text, _, port = text.partition(":")
        if not re.fullmatch(r"\d{1,5}", port):
            return None
    try:
        found = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(found, ipaddress.IPv6Address) and found.ipv4_mapped is not None:
        return found.ipv4_mapped
    return found


def client_of(peer: str, forwarded: Iterable[str], trusted: tuple[Network, ...]) -> str:
    """The client's address of a request from `peer` carrying the X-Forwarded-For header lines
    `forwarded` (read only when the peer is one of the `trusted` proxies): see the module's rule."""
    hop = address(peer)
    if hop is None:
        return peer
    if not trusted or not _trusted(hop, trusted):
        return str(hop)
    text = ",".join(forwarded)[-MAX_HEADER:]
    entries = text.rsplit(",", MAX_HOPS)[-MAX_HOPS:]
    for entry in reversed(entries):
        found = address(entry)
        if found is None:
            break  # not written by a trusted proxy: the hop that handed it on is the client
        hop = found
        if not _trusted(hop, trusted):
            break
    return str(hop)


def _trusted(found: Address, trusted: tuple[Network, ...]) -> bool:
    return any(found.version == network.version and found in network for network in trusted)


def is_trusted(peer: str, trusted: tuple[Network, ...]) -> bool:
    """Whether a peer's address is one of the trusted proxies'."""
    found = address(peer) if trusted else None
    return found is not None and _trusted(found, trusted)


def counted_as(client: str) -> str:
    """What a client is counted as by the limits: its address, or for IPv6 its /64 network."""
    found = address(client)
    if isinstance(found, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((int(found) >> 64 << 64, 64)))
    return client


# --- the limits --------------------------------------------------------------------------------------

_PERIODS = {"s": 1.0, "sec": 1.0, "second": 1.0, "min": 60.0, "minute": 60.0, "m": 60.0, "h": 3600.0,
            "hour": 3600.0}


@dataclass(frozen=True)
class Rate:
    """A limit: `count` at once, then `count` every `seconds` (written "600/h")."""

    count: int
    seconds: float
    text: str

    @property
    def per_second(self) -> float:
        return self.count / self.seconds

    def __str__(self) -> str:
        return self.text


def rate(text: str, option: str) -> Rate:
    """A limit written N/PERIOD (PERIOD s, min or h; N 1-1,000,000), e.g. 600/h; an InputError naming
    `option` otherwise."""
    match = re.fullmatch(r"\s*(\d{1,7})\s*/\s*([a-z]+)\s*", text.lower())
    count = int(match.group(1)) if match else 0
    if match is None or match.group(2) not in _PERIODS or not 1 <= count <= 1_000_000:
        raise InputError(f"is {printable(repr(text))}; expected N/PERIOD: N 1-1000000 at once, then N every "
                         "PERIOD (s, min or h), e.g. 600/h", field=option)
    return Rate(count, _PERIODS[match.group(2)], f"{count}/{match.group(2)}")


JOINS = "600/h"
"""Joins from one client by default: a room of 600 behind one address joins at once, then one every 6 s (a
script makes 14,400 a day, never 100,000)."""
HAND_INS = "1200/h"
"""Hand-ins (typed and photos, each try) from one client by default: a room's sheets and a second photo of
each, then one every 3 s."""


# --- the public address ---------------------------------------------------------------------------------

_HOST_NAME = re.compile(r"(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*\.?")


def is_host_name(name: str) -> bool:
    """Whether `name` is a DNS name (games.example.org, gamenight.local) or an IP address (IPv6 with or
    without brackets)."""
    plain = name.strip().lower()
    try:
        ipaddress.ip_address(plain.strip("[]"))
    except ValueError:
        return _HOST_NAME.fullmatch(plain) is not None
    return True


def public_url(text: str) -> str:
    """The --public-url value, checked: http or https, a host (a name or an address), an optional port,
    no path, query, fragment or user; written without a final slash. An InputError naming the option
    otherwise."""
    def bad(why: str) -> InputError:
        shown = re.sub(r"(?<=//)[^/?#]*@", "…@", text)  # a password is never printed
        return InputError(f"is {printable(repr(shown))}; {why}; expected the address players open, e.g. "
                          "https://games.example.org", field="public-url")

    value = text.strip()
    if len(value) > 300 or any(ord(c) < 33 or ord(c) == 127 for c in value):
        raise bad("it holds spaces or control characters" if len(value) <= 300 else "it is too long")
    try:
        parts = urlsplit(value)
        port = parts.port
    except ValueError:
        raise bad("its port is not a port 1-65535") from None
    if parts.scheme not in ("http", "https"):
        raise bad("it must start with https:// (or http://)")
    if not parts.hostname:
        raise bad("it names no host")
    if parts.username is not None or parts.password is not None:
        raise bad("it holds a user name or password")
    if parts.path not in ("", "/"):
        raise bad("it has a path; paperplay is served at the root of its own name")
    if parts.query or parts.fragment or value.endswith(("?", "#")):
        raise bad("it has a query or fragment")
    if port == 0:
        raise bad("its port is not a port 1-65535")
    if not is_host_name(parts.hostname):
        raise bad("its host is not a name or an address")
    return f"{parts.scheme}://{parts.netloc.lower()}"
