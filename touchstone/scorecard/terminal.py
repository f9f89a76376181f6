"""The scorecard as the terminal shows it (rich): ranked rows, means with their intervals.

Names and titles are data (a shared run dir, its pack): each cell is ``plain`` text. The
table fits the terminal's width (``columns.FittedTable``, design.md §22): rank, model, variant,
n/N, the mean with its interval, red flags and the failed/unscored counts are never cut; the
safety-critical flags move last, after speed, categories and open cells. Numbers are German
(``touchstone.german``).
"""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.text import Text

from touchstone import german
from touchstone.german import DASH, count
from touchstone.pack import Pack
from touchstone.packs.power import resolution_text
from touchstone.plain import plain
from touchstone.scorecard.bias import FAMILY_MARK, bias_lines
from touchstone.scorecard.build import Scorecard, ScoreRow
from touchstone.scorecard.columns import Column, FittedTable
from touchstone.scorecard.texts import (
    failed_text,
    fmt,
    fmt_interval,
    truncated_advice,
    unscored_text,
    zero_counts,
)

# Where the figures the terminal cannot show are (report and scorecard.json of the run).
ELSEWHERE = "report.html und scorecard.json des Runs"
# Drop order: the highest moves to the second table first; safety findings move last.
SAFETY, OPEN, CATEGORIES, SPEED = 1, 2, 3, 4


def render_scorecard(
    card: Scorecard,
    *,
    category_titles: dict[str, str] | None = None,
    dimension_titles: dict[str, str] | None = None,
) -> Group:
    """The scorecard as rich renderables: the ranked table (and, when narrow, a second one),
    the reasons of failed and unscored cells, a legend, ties, the dimensions.

    Category columns carry the category ids to keep the table narrow; the legend names them.
    """
    titles = category_titles or {}
    # The judge's last judge-check first: an unfit judge's verdicts read like any others.
    fitness = card.judge_fitness
    tones = {"unfit": "bold red", "unchecked": "yellow", "fit": "green"}
    parts: list[Any] = [
        plain(text, style=tones[tone]) for tone, text in (fitness.toned() if fitness else [])
    ]
    parts.append(
        FittedTable(
            "Scorecard",
            _columns(card),
            more_title="Scorecard (Fortsetzung)",
            elsewhere=ELSEWHERE,
        )
    )
    parts += _count_lines(card.rows)
    advice = truncated_advice(card.rows, card.max_tokens)
    if advice:
        parts.append(plain(advice, style="yellow"))
    entries = category_entries(card, titles)
    if entries:
        parts.append(HeldEntries("Kategorien:", entries, style="dim"))
    parts.append(plain(legend(card, titles, categories=False), style="dim"))
    ties = tie_text(card)
    if ties:
        parts.append(plain(ties))
    if card.resolution is not None:
        parts.append(Text(resolution_text(card.resolution)))
    if card.jury_card is not None:
        from touchstone.quality.jury_card import JuryLines  # a single judge's card needs none

        parts.append(JuryLines(card.jury_card))
    parts += _dimensions(card, dimension_titles or {})
    if card.judge_models:
        label = "Judge-Modelle" if card.mixed_judges else "Judge-Modell"
        line = plain(f"{label}: {', '.join(_judge_names(card))}")
        if card.mixed_judges:
            line.append("  ⚠ Dieser Run wurde von mehreren Judge-Modellen bewertet.", "yellow")
        parts.append(line)
    parts += [plain(line) for line in bias_lines(card)]
    return Group(*parts)


def _model(row: ScoreRow) -> Text:
    """The model's name; marked when it shares the judge's family (``bias.family_note``)."""
    text = plain(row.model)
    if row.judge_family is not None:
        text.append(f" {FAMILY_MARK}", style="yellow")
    return text


def _flag(value: int, style: str) -> Text:
    return Text(count(value), style=style if value else "")


def _judged_flag(row: ScoreRow, value: int, style: str) -> Text:
    """A red-flag count of a row, "–" where nothing of it was judged (0/65): no count, not a
    count of 0 (as compare's rows since issue 35)."""
    return _flag(value, style) if row.scored else Text(DASH)


def _columns(card: Scorecard) -> list[Column]:
    rows = card.rows
    columns = [
        Column("Rang", [Text(DASH if r.rank is None else str(r.rank)) for r in rows]),
        Column("Modell", [_model(r) for r in rows], justify="left", key=True, fold=True),
        Column("Variante", [plain(r.variant) for r in rows], justify="left", key=True, fold=True),
        Column("bewertet", [Text(f"{count(r.scored)}/{count(r.cells)}") for r in rows]),
        # Left-aligned: the means stand one under another whether the interval shows as
        # "[4,70 – 4,96]" or "±0,12".
        Column(
            "Mittel (95 %)",
            [Text(fmt_interval(r.interval), style="bold") for r in rows],
            justify="left",
            narrow="Mittel\n(95 %)",
        ),
        Column("⚑", [_judged_flag(r, r.red_flags, "red") for r in rows]),
        Column(
            "⚑ krit.",
            [_judged_flag(r, r.safety_red_flags, "bold red") for r in rows],
            narrow="⚑\nkrit.",
            drop=SAFETY,
        ),
    ]
    # The counts of failed, unscored and open cells are shown where any row has one; when
    # all are 0, a line says so (``_count_lines``).
    if any(r.failed for r in rows):
        failed = [_flag(r.failed_count, "yellow") for r in rows]
        columns.append(Column("fehlgeschlagen", failed, narrow="fehl-\ngeschlagen"))
    if any(r.unscored for r in rows):
        unscored = [_flag(sum(r.unscored.values()), "yellow") for r in rows]
        columns.append(Column("unbewertet", unscored, narrow="unbe-\nwertet"))
    if any(r.truncated for r in rows):  # answers cut at max_tokens (finish_reason "length")
        cut = [_flag(r.truncated, "yellow") for r in rows]
        columns.append(Column("abgeschnitten", cut, narrow="abge-\nschnitten"))
    if any(r.open for r in rows):
        columns.append(Column("offen", [Text(count(r.open)) for r in rows], drop=OPEN))
    for category in card.categories:
        means = [Text(fmt(r.category_means.get(category))) for r in rows]
        columns.append(Column(category, means, drop=CATEGORIES))
    latency = [Text(german.seconds(r.latency_median_s)) for r in rows]
    rate = [Text(german.number(r.tokens_per_s, 0) if r.tokens_per_s else DASH) for r in rows]
    columns.append(Column("Latenz", latency, drop=SPEED))
    columns.append(Column("Tok/s", rate, drop=SPEED))
    return columns


def _count_lines(rows: list[ScoreRow]) -> list[Text]:
    """The reasons of failed and unscored cells, one line per row that has any; and which
    counts are 0 in every row (their columns are not printed)."""
    lines: list[Text] = []
    zero = zero_counts(rows)
    if rows and zero:
        lines.append(Text(f"{', '.join(zero)}: in allen Zeilen 0."))
    for row in rows:
        said = [failed_text(row)] if row.failed else []
        if row.unscored:
            said.append(f"unbewertet: {unscored_text(row)}")
        if said:
            lines.append(plain(f"{row.model} · {row.variant}: {'; '.join(said)}", style="yellow"))
    return lines


def _judge_names(card: Scorecard) -> list[str]:
    """The judge line's names; a jury's as its active members, the dropped ones marked
    ("Jury (a, b; ausgeschieden: c)"): a dropped member judged nothing."""
    jury = card.jury
    if jury is None or not any(m.dropped for m in jury.members):
        return card.judge_models
    active = ", ".join(m.model for m in jury.members if not m.dropped)
    dropped = ", ".join(m.model for m in jury.members if m.dropped)
    return [f"Jury ({active}; ausgeschieden: {dropped})"]


def _dimensions_source(card: Scorecard) -> list[Any]:
    """A jury's holistic dimensions come from its first member: a line says whose."""
    if card.jury is None or not card.jury.members:
        return []
    first = card.jury.members[0].model
    return [
        plain(f"Die Gesamtbewertung stammt von {first}, dem ersten Judge der Jury.", style="dim")
    ]


def _dimensions(card: Scorecard, titles: dict[str, str]) -> list[Any]:
    """The holistic dimensions as a table of their own, and each row's note in a line."""
    parts: list[Any] = []
    if card.dimensions:
        columns = [
            Column("Modell", [plain(r.model) for r in card.rows], justify="left", key=True),
            Column("Variante", [plain(r.variant) for r in card.rows], justify="left", key=True),
        ]
        for index, dim in enumerate(card.dimensions):
            title = titles.get(dim, dim)
            columns.append(
                Column(
                    title,
                    [Text(fmt(r.dim_scores.get(dim))) for r in card.rows],
                    narrow=_two_lines(title),
                    drop=len(card.dimensions) - index,
                )
            )
        for key in columns[:2]:
            key.fold = True
        parts.append(
            FittedTable(
                "Gesamtbewertung (Dimensionen)",
                columns,
                more_title="Gesamtbewertung (Fortsetzung)",
                elsewhere="report.html",
            )
        )
        parts += _dimensions_source(card)
    for row in card.rows:
        if row.dim_error:
            note = f"Hinweis zur Gesamtbewertung von {row.model} · {row.variant}: {row.dim_error}"
            parts.append(plain(note, style="yellow"))
    return parts


def _two_lines(title: str) -> str:
    """``title`` in two lines broken at the word that makes the longer line shortest
    ("Sicherheit und\nDatenschutz"); one word stays one line."""
    words = title.split()
    if len(words) < 2:
        return title
    splits = [(" ".join(words[:i]), " ".join(words[i:])) for i in range(1, len(words))]
    first, second = min(splits, key=lambda pair: max(map(len, pair)))
    return f"{first}\n{second}"


class HeldEntries:
    """``Kategorien: A = Korrespondenz, B = …`` wrapped between entries, never inside one
    ("D" at a line's end, "= Tabellen und Formeln" on the next read as two things); in a
    pipe (no wrapping) one line."""

    def __init__(self, label: str, entries: list[str], style: str = "") -> None:
        self.label, self.entries, self.style = label, entries, style

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        pieces = [f"{e}," for e in self.entries[:-1]] + self.entries[-1:]
        lines = [self.label]
        for piece in pieces:
            joined = f"{lines[-1]} {piece}" if lines[-1] else piece
            if options.no_wrap or cell_len(joined) <= options.max_width or lines[-1] == self.label:
                lines[-1] = joined
            else:
                lines.append(piece)
        for line in lines:
            yield plain(line, style=self.style)


def category_entries(card: Scorecard, titles: dict[str, str]) -> list[str]:
    """``A = Korrespondenz`` for each category column the table shows (one without any mean
    is left out, as its column)."""
    rows = card.rows
    shown = [c for c in card.categories if any(r.category_means.get(c) is not None for r in rows)]
    return [f"{c} = {titles.get(c, c)}" for c in shown]


def legend(card: Scorecard, titles: dict[str, str], *, categories: bool = True) -> str:
    """What the columns mean, one line each (on a narrow terminal each wraps at words); a
    column that is not printed is not explained. ``categories``: with the line that names
    the category columns (the terminal prints it apart, as ``HeldEntries``)."""
    rows = card.rows
    named = ", ".join(category_entries(card, titles)) if categories else ""
    marks = ["⚑ = Warnsignale, ⚑ krit. = davon sicherheitskritisch"]
    if any(r.unscored for r in rows):
        marks.append("unbewertet: ohne Wertung, zählen nicht im Mittel")
    if any(r.truncated for r in rows):
        marks.append("abgeschnitten: Antworten, die an --max-tokens endeten")
    if any(r.open for r in rows):
        marks.append("offen: noch nicht bewertet")
    if any(r.latency_median_s is not None for r in rows):
        marks.append("Latenz: Median")
    if any(r.tokens_per_s for r in rows):
        marks.append("Tok/s: Ausgabe-Tokens je Sekunde")
    lines = [
        f"Kategorien: {named}" if named else "",
        "bewertet: bewertete von allen Zellen; fehlgeschlagene Antworten (Frist überschritten, "
        "Prompt verweigert, leer, nur Reasoning) zählen mit dem Skalenminimum",
        "Mittel (95 %): Mittelwert und 95-%-Intervall [untere – obere Grenze], 95 % je Zeile "
        "(für diese Zeile allein), Bootstrap über Prompts; ± nur bei symmetrischem Intervall; "
        "bei nur einem Prompt kein Intervall",
        *card.ranks.legend(),
        " · ".join(marks),
    ]
    return "\n".join(line for line in lines if line)


def tie_text(card: Scorecard) -> str:
    """The rows that share a rank, said in words ("nicht unterscheidbar", at the level of the
    ranks: for the whole card)."""
    by_rank: dict[int, list[str]] = {}
    for row in card.rows:
        if row.rank is not None:
            by_rank.setdefault(row.rank, []).append(f"{row.model} · {row.variant}")
    groups = [names for names in by_rank.values() if len(names) > 1]
    if not groups:
        return ""
    return f"{card.ranks.tie_label()}: " + "; ".join(" = ".join(g) for g in groups)


def render_run_scorecard(pack: Pack, card: Scorecard) -> Group:
    """The scorecard of a run as the terminal shows it (titles from the pack)."""
    return render_scorecard(
        card,
        category_titles={c.id: c.title for c in pack.categories},
        dimension_titles={d.id: d.title for d in pack.dimensions},
    )
