"""The agreement card: the judge against a person's blind spot check (DESIGN §17).

Each kept rating (``ratings.load_ratings``: the last of each rater and cell) whose cell has a
scored verdict is one pair (judge, human). The card holds n; exact agreement, agreement
within one point and the quadratic weighted kappa (``agreement.weighted_kappa``), each with a
95 % percentile bootstrap over the pairs; red-flag agreement both ways; and the judge's mean
signed difference to the person (judge minus human: positive = the judge is milder), overall
and per model/variant row.

The verdict: fewer than ``MIN_RATINGS`` pairs: "zu wenige"; "bestätigt" when the kappa
interval's lower bound is at least ``MIN_KAPPA`` and no row's difference differs
significantly from another's (the bootstrap interval of the two rows' difference excludes
0); "weicht ab" otherwise, with the reasons. A judge that is milder with one model than with
another changes the ranking even when its kappa looks good: that is the bias the rows show.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import combinations
from typing import Any, Literal

from touchstone import german
from touchstone.pack import Scale
from touchstone.quality.agreement import weighted_kappa
from touchstone.quality.bootstrap import bootstrap_interval
from touchstone.quality.ratings import HumanRating
from touchstone.results import Verdict, VerdictKey, cell_key

MIN_RATINGS = 10
MIN_KAPPA = 0.6
# Rows compared pairwise at most; beyond, only the mildest against the strictest.
MAX_PAIRWISE_ROWS = 8
SEED = 24

Interval = tuple[float, float]
VerdictWord = Literal["bestätigt", "weicht ab", "zu wenige"]


@dataclass(frozen=True)
class Pair:
    """One rated cell: the judge's verdict and the person's rating of it."""

    key: VerdictKey
    judge: int
    human: int
    judge_flag: bool
    human_flag: bool

    @property
    def diff(self) -> int:
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
            "mean_diff": round(self.mean_diff, 4),
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
    span: int = 5

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
            "exact": round(self.exact, 4),
            "exact_ci": _pair(self.exact_ci),
            "within_one": round(self.within_one, 4),
            "within_one_ci": _pair(self.within_one_ci),
            "kappa": _round(self.kappa),
            "kappa_ci": _pair(self.kappa_ci),
            "mean_diff": round(self.mean_diff, 4),
            "mean_diff_ci": _pair(self.mean_diff_ci),
            "red_flags": {
                "human": self.human_flags,
                "judge_raised": self.judge_raised,
                "judge": self.judge_flags,
                "human_confirmed": self.human_confirmed,
            },
            "raters": list(self.raters),
            "without_verdict": self.without_verdict,
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


def human_agreement(
    ratings: Sequence[HumanRating], verdicts: Sequence[Verdict], scale: Scale
) -> HumanAgreement | None:
    """The card, or None when nobody rated a cell of the run."""
    if not ratings:
        return None
    pairs = pairs_of(ratings, verdicts)
    n = len(pairs)

    def exact(units: Sequence[Pair]) -> float | None:
        return sum(p.judge == p.human for p in units) / len(units) if units else None

    def within(units: Sequence[Pair]) -> float | None:
        return sum(abs(p.diff) <= 1 for p in units) / len(units) if units else None

    def kappa(units: Sequence[Pair]) -> float | None:
        return weighted_kappa([(p.judge, p.human) for p in units], scale.min, scale.max)

    def mean(units: Sequence[Pair]) -> float | None:
        return statistics.fmean(p.diff for p in units) if units else None

    rows = _rows(pairs)
    card = HumanAgreement(
        n=n,
        raters=tuple(sorted({r.rater for r in ratings})),
        exact=exact(pairs) or 0.0,
        exact_ci=bootstrap_interval(pairs, exact, seed=SEED),
        within_one=within(pairs) or 0.0,
        within_one_ci=bootstrap_interval(pairs, within, seed=SEED),
        kappa=kappa(pairs),
        kappa_ci=bootstrap_interval(pairs, kappa, seed=SEED),
        human_flags=sum(p.human_flag for p in pairs),
        judge_raised=sum(p.human_flag and p.judge_flag for p in pairs),
        judge_flags=sum(p.judge_flag for p in pairs),
        human_confirmed=sum(p.human_flag and p.judge_flag for p in pairs),
        mean_diff=mean(pairs) or 0.0,
        mean_diff_ci=bootstrap_interval(pairs, mean, seed=SEED),
        rows=tuple(rows),
        verdict="zu wenige",
        reasons=(),
        without_verdict=len(ratings) - n,
        span=scale.max - scale.min,
    )
    if n < MIN_RATINGS:
        return card
    reasons = _reasons(card, pairs)
    return replace(card, verdict="weicht ab" if reasons else "bestätigt", reasons=reasons)


def _replace(
    card: HumanAgreement, verdict: VerdictWord, reasons: tuple[str, ...]
) -> HumanAgreement:
    from dataclasses import replace

    return replace(card, verdict=verdict, reasons=reasons)


def _rows(pairs: Sequence[Pair]) -> list[RowDiff]:
    by_row: dict[tuple[str, str], list[Pair]] = {}
    for pair in pairs:
        by_row.setdefault((pair.key.model, pair.key.variant), []).append(pair)
    rows = []
    for (model, variant), units in sorted(by_row.items()):
        diffs = [float(p.diff) for p in units]
        rows.append(
            RowDiff(
                model=model,
                variant=variant,
                n=len(units),
                mean_diff=statistics.fmean(diffs),
                ci=bootstrap_interval(diffs, _mean_or_none, seed=SEED),
            )
        )
    return rows


def _mean_or_none(values: Sequence[float]) -> float | None:
    return statistics.fmean(values) if values else None


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
    pairs: Sequence[Pair], rows: Sequence[RowDiff]
) -> tuple[RowDiff, RowDiff] | None:
    """The two rows whose mean differences differ most among those that differ
    significantly (the bootstrap interval of their difference excludes 0), milder first."""
    candidates = [row for row in rows if row.n >= 2]
    if len(candidates) < 2:
        return None
    ordered = sorted(candidates, key=lambda row: row.mean_diff)
    if len(ordered) > MAX_PAIRWISE_ROWS:
        ordered = [ordered[0], ordered[-1]]
    diffs: dict[tuple[str, str], list[float]] = {}
    for pair in pairs:
        diffs.setdefault((pair.key.model, pair.key.variant), []).append(float(pair.diff))
    found: list[tuple[float, RowDiff, RowDiff]] = []
    for low, high in combinations(ordered, 2):
        units = [(0, d) for d in diffs[(high.model, high.variant)]] + [
            (1, d) for d in diffs[(low.model, low.variant)]
        ]
        interval = bootstrap_interval(units, _difference, seed=SEED)
        if interval is not None and (interval[0] > 0 or interval[1] < 0):
            found.append((high.mean_diff - low.mean_diff, high, low))
    if not found:
        return None
    _, high, low = max(found, key=lambda item: item[0])
    return high, low


def _difference(units: Sequence[tuple[int, float]]) -> float | None:
    first = [d for group, d in units if group == 0]
    second = [d for group, d in units if group == 1]
    if not first or not second:
        return None
    return statistics.fmean(first) - statistics.fmean(second)


def _reasons(card: HumanAgreement, pairs: Sequence[Pair]) -> tuple[str, ...]:
    reasons = []
    if card.kappa_ci is None:
        reasons.append("Kappa nicht bestimmbar (zu wenig Streuung der Wertungen)")
    elif card.kappa_ci[0] < MIN_KAPPA:
        shown = german.interval(card.kappa, *card.kappa_ci)
        reasons.append(f"Kappa {shown} nicht sicher über {german.number(MIN_KAPPA, 1)}")
    differing = differing_rows(pairs, card.rows)
    if differing is not None:
        high, low = differing
        reasons.append(
            f"bewertet {row_label(high, card.rows)} {milder_de(high.mean_diff)}, "
            f"{row_label(low, card.rows)} {milder_de(low.mean_diff)} (ein deutlicher "
            "Unterschied: er kann die Rangfolge verschieben)"
        )
    return tuple(reasons)
