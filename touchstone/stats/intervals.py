"""Confidence intervals by bootstrap, over prompts (design.md §13). Pure Python, deterministic.

A model's score on a pack is a mean over prompts that are a sample of the work it will meet:
the uncertainty that matters is which prompts happened to be in the pack, so the bootstrap
resamples *prompts*, each with all its scored repeats (a cluster bootstrap). The seed is fixed:
the same run gives the same intervals.

With few prompts a plain percentile interval is too narrow (it covers ~90 % instead of 95 %),
so the percentiles are widened as Hesterberg's "expanded percentile" interval does: the tail
probability is taken from a t distribution with n - 1 degrees of freedom, scaled by
sqrt(n / (n - 1)). ``benchmarks/ci_coverage.py`` checks the coverage.

Paired comparison of two rows: per prompt both scored, the difference of the two prompt means;
the same bootstrap over those prompts; "better" only when the interval excludes 0.

Few prompts (issue 22 §4). One prompt gives no interval at all (``low``/``high`` None): there
is nothing to resample, and no decision. With two to four prompts the expanded percentiles
are no better than the prompts' own range (with two, the two values), so the interval is
never narrower than the t interval from the spread between prompts (``_spread_floor``). And
integer scores often make that spread 0 (two prompts on which a model is exactly one point
ahead), so it is never narrower than what the noise of the repeats alone would give either
(``_noise_floor``): the pooled within-prompt variance of the scores, at the lower end of its
one-sided 95 % interval (a floor the repeats vouch for; the point estimate would widen
intervals with many prompts beyond 95 %), with its t quantile. Without repeats that show any
spread, the scale's resolution stands in (an integer score hides up to half a point: variance
1/12) with the prompts' n - 1 degrees of freedom. The bootstrap interval is widened to the
larger of the two floors' widths, equally on both sides (``_widened``). So identical
differences never give a zero-width interval; ``benchmarks/ci_coverage.py`` measures the false
"better" rate of equal models (at most 7 %, nominal 5 %) and the coverage (93–97 % from 10
prompts up).

The other rows of the run (issue 33 §5). Three prompts that happen to agree have no spread
of their own ("5,00 [4,28 – 5,00]" on the resolution floor alone, for a truth of 4,1), but the
run's other rows show how much prompts of this kind differ: a row's spread is also floored by
a moderated t interval, its own spread and the others' pooled (on the scale: their pooled
dispersion, a score interval; ``pooling.py``: the design, why, and what no pool can give);
categories pool over every row's categories, paired differences over the other pairs'.
``benchmarks/ci_coverage.py`` measures coverage at 3 and 5 prompts.

The draws are taken over the prompts ordered by id: the same run gives the same intervals
whatever the line order of its files.
"""

from __future__ import annotations

import functools
import math
import operator
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from touchstone.stats.distributions import LEVEL, chi2_upper, t_quantile, t_upper
from touchstone.stats.pooling import Pool, between_squares, pooled_bounds, pooled_floor

RESAMPLES = 1000
SEED = 20261130
# The variance an integer score hides by rounding (uniform over one scale point): the least
# noise a score can carry, used where the repeats show none.
RESOLUTION_VARIANCE = 1 / 12


@dataclass(frozen=True)
class Interval:
    mean: float
    low: float | None  # None: one prompt, no interval
    high: float | None
    n: int  # prompts

    @property
    def half_width(self) -> float | None:
        if self.low is None or self.high is None:
            return None
        return (self.high - self.low) / 2

    @property
    def excludes_zero(self) -> bool:
        """Whether the interval lies wholly on one side of 0 (never without an interval)."""
        return (self.low is not None and self.low > 0) or (self.high is not None and self.high < 0)


@dataclass(frozen=True)
class Cluster:
    """One prompt's scored cells: their sum, count and sum of squares (None: unknown)."""

    total: float
    count: int
    squares: float | None = None

    @classmethod
    def of(cls, scores: Iterable[float]) -> Cluster:
        values = list(scores)
        return cls(sum(values), len(values), sum(v * v for v in values))

    @property
    def mean(self) -> float:
        return self.total / self.count

    @property
    def within(self) -> tuple[float, int]:
        """The sum of squared deviations from the prompt's mean, and its degrees of freedom."""
        if self.squares is None or self.count < 2:
            return 0.0, 0
        return max(0.0, self.squares - self.total * self.total / self.count), self.count - 1


@dataclass(frozen=True)
class Noise:
    """What the repeats of a row show about the noise of one score: a variance and its df."""

    variance: float
    df: int
    # False: the scale's resolution stands in (the repeats showed nothing); its df are the
    # prompts' (n - 1), shared by every term that stands in, not new evidence.
    estimated: bool = True

    @classmethod
    def of(cls, clusters: Iterable[Cluster], n: int) -> Noise:
        """The least variance the repeats vouch for (the lower end of its one-sided 95 %
        interval), pooled over the prompts; the scale's resolution (with n - 1 df) where the
        repeats show less (no repeats, or repeats that always agree)."""
        squares, df = 0.0, 0
        for cluster in clusters:
            ss, d = cluster.within
            squares += ss
            df += d
        if df and squares / df >= RESOLUTION_VARIANCE:
            return cls(max(RESOLUTION_VARIANCE, squares / chi2_upper(df)), df)
        return cls(RESOLUTION_VARIANCE, n - 1, estimated=False)


def _spread_floor(n: int, variance: float) -> float:
    """The t interval's half width for a mean over n prompts whose variance (from the spread
    between prompts) is ``variance``: the bootstrap's percentiles are too narrow with 2-4
    prompts (with 2 they are the two prompts' values)."""
    return t_upper(n - 1) * math.sqrt(max(0.0, variance))


def _noise_floor(parts: Iterable[tuple[Noise, float]]) -> float:
    """The half width the noise alone asks for: ``parts`` are (noise, weight) with the
    estimate's variance = sum of weight * noise.variance; Welch-Satterthwaite df."""
    parts = list(parts)
    terms = [(noise.variance * weight, noise.df) for noise, weight in parts]
    variance = sum(v for v, _ in terms)
    if variance <= 0:
        return 0.0
    if any(df <= 0 for _, df in terms):
        return math.inf
    if all(noise.estimated for noise, _ in parts):
        df = math.floor(variance * variance / sum(v * v / df for v, df in terms))
    else:
        df = min(df for _, df in terms)
    return t_upper(max(1, df)) * math.sqrt(variance)


def _widened(mean: float, low: float, high: float, floor: float, n: int) -> Interval:
    """The bootstrap's interval, at least ``2 * floor`` wide: widened by the same amount on
    both sides, so it keeps the bootstrap's asymmetry (widening each side to ``floor`` would
    cover more than 95 % with many prompts)."""
    extra = max(0.0, 2 * floor - (high - low)) / 2
    return Interval(mean, min(low - extra, mean), max(high + extra, mean), n)


@functools.lru_cache(maxsize=256)
def _tail(n: int, level: float = LEVEL) -> float:
    """The (lower) tail probability of the expanded percentile interval for n clusters."""
    alpha = (1 - level) / 2
    if n < 2:
        return alpha
    t = t_quantile(1 - alpha, n - 1) * math.sqrt(n / (n - 1))
    return 0.5 * math.erfc(t / math.sqrt(2))  # Phi(-t)


def _percentiles(values: list[float], tail: float) -> tuple[float, float]:
    values.sort()
    last = len(values) - 1
    low = values[max(0, min(last, math.floor(tail * last)))]
    high = values[max(0, min(last, math.ceil((1 - tail) * last)))]
    return low, high


@functools.lru_cache(maxsize=16)
def _draws(n: int, resamples: int, seed: int) -> tuple[Callable[[Sequence[float]], Any], ...]:
    """The resampled indices, the same for every row of ``n`` prompts (and cached), each as
    an ``itemgetter``: ``sum(draw(values))`` picks them in C, 40 % faster than a ``map`` over
    ``values.__getitem__`` (a scorecard of 400 rows draws 2800 times 1000 of them). At n = 1
    a getter would give a number, not a tuple; nobody resamples a single prompt."""
    if n < 2:
        raise ValueError(f"no bootstrap over {n} prompt(s)")
    rng = random.Random(seed * 1_000_003 + n)
    return tuple(operator.itemgetter(*rng.choices(range(n), k=n)) for _ in range(resamples))


def mean_interval(
    clusters: Mapping[str, Cluster],
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    pool: Pool | None = None,
) -> Interval | None:
    """Mean over all scored cells (``clusters`` by prompt id), with a 95 % cluster-bootstrap
    interval over prompts; no interval for one prompt. ``pool``: the run's rows (this one
    among them, ``pool_rows``), whose spread floors this row's."""
    ordered = [clusters[key] for key in sorted(clusters) if clusters[key].count]
    if not ordered:
        return None
    total = sum(c.total for c in ordered)
    count = sum(c.count for c in ordered)
    mean = total / count
    n = len(ordered)
    if n == 1:
        return Interval(mean, None, None, 1)
    totals = [c.total for c in ordered]
    draws = _draws(n, resamples, seed)
    if all(c.count == ordered[0].count for c in ordered):
        # Every prompt has as many scored cells (the usual case): one sum per draw, not two.
        cells = n * ordered[0].count
        boot = [sum(draw(totals)) / cells for draw in draws]
    else:
        counts = [c.count for c in ordered]
        boot = [sum(draw(totals)) / sum(draw(counts)) for draw in draws]
    low, high = _percentiles(boot, _tail(n))
    squares = between_squares(ordered, mean, count)
    floor = max(
        _spread_floor(n, squares / ((n - 1) * n)),
        _noise_floor([(Noise.of(ordered, n), 1 / count)]),
        pooled_floor(n, squares, pool),
    )
    interval = _widened(mean, low, high, floor, n)
    bounds = None if pool is None else pooled_bounds(n, mean, squares, pool)
    if bounds is None or interval.low is None or interval.high is None:
        return interval
    return Interval(mean, min(interval.low, bounds[0]), max(interval.high, bounds[1]), n)


def pool_rows(
    rows: Iterable[Mapping[str, Cluster]], scale: tuple[float, float] | None = None
) -> Pool:
    """The pool of ``rows`` (clusters by prompt id), for their ``mean_interval``; with the
    ``scale``'s bounds, the others' dispersion on it (``pooling.pooled_bounds``)."""
    if scale is None:
        return Pool.of(map(row_squares, rows))
    return Pool.on_scale(map(_row_part, rows), *scale)


def _row_part(clusters: Mapping[str, Cluster]) -> tuple[float, int, float]:
    squares, df = row_squares(clusters)
    # The mean as mean_interval takes it (prompts in id order), so that its part comes out.
    ordered = [clusters[key] for key in sorted(clusters) if clusters[key].count]
    count = sum(c.count for c in ordered)
    return squares, df, (sum(c.total for c in ordered) / count) if count else 0.0


def row_squares(clusters: Mapping[str, Cluster]) -> tuple[float, int]:
    """A row's (or a category's) between-prompt sum of squares and its df, as
    ``mean_interval`` computes them: the part it adds to a ``Pool``."""
    ordered = [clusters[key] for key in sorted(clusters) if clusters[key].count]
    if len(ordered) < 2:
        return 0.0, 0
    count = sum(c.count for c in ordered)
    return between_squares(ordered, sum(c.total for c in ordered) / count, count), len(ordered) - 1
