"""The agreement card's intervals, honest with few ratings (design.md §23): never past what the
figure can be, and "–" with the reason where the ratings are too few for one.

- The judge's mean difference to the person (overall, per row): the scorecard's interval
  (``stats.mean_interval``, each pair its own unit), at least Student's t with the pairs'
  variance floored at ``DIFF_RESOLUTION``: a difference of two integer scores hides the
  rounding of both (2/12, not the single score's 1/12), so five ratings of "+1" give
  +1 ±0,51. Fewer than ``MIN_MEAN_RATINGS`` ratings give none: two ratings would take
  Student's t with 1 df (12.7 standard errors: "−10,7 bis +14,7" on a 0–5 scale). The
  bounds never pass ±(the scale's span), what a difference can be.
- The kappa: the percentile bootstrap over the pairs, from ``MIN_RATINGS`` up. A resample in
  which the judge or the person gives one score throughout has a kappa of exactly 0 whatever
  the agreement (chance explains everything a constant rater does): such resamples pinned
  the lower bound at 0 ("0,23 [0,00 – 0,23]"). They are left out; when more than
  ``MAX_DEGENERATE`` of them are, the ratings vary too little for an interval.

Many ratings (issue 35: a ``human.jsonl`` of 200,000 lines). Beyond ``RESAMPLED_UNITS`` pairs
the card's bootstraps weigh the kinds of pair instead of drawing each pair
(``stats.bootstrap.kind_replicates``): the figures' bootstrap and the mean difference's,
whose cluster bootstrap (``mean_interval``) would keep a thousand resamples of every pair as
index tuples. The mean difference's interval there is the weighed bootstrap's percentiles,
widened to the same floor; the scorecard's expanded percentiles are the plain ones at that
size.
"""

from __future__ import annotations

import math
import random
import statistics
from collections import Counter
from collections.abc import Sequence

from touchstone import german
from touchstone.spot.rows_differ import DIFF_RESOLUTION, variance
from touchstone.stats import bootstrap
from touchstone.stats.bootstrap import percentile_interval
from touchstone.stats.distributions import LEVEL, t_upper
from touchstone.stats.intervals import RESAMPLES, SEED, Cluster, _widened, mean_interval

Interval = tuple[float, float]

MIN_MEAN_RATINGS = 3
# Shares of resamples with a constant rater beyond which the kappa has no interval: more than
# the lower tail of a 95 % interval would otherwise be that artefact.
MAX_DEGENERATE = (1 - LEVEL) / 2


def too_few_de(n: int, least: int) -> str:
    """``zu wenige Bewertungen für ein Intervall (2 von mindestens 3)``"""
    return f"zu wenige Bewertungen für ein Intervall ({german.count(n)} von mindestens {least})"


def mean_difference_interval(
    diffs: Sequence[float], span: int
) -> tuple[Interval | None, str | None]:
    """The 95 % interval of the mean of ``diffs`` (judge minus human), or None and why."""
    n = len(diffs)
    if n < MIN_MEAN_RATINGS:
        return None, too_few_de(n, MIN_MEAN_RATINGS)
    mean = statistics.fmean(diffs)
    low, high = _bootstrap_bounds(diffs, mean)
    spread = max(variance(diffs), DIFF_RESOLUTION)
    floor = t_upper(n - 1) * math.sqrt(spread / n)
    # Widened to the floor as the scorecard widens its intervals (the asymmetry kept).
    widened = _widened(mean, low, high, floor, n)
    assert widened.low is not None and widened.high is not None
    return (max(widened.low, -span), min(widened.high, span)), None


def _bootstrap_bounds(diffs: Sequence[float], mean: float) -> Interval:
    """The bootstrap's interval of the mean of ``diffs`` (before its floor)."""
    if len(diffs) > bootstrap.RESAMPLED_UNITS:
        tally = Counter(diffs)
        values, n = list(tally), len(diffs)

        def weighed_mean(weights: Sequence[float]) -> float:
            return math.fsum(w * v for w, v in zip(weights, values, strict=True)) / n

        counts = [tally[value] for value in values]
        rng = random.Random(SEED)
        bounds = percentile_interval(
            bootstrap.weighed_replicates(counts, weighed_mean, rng, RESAMPLES)
        )
        return bounds if bounds is not None else (mean, mean)
    boot = mean_interval({f"{i:06d}": Cluster.of([d]) for i, d in enumerate(diffs)})
    if boot is not None and boot.low is not None and boot.high is not None:
        return boot.low, boot.high
    return mean, mean


def kappa_interval(
    replicates: Sequence[float | None], n: int, least: int
) -> tuple[Interval | None, str | None]:
    """The kappa's percentile interval from the bootstrap's ``replicates`` (None: a resample
    with a constant rater), or None and why."""
    if n < least:
        return None, too_few_de(n, least)
    degenerate = sum(value is None for value in replicates)
    if not replicates or degenerate > MAX_DEGENERATE * len(replicates):
        return None, (
            "zu wenig Streuung für ein Intervall: Sie oder der Judge geben fast immer "
            "dieselbe Wertung"
        )
    interval = percentile_interval(replicates)
    if interval is None:
        return None, "zu wenig Streuung für ein Intervall"
    return (max(-1.0, interval[0]), min(1.0, interval[1])), None
