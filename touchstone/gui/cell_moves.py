"""The compare page's "Zelle für Zelle" (design.md §19): the cells that moved most between
two runs, filtered by row and category, a page at a time, each with both answers and both
verdicts; the same list as JSON and as CSV.

A cell is one prompt of one matched row, its repeats averaged as the row's interval pairs
them (``versus.moved``). The list is computed whole (one pass over the compared cells, as
the comparison itself); answers and verdicts are looked up only for the page shown: a run
of 100,000 cells opens 20 of them, not all.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Annotated, Any, Literal
from urllib.parse import urlencode

from fastapi import APIRouter, HTTPException, Query
from fastapi.responses import Response, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from touchstone.gui.cache import LoadedRun
from touchstone.gui.queries import MAX_PAGE
from touchstone.gui.views import Gui
from touchstone.results import unscored_label
from touchstone.stages.view import RunView
from touchstone.store.exports import table_csv_lines
from touchstone.versus import compare_runs
from touchstone.versus.build import RunComparison
from touchstone.versus.moved import MovedCell, Order, moved_cells

CELL_PAGE = 20
# A difference this small is no move (a mean of repeats is a float).
_STILL = 1e-9

CSV_COLUMNS = (
    "Modell",
    "Variante",
    "Modell (Baseline)",
    "Prompt",
    "Kategorie",
    "Kategorie (Titel)",
    "Wertung vorher",
    "Wertung jetzt",
    "Differenz",
    "Bewertungen vorher",
    "Bewertungen jetzt",
)


class CellQuery(BaseModel):
    """The list's filters, order and page, as the compare page keeps them in its URL (with
    the pairings of renamed models, ``pair=NEU=ALT``)."""

    model_config = ConfigDict(extra="forbid")

    pair: list[str] = Field(default_factory=list)
    model: str = Field(default="", max_length=500)
    variant: str = Field(default="", max_length=500)
    category: str = Field(default="", max_length=500)
    # "moved": only cells whose score changed; "all": the unchanged ones too.
    show: Literal["moved", "all"] = "moved"
    order: Order = "drop"
    offset: int = Field(default=0, ge=0)
    limit: int = Field(default=CELL_PAGE, ge=1, le=MAX_PAGE)

    def keeps(self, cell: MovedCell) -> bool:
        model, variant = cell.new_pair
        if self.model and model != self.model:
            return False
        if self.variant and variant != self.variant:
            return False
        if self.category and cell.category != self.category:
            return False
        return self.show == "all" or abs(cell.diff) > _STILL

    def problem(self, comparison: RunComparison) -> str:
        """Why a filter names nothing the comparison has (a typed URL), or ""."""
        rows = [row.new.pair for row in comparison.rows]
        for value, known, what in (
            (self.model, {m for m, _ in rows}, "Modell"),
            (self.variant, {v for _, v in rows}, "Variante"),
            (self.category, set(comparison.categories), "Kategorie"),
        ):
            if value and value not in known:
                return (
                    f"Filter {what} „{value}“: kommt in keiner verglichenen Zeile vor; zur Wahl "
                    f"stehen {', '.join(sorted(known)) or '–'}."
                )
        return ""

    def url(self, base: str, **changed: object) -> str:
        """``base`` with this query, ``changed`` applied; defaults left out."""
        defaults = CellQuery().model_dump()
        fields = {**self.model_dump(), **changed}
        kept = {k: v for k, v in fields.items() if v != defaults[k]}
        return base + ("?" + urlencode(kept, doseq=True) if kept else "")


def compared(gui: Gui, name: str, baseline: str, pairs: Sequence[str]) -> RunComparison:
    """The comparison of run ``name`` against ``baseline`` (bad input: an ``InputError``
    in the GUI's words)."""
    new_run, old_run = gui.loaded(name), gui.loaded(baseline)
    return compare_runs(new_run.view, old_run.view, pairs, surface="gui")


def selected(comparison: RunComparison, query: CellQuery) -> list[MovedCell]:
    return [cell for cell in moved_cells(comparison, query.order) if query.keeps(cell)]


Key = tuple[str, str, str]  # model, variant, prompt id


def _repeats(view: RunView, keys: set[Key]) -> dict[Key, list[dict[str, Any]]]:
    """The repeats of the cells ``keys`` in one run, answer and verdict each (score, red
    flag, rationale): one pass over the run's records for the whole page."""
    answers = {r.key: r for r in view.responses if (r.model, r.variant, r.prompt_id) in keys}
    found: dict[Key, list[dict[str, Any]]] = {key: [] for key in keys}
    for v in view.verdicts:
        key = (v.model, v.variant, v.prompt_id)
        if key not in keys:
            continue
        answer = answers.get(v.key)
        found[key].append(
            {
                "repeat": v.repeat,
                "score": None if v.unscored else v.score,
                "unscored_label": unscored_label(v) if v.unscored else "",
                "red_flag": v.red_flag,
                "safety_critical": v.safety_critical,
                "rationale": v.rationale,
                "judge_model": v.judge_model,
                "answer": answer.response_text if answer else "",
                "answer_error": answer.error if answer else "",
            }
        )
    for items in found.values():
        items.sort(key=lambda item: int(item["repeat"]))
    return found


def _items(
    cells: Sequence[MovedCell], comparison: RunComparison, new: RunView, old: RunView
) -> list[dict[str, Any]]:
    now = _repeats(new, {(*cell.new_pair, cell.prompt_id) for cell in cells})
    then = _repeats(old, {(*cell.baseline_pair, cell.prompt_id) for cell in cells})
    pack = new.pack
    return [
        {
            "new": list(cell.new_pair),
            "baseline": list(cell.baseline_pair),
            "prompt_id": cell.prompt_id,
            "prompt_text": pack.prompt(cell.prompt_id).text
            if pack.has_prompt(cell.prompt_id)
            else "",
            "category": cell.category,
            "category_title": comparison.categories.get(cell.category, cell.category),
            "before": round(cell.before, 4),
            "after": round(cell.after, 4),
            "diff": round(cell.diff, 4),
            "before_cells": cell.before_cells,
            "after_cells": cell.after_cells,
            "then": then[(*cell.baseline_pair, cell.prompt_id)],
            "now": now[(*cell.new_pair, cell.prompt_id)],
        }
        for cell in cells
    ]


def cell_page(
    comparison: RunComparison, new: LoadedRun, old: LoadedRun, query: CellQuery
) -> dict[str, Any]:
    """One page of the cells the filters keep, in order; answers and verdicts for it only.
    A filter naming nothing the comparison has is a 422 naming it."""
    problem = query.problem(comparison)
    if problem:
        raise HTTPException(422, problem)
    every = moved_cells(comparison, query.order)
    kept = [cell for cell in every if query.keeps(cell)]
    page = kept[query.offset : query.offset + query.limit]
    return {
        "total": len(kept),
        "compared": len(every),
        "unchanged": sum(1 for cell in every if abs(cell.diff) <= _STILL),
        "offset": query.offset,
        "limit": query.limit,
        "order": query.order,
        "repeats": "mean_per_prompt",
        "items": _items(page, comparison, new.view, old.view),
    }


def cell_csv_lines(comparison: RunComparison, cells: Sequence[MovedCell]) -> Iterator[str]:
    return table_csv_lines(
        CSV_COLUMNS,
        (
            (
                *cell.new_pair,
                cell.baseline_pair[0],
                cell.prompt_id,
                cell.category,
                comparison.categories.get(cell.category, cell.category),
                cell.before,
                cell.after,
                cell.diff,
                cell.before_cells,
                cell.after_cells,
            )
            for cell in cells
        ),
    )


def cells_router(gui: Gui) -> APIRouter:
    """The list's API: a page as JSON, the whole selection as CSV."""
    router = APIRouter()

    @router.get("/api/runs/{name}/compare/{baseline}/cells")
    def api_cells(name: str, baseline: str, query: Annotated[CellQuery, Query()]) -> dict[str, Any]:
        comparison = compared(gui, name, baseline, query.pair)
        return cell_page(comparison, gui.loaded(name), gui.loaded(baseline), query)

    @router.get("/api/runs/{name}/compare/{baseline}/cells.csv")
    def api_cells_csv(name: str, baseline: str, query: Annotated[CellQuery, Query()]) -> Response:
        comparison = compared(gui, name, baseline, query.pair)
        problem = query.problem(comparison)
        if problem:
            raise HTTPException(422, problem)
        file_name = f"{name}-gegen-{baseline}-zellen.csv"
        return StreamingResponse(
            cell_csv_lines(comparison, selected(comparison, query)),
            media_type="text/csv; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="{file_name}"'},
        )

    return router
