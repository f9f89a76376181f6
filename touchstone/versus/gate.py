"""The CI gate over a comparison (DESIGN §19): exit 0 pass, 1 worse, 3 inconclusive.

``--fail-on worse``: fails when some matched row is significantly worse (its interval lies
below 0). ``--margin D``: non-inferiority: passes when every row's interval lies above −D,
fails when some row's lies wholly below −D, and otherwise cannot tell (exit 3): the data
cannot yet exclude a loss of more than D, and more prompts or repeats narrow the interval.
A row without an interval (one shared prompt) can never pass a margin.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from touchstone import german
from touchstone.errors import InputError
from touchstone.stats import Interval
from touchstone.versus.build import RowComparison, RunComparison

PASS, WORSE, INCONCLUSIVE = 0, 1, 3


@dataclass(frozen=True)
class GateResult:
    exit_code: int
    message: str  # "" when no gate was asked

    def as_dict(self) -> dict[str, object]:
        return {"exit_code": self.exit_code, "message": self.message}


def check_margin(margin: float | None, span: float) -> None:
    """A margin must be a finite number above 0 and below the scale's span."""
    if margin is None:
        return
    if not math.isfinite(margin) or margin <= 0 or margin >= span:
        raise InputError(
            f"--margin {german.number(margin)}: erwartet wird eine Zahl über 0 und unter "
            f"{german.number(span)} (der Spannweite der Skala), z. B. --margin 0.3."
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
    mean = german.signed(diff.mean)
    if diff.low is None or diff.high is None:
        return f"{mean} (1 Prompt)"
    # Symmetric at the digits shown: "+0,00 ±0,16", as ``german.interval`` writes a mean.
    if round((diff.mean - diff.low) * 100) == round((diff.high - diff.mean) * 100):
        return f"{mean} ±{german.number(diff.mean - diff.low)}"
    return f"{mean} [{german.signed(diff.low)} – {german.signed(diff.high)}]"


def gate(comparison: RunComparison, *, fail_on_worse: bool, margin: float | None) -> GateResult:
    """The gate's exit code and its German sentence."""
    if not fail_on_worse and margin is None:
        return GateResult(PASS, "")
    failed: list[str] = []
    open_rows: list[str] = []
    for row in comparison.rows:
        diff = row.diff
        low = None if diff is None else diff.low
        high = None if diff is None else diff.high
        if margin is not None and high is not None and high < -margin:
            failed.append(
                f"{row_name(row)} um mehr als {german.number(margin)} schlechter: {diff_text(diff)}"
            )
        elif fail_on_worse and row.better == "baseline":
            failed.append(f"{row_name(row)} schlechter: {diff_text(diff)}")
        elif margin is not None and (low is None or low <= -margin):
            open_rows.append(f"{row_name(row)}: {diff_text(diff)}")
    if failed:
        return GateResult(WORSE, "Gate nicht bestanden – " + "; ".join(failed) + ".")
    if open_rows:
        return GateResult(
            INCONCLUSIVE,
            f"Gate unentschieden: bei {'; '.join(open_rows)} reicht das 95-%-Intervall unter "
            f"-{german.number(margin)} (die Marge), ohne ganz darunter zu liegen. Mehr Prompts "
            "oder mehr Wiederholungen (--repeats) machen das Intervall schmaler.",
        )
    said = []
    if fail_on_worse:
        said.append("keine Zeile signifikant schlechter")
    if margin is not None:
        said.append(f"jede Zeile mit 95 % höchstens {german.number(margin)} schlechter")
    return GateResult(PASS, "Gate bestanden: " + ", ".join(said) + ".")
