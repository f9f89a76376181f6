"""How the ranks were split, and how the card says it (design.md §23, issue 33 §4).

A rank rests on all pairs of ranked rows at once: "m02 is rank 2" says that some row is better
than it, and "all share rank 1" that no pair of the r(r-1)/2 differs. So for the ranks a pair
counts as "better" only when its interval at 1 - 5 %/m (Bonferroni over the m pairs) lies
above 0, and all ranks of a card hold together at 95 %. The comparisons the card shows pair by
pair stay at 95 % each: a reader of one pair asks about that pair. The two can disagree (▲ in
the matrix, the same rank), and every place that shows ranks says which level it means.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from touchstone import german
from touchstone.stats.distributions import LEVEL
from touchstone.stats.multiplicity import set_level


def level_text(level: float) -> str:
    """``99,67 %``: a level near 1 with as many digits as it takes to show two of what it
    leaves out (1 - 5 %/79.800 is "99,999937 %", not "100 %"); ``95 %``, not "95,0 %"."""
    missing = (1 - level) * 100
    digits = max(0, math.ceil(-math.log10(missing)) + 1) if missing > 0 else 0
    text = german.number(100 - missing, digits)
    if "," in text:
        text = text.rstrip("0").rstrip(",")
    return f"{text} %"


@dataclass(frozen=True)
class RankRule:
    """The ranks' "better": a pair's paired interval at ``level_per_pair`` (95 % widened for
    ``pairs`` decisions, ``multiplicity.widened``) lies above 0. ``pairs``: r(r-1)/2 for r
    ranked rows."""

    pairs: int

    @property
    def level_per_pair(self) -> float:
        return set_level(self.pairs)

    @property
    def scope(self) -> str:
        """``für alle 15 Paare zusammen``: what the 95 % of the ranks covers."""
        if self.pairs == 0:
            return "(keine zwei Zeilen mit Intervall: nichts zu vergleichen)"
        if self.pairs == 1:
            return "für das eine Paar"
        return f"für alle {german.counted(self.pairs, 'Paar', 'Paare')} zusammen"

    @property
    def family(self) -> str:
        """``scope`` and, with more than one pair, the correction."""
        if self.pairs <= 1:
            return self.scope
        return f"{self.scope} (Bonferroni: je Paar {level_text(self.level_per_pair)})"

    def legend(self) -> list[str]:
        """The legend's entries on ranks (terminal, report, GUI), one a line: each short
        enough to stay one line on a desktop."""
        return [
            "Rang: 1 + die längste Kette besserer Zeilen darüber; gleicher Rang = nicht "
            "unterscheidbar",
            f"„besser“ für den Rang: Differenz über 0 zu 95 % {self.family}",
        ]

    def tie_label(self) -> str:
        """What rows of one rank are, before their names."""
        if self.pairs <= 1:
            return "Nicht unterscheidbar (95 %)"
        return f"Gleicher Rang, nicht unterscheidbar (95 % {self.scope})"

    def pair_notes(self) -> list[str]:
        """Beside the pairwise comparisons: their ▲/▼ are each pair's own; none when that is
        what the ranks use too (one pair)."""
        if self.pairs <= 1:
            return []
        return [
            "▲, ▼ und [von – bis] gelten für das eine Paar allein (95 % je Paar)",
            f"Die Ränge verlangen 95 % {self.scope}: ▲ oder ▼ zwischen zwei Zeilen gleichen "
            "Rangs ist möglich",
        ]

    def as_dict(self) -> dict[str, Any]:
        """``scorecard.json`` ``ranks``: the rule, and in words that a comparison's ``better``
        is the pair's own (95 %) and the ranks the card's."""
        note = f"Ränge: „besser“ zu 95 % {self.family}."
        if self.pairs > 1:
            note += (
                " „better“ in „comparisons“ gilt für das eine Paar allein (95 %): ein Paar kann "
                "dort besser sein und doch denselben Rang haben."
            )
        return {
            "method": "bonferroni",
            "pairs": self.pairs,
            "level": LEVEL,
            "level_per_pair": round(self.level_per_pair, 9),
            "note": note,
        }
