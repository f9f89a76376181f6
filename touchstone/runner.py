"""The run stage: ask every evaluated model every prompt of a pack, persist each answer.

Failure policy (by error kind, DESIGN §8):
- ``timeout``, ``refused``, ``bad_request``: a finding about the model (it overran its
  deadline, a filter refused the prompt, the request cannot work): persisted as a failed
  answer that the judge marks unscored.
- ``auth``, ``not_found``: the model can never answer: its remaining cells are skipped and
  the run says why (``RunSummary.stopped_models``).
- everything else (``connection``, ``server``, ``rate_limit``, ``other``): transient, not
  persisted, so the next ``touchstone run`` on the same directory retries the cell.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from touchstone.client import AnswerBackend
from touchstone.concurrency import CallPool
from touchstone.errors import ErrorKind, ModelCallError
from touchstone.pack import Pack, Prompt
from touchstone.results import EvalResponse, VerdictKey
from touchstone.transport import ChatReply, split_think

PERSISTED_FAILURES: frozenset[ErrorKind] = frozenset({"timeout", "refused", "bad_request"})
STOPPING_FAILURES: frozenset[ErrorKind] = frozenset({"auth", "not_found"})


@dataclass
class RunSummary:
    total: int = 0
    already_done: int = 0
    recorded: int = 0
    failed_recorded: int = 0
    left: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    stopped_models: dict[str, str] = field(default_factory=dict)
    last_error: str = ""

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


def plan_cells(pack: Pack, models: list[str], variants: list[str], repeats: int) -> Iterator[Cell]:
    """Cells in a stable order: model, variant, repeat, then prompts in file order."""
    for model in models:
        for variant in variants:
            for repeat in range(1, repeats + 1):
                for _, prompt in pack.all_prompts():
                    yield Cell(model, variant, prompt, repeat)


def _cell_fields(cell: Cell) -> dict[str, Any]:
    return {
        "model": cell.model,
        "variant": cell.variant,
        "prompt_id": cell.prompt.id,
        "repeat": cell.repeat,
        "category": cell.prompt.category,
    }


def response_from_reply(cell: Cell, reply: ChatReply) -> EvalResponse:
    content, inline_reasoning = split_think(reply.content)
    reasoning_chars = len(reply.reasoning) + len(inline_reasoning)
    return EvalResponse(
        **_cell_fields(cell),
        response_text=content,
        ok=True,
        content_empty=not content,
        reasoning_chars=reasoning_chars,
        finish_reason=reply.finish_reason,
        latency_s=round(reply.latency_s, 3),
        prompt_tokens=reply.prompt_tokens,
        completion_tokens=reply.completion_tokens,
        reasoning_tokens=reply.reasoning_tokens,
    )


def failed_response(cell: Cell, error: str, kind: ErrorKind) -> EvalResponse:
    return EvalResponse(
        **_cell_fields(cell),
        response_text="",
        ok=False,
        content_empty=True,
        reasoning_chars=0,
        error=error,
        error_kind=kind,
    )


def run_cells(
    backend: AnswerBackend,
    pack: Pack,
    *,
    models: list[str],
    variants: list[str],
    repeats: int,
    done_keys: set[VerdictKey],
    on_response: Callable[[EvalResponse], None],
    on_cell: Callable[[Cell, str], None] | None = None,
    concurrency: int = 1,
) -> RunSummary:
    """Answer every planned cell not in ``done_keys``; ``on_response`` persists each answer.

    ``on_cell(cell, outcome)`` reports progress; outcome is ``ok``, ``failed``, ``left``,
    ``skipped`` (stopped model) or ``done`` (already in the run dir). With ``concurrency``
    > 1 calls overlap; answers are persisted in the order they complete.
    """
    summary = RunSummary()
    todo: list[Cell] = []
    for cell in plan_cells(pack, models, variants, repeats):
        summary.total += 1
        if cell.key in done_keys:
            summary.already_done += 1
            _report(on_cell, cell, "done")
        else:
            todo.append(cell)

    def startable() -> Iterator[Cell]:
        # Pulled lazily by the pool, so a model stopped meanwhile gets no further calls.
        for cell in todo:
            if cell.model in summary.stopped_models:
                summary.left += 1
                _report(on_cell, cell, "skipped")
                continue
            yield cell

    def ask(cell: Cell) -> ChatReply:
        system = pack.variants[cell.variant]
        return backend.answer(model=cell.model, system=system, user=cell.prompt.text)

    for finished in CallPool(concurrency).run(startable(), ask):
        cell = finished.item
        error = finished.error
        if error is None:
            assert finished.result is not None
            on_response(response_from_reply(cell, finished.result))
            summary.recorded += 1
            _report(on_cell, cell, "ok")
            continue
        if not isinstance(error, ModelCallError):
            raise error  # a bug, not a model failure: never turn it into data
        summary.failures[error.kind] += 1
        summary.last_error = str(error)
        if error.kind in PERSISTED_FAILURES:
            on_response(failed_response(cell, str(error), error.kind))
            summary.recorded += 1
            summary.failed_recorded += 1
            _report(on_cell, cell, "failed")
            continue
        summary.left += 1
        if error.kind in STOPPING_FAILURES:
            summary.stopped_models.setdefault(cell.model, str(error))
        _report(on_cell, cell, "left")
    return summary


def _report(on_cell: Callable[[Cell, str], None] | None, cell: Cell, outcome: str) -> None:
    if on_cell is not None:
        on_cell(cell, outcome)
