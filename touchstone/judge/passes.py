"""The judge passes: every answer of a run, then every (model, variant) as a whole.

A judge call can fail (a thinking model that never stops, a dead endpoint, a wrong key).
Such a failure is data about one cell, never the end of the process:

- ``judge_responses`` turns a failed call into an unscored ``judge_error`` verdict that is
  returned but never handed to ``on_verdict`` (so it is never persisted and a later run
  judges the cell again), and stops with ``JudgeAborted`` when the breaker says the judge is
  unusable (``policy``). No new call starts after that, and the calls in flight are
  cancelled, which closes their connections.
- ``judge_bundle`` judges what the prior verdicts lack, then runs the holistic pass. There a
  call a content filter refused gives its cell an unscored "judge_refused" verdict that is
  handed to ``on_verdict`` (persisted: the cell is findable with its reason) and asked again
  by the next run.

Both are synchronous faces of coroutines (``judge_cells``, ``judge_run``) that send every
judge call through the engine, as tasks on one event loop, with a ``JudgeSession``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from touchstone.errors import InputError
from touchstone.judge.backend import JudgeBackend
from touchstone.judge.cache import CachedVerdict, VerdictCache
from touchstone.judge.cells import CellTask, grouped
from touchstone.judge.frames import Frames
from touchstone.judge.holistic import holistic_pass
from touchstone.judge.plan import JudgePlan, Rejudge
from touchstone.judge.policy import Breaker, keep_better
from touchstone.judge.replies import cut_verdict
from touchstone.judge.run_result import JudgeRunResult
from touchstone.judge.schemas import verdict_schema
from touchstone.judge.session import JudgeSession, open_session
from touchstone.pack import Pack
from touchstone.results import EvalResponse, ModelReport, Verdict, VerdictKey, cell_key
from touchstone.transport.engine import completed, run_blocking
from touchstone.transport.replies import ChatReply

T = TypeVar("T")

OnVerdict = Callable[[Verdict], None]


async def judge_cells(
    session: JudgeSession,
    responses: Iterable[EvalResponse],
    pack: Pack,
    *,
    skip_keys: frozenset[VerdictKey] | set[VerdictKey] = frozenset(),
    on_verdict: OnVerdict | None = None,
    on_judge_error: OnVerdict | None = None,
    refusals: bool = False,
) -> list[Verdict]:
    """Judge every response whose key is not in ``skip_keys``; verdicts in input order.

    ``refusals``: the cells of a call a content filter refused get their "judge_refused"
    verdict (``CellTask.refused``) instead of a judge_error one; either way they are handed
    to ``on_judge_error`` and the breaker counts the call as failed."""
    todo = [r for r in responses if cell_key(r) not in skip_keys]
    known = {prompt.id for _, prompt in pack.all_prompts()}
    missing = sorted({r.prompt_id for r in todo if r.prompt_id not in known})
    if missing:
        raise InputError(
            f"Das Paket „{pack.id}“ enthält die Prompts {', '.join(missing)} nicht mehr, "
            "zu denen der Run Antworten hat. Wurde das Paket seit dem Run geändert?"
        )
    frames = Frames(pack, session.judge.identity)
    by_index: dict[int, Verdict] = {}

    def settle(index: int, verdict: Verdict) -> None:
        by_index[index] = verdict
        if on_verdict is not None:
            on_verdict(verdict)

    # Cells with the same judge prompt share one call; a cache hit needs none at all.
    tasks: dict[int, CellTask] = {}
    calls: dict[str, list[int]] = {}
    for index, resp in enumerate(todo):
        task = CellTask.framed(resp, frames(resp.prompt_id, resp.variant), session.judge)
        if task.settled is not None:
            settle(index, task.settled)
            continue
        cache = session.cache
        hit = None if cache is None else cache.get(task.key, pack.scale, session.judge.model)
        if hit is not None:
            settle(index, task.from_cache(hit))
            continue
        tasks[index] = task
        calls.setdefault(task.key, []).append(index)

    schema = verdict_schema(pack.scale, session.max_tokens)

    def ask(cells: list[int], deadline_s: float | None) -> Awaitable[ChatReply]:
        task = tasks[cells[0]]
        return session.call(task.system, task.user, deadline_s, schema)

    breaker = Breaker(
        session.max_consecutive_failures, session.max_failure_ratio, session.judge.model
    )
    health = session.health
    budget = session.budget

    def call_key(cells: list[int]) -> str:
        return tasks[cells[0]].key

    def call_chars(cells: list[int]) -> int:
        return len(tasks[cells[0]].system) + len(tasks[cells[0]].user)

    results = completed(
        grouped(calls.values(), tasks, session.concurrency),
        ask,
        concurrency=session.concurrency,
        deadline_s=session.deadline_s,
        on_waiting=session.on_in_flight,
        admit=None if budget is None else budget.admission(call_key, call_chars),
    )
    # Results arrive in completion order: that is the order the breaker counts in.
    async with contextlib.aclosing(results):
        async for done in results:
            health.record(done)
            if budget is not None:
                budget.settle_done(call_key(done.item), done)
            if done.error is not None:
                refused = refusals and done.error.kind == "refused"
                for position, index in enumerate(done.item):
                    task = tasks[index]
                    verdict = (task.refused if refused else task.failed)(
                        done.error, shared=position > 0
                    )
                    by_index[index] = verdict
                    if on_judge_error is not None:
                        on_judge_error(verdict)
                stop = breaker.failure(done.error)
                if stop is not None:
                    raise await session.aborted(stop)
                continue
            assert done.result is not None
            for position, index in enumerate(done.item):
                verdict = tasks[index].verdict(done.result, cached=position > 0)
                if session.on_reply is not None:
                    session.on_reply(verdict, done.result)
                if position == 0:
                    if verdict.unscored:
                        health.unparseable += 1
                        reply = done.result
                        health.cut_verdicts += cut_verdict(reply.content, reply.finish_reason)
                        stop = breaker.unparseable(done.result.content)
                        if stop is not None:
                            settle(index, verdict)
                            raise await session.aborted(stop)
                    else:
                        breaker.success()
                    if verdict.scored and session.cache is not None:
                        entry = CachedVerdict(
                            verdict.score, verdict.red_flag, verdict.rationale, verdict.judge_model
                        )
                        session.cache.put(verdict.cache_key, entry)
                settle(index, verdict)
    if budget is not None:
        budget.check()  # the calls in flight have landed; the rest never started
    return [by_index[index] for index in sorted(by_index)]


async def judge_run(
    session: JudgeSession,
    responses: Sequence[EvalResponse],
    pack: Pack,
    *,
    prior_verdicts: Iterable[Verdict] | None = None,
    prior_reports: Iterable[ModelReport] = (),
    rejudge: Rejudge = "none",
    on_verdict: OnVerdict | None = None,
    on_judge_error: OnVerdict | None = None,
    plan: JudgePlan | None = None,
    holistic: bool = True,
) -> JudgeRunResult:
    """Judge what ``prior_verdicts`` lacks or what went stale, then the holistic pass.

    ``rejudge``: ``"unscored"`` also judges cells whose prior verdict is unscored, ``"all"``
    every cell (and every holistic report). A new verdict replaces a prior one only when it
    does not downgrade it (``policy.keep_better``): a failed or unreadable re-judge keeps the
    scored verdict, which is then neither handed to ``on_verdict`` nor replaced. Verdicts come
    in response order (judge_error verdicts included, never persisted). A call a content
    filter refused is no judge_error here: its cell gets an unscored "judge_refused" verdict,
    handed to ``on_verdict`` (not ``on_judge_error``) so that it is persisted and findable;
    the next run asks again (``plan``).
    ``plan``: ``JudgePlan.of(prior_verdicts, responses, pack, rejudge)`` when the caller has
    it already. ``holistic=False``: no holistic pass (a jury member other than the first);
    the reports are ``prior_reports``.
    """
    prior: dict[VerdictKey, Verdict] = {
        cell_key(v): v for v in (prior_verdicts or []) if not v.judge_error
    }
    if plan is None:
        plan = JudgePlan.of(prior.values(), responses, pack, rejudge)
    result = JudgeRunResult([], [], stale=len(plan.stale))

    def standing(verdict: Verdict) -> bool:
        """Whether a prior verdict stands against ``verdict`` (counted as kept)."""
        old = prior.get(cell_key(verdict))
        if old is not None and keep_better(old, verdict) is old:
            result.kept += 1
            return True
        return False

    replaced: list[tuple[Verdict, Verdict]] = []

    def landed(verdict: Verdict) -> None:
        if standing(verdict):
            return
        old = prior.get(cell_key(verdict))
        # A stale cell is judged by another rubric: its old verdict is no comparison.
        if old is not None and old.scored and verdict.scored and cell_key(old) not in plan.stale:
            replaced.append((old, verdict))
        if on_verdict is not None:
            on_verdict(verdict)

    def failed(verdict: Verdict) -> None:
        if verdict.unscored_reason == "judge_refused":
            # Data about the cell: kept with its reason (findable), asked again next run.
            if not standing(verdict):  # a scored verdict stands against it (never downgrade)
                result.refused += 1
                if on_verdict is not None:
                    on_verdict(verdict)
            return
        if not standing(verdict):
            result.left += 1
        if on_judge_error is not None:
            on_judge_error(verdict)

    new = await judge_cells(
        session,
        responses,
        pack,
        skip_keys=plan.skip,
        on_verdict=landed,
        on_judge_error=failed,
        refusals=True,
    )
    if new:
        merged = dict(prior)
        for verdict in new:
            key = cell_key(verdict)
            merged[key] = keep_better(merged.get(key), verdict)
        ordered = [merged.pop(k) for k in map(cell_key, responses) if k in merged]
        ordered.extend(merged.values())
    else:
        ordered = list(prior.values())  # as persisted: already in response order
    by_pair: dict[tuple[str, str], list[Verdict]] = {
        pair: [] for pair in dict.fromkeys((r.model, r.variant) for r in responses)
    }
    for verdict in ordered:
        by_pair.setdefault((verdict.model, verdict.variant), []).append(verdict)
    result.verdicts = ordered
    result.replaced = replaced
    if not holistic:
        result.reports = list(prior_reports)
        later = plan if rejudge == "none" and not new else JudgePlan.of(ordered, responses, pack)
        result.settled = result.left == 0 and later.todo(responses) == 0
        return result
    whole = await holistic_pass(
        session,
        pack,
        by_pair,
        previous={(r.model, r.variant): r for r in prior_reports},
        force=rejudge != "none",
    )
    result.reports = whole.reports
    # The plan of a later run without --rejudge; this one's when no verdict changed.
    later = plan if rejudge == "none" and not new else JudgePlan.of(ordered, responses, pack)
    result.settled = result.left == 0 and whole.unsettled == 0 and later.todo(responses) == 0
    return result


@dataclass(frozen=True)
class _Guard:
    """The session settings of the synchronous faces below (scripts and tests): one judge
    session, its concurrency and breaker, run to the end on a loop of its own."""

    concurrency: int
    max_consecutive_failures: int
    max_failure_ratio: float
    cache: VerdictCache | None

    def blocking(self, backend: JudgeBackend, work: Callable[[JudgeSession], Awaitable[T]]) -> T:
        async def run() -> T:
            async with open_session(
                backend,
                concurrency=self.concurrency,
                max_consecutive_failures=self.max_consecutive_failures,
                max_failure_ratio=self.max_failure_ratio,
                cache=self.cache,
            ) as session:
                return await work(session)

        return run_blocking(run())


def judge_responses(
    backend: JudgeBackend,
    responses: Iterable[EvalResponse],
    pack: Pack,
    *,
    skip_keys: frozenset[VerdictKey] | set[VerdictKey] = frozenset(),
    on_verdict: OnVerdict | None = None,
    max_consecutive_failures: int = 0,
    max_failure_ratio: float = 0.0,
    on_judge_error: OnVerdict | None = None,
    concurrency: int = 1,
    cache: VerdictCache | None = None,
) -> list[Verdict]:
    """Judge every response whose key is not in ``skip_keys``; verdicts in input order.

    A failed judge call becomes an unscored ``judge_error`` verdict: returned, passed to
    ``on_judge_error``, never to ``on_verdict``. ``JudgeAborted`` when the judge is unusable.
    With ``concurrency`` > 1 calls overlap and "consecutive" means in completion order.
    Cells whose judge prompt is identical share one call; with a ``cache``, cells it knows
    need no call. Either way their verdicts are marked ``cached``.
    """

    guard = _Guard(concurrency, max_consecutive_failures, max_failure_ratio, cache)
    return guard.blocking(
        backend,
        lambda session: judge_cells(
            session,
            responses,
            pack,
            skip_keys=skip_keys,
            on_verdict=on_verdict,
            on_judge_error=on_judge_error,
        ),
    )


def judge_bundle(
    backend: JudgeBackend,
    responses: Sequence[EvalResponse],
    pack: Pack,
    *,
    prior_verdicts: Iterable[Verdict] | None = None,
    on_verdict: OnVerdict | None = None,
    max_consecutive_failures: int = 0,
    max_failure_ratio: float = 0.0,
    on_judge_error: OnVerdict | None = None,
    concurrency: int = 1,
    rejudge: Rejudge = "none",
    cache: VerdictCache | None = None,
    prior_reports: Iterable[ModelReport] = (),
) -> tuple[list[Verdict], list[ModelReport]]:
    """Judge what ``prior_verdicts`` lacks, then score every (model, variant) holistically.

    ``rejudge``: ``"unscored"`` also judges cells whose prior verdict is unscored, ``"all"``
    judges every cell again. See ``judge_run``.
    """

    guard = _Guard(concurrency, max_consecutive_failures, max_failure_ratio, cache)
    result = guard.blocking(
        backend,
        lambda session: judge_run(
            session,
            responses,
            pack,
            prior_verdicts=prior_verdicts,
            prior_reports=prior_reports,
            rejudge=rejudge,
            on_verdict=on_verdict,
            on_judge_error=on_judge_error,
        ),
    )
    return result.verdicts, result.reports
