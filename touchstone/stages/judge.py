"""The judge stage: judge a run directory's answers, with its bookkeeping and events.

Successful verdicts are appended to ``judgements.jsonl`` as they land, and the file is
rewritten clean at the end; judge_error verdicts never reach the disk. On ``JudgeAborted``
the verdicts so far are kept (rewritten clean) and the error re-raised for the CLI.
"""

from __future__ import annotations

import stat
from pathlib import Path

from touchstone.engine import run_blocking
from touchstone.errors import BudgetReached, InputError, JudgeAborted
from touchstone.events import EventSink, emit, in_flight_events
from touchstone.german import counted
from touchstone.judge import JudgeBackend, JudgeConfig, Rejudge
from touchstone.judge.advice import after_stop
from touchstone.judge.backend import judge_model_of
from touchstone.judge.cache import open_cache
from touchstone.judge.passes import JudgeRunResult, judge_run
from touchstone.judge.plan import JudgePlan
from touchstone.judge.session import open_session
from touchstone.jury.config import JuryConfig, load_config, no_model_override
from touchstone.jury.summary import of_run as jury_summary
from touchstone.limits import MAX_CONCURRENCY, check_count
from touchstone.pack import Pack
from touchstone.results import EvalResponse, Verdict, VerdictKey, cell_key
from touchstone.scorecard import Scorecard, build_scorecard
from touchstone.stages.drift import check_drift_first
from touchstone.stages.extend import planned_cells
from touchstone.stages.human import judged_card
from touchstone.stages.judge_outcome import JudgeOutcome, budget_field, emit_done, verdict_event
from touchstone.stages.manifest import pack_of_run
from touchstone.stages.view import answered_verdicts, write_scorecard
from touchstone.store import RESPONSES, RunDir, input_stamps
from touchstone.store.jsonl import kept_out_of_gc
from touchstone.store.settled import SettledRun, clear_settled, read_settled, write_settled


def execute_judge(
    run_path: str | Path,
    *,
    config: JudgeConfig | JuryConfig | str | Path,
    model: str | None = None,
    backend: JudgeBackend | None = None,
    on_event: EventSink | None = None,
    concurrency: int | None = None,
    rejudge: Rejudge = "none",
    use_cache: bool = True,
) -> JudgeOutcome:
    """Judge every answer of the run that has no persisted verdict, then the holistic pass."""
    if concurrency is not None:
        check_count("--concurrency", concurrency, 1, MAX_CONCURRENCY)
    run = RunDir.existing(run_path)
    with run.locked():
        pack = pack_of_run(run)
        if not _may_hold_answers(run):
            # Before the judge config: without answers there is nothing to judge it by.
            raise no_answers(run)
        judge_config = (
            config if isinstance(config, JudgeConfig | JuryConfig) else load_config(config)
        )
        if isinstance(judge_config, JuryConfig):
            no_model_override(model)
            for member in judge_config.judges:
                member.endpoint.resolved_api_key()
            from touchstone.stages.jury import judge_with_jury  # it builds on this module

            return judge_with_jury(
                run,
                pack,
                judge_config,
                on_event=on_event,
                concurrency=concurrency,
                rejudge=rejudge,
                use_cache=use_cache,
            )
        if backend is None:
            judge_config.endpoint.resolved_api_key()  # a config that cannot call is bad input
        settled = read_settled(run, pack, Scorecard) if rejudge == "none" else None
        if settled is not None:
            # Named as the session would name it, without building a backend (and importing
            # the openai SDK) for no call.
            judge_model = judge_model_of(backend) if backend else model or judge_config.model
            return _nothing_to_do(run, pack, settled, judge_config, judge_model, on_event)
        clear_settled(run)
        with kept_out_of_gc() as loaded:
            warnings_before = len(run.warnings)
            responses = run.load_responses()
            if not responses:  # only lines that did not parse
                raise no_answers(run)
            answers_warned = len(run.warnings) > warnings_before
            prior = run.load_verdicts()
            loaded()
            return _judge_loaded(
                run,
                pack,
                responses,
                prior,
                config=judge_config,
                model=model,
                backend=backend,
                on_event=on_event,
                concurrency=concurrency,
                rejudge=rejudge,
                use_cache=use_cache,
                answers_warned=answers_warned,
            )


def _may_hold_answers(run: RunDir) -> bool:
    """Whether the answers file is there and not empty (what else it is, its reader says),
    without reading a big run's answers before the settled state may spare that."""
    try:
        info = run.file(RESPONSES).stat()
    except FileNotFoundError:
        return False
    return not (stat.S_ISREG(info.st_mode) and info.st_size == 0)


def no_answers(run: RunDir) -> InputError:
    """A judge run on a run dir without answers: bad input, nothing written (DESIGN §22)."""
    return InputError(
        f"Keine Antworten – zuerst `touchstone run`: {run.path} enthält noch keine Antworten "
        f"({RESPONSES}). `touchstone run --pack … --model … --out {run.path}` holt sie ein."
    )


def _nothing_to_do(
    run: RunDir,
    pack: Pack,
    settled: SettledRun[Scorecard],
    config: JudgeConfig,
    judge_model: str,
    on_event: EventSink | None,
) -> JudgeOutcome:
    """The outcome of a judge run on a settled run: what the last one found, no call."""
    # As every judge run does (it may have been removed); its inputs were just stamped.
    human = judged_card(run, pack)
    write_scorecard(run, settled.card, settled.inputs, human)
    health = config.health()
    emit(
        on_event,
        "start",
        stage="judge",
        run=run.name,
        total=settled.cells,
        todo=0,
        stale=0,
        judge_model=judge_model,
    )
    outcome = JudgeOutcome(
        run, pack, cells=settled.cells, card=settled.card, health=health, human=human
    )
    emit_done(on_event, outcome)
    return outcome


def _judge_loaded(
    run: RunDir,
    pack: Pack,
    responses: list[EvalResponse],
    prior: list[Verdict],
    *,
    config: JudgeConfig,
    model: str | None,
    backend: JudgeBackend | None,
    on_event: EventSink | None,
    concurrency: int | None,
    rejudge: Rejudge,
    use_cache: bool,
    answers_warned: bool,
) -> JudgeOutcome:
    """The judge stage once the run is loaded (see ``execute_judge``)."""
    run.check_scores(prior, pack.scale)
    prior_reports = run.load_reports()
    judge_backend = backend or config.backend(model)
    plan = JudgePlan.of(prior, responses, pack, rejudge)
    todo = plan.todo(responses)
    cache = open_cache(use_cache=use_cache, rejudge=rejudge, prior=prior if todo else ())
    landed: dict[VerdictKey, Verdict] = {}
    errors: list[Verdict] = []
    health = config.health()
    budget = config.cost_cap()
    check_drift_first(
        run, pack, responses, plan, cache, judge_backend, config, health, budget, on_event
    )
    try:
        with run.verdict_appender() as appender:

            def persist(verdict: Verdict) -> None:
                appender.append(verdict.as_dict())
                landed[cell_key(verdict)] = verdict
                # A refusal is saved, but for whoever watches it is a failed judge call.
                kind = "judge_error" if verdict.unscored_reason == "judge_refused" else "progress"
                emit(on_event, kind, stage="judge", **verdict_event(verdict))

            def record_error(verdict: Verdict) -> None:
                errors.append(verdict)
                emit(on_event, "judge_error", stage="judge", **verdict_event(verdict))

            async def judge_all() -> JudgeRunResult:
                async with open_session(
                    judge_backend,
                    concurrency=concurrency or config.concurrency,
                    max_consecutive_failures=config.max_consecutive_failures,
                    max_failure_ratio=config.max_failure_ratio,
                    cache=cache,
                    health=health,
                    on_in_flight=in_flight_events(on_event, "judge"),
                    budget=budget,
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
                    )
                    return await judge_run(
                        session,
                        responses,
                        pack,
                        prior_verdicts=prior,
                        prior_reports=prior_reports,
                        rejudge=rejudge,
                        on_verdict=persist,
                        on_judge_error=record_error,
                        plan=plan,
                    )

            result = run_blocking(judge_all())
    except (JudgeAborted, BudgetReached) as exc:
        # Clean means de-duplicated: with --rejudge a landed verdict replaces a prior one.
        now = {cell_key(v): v for v in prior}
        now.update(landed)
        run.rewrite_verdicts(now.values())
        # Open means without a verdict: a stopped re-judge keeps the prior verdicts it did not
        # replace, so its cells are not open.
        keys = list(map(cell_key, responses))
        health.cells_left = sum(1 for key in keys if key not in now)
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
        unreadable = sum(1 for v in now.values() if v.unscored_reason == "unparseable")
        over_budget = isinstance(exc, BudgetReached)
        left = after_stop(
            open_cells=health.cells_left,
            # Not re-judged for want of budget, not for a failed re-judge: said apart.
            kept=0 if over_budget else kept,
            unreadable=unreadable,
            refused=len(refused),
            kind=exc.kind if isinstance(exc, JudgeAborted) else "",
        )
        if over_budget and kept:
            stands = "die bisherige Bewertung bleibt" if kept == 1 else "die bisherigen bleiben"
            left = f"{counted(kept, 'Zelle', 'Zellen')} nicht neu bewertet: {stands}. {left}"
        exc.args = (f"{exc} {left}",)
        exc.health_summary = health.summary_de()
        exc.facts = {
            **exc.facts,
            "open_cells": health.cells_left,
            "kept": kept,
            "unreadable": unreadable,
            "refused": len(refused),
        }
        emit(
            on_event,
            "aborted",
            stage="judge",
            message=str(exc),
            persisted=len(landed),
            kept=kept,
            health=health.as_dict(),
            **budget_field(budget),
        )
        raise
    finally:
        cache.close()
        run.warnings.extend(cache.warnings)
    if landed or not run.judgements_clean:
        run.rewrite_verdicts(result.verdicts)
    if result.reports != prior_reports:
        run.write_reports(result.reports)
    health.cells_left = result.left
    # Built once here: the terminal shows it, and scorecard.json lets the GUI overview
    # summarise the run without loading every verdict.
    cells = answered_verdicts(run, result.verdicts, responses)
    card = build_scorecard(
        responses,
        cells,
        result.reports,
        scale_min=pack.scale.min,
        scale_max=pack.scale.max,
        planned=planned_cells(run.read_manifest(), pack.prompt_count),
    )
    card.jury = jury_summary(run, cells, responses)  # a run a jury judged before
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
        judge_errors=errors,
        health=health,
        kept=result.kept,
        stale=result.stale,
        card=card,
        agreement=result.agreement,
        refused=result.refused,
        budget=budget,
        human=human,
        from_cache=sum(1 for v in landed.values() if v.cached and not v.unscored),
    )
    emit_done(on_event, outcome)
    if budget is not None and budget.reached:
        # Only holistic reports were left: everything that landed is written, the card too.
        stop = BudgetReached(
            f"{budget.message()} Jede Zelle ist bewertet und gespeichert; ein erneutes "
            "`touchstone judge` holt die fehlenden Gesamtbewertungen nach."
        )
        stop.health_summary = health.summary_de()
        raise stop
    return outcome
