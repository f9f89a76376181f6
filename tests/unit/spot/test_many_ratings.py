"""A big ``human.jsonl`` (issue 35): the agreement card's work and memory do not grow with
the ratings beyond one pass over them, and its figures stay what they are."""

from __future__ import annotations

import random
import tracemalloc

import pytest

from tests.unit.spot.test_human import SCALE, rating, verdict
from touchstone.results import Verdict
from touchstone.spot import agreement
from touchstone.spot.agreement import human_agreement
from touchstone.stats import bootstrap
from touchstone.store.ratings import HumanRating


class CountingRandom(random.Random):
    """``random.Random`` that counts the numbers it draws (every draw of ``choices`` and
    ``gammavariate`` goes through ``random``)."""

    drawn = 0

    def random(self) -> float:
        CountingRandom.drawn += 1
        return super().random()


def spot_check(cells: int, raters: int, seed: int = 5) -> tuple[list[Verdict], list[HumanRating]]:
    """``raters`` people who each rated all ``cells`` of three models: a close judge."""
    rng = random.Random(seed)
    verdicts, ratings = [], []
    for i in range(cells):
        v = verdict(("alpha", "beta", "gamma")[i % 3], f"p{i}", rng.randint(0, 5))
        verdicts.append(v)
        for r in range(raters):
            human = max(0, min(5, v.score + rng.choice((-2, -1, 0, 0, 0, 1, 1))))
            ratings.append(rating(v, int(human), rater=f"r{r}", flag=human == 0))
    return verdicts, ratings


def drawn_for(monkeypatch: pytest.MonkeyPatch, cells: int, raters: int) -> int:
    monkeypatch.setattr(random, "Random", CountingRandom)
    CountingRandom.drawn = 0
    verdicts, ratings = spot_check(cells, raters)
    card = human_agreement(ratings, verdicts, SCALE)
    assert card is not None and card.n == cells * raters
    return CountingRandom.drawn


def test_the_cards_bootstrap_draws_no_more_for_ten_times_the_ratings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 2,000 resamples of every pair drawn one by one were 2,000 x N numbers: 10,000 ratings
    # took `rate` 19 s, 200,000 did not end. Beyond a few hundred pairs the resamples weigh
    # the kinds of pair (judge score, person's score), whose number the scale bounds.
    small = drawn_for(monkeypatch, 300, 2)
    large = drawn_for(monkeypatch, 300, 20)
    assert large <= 1.2 * small
    assert large < 1_000_000  # against 36,000,000 one by one


def test_a_card_of_twenty_thousand_ratings_needs_little_memory() -> None:
    verdicts, ratings = spot_check(500, 40)
    tracemalloc.start()
    try:
        card = human_agreement(ratings, verdicts, SCALE)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert card is not None and card.n == 20_000
    # The pairs themselves are a few MB; the resamples of every pair, kept as index
    # tuples for the mean difference, were most of a GB.
    assert peak < 40 * 2**20


def test_a_small_cards_intervals_are_the_resamples_of_its_pairs() -> None:
    # Below the bound the card resamples its pairs one by one, with the draws it always took:
    # the same seed, the same resamples as ``bootstrap_replicates`` of the pairs.
    verdicts, ratings = spot_check(60, 2)
    card = human_agreement(ratings, verdicts, SCALE)
    pairs = agreement.pairs_of(ratings, verdicts)
    replicates = bootstrap.bootstrap_replicates(pairs, agreement.figures, seed=agreement.SEED)
    kappa_ci, _ = agreement.kappa_interval([r[2] for r in replicates], len(pairs), 10)
    within = bootstrap.percentile_interval([r[1] for r in replicates])
    assert card is not None
    assert card.kappa_ci == kappa_ci and card.within_one_ci == within
