"""Judging a run whose answers are loaded: the calls, the verdicts as they land, the
settled state at the end (``judge.py`` imports this only when there is something to
judge, so that a settled resume loads no call machinery)."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from touchstone import started
from touchstone.errors import BudgetReached, JudgeAborted
from touchstone.events import EventSink, emit, in_flight_events
from touchstone.judge.backend import JudgeBackend, judge_identity
from touchstone.judge.cache import open_cache
from touchstone.judge.config import JudgeConfig
from touchstone.judge.passes import judge_run
from touchstone.judge.plan import JudgePlan, Rejudge
from touchstone.judge.run_result import JudgeRunResult
from touchstone.judge.session import open_session
from touchstone.jury.verdicts import RunCells
from touchstone.pack import Pack
from touchstone.quality.agreement import Agreement
from touchstone.results import EvalResponse, Verdict, VerdictKey, cell_key
from touchstone.stages.judge.drift import check_drift_first
from touchstone.stages.judge.outcome import (
    JudgeOutcome,
    budget_field,
    emit_done,
    verdict_event,
)
from touchstone.stages.judge.rejudging import RejudgeAll, begin_rejudge, finish_rejudge
from touchstone.stages.judge.reply_log import reply_sink
from touchstone.stages.judge.stop import StoppedRun
from touchstone.stages.spot_check import judged_card
from touchstone.stages.view import judged_scorecard, write_scorecard
from touchstone.store import RunDir, input_stamps
from touchstone.store.judge_fitness import JudgedBy, write_run_fitness
from touchstone.store.judge_replies import reply_appender
from touchstone.store.rejudge import rejudged_cells
from touchstone.store.settled import write_settled
from touchstone.transport.engine import run_blocking

if TYPE_CHECKING:
    from touchstone.judge.cache import VerdictCache
    from touchstone.judge.health import JudgeHealth
    from touchstone.results import ModelReport
    from touchstone.transport.budget import Budget


def judge_loaded(
    run: RunDir,
    pack: Pack,
    responses: list[EvalResponse],
    judged: RunCells,
    *,
    config: JudgeConfig,
    model: str | None,
    backend: JudgeBackend | None,
    on_event: EventSink | None,
    concurrency: int | None,
    rejudge: Rejudge,
    use_cache: bool,
    answers_warned: bool,
    judged_by: Sequence[JudgedBy] = (),
) -> JudgeOutcome:
    """The judge stage once the run is loaded (see ``execute_judge``); ``judged_by``: its
    judge with its last judge-check, recorded once the run writes (``stages.judged_by``)."""
    prior = judged.cells
    run.check_scores(itertools.chain(prior, judged.member_lines), pack.scale)
    prior_reports = run.load_reports()
    judge_backend = backend or config.backend(model)
    plan = JudgePlan.of(prior, responses, pack, rejudge)
    rejudging: RejudgeAll | None = None
    if rejudge == "all":
        plan, rejudging = begin_rejudge(run, judge_identity(judge_backend), plan, responses)
    todo = plan.todo(responses)
    cache = open_cache(use_cache=use_cache, rejudge=rejudge, prior=prior if todo else ())
    calls = _Calls(config, config.health(), config.cost_cap(), judge_backend.model, rejudging)
    check_drift_first(
        run,
        pack,
        responses,
        plan,
        cache,
        judge_backend,
        config,
        calls.health,
        calls.budget,
        on_event,
    )
    write_run_fitness(run, judged_by)
    try:
        result = calls.judge(
            run,
            pack,
            responses,
            judged,
            prior_reports,
            plan,
            todo,
            cache,
            judge_backend,
            concurrency=concurrency,
            rejudge=rejudge,
            on_event=on_event,
        )
    except (JudgeAborted, BudgetReached) as exc:
        stopped = StoppedRun.of(responses, prior, calls.landed, plan)
        run.rewrite_verdicts(stopped.verdicts.values(), member_lines=judged.member_lines)
        calls.health.cells_left = stopped.open_cells
        left = 0 if calls.rejudging is None else calls.rejudging.left
        stop = stopped.told(exc, calls.health, rejudge_left=left)
        emit(
            on_event,
            "aborted",
            stage="judge",
            message=str(stop),
            persisted=len(calls.landed),
            kept=stopped.kept,
            health=calls.health.as_dict(),
            **budget_field(calls.budget),
        )
        raise stop from exc
    finally:
        cache.close()
        run.warnings.extend(cache.warnings)
        if rejudging is not None:
            finish_rejudge(run, rejudging)
    return _finish(
        run,
        pack,
        responses,
        judged,
        prior_reports,
        result,
        calls,
        on_event,
        answers_warned=answers_warned,
    )


@dataclass
class _Calls:
    """One judge run's calls: what landed (persisted as it came), the failed calls, the
    health and the budget they were made under."""

    config: JudgeConfig
    health: JudgeHealth
    budget: Budget | None
    judge_model: str
    # A ``--rejudge all``: the cells it has reached, recorded as their verdicts land.
    rejudging: RejudgeAll | None
    landed: dict[VerdictKey, Verdict] = field(default_factory=dict)
    errors: list[Verdict] = field(default_factory=list)

    def continued(self) -> dict[str, int]:
        """The ``start`` event's facts of an interrupted ``--rejudge all`` continued now."""
        rejudging = self.rejudging
        if rejudging is None or not rejudging.open:
            return {}
        return {"rejudge_open": rejudging.open, "rejudge_cells": rejudging.cells}

    def judge(
        self,
        run: RunDir,
        pack: Pack,
        responses: list[EvalResponse],
        judged: RunCells,
        prior_reports: list[ModelReport],
        plan: JudgePlan,
        todo: int,
        cache: VerdictCache | None,
        backend: JudgeBackend,
        *,
        concurrency: int | None,
        rejudge: Rejudge,
        on_event: EventSink | None,
    ) -> JudgeRunResult:
        """``judge_run`` over the run, every verdict appended to judgements.jsonl as it lands."""
        config = self.config
        rejudging = self.rejudging
        reaching = rejudged_cells(run) if rejudging is not None else contextlib.nullcontext()
        with (
            run.verdict_appender() as appender,
            reaching as reached,
            reply_appender(run) as replies,
        ):

            def persist(verdict: Verdict) -> None:
                appender.append(verdict.as_dict())
                self.landed[cell_key(verdict)] = verdict
                if rejudging is not None and reached is not None:
                    reached(cell_key(verdict))
                    rejudging.done.add(cell_key(verdict))
                # A refusal is saved, but for whoever watches it is a failed judge call.
                kind = "judge_error" if verdict.unscored_reason == "judge_refused" else "progress"
                emit(on_event, kind, stage="judge", **verdict_event(verdict))

            def record_error(verdict: Verdict) -> None:
                self.errors.append(verdict)
                emit(on_event, "judge_error", stage="judge", **verdict_event(verdict))

            async def judge_all() -> JudgeRunResult:
                async with open_session(
                    backend,
                    concurrency=concurrency or config.concurrency,
                    max_consecutive_failures=config.max_consecutive_failures,
                    max_failure_ratio=config.max_failure_ratio,
                    cache=cache,
                    health=self.health,
                    on_in_flight=in_flight_events(on_event, "judge"),
                    budget=self.budget,
                    on_reply=reply_sink(replies),
                ) as session:
                    emit(
                        on_event,
                        "start",
                        stage="judge",
                        run=run.name,
                        total=len(responses),
                        todo=todo,
                        stale=len(plan.stale),
                        judge_model=session.judge.model,
                        **self.continued(),
                    )
                    return await judge_run(
                        session,
                        responses,
                        pack,
                        prior_verdicts=judged.cells,
                        prior_reports=prior_reports,
                        rejudge=rejudge,
                        on_verdict=persist,
                        on_judge_error=record_error,
                        plan=plan,
                    )

            return run_blocking(judge_all())


def _finish(
    run: RunDir,
    pack: Pack,
    responses: list[EvalResponse],
    judged: RunCells,
    prior_reports: list[ModelReport],
    result: JudgeRunResult,
    calls: _Calls,
    on_event: EventSink | None,
    *,
    answers_warned: bool,
) -> JudgeOutcome:
    """A judge run that ended: the file clean, the reports, the scorecard, the outcome."""
    landed, health, budget = calls.landed, calls.health, calls.budget
    if landed or not judged.stored.clean:
        run.rewrite_verdicts(result.verdicts, member_lines=judged.member_lines)
    if result.reports != prior_reports:
        run.write_reports(result.reports)
    health.cells_left = result.left
    # Built once here: the terminal shows it, and scorecard.json lets the GUI overview
    # summarise the run without loading every verdict.
    # With the jury of a run a jury judged before.
    cells, card = judged_scorecard(run, pack, responses, result.verdicts, result.reports, judged)
    # The run's files are written: stamped once, for scorecard.json and the settled state.
    stamps = input_stamps(run.path)
    human = judged_card(run, pack, cells, responses)
    write_scorecard(run, card, stamps, human)
    if result.settled and not answers_warned:
        write_settled(run, pack, cells=len(responses), card=card, inputs=stamps)
    outcome = JudgeOutcome(
        run_dir=run,
        pack=pack,
        cells=len(responses),
        # Refusals are saved too, but they are no judgement: said apart (``refused``).
        new_verdicts=len(landed) - result.refused,
        judge_errors=calls.errors,
        health=health,
        kept=result.kept,
        stale=result.stale,
        card=card,
        agreement=Agreement.of(result.replaced, pack.scale),
        refused=result.refused,
        budget=budget,
        human=human,
        from_cache=sum(1 for v in landed.values() if v.cached and not v.unscored),
        judge_model=calls.judge_model,
    )
    if calls.rejudging is not None:
        rejudging = calls.rejudging
        outcome.rejudge_cells, outcome.rejudge_open = rejudging.cells, rejudging.open
        outcome.rejudge_left = rejudging.left
    emit_done(on_event, outcome)
    if budget is not None and budget.reached:
        # Only holistic reports were left: everything that landed is written, the card too.
        raise BudgetReached(
            f"{budget.message()} Jede Zelle ist bewertet und gespeichert; ein erneutes "
            f"`{started.command('judge')}` holt die fehlenden Gesamtbewertungen nach.",
            health_summary=health.summary_de(),
        )
    return outcome
