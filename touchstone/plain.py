"""Text from outside as the terminal shows it: plain (design.md §15).

Names, rationales, paths and server messages come from run dirs and servers that nobody here
controls. Rich reads ``[...]`` in a string as markup (``good[/]`` raises, ``mistral[q4]`` loses
its ``[q4]``) and hands ESC to the terminal, where a model name or a 404 message could clear
the screen, set the window title or redraw the scorecard. ``plain`` makes such text a
``rich.text.Text`` (never read as markup) with each control character written out as an escape:
visible, and two names that differ only in one stay two names.
"""

from __future__ import annotations

import re

from rich.style import Style
from rich.text import Text

# C0 but newline and tab, DEL, C1, the bidi controls (they reorder what follows them on the
# screen) and lone surrogates (JSON can carry them; no terminal encoding can).
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def clean(text: str) -> str:
    """``text`` with every control character written out (``\\x1b``); newline and tab stay."""
    return _UNSAFE.sub(_escape, text)


def plain(text: str, style: str | Style = "") -> Text:
    """``text`` for rich: no markup read, control characters written out."""
    return Text(clean(text), style=style)
