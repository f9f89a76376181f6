"""``judge --rejudge all`` that can be resumed (design.md §8, docs/judge.md): a re-judge that
stopped (the breaker, the budget, Ctrl-C, the GUI's cancel, a kill) is continued by the next
``--rejudge all`` with the same judge, which asks only the cells it had not reached; another
judge starts a re-judge of its own. The record is ``store/rejudge.py``'s."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from touchstone.judge.plan import JudgePlan
from touchstone.results import EvalResponse, VerdictKey, cell_key
from touchstone.store import RunDir
from touchstone.store.rejudge import end_rejudge, read_rejudge, start_rejudge


@dataclass
class RejudgeAll:
    """This invocation's part of a re-judge of every cell."""

    # Cells of the run.
    cells: int
    # Cells this invocation had left to re-judge when it continued an interrupted re-judge;
    # 0 when it began a new one.
    open: int
    # Cells the re-judge has reached (their new verdict saved), this invocation's included.
    done: set[VerdictKey] = field(default_factory=set)

    @property
    def left(self) -> int:
        """Cells the re-judge has still to reach."""
        return self.cells - len(self.done)


def continued_rejudge(
    run: RunDir, judge: str, plan: JudgePlan, responses: Sequence[EvalResponse]
) -> tuple[JudgePlan, RejudgeAll] | None:
    """The plan of a ``--rejudge all`` by ``judge`` (its identity) that continues an
    interrupted one by the same judge: the cells it reached are left alone (unless their
    rubric changed since). None when there is none to continue. Reads only (``--dry-run``)."""
    unfinished = read_rejudge(run)
    if unfinished is None or unfinished.judge != judge:
        return None
    keys = set(map(cell_key, responses))
    done = {key for key in unfinished.done if key in keys}
    rejudge = RejudgeAll(len(keys), len(keys) - len(done), done)
    return JudgePlan(frozenset(done) - plan.stale, plan.stale), rejudge


def begin_rejudge(
    run: RunDir, judge: str, plan: JudgePlan, responses: Sequence[EvalResponse]
) -> tuple[JudgePlan, RejudgeAll]:
    """``continued_rejudge``, or else a new re-judge of every cell, recorded as begun."""
    continued = continued_rejudge(run, judge, plan, responses)
    if continued is not None:
        return continued
    start_rejudge(run, judge)
    return plan, RejudgeAll(len(set(map(cell_key, responses))), 0)


def finish_rejudge(run: RunDir, rejudge: RejudgeAll) -> None:
    """The record goes once the re-judge has reached every cell."""
    if rejudge.left <= 0:
        end_rejudge(run)
