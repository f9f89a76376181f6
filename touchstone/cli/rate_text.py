"""A pack's text as the terminal's ``rate`` shows it: paragraphs, not the pack's line breaks.

A pack's author wraps a task at their editor's width (``text: |`` keeps each break); the
terminal wraps again at its own width, and the two together make ragged text: "…zusammen
und" / "liste" / "…". ``paragraphs`` joins the lines the author only wrapped and keeps the
breaks they meant: a blank line (a new paragraph), a list item ("- ", "• ", "a) ", "1. ",
"(1) "), a table row ("| …"), and a line after which the next line's first word would still
have fitted with room to spare (an invoice's rows, a letter's "Betreff:" line). ``prose``
renders the result with a list item's wrapped lines indented under its text, as ``bullets``
does.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from touchstone.plain import plain

JOIN_FROM = 0.85
_ITEM = re.compile(r"(?:[-*•–]|\(?\d{1,3}[.)]|\(?[a-z][)]|\(\d{1,3}\))\s+")


def _is_row(line: str) -> bool:
    return line.lstrip().startswith("|")


def _joins(previous: str, line: str, width: int) -> bool:
    """Whether ``line`` only continues ``previous``: the author's editor wrapped it."""
    if not previous or _is_row(previous) or _is_row(line) or _ITEM.match(line.lstrip()):
        return False
    # Authors wrap at "about" a width: a break where the next word would have fitted with
    # room to spare (beyond the last 15 % of the longest line) was meant.
    first = line.split(maxsplit=1)[0]
    return len(previous) + 1 + len(first) > width * JOIN_FROM


def paragraphs(text: str) -> list[str]:
    """The blocks of ``text``: paragraphs and list items joined to one line each, table rows
    and deliberate breaks kept, "" for a blank line between paragraphs."""
    lines = [line.rstrip() for line in text.strip().splitlines()]
    width = max((len(line) for line in lines), default=0)
    blocks: list[str] = []
    previous = ""  # the source line before, which decides whether the next one joins it
    for line in lines:
        if not line.strip():
            if blocks and blocks[-1] != "":
                blocks.append("")
            previous = ""
            continue
        if blocks and _joins(previous, line, width):
            blocks[-1] = f"{blocks[-1]} {line.strip()}"
        else:
            blocks.append(line)
        previous = line
    return blocks


def bullets(items: Iterable[str], marker: str = "•") -> Table:
    """Items with a hanging indent: a wrapped item's lines start under its text."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True)
    grid.add_column()
    for item in items:
        grid.add_row(f"  {marker}", plain(item))
    return grid


def prose(text: str) -> RenderableType:
    """``text`` as paragraphs; list items with a hanging indent."""
    parts: list[RenderableType] = []
    for block in paragraphs(text):
        found = _ITEM.match(block)
        if found and not _is_row(block):
            grid = Table.grid(padding=(0, 1))
            grid.add_column(no_wrap=True)
            grid.add_column()
            grid.add_row(plain(found.group().rstrip()), plain(block[found.end() :]))
            parts.append(grid)
        else:
            parts.append(plain(block) if block else Text(""))
    return Group(*parts)
