"""A large spot-check card: weighing the kinds of pair agrees with resampling every pair (the
work and memory bounds are ``tests/unit/spot/test_many_ratings.py``).
"""

from __future__ import annotations

import pytest

from tests.unit.spot.test_human import SCALE
from tests.unit.spot.test_many_ratings import spot_check
from touchstone.spot.agreement import human_agreement
from touchstone.stats import bootstrap


def test_a_large_card_weighs_and_agrees_with_resampling_every_pair(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    verdicts, ratings = spot_check(300, 4)
    weighed = human_agreement(ratings, verdicts, SCALE)
    monkeypatch.setattr(bootstrap, "RESAMPLED_UNITS", 10_000)
    resampled = human_agreement(ratings, verdicts, SCALE)
    assert weighed is not None and resampled is not None
    assert weighed.n == resampled.n == 1200
    # The estimates are the same figures; only the intervals' draws differ.
    assert weighed.kappa == resampled.kappa and weighed.exact == resampled.exact
    assert weighed.mean_diff == resampled.mean_diff
    for name in ("exact_ci", "within_one_ci", "kappa_ci", "mean_diff_ci"):
        low, high = getattr(weighed, name)
        ref_low, ref_high = getattr(resampled, name)
        width = ref_high - ref_low
        assert 0 < width < 0.2, name
        assert low == pytest.approx(ref_low, abs=width / 5), name
        assert high == pytest.approx(ref_high, abs=width / 5), name
    for row, ref in zip(weighed.rows, resampled.rows, strict=True):
        assert row.ci is not None and ref.ci is not None
        width = ref.ci[1] - ref.ci[0]
        assert row.ci == pytest.approx(ref.ci, abs=width / 5)
    assert weighed.verdict == resampled.verdict
