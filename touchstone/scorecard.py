"""The scorecard: per (model, variant) counts and means, as data and as a rich table.

Means exclude unscored verdicts; every unscored cell is counted with its reason, and cells
that have an answer but no verdict yet are counted as open. A mean over nothing is ``None``
and shown as "–", never as 0.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from touchstone.pack import Pack
from touchstone.results import (
    UNSCORED_REASONS,
    EvalResponse,
    ModelReport,
    Verdict,
    VerdictKey,
    cell_key,
)


def mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


@dataclass
class ScoreRow:
    model: str
    variant: str
    cells: int = 0
    scored: int = 0
    mean: float | None = None
    category_means: dict[str, float | None] = field(default_factory=dict)
    red_flags: int = 0
    safety_red_flags: int = 0
    unscored: Counter[str] = field(default_factory=Counter)
    open: int = 0
    dim_scores: dict[str, float] = field(default_factory=dict)
    dim_error: str = ""
    judge_models: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "unscored": dict(self.unscored)}


@dataclass
class Scorecard:
    rows: list[ScoreRow]
    categories: list[str]
    dimensions: list[str]
    judge_models: list[str]

    @property
    def mixed_judges(self) -> bool:
        return len(self.judge_models) > 1

    def as_dict(self) -> dict[str, Any]:
        return {
            "rows": [r.as_dict() for r in self.rows],
            "categories": self.categories,
            "dimensions": self.dimensions,
            "judge_models": self.judge_models,
        }


def build_scorecard(
    responses: Iterable[EvalResponse],
    verdicts: Iterable[Verdict],
    reports: Iterable[ModelReport] = (),
) -> Scorecard:
    rows: dict[tuple[str, str], ScoreRow] = {}
    categories: dict[str, None] = {}
    answered: set[VerdictKey] = set()
    for resp in responses:
        row = rows.setdefault((resp.model, resp.variant), ScoreRow(resp.model, resp.variant))
        row.cells += 1
        categories.setdefault(resp.category)
        answered.add(cell_key(resp))
    scores: dict[tuple[str, str], list[float]] = {}
    by_category: dict[tuple[str, str, str], list[float]] = {}
    judged: Counter[tuple[str, str]] = Counter()
    judges: dict[tuple[str, str], dict[str, None]] = {}
    all_judges: dict[str, None] = {}
    for verdict in verdicts:
        pair = (verdict.model, verdict.variant)
        row = rows.setdefault(pair, ScoreRow(*pair))
        categories.setdefault(verdict.category)
        if cell_key(verdict) in answered:
            judged[pair] += 1
        if verdict.judge_model and not verdict.judge_error:
            judges.setdefault(pair, {})[verdict.judge_model] = None
            all_judges[verdict.judge_model] = None
        if verdict.unscored:
            row.unscored[verdict.unscored_reason or "unknown"] += 1
            continue
        row.scored += 1
        scores.setdefault(pair, []).append(verdict.score)
        by_category.setdefault((*pair, verdict.category), []).append(verdict.score)
        if verdict.red_flag:
            row.red_flags += 1
            if verdict.safety_critical:
                row.safety_red_flags += 1
    report_by_pair = {(r.model, r.variant): r for r in reports}
    dimensions: dict[str, None] = {}
    for pair, row in rows.items():
        row.mean = mean(scores.get(pair, []))
        row.category_means = {c: mean(by_category.get((*pair, c), [])) for c in categories}
        row.open = max(0, row.cells - judged[pair])
        row.judge_models = list(judges.get(pair, {}))
        report = report_by_pair.get(pair)
        if report is not None:
            row.dim_scores = dict(report.dim_scores)
            row.dim_error = report.dim_rationales.get("_error", "")
            for dim in report.dim_scores:
                dimensions.setdefault(dim)
    return Scorecard(
        rows=list(rows.values()),
        categories=list(categories),
        dimensions=list(dimensions),
        judge_models=list(all_judges),
    )


def fmt(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def unscored_text(row: ScoreRow) -> str:
    if not row.unscored:
        return "0"
    total = sum(row.unscored.values())
    parts = [f"{UNSCORED_REASONS.get(k, k)}: {n}" for k, n in sorted(row.unscored.items())]
    return f"{total} ({', '.join(parts)})"


def render_scorecard(card: Scorecard, *, category_titles: dict[str, str] | None = None) -> Group:
    """The scorecard as rich renderables: the main table, then dimensions when there are any.

    Category columns carry the category ids to keep the table narrow; a legend names them.
    """
    titles = category_titles or {}
    table = Table(title="Scorecard", title_justify="left")
    table.add_column("Modell", no_wrap=True)
    table.add_column("Variante", no_wrap=True)
    for header in ("Zellen", "bewertet", "Mittel", *card.categories, "⚑", "⚑ krit."):
        table.add_column(header, justify="right", no_wrap=True)
    table.add_column("unbewertet (Grund)")
    table.add_column("offen", justify="right", no_wrap=True)
    for row in card.rows:
        safety = Text(str(row.safety_red_flags), style="bold red" if row.safety_red_flags else "")
        flags = Text(str(row.red_flags), style="red" if row.red_flags else "")
        table.add_row(
            row.model,
            row.variant,
            str(row.cells),
            str(row.scored),
            Text(fmt(row.mean), style="bold"),
            *(fmt(row.category_means.get(c)) for c in card.categories),
            flags,
            safety,
            Text(unscored_text(row), style="yellow" if row.unscored else ""),
            str(row.open),
        )
    legend = Text(
        "Kategorien: "
        + ", ".join(f"{c} = {titles.get(c, c)}" for c in card.categories)
        + " · ⚑ = Warnsignale, ⚑ krit. = davon sicherheitskritisch",
        style="dim",
    )
    parts: list[Any] = [table, legend]
    if card.dimensions or any(r.dim_error for r in card.rows):
        dims = Table(title="Gesamtbewertung (Dimensionen)", title_justify="left")
        dims.add_column("Modell")
        dims.add_column("Variante")
        for dim in card.dimensions:
            dims.add_column(dim, justify="right")
        dims.add_column("Hinweis")
        for row in card.rows:
            dims.add_row(
                row.model,
                row.variant,
                *(fmt(row.dim_scores.get(d)) for d in card.dimensions),
                Text(row.dim_error, style="yellow") if row.dim_error else "",
            )
        parts.append(dims)
    if card.judge_models:
        label = "Judge-Modelle" if card.mixed_judges else "Judge-Modell"
        line = Text(f"{label}: {', '.join(card.judge_models)}")
        if card.mixed_judges:
            line.append("  ⚠ Dieser Run wurde von mehreren Judge-Modellen bewertet.", "yellow")
        parts.append(line)
    return Group(*parts)


def render_run_scorecard(
    pack: Pack,
    responses: Iterable[EvalResponse],
    verdicts: Iterable[Verdict],
    reports: Iterable[ModelReport] = (),
) -> Group:
    """The scorecard of a run as the terminal shows it (category titles from the pack)."""
    card = build_scorecard(responses, verdicts, reports)
    return render_scorecard(card, category_titles={c.id: c.title for c in pack.categories})
