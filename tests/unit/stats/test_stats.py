"""Intervals that say what is a difference and what is noise (design.md §13)."""

import random
import statistics

import pytest

from touchstone.stats.distributions import chi2_upper as _chi2_upper
from touchstone.stats.distributions import t_quantile as _t_quantile
from touchstone.stats.intervals import SEED, Cluster, _draws, _percentiles, _tail, mean_interval
from touchstone.stats.paired import paired_difference


@pytest.mark.parametrize(
    ("p", "df", "expected"), [(0.975, 1, 12.706), (0.975, 4, 2.776), (0.975, 26, 2.056)]
)
def test_t_quantiles_match_the_tables(p: float, df: int, expected: float) -> None:
    assert _t_quantile(p, df) == pytest.approx(expected, abs=1e-3)


def _ids(clusters: list[Cluster]) -> dict[str, Cluster]:
    return {f"P{i:03d}": c for i, c in enumerate(clusters)}


@pytest.mark.parametrize(
    ("df", "expected", "rel"),
    [(1, 3.841, 0.03), (2, 5.991, 0.01), (8, 15.507, 0.01), (60, 79.082, 0.01)],
)
def test_chi_squared_quantiles_match_the_tables(df: int, expected: float, rel: float) -> None:
    # Wilson-Hilferty runs low with 1 df: the noise floor only gets wider there.
    assert _chi2_upper(df) == pytest.approx(expected, rel=rel)
    assert _chi2_upper(df) <= expected


def test_the_interval_holds_the_mean_and_is_the_same_every_time() -> None:
    clusters = _ids([Cluster(s * 3, 3) for s in (5, 4, 4, 3, 5, 2, 4, 5, 3, 4)])
    first = mean_interval(clusters)
    assert first is not None and first.low < first.mean < first.high
    assert first.mean == pytest.approx(3.9)
    # Fixed seed: the same run, the same numbers, even when the resampling is drawn anew.
    _draws.cache_clear()
    assert mean_interval(dict(clusters)) == first
    assert mean_interval({}) is None


def test_repeats_make_a_prompt_count_once_in_the_resampling() -> None:
    # Ten prompts with one repeat each and with ten identical repeats each: the same spread of
    # prompts, so (nearly) the same interval; repeats are no new evidence about prompts.
    scores = [5, 1, 4, 2, 5, 0, 3, 4, 1, 5]
    single = mean_interval(_ids([Cluster(s, 1) for s in scores]))
    tenfold = mean_interval(_ids([Cluster(10 * s, 10) for s in scores]))
    assert single is not None and tenfold is not None
    assert tenfold.half_width == pytest.approx(single.half_width, rel=0.05)


def test_paired_difference_over_shared_prompts_only() -> None:
    a = {f"P{i}": Cluster(4 + i % 2, 1) for i in range(12)}
    b = {f"P{i}": Cluster(3 + i % 2, 1) for i in range(12)}
    b["extra"] = Cluster(0, 1)  # not scored by a: no part of the comparison
    diff = paired_difference(a, b)
    assert diff is not None and diff.n == 12
    # Always exactly one point better: no spread between prompts, yet the scale's resolution
    # leaves an interval, and 12 prompts still decide.
    assert diff.low is not None and diff.high is not None
    assert 0 < diff.low < diff.mean == 1 < diff.high
    noisy = {k: Cluster(c.total + (1 if i % 2 else -1), 1) for i, (k, c) in enumerate(a.items())}
    tie = paired_difference(noisy, a)
    assert tie is not None and tie.low < 0 < tie.high
    assert paired_difference({"x": Cluster(1, 1)}, {"y": Cluster(1, 1)}) is None


def test_rows_with_the_same_prompts_compare_as_prompt_by_prompt() -> None:
    # The scorecard sums each row's draws once and subtracts the sums; that must give the
    # interval the prompt-by-prompt differences give (here forced by one unshared prompt).
    rng = random.Random(3)
    a = {f"P{i}": Cluster(rng.randint(0, 15), 3) for i in range(30)}
    b = {f"P{i}": Cluster(rng.randint(0, 15), 3) for i in range(30)}
    shared = paired_difference(a, b)
    by_prompt = paired_difference({**a, "only-a": Cluster(5, 1)}, {**b, "only-b": Cluster(0, 1)})
    assert shared is not None and by_prompt is not None and shared.n == by_prompt.n == 30
    assert (shared.mean, shared.low, shared.high) == pytest.approx(
        (by_prompt.mean, by_prompt.low, by_prompt.high), abs=1e-9
    )
    assert shared.low < shared.mean < shared.high


def test_unequal_repeats_weigh_each_cell_in_the_resampled_mean() -> None:
    # Twenty prompts, every third with two scored cells: each draw's mean is its cells' mean
    # (sum of totals over sum of counts), not the mean of its prompt means.
    clusters = _ids(
        [Cluster(2 * s, 2) if i % 3 == 0 else Cluster(s, 1) for i, s in enumerate([5, 0] * 10)]
    )
    interval = mean_interval(clusters)
    assert interval is not None
    ordered = list(clusters.values())
    assert interval.mean == pytest.approx(sum(c.total for c in ordered) / 27)
    totals, counts = [c.total for c in ordered], [c.count for c in ordered]
    boot = [sum(draw(totals)) / sum(draw(counts)) for draw in _draws(20, 1000, SEED)]
    low, high = _percentiles(boot, _tail(20))
    assert (interval.low, interval.high) == pytest.approx((low, high))


def _scores(rng: random.Random, centre: float, repeats: int) -> list[int]:
    return [max(0, min(5, round(centre + rng.gauss(0, 0.9)))) for _ in range(repeats)]


def test_identical_differences_never_give_a_zero_width_interval() -> None:
    # Two prompts on which "a" is exactly one point ahead: no spread between prompts, but the
    # repeats (or, without repeats, the scale's resolution) say what noise can do. The old
    # interval was [1, 1]: "better" on two prompts.
    with_repeats = paired_difference(
        {"P1": Cluster.of([4, 3, 5]), "P2": Cluster.of([3, 2, 4])},
        {"P1": Cluster.of([3, 2, 4]), "P2": Cluster.of([2, 1, 3])},
    )
    single = paired_difference(
        {"P1": Cluster.of([4]), "P2": Cluster.of([3])},
        {"P1": Cluster.of([3]), "P2": Cluster.of([2])},
    )
    for diff in (with_repeats, single):
        assert diff is not None and diff.mean == 1
        assert diff.low is not None and diff.high is not None
        assert diff.low < 0.5 and diff.high > 1.5
    # Without repeats nothing but the two prompts speaks: no decision.
    assert single is not None and not single.excludes_zero


def test_one_prompt_has_no_interval() -> None:
    one = mean_interval({"P1": Cluster.of([4, 4, 5])})
    assert one is not None and one.n == 1 and (one.low, one.high) == (None, None)
    assert one.half_width is None
    diff = paired_difference({"P1": Cluster.of([5])}, {"P1": Cluster.of([0])})
    assert diff is not None and diff.mean == 5 and (diff.low, diff.high) == (None, None)
    assert not diff.excludes_zero


def test_the_interval_does_not_depend_on_the_order_of_the_prompts() -> None:
    clusters = {f"P{i}": Cluster.of([i % 6, (i * 7) % 6]) for i in range(15)}
    backwards = dict(reversed(list(clusters.items())))
    assert mean_interval(backwards) == mean_interval(clusters)


def test_a_rows_spread_is_floored_by_the_other_rows_pooled_spread() -> None:
    """Issue 33 §5: three prompts that agree have no spread of their own; the pool of the
    other rows (with its own df) floors it: the moderated t interval of ``stats``."""
    from scipy import stats as scipy_stats

    from touchstone.stats.intervals import pool_rows

    top = {"P1": Cluster.of([5]), "P2": Cluster.of([5]), "P3": Cluster.of([5])}
    other = {"P1": Cluster.of([5]), "P2": Cluster.of([3]), "P3": Cluster.of([4])}
    pool = pool_rows([top, other])
    floored = mean_interval(top, pool=pool)
    assert floored is not None and floored.low is not None
    # The other row's 2 df count in full (fewer than PRIOR_DF): the pooled variance of the
    # two rows, (0 + 2) / 4, with 4 df: the two-sample pooled t interval of one mean.
    half = scipy_stats.t.ppf(0.975, 4) * (0.5 / 3) ** 0.5
    assert floored.low == pytest.approx(5 - half)
    # A row takes its own part out of the pool: pooled with itself alone, nothing changes.
    assert mean_interval(top, pool=pool_rows([top])) == mean_interval(top)
    assert mean_interval(other, pool=pool_rows([other])) == mean_interval(other)
    # A row with more spread than the pool keeps its own t interval.
    wide = mean_interval(other, pool=pool)
    assert wide == mean_interval(other)


def test_many_other_rows_weigh_as_prior_df_and_fade_with_many_prompts() -> None:
    from touchstone.stats.intervals import pool_rows
    from touchstone.stats.pooling import PRIOR_DF

    rng = random.Random(4)
    others = [{f"P{i}": Cluster.of([rng.randint(0, 5)]) for i in range(30)} for _ in range(5)]
    pool = pool_rows(others)
    variance = pool.squares / pool.df
    for n in (3, 30):
        row = {f"P{i}": Cluster.of([4]) for i in range(n)}
        interval = mean_interval(row, pool=pool_rows([row, *others]))
        assert interval is not None and interval.low is not None
        df = n - 1 + PRIOR_DF
        half = _t_quantile(0.975, df) * (PRIOR_DF * variance / df / n) ** 0.5
        assert 4 - interval.low == pytest.approx(half)


def test_a_paired_difference_of_few_prompts_is_floored_by_the_pooled_differences() -> None:
    from touchstone.stats.paired import difference_squares, pool_differences

    # Three shared prompts on which the new row is exactly one point ahead; the other rows'
    # differences vary by prompt.
    new = {f"P{i}": Cluster.of([4]) for i in range(3)}
    old = {f"P{i}": Cluster.of([3]) for i in range(3)}
    others = [
        ({f"P{i}": Cluster.of([s]) for i, s in enumerate((5, 2, 4))}, old),
        ({f"P{i}": Cluster.of([s]) for i, s in enumerate((1, 4, 3))}, old),
    ]
    assert difference_squares(*others[0]) == (pytest.approx(14 / 3), 2)
    pool = pool_differences([(new, old), *others])
    alone = paired_difference(new, old)
    floored = paired_difference(new, old, pool=pool)
    assert alone is not None and floored is not None
    assert alone.excludes_zero is False and floored.low is not None and alone.low is not None
    assert floored.low < alone.low and floored.mean == alone.mean == 1


def test_on_a_scale_the_pooled_interval_reaches_down_from_the_ceiling() -> None:
    """On a scale the other rows pool their dispersion (variance over (mean - low)(high -
    mean)) and the interval holds every mean mu for which the row's mean is within t times the
    moderated spread at mu: three prompts at 5 reach down to what the others' dispersion
    allows at lower means, where a symmetric floor around 5 would stop short."""
    from touchstone.stats.distributions import t_upper
    from touchstone.stats.intervals import pool_rows
    from touchstone.stats.pooling import PRIOR_DF

    top = {f"P{i}": Cluster.of([5]) for i in range(3)}
    others = [
        {f"P{i}": Cluster.of([s]) for i, s in enumerate(scores)}
        for scores in ((5, 4, 5), (4, 5, 3), (5, 5, 4))
    ]
    interval = mean_interval(top, pool=pool_rows([top, *others], (0.0, 5.0)))
    assert interval is not None and interval.low is not None
    squares = sum(statistics.variance(o) * 2 for o in ([5, 4, 5], [4, 5, 3], [5, 5, 4]))
    room = sum(
        2 * statistics.fmean(o) * (5 - statistics.fmean(o))
        for o in ([5, 4, 5], [4, 5, 3], [5, 5, 4])
    )
    dispersion, df = squares / room, 2 + PRIOR_DF
    mu = interval.low
    # At the lower bound the row's mean is exactly t times the moderated spread away.
    spread = PRIOR_DF * dispersion * mu * (5 - mu) / df
    assert (5 - mu) ** 2 == pytest.approx(t_upper(df) ** 2 * spread / 3)
    symmetric = mean_interval(top, pool=pool_rows([top, *others]))
    assert symmetric is not None and symmetric.low is not None and mu < symmetric.low
