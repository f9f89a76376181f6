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
"""

from __future__ import annotations

import functools
import math
import operator
import random
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

RESAMPLES = 1000
SEED = 20261130
LEVEL = 0.95


@dataclass(frozen=True)
class Interval:
    mean: float
    low: float
    high: float
    n: int  # prompts

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2


@dataclass(frozen=True)
class Cluster:
    """One prompt's scored cells: their sum and count."""

    total: float
    count: int

    @property
    def mean(self) -> float:
        return self.total / self.count


def _t_quantile(p: float, df: int) -> float:
    """The p-quantile of Student's t with ``df`` degrees of freedom (bisection on its CDF)."""
    if df <= 0:
        return math.inf
    low, high = -1000.0, 1000.0
    for _ in range(80):
        mid = (low + high) / 2
        if _t_cdf(mid, df) < p:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def _t_cdf(x: float, df: int) -> float:
    # Via the regularized incomplete beta function: I_{df/(df+x^2)}(df/2, 1/2).
    ib = _betainc(df / 2, 0.5, df / (df + x * x))
    return 1 - ib / 2 if x >= 0 else ib / 2


def _betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta I_x(a, b), continued fraction (Numerical Recipes)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1) / (a + b + 2):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1 - math.exp(log_front) * _beta_fraction(b, a, 1 - x) / b


def _beta_fraction(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 300):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1 + numerator * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= d * c
        if abs(d * c - 1) < 1e-12:
            break
    return result


@functools.lru_cache(maxsize=256)
def _tail(n: int, level: float = LEVEL) -> float:
    """The (lower) tail probability of the expanded percentile interval for n clusters."""
    alpha = (1 - level) / 2
    if n < 2:
        return alpha
    t = _t_quantile(1 - alpha, n - 1) * math.sqrt(n / (n - 1))
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
    clusters: Sequence[Cluster], *, resamples: int = RESAMPLES, seed: int = SEED
) -> Interval | None:
    """Mean over all scored cells, with a 95 % cluster-bootstrap interval over prompts."""
    clusters = [c for c in clusters if c.count]
    if not clusters:
        return None
    total = sum(c.total for c in clusters)
    count = sum(c.count for c in clusters)
    mean = total / count
    n = len(clusters)
    if n == 1:
        return Interval(mean, mean, mean, 1)
    totals = [c.total for c in clusters]
    draws = _draws(n, resamples, seed)
    if all(c.count == clusters[0].count for c in clusters):
        # Every prompt has as many scored cells (the usual case): one sum per draw, not two.
        cells = n * clusters[0].count
        boot = [sum(draw(totals)) / cells for draw in draws]
    else:
        counts = [c.count for c in clusters]
        boot = [sum(draw(totals)) / sum(draw(counts)) for draw in draws]
    low, high = _percentiles(boot, _tail(n))
    return Interval(mean, min(low, mean), max(high, mean), n)


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
) -> Interval | None:
    """Mean of (a - b) over the prompts both scored, with a paired bootstrap interval."""
    return resampled_difference(
        Resampled(a, resamples=resamples, seed=seed), Resampled(b, resamples=resamples, seed=seed)
    )


def resampled_difference(a: Resampled, b: Resampled) -> Interval | None:
    """``paired_difference`` of two rows whose draws may already be summed."""
    if a.keys == b.keys:
        shared = a.keys
    else:
        in_b = set(b.keys)
        shared = tuple(key for key in a.keys if key in in_b)
    if not shared:
        return None
    diffs = [a.clusters[key].mean - b.clusters[key].mean for key in shared]
    mean = statistics.fmean(diffs)
    n = len(diffs)
    if n == 1:
        return Interval(mean, mean, mean, 1)
    same_draws = a.resamples == b.resamples and a.seed == b.seed
    if shared == a.keys == b.keys and a.cells and b.cells and same_draws:
        # Over a draw, the sum of (a_i - b_i) is (sum of a's totals) / a.cells - (the same
        # of b): the same draws, divided last.
        ca, cb = a.cells, b.cells
        boot = [(x / ca - y / cb) / n for x, y in zip(a.total_sums(), b.total_sums(), strict=True)]
    else:
        boot = [sum(draw(diffs)) / n for draw in _draws(n, a.resamples, a.seed)]
    low, high = _percentiles(boot, _tail(n))
    return Interval(mean, min(low, mean), max(high, mean), n)
