"""The agreement card: the judge against a person's blind spot check (design.md §17).

Each kept rating (``ratings.load_ratings``: the last of each rater and cell) whose cell has a
scored verdict is one pair (judge, human). The card holds n; exact agreement, agreement
within one point and the quadratic weighted kappa (``agreement.weighted_kappa``), each with a
95 % percentile bootstrap over the pairs; red-flag agreement both ways; and the judge's mean
signed difference to the person (judge minus human: positive = the judge is milder), overall
and per model/variant row.

Honest with few ratings. A share of 0 or 1 (no exact agreement in 30) leaves the bootstrap
nothing to resample: its interval would be a point, so the exact Clopper–Pearson interval
stands there. Exact agreement counts only pairs whose judge score lies on a whole point: a
jury's median between two points can never equal a person's rating. The mean differences
and the kappa take ``spot_intervals`` (within what they can be; "–" and the reason with too
few ratings). Whether rows differ is one decision for the card (``rows_differ``: Welch per
pair of rows, Holm over all pairs).

The verdict: fewer than ``MIN_RATINGS`` pairs: "zu wenige"; "bestätigt" when the kappa
interval's lower bound is at least ``MIN_KAPPA`` and no two rows differ; "weicht ab"
otherwise, with the reasons. A judge that is milder with one model than with another changes
the ranking even when its kappa looks good: that is the bias the rows show.
"""

from __future__ import annotations

import functools
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, NamedTuple

from touchstone import german
from touchstone.pack import Scale
from touchstone.results import Verdict, VerdictKey, cell_key
from touchstone.spot.intervals import kappa_interval, mean_difference_interval
from touchstone.spot.rows_differ import RowKey, RowsTest, rows_test
from touchstone.stats.bootstrap import kind_replicates, percentile_interval
from touchstone.stats.distributions import LEVEL
from touchstone.stats.kappa import kappa_of_sums, weighted_kappa
from touchstone.store.ratings import HumanRating

MIN_RATINGS = 10
MIN_KAPPA = 0.6
SEED = 24

Interval = tuple[float, float]
VerdictWord = Literal["bestätigt", "weicht ab", "zu wenige"]


class Pair(NamedTuple):
    """One rated cell: the judge's verdict and the person's rating of it (a tuple: a card
    of 200,000 ratings made as many frozen dataclasses in a second)."""

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
    # Why there is no interval (too few ratings), else None.
    ci_note: str | None = None

    def as_dict(self) -> dict[str, Any]:
        low, high = self.ci if self.ci else (None, None)
        return {
            "model": self.model,
            "variant": self.variant,
            "n": self.n,
            "mean_diff": round(self.mean_diff, 4) if self.n else None,
            "ci_low": _round(low),
            "ci_high": _round(high),
            "ci_note": self.ci_note,
        }


@dataclass(frozen=True)
class HumanAgreement:
    n: int
    raters: tuple[str, ...]
    # Of the pairs whose judge score lies on a whole point (None: there are none).
    exact: float | None
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
    # Why the kappa or the mean difference has no interval, else None.
    kappa_note: str | None = None
    mean_diff_note: str | None = None
    # The one decision whether rows differ, with its correction (None: too few ratings).
    rows_test: RowsTest | None = None

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
            "exact": _round(self.exact),
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
            "kappa_note": self.kappa_note,
            "mean_diff_note": self.mean_diff_note,
            "rows_test": None if self.rows_test is None else self.rows_test.as_dict(),
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
    # One key per cell, shared by its raters' pairs; looked up by a plain tuple per rating.
    scored: dict[tuple[str, str, str, int], tuple[VerdictKey, Verdict]] = {
        cell_key(v): (VerdictKey(*cell_key(v)), v) for v in verdicts if v.scored
    }
    pairs = []
    for rating in ratings:
        found = scored.get((rating.model, rating.variant, rating.prompt_id, rating.repeat))
        if found is not None:
            key, verdict = found
            pairs.append(Pair(key, verdict.score, rating.score, verdict.red_flag, rating.red_flag))
    return pairs


Figures = tuple[float | None, float | None, float | None, float | None]
# A kind of pair: (the judge's score, the person's); every figure is one of the kinds' counts.
Kind = tuple[float, int]


def kinds_of(units: Sequence[Pair]) -> tuple[list[int], list[Kind]]:
    """Each pair's kind (an index), and the kinds in the order of their first pair."""
    index: dict[Kind, int] = {}
    of = [index.setdefault((pair.judge, pair.human), len(index)) for pair in units]
    return of, list(index)


def figures(units: Sequence[Pair]) -> Figures:
    """Exact agreement (of the pairs whose judge score is a whole point), agreement within
    one point, weighted kappa and the mean difference (judge minus human) of ``units``."""
    of, kinds = kinds_of(units)
    return weighed_figures(kinds, _counts(of, len(kinds)))


def _counts(of: Sequence[int], size: int) -> list[float]:
    tally = Counter(of)
    return [float(tally[kind]) for kind in range(size)]


def weighed_figures(kinds: Sequence[Kind], weights: Sequence[float]) -> Figures:
    """``figures`` of pairs of ``kinds`` held ``weights`` times (a count, or a bootstrap's
    weight), in one pass over the kinds: the bootstrap computes them per resample (the
    kappa's sums are ``KappaSums``', inlined here: this is the hot loop). The kappa is None
    where the judge or the person gives one score throughout: it is 0 there whatever the
    agreement."""
    n = exact = within = whole = 0.0
    total = sum_a = sum_b = sum_a2 = sum_b2 = sum_d2 = 0.0
    judges: set[float] = set()
    humans: set[int] = set()
    for (a, b), w in zip(kinds, weights, strict=True):
        if not w:
            continue
        judges.add(a)
        humans.add(b)
        diff = a - b
        n += w
        if a == int(a):
            whole += w
            if diff == 0:
                exact += w
        if -1 <= diff <= 1:
            within += w
        total += w * diff
        sum_a += w * a
        sum_b += w * b
        sum_a2 += w * a * a
        sum_b2 += w * b * b
        sum_d2 += w * diff * diff
    if not n:
        return None, None, None, None
    constant = len(judges) == 1 or len(humans) == 1
    kappa = None if constant else kappa_of_sums(n, sum_a, sum_b, sum_a2, sum_b2, sum_d2)
    return exact / whole if whole else None, within / n, kappa, total / n


def human_agreement(
    ratings: Sequence[HumanRating], verdicts: Sequence[Verdict], scale: Scale
) -> HumanAgreement | None:
    """The card, or None when nobody rated a cell of the run."""
    if not ratings:
        return None
    pairs = pairs_of(ratings, verdicts)
    n = len(pairs)
    of, kinds = kinds_of(pairs)
    counts = _counts(of, len(kinds))
    exact, within, _, mean = weighed_figures(kinds, counts)
    replicates = kind_replicates(of, functools.partial(weighed_figures, kinds), seed=SEED)
    halves = int(sum(c for (judge, _), c in zip(kinds, counts, strict=True) if judge % 1))
    human_flags = judge_flags = both_flags = 0
    for pair in pairs:
        human_flags += pair.human_flag
        judge_flags += pair.judge_flag
        both_flags += pair.human_flag and pair.judge_flag
    exact_ci = _share_interval(exact, n - halves, [r[0] for r in replicates])
    within_ci = _share_interval(within, n, [r[1] for r in replicates])
    kappa_ci, kappa_note = kappa_interval([r[2] for r in replicates], n, MIN_RATINGS)
    span = scale.max - scale.min
    mean_ci, mean_note = mean_difference_interval([p.judge - p.human for p in pairs], span)
    rows, samples = _rows(pairs, span)
    card = HumanAgreement(
        n=n,
        raters=tuple(sorted({r.rater for r in ratings})),
        exact=exact,
        exact_ci=exact_ci,
        within_one=within or 0.0,
        within_one_ci=within_ci,
        # The one kappa of the package (the same figure as --rejudge's agreement), of the
        # kinds' sums: 0, not None, where only one of the two gives one score throughout.
        kappa=weighted_kappa(kinds, scale.min, scale.max, counts),
        kappa_ci=kappa_ci,
        human_flags=human_flags,
        judge_raised=both_flags,
        judge_flags=judge_flags,
        human_confirmed=both_flags,
        mean_diff=mean or 0.0,
        mean_diff_ci=mean_ci,
        mean_diff_note=mean_note if n else None,
        kappa_note=kappa_note if n else None,
        rows=tuple(rows),
        verdict="zu wenige",
        reasons=(),
        without_verdict=len(ratings) - n,
        judge_halves=halves,
        span=span,
        cells=len({pair.key for pair in pairs}),
    )
    if n < MIN_RATINGS:
        return card
    means = {(row.model, row.variant): row.mean_diff for row in rows}
    card = replace(card, rows_test=rows_test(means, samples))
    reasons = _reasons(card)
    return replace(card, verdict="weicht ab" if reasons else "bestätigt", reasons=reasons)


def _share_interval(
    share: float | None, n: int, replicates: Sequence[float | None]
) -> Interval | None:
    """The bootstrap's percentile interval of a share of ``n`` pairs; Clopper–Pearson's
    where the share is 0 or 1 and the resamples cannot vary."""
    if share is None or not n:
        return None
    if share == 0:
        return 0.0, 1 - ((1 - LEVEL) / 2) ** (1 / n)
    if share == 1:
        return ((1 - LEVEL) / 2) ** (1 / n), 1.0
    return percentile_interval(replicates)


def _rows(pairs: Sequence[Pair], span: int) -> tuple[list[RowDiff], dict[RowKey, list[float]]]:
    """Each model/variant row's mean difference with its interval, and its differences."""
    by_row: dict[RowKey, list[float]] = {}
    for pair in pairs:
        key = pair.key
        by_row.setdefault((key.model, key.variant), []).append(float(pair.judge - pair.human))
    rows = []
    for (model, variant), diffs in sorted(by_row.items()):
        ci, note = mean_difference_interval(diffs, span)
        rows.append(RowDiff(model, variant, len(diffs), statistics.fmean(diffs), ci, note))
    return rows, by_row


def row_label(row: RowDiff, rows: Sequence[RowDiff]) -> str:
    """``model``, or ``model · variant`` (``german.row``) when the card's rows differ in
    variant."""
    if len({r.variant for r in rows}) <= 1:
        return row.model
    return german.row(row.model, row.variant)


def milder_de(diff: float, digits: int = 1) -> str:
    """``0,6 Punkte milder als Sie`` / ``0,3 Punkte strenger als Sie`` / ``wie Sie``: the
    judge's mean difference to the person (judge minus human) in words."""
    if round(abs(diff), digits) == 0:
        return "wie Sie"
    size = german.number(abs(diff), digits)
    word = "Punkt" if size == "1" else "Punkte"
    return f"{size} {word} {'milder' if diff > 0 else 'strenger'} als Sie"


def _row(card: HumanAgreement, key: RowKey) -> RowDiff:
    return next(row for row in card.rows if (row.model, row.variant) == key)


def _reasons(card: HumanAgreement) -> tuple[str, ...]:
    reasons = []
    if card.kappa is None:
        reasons.append("Kappa nicht bestimmbar (zu wenig Streuung der Wertungen)")
    elif card.kappa_ci is None:
        reasons.append(f"Kappa {german.number(card.kappa)} ohne Intervall ({card.kappa_note})")
    elif card.kappa_ci[0] < MIN_KAPPA:
        shown = german.interval(card.kappa, *card.kappa_ci)
        reasons.append(f"Kappa {shown} nicht sicher über {german.number(MIN_KAPPA, 1)}")
    test = card.rows_test
    if test is not None and test.found is not None:
        high, low = (_row(card, key) for key in test.found)
        reasons.append(
            f"bewertet {row_label(high, card.rows)} {milder_de(high.mean_diff)}, "
            f"{row_label(low, card.rows)} {milder_de(low.mean_diff)} (ein deutlicher "
            f"Unterschied, {test.text_de()}: er kann die Rangfolge verschieben)"
        )
    return tuple(reasons)
