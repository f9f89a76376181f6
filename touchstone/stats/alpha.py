"""Krippendorff's alpha for any number of raters with missing values, from the coincidence
matrix (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability"); ordinal by default
(a judge's scale is ordered, its steps need not be equal), nominal and interval beside, with
its seeded percentile bootstrap over the units (``quality/jury_agreement.py`` applies it to a
jury's cells; checked against the ``krippendorff`` package's figures in the tests).
"""

from __future__ import annotations

import functools
import itertools
import random
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Literal

from touchstone.stats.bootstrap import bootstrap_interval, percentile_interval

Metric = Literal["nominal", "ordinal", "interval"]

# One cell's scores, sorted: cells with the same scores add the same coincidences, so the
# bootstrap counts these patterns instead of walking every cell of every resample.
_Pattern = tuple[float, ...]

# Rounds of alpha's interval: its bounds at two decimals barely move beyond 1,000.
ALPHA_ROUNDS = 1000
# Beyond this many cells scored by 2+ members, alpha's interval weighs instead of resampling.
RESAMPLED_CELLS = 1000


def _patterns(units: Iterable[Iterable[float]]) -> list[_Pattern]:
    """Each unit's pairable values (units with fewer than 2 values drop out), sorted."""
    found = (tuple(sorted(values)) for values in units)
    return [pattern for pattern in found if len(pattern) >= 2]


@functools.lru_cache(maxsize=4096)
def _coincidences(pattern: _Pattern) -> tuple[tuple[tuple[float, float], float], ...]:
    """One unit's contribution to the coincidence matrix: each ordered pair of values of
    different raters, weighed 1/(m - 1). Cached: a bootstrap asks for the same few patterns
    a thousand times."""
    counts = Counter(pattern)
    share = 1 / (len(pattern) - 1)
    return tuple(
        ((c, k), (n_c * (n_c - 1) if c == k else n_c * n_k) * share)
        for (c, n_c), (k, n_k) in itertools.product(counts.items(), repeat=2)
        if c != k or n_c > 1
    )


def _alpha_of(patterns: Mapping[_Pattern, float], metric: Metric) -> float | None:
    coincidences: dict[tuple[float, float], float] = defaultdict(float)
    for pattern, weight in patterns.items():
        for pair, share in _coincidences(pattern):
            coincidences[pair] += weight * share
    totals: dict[float, float] = defaultdict(float)
    for (c, _), o in coincidences.items():
        totals[c] += o
    n = sum(totals.values())
    if n <= 1:
        return None
    delta = _metric(metric, totals)
    observed = sum(o * delta(c, k) for (c, k), o in coincidences.items())
    expected = sum(
        totals[c] * totals[k] * delta(c, k) for c, k in itertools.product(totals, repeat=2)
    ) / (n - 1)
    if expected <= 0:
        return None  # one value throughout: agreement is not measurable
    return 1 - observed / expected


def _metric(metric: Metric, totals: Mapping[float, float]) -> Callable[[float, float], float]:
    """The squared difference ``delta²(c, k)`` of the metric; the ordinal one depends on how
    often each value occurs (its ranks), so it is made from the value totals ``n_c``."""
    if metric == "nominal":
        return lambda c, k: 0.0 if c == k else 1.0
    if metric == "interval":
        return lambda c, k: float((c - k) ** 2)
    values = sorted(totals)
    cumulative = dict(zip(values, itertools.accumulate(totals[v] for v in values), strict=True))

    def ordinal(c: float, k: float) -> float:
        low, high = min(c, k), max(c, k)
        between = cumulative[high] - cumulative[low] + totals[low]
        return float((between - (totals[c] + totals[k]) / 2) ** 2)

    return ordinal


def krippendorff_alpha(
    units: Iterable[Iterable[float]], metric: Metric = "ordinal"
) -> float | None:
    """Krippendorff's alpha of ``units`` (each: the values the raters gave one unit, missing
    ones left out); None when fewer than 2 pairable values or only one value occur."""
    return _alpha_of(Counter(_patterns(units)), metric)


def alpha_interval(
    units: Iterable[Iterable[float]],
    metric: Metric = "ordinal",
    *,
    seed: int = 0,
    rounds: int = ALPHA_ROUNDS,
) -> tuple[float, float] | None:
    """The 95 % percentile bootstrap interval of ``krippendorff_alpha`` over the units with 2
    or more values (the same ``seed``, the same interval); None with fewer than 2 such units.

    Up to ``RESAMPLED_CELLS`` such units (a jury's cells), each round resamples them with
    replacement (``bootstrap_interval``). Beyond, that walks every cell every round (5,000
    cells: 3 s, 100,000: most of a minute), so each round weighs the cells instead, the
    Bayesian bootstrap (Rubin 1981): Dirichlet(1, …, 1) weights, drawn per distinct score pattern as
    one Gamma(count) variate, so a round costs as many draws as there are patterns. Both
    give intervals of the same width at that size (the tests compare them)."""
    patterns = _patterns(units)
    if len(patterns) > RESAMPLED_CELLS:
        return _weighed_interval(Counter(patterns), metric, seed=seed, rounds=rounds)
    # Resampled as small ints (a pattern's index): hashing a tuple per cell per round was
    # most of the time at thousands of cells.
    distinct = list(dict.fromkeys(patterns))
    index = {pattern: i for i, pattern in enumerate(distinct)}
    indices = [index[pattern] for pattern in patterns]

    def statistic(sample: Sequence[int]) -> float | None:
        counts = Counter(sample)
        return _alpha_of({distinct[i]: n for i, n in counts.items()}, metric)

    return bootstrap_interval(indices, statistic, seed=seed, rounds=rounds)


def _weighed_interval(
    counts: Mapping[_Pattern, int], metric: Metric, *, seed: int, rounds: int
) -> tuple[float, float] | None:
    rng = random.Random(seed)
    n = sum(counts.values())
    values: list[float | None] = []
    for _ in range(rounds):
        weights = {pattern: rng.gammavariate(count, 1.0) for pattern, count in counts.items()}
        scale = n / sum(weights.values())
        values.append(_alpha_of({p: w * scale for p, w in weights.items()}, metric))
    return percentile_interval(values)
