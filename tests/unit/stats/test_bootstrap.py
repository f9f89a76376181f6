"""The judge-quality bootstrap: seeded, percentile, undefined resamples skipped."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from touchstone.stats.bootstrap import bootstrap_interval


def mean(values: Sequence[float]) -> float:
    return statistics.fmean(values)


def test_the_interval_holds_the_mean_and_is_reproducible() -> None:
    units = [1.0, 2.0, 3.0, 4.0, 5.0, 2.0, 3.0, 4.0, 3.0, 3.0]
    interval = bootstrap_interval(units, mean, seed=7)
    assert interval is not None
    low, high = interval
    assert low < 3.0 < high
    # Plain percentiles of 2000 resample means of 10 units (sd 1.1): about ±0.65.
    assert 2.2 < low < 2.8 and 3.2 < high < 3.8
    assert bootstrap_interval(units, mean, seed=7) == interval
    # Another seed draws other resamples: the bounds move, but only a little.
    other = bootstrap_interval([u + 0.01 * i for i, u in enumerate(units)], mean, seed=8)
    assert other is not None and other != interval
    assert abs(other[0] - low) < 0.3 and abs(other[1] - high) < 0.3


def test_a_wider_level_gives_a_wider_interval() -> None:
    units = list(range(30))
    narrow = bootstrap_interval(units, mean, level=0.5)
    wide = bootstrap_interval(units, mean, level=0.99)
    assert narrow is not None and wide is not None
    assert wide[0] < narrow[0] and narrow[1] < wide[1]


def test_constant_units_give_a_point() -> None:
    assert bootstrap_interval([2.0] * 5, mean) == (2.0, 2.0)


def test_too_few_units_give_none() -> None:
    assert bootstrap_interval([], mean) is None
    assert bootstrap_interval([1.0], mean) is None


def test_undefined_resamples_are_skipped_and_too_many_give_none() -> None:
    # Defined only when the resample holds both values: most resamples of 20 do.
    units = [0.0] * 10 + [1.0] * 10

    def spread(values: Sequence[float]) -> float | None:
        return None if len(set(values)) < 2 else mean(values)

    assert bootstrap_interval(units, spread, rounds=500) is not None
    # One unit of 20 differs: a resample lacks it ~36 % of the time, still defined often.
    assert bootstrap_interval([0.0] * 19 + [1.0], spread, rounds=500) is not None
    # Never defined.
    assert bootstrap_interval(units, lambda _: None, rounds=50) is None


def test_replicates_share_draws_and_subtract_into_a_difference() -> None:
    from touchstone.stats.bootstrap import bootstrap_replicates, percentile_interval

    units = [1.0, 2.0, 3.0, 4.0]
    both = bootstrap_replicates(units, lambda s: (min(s), max(s)), rounds=200, seed=3)
    assert len(both) == 200 and all(low <= high for low, high in both)
    assert bootstrap_replicates([1.0], mean) == []
    # Two groups resampled on their own seeds: the difference of replicates.
    a = bootstrap_replicates([3.0, 3.5, 4.0, 3.2, 3.8], mean, seed=1)
    b = bootstrap_replicates([0.0, 0.5, 0.2, 0.4, 0.1], mean, seed=2)
    interval = percentile_interval([x - y for x, y in zip(a, b, strict=True)])
    assert interval is not None and interval[0] > 2.5
    assert percentile_interval([None, None, 1.0]) is None
    assert percentile_interval([1.0, float("nan"), 2.0, 3.0]) == (1.0, 3.0)
