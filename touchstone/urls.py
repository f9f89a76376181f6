"""Endpoint URLs: the schemes an endpoint may have (``scheme_problem``), as touchstone writes
them down (without credentials), and the server a URL names however it is written
(``same_server``)."""

from __future__ import annotations

import ipaddress
import urllib.parse

SCHEMES = ("http", "https")
SCHEME_NEEDED = "braucht http:// oder https://"


def scheme_problem(url: str) -> str:
    """Why ``url`` cannot be an endpoint (German, after the name of its flag or field), or ""
    when it starts with ``http://`` or ``https://`` and names a host. ``localhost:1234/v1``
    would otherwise reach the SDK as a relative path and fail as "keine Verbindung" on every
    call; ``ftp://`` is no HTTP server."""
    parts = urllib.parse.urlsplit(url.strip())
    if parts.scheme.lower() in SCHEMES and parts.hostname:
        return ""
    shown = without_credentials(url).rpartition("@")[2]  # never a password in a message
    return f"{SCHEME_NEEDED} (z. B. http://localhost:1234/v1), ist aber „{shown[:80]}“"


def without_credentials(url: str) -> str:
    """``url`` without ``user:password@``: what may be written to run.json, logs and jobs."""
    parts = urllib.parse.urlsplit(url)
    if "@" not in parts.netloc:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urllib.parse.urlunsplit(parts._replace(netloc=host))


def recorded_url(url: str) -> str:
    """``url`` as run.json records the endpoint of a model: without credentials, query and
    fragment (a proxy may take its key as ``?key=``; the SDK could not call such a URL anyway)."""
    parts = urllib.parse.urlsplit(without_credentials(url))
    return urllib.parse.urlunsplit(parts._replace(query="", fragment=""))


# Names every machine gives itself; an address is loopback when ``ipaddress`` says so.
_LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
_DEFAULT_PORTS = {"http": "80", "https": "443"}


def _host(name: str) -> str:
    name = name.rstrip(".")
    if name in _LOOPBACK_NAMES or name.endswith(".localhost"):
        return "loopback"
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return name
    mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
    return "loopback" if str(mapped or address) in _LOOPBACK_NAMES else str(address)


def same_server(url: str) -> tuple[str, ...]:
    """What ``url`` names, however it is written: scheme and host in any case, ``localhost``
    for 127.0.0.1 or ::1, the default port written or not, trailing slashes, credentials.
    Two jury members with the same model and this key are one judge (``jury/config.py``); another
    host, port, path or scheme is another server. (The verdict cache's key keeps the URL as
    configured, less a trailing slash: changing it would orphan existing cached verdicts.)"""
    parts = urllib.parse.urlsplit(url.strip())
    scheme = parts.scheme.lower()
    try:
        port = str(parts.port or _DEFAULT_PORTS.get(scheme, ""))
    except ValueError:  # no number: the call will say so; compared as written
        port = parts.netloc.rpartition(":")[2]
    return (scheme, _host(parts.hostname or ""), port, parts.path.rstrip("/"), parts.query)
