"""Intervals that say what is a difference and what is noise (DESIGN §13)."""

import random
from fractions import Fraction

import pytest

from touchstone.stats import (
    SEED,
    Cluster,
    _draws,
    _percentiles,
    _t_quantile,
    _tail,
    mean_interval,
    paired_difference,
)


@pytest.mark.parametrize(
    ("p", "df", "expected"), [(0.975, 1, 12.706), (0.975, 4, 2.776), (0.975, 26, 2.056)]
)
def test_t_quantiles_match_the_tables(p: float, df: int, expected: float) -> None:
    assert _t_quantile(p, df) == pytest.approx(expected, abs=1e-3)


def test_the_interval_holds_the_mean_and_is_the_same_every_time() -> None:
    clusters = [Cluster(s * 3, 3) for s in (5, 4, 4, 3, 5, 2, 4, 5, 3, 4)]
    first = mean_interval(clusters)
    assert first is not None and first.low < first.mean < first.high
    assert first.mean == pytest.approx(3.9)
    # Fixed seed: the same run, the same numbers, even when the resampling is drawn anew.
    _draws.cache_clear()
    assert mean_interval(list(clusters)) == first
    assert mean_interval([]) is None
    one = mean_interval([Cluster(8, 2)])
    assert one is not None and (one.low, one.mean, one.high) == (4, 4, 4)


def test_repeats_make_a_prompt_count_once_in_the_resampling() -> None:
    # Ten prompts with one repeat each and with ten identical repeats each: the same spread of
    # prompts, so (nearly) the same interval; repeats are no new evidence about prompts.
    scores = [5, 1, 4, 2, 5, 0, 3, 4, 1, 5]
    single = mean_interval([Cluster(s, 1) for s in scores])
    tenfold = mean_interval([Cluster(10 * s, 10) for s in scores])
    assert single is not None and tenfold is not None
    assert tenfold.half_width == pytest.approx(single.half_width, rel=0.05)


def test_coverage_of_the_true_mean_is_near_95_percent() -> None:
    # A small version of benchmarks/ci_coverage.py: 120 simulated runs of 27 prompts.
    rng = random.Random(7)
    true_mean, hits, runs = 3.0, 0, 120
    for run in range(runs):
        clusters = []
        for _ in range(27):
            centre = true_mean + rng.gauss(0, 1)
            repeats = [centre + rng.gauss(0, 0.5) for _ in range(2)]
            clusters.append(Cluster(sum(repeats), 2))
        interval = mean_interval(clusters, resamples=500, seed=run)
        assert interval is not None
        hits += interval.low <= true_mean <= interval.high
    assert 0.85 <= hits / runs <= 1.0  # coarse: the benchmark measures 93–97 %


def test_paired_difference_over_shared_prompts_only() -> None:
    a = {f"P{i}": Cluster(4 + i % 2, 1) for i in range(12)}
    b = {f"P{i}": Cluster(3 + i % 2, 1) for i in range(12)}
    b["extra"] = Cluster(0, 1)  # not scored by a: no part of the comparison
    diff = paired_difference(a, b)
    assert diff is not None and diff.n == 12
    assert (diff.low, diff.mean, diff.high) == (1, 1, 1)  # always exactly one point better
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
    equal = mean_interval([Cluster(4, 1), Cluster(2, 1), Cluster(3, 1)])
    weighted = mean_interval([Cluster(8, 2), Cluster(2, 1), Cluster(3, 1)])
    assert equal is not None and weighted is not None
    assert weighted.mean == pytest.approx(13 / 4) and equal.mean == pytest.approx(3)
    assert weighted.high == pytest.approx(4) and equal.high == pytest.approx(4)


def _exact(a: dict[str, Cluster], b: dict[str, Cluster], resamples: int) -> tuple[Fraction, ...]:
    """The paired interval's low and high in exact arithmetic, from the same draws."""
    keys = sorted(set(a) & set(b))
    diffs = [
        Fraction(int(a[k].total), a[k].count) - Fraction(int(b[k].total), b[k].count) for k in keys
    ]
    n = len(keys)
    boot = [sum(draw(diffs), Fraction(0)) / n for draw in _draws(n, resamples, SEED)]
    return _percentiles(boot, _tail(n))  # type: ignore[arg-type]


# Two rows of a random run (5 % unscored cells): their true low end is exactly 0.
UNEVEN_A = {
    f"P{i}": Cluster(t, c)
    for i, (t, c) in enumerate(
        [
            (8, 3),
            (11, 3),
            (11, 3),
            (7, 3),
            (9, 3),
            (5, 3),
            (9, 3),
            (5, 2),
            (10, 3),
            (11, 3),
            (10, 3),
            (5, 2),
            (8, 3),
            (6, 2),
            (4, 1),
            (9, 3),
            (12, 3),
            (11, 3),
            (10, 3),
            (9, 3),
            (11, 3),
            (8, 2),
            (7, 3),
            (11, 3),
            (8, 2),
            (6, 2),
        ]
    )
}
UNEVEN_B = {
    f"P{i}": Cluster(t, c)
    for i, (t, c) in enumerate(
        [
            (5, 2),
            (6, 3),
            (5, 3),
            (11, 3),
            (8, 3),
            (7, 3),
            (8, 3),
            (9, 3),
            (3, 2),
            (7, 3),
            (6, 3),
            (11, 3),
            (9, 3),
            (6, 3),
            (8, 3),
            (9, 3),
            (11, 3),
            (5, 2),
            (10, 3),
            (7, 2),
            (8, 3),
            (11, 3),
            (8, 3),
            (8, 3),
            (12, 3),
            (10, 3),
        ]
    )
}


def test_better_is_decided_as_exact_arithmetic_decides_it() -> None:
    # A difference that is exactly 0 must not become 5e-16 by rounding: "better" is decided
    # on the sign of the interval's ends.
    cases = [(UNEVEN_A, UNEVEN_B)]
    rng = random.Random(5)
    for _ in range(30):
        n, ca, cb = rng.randint(5, 30), rng.randint(1, 3), rng.randint(1, 3)
        a = {f"P{i}": Cluster(rng.randint(0, 5 * ca), ca) for i in range(n)}
        b = {f"P{i}": Cluster(rng.randint(0, 5 * cb), cb) for i in range(n)}
        cases.append((a, b))
        # Equal but on a few prompts: many draws differ by exactly 0.
        near = {
            k: (Cluster(c.total + 1, c.count) if i % 9 == 4 else c)
            for i, (k, c) in enumerate(a.items())
        }
        cases.append((near, a))
    for a, b in cases:
        resamples = 1000 if a is UNEVEN_A else 300
        diff = paired_difference(a, b, resamples=resamples)
        low, high = _exact(a, b, resamples)
        assert diff is not None
        assert (diff.low > 0, diff.low < 0) == (low > 0, low < 0)
        assert (diff.high > 0, diff.high < 0) == (high > 0, high < 0)
        assert (diff.low, diff.high) == pytest.approx((float(low), float(high)), abs=1e-9)
