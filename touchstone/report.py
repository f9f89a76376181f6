"""``report.html``: one self-contained page (inline CSS and SVG, no script, no CDN).

Rendered from ``templates/report.html`` (Jinja2, autoescape on), which shares the scorecard
markup with the GUI. It holds the charts (mean per model/variant, category × model heatmap,
dimension scores), the scorecard and every verdict with its rationale and the answer it judged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import jinja2

from touchstone.pack import Pack
from touchstone.results import UNSCORED_REASONS, EvalResponse, ModelReport, Verdict
from touchstone.scorecard import build_scorecard, fmt, unscored_text

TEMPLATES = Path(__file__).resolve().parent / "templates"


def template_environment(*directories: Path, strict: bool = False) -> jinja2.Environment:
    """A Jinja2 environment over ``directories`` and the shared templates, autoescaping.

    ``strict``: a name the template uses but nobody passed is an error, not an empty string.
    """
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader([*map(str, directories), str(TEMPLATES)]),
        autoescape=True,
        undefined=jinja2.StrictUndefined if strict else jinja2.Undefined,
    )
    env.globals.update(fmt=fmt, unscored_text=unscored_text, reasons=UNSCORED_REASONS)
    return env


def _share(value: float, low: float, high: float) -> float:
    """Where ``value`` lies on the scale, from 0 to 1."""
    return 0.0 if high == low else max(0.0, min(1.0, (value - low) / (high - low)))


def heat_color(value: float | None, low: float, high: float) -> str:
    if value is None:
        return "#eceff1"
    return f"hsl({round(_share(value, low, high) * 120)}, 70%, 78%)"


@dataclass
class _Bar:
    label: str
    value: float | None
    y: int
    length: float
    color: str


@dataclass
class _Chart:
    bars: list[_Bar]
    label_w: int = 260
    bar_w: int = 520

    @property
    def width(self) -> int:
        return self.label_w + self.bar_w + 60

    @property
    def height(self) -> int:
        return 26 * len(self.bars) + 30

    @property
    def axis_y(self) -> int:
        return 10 + len(self.bars) * 26 + 14


def render_report(
    *,
    run_name: str,
    pack: Pack,
    responses: Sequence[EvalResponse],
    verdicts: Sequence[Verdict],
    reports: Sequence[ModelReport],
    created_at: str = "",
) -> str:
    card = build_scorecard(responses, verdicts, reports)
    low, high = float(pack.scale.min), float(pack.scale.max)
    chart = _Chart(
        [
            _Bar(
                f"{r.model} · {r.variant}",
                r.mean,
                10 + index * 26,
                0.0 if r.mean is None else _share(r.mean, low, high) * 520,
                heat_color(r.mean, low, high),
            )
            for index, r in enumerate(card.rows)
        ]
    )
    notices = []
    if card.mixed_judges:
        notices.append(
            "⚠ Dieser Run wurde von mehreren Judge-Modellen bewertet: "
            + ", ".join(card.judge_models)
        )
    open_cells = sum(r.open for r in card.rows)
    if open_cells:
        notices.append(
            f"⚠ {open_cells} Antworten sind noch nicht bewertet; "
            "`touchstone judge` bewertet sie beim nächsten Lauf."
        )
    titles = {c.id: c.title for c in pack.categories}
    dim_titles = {d.id: d.title for d in pack.dimensions}
    template = template_environment(strict=True).get_template("report.html")
    return template.render(
        run_name=run_name,
        pack=pack,
        created_at=created_at,
        card=card,
        titles=titles,
        notices=notices,
        chart=chart,
        low=low,
        high=high,
        heat=lambda value: heat_color(value, low, high),
        category_columns=[(c, titles.get(c, c)) for c in card.categories],
        category_values={
            (r.model, r.variant, c): r.category_means.get(c)
            for r in card.rows
            for c in card.categories
        },
        dimension_columns=[(d, dim_titles.get(d, d)) for d in card.dimensions],
        dimension_values={
            (r.model, r.variant, d): r.dim_scores.get(d) for r in card.rows for d in card.dimensions
        },
        dim_errors=[f"{r.model} · {r.variant}: {r.dim_error}" for r in card.rows if r.dim_error],
        verdicts=verdicts,
        answers={r.key: r for r in responses},
    )
