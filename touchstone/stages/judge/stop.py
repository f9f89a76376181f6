"""How a stopped judge run (breaker, budget) ends: what stands of the run, said once.

The judge run stopped inside ``judge.passes.judge_run``; what it had counted went with it.
What the end tells is over the run as it now is (the prior verdicts and what landed), not
over the calls of this run: the cells left open, the prior verdicts that stand, the
unreadable replies and the refusals among them. The stop is told anew with them
(``restated``): the CLI's message, the ``aborted`` event's facts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from touchstone.errors import BudgetReached, JudgeAborted
from touchstone.german import counted
from touchstone.judge.advice import after_stop
from touchstone.judge.health import JudgeHealth
from touchstone.judge.plan import JudgePlan
from touchstone.results import EvalResponse, Verdict, VerdictKey, cell_key


@dataclass(frozen=True)
class StoppedRun:
    """The run's verdicts after a stop, and the figures its end names."""

    # Clean means de-duplicated: with --rejudge a landed verdict replaces a prior one.
    verdicts: dict[VerdictKey, Verdict]
    # Cells without a verdict: a stopped re-judge keeps the prior verdicts it did not
    # replace, so their cells are not open.
    open_cells: int
    # Prior verdicts that stand for cells this run would have judged again.
    kept: int
    unreadable: int
    refused: int

    @classmethod
    def of(
        cls,
        responses: Sequence[EvalResponse],
        prior: Sequence[Verdict],
        landed: Mapping[VerdictKey, Verdict],
        plan: JudgePlan,
    ) -> StoppedRun:
        now = {cell_key(v): v for v in prior}
        now.update(landed)
        keys = list(map(cell_key, responses))
        # A refused cell's verdict was not kept against a re-judge: it waits to be asked.
        refused = {cell_key(v) for v in now.values() if v.unscored_reason == "judge_refused"}
        prior_keys = {cell_key(v) for v in prior}
        kept = sum(
            1
            for key in keys
            if key not in plan.skip
            and key in prior_keys
            and key not in landed
            and key not in refused
        )
        return cls(
            verdicts=now,
            open_cells=sum(1 for key in keys if key not in now),
            kept=kept,
            unreadable=sum(1 for v in now.values() if v.unscored_reason == "unparseable"),
            refused=len(refused),
        )

    def told(
        self, exc: JudgeAborted | BudgetReached, health: JudgeHealth, *, rejudge_left: int = 0
    ) -> JudgeAborted | BudgetReached:
        """``exc`` as the end of the judge run tells it: what is left, and how to go on;
        ``rejudge_left``: the cells a stopped ``--rejudge all`` has not reached."""
        over_budget = isinstance(exc, BudgetReached)
        left = after_stop(
            open_cells=self.open_cells,
            # Not re-judged for want of budget, not for a failed re-judge: said apart.
            kept=0 if over_budget else self.kept,
            unreadable=self.unreadable,
            refused=self.refused,
            kind=exc.kind if isinstance(exc, JudgeAborted) else "",
        )
        if over_budget and self.kept:
            stands = (
                "die bisherige Bewertung bleibt" if self.kept == 1 else "die bisherigen bleiben"
            )
            left = f"{counted(self.kept, 'Zelle', 'Zellen')} nicht neu bewertet: {stands}. {left}"
        if rejudge_left:
            left += (
                f" Die Neubewertung ist unterbrochen, {counted(rejudge_left, 'Zelle', 'Zellen')} "
                "noch nicht neu bewertet: derselbe Befehl mit --rejudge all und demselben Judge "
                "setzt sie fort."
            )
        return exc.restated(
            f"{exc} {left}",
            facts={
                "open_cells": self.open_cells,
                "kept": self.kept,
                "unreadable": self.unreadable,
                "refused": self.refused,
                "rejudge_left": rejudge_left,
            },
            health_summary=health.summary_de(),
        )
