"""The comparison page (design.md §19): a run against another run of its pack, with a URL of
its own (``/runs/{new}/compare/{baseline}``, renamed models as ``?pair=NEU=ALT``)."""

from __future__ import annotations

import difflib
import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

from touchstone import jsontext
from touchstone.errors import InputError
from touchstone.gui.cell_moves import CELL_PAGE, CellQuery, cell_page
from touchstone.gui.views import Gui
from touchstone.regular import open_regular
from touchstone.store import RunDir
from touchstone.store.rundir import JUDGEMENTS
from touchstone.versus import compare_runs
from touchstone.versus.build import RowComparison, better_of
from touchstone.versus.notes import notes
from touchstone.versus.terminal import (
    VERDICT_WORDS,
    category_note,
    row_verdict_word,
    verdict_word,
)

# Pairings offered in the form at most (unmatched new models x baseline models).
MAX_PAIR_CHOICES = 200


def judged(run_dir: Path) -> bool:
    """Whether a run has verdicts to compare, told by its judgements file's size alone (the
    run page must not load every other run)."""
    try:
        return (run_dir / JUDGEMENTS).stat().st_size > 0
    except OSError:
        return False


# How much of the end of judgements.jsonl tells a run's judge: a few hundred lines.
JUDGE_TAIL = 64 * 1024


def recent_judges(run_dir: Path) -> frozenset[str]:
    """The judges (``judge_model``) of the run's latest verdicts: its judgements file's last
    ``JUDGE_TAIL`` bytes, never the whole file (the run page must not read every other run).
    A jury's lines name its members. Nothing readable there: no judge."""
    try:
        with open_regular(run_dir / JUDGEMENTS) as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(0, size - JUDGE_TAIL))
            tail = handle.read()
    except (OSError, InputError):
        return frozenset()
    lines = tail.splitlines()
    if size > JUDGE_TAIL and lines:
        lines = lines[1:]  # begun before the tail
    found: set[str] = set()
    for line in lines:
        try:
            record = jsontext.loads(line)
        except ValueError:
            continue  # a torn last line: the store repairs it, the page need not
        if isinstance(record, dict) and isinstance(record.get("judge_model"), str):
            found.add(record["judge_model"])
    return frozenset(found - {""})


def baselines(gui: Gui, name: str, pack_id: str) -> dict[str, Any]:
    """The other runs of ``pack_id`` "Vergleichen mit …" lists: ``runs``, each ``{"name",
    "judged", "preselected"}``, the ones with verdicts first (a run without any cannot be
    compared: listed, not chosen), newest first within; the newest judged by the run's own
    judge (``recent_judges``) preselected, else none; ``judge``: that judge's name. Read from
    each run's run.json and its judgements file's end alone: the run page must not stamp
    every other run's files."""
    found: list[tuple[bool, str, str]] = []
    for other in gui.run_names():
        if other == name:
            continue
        try:
            manifest = RunDir(gui.runs_dir / other).read_manifest()
        except InputError:
            continue  # a damaged or half-made run: its own page says what is wrong
        if manifest.pack_id == pack_id:
            created = manifest.created_at
            found.append((judged(gui.runs_dir / other), created, other))
    own = recent_judges(gui.runs_dir / name)
    runs: list[dict[str, Any]] = []
    preselected = False
    for ok, _, other in sorted(found, reverse=True):
        same = ok and not preselected and bool(own) and recent_judges(gui.runs_dir / other) == own
        preselected = preselected or same
        runs.append({"name": other, "judged": ok, "preselected": same})
    return {"runs": runs, "judge": ", ".join(sorted(own)), "preselected": preselected}


def comparison_context(gui: Gui, name: str, baseline: str, query: CellQuery) -> dict[str, Any]:
    """What the page shows: the comparison, or why there is none (bad input: the runs'
    pages are a click away), the cells that moved (``cell_moves``) and the pairings a
    renamed model could use."""
    pairs = query.pair
    new_run, old_run = gui.loaded(name), gui.loaded(baseline)
    new_models = [row.model for row in new_run.card.rows]
    old_models = [row.model for row in old_run.card.rows]
    context: dict[str, Any] = {
        "new": name,
        "baseline": baseline,
        "pairs": pairs,
        "comparison": None,
        "error": "",
        "notes": [],
        "better_of": better_of,
        "verdict_word": lambda row: row_verdict_word(row).lstrip("▲▼≈– "),
        "category_word": category_word,
        "category_note": "",
        "query": query,
        "cells": None,
        "cells_error": "",
        "page_url": f"/runs/{quote(name, safe='')}/compare/{quote(baseline, safe='')}",
        "csv_url": f"/api/runs/{quote(name, safe='')}/compare/{quote(baseline, safe='')}/cells.csv",
    }
    try:
        comparison = compare_runs(new_run.view, old_run.view, pairs, surface="gui")
    except InputError as exc:
        context["error"] = str(exc)
        # The form starts afresh: a pairing it kept would fail again.
        context["pairs"] = []
        unmatched_new = [m for m in dict.fromkeys(new_models) if m not in old_models]
        taken = {m for m in old_models if m in new_models}
    else:
        context["comparison"] = comparison
        context["notes"] = notes(comparison, "gui")
        context["category_note"] = category_note(comparison)
        context["cells_error"] = query.problem(comparison)
        if not context["cells_error"]:
            context["cells"] = cells = cell_page(comparison, new_run, old_run, query)
            context["cell_links"] = cell_links(
                context["page_url"], context["csv_url"], query, cells
            )
        context["cell_filters"] = {
            "models": sorted({row.new.pair[0] for row in comparison.rows}),
            "variants": sorted({row.new.pair[1] for row in comparison.rows}),
        }
        unmatched_new = list(dict.fromkeys(m for m, _ in comparison.unmatched_new))
        taken = {row.baseline.pair[0] for row in comparison.rows}
    free = [m for m in dict.fromkeys(old_models) if m not in taken]
    context["pair_choices"] = pair_choices(unmatched_new, free)
    return context


def pair_choices(unmatched_new: list[str], free_old: list[str]) -> list[dict[str, Any]]:
    """The pairings the form offers, ``{"spec": "NEU=ALT", "selected"}``: each unmatched new
    model with each baseline model no row has yet (a model paired already would be paired
    twice), the closest names first; the closest pair of all preselected."""
    scored = [
        (difflib.SequenceMatcher(None, new, old).ratio(), index, new, old)
        for index, new in enumerate(unmatched_new)
        for old in free_old
    ][:MAX_PAIR_CHOICES]
    scored.sort(key=lambda item: (item[1], -item[0]))
    best = max(scored, key=lambda item: (item[0], -item[1]), default=None)
    return [{"spec": f"{item[2]}={item[3]}", "selected": item is best} for item in scored]


def cell_links(
    page_url: str, csv_url: str, query: CellQuery, cells: dict[str, Any]
) -> dict[str, str]:
    """The list's paging links (back to its heading) and its CSV (every page of it)."""
    offset, limit, total = query.offset, query.limit, cells["total"]
    return {
        "previous": query.url(page_url, offset=max(0, offset - limit)) + "#zellen"
        if offset
        else "",
        "next": query.url(page_url, offset=offset + limit) + "#zellen"
        if offset + limit < total
        else "",
        "csv": query.url(csv_url, offset=0, limit=CELL_PAGE),
    }


def category_word(row: RowComparison, category: str) -> str:
    """A category's verdict in words, decided over its row's categories (as the CLI's)."""
    diff = row.categories.get(category)
    if diff is None or diff.low is None:
        return verdict_word(diff).lstrip("▲▼≈– ")
    return VERDICT_WORDS[row.category_better(category)].lstrip("▲▼≈ ")


def comparison_json(gui: Gui, name: str, baseline: str, pairs: list[str]) -> dict[str, Any]:
    """The comparison as ``compare --json`` writes it (bad input: an ``InputError``)."""
    new_run, old_run = gui.loaded(name), gui.loaded(baseline)
    return compare_runs(new_run.view, old_run.view, pairs, surface="gui").as_dict()
