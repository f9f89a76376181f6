"""The scorecard as the terminal shows it (rich): ranked rows, means with their intervals.

Names and titles are data (a shared run dir, its pack): each cell is ``plain`` text.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from touchstone.pack import Pack
from touchstone.plain import plain
from touchstone.scorecard.build import (
    Scorecard,
    ScoreRow,
    failed_text,
    fmt,
    fmt_interval,
    speed_text,
    unscored_text,
)


def render_scorecard(
    card: Scorecard,
    *,
    category_titles: dict[str, str] | None = None,
    dimension_titles: dict[str, str] | None = None,
) -> Group:
    """The scorecard as rich renderables: the ranked table, a legend, the dimensions.

    Category columns carry the category ids to keep the table narrow; the legend names them.
    """
    titles = category_titles or {}
    dim_titles = dimension_titles or {}
    table = Table(title="Scorecard", title_justify="left")
    table.add_column("Rang", justify="right", no_wrap=True)
    table.add_column("Modell", no_wrap=True)
    table.add_column("Variante", no_wrap=True)
    table.add_column("bewertet", justify="right")  # wraps its failed answers line if need be
    table.add_column("Mittel (95 %)", justify="right", no_wrap=True)
    for header in (*card.categories, "⚑", "⚑ krit."):
        table.add_column(plain(header), justify="right", no_wrap=True)
    table.add_column("unbewertet (Grund)")
    table.add_column("offen", justify="right", no_wrap=True)
    table.add_column("Tempo", justify="right", no_wrap=True)
    for row in card.rows:
        safety = Text(str(row.safety_red_flags), style="bold red" if row.safety_red_flags else "")
        flags = Text(str(row.red_flags), style="red" if row.red_flags else "")
        table.add_row(
            Text(str(row.rank) if row.rank is not None else "–"),
            plain(row.model),
            plain(row.variant),
            _scored_cell(row),
            Text(fmt_interval(row.interval), style="bold"),
            *(Text(fmt(row.category_means.get(c))) for c in card.categories),
            flags,
            safety,
            plain(unscored_text(row), style="yellow" if row.unscored else ""),
            Text(str(row.open)),
            Text(speed_text(row)),
        )
    parts: list[Any] = [table, plain(legend(card, titles), style="dim")]
    ties = tie_text(card)
    if ties:
        parts.append(plain(ties))
    if card.dimensions or any(r.dim_error for r in card.rows):
        dims = Table(title="Gesamtbewertung (Dimensionen)", title_justify="left")
        dims.add_column("Modell")
        dims.add_column("Variante")
        for dim in card.dimensions:
            dims.add_column(plain(dim_titles.get(dim, dim)), justify="right")
        dims.add_column("Hinweis")
        for row in card.rows:
            dims.add_row(
                plain(row.model),
                plain(row.variant),
                *(Text(fmt(row.dim_scores.get(d))) for d in card.dimensions),
                plain(row.dim_error, style="yellow"),
            )
        parts.append(dims)
    if card.judge_models:
        label = "Judge-Modelle" if card.mixed_judges else "Judge-Modell"
        line = plain(f"{label}: {', '.join(card.judge_models)}")
        if card.mixed_judges:
            line.append("  ⚠ Dieser Run wurde von mehreren Judge-Modellen bewertet.", "yellow")
        parts.append(line)
    return Group(*parts)


def _scored_cell(row: ScoreRow) -> Text:
    """``24/24``, and below it the failed answers among them (they count with the minimum)."""
    text = Text(f"{row.scored}/{row.cells}")
    failed = failed_text(row)
    if failed:
        text.append(f"\n{failed}", style="yellow")
    return text


def legend(card: Scorecard, titles: dict[str, str]) -> str:
    categories = ", ".join(f"{c} = {titles.get(c, c)}" for c in card.categories)
    return (
        f"Kategorien: {categories} · Mittel ±: halbe Breite des 95-%-Intervalls (Bootstrap über "
        "Prompts; ±– bei nur einem Prompt: kein Intervall) · bewertet: fehlgeschlagene Antworten "
        "(Frist überschritten, Prompt verweigert, leer, nur Reasoning) zählen mit dem "
        "Skalenminimum · gleicher Rang: nicht unterscheidbar · ⚑ = Warnsignale, ⚑ krit. = davon "
        "sicherheitskritisch · Tempo: Median-Latenz, Ausgabe-Tokens je Sekunde"
    )


def tie_text(card: Scorecard) -> str:
    """The rows that share a rank, said in words ("nicht unterscheidbar")."""
    by_rank: dict[int, list[str]] = {}
    for row in card.rows:
        if row.rank is not None:
            by_rank.setdefault(row.rank, []).append(f"{row.model} · {row.variant}")
    groups = [names for names in by_rank.values() if len(names) > 1]
    if not groups:
        return ""
    return "Nicht unterscheidbar (95 %): " + "; ".join(" = ".join(g) for g in groups)


def render_run_scorecard(pack: Pack, card: Scorecard) -> Group:
    """The scorecard of a run as the terminal shows it (titles from the pack)."""
    return render_scorecard(
        card,
        category_titles={c.id: c.title for c in pack.categories},
        dimension_titles={d.id: d.title for d in pack.dimensions},
    )
