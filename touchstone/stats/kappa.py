"""Quadratic-weighted Cohen's kappa (the one kappa of touchstone: re-judged cells, the spot
check, a jury's pairs): 1 = full agreement, 0 = what chance gives, below 0 = systematic
disagreement; undefined when both raters give one and the same score throughout. Checked
against the definition over the full confusion matrix in
``tests/unit/quality/test_agreement.py``."""

from __future__ import annotations

from collections.abc import Sequence


def weighted_kappa(
    pairs: Sequence[tuple[float, float]],
    low: int,
    high: int,
    counts: Sequence[float] | None = None,
) -> float | None:
    """Cohen's kappa with quadratic weights for ratings on ``low..high``; None when the
    expected disagreement is 0 (both raters give one and the same score throughout).
    ``counts``: how often each of ``pairs`` occurs (each once without)."""
    if high <= low:
        return None
    sums = KappaSums()
    for (a, b), times in zip(pairs, counts or [1] * len(pairs), strict=True):
        sums.add(a, b, times)
    return sums.kappa()


class KappaSums:
    """The five sums the quadratic weighted kappa needs, so that a bootstrap computes it in
    one pass with other figures.

    With quadratic weights the chance disagreement of the two raters' marginals is
    ``E[(a - b)^2]`` for independent draws, ``Σa² + Σb² - 2·Σa·Σb/n`` in sums (the weights'
    normalisation cancels): the kappa of the full confusion matrix. Scores are whole points
    or, of a jury's cell, halves: both add up exactly in binary floats, so "no chance
    disagreement" is an exact zero.
    """

    __slots__ = ("n", "sum_a", "sum_a2", "sum_b", "sum_b2", "sum_d2")

    def __init__(self) -> None:
        self.n: float = 0
        self.sum_a = self.sum_b = self.sum_a2 = self.sum_b2 = self.sum_d2 = 0.0

    def add(self, a: float, b: float, times: float = 1) -> None:
        self.n += times
        self.sum_a += times * a
        self.sum_b += times * b
        self.sum_a2 += times * a * a
        self.sum_b2 += times * b * b
        self.sum_d2 += times * (a - b) * (a - b)

    def kappa(self) -> float | None:
        """None when there is no pair or no chance disagreement (one score throughout)."""
        return kappa_of_sums(self.n, self.sum_a, self.sum_b, self.sum_a2, self.sum_b2, self.sum_d2)


def kappa_of_sums(
    n: float, sum_a: float, sum_b: float, sum_a2: float, sum_b2: float, sum_d2: float
) -> float | None:
    """The quadratic weighted kappa from the sums of ``KappaSums`` (for a loop that adds
    them up itself); None without pairs or without chance disagreement."""
    expected = n * (sum_a2 + sum_b2) - 2 * sum_a * sum_b
    if n == 0 or expected == 0:
        return None
    return 1 - n * sum_d2 / expected
