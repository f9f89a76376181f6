"""Set-level decisions (design.md §23): the quantiles and Holm's step-down against scipy and
statsmodels, and Bonferroni-widened intervals that keep the family-wise level."""

import pytest
from scipy import stats as scipy_stats

from touchstone.stats.distributions import t_beyond, t_tail, t_upper
from touchstone.stats.intervals import Interval
from touchstone.stats.multiplicity import set_level, two_sided_p, widened, widening


@pytest.mark.parametrize("df", [1, 2, 2.7, 4, 9.35, 64, 400])
@pytest.mark.parametrize("tail", [0.025, 0.05 / 12, 0.05 / 132, 0.05 / 159600])
def test_far_tail_quantiles_match_scipy(df: float, tail: float) -> None:
    expected = scipy_stats.t.isf(tail, df)
    assert t_beyond(tail, df) == pytest.approx(expected, rel=1e-7)
    assert t_tail(expected, df) == pytest.approx(tail, rel=1e-7)


@pytest.mark.parametrize("df", [1, 3.5, 26])
def test_the_two_sided_quantile_takes_fractional_degrees_of_freedom(df: float) -> None:
    assert t_upper(df) == pytest.approx(scipy_stats.t.ppf(0.975, df), rel=1e-9)
    assert two_sided_p(2.1, df) == pytest.approx(2 * scipy_stats.t.sf(2.1, df), rel=1e-9)


def test_one_test_keeps_the_interval_and_more_tests_widen_it_by_the_t_ratio() -> None:
    interval = Interval(0.4, 0.1, 0.8, 11)
    assert widened(interval, 1) == interval
    six = widened(interval, 6)
    factor = scipy_stats.t.isf(0.05 / 12, 10) / scipy_stats.t.isf(0.025, 10)
    assert widening(10, 6) == pytest.approx(factor, rel=1e-9)
    # The bootstrap's asymmetry stays where a side is longer than half the width; a shorter
    # side is scaled from half the width (the floors widen both sides equally and can leave
    # one short of the t interval).
    assert six.low == pytest.approx(0.4 - 0.35 * factor)
    assert six.high == pytest.approx(0.4 + 0.4 * factor)
    assert widened(Interval(-4.5, -5.0, -2.0, 11), 6, (-5.0, 5.0)).low == -5.0
    assert set_level(6) == pytest.approx(1 - 0.05 / 6)
    assert widened(Interval(0.4, None, None, 1), 6) == Interval(0.4, None, None, 1)
