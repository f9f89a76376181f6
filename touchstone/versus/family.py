"""The gate's decisions over the rows it decides on, and the power it keeps (design.md §23).

"Some row is worse" is wrong whenever any one row's interval is: at 95 % per row, two
runs of buero's six unchanged rows failed the gate one time in six. So the gate takes each
row's interval at 1 - 0.05/m for the m rows with an interval (Bonferroni,
``multiplicity.widened``): all m hold together at 95 %.

What that costs is said with the figure ``pack check`` states (``packs.power``): the
smallest true loss a row's decision finds with 80 % power. A row's 95 % half width h over
n prompts gives its standard error, se = h / t(0.975, n - 1); the gate at m rows finds a
loss of (t(1 - 0.05/(2m), n - 1) + t(0.80, n - 1)) · se with 80 %. A margin D passes a row
whose true loss is 0 with 80 % once D >= (t(0.975, n - 1) + t(0.80, n - 1)) · se (each
row's own interval: see ``gate``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from touchstone import german
from touchstone.stats.distributions import LEVEL, t_beyond, t_upper
from touchstone.stats.intervals import Interval
from touchstone.stats.multiplicity import ALPHA, set_level, widened
from touchstone.stats.power import POWER, power_quantile
from touchstone.versus.build import RowComparison, RunComparison

_DF_CAP = 1000  # as distributions.t_upper: beyond, t is the normal quantile


def _standard_error(diff: Interval) -> tuple[float, int] | None:
    """The standard error a 95 % interval over ``diff.n`` prompts shows, and its df."""
    half = diff.half_width
    if half is None or diff.n < 2:
        return None
    df = diff.n - 1
    return half / t_upper(df), df


def detectable_loss(diff: Interval, tests: int) -> float | None:
    """The smallest true loss a decision at ``set_level(tests)`` finds with 80 % power, at
    the standard error ``diff`` (a 95 % interval) shows; None without an interval."""
    found = _standard_error(diff)
    if found is None:
        return None
    se, df = found
    return (t_beyond(ALPHA / (2 * max(1, tests)), min(df, _DF_CAP)) + power_quantile(df)) * se


def passing_margin(diff: Interval, rows: int = 1) -> float | None:
    """The margin an unchanged row passes with 80 % power (its own 95 % interval above
    -margin); with ``rows``, the margin at which every one of ``rows`` unchanged rows of this
    precision passes at once with 80 % (each with 0.8^(1/rows): a margin that one row passes
    with 80 % lets 6 rows pass together about half the time). Rows of one run share their
    prompts and pass together more often than independent ones: an upper bound. None
    without an interval."""
    found = _standard_error(diff)
    if found is None:
        return None
    se, df = found
    return (t_upper(df) + power_quantile(df, POWER ** (1 / max(1, rows)))) * se


@dataclass(frozen=True)
class GateRow:
    """One row the gate decides on: its own 95 % interval and the widened one."""

    row: RowComparison
    plain: Interval
    adjusted: Interval
    loss: float  # detectable_loss at the gate's tests
    margin: float  # passing_margin

    def as_dict(self) -> dict[str, Any]:
        return {
            "new": list(self.row.new.pair),
            "baseline": list(self.row.baseline.pair),
            "ci_low": round(self.adjusted.low or 0.0, 4),
            "ci_high": round(self.adjusted.high or 0.0, 4),
            "n_prompts": self.plain.n,
            "detectable_loss": round(self.loss, 4),
            "passing_margin": round(self.margin, 4),
        }


def gate_rows(comparison: RunComparison) -> list[GateRow]:
    """The rows with an interval (a row of one shared prompt has none: no decision), each
    widened for their number."""
    decided = [
        row.diff
        for row in comparison.rows
        if row.diff is not None and row.diff.low is not None and row.diff.high is not None
    ]
    tests = len(decided)
    out = []
    for row in comparison.rows:
        diff = row.diff
        if diff is None or diff.low is None or diff.high is None:
            continue
        loss, margin = detectable_loss(diff, tests), passing_margin(diff)
        assert loss is not None and margin is not None  # an interval over >= 2 prompts
        out.append(GateRow(row, diff, widened(diff, tests, row.bounds), loss, margin))
    return out


def level_text(tests: int) -> str:
    """The level each of ``tests`` intervals is taken at, as a reader writes it: ``95``,
    ``97,5``, ``99,2``; as many digits as keep it below 100."""
    level = set_level(tests) * 100
    if tests <= 1:
        return german.number(LEVEL * 100, 0)
    digits = 1
    while digits < 4 and round(level, digits) >= 100:
        digits += 1
    return german.number(level, digits)


def used_text(tests: int) -> str:
    """Which intervals the gate decides by: ``99,2-%-Intervalle (Bonferroni über 6 Zeilen:
    alle zusammen zu 95 %)``; one row: its 95 % interval."""
    if tests <= 1:
        return "das 95-%-Intervall (eine Zeile: keine Korrektur nötig)"
    return (
        f"{level_text(tests)}-%-Intervalle (Bonferroni über {tests} Zeilen: alle zusammen "
        f"zu {german.percent(LEVEL)})"
    )


def correction_dict(tests: int) -> dict[str, Any]:
    return {"method": "bonferroni", "tests": tests, "level": round(set_level(tests), 5)}
