"""The agreement card: the judge against a person's blind spot check (DESIGN §17).

Each kept rating (``ratings.load_ratings``: the last of each rater and cell) whose cell has a
scored verdict is one pair (judge, human). The card holds n; exact agreement, agreement
within one point and the quadratic weighted kappa (``agreement.weighted_kappa``), each with a
95 % percentile bootstrap over the pairs; red-flag agreement both ways; and the judge's mean
signed difference to the person (judge minus human: positive = the judge is milder), overall
and per model/variant row.

Honest with few ratings. A share of 0 or 1 (no exact agreement in 30) leaves the bootstrap
nothing to resample: its interval would be a point, so the exact Clopper–Pearson interval
stands there. The mean differences (overall and per row, often 5 ratings a row) take the
scorecard's interval (``stats.mean_interval``, each pair its own unit): the expanded
percentile bootstrap, never narrower than Student's t from the pairs' spread nor than what
integer scores hide by rounding (five equal differences are not an exact figure). Two rows
differ when Welch's t interval of their difference excludes 0 (each row's variance at least
that of two roundings, Welch–Satterthwaite df); a percentile bootstrap of five and five
pairs calls a difference at t = 1.8.

The verdict: fewer than ``MIN_RATINGS`` pairs: "zu wenige"; "bestätigt" when the kappa
interval's lower bound is at least ``MIN_KAPPA`` and no two rows differ; "weicht ab"
otherwise, with the reasons. A judge that is milder with one model than with another changes
the ranking even when its kappa looks good: that is the bias the rows show.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import combinations
from typing import Any, Literal

from touchstone import german
from touchstone.distributions import LEVEL, t_upper
from touchstone.pack import Scale
from touchstone.quality.agreement import kappa_of_sums, weighted_kappa
from touchstone.quality.bootstrap import bootstrap_replicates, percentile_interval
from touchstone.quality.ratings import HumanRating
from touchstone.results import Verdict, VerdictKey, cell_key
from touchstone.stats import RESOLUTION_VARIANCE, Cluster, mean_interval

MIN_RATINGS = 10
MIN_KAPPA = 0.6
# Rows compared pairwise at most; beyond, only the mildest against the strictest.
MAX_PAIRWISE_ROWS = 20
SEED = 24

Interval = tuple[float, float]
VerdictWord = Literal["bestätigt", "weicht ab", "zu wenige"]


@dataclass(frozen=True)
class Pair:
    """One rated cell: the judge's verdict and the person's rating of it."""

    key: VerdictKey
    # A jury's cell may lie between two scores (a median of two).
    judge: float
    human: int
    judge_flag: bool
    human_flag: bool

    @property
    def diff(self) -> float:
        return self.judge - self.human


@dataclass(frozen=True)
class RowDiff:
    model: str
    variant: str
    n: int
    mean_diff: float
    ci: Interval | None

    def as_dict(self) -> dict[str, Any]:
        low, high = self.ci if self.ci else (None, None)
        return {
            "model": self.model,
            "variant": self.variant,
            "n": self.n,
            "mean_diff": round(self.mean_diff, 4) if self.n else None,
            "ci_low": _round(low),
            "ci_high": _round(high),
        }


@dataclass(frozen=True)
class HumanAgreement:
    n: int
    raters: tuple[str, ...]
    exact: float
    exact_ci: Interval | None
    within_one: float
    within_one_ci: Interval | None
    kappa: float | None
    kappa_ci: Interval | None
    # Red flags: of the person's, how many the judge raised; of the judge's, how many the
    # person confirmed.
    human_flags: int
    judge_raised: int
    judge_flags: int
    human_confirmed: int
    mean_diff: float
    mean_diff_ci: Interval | None
    rows: tuple[RowDiff, ...]
    verdict: VerdictWord
    reasons: tuple[str, ...]
    # Ratings of cells without a scored verdict: nothing to agree with, not in n.
    without_verdict: int = 0
    # Pairs whose judge score lies between two points (a jury's median of two): never
    # exactly equal to a person's whole point.
    judge_halves: int = 0
    span: int = 5
    # Distinct cells among the pairs: fewer than n when several raters rated one cell.
    cells: int = 0

    def verdict_de(self) -> str:
        if self.verdict == "zu wenige":
            return (
                f"zu wenige Bewertungen ({german.count(self.n)} von mindestens "
                f"{MIN_RATINGS}) für ein Urteil über den Judge"
            )
        if self.verdict == "bestätigt":
            return "Judge bestätigt"
        return "Judge weicht ab: " + "; ".join(self.reasons)

    def as_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "exact": round(self.exact, 4) if self.n else None,
            "exact_ci": _pair(self.exact_ci),
            "within_one": round(self.within_one, 4) if self.n else None,
            "within_one_ci": _pair(self.within_one_ci),
            "kappa": _round(self.kappa),
            "kappa_ci": _pair(self.kappa_ci),
            "mean_diff": round(self.mean_diff, 4) if self.n else None,
            "mean_diff_ci": _pair(self.mean_diff_ci),
            "red_flags": {
                "human": self.human_flags,
                "judge_raised": self.judge_raised,
                "judge": self.judge_flags,
                "human_confirmed": self.human_confirmed,
            },
            "raters": list(self.raters),
            "without_verdict": self.without_verdict,
            "judge_halves": self.judge_halves,
            "verdict": self.verdict,
            "summary": self.verdict_de(),
            "rows": [row.as_dict() for row in self.rows],
        }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _pair(ci: Interval | None) -> list[float] | None:
    return None if ci is None else [round(ci[0], 4), round(ci[1], 4)]


def pairs_of(ratings: Sequence[HumanRating], verdicts: Sequence[Verdict]) -> list[Pair]:
    """The rated cells that have a scored verdict, as pairs, in the ratings' order."""
    scored = {VerdictKey(*cell_key(v)): v for v in verdicts if v.scored}
    pairs = []
    for rating in ratings:
        verdict = scored.get(rating.cell)
        if verdict is not None:
            pairs.append(
                Pair(rating.cell, verdict.score, rating.score, verdict.red_flag, rating.red_flag)
            )
    return pairs


Figures = tuple[float | None, float | None, float | None, float | None]


def figures(units: Sequence[Pair]) -> Figures:
    """Exact agreement, agreement within one point, weighted kappa and the mean difference
    (judge minus human) of ``units``, in one pass (a bootstrap computes them per resample;
    the kappa's sums are ``KappaSums``', inlined here: this is the hot loop)."""
    n = len(units)
    if not n:
        return None, None, None, None
    exact = within = 0
    total = sum_a = sum_b = sum_a2 = sum_b2 = sum_d2 = 0.0
    for pair in units:
        a, b = pair.judge, pair.human
        diff = a - b
        exact += diff == 0
        within += -1 <= diff <= 1
        total += diff
        sum_a += a
        sum_b += b
        sum_a2 += a * a
        sum_b2 += b * b
        sum_d2 += diff * diff
    kappa = kappa_of_sums(n, sum_a, sum_b, sum_a2, sum_b2, sum_d2)
    return exact / n, within / n, kappa, total / n


def human_agreement(
    ratings: Sequence[HumanRating], verdicts: Sequence[Verdict], scale: Scale
) -> HumanAgreement | None:
    """The card, or None when nobody rated a cell of the run."""
    if not ratings:
        return None
    pairs = pairs_of(ratings, verdicts)
    n = len(pairs)
    exact, within, _, mean = figures(pairs)
    replicates = bootstrap_replicates(pairs, figures, seed=SEED)
    exact_ci = _share_interval(exact, n, [r[0] for r in replicates])
    within_ci = _share_interval(within, n, [r[1] for r in replicates])
    kappa_ci = percentile_interval([r[2] for r in replicates])
    mean_ci = _mean_ci([pair.diff for pair in pairs])
    rows, samples = _rows(pairs)
    card = HumanAgreement(
        n=n,
        raters=tuple(sorted({r.rater for r in ratings})),
        exact=exact or 0.0,
        exact_ci=exact_ci,
        within_one=within or 0.0,
        within_one_ci=within_ci,
        # Through the one kappa of the package (the same figure as --rejudge's agreement).
        kappa=weighted_kappa([(p.judge, p.human) for p in pairs], scale.min, scale.max),
        kappa_ci=kappa_ci,
        human_flags=sum(p.human_flag for p in pairs),
        judge_raised=sum(p.human_flag and p.judge_flag for p in pairs),
        judge_flags=sum(p.judge_flag for p in pairs),
        human_confirmed=sum(p.human_flag and p.judge_flag for p in pairs),
        mean_diff=mean or 0.0,
        mean_diff_ci=mean_ci,
        rows=tuple(rows),
        verdict="zu wenige",
        reasons=(),
        without_verdict=len(ratings) - n,
        judge_halves=sum(pair.judge != int(pair.judge) for pair in pairs),
        span=scale.max - scale.min,
        cells=len({pair.key for pair in pairs}),
    )
    if n < MIN_RATINGS:
        return card
    reasons = _reasons(card, samples)
    return replace(card, verdict="weicht ab" if reasons else "bestätigt", reasons=reasons)


RowKey = tuple[str, str]


def _share_interval(
    share: float | None, n: int, replicates: Sequence[float | None]
) -> Interval | None:
    """The bootstrap's percentile interval of a share of ``n`` pairs; Clopper–Pearson's
    where the share is 0 or 1 and the resamples cannot vary."""
    if share == 0 and n:
        return 0.0, 1 - ((1 - LEVEL) / 2) ** (1 / n)
    if share == 1:
        return ((1 - LEVEL) / 2) ** (1 / n), 1.0
    return percentile_interval(replicates)


def _mean_ci(diffs: Sequence[float]) -> Interval | None:
    """The scorecard's interval of the mean of ``diffs`` (each its own unit)."""
    interval = mean_interval({f"{i:06d}": Cluster.of([d]) for i, d in enumerate(diffs)})
    if interval is None or interval.low is None or interval.high is None:
        return None
    return interval.low, interval.high


def _rows(pairs: Sequence[Pair]) -> tuple[list[RowDiff], dict[RowKey, list[float]]]:
    """Each model/variant row's mean difference with its interval, and its differences."""
    by_row: dict[RowKey, list[float]] = {}
    for pair in pairs:
        by_row.setdefault((pair.key.model, pair.key.variant), []).append(float(pair.diff))
    rows = [
        RowDiff(
            model=model,
            variant=variant,
            n=len(diffs),
            mean_diff=statistics.fmean(diffs),
            ci=_mean_ci(diffs),
        )
        for (model, variant), diffs in sorted(by_row.items())
    ]
    return rows, by_row


# What a difference of two integer scores hides by rounding, at least.
DIFF_RESOLUTION = 2 * RESOLUTION_VARIANCE


def welch_interval(a: Sequence[float], b: Sequence[float]) -> Interval | None:
    """Welch's t interval of mean(a) - mean(b), each sample's variance at least
    ``DIFF_RESOLUTION``; None when either has fewer than 2 values."""
    if len(a) < 2 or len(b) < 2:
        return None
    va = max(statistics.variance(a), DIFF_RESOLUTION) / len(a)
    vb = max(statistics.variance(b), DIFF_RESOLUTION) / len(b)
    df = (va + vb) ** 2 / (va * va / (len(a) - 1) + vb * vb / (len(b) - 1))
    half = t_upper(max(1, math.floor(df))) * math.sqrt(va + vb)
    difference = statistics.fmean(a) - statistics.fmean(b)
    return difference - half, difference + half


def row_label(row: RowDiff, rows: Sequence[RowDiff]) -> str:
    """``model``, or ``model (variant)`` when the card's rows differ in variant."""
    if len({r.variant for r in rows}) <= 1:
        return row.model
    return f"{row.model} ({row.variant})"


def milder_de(diff: float, digits: int = 1) -> str:
    """``0,6 Punkte milder als Sie`` / ``0,3 Punkte strenger als Sie`` / ``wie Sie``: the
    judge's mean difference to the person (judge minus human) in words."""
    if round(abs(diff), digits) == 0:
        return "wie Sie"
    size = german.number(abs(diff), digits)
    word = "Punkt" if size == "1" else "Punkte"
    return f"{size} {word} {'milder' if diff > 0 else 'strenger'} als Sie"


def differing_rows(
    rows: Sequence[RowDiff], samples: dict[RowKey, list[float]]
) -> tuple[RowDiff, RowDiff] | None:
    """The two rows whose mean differences differ most among those that differ
    significantly (Welch's t interval of their difference excludes 0), milder first."""
    candidates = sorted((row for row in rows if row.n >= 2), key=lambda row: row.mean_diff)
    if len(candidates) > MAX_PAIRWISE_ROWS:
        candidates = [candidates[0], candidates[-1]]
    found: list[tuple[float, RowDiff, RowDiff]] = []
    for low, high in combinations(candidates, 2):
        interval = welch_interval(
            samples[(high.model, high.variant)], samples[(low.model, low.variant)]
        )
        if interval is not None and (interval[0] > 0 or interval[1] < 0):
            found.append((high.mean_diff - low.mean_diff, high, low))
    if not found:
        return None
    _, high, low = max(found, key=lambda item: item[0])
    return high, low


def _reasons(card: HumanAgreement, samples: dict[RowKey, list[float]]) -> tuple[str, ...]:
    reasons = []
    if card.kappa_ci is None:
        reasons.append("Kappa nicht bestimmbar (zu wenig Streuung der Wertungen)")
    elif card.kappa_ci[0] < MIN_KAPPA:
        shown = german.interval(card.kappa, *card.kappa_ci)
        reasons.append(f"Kappa {shown} nicht sicher über {german.number(MIN_KAPPA, 1)}")
    differing = differing_rows(card.rows, samples)
    if differing is not None:
        high, low = differing
        reasons.append(
            f"bewertet {row_label(high, card.rows)} {milder_de(high.mean_diff)}, "
            f"{row_label(low, card.rows)} {milder_de(low.mean_diff)} (ein deutlicher "
            "Unterschied: er kann die Rangfolge verschieben)"
        )
    return tuple(reasons)
