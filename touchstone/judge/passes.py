"""The judge passes: every answer of a run, then every (model, variant) as a whole.

A judge call can fail (a thinking model that never stops, a dead endpoint, a wrong key).
Such a failure is data about one cell, never the end of the process:

- ``judge_responses`` turns a failed call into an unscored ``judge_error`` verdict that is
  returned but never handed to ``on_verdict`` (so it is never persisted and a later run
  judges the cell again), and stops with ``JudgeAborted`` when the breaker says the judge is
  unusable (``policy``). No new call starts after that, and the calls in flight are
  cancelled, which closes their connections.
- ``judge_bundle`` judges what the prior verdicts lack, then runs the holistic pass.

Both are synchronous faces of coroutines (``judge_cells``, ``judge_run``) that send every
judge call through the engine, as tasks on one event loop, with a ``JudgeSession``.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from touchstone.engine import completed, run_blocking
from touchstone.errors import InputError
from touchstone.judge.backend import JudgeBackend, JudgeCall, JudgeReply, judge_caller, release
from touchstone.judge.cache import CachedVerdict, VerdictCache
from touchstone.judge.cells import CellTask, Judge
from touchstone.judge.health import JudgeHealth
from touchstone.judge.holistic import holistic_pass
from touchstone.judge.policy import Breaker
from touchstone.judge.rubric import judge_system_prompt
from touchstone.pack import Pack
from touchstone.results import EvalResponse, ModelReport, Verdict, VerdictKey, cell_key

Rejudge = Literal["none", "unscored", "all"]
OnVerdict = Callable[[Verdict], None]


@dataclass
class JudgeSession:
    """One judge invocation: how to call the judge, who it is, and the guard's settings."""

    call: JudgeCall
    judge: Judge
    budget_s: float | None = None
    concurrency: int = 1
    max_consecutive_failures: int = 0
    max_failure_ratio: float = 0.0
    cache: VerdictCache | None = None
    health: JudgeHealth = field(default_factory=JudgeHealth)


@contextlib.asynccontextmanager
async def open_session(
    backend: JudgeBackend,
    *,
    concurrency: int = 1,
    max_consecutive_failures: int = 0,
    max_failure_ratio: float = 0.0,
    cache: VerdictCache | None = None,
    health: JudgeHealth | None = None,
) -> AsyncIterator[JudgeSession]:
    """A session over ``backend``; on leaving, its connections on this loop are closed."""
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    # Only synchronous backends (fakes) use the threads; they are made on demand.
    executor = concurrent.futures.ThreadPoolExecutor(concurrency, "touchstone-judge")
    try:
        yield JudgeSession(
            call=judge_caller(backend, executor),
            judge=Judge.of(backend),
            budget_s=getattr(backend, "timeout", None),
            concurrency=concurrency,
            max_consecutive_failures=max_consecutive_failures,
            max_failure_ratio=max_failure_ratio,
            cache=cache,
            health=health or JudgeHealth(),
        )
    finally:
        executor.shutdown(wait=False, cancel_futures=True)
        await release(backend)


async def judge_cells(
    session: JudgeSession,
    responses: Iterable[EvalResponse],
    pack: Pack,
    *,
    skip_keys: frozenset[VerdictKey] | set[VerdictKey] = frozenset(),
    on_verdict: OnVerdict | None = None,
    on_judge_error: OnVerdict | None = None,
) -> list[Verdict]:
    """Judge every response whose key is not in ``skip_keys``; verdicts in input order."""
    todo = [r for r in responses if cell_key(r) not in skip_keys]
    missing = sorted({r.prompt_id for r in todo if not pack.has_prompt(r.prompt_id)})
    if missing:
        raise InputError(
            f"Das Paket „{pack.id}“ enthält die Prompts {', '.join(missing)} nicht mehr, "
            "zu denen der Run Antworten hat. Wurde das Paket seit dem Run geändert?"
        )
    system = judge_system_prompt(pack)
    by_index: dict[int, Verdict] = {}

    def settle(index: int, verdict: Verdict) -> None:
        by_index[index] = verdict
        if on_verdict is not None:
            on_verdict(verdict)

    # Cells with the same judge prompt share one call; a cache hit needs none at all.
    tasks: dict[int, CellTask] = {}
    calls: dict[str, list[int]] = {}
    for index, resp in enumerate(todo):
        task = CellTask.of(resp, pack.prompt(resp.prompt_id), pack, session.judge, system)
        if task.settled is not None:
            settle(index, task.settled)
            continue
        hit = session.cache.get(task.key) if session.cache is not None else None
        if hit is not None:
            settle(index, task.from_cache(hit))
            continue
        tasks[index] = task
        calls.setdefault(task.key, []).append(index)

    async def ask(cells: list[int], deadline_s: float | None) -> JudgeReply:
        task = tasks[cells[0]]
        return await session.call(task.system, task.user, deadline_s)

    breaker = Breaker(
        session.max_consecutive_failures, session.max_failure_ratio, session.judge.model
    )
    health = session.health
    results = completed(
        list(calls.values()), ask, concurrency=session.concurrency, budget_s=session.budget_s
    )
    # Results arrive in completion order: that is the order the breaker counts in.
    async with contextlib.aclosing(results):
        async for done in results:
            health.record(done)
            if done.error is not None:
                for index in done.item:
                    verdict = tasks[index].failed(done.error)
                    by_index[index] = verdict
                    if on_judge_error is not None:
                        on_judge_error(verdict)
                breaker.failure(done.error)
                continue
            breaker.success()
            assert done.result is not None
            for position, index in enumerate(done.item):
                verdict = tasks[index].verdict(done.result, cached=position > 0)
                if position == 0:
                    if verdict.unscored:
                        health.unparseable += 1
                    elif session.cache is not None:
                        entry = CachedVerdict(
                            verdict.score, verdict.red_flag, verdict.rationale, verdict.judge_model
                        )
                        session.cache.put(verdict.cache_key, entry)
                settle(index, verdict)
    return [by_index[index] for index in sorted(by_index)]


def keys_to_skip(prior: Iterable[Verdict], rejudge: Rejudge = "none") -> frozenset[VerdictKey]:
    """The cells a judge run leaves alone, given the persisted verdicts and ``rejudge``."""
    if rejudge == "all":
        return frozenset()
    if rejudge == "unscored":
        return frozenset(cell_key(v) for v in prior if not v.judge_error and not v.unscored)
    return frozenset(cell_key(v) for v in prior if not v.judge_error)


async def judge_run(
    session: JudgeSession,
    responses: Sequence[EvalResponse],
    pack: Pack,
    *,
    prior_verdicts: Iterable[Verdict] | None = None,
    rejudge: Rejudge = "none",
    on_verdict: OnVerdict | None = None,
    on_judge_error: OnVerdict | None = None,
    skip_keys: frozenset[VerdictKey] | None = None,
) -> tuple[list[Verdict], list[ModelReport]]:
    """Judge what ``prior_verdicts`` lacks, then score every (model, variant) holistically.

    A new verdict replaces a prior one, except that a judge_error never replaces a verdict:
    a failed re-judge keeps what was there. Returns all verdicts (prior and new, in response
    order, judge_error verdicts included) and one report per (model, variant).
    ``skip_keys``: ``keys_to_skip(prior_verdicts, rejudge)`` when the caller has it already.
    """
    merged: dict[VerdictKey, Verdict] = {
        cell_key(v): v for v in (prior_verdicts or []) if not v.judge_error
    }
    if skip_keys is None:
        skip_keys = keys_to_skip(merged.values(), rejudge)
    new = await judge_cells(
        session,
        responses,
        pack,
        skip_keys=skip_keys,
        on_verdict=on_verdict,
        on_judge_error=on_judge_error,
    )
    for verdict in new:
        if not (verdict.judge_error and verdict.key in merged):
            merged[verdict.key] = verdict
    ordered = [merged.pop(k) for k in map(cell_key, responses) if k in merged]
    ordered.extend(merged.values())
    by_pair: dict[tuple[str, str], list[Verdict]] = {
        pair: [] for pair in dict.fromkeys((r.model, r.variant) for r in responses)
    }
    for verdict in ordered:
        by_pair.setdefault((verdict.model, verdict.variant), []).append(verdict)
    reports = await holistic_pass(
        session.call,
        pack,
        by_pair,
        judge_model=session.judge.model,
        concurrency=session.concurrency,
        budget_s=session.budget_s,
        max_consecutive_failures=session.max_consecutive_failures,
        health=session.health,
    )
    return ordered, reports


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

    async def run() -> list[Verdict]:
        async with open_session(
            backend,
            concurrency=concurrency,
            max_consecutive_failures=max_consecutive_failures,
            max_failure_ratio=max_failure_ratio,
            cache=cache,
        ) as session:
            return await judge_cells(
                session,
                responses,
                pack,
                skip_keys=skip_keys,
                on_verdict=on_verdict,
                on_judge_error=on_judge_error,
            )

    return run_blocking(run())


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
) -> tuple[list[Verdict], list[ModelReport]]:
    """Judge what ``prior_verdicts`` lacks, then score every (model, variant) holistically.

    ``rejudge``: ``"unscored"`` also judges cells whose prior verdict is unscored, ``"all"``
    judges every cell again. See ``judge_run``.
    """

    async def run() -> tuple[list[Verdict], list[ModelReport]]:
        async with open_session(
            backend,
            concurrency=concurrency,
            max_consecutive_failures=max_consecutive_failures,
            max_failure_ratio=max_failure_ratio,
            cache=cache,
        ) as session:
            return await judge_run(
                session,
                responses,
                pack,
                prior_verdicts=prior_verdicts,
                rejudge=rejudge,
                on_verdict=on_verdict,
                on_judge_error=on_judge_error,
            )

    return run_blocking(run())
