"""The comparisons of one chosen row, paged: the run page of a run with many rows.

Beyond ``report.MATRIX_ROWS`` ranked rows the run page shows each row against its neighbours
in the ranking, not the matrix of every pair (r² cells). A reader who wants one row against
all others asks for them here, a page at a time; pairs the scorecard does not keep are
computed for the page asked (or, with a filter, for the row: r comparisons, not r²).
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import HTTPException
from pydantic import BaseModel, ConfigDict, Field

from touchstone.gui.queries import MAX_PAGE, PAGE_SIZE
from touchstone.scorecard.build import Scorecard, ScoreRow
from touchstone.scorecard.compare import Comparison


class ComparisonQuery(BaseModel):
    """A row (model, variant), which comparisons of it (``better``), and the page."""

    model_config = ConfigDict(extra="forbid")

    model: str = Field(max_length=500)
    variant: str = Field(max_length=500)
    # "a": the row is better, "b": the other row is, "none": not distinguishable.
    better: Literal["a", "b", "none"] | None = None
    offset: int = Field(default=0, ge=0)
    limit: int = Field(default=PAGE_SIZE, ge=1, le=MAX_PAGE)

    def keeps(self, found: Comparison | None) -> bool:
        if self.better is None:
            return True
        if found is None:
            return False
        return found.better == (None if self.better == "none" else self.better)


def _item(row: ScoreRow, other: ScoreRow, found: Comparison | None) -> dict[str, Any]:
    if found is None:
        item: dict[str, Any] = {
            "a": list(row.pair),
            "b": list(other.pair),
            "diff": None,
            "ci_low": None,
            "ci_high": None,
            "n_prompts": 0,
            "better": None,
        }
    else:
        item = found.as_dict()
    item["b_rank"] = other.rank
    item["b_mean"] = None if other.mean is None else round(other.mean, 4)
    return item


def comparison_page(card: Scorecard, query: ComparisonQuery) -> dict[str, Any]:
    """The chosen row against every other ranked row, in rank order, one page of them."""
    pair = (query.model, query.variant)
    ranked = card.ranked
    row = next((r for r in ranked if r.pair == pair), None)
    if row is None:
        raise HTTPException(404, f"Keine Zeile mit Rang: {query.model} · {query.variant}")
    others = [r for r in ranked if r is not row]
    end = query.offset + query.limit
    if query.better is None:
        total = len(others)
        page = [(other, card.comparison(pair, other.pair)) for other in others[query.offset : end]]
    else:
        found = [(other, card.comparison(pair, other.pair)) for other in others]
        kept = [(other, c) for other, c in found if query.keeps(c)]
        total, page = len(kept), kept[query.offset : end]
    return {
        "row": list(pair),
        "rank": row.rank,
        "total": total,
        "offset": query.offset,
        "limit": query.limit,
        "items": [_item(row, other, c) for other, c in page],
    }
