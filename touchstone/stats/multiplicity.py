"""Decisions about a set that hold for the whole set (design.md §23, docs/design.md).

A 95 % interval per row is right about that row 95 % of the time; a verdict that rests on
several of them at once ("some row is worse", "these rows differ", "this row's category is
better", "these ranks differ") is wrong whenever any one of them is, far more often than 5 %
when there are many (15 pairs of rows at 95 % each call equal rows different in about a
quarter of cards). So a verdict about a set uses one of two corrections, each holding the
family-wise error at 5 %:

- Bonferroni-widened intervals (``widened``): with ``tests`` decisions, each interval is taken
  at 1 - 0.05/tests. The scorecard's intervals are bootstraps with floors for few prompts;
  a percentile bootstrap of 1000 draws cannot reach a tail of 0.05/132, so the 95 % interval
  is widened on each side by the ratio of Student's t quantiles at the two levels (with the
  prompts' n - 1 degrees of freedom). At one test it is the 95 % interval itself.
- Holm's step-down (``holm``) where each test has an exact p-value (the spot check's Welch
  tests): uniformly more powerful than Bonferroni at the same family-wise level.

``benchmarks/whole_card.py`` measures the false alarms under the null and the power kept.
"""

from __future__ import annotations

from collections.abc import Sequence

from touchstone.stats.distributions import LEVEL, t_beyond, t_tail
from touchstone.stats.intervals import Interval

ALPHA = 1 - LEVEL


def set_level(tests: int, level: float = LEVEL) -> float:
    """The level each of ``tests`` intervals is taken at so that all hold together at
    ``level`` (Bonferroni)."""
    return 1 - (1 - level) / max(1, tests)


def widening(df: float, tests: int) -> float:
    """How many times wider than its 95 % interval an interval with ``df`` degrees of freedom
    is at ``set_level(tests)``: the ratio of the two-sided t quantiles (1 at one test)."""
    if tests <= 1:
        return 1.0
    return t_beyond(ALPHA / (2 * tests), df) / t_beyond(ALPHA / 2, df)


def widened(interval: Interval, tests: int, bounds: tuple[float, float] | None = None) -> Interval:
    """``interval`` (a 95 % interval over ``interval.n`` prompts) at ``set_level(tests)``:
    each side scaled by ``widening`` from at least half the interval's width, so that the
    bootstrap's asymmetry stays where a side is longer; a side shorter than half the width
    (the floors widen a bootstrap interval equally on both sides, which can leave the side
    towards 0 short of the t floor) would otherwise stay short at the far tail, and equal rows
    were split in 12 % of cards of 12 rows x 5 prompts. ``bounds``: what the difference can
    be at all (± the scale's span), the widened bounds cut there. No interval stays none."""
    if tests <= 1 or interval.low is None or interval.high is None:
        return interval
    factor = widening(interval.n - 1, tests)
    mean = interval.mean
    half = (interval.high - interval.low) / 2
    low = mean - max(mean - interval.low, half) * factor
    high = mean + max(interval.high - mean, half) * factor
    if bounds is not None:
        low, high = max(low, bounds[0]), min(high, bounds[1])
    return Interval(mean, low, high, interval.n)


def two_sided_p(t: float, df: float) -> float:
    """The two-sided p-value of a t statistic with ``df`` degrees of freedom."""
    return min(1.0, 2 * t_tail(abs(t), df))


def holm(p_values: Sequence[float], level: float = LEVEL) -> list[bool]:
    """Which hypotheses Holm's step-down rejects at family-wise ``level``: the i-th smallest
    p-value (from 0) is compared with (1 - level) / (m - i), stopping at the first that is
    not below it."""
    m = len(p_values)
    rejected = [False] * m
    for step, index in enumerate(sorted(range(m), key=p_values.__getitem__)):
        if p_values[index] > (1 - level) / (m - step):
            break
        rejected[index] = True
    return rejected
