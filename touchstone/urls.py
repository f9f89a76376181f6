"""Endpoint URLs as touchstone writes them down: without credentials."""

from __future__ import annotations

import urllib.parse


def without_credentials(url: str) -> str:
    """``url`` without ``user:password@``: what may be written to run.json, logs and jobs."""
    parts = urllib.parse.urlsplit(url)
    if "@" not in parts.netloc:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urllib.parse.urlunsplit(parts._replace(netloc=host))
