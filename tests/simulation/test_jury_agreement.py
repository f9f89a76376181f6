"""A jury's alpha interval over many cells: weighing the kinds of cell agrees with resampling
every cell (the rest is ``tests/unit/quality/test_jury_agreement.py``).
"""

from __future__ import annotations

import random

import pytest

from touchstone.quality.jury_agreement import (
    alpha,
    alpha_interval,
)


def test_alpha_interval_of_many_cells_weighs_them_and_agrees_with_resampling(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from touchstone.stats import alpha as stats_alpha

    rng = random.Random(11)
    cells = {}
    for i in range(1500):
        truth = rng.randint(0, 5)
        cells[i] = {
            m: float(min(5, max(0, truth + rng.choice((-1, 0, 0, 1)))))
            for m in "abc"
            if rng.random() < 0.85
        }
    value = alpha(cells)
    weighed = alpha_interval(cells)  # beyond RESAMPLED_CELLS: the Bayesian bootstrap
    monkeypatch.setattr(stats_alpha, "RESAMPLED_CELLS", 10_000)
    resampled = alpha_interval(cells)
    assert value is not None and weighed is not None and resampled is not None
    assert weighed[0] < value < weighed[1]
    width = resampled[1] - resampled[0]
    assert 0 < width < 0.1
    assert weighed[0] == pytest.approx(resampled[0], abs=width / 5)
    assert weighed[1] == pytest.approx(resampled[1], abs=width / 5)
    assert alpha_interval(cells, seed=2) != resampled  # the seed decides the draws
