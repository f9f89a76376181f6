"""``report.html``: one self-contained page (inline CSS and SVG, no script, no CDN).

Rendered from ``templates/report.html`` (Jinja2, autoescape on), which shares the scorecard
markup with the GUI. It holds the ranked means with their 95 % intervals as error bars, the
scorecard, the comparison matrix, categories and dimensions, and per prompt its text, rubric
and answers with their verdicts. At scale it stays readable and small: per prompt and
(model, variant) it shows at most ``ANSWERS_PER_ROW`` repeats, and the answers of at most
``ANSWER_ROWS`` rows (the best ranked), and says where the rest is (``verdicts.csv``). Beyond
``MATRIX_ROWS`` ranked rows the matrix of every pair gives way to each row against its
neighbours in the ranking. So its size grows with rows and prompts, never with rows².
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import jinja2
from markupsafe import Markup, escape

from touchstone import german, started
from touchstone.pack import Pack, Prompt
from touchstone.packs.power import resolution_text
from touchstone.results import (
    UNSCORED_REASONS,
    EvalResponse,
    ModelReport,
    Verdict,
    VerdictKey,
    unscored_label,
)
from touchstone.scorecard.bias import SAME_FAMILY, bias_lines
from touchstone.scorecard.build import Scorecard
from touchstone.scorecard.texts import (
    failed_text,
    speed_text,
    truncated_advice,
    unscored_text,
    zero_counts,
)
from touchstone.spot.agreement import HumanAgreement
from touchstone.spot.card import card_view
from touchstone.stats.intervals import Interval

TEMPLATES = Path(__file__).resolve().parent / "templates"
ANSWERS_PER_ROW = 2
ANSWER_CHARS = 4000
# Up to this many ranked rows the report and the GUI draw every pair as a matrix; beyond,
# each row against its neighbours in the ranking (the GUI pages a row's other comparisons).
MATRIX_ROWS = 20
# Per prompt, the answers of at most this many rows (the best ranked; the rest in the CSV):
# 400 rows x 27 prompts would otherwise put 10,800 answers into one page.
ANSWER_ROWS = 20


def interval_text(interval: Interval | None, digits: int = 2) -> str:
    """``4,85 [4,70 – 4,96]`` (``german.interval``) of a scorecard interval, as plain text."""
    if interval is None:
        return german.DASH
    return german.interval(interval.mean, interval.low, interval.high, digits)


# What never parts on a page: an interval's bounds, a number and its unit (``german`` joins
# those with a no-break space for the terminal).
_HELD = re.compile(r"\[[^\]]*\]|\S+(?:\u00a0\S+)+")


def held(text: str) -> Markup:
    """``text`` escaped for a page, what must not part at a line break in no-wrap spans: the
    text itself keeps plain spaces (a copied number carries no U+00A0 or U+2060), so a
    narrow cell breaks only before the "[" (a phone's scorecard keeps ⚑ in view)."""
    parts: list[str] = []
    last = 0
    for match in _HELD.finditer(text):
        parts.append(escape(text[last : match.start()]))
        piece = match.group(0).replace("\u00a0", " ")
        parts.append(Markup('<span class="nowrap">{}</span>').format(piece))
        last = match.end()
    parts.append(escape(text[last:]))
    return Markup("").join(parts)


# A line that keeps its own line: a list item, a table row, an indented (code) line.
_OWN_LINE = re.compile(r"^\s*(?:[-*•–]\s|\d+[.)]\s|\|)|^\s{2,}\S")


def paragraphs(text: str) -> Markup:
    """A pack's prompt text for a page that wraps it to its width: a blank line starts a new
    paragraph, a single line break inside one is a space (the pack's hard breaks left
    dangling words on a phone), except in blocks with list items, table rows or indented
    lines, which keep their lines."""
    blocks = [block for block in re.split(r"\n\s*\n", text.strip()) if block.strip()]
    parts = []
    for block in blocks:
        lines = block.splitlines()
        if any(_OWN_LINE.match(line) for line in lines):
            body = Markup("<br>").join(escape(line) for line in lines)
        else:
            body = escape(" ".join(line.strip() for line in lines))
        parts.append(Markup("<p>{}</p>").format(body))
    return Markup("\n").join(parts)


def interval_html(interval: Interval | None, digits: int = 2) -> Markup:
    """``interval_text`` for a page, its bounds held together (``held``)."""
    return held(interval_text(interval, digits))


def template_environment(*directories: Path, strict: bool = False) -> jinja2.Environment:
    """A Jinja2 environment over ``directories`` and the shared templates, autoescaping.

    ``strict``: a name the template uses but nobody passed is an error, not an empty string.
    Every number a page shows passes a filter of ``german`` (design.md §22): ``number``,
    ``signed``, ``count``, ``percent``, ``seconds``, ``interval`` (of a scorecard interval),
    ``local_time``;
    ``counted(n, "Aufruf", "Aufrufe")`` for a count with its word.
    """
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader([*map(str, directories), str(TEMPLATES)]),
        autoescape=True,
        undefined=jinja2.StrictUndefined if strict else jinja2.Undefined,
    )
    env.filters.update(
        number=german.number,
        signed=german.signed,
        count=german.count,
        percent=german.percent,
        seconds=lambda value: held(german.seconds(value)),
        interval=interval_html,
        paragraphs=paragraphs,
        local_time=german.local_time,
    )
    env.globals.update(
        # A command a page names, as this process was started: cli('rate').
        cli=started.command,
        # The older names, so that no template shows a number the English way.
        fmt=german.number,
        fmt_interval=interval_text,
        counted=german.counted,
        interval_of=german.interval,
        bounds=german.bounds,
        unscored_label=unscored_label,
        unscored_text=unscored_text,
        failed_text=failed_text,
        truncated_advice=truncated_advice,
        bias_lines=bias_lines,
        same_family=SAME_FAMILY,
        zero_counts=zero_counts,
        speed_text=lambda row: held(speed_text(row)),
        reasons=UNSCORED_REASONS,
        matrix_rows=MATRIX_ROWS,
        resolution_text=resolution_text,
    )
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
    text: str
    # Positions on the scale in percent of the track; None without a mean.
    mean: float | None = None
    low: float = 0.0
    high: float = 0.0
    color: str = "#eceff1"


@dataclass
class MeansChart:
    """The means chart: a bar per row (best first), its 95 % interval as an error bar."""

    bars: list[_Bar] = field(default_factory=list)
    ticks: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, card: Scorecard, low: float, high: float) -> MeansChart:
        chart = cls()

        def percent(value: float) -> float:
            return round(_share(value, low, high) * 100, 2)

        for row in card.rows:
            rank = f"{row.rank}. " if row.rank is not None else ""
            bar = _Bar(f"{rank}{row.model} · {row.variant}", interval_html(row.interval))
            if row.interval is not None:
                interval = row.interval
                bar.mean = percent(interval.mean)
                # One prompt: no interval, so no error bar (it would read as certainty).
                if interval.low is not None and interval.high is not None:
                    bar.low, bar.high = percent(interval.low), percent(interval.high)
                else:
                    bar.low = bar.high = bar.mean
                bar.color = heat_color(row.interval.mean, low, high)
            chart.bars.append(bar)
        steps = int(high - low) if float(high - low).is_integer() and high - low <= 10 else 4
        chart.ticks = [
            f"{low + (high - low) * step / steps:g}".replace(".", ",") for step in range(steps + 1)
        ]
        return chart


@dataclass
class _PromptSection:
    prompt: Prompt
    category_title: str
    rows: list[tuple[Verdict, EvalResponse | None]]
    hidden: int


def _prompt_sections(
    pack: Pack,
    verdicts: Sequence[Verdict],
    answers: dict[VerdictKey, EvalResponse],
    shown_rows: set[tuple[str, str]],
) -> tuple[list[_PromptSection], int]:
    """Per prompt its verdicts of ``shown_rows`` (at most ``ANSWERS_PER_ROW`` repeats per
    model/variant)."""
    by_prompt: dict[str, list[Verdict]] = {}
    for verdict in verdicts:
        by_prompt.setdefault(verdict.prompt_id, []).append(verdict)
    sections = []
    hidden_total = 0
    for category, prompt in pack.all_prompts():
        shown: list[tuple[Verdict, EvalResponse | None]] = []
        per_row: dict[tuple[str, str], int] = {}
        hidden = 0
        mine = sorted(by_prompt.get(prompt.id, []), key=lambda v: (v.model, v.variant, v.repeat))
        for verdict in mine:
            pair = (verdict.model, verdict.variant)
            if pair not in shown_rows or per_row.get(pair, 0) >= ANSWERS_PER_ROW:
                hidden += 1
                continue
            per_row[pair] = per_row.get(pair, 0) + 1
            shown.append((verdict, answers.get(verdict.key)))
        if mine:
            sections.append(_PromptSection(prompt, category.title, shown, hidden))
        hidden_total += hidden
    return sections, hidden_total


def render_report(
    *,
    run_name: str,
    pack: Pack,
    responses: Sequence[EvalResponse],
    verdicts: Sequence[Verdict],
    reports: Sequence[ModelReport],
    card: Scorecard,
    created_at: str = "",
    csv_link: str | None = None,
    human: HumanAgreement | None = None,
) -> str:
    """The report's HTML. ``csv_link``: where the verdicts are as CSV when the report is not
    a file beside ``verdicts.csv`` (the GUI renders it from the run's data)."""
    low, high = float(pack.scale.min), float(pack.scale.max)
    notices = []
    if card.mixed_judges:
        notices.append(
            "⚠ Dieser Run wurde von mehreren Judge-Modellen bewertet: "
            + ", ".join(card.judge_models)
        )
    unanswered = sum(r.unanswered for r in card.rows)
    open_cells = sum(r.open for r in card.rows) - unanswered
    if open_cells:
        notices.append(
            f"⚠ {german.counted(open_cells, 'Antwort ist', 'Antworten sind')} noch nicht "
            "bewertet; "
            f"`{started.command('judge')}` bewertet sie beim nächsten Durchgang."
        )
    if unanswered:
        notices.append(
            f"⚠ {german.counted(unanswered, 'Zelle', 'Zellen')}, die der Run plant, "
            f"{'hat' if unanswered == 1 else 'haben'} noch keine Antwort; "
            f"`{started.command('run')}` mit --out auf diesen Run beantwortet sie."
        )
    titles = {c.id: c.title for c in pack.categories}
    dim_titles = {d.id: d.title for d in pack.dimensions}
    answers = {r.key: r for r in responses}
    shown_rows = {row.pair for row in card.rows[:ANSWER_ROWS]}
    sections, hidden = _prompt_sections(pack, verdicts, answers, shown_rows)
    template = template_environment(strict=True).get_template("report.html")
    return template.render(
        run_name=run_name,
        pack=pack,
        created_at=created_at,
        card=card,
        titles=titles,
        dim_titles=dim_titles,
        notices=notices,
        chart=MeansChart.of(card, low, high),
        heat=lambda value: heat_color(value, low, high),
        dim_errors=[f"{r.model} · {r.variant}: {r.dim_error}" for r in card.rows if r.dim_error],
        sections=sections,
        hidden=hidden,
        total_verdicts=len(verdicts),
        answer_chars=ANSWER_CHARS,
        answers_per_row=ANSWERS_PER_ROW,
        answer_rows=ANSWER_ROWS if len(card.rows) > ANSWER_ROWS else None,
        csv_link=csv_link,
        human=card_view(human) if human is not None else None,
    )
