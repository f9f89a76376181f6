"""Whether the judge treats the spot check's model/variant rows differently: one decision for
the whole card (design.md §23).

Each pair of rows with at least 2 ratings gets Welch's t test of the difference of their
mean differences (judge minus human), each row's variance at least ``DIFF_RESOLUTION`` (what
two integer scores hide by rounding: five equal differences are no exact figure) and the
Welch–Satterthwaite degrees of freedom as they are, a fraction, and at least what all rows
together vouch for (``pooled_floor``). One test per pair at 95 %
would call an unbiased judge biased in a quarter of buero's cards (15 pairs of 6 rows), so
the pairs go through Holm's step-down together: "rows differ" is then wrong in at most 5 % of
cards, whatever the number of rows. Beyond ``MAX_PAIRWISE_ROWS`` rows only the mildest row
is tested against the strictest, at Bonferroni's 0.05 / m with m all pairs: a subset of the
events Bonferroni over all pairs would reject, so it holds for the card too.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from typing import Any, Literal

from touchstone import german
from touchstone.stats.distributions import LEVEL, chi2_upper, t_upper
from touchstone.stats.intervals import RESOLUTION_VARIANCE
from touchstone.stats.multiplicity import holm, two_sided_p

# Rows compared pairwise at most; beyond, only the mildest against the strictest.
MAX_PAIRWISE_ROWS = 20
# What a difference of two integer scores hides by rounding, at least.
DIFF_RESOLUTION = 2 * RESOLUTION_VARIANCE

RowKey = tuple[str, str]
Correction = Literal["holm", "bonferroni", "none"]


def variance(values: Sequence[float]) -> float:
    """``statistics.variance(values)``, the same float (exact sums, rounded once), from the
    values' counts: a spot check's differences take few distinct values, and exact sums per
    difference instead of per rating keep 200,000 ratings from costing seconds."""
    n = len(values)
    if n < 2:
        raise statistics.StatisticsError("variance requires at least two data points")
    sx = sxx = Fraction(0)
    for value, count in Counter(values).items():
        exact = Fraction(value)
        sx += count * exact
        sxx += count * exact * exact
    return float((n * sxx - sx * sx) / n / (n - 1))


@dataclass(frozen=True)
class Welch:
    """Welch's test of mean(a) - mean(b)."""

    difference: float
    se: float
    df: float

    @property
    def p(self) -> float:
        return two_sided_p(self.difference / self.se, self.df)

    def interval(self, level: float = LEVEL) -> tuple[float, float]:
        half = t_upper(self.df, level) * self.se
        return self.difference - half, self.difference + half


def welch(a: Sequence[float], b: Sequence[float], floor: float = DIFF_RESOLUTION) -> Welch | None:
    """Welch's test of mean(a) - mean(b), each sample's variance at least ``floor`` (at
    least ``DIFF_RESOLUTION``), fractional Welch–Satterthwaite df; None when either has
    fewer than 2 values."""
    if len(a) < 2 or len(b) < 2:
        return None
    floor = max(floor, DIFF_RESOLUTION)
    va = max(variance(a), floor) / len(a)
    vb = max(variance(b), floor) / len(b)
    df = (va + vb) ** 2 / (va * va / (len(a) - 1) + vb * vb / (len(b) - 1))
    return Welch(statistics.fmean(a) - statistics.fmean(b), math.sqrt(va + vb), df)


@dataclass(frozen=True)
class RowsTest:
    """The card's one decision about its rows: which correction over how many pairs, and
    the most different pair among those it finds different (milder first), if any."""

    correction: Correction
    pairs: int  # m: the pairs of rows the decision is about
    rows: int  # rows with at least 2 ratings
    found: tuple[RowKey, RowKey] | None
    level: float = LEVEL

    def text_de(self) -> str:
        """``Holm über 15 Zeilenpaare`` / ``Bonferroni über 210 Zeilenpaare …`` / …"""
        if self.pairs == 0:
            return "keine zwei Modelle mit je mindestens 2 Bewertungen: nicht verglichen"
        if self.pairs == 1:
            return "Welch-Test über 1 Zeilenpaar (keine Korrektur nötig)"
        pairs = german.count(self.pairs)
        if self.correction == "bonferroni":
            return (
                f"Bonferroni über {pairs} Zeilenpaare (nur die mildeste gegen die "
                "strengste Zeile geprüft)"
            )
        return f"Holm über {pairs} Zeilenpaare"

    def as_dict(self) -> dict[str, Any]:
        return {
            "correction": self.correction,
            "pairs": self.pairs,
            "rows": self.rows,
            "level": self.level,
            "text": self.text_de(),
        }


def pooled_floor(samples: Sequence[Sequence[float]]) -> float:
    """The least variance of one difference that all rows together vouch for: the variance
    pooled within the rows, at the lower end of its one-sided 95 % interval. Five discrete
    differences often agree by chance; the row's own variance then makes Welch's t far too
    large (an unbiased noisy judge was flagged in 8 % of 6 x 5 cards), while the other rows
    show what the judge's noise is."""
    squares, df = 0.0, 0
    for values in samples:
        if len(values) >= 2:
            squares += variance(values) * (len(values) - 1)
            df += len(values) - 1
    if not df:
        return DIFF_RESOLUTION
    return max(DIFF_RESOLUTION, squares / chi2_upper(df))


def rows_test(means: Mapping[RowKey, float], samples: Mapping[RowKey, Sequence[float]]) -> RowsTest:
    """The decision over the rows of ``samples`` (each row's differences; ``means``: their
    means) with at least 2 ratings."""
    candidates = sorted((key for key in samples if len(samples[key]) >= 2), key=means.__getitem__)
    k = len(candidates)
    m = k * (k - 1) // 2
    if m == 0:
        return RowsTest("none", 0, k, None)
    floor = pooled_floor([samples[key] for key in candidates])
    if k > MAX_PAIRWISE_ROWS:
        low, high = candidates[0], candidates[-1]
        test = welch(samples[high], samples[low], floor)
        found = test is not None and test.p <= (1 - LEVEL) / m
        return RowsTest("bonferroni", m, k, (high, low) if found else None)
    pairs = [(high, low) for low, high in combinations(candidates, 2)]
    p_values = []
    for high, low in pairs:
        test = welch(samples[high], samples[low], floor)
        p_values.append(1.0 if test is None else test.p)
    rejected = [pair for pair, reject in zip(pairs, holm(p_values), strict=True) if reject]
    found_pair = max(rejected, key=lambda pair: means[pair[0]] - means[pair[1]], default=None)
    return RowsTest("holm" if m > 1 else "none", m, k, found_pair)
