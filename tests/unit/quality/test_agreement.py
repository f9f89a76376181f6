"""Agreement of re-judged cells with their previous verdicts (design.md §14, issue 15)."""

import pytest

from touchstone.stats.kappa import weighted_kappa


@pytest.mark.parametrize(
    ("first", "second", "kappa"),
    [
        ([0, 3, 5, 2], [0, 3, 5, 2], 1.0),
        ([0, 0, 1, 1], [0, 1, 0, 1], 0.0),
        ([0, 1, 2], [2, 1, 0], -1.0),
    ],
)
def test_weighted_kappa(first: list[int], second: list[int], kappa: float) -> None:
    span = (min(first + second), max(first + second))
    assert weighted_kappa(list(zip(first, second, strict=True)), *span) == pytest.approx(kappa)


def test_weighted_kappa_is_the_confusion_matrix_definition() -> None:
    # Cohen's kappa with quadratic weights w_ij = (i - j)^2 / (k - 1)^2 over the k x k
    # confusion matrix O and the product of its marginals E: 1 - sum(w O) / sum(w E).
    import random

    rng = random.Random(8)
    for _ in range(50):
        n = rng.randint(5, 40)
        pairs = [(rng.randint(0, 5), rng.randint(0, 5)) for _ in range(n)]
        observed = [[0.0] * 6 for _ in range(6)]
        for a, b in pairs:
            observed[a][b] += 1
        rows = [sum(observed[i]) for i in range(6)]
        cols = [sum(observed[i][j] for i in range(6)) for j in range(6)]
        weight = [[(i - j) ** 2 / 25 for j in range(6)] for i in range(6)]
        seen = sum(weight[i][j] * observed[i][j] for i in range(6) for j in range(6))
        chance = sum(weight[i][j] * rows[i] * cols[j] / n for i in range(6) for j in range(6))
        expected = None if chance == 0 else 1 - seen / chance
        assert weighted_kappa(pairs, 0, 5) == pytest.approx(expected)


def test_kappa_is_undefined_when_no_judge_varies() -> None:
    assert weighted_kappa([(3, 3), (3, 3)], 0, 5) is None
