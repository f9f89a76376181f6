"""Paired comparisons of two rows: the mean difference over the prompts both scored, with the
bootstrap interval of ``stats`` over those prompts and its floors for few prompts; "better"
only when the interval excludes 0.

Per prompt both rows scored, the difference of the two prompt means; the same draws as a
row's interval (``stats._draws``); never narrower than the t interval of the differences'
spread, than the noise of the repeats of both rows, nor (with a ``Pool``) than the moderated
floor of the other pairs' differences (``pooling.py``). Ranks ask "is a better than b" of
many pairs, mostly answered from a few draws (``surely_not_better``).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Iterator, Mapping, Sequence

from touchstone.stats.intervals import (
    RESAMPLES,
    SEED,
    Cluster,
    Interval,
    Noise,
    _draws,
    _noise_floor,
    _percentiles,
    _spread_floor,
    _tail,
    _widened,
)
from touchstone.stats.pooling import Pool, pooled_floor, sum_of_squares


def pool_differences(pairs: Iterable[tuple[Mapping[str, Cluster], Mapping[str, Cluster]]]) -> Pool:
    """The pool of the paired differences of ``pairs``, for their ``paired_difference``."""
    return Pool.of(difference_squares(a, b) for a, b in pairs)


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
