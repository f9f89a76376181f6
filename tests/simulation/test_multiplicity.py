"""Set-level decisions checked by simulation: Holm's step-down against statsmodels'
``multipletests`` on drawn sets of p-values, and widened intervals that keep the family-wise
level under the null (the unit tier's ``tests/unit/stats/test_multiplicity.py`` holds the rest
of stats/multiplicity.py)."""

import random

from scipy import stats as scipy_stats
from statsmodels.stats.multitest import multipletests

from touchstone.stats.intervals import Interval
from touchstone.stats.multiplicity import holm, widened


def test_holm_rejects_what_statsmodels_rejects() -> None:
    # statsmodels' multipletests takes tens of milliseconds a call: 100 drawn sets of 1-20
    # p-values reach every branch of the step-down many times over.
    rng = random.Random(7)
    for _ in range(100):
        m = rng.randint(1, 20)
        p = [rng.random() ** rng.choice([1, 3, 8]) for _ in range(m)]
        expected, *_ = multipletests(p, alpha=0.05, method="holm")
        assert holm(p) == list(expected)


def test_widened_intervals_hold_for_the_whole_set_under_the_null() -> None:
    # Six rows of normal data with true mean 0, t intervals over 8 prompts each: some
    # interval misses 0 in ~26 % of sets at 95 % each, in about 5 % when widened for six.
    rng = random.Random(11)
    sets, misses_single, misses_set = 2000, 0, 0
    t95 = scipy_stats.t.ppf(0.975, 7)
    for _ in range(sets):
        single = widened_any = False
        for _ in range(6):
            xs = [rng.gauss(0, 1) for _ in range(8)]
            mean = sum(xs) / 8
            se = (sum((x - mean) ** 2 for x in xs) / 7 / 8) ** 0.5
            interval = Interval(mean, mean - t95 * se, mean + t95 * se, 8)
            single |= interval.excludes_zero
            widened_any |= widened(interval, 6).excludes_zero
        misses_single += single
        misses_set += widened_any
    assert misses_single / sets > 0.18
    assert 0.03 <= misses_set / sets <= 0.07
