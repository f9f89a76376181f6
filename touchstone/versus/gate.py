"""The CI gate over a comparison (design.md §19, §23): exit 0 pass, 1 worse, 3 inconclusive.

Every verdict holds for the whole card at 95 % (``family``: the m rows with an interval):

- ``--fail-on worse`` fails when some row's interval widened for m tests (Bonferroni) lies
  wholly below 0. Unchanged runs fail in at most 5 % whatever the number of rows (at 95 %
  per row, buero's six rows failed one time in six).
- ``--margin D`` (non-inferiority) passes when every row's own 95 % interval lies above
  −D: an intersection-union test (the card passes only if each row does, so the card is
  wrongly passed only if some row wrongly is, at most 5 %), which needs no correction.
  It fails only when some row's widened interval lies wholly below −D ("some row loses
  more than D" is a decision over the rows), and otherwise cannot tell (exit 3): the data
  cannot yet exclude a loss of more than D; more prompts or repeats narrow the interval. A
  row without an interval (one shared prompt) can never pass a margin.

The sentence names the intervals decided by and the power kept (``family.detectable_loss``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from touchstone import german, started
from touchstone.german import counted
from touchstone.limits import MIN_MARGIN, check_range
from touchstone.stats.intervals import Interval
from touchstone.versus.build import RowComparison, RunComparison
from touchstone.versus.family import (
    GateRow,
    correction_dict,
    gate_rows,
    level_text,
    passing_margin,
    used_text,
)

PASS, WORSE, INCONCLUSIVE = 0, 1, 3


@dataclass(frozen=True)
class GateResult:
    exit_code: int
    message: str  # "" when no gate was asked
    # --json beside the two: the correction, the intervals decided by, the power kept.
    details: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, object]:
        return {"exit_code": self.exit_code, "message": self.message, **self.details}


def check_margin(margin: float | None, span: float) -> None:
    """A margin lies in 0.01 (its two decimals) .. below the scale's span."""
    if margin is not None:
        check_range(
            "--margin",
            margin,
            MIN_MARGIN,
            span,
            below_high=True,
            note="Skalenpunkte, unter der Spannweite der Skala; z. B. --margin 0,3",
        )


def row_name(row: RowComparison) -> str:
    new, old = row.new.pair, row.baseline.pair
    name = f"{new[0]} · {new[1]}"
    return name if new == old else f"{name} (Baseline {old[0]})"


def diff_text(diff: Interval | None) -> str:
    """``-0,85 [-1,10 – -0,60]``, ``+0,00 ±0,16``: the difference with its interval, the
    difference and the bounds signed."""
    if diff is None:
        return german.DASH
    if diff.low is None or diff.high is None:
        return f"{german.signed(diff.mean)} (1 Prompt)"
    return german.interval(diff.mean, diff.low, diff.high, difference=True)


def gate(comparison: RunComparison, *, fail_on_worse: bool, margin: float | None) -> GateResult:
    """The gate's exit code and its German sentence."""
    if not fail_on_worse and margin is None:
        return GateResult(PASS, "")
    decided = gate_rows(comparison)
    tests = len(decided)
    failed: list[str] = []
    open_rows: list[str] = []
    by_row = {id(g.row): g for g in decided}
    unseen = [row for row in comparison.rows if not row.compared]
    for row in comparison.rows:
        got = by_row.get(id(row))
        if got is None:
            continue  # not compared: in ``unseen``
        high = None if got is None else got.adjusted.high
        if margin is not None and high is not None and high < -margin:
            failed.append(
                f"{row_name(row)} um mehr als {german.number(margin)} schlechter: "
                f"{diff_text(got.adjusted)}"
            )
        elif fail_on_worse and high is not None and high < 0:
            failed.append(f"{row_name(row)} schlechter: {diff_text(got.adjusted)}")
        elif margin is not None and (got.plain.low or 0) <= -margin:
            open_rows.append(_open_row(row, got, tests))
    power = _power_text(decided, tests, margin, fail_on_worse)
    details = {**_details(decided, tests, margin), "not_compared": unseen_rows(unseen)}
    used = f"Das Gate prüft {used_text(tests)}." if tests else ""
    unseen_text = not_compared_text(comparison, unseen)
    if failed:
        parts = [f"Gate nicht bestanden – {'; '.join(failed)}.", unseen_text, used, power]
        return GateResult(WORSE, " ".join(part for part in parts if part), details)
    if open_rows:
        head = "Gate unentschieden: " + (f"{unseen_text} Und " if unseen else "")
        return GateResult(
            INCONCLUSIVE,
            f"{head}bei {'; '.join(open_rows)} liegt das 95-%-Intervall nicht "
            f"ganz über -{german.number(margin)} (die Marge), "
            + (
                "aber auch nicht ganz darunter. "
                if tests <= 1
                else f"das für {tests} Zeilen erweiterte aber nicht ganz darunter. {used} "
            )
            + "Mehr Prompts oder mehr Wiederholungen (--repeats) machen das Intervall "
            f"schmaler. {power}",
            details,
        )
    if unseen:
        parts = [f"Gate unentschieden: {unseen_text}", used, power if tests else ""]
        return GateResult(INCONCLUSIVE, " ".join(part for part in parts if part), details)
    said = []
    if fail_on_worse:
        said.append("keine Zeile signifikant schlechter")
    if margin is not None:
        said.append(
            f"jede Zeile mit 95 % höchstens {german.number(margin)} schlechter (jedes "
            f"95-%-Intervall über -{german.number(margin)}; da jede Zeile für sich bestehen "
            "muss, gilt das für alle zusammen zu 95 %, ohne Korrektur)"
        )
    parts = [f"Gate bestanden: {'; '.join(said)}.", used if fail_on_worse else "", power]
    return GateResult(PASS, " ".join(part for part in parts if part), details)


def unseen_rows(rows: list[RowComparison]) -> list[dict[str, Any]]:
    """The rows the gate could not compare, for ``--json``: why, and what is unjudged."""
    return [
        {
            "new": list(row.new.pair),
            "baseline": list(row.baseline.pair),
            "reason": "unjudged" if row.unjudged_side else "too_few_prompts",
            "unjudged_new": row.new.unjudged,
            "unjudged_baseline": row.baseline.unjudged,
            "n_prompts": row.diff.n if row.diff else 0,
        }
        for row in rows
    ]


def _why_unseen(row: RowComparison) -> str:
    side = row.unjudged_side
    if side is not None:
        where, open_ = (
            ("im neuen Run", row.new) if side == "new" else ("in der Baseline", row.baseline)
        )
        return (
            f"{where} nicht bewertet "
            f"({counted(open_.unjudged, 'Antwort', 'Antworten')} ohne Bewertung)"
        )
    shared = row.diff.n if row.diff else 0
    text = (
        f"nur {shared} gemeinsamer Prompt" if shared == 1 else "kein gemeinsamer Prompt"
    ) + " mit derselben Bewertungsgrundlage, zu wenige für ein Intervall"
    for where, side_ in (("im neuen Run", row.new), ("in der Baseline", row.baseline)):
        if side_.unjudged:
            text += f"; {where} {counted(side_.unjudged, 'Antwort', 'Antworten')} ohne Bewertung"
    return text


def not_compared_text(comparison: RunComparison, rows: list[RowComparison]) -> str:
    """The rows the gate cannot decide on because it never compared them, and what to do."""
    if not rows:
        return ""
    named = "; ".join(f"{row_name(row)} nicht verglichen – {_why_unseen(row)}" for row in rows)
    todo = []
    if any(row.new.unjudged for row in rows):
        todo.append(started.command(f"judge {comparison.new_path or comparison.new_name}"))
    if any(row.baseline.unjudged for row in rows):
        baseline = comparison.baseline_path or comparison.baseline_name
        todo.append(started.command(f"judge {baseline}"))
    remedy = (
        f"Zuerst bewerten ({' und '.join(todo)}), dann erneut vergleichen."
        if todo
        else "Das Gate entscheidet eine Zeile erst über mindestens 2 Prompts, die beide Runs "
        "mit derselben Bewertungsgrundlage bewertet haben."
    )
    return f"{named}. Eine nicht verglichene Zeile kann das Gate nicht bestehen. {remedy}"


def _open_row(row: RowComparison, got: GateRow | None, tests: int) -> str:
    """An undecided row: its own interval, and the widened one where that differs."""
    text = f"{row_name(row)}: {diff_text(row.diff)}"
    if got is None or tests <= 1 or got.adjusted.low is None or got.adjusted.high is None:
        return text
    widened = german.bounds(got.adjusted.low, got.adjusted.high, difference=True)
    return f"{text} ({level_text(tests)} %: {widened})"


def _power_text(
    decided: list[GateRow], tests: int, margin: float | None, fail_on_worse: bool
) -> str:
    """The power the gate keeps at this run's size, for its least precise row."""
    if not decided:
        return "Keine Zeile hat ein Intervall (je ein gemeinsamer Prompt): nichts zu entscheiden."
    worst = max(decided, key=lambda g: g.loss)
    where = (
        f"{worst.plain.n} Prompts"
        if tests <= 1
        else f"am ungenauesten: {row_name(worst.row)}, {worst.plain.n} Prompts"
    )
    loss = f"ab einem Verlust von {german.number(worst.loss)} Punkten"
    if margin is None or fail_on_worse:
        text = (
            f"Bei dieser Run-Größe erkennt es eine Zeile mit 80 % {loss} als schlechter "
            f"({where}); kleinere Verluste kann es übersehen."
        )
    else:
        text = (
            f"Bei dieser Run-Größe fällt eine Zeile mit 80 % erst ab einem Verlust von "
            f"{german.number(margin + worst.loss)} Punkten durch ({where})."
        )
    if margin is not None:
        passing = max(g.margin for g in decided)
        text += (
            f" Eine unveränderte Zeile besteht die Marge mit 80 % (je Zeile) erst ab einer "
            f"Marge von {german.number(passing)}"
        )
        together = _all_pass(decided)
        if together is not None:
            text += (
                f"; alle {german.count(len(decided))} unveränderten Zeilen zusammen erst ab "
                f"etwa {german.number(together)}"
            )
        text += "."
    return text


def _all_pass(decided: list[GateRow]) -> float | None:
    """The margin at which every decided row, unchanged, passes at once with 80 % (the
    least precise row's; None with one row)."""
    if len(decided) < 2:
        return None
    found = [passing_margin(g.plain, len(decided)) for g in decided]
    return max(m for m in found if m is not None)


def _details(decided: list[GateRow], tests: int, margin: float | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "correction": correction_dict(tests),
        "rows": [g.as_dict() for g in decided],
        "power": 0.8,
        "detectable_loss": round(max((g.loss for g in decided), default=0.0), 4)
        if decided
        else None,
    }
    if margin is not None:
        out["margin"] = margin
        out["margin_pass"] = {"method": "intersection-union", "level": 0.95}
        out["passing_margin"] = round(max(g.margin for g in decided), 4) if decided else None
        together = _all_pass(decided)
        out["passing_margin_all_rows"] = None if together is None else round(together, 4)
    return out
