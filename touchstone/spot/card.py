"""The agreement card in words: the figures as German lines (terminal, report, GUI alike)
and the terminal's rich rendering. Names of models and raters are data: ``plain`` text."""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Group
from rich.table import Table
from rich.text import Text

from touchstone import german
from touchstone.german import DASH
from touchstone.plain import plain
from touchstone.spot.agreement import HumanAgreement, milder_de, row_label

TITLE = "Stichprobe: stimmt der Judge mit Ihnen überein?"


@dataclass(frozen=True)
class RowLine:
    label: str
    n: int
    diff: str
    words: str


def _share(value: float, ci: tuple[float, float] | None) -> str:
    shown = german.percent(value)
    if ci is None:
        return shown
    return f"{shown} {german.percents(*ci)}"


def figures_de(card: HumanAgreement) -> list[tuple[str, str]]:
    """The card's figures as (label, value) lines."""
    raters = ", ".join(card.raters)
    rated = german.counted(card.n, "Zelle", "Zellen")
    if card.cells < card.n:  # several raters rated a cell: each rating is a pair
        cells = german.counted(card.cells, "Zelle", "Zellen")
        rated = f"{german.counted(card.n, 'Bewertung', 'Bewertungen')} ({cells})"
    if card.without_verdict:
        rated += f" (dazu {card.without_verdict} ohne Wertung des Judges, nicht gezählt)"
    lines = [("Bewertet", f"{rated} von {raters}")]
    if not card.n:
        return lines
    lines.append(("Genau gleich", exact_de(card)))
    if 1 < card.span <= 10:
        lines.append(("Höchstens 1 Punkt entfernt", _share(card.within_one, card.within_one_ci)))
    lines.append(("Gewichtetes Kappa", kappa_de(card)))
    lines.append(
        (
            "Warnsignale",
            f"Ihre {card.human_flags}: der Judge erkannte {card.judge_raised}; "
            f"seine {card.judge_flags}: Sie bestätigten {card.human_confirmed}",
        )
    )
    lines.append(("Judge gegenüber Ihnen", mean_sentence(card)))
    if card.rows_test is not None:
        lines.append(("Modelle verglichen", rows_test_de(card)))
    return lines


def exact_de(card: HumanAgreement) -> str:
    """Exact agreement where it can happen: a jury's median between two points never
    equals a person's whole point, so those pairs are not counted (and said so)."""
    if card.exact is None:
        return (
            f"{DASH} (alle {card.n} Jury-Wertungen liegen auf halben Punkten: genau gleich "
            "wie Ihre ganzen Punkte können sie nicht sein)"
        )
    if not card.judge_halves:
        return _share(card.exact, card.exact_ci)
    whole = german.counted(card.n - card.judge_halves, "Wertung", "Wertungen")
    shown = german.percent(card.exact) + f" der {whole} auf ganzen Punkten"
    if card.exact_ci is not None:
        shown += f" {german.percents(*card.exact_ci)}"
    return (
        f"{shown}; die übrigen {card.judge_halves} Jury-Wertungen liegen auf halben Punkten "
        "und sind nicht gezählt (genau gleich können sie nicht sein)"
    )


def kappa_de(card: HumanAgreement) -> str:
    if card.kappa is None:
        return "nicht bestimmbar"
    if card.kappa_ci is None:
        return f"{german.number(card.kappa)} [{DASH}: {card.kappa_note}]"
    return german.interval(card.kappa, *card.kappa_ci)


def rows_test_de(card: HumanAgreement) -> str:
    """Which correction the verdict "rows differ" took: its 95 % holds for the card."""
    test = card.rows_test
    assert test is not None
    if test.pairs == 0:
        return test.text_de()
    method = test.text_de() if test.pairs == 1 else f"Welch-Test je Paar, {test.text_de()}"
    return (
        f"{method}: „unterscheiden sich“ gilt zu 95 % für die ganze Karte; die Intervalle je "
        "Modell gelten zu 95 % je Zeile"
    )


def mean_sentence(card: HumanAgreement) -> str:
    """ "Der Judge bewertet im Mittel 0,6 Punkte milder als Sie [+0,3 – +0,9]"."""
    ci = card.mean_diff_ci
    if ci is not None:
        interval = f" {german.bounds(*ci, 1, difference=True)}"
    else:
        interval = f" ({DASH}: {card.mean_diff_note})" if card.mean_diff_note else ""
    return f"Der Judge bewertet im Mittel {milder_de(card.mean_diff)}{interval}"


def row_lines(card: HumanAgreement) -> list[RowLine]:
    """Per model/variant: n, judge minus human with its interval, and in words."""
    return [
        RowLine(
            label=row_label(row, card.rows),
            n=row.n,
            diff=_signed_interval(row.mean_diff, row.ci),
            # Without an interval, why (the bracket shows only the dash).
            words=milder_de(row.mean_diff) + (f"; {row.ci_note}" if row.ci_note else ""),
        )
        for row in card.rows
    ]


def _signed_interval(mean: float, ci: tuple[float, float] | None) -> str:
    shown = german.signed(mean, 1)
    if ci is None:
        return f"{shown} [{DASH}]"
    return f"{shown} {german.bounds(*ci, 1, difference=True)}"


def verdict_style(card: HumanAgreement) -> str:
    return {"bestätigt": "bold green", "weicht ab": "bold red"}.get(card.verdict, "yellow")


def render_human_card(card: HumanAgreement) -> Group:
    """The card for the terminal: figures, the rows, the verdict line."""
    table = Table(title=TITLE, title_justify="left", show_header=False)
    table.add_column("", no_wrap=True, style="bold")
    table.add_column("", overflow="fold")
    for label, value in figures_de(card):
        table.add_row(label, plain(value))
    parts: list[Table | Text] = [table]
    if card.rows:
        rows = Table(title="Judge minus Sie, je Modell", title_justify="left")
        rows.add_column("Modell", overflow="fold")
        rows.add_column("n", justify="right", no_wrap=True)
        rows.add_column("Differenz (95 % je Zeile)", no_wrap=True)
        rows.add_column("", overflow="fold")
        for line in row_lines(card):
            rows.add_row(plain(line.label), str(line.n), line.diff, line.words)
        parts.append(rows)
    parts.append(Text.assemble("Urteil: ", plain(card.verdict_de(), style=verdict_style(card))))
    return Group(*parts)


def card_view(card: HumanAgreement) -> dict[str, object]:
    """What the report's and the GUI's card show (``templates/human.html``)."""
    return {
        "title": TITLE,
        "figures": figures_de(card),
        "rows": row_lines(card),
        "verdict": card.verdict_de(),
        "state": {"bestätigt": "ok", "weicht ab": "off"}.get(card.verdict, "few"),
    }
