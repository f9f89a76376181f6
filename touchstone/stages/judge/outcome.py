"""What a judge run did (``JudgeOutcome``), and how its events say it (``done`` and the
per-verdict events), for the single judge and the jury alike."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from touchstone.events import EventSink, emit
from touchstone.judge.health import JudgeHealth
from touchstone.pack import Pack
from touchstone.quality.agreement import Agreement
from touchstone.results import Verdict
from touchstone.scorecard.build import Scorecard
from touchstone.spot.agreement import HumanAgreement
from touchstone.store import RunDir
from touchstone.transport.budget import Budget


@dataclass
class JudgeOutcome:
    run_dir: RunDir
    pack: Pack
    # Answers in the run (each a cell the scorecard counts); ``load_run`` reads them back.
    cells: int
    card: Scorecard
    new_verdicts: int = 0
    judge_errors: list[Verdict] = field(default_factory=list)
    health: JudgeHealth = field(default_factory=JudgeHealth)
    # Scored verdicts a failed or unreadable re-judge left in place (never downgrade).
    kept: int = 0
    # Cells judged again because the pack changed their rubric.
    stale: int = 0
    # How re-judged cells' new verdicts agree with the ones they replaced.
    agreement: Agreement | None = None
    # Cells a content filter of the judge refused: saved unscored, asked again next run.
    refused: int = 0
    # The cost cap of this invocation (judge config ``budget``), if any.
    budget: Budget | None = None
    # The agreement card of the run's human spot check (None: nobody rated it).
    human: HumanAgreement | None = None
    # A jury (``stages.jury``): one German line per member (its calls, or why it was
    # dropped), and the members as the ``done`` event has them.
    jury_lines: list[str] = field(default_factory=list)
    jury_events: list[dict[str, Any]] = field(default_factory=list)
    # New verdicts that needed no call of their own: the verdict cache had them, or an
    # identical cell of this run paid for the call (same answer, same judge).
    from_cache: int = 0
    # The judge model this invocation judged with (config or --model); "" for a jury.
    judge_model: str = ""
    # A ``--rejudge all`` (``stages/judge/rejudging.py``): the run's cells, those an
    # interrupted re-judge had left when this one continued it (0: it began anew), and those
    # the re-judge has still to reach now (0: it is complete).
    rejudge_cells: int = 0
    rejudge_open: int = 0
    rejudge_left: int = 0

    @property
    def cells_left(self) -> int:
        return self.health.cells_left

    @property
    def other_judges(self) -> list[str]:
        """The judge models of the run's verdicts other than the one this invocation names:
        a judge changed in the config judges nothing already judged (``--rejudge all`` does),
        so its card is another judge's, which the CLI says."""
        if not self.judge_model:
            return []
        return [name for name in self.card.judge_models if name != self.judge_model]


def emit_done(on_event: EventSink | None, outcome: JudgeOutcome) -> None:
    agreement = outcome.agreement
    emit(
        on_event,
        "done",
        stage="judge",
        new_verdicts=outcome.new_verdicts,
        from_cache=outcome.from_cache,
        judge_errors=len(outcome.judge_errors),
        cells_left=outcome.cells_left,
        refused=outcome.refused,
        kept=outcome.kept,
        stale=outcome.stale,
        health=outcome.health.as_dict(),
        agreement=None if agreement is None else agreement.as_dict(),
        **budget_field(outcome.budget),
        **({"jury": outcome.jury_events} if outcome.jury_events else {}),
    )


def budget_field(budget: Budget | None) -> dict[str, Any]:
    """The events' ``budget`` (absent without one: older readers see what they knew)."""
    return {} if budget is None else {"budget": budget.as_dict()}


def verdict_event(verdict: Verdict) -> dict[str, Any]:
    return {
        "model": verdict.model,
        "variant": verdict.variant,
        "prompt_id": verdict.prompt_id,
        "repeat": verdict.repeat,
        "unscored": verdict.unscored,
        "error_kind": verdict.error_kind,
        # A failed call shared with a cell before it (one call, counted once).
        "shared": verdict.judge_error and verdict.cached,
        "rationale": verdict.rationale
        if verdict.judge_error or verdict.unscored_reason == "judge_refused"
        else "",
    }
