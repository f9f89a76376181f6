"""Two runs compared (design.md §19): per matched row the difference new − baseline with a
paired 95 % interval, the same per category, red flags and failed answers then and now.

The interval is the one the scorecard's within-run comparisons give (``stats.
paired_difference``: per-prompt means over the repeats, paired bootstrap over the shared
prompts, the floors for few prompts), its bounds clipped to what the scale allows.

A row's verdict is its own 95 % interval's. A category's is decided within its row, over
the row's categories together (design.md §23): with eight categories at 95 % each, a third of
unchanged rows would show one "better" or "worse"; Bonferroni-widened intervals
(``multiplicity.widened``) keep that at 5 % per row.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, Literal

from touchstone import started
from touchstone.errors import InputError
from touchstone.german import counted
from touchstone.results import cell_key
from touchstone.stages.view import RunView
from touchstone.stats.intervals import Cluster, Interval
from touchstone.stats.multiplicity import set_level, widened
from touchstone.stats.paired import paired_difference, pool_differences
from touchstone.stats.pooling import Pool
from touchstone.versus.cells import (
    Pair,
    PromptSets,
    RowCells,
    match_rows,
    parse_pairs,
    row_cells,
    rubrics,
)

Better = Literal["new", "baseline"]


def better_of(diff: Interval | None) -> Better | None:
    """Which side is significantly better; None when the interval holds 0 or there is none."""
    if diff is None:
        return None
    if diff.low is not None and diff.low > 0:
        return "new"
    if diff.high is not None and diff.high < 0:
        return "baseline"
    return None


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def diff_dict(diff: Interval | None) -> dict[str, Any]:
    return {
        "diff": _rounded(diff.mean if diff else None),
        "ci_low": _rounded(diff.low if diff else None),
        "ci_high": _rounded(diff.high if diff else None),
        "n_prompts": diff.n if diff else 0,
        "better": better_of(diff),
    }


@dataclass(frozen=True)
class Side:
    """One row of one run, over the compared cells."""

    pair: Pair
    mean: float | None
    cells: int
    red_flags: int
    safety_red_flags: int
    failed: int
    # The row's answers without a verdict (on any prompt).
    unjudged: int = 0

    @classmethod
    def of(cls, pair: Pair, cells: RowCells | None, unjudged: int = 0) -> Side:
        if cells is None:
            return cls(pair, None, 0, 0, 0, 0, unjudged)
        total = sum(c.total for c in cells.clusters.values())
        count = sum(c.count for c in cells.clusters.values())
        mean = total / count if count else None
        return cls(
            pair,
            mean,
            cells.cells,
            cells.red_flags,
            cells.safety_red_flags,
            cells.failed,
            unjudged,
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "mean": _rounded(self.mean),
            "cells": self.cells,
            "red_flags": self.red_flags,
            "safety_red_flags": self.safety_red_flags,
            "failed": self.failed,
            "unjudged": self.unjudged,
        }


@dataclass(frozen=True)
class RowComparison:
    new: Side
    baseline: Side
    diff: Interval | None  # new - baseline; None: no prompt both scored
    categories: dict[str, Interval | None]
    # The scale's max - min: no difference lies beyond ±span, widened or not.
    span: float | None = None

    @property
    def better(self) -> Better | None:
        return better_of(self.diff)

    @property
    def compared(self) -> bool:
        """Whether the row has an interval (two shared prompts or more): else no verdict on
        it can be made, and a gate over it cannot pass (``gate.not_compared``)."""
        return self.diff is not None and self.diff.low is not None and self.diff.high is not None

    @property
    def unjudged_side(self) -> Literal["new", "baseline"] | None:
        """The side with no compared cell because its answers have no verdict yet."""
        if self.new.cells == 0 and self.new.unjudged:
            return "new"
        if self.baseline.cells == 0 and self.baseline.unjudged:
            return "baseline"
        return None

    @property
    def bounds(self) -> tuple[float, float] | None:
        return None if self.span is None else (-self.span, self.span)

    @property
    def category_tests(self) -> int:
        """The categories with an interval: the set their verdicts are decided over."""
        return sum(1 for d in self.categories.values() if d is not None and d.low is not None)

    def category_interval(self, category: str) -> Interval | None:
        """``category``'s interval widened for the row's ``category_tests``."""
        diff = self.categories.get(category)
        return None if diff is None else widened(diff, self.category_tests, self.bounds)

    def category_better(self, category: str) -> Better | None:
        """Which side is better in ``category``, decided over the row's categories."""
        return better_of(self.category_interval(category))

    def _category_dict(self, category: str) -> dict[str, Any]:
        adjusted = self.category_interval(category)
        return {
            **diff_dict(self.categories[category]),
            "better": self.category_better(category),
            "better_alone": better_of(self.categories[category]),
            "ci_low_adjusted": _rounded(adjusted.low if adjusted else None),
            "ci_high_adjusted": _rounded(adjusted.high if adjusted else None),
        }

    def as_dict(self) -> dict[str, Any]:
        tests = self.category_tests
        return {
            "new": list(self.new.pair),
            "baseline": list(self.baseline.pair),
            **diff_dict(self.diff),
            "categories": {c: self._category_dict(c) for c in self.categories},
            "category_correction": {
                "method": "bonferroni",
                "tests": tests,
                "level": round(set_level(tests), 5),
            },
            "then": self.baseline.as_dict(),
            "now": self.new.as_dict(),
        }


@dataclass
class RunComparison:
    new_name: str
    baseline_name: str
    new_pack: str
    baseline_pack: str
    rows: list[RowComparison]
    categories: dict[str, str]  # id: title
    prompts: PromptSets
    unmatched_new: list[Pair] = field(default_factory=list)
    unmatched_baseline: list[Pair] = field(default_factory=list)
    new_judges: list[str] = field(default_factory=list)
    baseline_judges: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # Every answer of the run without a verdict yet (a judge run still to come).
    unjudged_new: int = 0
    unjudged_baseline: int = 0
    # The run dirs as given: what a remedy names (``touchstone judge PATH``).
    new_path: str = ""
    baseline_path: str = ""
    # Each row's compared cells (``cells.row_cells``): the cell-by-cell list reads them.
    new_cells: dict[Pair, RowCells] = field(default_factory=dict, repr=False)
    baseline_cells: dict[Pair, RowCells] = field(default_factory=dict, repr=False)

    @property
    def judges_differ(self) -> bool:
        return set(self.new_judges) != set(self.baseline_judges)

    @property
    def excluded_prompts(self) -> int:
        return len(self.prompts.changed)

    def as_dict(self) -> dict[str, Any]:
        """The JSON of ``--json`` (design.md §19's keys, more beside them)."""
        return {
            "rows": [row.as_dict() for row in self.rows],
            "excluded_prompts": self.excluded_prompts,
            "judges_differ": self.judges_differ,
            "new_run": self.new_name,
            "baseline_run": self.baseline_name,
            "packs": {"new": self.new_pack, "baseline": self.baseline_pack},
            "shared_prompts": len(self.prompts.shared),
            "new_only_prompts": len(self.prompts.new_only),
            "baseline_only_prompts": len(self.prompts.baseline_only),
            "judges": {"new": self.new_judges, "baseline": self.baseline_judges},
            "unmatched": {
                "new": [list(p) for p in self.unmatched_new],
                "baseline": [list(p) for p in self.unmatched_baseline],
            },
            "categories": self.categories,
            "unjudged": {"new": self.unjudged_new, "baseline": self.unjudged_baseline},
        }


def _difference(
    new: dict[str, Cluster], old: dict[str, Cluster], span: float, pool: Pool
) -> Interval | None:
    """``paired.paired_difference``, its spread floored by ``pool`` (the differences of every
    matched row, or of every row's categories: a category of 3 shared prompts that happen to
    agree says little about the spread between prompts), its bounds inside ±``span`` (no
    difference can be more)."""
    diff = paired_difference(new, old, pool=pool)
    if diff is None or diff.low is None or diff.high is None:
        return diff
    return Interval(diff.mean, max(diff.low, -span), min(diff.high, span), diff.n)


def _rows_of(view: RunView) -> list[Pair]:
    """The run's rows, in the order of its answers: a row answered but not judged yet is a
    row too (it is matched, and the gate cannot pass it), not a renamed model."""
    ordered = dict.fromkeys(map(_row_of, view.responses))
    ordered.update(dict.fromkeys(map(_row_of, view.verdicts)))
    return list(ordered)


# A record's row, (model, variant), called straight into C (as ``results.cell_key``).
_row_of = attrgetter("model", "variant")


# What to do about bad input, in the words of each surface (the GUI names what to click).
_JUDGE_FIRST = {
    "cli": "zuerst `{touchstone} judge {path}`",
    "gui": "zuerst auf der Seite des Runs den Judge starten",
}
_PAIR_HINT = {
    "cli": "Ein umbenanntes Modell paart --pair NEU=ALT.",
    "gui": "Ein umbenanntes Modell paart „Modell paaren“ unten.",
}


def compare_runs(
    new: RunView,
    baseline: RunView,
    pair_specs: Sequence[str] = (),
    *,
    surface: Literal["cli", "gui"] = "cli",
) -> RunComparison:
    """``new`` against ``baseline``; bad input (nothing judged, no row or prompt in common,
    a ``--pair`` naming no model of the runs) is an ``InputError`` naming it."""
    for view, role in ((new, "neue Run"), (baseline, "Baseline-Run")):
        if not view.verdicts:
            first = _JUDGE_FIRST[surface].format(
                path=view.run_dir.path, touchstone=started.prefix()
            )
            raise InputError(
                f"Der {role} {view.run_dir.name} hat noch keine Bewertungen – {first}."
            )
    new_rows, old_rows = _rows_of(new), _rows_of(baseline)
    pairs = parse_pairs(pair_specs, (m for m, _ in new_rows), (m for m, _ in old_rows), surface)
    matched = match_rows(new_rows, old_rows, pairs)
    if not matched:
        raise InputError(
            f"Keine gemeinsamen Zeilen (Modell, Variante): {new.run_dir.name} hat "
            f"{_names(new_rows)}, {baseline.run_dir.name} hat {_names(old_rows)}. "
            + _PAIR_HINT[surface]
        )
    prompts = PromptSets.of(
        rubrics(new.verdicts, new.pack),
        rubrics(baseline.verdicts, baseline.pack),
        {variant for (_, variant), _ in matched},
    )
    scale_min, span = new.pack.scale.min, float(new.pack.scale.max - new.pack.scale.min)
    new_cells = row_cells(new.verdicts, new.pack, prompts.common, scale_min=scale_min)
    old_cells = row_cells(
        baseline.verdicts, baseline.pack, prompts.common, scale_min=baseline.pack.scale.min
    )
    new_open, old_open = _unjudged(new), _unjudged(baseline)
    rows: list[RowComparison] = []
    categories: dict[str, None] = {}
    both = [(new_cells[n], old_cells[o]) for n, o in matched if n in new_cells and o in old_cells]
    row_pool = pool_differences((mine.clusters, theirs.clusters) for mine, theirs in both)
    category_pool = pool_differences(
        (clusters, theirs.by_category.get(category, {}))
        for mine, theirs in both
        for category, clusters in mine.by_category.items()
    )
    for new_pair, old_pair in matched:
        mine, theirs = new_cells.get(new_pair), old_cells.get(old_pair)
        per_category: dict[str, Interval | None] = {}
        if mine is not None and theirs is not None:
            for category, clusters in mine.by_category.items():
                categories[category] = None
                per_category[category] = _difference(
                    clusters, theirs.by_category.get(category, {}), span, category_pool
                )
        diff = (
            _difference(mine.clusters, theirs.clusters, span, row_pool)
            if mine is not None and theirs is not None
            else None
        )
        rows.append(
            RowComparison(
                Side.of(new_pair, mine, new_open.get(new_pair, 0)),
                Side.of(old_pair, theirs, old_open.get(old_pair, 0)),
                diff,
                per_category,
                span,
            )
        )
    if all(row.diff is None for row in rows):
        raise InputError(
            f"Keine vergleichbaren Prompts: {new.run_dir.name} und {baseline.run_dir.name} "
            f"haben keinen Prompt, den beide mit derselben Bewertungsgrundlage bewertet haben "
            f"({counted(len(prompts.changed), 'Prompt', 'Prompts')} mit geänderter "
            "Bewertungsgrundlage)."
        )
    matched_new = {n for n, _ in matched}
    matched_old = {o for _, o in matched}
    return RunComparison(
        new_name=new.run_dir.name,
        baseline_name=baseline.run_dir.name,
        new_pack=new.pack.id,
        baseline_pack=baseline.pack.id,
        rows=rows,
        categories={c.id: c.title for c in new.pack.categories if c.id in categories},
        prompts=prompts,
        unmatched_new=[p for p in new_rows if p not in matched_new],
        unmatched_baseline=[p for p in old_rows if p not in matched_old],
        new_judges=_judges(new_cells, matched_new),
        baseline_judges=_judges(old_cells, matched_old),
        warnings=[*new.run_dir.warnings, *baseline.run_dir.warnings],
        unjudged_new=sum(new_open.values()),
        unjudged_baseline=sum(old_open.values()),
        new_path=str(new.run_dir.path),
        baseline_path=str(baseline.run_dir.path),
        new_cells=new_cells,
        baseline_cells=old_cells,
    )


def _unjudged(view: RunView) -> dict[Pair, int]:
    """Per row, its answers that have no verdict (the keys compared in C: a million cells
    take a fraction of a second)."""
    judged = set(map(cell_key, view.verdicts))
    found: dict[Pair, int] = {}
    for model, variant, _, _ in itertools.filterfalse(
        judged.__contains__, map(cell_key, view.responses)
    ):
        found[(model, variant)] = found.get((model, variant), 0) + 1
    return found


def _judges(cells: dict[Pair, RowCells], rows: set[Pair]) -> list[str]:
    found: dict[str, None] = {}
    for pair in rows:
        if pair in cells:
            found.update(cells[pair].judges)
    return sorted(found)


def _names(rows: list[Pair]) -> str:
    shown = ", ".join(f"{m} · {v}" for m, v in rows[:6])
    more = f" und {len(rows) - 6} weitere" if len(rows) > 6 else ""
    return (shown + more) or "keine"
