"""A comparison in the terminal: notes, the rows, the categories, readable from 80 columns.

The tables are ``scorecard.columns.FittedTable``s: name, difference with its interval and
the verdict never move; means, red flags and failed answers then and now move to a second
table when the width asks for it.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from touchstone import german
from touchstone.german import counted
from touchstone.plain import plain
from touchstone.scorecard.columns import Column, FittedTable
from touchstone.stats import Interval
from touchstone.versus.build import Better, RowComparison, RunComparison, better_of
from touchstone.versus.gate import GateResult, diff_text
from touchstone.versus.notes import notes

VERDICT_WORDS: dict[Better | None, str] = {
    "new": "▲ besser",
    "baseline": "▼ schlechter",
    None: "≈ nicht unterscheidbar",
}
# Up to this many rows the categories of each are shown.
ALL_CATEGORIES_UP_TO = 12
_STYLES: dict[Better | None, str] = {"new": "green", "baseline": "bold red", None: ""}


def verdict_word(diff: Interval | None) -> str:
    """``▲ besser`` / ``▼ schlechter`` / ``≈ nicht unterscheidbar``; without an interval
    (one prompt, or none) no decision."""
    if diff is None:
        return "kein gemeinsamer Prompt"
    if diff.low is None:
        return "– keine Entscheidung"
    return VERDICT_WORDS[better_of(diff)]


def _verdict_cell(diff: Interval | None) -> Text:
    return Text(verdict_word(diff), style=_STYLES[better_of(diff)])


def _name(row: RowComparison) -> Text:
    model, variant = row.new.pair
    text = f"{model} · {variant}"
    if row.baseline.pair != row.new.pair:
        text += f" (vorher {row.baseline.pair[0]})"
    return plain(text)


def then_now(then: str, now: str) -> str:
    return f"{then} → {now}"


def _red_flags(count: int, safety: int) -> str:
    return german.count(count) + (f" ({german.count(safety)} krit.)" if safety else "")


def rows_table(comparison: RunComparison) -> FittedTable:
    rows = comparison.rows
    columns = [
        Column("Modell · Variante", [_name(r) for r in rows], "left", key=True, fold=True),
        Column(
            "Differenz neu − Baseline (95 %)",
            [Text(diff_text(r.diff)) for r in rows],
            narrow="Differenz\n(95 %)",
        ),
        Column("Urteil", [_verdict_cell(r.diff) for r in rows], "left"),
        Column("Prompts", [Text(german.count(r.diff.n if r.diff else 0)) for r in rows]),
        Column(
            "Mittel vorher → jetzt",
            [
                Text(then_now(german.number(r.baseline.mean), german.number(r.new.mean)))
                for r in rows
            ],
            drop=1,
            narrow="Mittel\nvorher → jetzt",
        ),
        Column(
            "Warnsignale vorher → jetzt",
            [
                Text(
                    then_now(
                        _red_flags(r.baseline.red_flags, r.baseline.safety_red_flags),
                        _red_flags(r.new.red_flags, r.new.safety_red_flags),
                    ),
                    style="yellow" if r.new.red_flags > r.baseline.red_flags else "",
                )
                for r in rows
            ],
            drop=2,
            narrow="Warnsignale\nvorher → jetzt",
        ),
        Column(
            "Fehlgeschlagen vorher → jetzt",
            [
                Text(
                    then_now(german.count(r.baseline.failed), german.count(r.new.failed)),
                    style="yellow" if r.new.failed > r.baseline.failed else "",
                )
                for r in rows
            ],
            drop=2,
            narrow="Fehlgeschl.\nvorher → jetzt",
        ),
    ]
    return FittedTable(
        f"Vergleich: {comparison.new_name} (neu) gegen {comparison.baseline_name} (Baseline)",
        columns,
        more_title="Vergleich (Fortsetzung)",
        elsewhere="--json",
    )


def categories_table(comparison: RunComparison, row: RowComparison) -> FittedTable | None:
    """One row's categories (one table per row: name and category side by side would not
    fit 80 columns with the interval and the verdict)."""
    if len(comparison.categories) < 2 or not row.categories:
        return None
    titles = comparison.categories
    lines = list(row.categories.items())
    return FittedTable(
        f"Nach Kategorie: {_name(row).plain}",
        [
            Column(
                "Kategorie",
                [plain(titles.get(c, c)) for c, _ in lines],
                "left",
                key=True,
                fold=True,
            ),
            Column(
                "Differenz (95 %)",
                [Text(diff_text(d)) for _, d in lines],
                narrow="Differenz\n(95 %)",
            ),
            Column("Urteil", [_verdict_cell(d) for _, d in lines], "left"),
            Column("Prompts", [Text(german.count(d.n if d else 0)) for _, d in lines]),
        ],
        more_title="Nach Kategorie (Fortsetzung)",
        elsewhere="--json",
    )


def render_comparison(
    comparison: RunComparison, result: GateResult, *, baseline_path: str = ""
) -> RenderableType:
    """Notes (judges first, prominent), the rows, the categories, then the gate's sentence."""
    parts: list[RenderableType] = []
    for note in notes(comparison, "cli", baseline_path):
        parts.append(plain(note.text, style="bold yellow" if note.prominent else "dim"))
    parts.append(Text())
    parts.append(rows_table(comparison))
    shown = comparison.rows
    if len(shown) > ALL_CATEGORIES_UP_TO:
        # Beyond a dozen rows every row's categories would bury the table above: only the
        # rows where some category decides, and where to find the rest.
        shown = [r for r in shown if any(better_of(d) for d in r.categories.values())]
        parts.append(Text())
        parts.append(
            plain(
                f"Nach Kategorie: nur die {counted(len(shown), 'Zeile', 'Zeilen')} mit einer "
                "Kategorie, die besser oder schlechter ist; alle in --json.",
                style="dim",
            )
        )
    for row in shown:
        table = categories_table(comparison, row)
        if table is not None:
            parts.append(Text())
            parts.append(table)
    parts.append(
        plain(
            "▲/▼: das 95-%-Intervall der Differenz (gepaarter Bootstrap über die Prompts, die "
            "beide Runs mit derselben Bewertungsgrundlage bewertet haben) liegt ganz über/unter "
            "0; fehlgeschlagene Antworten zählen mit dem Skalenminimum. Mittel, Warnsignale und "
            "Fehlschläge über die verglichenen Prompts.",
            style="dim",
        )
    )
    if result.message:
        style = "bold green" if result.exit_code == 0 else "bold red"
        parts.append(plain(result.message, style=style))
    return Group(*parts)
