"""Judging one cell: the single per-cell path that ``score_response`` and the engine share.

CellTask.of(answer, prompt, pack, judge), or CellTask.framed(answer, frame, judge) with the
(prompt, variant)'s frame rendered once for its cells (``frames.Frames``)
    ├── .settled      an answer that needs no judge call (model error, empty, reasoning
    │                 only): its unscored verdict
    └── .system/.user the judge prompt, and .key, its verdict-cache key
task.verdict(reply)   the verdict from the judge's reply (unscored "unparseable" if the
                      reply cannot be read)
task.failed(error)    the unscored judge_error verdict of a failed call (never persisted)
task.refused(error)   the unscored "judge_refused" verdict of a call a content filter
                      refused, which the judge stage persists (a later judge run asks again)
grouped(calls, tasks) the order judge calls are issued in: by (prompt, variant)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from touchstone.advice import cause
from touchstone.errors import CallError
from touchstone.judge.backend import JudgeBackend, ask_judge, judge_identity
from touchstone.judge.cache import CachedVerdict
from touchstone.judge.frames import Frame
from touchstone.judge.replies import parse_verdict_reply, unreadable_note
from touchstone.judge.schemas import verdict_schema
from touchstone.pack import Pack, Prompt
from touchstone.results import EvalResponse, Verdict
from touchstone.transport.replies import ChatReply

JUDGE_ERROR_RATIONALE = "⚠ Judge-Fehler (nicht bewertbar): {err}"
JUDGE_REFUSED_RATIONALE = (
    "⚠ Vom Inhaltsfilter des Judges abgelehnt (nicht bewertet; der nächste Judge-Durchgang "
    "fragt erneut): {err}"
)


@dataclass(frozen=True, slots=True)
class Judge:
    """Who judges: the model recorded in verdicts, and the identity the cache keys cover."""

    model: str
    identity: str

    @classmethod
    def of(cls, backend: JudgeBackend) -> Judge:
        return cls(backend.model, judge_identity(backend))


def _cell_fields(resp: EvalResponse, prompt: Prompt, rubric: str) -> dict[str, Any]:
    """What a verdict takes over from the answer and the prompt it judges."""
    return {
        "model": resp.model,
        "variant": resp.variant,
        "prompt_id": resp.prompt_id,
        "repeat": resp.repeat,
        "category": resp.category,
        "safety_critical": prompt.safety_critical,
        "rubric_hash": rubric,
    }


def _unscored(fields: dict[str, Any], reason: str, rationale: str, **extra: Any) -> Verdict:
    return Verdict(
        **fields,
        score=0,
        red_flag=False,
        rationale=rationale,
        unscored=True,
        unscored_reason=reason,
        **extra,
    )


def _verdict_without_judge(resp: EvalResponse, fields: dict[str, Any]) -> Verdict | None:
    """The unscored verdict for an answer that needs no judge call, else ``None``."""
    if not resp.ok:
        why = resp.error or "unbekannter Fehler"
        return _unscored(fields, "model_error", f"Modellfehler: {why}", error_kind=resp.error_kind)
    if not resp.response_text.strip():
        if resp.reasoning_chars > 0:
            return _unscored(
                fields,
                "reasoning_only",
                f"Nur Reasoning ({resp.reasoning_chars} Zeichen), keine Antwort.",
            )
        return _unscored(fields, "empty", "Leere Antwort.")
    return None


@dataclass(slots=True)
class CellTask:
    """One answer to judge, with everything its verdict depends on."""

    resp: EvalResponse
    frame: Frame
    judge: Judge
    fields: dict[str, Any]
    settled: Verdict | None
    key: str = ""

    @classmethod
    def of(
        cls,
        resp: EvalResponse,
        prompt: Prompt,
        pack: Pack,
        judge: Judge,
        *,
        system: str = "",
        rubric: str = "",
    ) -> CellTask:
        """``system`` and ``rubric`` (its hash) may be passed in: they repeat across cells.
        Many cells: ``framed`` with ``frames.Frames``, which renders what they share once."""
        frame = Frame.of(pack, prompt, resp.variant, judge.identity, system=system, rubric=rubric)
        return cls.framed(resp, frame, judge)

    @classmethod
    def framed(cls, resp: EvalResponse, frame: Frame, judge: Judge) -> CellTask:
        """The task of ``resp``, whose (prompt, variant) is ``frame``."""
        fields = _cell_fields(resp, frame.prompt, frame.rubric)
        settled = _verdict_without_judge(resp, fields)
        if settled is not None:
            return cls(resp, frame, judge, fields, settled)
        return cls(resp, frame, judge, fields, None, frame.key(resp.response_text))

    @property
    def prompt(self) -> Prompt:
        return self.frame.prompt

    @property
    def system(self) -> str:
        return self.frame.system

    @property
    def user(self) -> str:
        # Rendered on demand rather than kept: 100k judge prompts would not fit in memory.
        return self.frame.user(self.resp.response_text)

    def verdict(self, reply: ChatReply, *, cached: bool = False) -> Verdict:
        """The verdict the judge's reply gives; unscored "unparseable" if it cannot be read.

        The cell that paid for the call (``cached=False``) records its tokens.
        """
        tokens = (
            {}
            if cached
            else {
                "judge_prompt_tokens": reply.prompt_tokens,
                "judge_completion_tokens": reply.completion_tokens,
                "judge_reasoning_tokens": reply.reasoning_tokens,
                "judge_cached_tokens": reply.cached_tokens,
            }
        )
        parsed = parse_verdict_reply(
            reply.content, self.frame.scale, finish_reason=reply.finish_reason
        )
        if parsed is None:
            return _unscored(
                self.fields,
                "unparseable",
                unreadable_note(reply.content, reply.finish_reason),
                judge_model=self.judge.model,
                **tokens,
            )
        score, red_flag, rationale = parsed
        entry = CachedVerdict(score, red_flag, rationale, self.judge.model)
        return self.from_cache(entry, cached, **tokens)

    def from_cache(self, entry: CachedVerdict, cached: bool = True, **extra: Any) -> Verdict:
        return Verdict(
            **self.fields,
            score=entry.score,
            red_flag=entry.red_flag,
            rationale=entry.rationale,
            judge_model=entry.judge_model,
            cached=cached,
            cache_key=self.key,
            **extra,
        )

    def failed(self, error: CallError, *, shared: bool = False) -> Verdict:
        """The unscored judge_error verdict of a failed call: shown, never persisted.
        ``shared``: another cell paid for the call (``cached``, as for a verdict): one failed
        call is counted once, however many cells it leaves unscored."""
        return _unscored(
            self.fields,
            "judge_error",
            JUDGE_ERROR_RATIONALE.format(err=cause(error)),
            judge_model=self.judge.model,
            error_kind=error.kind,
            cached=shared,
        )

    def refused(self, error: CallError, *, shared: bool = False) -> Verdict:
        """The verdict to persist for a cell whose judge call a content filter refused.

        A refusal is data about that cell (design.md §8), so it is kept with its reason and
        shows wherever unscored cells do; it is not a judge_error, which is never persisted.
        Which cells a later run judges again is ``judge.plan``'s business: refused ones
        always. ``shared`` as for ``failed``.
        """
        return _unscored(
            self.fields,
            "judge_refused",
            JUDGE_REFUSED_RATIONALE.format(err=cause(error)),
            judge_model=self.judge.model,
            error_kind=error.kind,
            cached=shared,
        )


def grouped(
    calls: Iterable[list[int]], tasks: Mapping[int, CellTask], lanes: int = 1
) -> list[list[int]]:
    """Judge calls (cell indices, the first one's task asks) by prompt, then variant, then
    model and repeat: calls whose judge prompts share the longest prefix go out back to back,
    so that a server's prefix cache evaluates the shared part once (design.md §21).

    With ``lanes`` calls at once, that order is cut into as many stretches, taken in turn:
    the calls in flight are each from a stretch of its own, and the call that lands first
    (usually the oldest) makes room for the next of its stretch, which a server (llama.cpp
    picks the free slot whose cached prompt matches best) gives the slot that just saw its
    prefix. Sent at once, calls of one group would each evaluate the shared part.
    """

    def order(cells: list[int]) -> tuple[str, str, str, int]:
        resp = tasks[cells[0]].resp
        return (resp.prompt_id, resp.variant, resp.model, resp.repeat)

    ordered = sorted(calls, key=order)
    size = -(-len(ordered) // max(1, lanes))
    stretches = [ordered[start : start + size] for start in range(0, len(ordered), size or 1)]
    return [s[i] for i in range(size) for s in stretches if i < len(s)]


def score_response(
    backend: JudgeBackend, resp: EvalResponse, prompt: Prompt, pack: Pack
) -> Verdict:
    """Judge one answer. Exceptions of the judge call propagate; nothing else raises."""
    task = CellTask.of(resp, prompt, pack, Judge.of(backend))
    if task.settled is not None:
        return task.settled
    schema = verdict_schema(pack.scale, backend.max_tokens)
    return task.verdict(ask_judge(backend, system=task.system, user=task.user, schema=schema))
