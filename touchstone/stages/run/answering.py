"""Answering the cells of a run: which cells a plan has, and asking them (design.md §8).

Failure policy (by error kind):
- ``timeout``, ``refused``, ``bad_request``, ``too_large``, ``malformed``: a finding about
  the model or its server (it overran its deadline, a filter refused the prompt, the request
  cannot work, its answer outgrew the cap, its server's reply arrived whole and is no chat
  completion): persisted as a failed answer that the judge marks unscored.
- ``auth``, ``not_found``, ``quota``: the model can never answer: its remaining cells are
  skipped and the run says why and what to do (``RunSummary.stopped_models``, ``unfinished``).
- everything else (``connection``, ``server``, ``rate_limit``, ``other``): transient, not
  persisted, so the next ``touchstone run`` on the same directory retries the cell. (A rate
  limit is first waited out by the engine, within the call deadline.)
- a host name that does not resolve (``CallError.unknown_host``) stops the whole run: no call
  of any model can reach it. The calls in flight end; no other cell is asked
  (``RunSummary.unreachable``), and all stay open for a run with the right ``--base-url``.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from touchstone.advice import known_models
from touchstone.answers import (
    AnswerBackend,
    answer_caller,
    answer_fields,
    failure_fields,
)
from touchstone.errors import CallError, ErrorKind
from touchstone.pack import Pack, Prompt
from touchstone.results import EvalResponse, VerdictKey
from touchstone.transport.budget import Budget
from touchstone.transport.engine import InFlight, completed
from touchstone.transport.replies import ChatReply

PERSISTED_FAILURES: frozenset[ErrorKind] = frozenset(
    {"timeout", "refused", "bad_request", "too_large", "malformed"}
)
STOPPING_FAILURES: frozenset[ErrorKind] = frozenset({"auth", "not_found", "quota"})


@dataclass
class RunSummary:
    total: int = 0
    already_done: int = 0
    recorded: int = 0
    failed_recorded: int = 0
    left: int = 0
    # Of ``left``: cells never asked because their model had stopped.
    skipped: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    stopped_models: dict[str, str] = field(default_factory=dict)
    # What stopped each model, and the last failure of each kind that left a cell open.
    stop_causes: dict[str, CallError] = field(default_factory=dict)
    left_causes: dict[ErrorKind, CallError] = field(default_factory=dict)
    left_by_kind: Counter[ErrorKind] = field(default_factory=Counter)
    # The model names the endpoint lists, asked when a model was not found.
    available: list[str] = field(default_factory=list)
    # The cost cap of this invocation (``--budget``), if any; of ``left``: the cells it
    # never started.
    budget: Budget | None = None
    over_budget: int = 0
    # The failure that stopped the whole run: the endpoint's host name does not resolve.
    unreachable: CallError | None = None

    @property
    def complete(self) -> bool:
        return self.left == 0


@dataclass(frozen=True)
class Cell:
    model: str
    variant: str
    prompt: Prompt
    repeat: int

    @property
    def key(self) -> VerdictKey:
        return VerdictKey(self.model, self.variant, self.prompt.id, self.repeat)

    def response(self, **fields: object) -> EvalResponse:
        return EvalResponse(
            model=self.model,
            variant=self.variant,
            prompt_id=self.prompt.id,
            repeat=self.repeat,
            category=self.prompt.category,
            **fields,  # type: ignore[arg-type]
        )


def plan_cells(pack: Pack, models: list[str], variants: list[str], repeats: int) -> Iterator[Cell]:
    """Cells in a stable order: model, variant, repeat, then prompts in file order."""
    for model in models:
        for variant in variants:
            for repeat in range(1, repeats + 1):
                for _, prompt in pack.all_prompts():
                    yield Cell(model, variant, prompt, repeat)


OnCell = Callable[[Cell, str], None]


async def answer_cells(
    backend: AnswerBackend,
    pack: Pack,
    *,
    models: list[str],
    variants: list[str],
    repeats: int,
    done_keys: set[VerdictKey],
    on_response: Callable[[EvalResponse], None],
    on_cell: OnCell | None = None,
    concurrency: int = 1,
    on_waiting: Callable[[InFlight], None] | None = None,
    budget: Budget | None = None,
) -> RunSummary:
    """Answer every planned cell not in ``done_keys`` through ``backend`` (closed at the
    end); ``on_response`` persists each answer.

    ``on_cell(cell, outcome)`` reports progress; outcome is ``ok``, ``failed``, ``left``,
    ``skipped`` (stopped model) or ``done`` (already in the run dir). Answers are persisted in
    the order they complete. A model the server does not know fills ``summary.available``
    with the models it offers (for "Meinten Sie …?").
    """
    call = answer_caller(backend)
    deadline_s = backend.deadline_s
    try:
        summary = RunSummary(budget=budget)
        report = on_cell or (lambda cell, outcome: None)
        todo: list[Cell] = []
        for cell in plan_cells(pack, models, variants, repeats):
            summary.total += 1
            if cell.key in done_keys:
                summary.already_done += 1
                report(cell, "done")
            else:
                todo.append(cell)

        def startable() -> Iterator[Cell]:
            # Pulled lazily by the engine, so a model stopped meanwhile gets no further calls.
            for cell in todo:
                if summary.unreachable is not None or cell.model in summary.stopped_models:
                    summary.left += 1
                    summary.skipped += 1
                    report(cell, "skipped")
                    continue
                yield cell

        async def ask(cell: Cell, deadline_s: float | None) -> ChatReply:
            return await call(cell.model, pack.variants[cell.variant], cell.prompt.text, deadline_s)

        def chars(cell: Cell) -> int:
            return len(pack.variants[cell.variant]) + len(cell.prompt.text)

        results = completed(
            startable(),
            ask,
            concurrency=concurrency,
            deadline_s=deadline_s,
            on_waiting=on_waiting,
            admit=None if budget is None else budget.admission(_cell_key, chars),
        )
        ended = 0
        async with contextlib.aclosing(results):
            async for done in results:
                cell = done.item
                ended += 1
                if budget is not None:
                    budget.settle_done(cell.key, done)
                if done.error is None:
                    assert done.result is not None
                    on_response(cell.response(**answer_fields(done.result)))
                    summary.recorded += 1
                    report(cell, "ok")
                    continue
                error = done.error
                summary.failures[error.kind] += 1
                if error.kind in PERSISTED_FAILURES:
                    on_response(cell.response(**failure_fields(str(error), error.kind)))
                    summary.recorded += 1
                    summary.failed_recorded += 1
                    report(cell, "failed")
                    continue
                summary.left += 1
                if error.kind in STOPPING_FAILURES:
                    summary.stopped_models.setdefault(cell.model, str(error))
                    summary.stop_causes.setdefault(cell.model, error)
                else:
                    summary.left_by_kind[error.kind] += 1
                    if error.unknown_host and summary.unreachable is None:
                        summary.unreachable = error
                    # The unknown host stays the cause its advice speaks of.
                    kept = summary.left_causes.get(error.kind)
                    if kept is None or not kept.unknown_host:
                        summary.left_causes[error.kind] = error
                report(cell, "left")
        if budget is not None and budget.reached:
            # The cells the cap never started: open for the next run, like a left cell.
            summary.over_budget = len(todo) - ended - summary.skipped
            summary.left += summary.over_budget
        not_found = any(
            e.kind == "not_found" and not e.unknown_path for e in summary.stop_causes.values()
        )
        if not_found:
            summary.available = await known_models(backend.model_ids)
        return summary
    finally:
        await backend.aclose()


def _cell_key(cell: Cell) -> VerdictKey:
    return cell.key
