"""The dry-run estimate of the GUI's run and judge forms (design.md §9, §12): what ``--dry-run``
would print, before "starten", as JSON the page shows.

The figures come from the preview the CLI's ``--dry-run`` uses (``stages.preview``): the same
plan, nothing called, nothing written; the lines name the form's fields where the CLI's name its
options (``FORM_WORDING``).
"""

from __future__ import annotations

from typing import Any

from touchstone.gui.cost_fields import PRICE_FIELD
from touchstone.stages.preview.estimate import HEADER, Preview, Wording
from touchstone.stages.preview.jury_calls import JuryPreview

# The run form's fields, where ``--dry-run`` names the CLI's options.
FORM_WORDING = Wording(
    max_tokens="max_tokens", concurrency="Parallele Aufrufe: {}", price=PRICE_FIELD
)


def estimate_json(preview: Preview | JuryPreview) -> dict[str, Any]:
    """``lines``: the German lines of ``--dry-run`` (without its header: the page says that
    nothing is started); ``calls``; for one model or judge ``cost`` (None without a price),
    ``budget`` and ``fits`` (None without a budget or a cost); ``price_needed`` when a cost
    cannot be estimated for want of a price."""
    if isinstance(preview, JuryPreview):
        lines = [line for line in preview.lines() if line != HEADER]
        unpriced = any(m.preview.price is None for m in preview.members)
        return {
            "lines": lines,
            "calls": preview.calls,
            "price_needed": unpriced and preview.calls > 0,
        }
    cost = preview.cost if preview.calls else 0.0
    fits = None
    if preview.budget is not None and cost is not None:
        fits = cost <= preview.budget and not preview.output_unknown
    return {
        "lines": [line for line in preview.lines() if line != HEADER],
        "calls": preview.calls,
        "input_tokens": preview.input_tokens,
        "output_tokens": preview.output_tokens,
        "cost": cost,
        "budget": preview.budget,
        "fits": fits,
        "price_needed": preview.price is None and preview.calls > 0,
    }
