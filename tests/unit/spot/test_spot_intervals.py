"""The agreement card's intervals with few ratings (design.md §23, issue 33): the rounding of a
difference of two scores, never past what a figure can be, "–" and the reason where the
ratings are too few."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from tests.unit.spot.test_human import SCALE, rating, verdict
from touchstone.pack import Scale
from touchstone.results import Verdict
from touchstone.spot.agreement import human_agreement
from touchstone.spot.card import figures_de, row_lines


def card_of(rows: dict[str, list[int]], human: int = 2, scale: Scale = SCALE):  # type: ignore[no-untyped-def]
    """A card whose rows have the given differences (judge minus human)."""
    verdicts, ratings = [], []
    for model, diffs in rows.items():
        for i, diff in enumerate(diffs):
            v = verdict(model, f"p{i}", human + diff)
            verdicts.append(v)
            ratings.append(rating(v, human))
    card = human_agreement(ratings, verdicts, scale)
    assert card is not None
    return card


def test_five_equal_differences_hide_the_rounding_of_two_scores() -> None:
    # Each of judge and person rounds to a whole point: the difference hides 2/12, so
    # five ratings of "+1" are +1 ± t(4)·sqrt(2/12/5) = ±0,51 (the single score's 1/12
    # gave [+0,64; +1,36]).
    card = card_of({"alpha": [1] * 5})
    (row,) = card.rows
    assert row.ci is not None
    half = 2.7764 * math.sqrt(2 / 12 / 5)
    assert row.ci == pytest.approx((1 - half, 1 + half), abs=1e-3)
    assert card.mean_diff_ci == row.ci


def test_two_ratings_of_a_row_give_no_interval_but_the_reason() -> None:
    # The "−10,7 bis +14,7" on a 0–5 scale: two ratings, Student's t with 1 df.
    card = card_of({"alpha": [1, 3], "beta": [0] * 10}, human=1)
    alpha = next(row for row in card.rows if row.model == "alpha")
    assert alpha.ci is None
    assert alpha.ci_note == "zu wenige Bewertungen für ein Intervall (2 von mindestens 3)"
    line = next(line for line in row_lines(card) if line.label == "alpha")
    assert line.diff == "+2,0 [–]"
    assert "zu wenige Bewertungen für ein Intervall (2 von mindestens 3)" in line.words
    assert card.as_dict()["rows"][0]["ci_note"] == alpha.ci_note


def test_a_kappa_resting_on_one_varying_pair_has_no_interval() -> None:
    # The judge gives 1 throughout but for one cell: a third of the resamples miss that cell
    # and have a kappa of exactly 0 whatever the agreement: "0,88 [0,00 – 1,00]" before.
    pairs = [(1, 1), (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), (1, 0), (1, 1), (1, 1), (1, 1)]
    verdicts, ratings = [], []
    for i, (judge, human) in enumerate(pairs):
        v = verdict("alpha", f"p{i}", judge)
        verdicts.append(v)
        ratings.append(rating(v, human))
    card = human_agreement(ratings, verdicts, SCALE)
    assert card is not None and card.kappa is not None and card.kappa > 0.8
    assert card.kappa_ci is None
    shown = dict(figures_de(card))["Gewichtetes Kappa"]
    assert shown.startswith("0,88 [–: zu wenig Streuung für ein Intervall")
    assert card.verdict == "weicht ab"
    assert any("Kappa 0,88 ohne Intervall" in reason for reason in card.reasons)


def test_a_kappa_interval_of_varied_ratings_holds_its_estimate_inside() -> None:
    rng = random.Random(9)
    verdicts: list[Verdict] = []
    ratings = []
    for i in range(30):
        human = rng.randint(0, 5)
        v = verdict(
            ("alpha", "beta")[i % 2], f"p{i}", max(0, min(5, human + rng.choice((-1, 0, 1))))
        )
        verdicts.append(v)
        ratings.append(rating(v, human))
    card = human_agreement(ratings, verdicts, SCALE)
    assert card is not None and card.kappa is not None and card.kappa_ci is not None
    assert card.kappa_ci[0] < card.kappa < card.kappa_ci[1]
    assert card.kappa_note is None


def test_the_card_says_what_95_percent_refers_to() -> None:
    card = card_of({m: [0, 1, 0, -1, 0] for m in ("alpha", "beta", "gamma")})
    compared = dict(figures_de(card))["Modelle verglichen"]
    assert compared == (
        "Welch-Test je Paar, Holm über 3 Zeilenpaare: „unterscheiden sich“ gilt zu 95 % für "
        "die ganze Karte; die Intervalle je Modell gelten zu 95 % je Zeile"
    )
    assert statistics.fmean(row.mean_diff for row in card.rows) == 0


@pytest.mark.parametrize("weights", [(1, 2, 1), (1, 1, 1), (0, 1, 4)])
@pytest.mark.parametrize("n", [3, 5])
def test_a_rows_interval_covers_the_true_mean_difference(
    weights: tuple[int, int, int], n: int
) -> None:
    from touchstone.spot.intervals import mean_difference_interval

    values = (-1, 0, 1)
    truth = sum(v * w for v, w in zip(values, weights, strict=True)) / sum(weights)
    rng = random.Random(n * 100 + sum(weights))
    covered = 0
    for _ in range(200):
        diffs = [float(d) for d in rng.choices(values, weights=weights, k=n)]
        ci, note = mean_difference_interval(diffs, 5)
        assert ci is not None and note is None
        covered += ci[0] <= truth <= ci[1]
    assert covered / 200 >= 0.92


def test_one_row_or_two_say_what_was_compared() -> None:
    one = card_of({"alpha": [0, 1, 0, -1, 0, 0, 1, 0, -1, 0]})
    assert dict(figures_de(one))["Modelle verglichen"] == (
        "keine zwei Modelle mit je mindestens 2 Bewertungen: nicht verglichen"
    )
    assert one.as_dict()["rows_test"]["pairs"] == 0
    assert not any("Rangfolge" in reason for reason in one.reasons)
    two = card_of({m: [0, 1, 0, -1, 0] for m in ("alpha", "beta")})
    assert dict(figures_de(two))["Modelle verglichen"].startswith(
        "Welch-Test über 1 Zeilenpaar (keine Korrektur nötig): „unterscheiden sich“ gilt"
    )
    assert two.as_dict()["rows_test"]["correction"] == "none"
