"""The spot check's intervals of a mean difference stay inside what the scale allows, over many
drawn cards (the rest is ``tests/unit/spot/test_spot_intervals.py``).
"""

from __future__ import annotations

import random

from tests.unit.spot.test_human import rating, verdict
from tests.unit.spot.test_spot_intervals import card_of
from touchstone.pack import Scale
from touchstone.spot.agreement import human_agreement


def test_no_interval_of_a_mean_difference_passes_the_scale() -> None:
    # Judge 5, person 0, three times: the difference can be +5 at most.
    card = card_of({"alpha": [5, 5, 5], "beta": [5, 4, 5, 5]}, human=0)
    for row in card.rows:
        assert row.ci is not None and -5 <= row.ci[0] <= row.ci[1] <= 5
    assert card.mean_diff_ci is not None and card.mean_diff_ci[1] <= 5
    # And random small cards on 0..2 never leave [-2, 2].
    rng = random.Random(4)
    small = Scale(min=0, max=2)
    for _ in range(40):
        verdicts, ratings = [], []
        for i in range(rng.randint(3, 12)):
            v = verdict(("alpha", "beta")[i % 2], f"p{i}", rng.randint(0, 2))
            verdicts.append(v)
            ratings.append(rating(v, rng.randint(0, 2)))
        card = human_agreement(ratings, verdicts, small)
        assert card is not None
        for ci in [row.ci for row in card.rows] + [card.mean_diff_ci]:
            assert ci is None or -2 <= ci[0] <= ci[1] <= 2
        for ci in (card.kappa_ci,):
            assert ci is None or -1 <= ci[0] <= ci[1] <= 1
        for ci in (card.exact_ci, card.within_one_ci):
            assert ci is None or 0 <= ci[0] <= ci[1] <= 1
