"""Text that a narrow screen may wrap, but never inside a name or a number with its unit.

A phone breaks lines at hyphens and at spaces: "sim-|judge", a job id at every "-", "100 |%",
"2,00 |s". Such pieces go into a no-wrap span; the text itself is unchanged (no U+2011 or
no-break space that a copied model name or number would carry along). touchstone.js has the
same rule (``wholeNodes``) for what the page's script writes.
"""

from __future__ import annotations

import re

from markupsafe import Markup, escape

# A hyphenated name or id ("sim-judge", "20261201-061555-31f9da", "95-%-Intervall"), or a
# number with its unit ("100 %", "2,00 s", "16.054 Tok/s").
WHOLE = re.compile(r"[\w.%/:]+(?:-[\w.%/:]+)+|\d[\d.,]*\s(?:%|s\b|ms\b|Tok/s)")


def keep_whole(text: object) -> Markup:
    """``text`` escaped, each piece ``WHOLE`` matches in a ``<span class="nowrap">``."""
    raw = "" if text is None else str(text)
    parts: list[str] = []
    last = 0
    for match in WHOLE.finditer(raw):
        parts.append(escape(raw[last : match.start()]))
        parts.append(Markup('<span class="nowrap">{}</span>').format(match.group(0)))
        last = match.end()
    parts.append(escape(raw[last:]))
    return Markup("").join(parts)
