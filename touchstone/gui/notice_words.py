"""Small words of the GUI's job notices (``job_notice``, ``judge_notice``)."""

from __future__ import annotations

import urllib.parse

from touchstone.german import counted


def quoted(names: list[str]) -> str:
    return " oder ".join(f"„{name}“" for name in names)


def cells(count: int) -> str:
    return counted(count, "Zelle", "Zellen")


def host_of(base_url: str) -> str:
    """The host name of ``base_url`` (the URL itself when it names none)."""
    return urllib.parse.urlsplit(base_url).hostname or base_url
