"""The judge stage with a jury (design.md §18): every member judges in parallel, each under its
own guard, and the run goes on while the quorum can still be reached.

A member is a single-judge session (``judge.passes.judge_run`` with its own backend,
concurrency, breaker, budget and health) over its own persisted lines. Its verdicts land in
judgements.jsonl as they come, marked as its own (``members.as_member``); the cells' verdicts
are their aggregate, made whenever the run is read (``jury.verdicts``).

A member that trips its guard (streak, ratio, auth/404/quota, its budget) is dropped for the
rest of the run: a ``judge_dropped`` event names it and why. When fewer members remain than
the quorum, the others are cancelled and the run stops with ``JudgeAborted`` naming every
dropped member (exit 1), everything landed kept. The first listed member writes the holistic
reports.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from touchstone.errors import BudgetReached, JudgeAborted
from touchstone.events import EventSink, emit, in_flight_events
from touchstone.judge.config import JudgeConfig
from touchstone.judge.health import JudgeHealth
from touchstone.judge.passes import judge_run
from touchstone.judge.plan import JudgePlan, Rejudge
from touchstone.judge.run_result import JudgeRunResult
from touchstone.judge.session import open_session
from touchstone.jury.config import JuryConfig, member_id
from touchstone.jury.members import MemberId, as_member, of_verdict
from touchstone.jury.verdicts import MANIFEST_KEY, JuryMember, JurySettings
from touchstone.pack import Pack
from touchstone.quality.drift import recheck_cached
from touchstone.results import EvalResponse, ModelReport, Verdict, VerdictKey, cell_key
from touchstone.stages.judge.outcome import verdict_event
from touchstone.stages.judge.reply_log import reply_sink
from touchstone.store import RunDir
from touchstone.store.judge_replies import reply_appender
from touchstone.transport.budget import Budget
from touchstone.transport.engine import run_blocking


@dataclass
class MemberRun:
    """One member in one jury run: what it had, what landed, how it went."""

    config: JudgeConfig
    id: MemberId
    prior: list[Verdict]
    plan: JudgePlan
    health: JudgeHealth
    landed: dict[VerdictKey, Verdict] = field(default_factory=dict)
    errors: list[Verdict] = field(default_factory=list)
    result: JudgeRunResult | None = None
    # Why it was dropped: the German line the terminal, the events and the GUI show.
    dropped: str = ""
    # Its cost cap in this run (its config's ``budget``), if any.
    budget: Budget | None = None

    def lines(self) -> list[Verdict]:
        """Its lines after this run: the new ones over the prior ones."""
        if self.result is not None:
            merged = self.result.verdicts
        else:
            now = {cell_key(v): v for v in self.prior}
            now.update(self.landed)
            merged = list(now.values())
        return [as_member(v, self.id) for v in merged if not v.judge_error]


def dropped_line(member: MemberId, exc: JudgeAborted | BudgetReached) -> str:
    """``Judge gemma2:9b ausgeschieden: 3 Judge-Aufrufe in Folge fehlgeschlagen … – Rat: …``"""
    if isinstance(exc, JudgeAborted) and exc.reason:
        advice = f" – Rat: {exc.advice}" if exc.advice else ""
        return f"Judge {member.model} ausgeschieden: {exc.reason}{advice}"
    return f"Judge {member.model} ausgeschieden: {exc}"


async def recheck_member(
    session: Any,
    member: MemberRun,
    responses: list[EvalResponse],
    pack: Pack,
    cache: Any,
    run: RunDir,
    on_event: EventSink | None,
) -> None:
    """Drift (design.md §17) for a member about to be served from the user-level cache: up to 3
    cached cells asked again in its own session, under its own guard. Drift warns; with the
    member's ``on_drift: stop`` it raises ``JudgeAborted``, which drops the member like a
    tripped guard (a jury stops only when the quorum is lost)."""
    if cache is None or cache.path is None or not cache.lookups:
        return
    todo = [r for r in responses if cell_key(r) not in member.plan.skip]
    drift = await recheck_cached(session, todo, pack, cache)
    if drift is None or not drift.drifted:
        return
    emit(on_event, "drift", stage="judge", **drift.as_dict())
    if member.config.on_drift == "stop":
        raise JudgeAborted(drift.message_de(), kind="drift")
    run.warnings.append(drift.message_de())


@dataclass
class JuryResult:
    members: list[MemberRun]
    reports: list[ModelReport]
    settled: bool
    # Every member's lines after the run (those of former members as they were), also when
    # the jury stopped: what judgements.jsonl holds of the jury.
    lines: list[Verdict]
    # Why the jury stopped (fewer members than the quorum remained), or None.
    stopped: JudgeAborted | None = None

    def as_events(self) -> list[dict[str, Any]]:
        """The members for the ``done``/``aborted`` events: who, dropped why, their calls."""
        return [
            {
                "model": m.id.model,
                "base_url": m.id.base_url,
                "dropped": m.dropped or None,
                "health": m.health.as_dict(),
                **({} if m.budget is None else {"budget": m.budget.as_dict()}),
            }
            for m in self.members
        ]


def judge_members(
    run: RunDir,
    pack: Pack,
    responses: list[EvalResponse],
    *,
    jury: JuryConfig,
    old_lines: list[Verdict],
    prior_reports: list[ModelReport],
    on_event: EventSink | None,
    concurrency: int | None,
    rejudge: Rejudge,
    cache: Any,
) -> JuryResult:
    """Judge ``responses`` with every member of ``jury``; see the module docstring.

    ``old_lines``: the members' lines as read. Member lines are appended as they land and
    ``JuryResult.lines`` holds every member's lines at the end, also when the jury stopped
    (``JuryResult.stopped``).
    """
    members: list[MemberRun] = []
    for config in jury.judges:
        ident = member_id(config)
        prior = [v for v in old_lines if of_verdict(v) == ident]
        members.append(
            MemberRun(
                config,
                ident,
                prior,
                JudgePlan.of(prior, responses, pack, rejudge),
                config.health(),
                budget=config.cost_cap(),
            )
        )
    settings = JurySettings(
        jury.aggregate, jury.required, [JuryMember(m.id.model, m.id.base_url) for m in members]
    )
    _record_settings(run, settings)
    quorum = jury.required

    with run.verdict_appender() as appender, reply_appender(run) as replies:

        async def one(index: int, member: MemberRun) -> None:
            def persist(verdict: Verdict) -> None:
                line = as_member(verdict, member.id)
                appender.append(line.as_dict())
                member.landed[cell_key(line)] = line
                kind = "judge_error" if line.unscored_reason == "judge_refused" else "progress"
                emit(on_event, kind, stage="judge", **_event_fields(line))

            def record_error(verdict: Verdict) -> None:
                member.errors.append(verdict)
                emit(
                    on_event,
                    "judge_error",
                    stage="judge",
                    **_event_fields(as_member(verdict, member.id)),
                )

            async with open_session(
                member.config.backend(),
                concurrency=concurrency or member.config.concurrency,
                max_consecutive_failures=member.config.max_consecutive_failures,
                max_failure_ratio=member.config.max_failure_ratio,
                cache=cache,
                health=member.health,
                on_in_flight=in_flight_events(on_event, "judge"),
                budget=member.budget,
                on_reply=reply_sink(replies),
            ) as session:
                try:
                    await recheck_member(session, member, responses, pack, cache, run, on_event)
                    member.result = await judge_run(
                        session,
                        responses,
                        pack,
                        prior_verdicts=member.prior,
                        prior_reports=prior_reports,
                        rejudge=rejudge,
                        on_verdict=persist,
                        on_judge_error=record_error,
                        plan=member.plan,
                        holistic=index == 0,
                    )
                except (JudgeAborted, BudgetReached) as exc:
                    member.dropped = dropped_line(member.id, exc)
                    emit(
                        on_event,
                        "judge_dropped",
                        stage="judge",
                        judge_model=member.id.model,
                        judge_base_url=member.id.base_url,
                        error_kind=(exc.kind if isinstance(exc, JudgeAborted) else "") or "budget",
                        message=member.dropped,
                        health=member.health.as_dict(),
                        # Its cells that will not come: progress shrinks its total by them.
                        left=max(
                            0,
                            member.plan.todo(responses) - len(member.landed) - len(member.errors),
                        ),
                    )
                    remaining = sum(1 for m in members if not m.dropped)
                    if remaining < quorum:
                        raise _no_quorum(members, quorum) from exc

        async def all_members() -> None:
            try:
                async with asyncio.TaskGroup() as group:
                    for index, member in enumerate(members):
                        group.create_task(one(index, member))
            except BaseExceptionGroup as group:
                # One error as a single judge raises it (the CLI maps it to a message): the
                # jury's stop first, else whatever a member ran into (bad input, the disk).
                stops = [e for e in group.exceptions if isinstance(e, JudgeAborted)]
                raise (stops or group.exceptions)[0] from None

        emit(
            on_event,
            "start",
            stage="judge",
            run=run.name,
            total=len(responses) * len(members),
            todo=sum(m.plan.todo(responses) for m in members),
            stale=sum(len(m.plan.stale) for m in members),
            judge_model=settings.name,
            jury=[{"model": m.id.model, "base_url": m.id.base_url} for m in members],
        )
        stopped: JudgeAborted | None = None
        try:
            run_blocking(all_members())
        except JudgeAborted as exc:
            stopped = exc
        finally:
            for member, saved in zip(members, settings.members, strict=True):
                saved.dropped = member.dropped
            _record_settings(run, settings)
    first = members[0].result
    reports = first.reports if first is not None else prior_reports
    settled = all(m.result is not None and m.result.settled for m in members)
    current = {m.id for m in members}
    others = [v for v in old_lines if of_verdict(v) not in current]
    lines = others + [v for m in members for v in m.lines()]
    return JuryResult(members, reports, settled, lines, stopped)


def _no_quorum(members: Sequence[MemberRun], quorum: int) -> JudgeAborted:
    dropped = [m for m in members if m.dropped]
    remaining = len(members) - len(dropped)
    return JudgeAborted(
        f"Die Jury erreicht ihr Quorum von {quorum} nicht mehr ({remaining} von "
        f"{len(members)} Judges übrig). " + " ".join(f"{m.dropped}" for m in dropped),
        kind="no_quorum",
    )


def _record_settings(run: RunDir, settings: JurySettings) -> None:
    """run.json ``jury``: how the cells' verdicts are made, who judged, who was dropped."""
    manifest = run.read_manifest().model_copy(update={MANIFEST_KEY: settings.as_manifest()})
    run.write_manifest(manifest)


def _event_fields(verdict: Verdict) -> dict[str, Any]:
    """A single judge's verdict event, naming the member that said it."""
    return {
        **verdict_event(verdict),
        "judge_model": verdict.judge_model,
        "judge_base_url": verdict.judge_base_url,
    }
