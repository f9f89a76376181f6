"""Who a jury member is, and a verdict as one member's (never as the jury's)."""

from __future__ import annotations

import dataclasses
import ipaddress
import urllib.parse
from typing import NamedTuple

from touchstone.results import Verdict


class MemberId(NamedTuple):
    """A member as its verdict lines name it (``judge_model``, ``judge_base_url``)."""

    model: str
    base_url: str

    def __str__(self) -> str:
        return self.model


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
    mapped = getattr(address, "ipv4_mapped", None)
    return "loopback" if str(mapped or address) in _LOOPBACK_NAMES else str(address)


def same_server(url: str) -> tuple[str, ...]:
    """What ``url`` names, however it is written: scheme and host in any case, ``localhost``
    for 127.0.0.1 or ::1, the default port written or not, trailing slashes, credentials.
    Two members with the same model and this key are one judge (``JuryConfig``); another
    host, port, path or scheme is another server. (The verdict cache's key keeps the URL as
    configured, less a trailing slash: changing it would orphan existing cached verdicts.)"""
    parts = urllib.parse.urlsplit(url.strip())
    scheme = parts.scheme.lower()
    try:
        port = str(parts.port or _DEFAULT_PORTS.get(scheme, ""))
    except ValueError:  # no number: the call will say so; compared as written
        port = parts.netloc.rpartition(":")[2]
    return (scheme, _host(parts.hostname or ""), port, parts.path.rstrip("/"), parts.query)


def of_verdict(verdict: Verdict) -> MemberId:
    return MemberId(verdict.judge_model, verdict.judge_base_url)


def as_member(verdict: Verdict, member: MemberId) -> Verdict:
    """``verdict`` as the member's line of judgements.jsonl: marked ``jury``, named."""
    return dataclasses.replace(
        verdict, jury=True, judge_model=member.model, judge_base_url=member.base_url
    )
