"""Agreement between a cell's previous verdict and its new one (DESIGN §14).

When ``--rejudge`` (with or without ``--model``) judges cells again that had a scored
verdict, the end of the run says how far the new judge agrees with the old: exact score,
within one point, quadratic-weighted Cohen's kappa over the pack's scale (1 = full agreement,
0 = what chance gives, below 0 = systematic disagreement; undefined when both judges give one
and the same score throughout),
and agreement on the red flag. That makes "resume with a better judge" a decision.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from touchstone import german
from touchstone.pack import Scale
from touchstone.results import Verdict


def weighted_kappa(pairs: Sequence[tuple[float, float]], low: int, high: int) -> float | None:
    """Cohen's kappa with quadratic weights for ratings on ``low..high``; None when the
    expected disagreement is 0 (both raters give one and the same score throughout)."""
    if high <= low:
        return None
    sums = KappaSums()
    for a, b in pairs:
        sums.add(a, b)
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
        self.n = 0
        self.sum_a = self.sum_b = self.sum_a2 = self.sum_b2 = self.sum_d2 = 0.0

    def add(self, a: float, b: float) -> None:
        self.n += 1
        self.sum_a += a
        self.sum_b += b
        self.sum_a2 += a * a
        self.sum_b2 += b * b
        self.sum_d2 += (a - b) * (a - b)

    def kappa(self) -> float | None:
        """None when there is no pair or no chance disagreement (one score throughout)."""
        return kappa_of_sums(self.n, self.sum_a, self.sum_b, self.sum_a2, self.sum_b2, self.sum_d2)


def kappa_of_sums(
    n: int, sum_a: float, sum_b: float, sum_a2: float, sum_b2: float, sum_d2: float
) -> float | None:
    """The quadratic weighted kappa from the sums of ``KappaSums`` (for a loop that adds
    them up itself); None without pairs or without chance disagreement."""
    expected = n * (sum_a2 + sum_b2) - 2 * sum_a * sum_b
    if n == 0 or expected == 0:
        return None
    return 1 - n * sum_d2 / expected


@dataclass(frozen=True)
class Agreement:
    cells: int
    exact: float
    within_one: float
    kappa: float | None
    red_flag: float
    previous_judges: tuple[str, ...]
    judge: str
    # The scale's span: "within one point" says little on 0..100 and is shown up to 0..10.
    span: int = 5

    @classmethod
    def of(cls, pairs: Sequence[tuple[Verdict, Verdict]], scale: Scale) -> Agreement | None:
        """Agreement over (previous, new) pairs of scored verdicts; None without pairs."""
        if not pairs:
            return None
        n = len(pairs)
        scores = [(old.score, new.score) for old, new in pairs]
        return cls(
            cells=n,
            exact=sum(a == b for a, b in scores) / n,
            within_one=sum(abs(a - b) <= 1 for a, b in scores) / n,
            kappa=weighted_kappa(scores, scale.min, scale.max),
            red_flag=sum(old.red_flag == new.red_flag for old, new in pairs) / n,
            previous_judges=tuple(dict.fromkeys(old.judge_model or "?" for old, _ in pairs)),
            judge=pairs[-1][1].judge_model,
            span=scale.max - scale.min,
        )

    def summary_de(self) -> str:
        kappa = german.number(self.kappa)
        previous = ", ".join(self.previous_judges)
        if self.previous_judges == (self.judge,):
            lead = f"Übereinstimmung mit den bisherigen Bewertungen desselben Judges ({previous})"
        elif len(self.previous_judges) == 1:
            lead = f"Übereinstimmung mit dem bisherigen Judge ({previous})"
        else:
            lead = f"Übereinstimmung mit den bisherigen Judges ({previous})"
        within = f"±1 Punkt {german.percent(self.within_one)}, " if 1 < self.span <= 10 else ""
        cells = german.counted(self.cells, "neu bewerteten Zelle", "neu bewerteten Zellen")
        return (
            f"{lead} auf {cells}: exakt {german.percent(self.exact)}, "
            f"{within}gewichtetes Kappa {kappa}, Warnsignal {german.percent(self.red_flag)}."
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "cells": self.cells,
            "exact": round(self.exact, 4),
            "within_one": round(self.within_one, 4),
            "weighted_kappa": None if self.kappa is None else round(self.kappa, 4),
            "red_flag": round(self.red_flag, 4),
            "previous_judges": list(self.previous_judges),
            "judge": self.judge,
            "summary": self.summary_de(),
        }
