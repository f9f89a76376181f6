"""The judge stage's bookkeeping for a jury (design.md §18): the run dir, the card, the events.

``stages.judge.execute_judge`` hands a loaded run here when its config names ``judges``.
The members judge in ``jury.stage``; here their lines are written clean, the reports and
the scorecard (with its ``jury`` summary) are written, and ``done`` or ``aborted`` emitted.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from touchstone import german
from touchstone.events import EventSink, emit
from touchstone.judge.cache import open_cache
from touchstone.judge.plan import Rejudge
from touchstone.jury.config import JuryConfig
from touchstone.jury.verdicts import RunCells, run_cells
from touchstone.pack import Pack
from touchstone.results import EvalResponse, cell_key
from touchstone.stages.judge.judge import no_answers
from touchstone.stages.judge.outcome import JudgeOutcome, emit_done
from touchstone.stages.jury.sessions import MemberRun, judge_members
from touchstone.stages.view import judged_scorecard, write_scorecard
from touchstone.store import RunDir, input_stamps
from touchstone.store.judge_fitness import JudgedBy, write_run_fitness
from touchstone.store.settled import clear_settled, write_settled


def judge_with_jury(
    run: RunDir,
    pack: Pack,
    jury: JuryConfig,
    *,
    on_event: EventSink | None,
    concurrency: int | None,
    rejudge: Rejudge,
    use_cache: bool,
    judged_by: Sequence[JudgedBy] = (),
) -> JudgeOutcome:
    """A jury's judge run on the locked ``run``: loaded every time (a settled state of one
    judge says nothing of what the members lack), then ``judge_loaded_with_jury``."""
    clear_settled(run)
    warnings_before = len(run.warnings)
    responses = run.load_responses()
    if not responses:
        raise no_answers(run)
    answers_warned = len(run.warnings) > warnings_before
    return judge_loaded_with_jury(
        run,
        pack,
        responses,
        run_cells(run),
        jury=jury,
        on_event=on_event,
        concurrency=concurrency,
        rejudge=rejudge,
        use_cache=use_cache,
        answers_warned=answers_warned,
        judged_by=judged_by,
    )


def judge_loaded_with_jury(
    run: RunDir,
    pack: Pack,
    responses: list[EvalResponse],
    prior: RunCells,
    *,
    jury: JuryConfig,
    on_event: EventSink | None,
    concurrency: int | None,
    rejudge: Rejudge,
    use_cache: bool,
    answers_warned: bool,
    judged_by: Sequence[JudgedBy] = (),
) -> JudgeOutcome:
    """Judge the loaded run with ``jury`` (``prior``: the run's verdicts as read;
    ``judged_by``: its members with their last judge-check, recorded before they judge)."""
    run.check_scores(itertools.chain(prior.cells, prior.member_lines), pack.scale)
    prior_reports = run.load_reports()
    cache = open_cache(use_cache=use_cache, rejudge=rejudge, prior=prior.member_lines)
    write_run_fitness(run, judged_by)
    try:
        result = judge_members(
            run,
            pack,
            responses,
            jury=jury,
            old_lines=prior.member_lines,
            prior_reports=prior_reports,
            on_event=on_event,
            concurrency=concurrency,
            rejudge=rejudge,
            cache=cache,
        )
    finally:
        cache.close()
        run.warnings.extend(cache.warnings)
    members = result.members
    # The single judge's lines as they were, the members' anew.
    run.rewrite_verdicts(prior.cells, member_lines=result.lines)
    if result.stopped is not None:
        healthy = "\n".join(member_line(m) for m in members if not m.dropped)
        stop = result.stopped.restated(str(result.stopped), facts={}, health_summary=healthy)
        emit(
            on_event,
            "aborted",
            stage="judge",
            message=str(stop),
            persisted=sum(len(m.landed) for m in members),
            kept=0,
            health=members[0].health.as_dict(),
            jury=result.as_events(),
        )
        raise stop from result.stopped
    if result.reports != prior_reports:
        run.write_reports(result.reports)
    judged = run_cells(run)
    cells, card = judged_scorecard(run, pack, responses, judged.cells, result.reports, judged)
    stamps = input_stamps(run.path)
    write_scorecard(run, card, stamps)
    if result.settled and not answers_warned:
        write_settled(run, pack, cells=len(responses), card=card, inputs=stamps)
    health = members[0].health
    decided = {cell_key(v) for v in cells if v.unscored_reason != "no_quorum"}
    health.cells_left = sum(1 for r in responses if cell_key(r) not in decided)
    outcome = JudgeOutcome(
        run_dir=run,
        pack=pack,
        cells=len(responses),
        new_verdicts=sum(len(m.landed) for m in members),
        judge_errors=[v for m in members for v in m.errors],
        health=health,
        kept=sum(m.result.kept for m in members if m.result is not None),
        stale=sum(m.result.stale for m in members if m.result is not None),
        card=card,
        refused=sum(m.result.refused for m in members if m.result is not None),
        jury_lines=[member_line(m) for m in members] + [open_line(health.cells_left)],
        jury_events=result.as_events(),
    )
    emit_done(on_event, outcome)
    return outcome


def member_line(member: MemberRun) -> str:
    """One line per member for the end of the run: its health, or why it was dropped."""
    if member.dropped:
        return f"⚠ {member.dropped}"
    # The cells left open are the jury's, said once (``open_line``), not per member.
    line = f"Judge {member.id.model}: {member.health.summary_de(resumable=False)}"
    return line if member.budget is None else f"{line} {member.budget.summary_de()}"


def open_line(left: int) -> str:
    """The jury's cells without a verdict (or below the quorum), for a later run."""
    return f"Jury: offen für einen späteren Durchgang: {german.count(left)}."
