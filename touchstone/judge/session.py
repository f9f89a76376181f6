"""A judge session: one judge invocation's call, identity, guard settings and health."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

from touchstone.advice import Slowness, close_names, known_models
from touchstone.errors import JudgeAborted
from touchstone.judge.advice import advice
from touchstone.judge.backend import JudgeBackend, JudgeCall, judge_caller
from touchstone.judge.cache import VerdictCache
from touchstone.judge.cells import Judge
from touchstone.judge.health import JudgeHealth
from touchstone.judge.policy import Stop
from touchstone.results import Verdict
from touchstone.transport.budget import Budget
from touchstone.transport.engine import InFlight
from touchstone.transport.replies import ChatReply


@dataclass
class JudgeSession:
    """One judge invocation: how to call the judge, who it is, and the guard's settings."""

    call: JudgeCall
    judge: Judge
    deadline_s: float | None = None
    concurrency: int = 1
    max_consecutive_failures: int = 0
    max_failure_ratio: float = 0.0
    cache: VerdictCache | None = None
    health: JudgeHealth = field(default_factory=JudgeHealth)
    # For advice: the endpoint (without credentials) and its model list, when it has one.
    base_url: str = ""
    list_models: Callable[[], Awaitable[list[str]]] | None = None
    # Whether a stop's advice tells how the judge run goes on (judge-check persists nothing).
    resumable: bool = True
    # Hears of the calls in flight every few seconds (the stage's ``in_flight`` event).
    on_in_flight: Callable[[InFlight], None] | None = None
    # The cost cap of this invocation (judge config ``budget``), if any.
    budget: Budget | None = None
    # The judge's cap on a reply's tokens, which the reply schemas' rationales fit.
    max_tokens: int | None = None
    # Hears of each verdict a call's reply gave, with the reply (judge-replies.jsonl).
    on_reply: Callable[[Verdict, ChatReply], None] | None = None

    async def aborted(self, stop: Stop) -> JudgeAborted:
        """``JudgeAborted`` for ``stop``, with the advice that fits its cause."""
        available: list[str] = []
        wrong_path = stop.cause is not None and stop.cause.unknown_path
        slowness = self.health.slowness(self.deadline_s)
        if stop.kind == "not_found" and not wrong_path and self.list_models is not None:
            available = await known_models(self.list_models)
        text = advice(
            stop.kind,
            judge_model=self.judge.model,
            base_url=self.base_url,
            available=available,
            resume=self.resumable,
            server_busy=stop.cause is not None and stop.cause.server_busy,
            unknown_path=wrong_path,
            schema_refused=stop.cause is not None and stop.cause.schema_refused,
            schema_sent=self.health.schema_sent > 0,
            unknown_host=stop.cause is not None and stop.cause.unknown_host,
            slowness=slowness,
            cut_verdicts=self.health.cut_verdicts,
        )
        error = JudgeAborted(
            f"{stop.message} {text}",
            kind=stop.kind,
            reason=stop.message,
            advice=text,
            facts={
                "cause": stop.kind,
                "model": self.judge.model,
                "base_url": self.base_url,
                "suggestions": close_names(self.judge.model, available),
                "server_busy": stop.cause is not None and stop.cause.server_busy,
                "unknown_host": stop.cause is not None and stop.cause.unknown_host,
                **slow_facts(slowness),
                "cut_verdicts": self.health.cut_verdicts,
            },
        )
        error.__cause__ = stop.cause
        return error


@contextlib.asynccontextmanager
async def open_session(
    backend: JudgeBackend,
    *,
    concurrency: int = 1,
    max_consecutive_failures: int = 0,
    max_failure_ratio: float = 0.0,
    cache: VerdictCache | None = None,
    health: JudgeHealth | None = None,
    on_in_flight: Callable[[InFlight], None] | None = None,
    budget: Budget | None = None,
    on_reply: Callable[[Verdict, ChatReply], None] | None = None,
) -> AsyncIterator[JudgeSession]:
    """A session over ``backend``; on leaving, its connections on this loop are closed."""
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    try:
        yield JudgeSession(
            call=judge_caller(backend),
            judge=Judge.of(backend),
            deadline_s=backend.deadline_s,
            concurrency=concurrency,
            max_consecutive_failures=max_consecutive_failures,
            max_failure_ratio=max_failure_ratio,
            cache=cache,
            health=health or JudgeHealth(),
            base_url=backend.base_url,
            list_models=backend.model_ids,
            on_in_flight=on_in_flight,
            budget=budget,
            max_tokens=backend.max_tokens,
            on_reply=on_reply,
        )
    finally:
        await backend.aclose()


def slow_facts(slowness: Slowness) -> dict[str, object]:
    """What the calls measured, as the ``aborted`` event's facts (``events``): the GUI words
    the deadline advice from them as the terminal does (``advice.slow_advice``)."""
    return {
        "reasoning_seen": slowness.reasoning,
        "silent_calls": slowness.silent,
        "blind_calls": slowness.blind,
        "first_chars_s": slowness.first_s,
        "tokens_per_s": slowness.tokens_per_s,
        "deadline_s": slowness.deadline_s,
    }
