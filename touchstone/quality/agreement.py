"""Agreement between a cell's previous verdict and its new one (design.md §14).

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
from touchstone.stats.kappa import weighted_kappa


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
