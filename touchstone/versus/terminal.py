"""A comparison in the terminal: notes, the rows, the categories, readable from 80 columns.

The tables are ``scorecard.columns.FittedTable``s: name, difference with its interval and
the verdict never move; means, red flags and failed answers then and now move to a second
table when the width asks for it.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from touchstone import german
from touchstone.plain import plain
from touchstone.scorecard.columns import Column, FittedTable
from touchstone.stats.intervals import Interval
from touchstone.versus.build import Better, RowComparison, RunComparison, Side, better_of
from touchstone.versus.family import level_text
from touchstone.versus.gate import GateResult, diff_text
from touchstone.versus.notes import notes

VERDICT_WORDS: dict[Better | None, str] = {
    "new": "▲ besser",
    "baseline": "▼ schlechter",
    None: "≈ nicht unterscheidbar",
}
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


def row_verdict_word(row: RowComparison) -> str:
    """A row's verdict (``verdict_word``); a row whose one side has no verdict yet says so."""
    side = row.unjudged_side
    if side is None:
        return verdict_word(row.diff)
    return f"– nicht bewertet ({'neu' if side == 'new' else 'Baseline'})"


def _row_verdict_cell(row: RowComparison) -> Text:
    if row.unjudged_side is None:
        return _verdict_cell(row.diff)
    return Text(row_verdict_word(row), style="yellow")


def _category_cell(row: RowComparison, category: str) -> Text:
    """A category's verdict, decided over its row's categories (``RowComparison.
    category_better``); without an interval, why there is none."""
    diff = row.categories.get(category)
    if diff is None or diff.low is None:
        return _verdict_cell(diff)
    better = row.category_better(category)
    return Text(VERDICT_WORDS[better], style=_STYLES[better])


def category_rule(comparison: RunComparison) -> str:
    """How a category's ▲/▼ is decided: over its row's categories together."""
    tests = max((row.category_tests for row in comparison.rows), default=0)
    return (
        f"Bonferroni über die Kategorien der Zeile: bei {tests} Kategorien "
        f"{level_text(tests)}-%-Intervalle"
    )


def category_note(comparison: RunComparison) -> str:
    """Under every category (``--categories``): what their 95 % intervals are."""
    tests = max((row.category_tests for row in comparison.rows), default=0)
    return (
        "Die Intervalle nach Kategorie sind 95 % je Kategorie, explorativ: bei "
        f"{tests} Kategorien liegt in einer unveränderten Zeile oft eine ganz über oder unter "
        f"0, ohne dass sich etwas geändert hat. Das Urteil entscheidet über die Kategorien "
        f"einer Zeile zusammen ({category_rule(comparison)}): eine unveränderte Zeile zeigt in "
        "höchstens 5 % der Vergleiche eine Kategorie als besser oder schlechter."
    )


def _name(row: RowComparison) -> Text:
    model, variant = row.new.pair
    text = f"{model} · {variant}"
    if row.baseline.pair != row.new.pair:
        text += f" (vorher {row.baseline.pair[0]})"
    return plain(text)


def then_now(then: str, now: str) -> str:
    return f"{then} → {now}"


def _red_flags(side: Side) -> str:
    if not side.cells:
        return "–"  # nothing of this side was judged: no count, not a count of 0
    count, safety = side.red_flags, side.safety_red_flags
    return german.count(count) + (f" ({german.count(safety)} krit.)" if safety else "")


def _failed(side: Side) -> str:
    return german.count(side.failed) if side.cells else "–"


def rows_table(comparison: RunComparison) -> FittedTable:
    rows = comparison.rows
    columns = [
        Column("Modell · Variante", [_name(r) for r in rows], "left", key=True, fold=True),
        Column(
            "Differenz neu − Baseline (95 %)",
            [Text(diff_text(r.diff)) for r in rows],
            narrow="Differenz\n(95 %)",
        ),
        Column("Urteil", [_row_verdict_cell(r) for r in rows], "left"),
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
                        _red_flags(r.baseline),
                        _red_flags(r.new),
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
                    then_now(_failed(r.baseline), _failed(r.new)),
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


def categories_table(
    comparison: RunComparison, row: RowComparison, *, every: bool = True
) -> FittedTable | None:
    """One row's categories (one table per row: name and category side by side would not
    fit 80 columns with the interval and the verdict); ``every``: all of them, else only those
    that are better or worse (None when there is none)."""
    if len(comparison.categories) < 2 or not row.categories:
        return None
    titles = comparison.categories
    lines = [(c, d) for c, d in row.categories.items() if every or row.category_better(c)]
    if not lines:
        return None
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
                "Differenz (95 % je Kategorie)",
                [Text(diff_text(d)) for _, d in lines],
                narrow="Differenz\n(95 % je Kat.)",
            ),
            Column(
                "Urteil (über die Zeile)",
                [_category_cell(row, c) for c, _ in lines],
                "left",
                narrow="Urteil\n(über Zeile)",
            ),
            Column("Prompts", [Text(german.count(d.n if d else 0)) for _, d in lines]),
        ],
        more_title="Nach Kategorie (Fortsetzung)",
        elsewhere="--json",
    )


def render_comparison(
    comparison: RunComparison,
    result: GateResult,
    *,
    baseline_path: str = "",
    every_category: bool = False,
) -> RenderableType:
    """Notes (judges first, prominent), the rows, the categories, then the gate's sentence.

    By category only what is better or worse (one table of ten categories per row buried the
    rows of two equal runs); ``every_category`` (``--categories``) shows them all.
    """
    parts: list[RenderableType] = []
    for note in notes(comparison, "cli", baseline_path):
        parts.append(plain(note.text, style="bold yellow" if note.prominent else "dim"))
    parts.append(Text())
    parts.append(rows_table(comparison))
    tables = [
        table
        for row in comparison.rows
        if (table := categories_table(comparison, row, every=every_category)) is not None
    ]
    if len(comparison.categories) >= 2 and not every_category:
        parts.append(Text())
        said = (
            "nur Kategorien, die besser oder schlechter sind"
            if tables
            else "keine Kategorie ist besser oder schlechter"
        )
        parts.append(
            plain(
                f"Nach Kategorie: {said} ({category_rule(comparison)}); alle mit --categories "
                "und in --json.",
                style="dim",
            )
        )
    for table in tables:
        parts.append(Text())
        parts.append(table)
    if len(comparison.categories) >= 2 and every_category:
        parts.append(plain(category_note(comparison), style="dim"))
    parts.append(
        plain(
            "▲/▼: das 95-%-Intervall der Differenz (gepaarter Bootstrap über die Prompts, die "
            "beide Runs mit derselben Bewertungsgrundlage bewertet haben) liegt ganz über/unter "
            "0 (95 % je Zeile"
            + ("; das Gate entscheidet über alle Zeilen zusammen" if result.message else "")
            + "); fehlgeschlagene Antworten zählen mit dem Skalenminimum. Mittel, Warnsignale und "
            "Fehlschläge über die verglichenen Prompts. Untergrenze der Intervallbreite: nie "
            "schmaler, als die Streuung zwischen den Prompts und die der Wiederholungen (ohne "
            "Wiederholungen die Auflösung der Skala in ganzen Punkten) erlauben; darum hat auch "
            "eine Differenz von genau 0 ein Intervall (±), und mit wenigen Prompts ein breites.",
            style="dim",
        )
    )
    if result.message:
        style = "bold green" if result.exit_code == 0 else "bold red"
        parts.append(plain(result.message, style=style))
    return Group(*parts)
