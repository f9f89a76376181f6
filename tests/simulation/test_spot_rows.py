"""The spot check's row test at its stated level, checked by simulation: an unbiased judge is
rarely said to treat rows differently, a lenient one is found most of the time (the rest is
``tests/unit/spot/test_spot_rows.py``).
"""

from __future__ import annotations

import random

from tests.unit.spot.test_spot_rows import spot_check


def test_rows_whose_few_differences_agree_by_chance_do_not_look_precise() -> None:
    # A noisier judge (1:1:1): five differences often agree by chance, and a row's own small
    # variance made Welch's t too large (8 % of 6 x 5 cards flagged, with Holm); each row's
    # variance is floored by what all rows together vouch for.
    rng = random.Random(36)
    tests = [spot_check(rng, 6, 5, weights=(1, 1, 1)) for _ in range(800)]
    assert sum(t.found is not None for t in tests) / len(tests) <= 0.05


def test_a_judge_lenient_to_one_row_is_found_most_of_the_time() -> None:
    rng = random.Random(34)
    tests = [spot_check(rng, 6, 5, lenient=2) for _ in range(200)]
    # The pair named holds the lenient row (as the milder one).
    found = [t.found for t in tests if t.found is not None and t.found[0] == ("r0", "none")]
    assert len(found) / len(tests) >= 0.75


def test_an_unbiased_judge_is_rarely_said_to_treat_rows_differently() -> None:
    # Before: each of 15 pairs at 95 %, 28 % of such cards said "weicht ab".
    rng = random.Random(33)
    tests = [spot_check(rng, 6, 5) for _ in range(300)]
    assert all(t.correction == "holm" and t.pairs == 15 for t in tests)
    assert sum(t.found is not None for t in tests) / len(tests) <= 0.08
