"""Confidence intervals by bootstrap, over prompts (DESIGN §13). Pure Python, deterministic.

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
import statistics
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from touchstone.distributions import LEVEL, chi2_upper, t_quantile, t_upper
from touchstone.pooling import Pool, between_squares, pooled_bounds, pooled_floor, sum_of_squares

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


def pool_differences(pairs: Iterable[tuple[Mapping[str, Cluster], Mapping[str, Cluster]]]) -> Pool:
    """The pool of the paired differences of ``pairs``, for their ``paired_difference``."""
    return Pool.of(difference_squares(a, b) for a, b in pairs)


def row_squares(clusters: Mapping[str, Cluster]) -> tuple[float, int]:
    """A row's (or a category's) between-prompt sum of squares and its df, as
    ``mean_interval`` computes them: the part it adds to a ``Pool``."""
    ordered = [clusters[key] for key in sorted(clusters) if clusters[key].count]
    if len(ordered) < 2:
        return 0.0, 0
    count = sum(c.count for c in ordered)
    return between_squares(ordered, sum(c.total for c in ordered) / count, count), len(ordered) - 1


class Resampled:
    """One row's prompts and, computed once, the sum of their totals under every draw.

    A scorecard of r rows makes r·(r-1)/2 comparisons. When two rows scored the same prompts
    with as many cells each (the usual case), their paired bootstrap needs only these sums,
    drawn once per row; scores are integers, so the sums are exact and a difference that is
    0 stays exactly 0 (summing means would leave 5e-16, "better" by rounding).
    """

    def __init__(
        self, clusters: Mapping[str, Cluster], *, resamples: int = RESAMPLES, seed: int = SEED
    ) -> None:
        self.clusters = clusters
        self.keys = tuple(sorted(key for key, cluster in clusters.items() if cluster.count))
        self.resamples, self.seed = resamples, seed
        counts = {clusters[key].count for key in self.keys}
        # Cells per prompt when every prompt has as many, else None.
        self.cells = counts.pop() if len(counts) == 1 else None
        self._total_sums: list[float] | None = None
        self._noise: Noise | None = None
        self.total = math.fsum(clusters[key].total for key in self.keys)

    def noise(self, keys: tuple[str, ...]) -> Noise:
        """The noise the repeats show on ``keys`` (all of the row's prompts: computed once)."""
        if keys is not self.keys and keys != self.keys:
            return Noise.of((self.clusters[key] for key in keys), len(keys))
        if self._noise is None:
            self._noise = Noise.of((self.clusters[key] for key in keys), len(keys))
        return self._noise

    def inverse_counts(self, keys: tuple[str, ...]) -> float:
        """Sum over ``keys`` of 1 / cells: how much the noise weighs in the prompt means."""
        if self.cells and (keys is self.keys or keys == self.keys):
            return len(keys) / self.cells
        return sum(1 / self.clusters[key].count for key in keys)

    def total_sums(self) -> list[float]:
        if self._total_sums is None:
            totals = [self.clusters[key].total for key in self.keys]
            draws = _draws(len(self.keys), self.resamples, self.seed)
            self._total_sums = [sum(draw(totals)) for draw in draws]
        return self._total_sums


def paired_difference(
    a: Mapping[str, Cluster],
    b: Mapping[str, Cluster],
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    pool: Pool | None = None,
) -> Interval | None:
    """Mean of (a - b) over the prompts both scored, with a paired bootstrap interval.
    ``pool``: the paired differences of a set of pairs, this one among them
    (``pool_differences``), whose spread floors this difference's."""
    return resampled_difference(
        Resampled(a, resamples=resamples, seed=seed),
        Resampled(b, resamples=resamples, seed=seed),
        pool,
    )


def difference_squares(a: Mapping[str, Cluster], b: Mapping[str, Cluster]) -> tuple[float, int]:
    """The sum of squared deviations of (a - b)'s per-prompt differences over the prompts both
    scored, and its df, as ``paired_difference`` computes them: its part of a ``Pool``."""
    paired = _paired(Resampled(a), Resampled(b))
    if paired is None or len(paired[1]) < 2:
        return 0.0, 0
    return sum_of_squares(paired[1]), len(paired[1]) - 1


def resampled_difference(a: Resampled, b: Resampled, pool: Pool | None = None) -> Interval | None:
    """``paired_difference`` of two rows whose draws may already be summed."""
    paired = _paired(a, b)
    if paired is None:
        return None
    shared, diffs, mean = paired
    n = len(diffs)
    if n == 1:
        return Interval(mean, None, None, 1)
    boot = list(_boot(a, b, shared, diffs))
    low, high = _percentiles(boot, _tail(n))
    return _widened(mean, low, high, paired_floor(a, b, shared, diffs, pool), n)


def surely_not_better(a: Resampled, b: Resampled) -> bool:
    """Whether ``resampled_difference(a, b)`` has no lower bound above 0 (``a`` is not
    significantly better than ``b``), told from as few draws as it takes.

    The lower bound is at most the bootstrap's percentile, the (k+1)-th smallest of the draws'
    differences, and at most the mean. Once k+1 draws came out at or below 0, that order
    statistic of all draws is too (adding draws only lowers it): no need to draw the rest or
    sort them. Ranks ask this of up to r²/2 pairs; for rows that cannot be told apart it
    answers after a few dozen draws instead of a full bootstrap.
    """
    paired = _paired(a, b)
    if paired is None:
        return True
    shared, diffs, mean = paired
    n = len(diffs)
    if n == 1 or mean <= 0:
        return True
    # No draw's mean exceeds the largest difference, so neither does the bootstrap's upper
    # end, and the interval is at least 2 * floor wide: its lower end is at most the largest
    # difference less the floor (with few prompts the floor alone decides; 1e-9 for rounding).
    if max(diffs) <= paired_floor(a, b, shared, diffs) - 1e-9:
        return True
    last = a.resamples - 1
    enough = max(0, min(last, math.floor(_tail(n) * last))) + 1
    for value in _boot(a, b, shared, diffs):
        if value <= 0:
            enough -= 1
            if not enough:
                return True
    return False


def paired_mean(a: Resampled, b: Resampled) -> float | None:
    """The mean of (a - b) over the prompts both scored, as ``resampled_difference`` has it;
    None when they share no prompt."""
    if a.keys == b.keys and a.cells and a.cells == b.cells:
        # The usual case, in exact arithmetic: the difference of the scores' sums.
        return (a.total - b.total) / (a.cells * len(a.keys))
    paired = _paired(a, b)
    return None if paired is None else paired[2]


def _paired(a: Resampled, b: Resampled) -> tuple[tuple[str, ...], list[float], float] | None:
    """The prompts both rows scored, the differences of their prompt means, and the mean of
    those; None when they share no prompt."""
    if a.keys == b.keys:
        shared = a.keys
    else:
        in_b = set(b.keys)
        shared = tuple(key for key in a.keys if key in in_b)
    if not shared:
        return None
    diffs = [a.clusters[key].mean - b.clusters[key].mean for key in shared]
    return shared, diffs, statistics.fmean(diffs)


def _boot(
    a: Resampled, b: Resampled, shared: tuple[str, ...], diffs: list[float]
) -> Iterator[float]:
    """The mean difference under each draw, lazily."""
    n = len(diffs)
    same_draws = a.resamples == b.resamples and a.seed == b.seed
    if shared == a.keys == b.keys and a.cells and b.cells and same_draws:
        # Over a draw, the sum of (a_i - b_i) is (sum of a's totals) / a.cells - (the same
        # of b): the same draws, divided last.
        ca, cb = a.cells, b.cells
        return ((x / ca - y / cb) / n for x, y in zip(a.total_sums(), b.total_sums(), strict=True))
    return (sum(draw(diffs)) / n for draw in _draws(n, a.resamples, a.seed))


def paired_floor(
    a: Resampled,
    b: Resampled,
    shared: tuple[str, ...],
    diffs: Sequence[float] | None = None,
    pool: Pool | None = None,
) -> float:
    """The least half width of the mean difference over ``shared`` (``diffs``: the prompts'
    differences, if known): the t interval of the differences, the noise of the mean of n
    differences of prompt means, each with the noise of its row's cells on that prompt, and
    (with a ``pool``) the moderated t interval of the differences."""
    n = len(shared)
    if diffs is None:
        diffs = [a.clusters[key].mean - b.clusters[key].mean for key in shared]
    squares = sum_of_squares(diffs)
    spread = squares / ((n - 1) * n)
    noise = _noise_floor(
        [
            (a.noise(shared), a.inverse_counts(shared) / (n * n)),
            (b.noise(shared), b.inverse_counts(shared) / (n * n)),
        ]
    )
    return max(_spread_floor(n, spread), noise, pooled_floor(n, squares, pool))
