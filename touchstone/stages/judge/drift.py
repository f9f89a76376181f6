"""Drift before a judge run (``quality.drift``): does the judge still answer as the verdicts
the run would take from the user-level cache say? Asked in a session of its own before the
run dir is opened, so ``on_drift: stop`` leaves it as it was."""

from __future__ import annotations

from collections.abc import Sequence

from touchstone.errors import JudgeAborted
from touchstone.events import EventSink, emit
from touchstone.judge.backend import JudgeBackend
from touchstone.judge.cache import VerdictCache
from touchstone.judge.config import JudgeConfig
from touchstone.judge.health import JudgeHealth
from touchstone.judge.plan import JudgePlan
from touchstone.judge.session import open_session
from touchstone.pack import Pack
from touchstone.quality.drift import Drift, recheck_cached
from touchstone.results import EvalResponse, cell_key
from touchstone.store import RunDir
from touchstone.transport.budget import Budget
from touchstone.transport.engine import run_blocking


def check_drift(
    backend: JudgeBackend,
    responses: Sequence[EvalResponse],
    pack: Pack,
    cache: VerdictCache,
    *,
    concurrency: int,
    max_consecutive_failures: int,
    max_failure_ratio: float,
    health: JudgeHealth,
    budget: Budget | None,
) -> Drift | None:
    """``recheck_cached`` in a session of its own over ``backend``, before a judge run opens
    anything of its run dir (``on_drift: stop`` then leaves it as it was); ``health`` and
    ``budget`` are the run's, so the calls count where the run's calls do."""

    async def recheck() -> Drift | None:
        async with open_session(
            backend,
            concurrency=concurrency,
            max_consecutive_failures=max_consecutive_failures,
            max_failure_ratio=max_failure_ratio,
            cache=None,
            health=health,
            budget=budget,
        ) as session:
            return await recheck_cached(session, responses, pack, cache)

    return run_blocking(recheck())


def check_drift_first(
    run: RunDir,
    pack: Pack,
    responses: Sequence[EvalResponse],
    plan: JudgePlan,
    cache: VerdictCache,
    backend: JudgeBackend,
    config: JudgeConfig,
    health: JudgeHealth,
    budget: Budget | None,
    on_event: EventSink | None,
) -> None:
    """Before a run serves verdicts from the user-level cache: does the judge still answer as
    it did (``quality.drift``)? Drift warns, or with ``on_drift: stop`` ends the run before
    its run dir is opened (exit 1)."""
    if cache.path is None or not cache.lookups:
        return
    try:
        todo = [r for r in responses if cell_key(r) not in plan.skip]
        drift = check_drift(
            backend,
            todo,
            pack,
            cache,
            concurrency=config.concurrency,
            max_consecutive_failures=config.max_consecutive_failures,
            max_failure_ratio=config.max_failure_ratio,
            health=health,
            budget=budget,
        )
        if drift is None or not drift.drifted:
            return
        emit(on_event, "drift", stage="judge", **drift.as_dict())
        if config.on_drift == "stop":
            raise JudgeAborted(
                drift.message_de(stopped=True),
                kind="drift",
                facts={"drift_message": drift.message_de(stopped=True, surface="gui")},
            )
    except BaseException:
        cache.close()
        raise
    run.warnings.append(drift.message_de())
