"""The LLM judge and its runaway guard (§6, §8).

A judge call can fail (a thinking model that never stops, a dead endpoint, a wrong key).
Such a failure is data about one cell, never the end of the process:

- ``OpenAIJudgeBackend`` bounds every call by a hard wall-clock deadline (retries included,
  see ``transport``) and turns every exception of the call into ``JudgeCallError`` with its
  error kind. A reply with reasoning but no content is a call failure too: persisting it as
  an unscored verdict would hide a runaway judge from the breaker and from every resume.
- ``judge_responses`` turns a ``JudgeCallError`` into an unscored ``judge_error`` verdict that
  is returned but never handed to ``on_verdict`` (so it is never persisted and a later run
  judges the cell again), and stops the run with ``JudgeAborted`` when the judge is unusable:
  ``max_consecutive_failures`` call failures in a row, a failure share above
  ``max_failure_ratio``, or one ``auth``/``not_found`` failure.
- ``score_dimensions`` degrades to a report without scores instead of raising.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import ConfigDict, Field
from pydantic.dataclasses import dataclass

from touchstone.cache import CachedVerdict, VerdictCache, cache_key
from touchstone.concurrency import CallPool
from touchstone.errors import (
    ErrorKind,
    InputError,
    JudgeAborted,
    JudgeCallError,
    ReasoningOnly,
    classify,
    describe,
)
from touchstone.pack import Pack, Prompt
from touchstone.results import EvalResponse, ModelReport, Verdict, VerdictKey, cell_key
from touchstone.rubric import (
    ANSWER_END,
    ANSWER_START,
    dimensions_user_prompt,
    judge_system_prompt,
    judge_user_prompt,
    parse_dimensions_reply,
    parse_verdict_reply,
)
from touchstone.transport import ChatTransport, split_think
from touchstone.yamlfile import load_yaml_model

__all__ = [
    "ANSWER_END",
    "ANSWER_START",
    "JUDGE_ERROR_RATIONALE",
    "JudgeAborted",
    "JudgeBackend",
    "JudgeCallError",
    "JudgeConfig",
    "JudgeEndpoint",
    "OpenAIJudgeBackend",
    "dimensions_user_prompt",
    "judge_bundle",
    "judge_responses",
    "judge_system_prompt",
    "judge_user_prompt",
    "load_judge_config",
    "parse_dimensions_reply",
    "parse_verdict_reply",
    "score_dimensions",
    "score_response",
]

JUDGE_ERROR_RATIONALE = "⚠ Judge-Fehler (nicht bewertbar): {err}"
# Kinds after which the judge can never work: waiting for the breaker would only burn calls.
FATAL_KINDS: frozenset[ErrorKind] = frozenset({"auth", "not_found"})
# Kinds that are a fact about one cell (a filter refused its input), not a judge fault.
CELL_KINDS: frozenset[ErrorKind] = frozenset({"refused"})
# The failure ratio is only meaningful once this many calls were made.
RATIO_MIN_CALLS = 20
Rejudge = Literal["none", "unscored", "all"]
HOLISTIC_SKIPPED = (
    "Gesamtbewertung übersprungen: der Judge ist {n}-mal in Folge ausgefallen. "
    "Ein späterer `touchstone judge` holt sie nach."
)
ABORT_ADVICE = (
    "Wählen Sie ein Judge-Modell ohne Thinking/Reasoning (oder schalten Sie das Denken per "
    "extra_body ab) und starten Sie `touchstone judge` erneut: bereits gespeicherte "
    "Bewertungen bleiben erhalten, offene Zellen werden dann bewertet."
)


class JudgeBackend(Protocol):
    """Anything that answers a judge prompt with the judge's raw reply text.

    Raises ``JudgeCallError`` when the call fails. A ``model`` attribute, when present, is
    recorded in every verdict as ``judge_model``.
    """

    def judge(self, *, system: str, user: str) -> str: ...


class OpenAIJudgeBackend:
    """A judge behind an OpenAI-compatible endpoint.

    ``timeout`` (seconds) is both the SDK's request timeout and the hard wall-clock deadline
    of one call, retries included; ``None`` leaves both to the SDK defaults (not advisable).
    ``max_tokens`` is sent only when set.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        model: str,
        temperature: float = 0.0,
        *,
        timeout: float | None = None,
        max_retries: int = 0,
        max_tokens: int | None = None,
        extra_body: Mapping[str, Any] | None = None,
        stream: bool = False,
    ) -> None:
        self.model = model
        self.temperature = temperature
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_tokens = max_tokens
        self.extra_body = dict(extra_body or {})
        self.stream = stream
        self._transport = ChatTransport(base_url, api_key, timeout=timeout, max_retries=max_retries)
        self.client = self._transport.client

    def judge(self, *, system: str, user: str) -> str:
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        try:
            reply = self._transport.chat(
                model=self.model,
                messages=messages,
                deadline_s=self.timeout,
                stream=self.stream,
                temperature=self.temperature,
                max_tokens=self.max_tokens,
                extra_body=self.extra_body,
            )
            content, inline_reasoning = split_think(reply.content)
            if not content:
                reasoning_chars = len(reply.reasoning) + len(inline_reasoning)
                raise ReasoningOnly(
                    f"Antwort ohne Inhalt (finish_reason={reply.finish_reason or '-'}, "
                    f"{reasoning_chars} Zeichen Reasoning)"
                )
        except Exception as exc:
            raise JudgeCallError(describe(exc), kind=classify(exc)) from exc
        return content

    def close(self) -> None:
        self._transport.close()

    def __enter__(self) -> OpenAIJudgeBackend:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


# -- configuration ------------------------------------------------------------------------


@dataclass(config=ConfigDict(extra="forbid"))
class JudgeEndpoint:
    base_url: str
    api_key: str = ""
    # Name of an environment variable holding the key, so the key stays out of the file.
    api_key_env: str = ""

    def resolved_api_key(self) -> str:
        if self.api_key:
            return self.api_key
        if self.api_key_env:
            value = os.environ.get(self.api_key_env)
            if value is None:
                raise InputError(
                    f"Die Judge-Konfiguration nennt api_key_env: {self.api_key_env}, "
                    "aber diese Umgebungsvariable ist nicht gesetzt."
                )
            return value
        return ""


@dataclass(config=ConfigDict(extra="forbid"))
class JudgeConfig:
    endpoint: JudgeEndpoint
    model: str = Field(min_length=1)
    temperature: float = 0.0
    call_timeout_s: float = Field(default=120, gt=0)
    max_consecutive_failures: int = Field(default=3, ge=0)
    max_tokens: int | None = Field(default=None, gt=0)
    max_failure_ratio: float = Field(default=0.2, ge=0, le=1)
    max_retries: int = Field(default=0, ge=0)
    concurrency: int = Field(default=1, ge=1, le=64)
    extra_body: dict[str, Any] = Field(default_factory=dict)

    def backend(self, model: str | None = None) -> OpenAIJudgeBackend:
        """The backend this config describes (``model`` overrides the configured one)."""
        return OpenAIJudgeBackend(
            self.endpoint.base_url,
            self.endpoint.resolved_api_key(),
            model or self.model,
            self.temperature,
            timeout=self.call_timeout_s,
            max_retries=self.max_retries,
            max_tokens=self.max_tokens,
            extra_body=self.extra_body,
        )


def load_judge_config(path: str | Path) -> JudgeConfig:
    """Load a judge config; any problem is an ``InputError`` naming the file and key."""
    if not Path(path).exists():
        raise InputError(
            f"Judge-Konfiguration nicht gefunden: {path} (Vorlage: judge.example.yaml)."
        )
    return load_yaml_model(Path(path), JudgeConfig, "Judge-Konfiguration")


# -- scoring ------------------------------------------------------------------------------


def judge_model_of(backend: JudgeBackend) -> str:
    """The judge model a backend names (its optional ``model`` attribute), or ""."""
    return str(getattr(backend, "model", "") or "")


def _cell_fields(resp: EvalResponse, prompt: Prompt) -> dict[str, Any]:
    """What a verdict takes over from the answer and the prompt it judges."""
    return {
        "model": resp.model,
        "variant": resp.variant,
        "prompt_id": resp.prompt_id,
        "repeat": resp.repeat,
        "category": resp.category,
        "safety_critical": prompt.safety_critical,
    }


def _unscored(
    resp: EvalResponse, prompt: Prompt, reason: str, rationale: str, **extra: Any
) -> Verdict:
    return Verdict(
        **_cell_fields(resp, prompt),
        score=0,
        red_flag=False,
        rationale=rationale,
        unscored=True,
        unscored_reason=reason,
        **extra,
    )


def _verdict_without_judge(resp: EvalResponse, prompt: Prompt) -> Verdict | None:
    """The unscored verdict for an answer that needs no judge call, else ``None``."""
    if not resp.ok:
        why = resp.error or "unbekannter Fehler"
        return _unscored(
            resp, prompt, "model_error", f"Modellfehler: {why}", error_kind=resp.error_kind
        )
    if not resp.response_text.strip():
        if resp.reasoning_chars > 0:
            return _unscored(
                resp,
                prompt,
                "reasoning_only",
                f"Nur Reasoning ({resp.reasoning_chars} Zeichen), keine Antwort.",
            )
        return _unscored(resp, prompt, "empty", "Leere Antwort.")
    return None


def score_response(
    backend: JudgeBackend, resp: EvalResponse, prompt: Prompt, pack: Pack
) -> Verdict:
    """Judge one answer. Exceptions of the judge call propagate; nothing else raises."""
    settled = _verdict_without_judge(resp, prompt)
    if settled is not None:
        return settled
    judge_model = judge_model_of(backend)
    system = judge_system_prompt(pack)
    user = judge_user_prompt(resp, prompt, pack)
    reply = backend.judge(system=system, user=user)
    key = cache_key(judge_model, system, user)
    return _verdict_from_reply(resp, prompt, pack, reply, judge_model=judge_model, key=key)


def _verdict_from_reply(
    resp: EvalResponse,
    prompt: Prompt,
    pack: Pack,
    reply: str,
    *,
    judge_model: str,
    key: str,
    cached: bool = False,
) -> Verdict:
    parsed = parse_verdict_reply(reply, pack.scale)
    if parsed is None:
        excerpt = " ".join(reply.split())[:300]
        return _unscored(
            resp,
            prompt,
            "unparseable",
            f"Judge-Ausgabe nicht auswertbar: {excerpt!r}",
            judge_model=judge_model,
        )
    score, red_flag, rationale = parsed
    return _scored(
        resp, prompt, CachedVerdict(score, red_flag, rationale, judge_model), key, cached
    )


def _scored(
    resp: EvalResponse, prompt: Prompt, entry: CachedVerdict, key: str, cached: bool
) -> Verdict:
    return Verdict(
        **_cell_fields(resp, prompt),
        score=entry.score,
        red_flag=entry.red_flag,
        rationale=entry.rationale,
        judge_model=entry.judge_model,
        cached=cached,
        cache_key=key,
    )


def judge_error_verdict(
    resp: EvalResponse, prompt: Prompt, exc: JudgeCallError, judge_model: str
) -> Verdict:
    return _unscored(
        resp,
        prompt,
        "judge_error",
        JUDGE_ERROR_RATIONALE.format(err=exc),
        judge_error=True,
        judge_model=judge_model,
        error_kind=exc.kind,
    )


class _Breaker:
    """Decides after each call failure whether the judge is still worth calling."""

    def __init__(self, max_consecutive: int, max_ratio: float, judge_model: str) -> None:
        self.judge_model = judge_model
        self.max_consecutive = max_consecutive
        self.max_ratio = max_ratio
        self.streak = 0
        self.calls = 0
        self.failures = 0

    def success(self) -> None:
        self.calls += 1
        self.streak = 0

    def failure(self, exc: JudgeCallError) -> None:
        self.calls += 1
        self.failures += 1
        if exc.kind in FATAL_KINDS:
            what = (
                "Zugang verweigert"
                if exc.kind == "auth"
                else f"Judge-Modell „{self.judge_model}“ oder Endpunkt nicht gefunden"
            )
            raise JudgeAborted(
                f"{what} – der Judge kann so nie antworten ({exc}). Prüfen Sie Endpunkt, "
                "API-Schlüssel und Modellnamen in der Judge-Konfiguration."
            ) from exc
        if exc.kind not in CELL_KINDS:
            self.streak += 1
        if self.max_consecutive > 0 and self.streak >= self.max_consecutive:
            raise JudgeAborted(
                f"{self.streak} Judge-Aufrufe in Folge fehlgeschlagen; letzter Fehler: {exc}. "
                f"{ABORT_ADVICE}"
            ) from exc
        if (
            self.max_ratio > 0
            and self.calls >= RATIO_MIN_CALLS
            and self.failures / self.calls > self.max_ratio
        ):
            raise JudgeAborted(
                f"{self.failures} von {self.calls} Judge-Aufrufen fehlgeschlagen "
                f"(mehr als {self.max_ratio:.0%}); letzter Fehler: {exc}. {ABORT_ADVICE}"
            ) from exc


def judge_responses(
    backend: JudgeBackend,
    responses: Iterable[EvalResponse],
    pack: Pack,
    *,
    skip_keys: frozenset[VerdictKey] | set[VerdictKey] = frozenset(),
    on_verdict: Callable[[Verdict], None] | None = None,
    max_consecutive_failures: int = 0,
    max_failure_ratio: float = 0.0,
    on_judge_error: Callable[[Verdict], None] | None = None,
    concurrency: int = 1,
    cache: VerdictCache | None = None,
) -> list[Verdict]:
    """Judge every response whose key is not in ``skip_keys``; verdicts in input order.

    A failed judge call becomes an unscored ``judge_error`` verdict: returned, passed to
    ``on_judge_error``, never to ``on_verdict``. ``JudgeAborted`` when the judge is unusable:
    no new call starts after it, and calls still running are abandoned.
    With ``concurrency`` > 1 calls overlap and "consecutive" means in completion order.
    Cells whose judge prompt is identical share one call; with a ``cache``, cells it knows
    need no call. Either way their verdicts are marked ``cached``.
    """
    todo = [r for r in responses if cell_key(r) not in skip_keys]
    missing = sorted({r.prompt_id for r in todo if not pack.has_prompt(r.prompt_id)})
    if missing:
        raise InputError(
            f"Das Paket „{pack.id}“ enthält die Prompts {', '.join(missing)} nicht mehr, "
            "zu denen der Run Antworten hat. Wurde das Paket seit dem Run geändert?"
        )
    judge_model = judge_model_of(backend)
    system = judge_system_prompt(pack)
    by_index: dict[int, Verdict] = {}

    def settle(index: int, verdict: Verdict) -> None:
        by_index[index] = verdict
        if on_verdict is not None:
            on_verdict(verdict)

    # Cells with the same judge prompt share one call; a cache hit needs none at all.
    calls: dict[str, list[int]] = {}
    for index, resp in enumerate(todo):
        prompt = pack.prompt(resp.prompt_id)
        settled = _verdict_without_judge(resp, prompt)
        if settled is not None:
            settle(index, settled)
            continue
        key = cache_key(judge_model, system, judge_user_prompt(resp, prompt, pack))
        hit = cache.get(key) if cache is not None else None
        if hit is not None:
            settle(index, _scored(resp, prompt, hit, key, cached=True))
        else:
            calls.setdefault(key, []).append(index)

    def call(cells: list[int]) -> str:
        # The prompt is rendered again here rather than kept: 100k prompts would not fit.
        resp = todo[cells[0]]
        user = judge_user_prompt(resp, pack.prompt(resp.prompt_id), pack)
        return backend.judge(system=system, user=user)

    breaker = _Breaker(max_consecutive_failures, max_failure_ratio, judge_model)
    # Results arrive in completion order: that is the order the breaker counts in.
    for finished in CallPool(concurrency).run(list(calls.items()), lambda item: call(item[1])):
        key, cells = finished.item
        if isinstance(finished.error, JudgeCallError):
            for index in cells:
                resp = todo[index]
                prompt = pack.prompt(resp.prompt_id)
                verdict = judge_error_verdict(resp, prompt, finished.error, judge_model)
                by_index[index] = verdict
                if on_judge_error is not None:
                    on_judge_error(verdict)
            # Calls still running are abandoned, not awaited: the judge was just declared
            # unusable, and waiting for them would stretch the abort by another deadline.
            # (They end at their own deadline, or sooner when the backend is closed.)
            breaker.failure(finished.error)
            continue
        if finished.error is not None:
            raise finished.error  # a bug, not a judge failure: never turn it into data
        assert finished.result is not None
        breaker.success()
        for position, index in enumerate(cells):
            resp = todo[index]
            verdict = _verdict_from_reply(
                resp,
                pack.prompt(resp.prompt_id),
                pack,
                finished.result,
                judge_model=judge_model,
                key=key,
                cached=position > 0,
            )
            if position == 0 and cache is not None and not verdict.unscored:
                entry = CachedVerdict(
                    verdict.score, verdict.red_flag, verdict.rationale, judge_model
                )
                cache.put(key, entry)
            settle(index, verdict)
    return [by_index[index] for index in sorted(by_index)]


def score_dimensions(
    backend: JudgeBackend,
    pack: Pack,
    *,
    model: str,
    variant: str,
    verdicts: Sequence[Verdict],
) -> ModelReport:
    """The holistic report for one (model, variant); degraded (no scores) instead of raising."""
    return _dimensions_report(backend, pack, model=model, variant=variant, verdicts=verdicts)[0]


def _dimensions_report(
    backend: JudgeBackend,
    pack: Pack,
    *,
    model: str,
    variant: str,
    verdicts: Sequence[Verdict],
) -> tuple[ModelReport, JudgeCallError | None]:
    """The report and, when the call failed, why (so that callers can stop calling)."""
    judge_model = judge_model_of(backend)
    report = ModelReport(model=model, variant=variant, judge_model=judge_model)
    if not pack.dimensions:
        report.dim_rationales["_error"] = "Das Paket definiert keine Dimensionen."
        return report, None
    if not any(not v.unscored for v in verdicts):
        report.dim_rationales["_error"] = "Keine bewerteten Antworten – keine Gesamtbewertung."
        return report, None
    user = dimensions_user_prompt(pack, model=model, variant=variant, verdicts=verdicts)
    try:
        reply = backend.judge(system=judge_system_prompt(pack), user=user)
    except JudgeCallError as exc:
        report.dim_rationales["_error"] = JUDGE_ERROR_RATIONALE.format(err=exc)
        return report, exc
    parsed = parse_dimensions_reply(reply, [d.id for d in pack.dimensions], pack.scale)
    if parsed is None:
        excerpt = " ".join(reply.split())[:300]
        report.dim_rationales["_error"] = f"Judge-Ausgabe nicht auswertbar: {excerpt!r}"
        return report, None
    report.dim_scores, report.dim_rationales = parsed
    return report, None


def keys_to_skip(prior: Iterable[Verdict], rejudge: Rejudge = "none") -> frozenset[VerdictKey]:
    """The cells a judge run leaves alone, given the persisted verdicts and ``rejudge``."""
    if rejudge == "all":
        return frozenset()
    if rejudge == "unscored":
        return frozenset(cell_key(v) for v in prior if not v.judge_error and not v.unscored)
    return frozenset(cell_key(v) for v in prior if not v.judge_error)


def judge_bundle(
    backend: JudgeBackend,
    responses: Sequence[EvalResponse],
    pack: Pack,
    *,
    prior_verdicts: Iterable[Verdict] | None = None,
    on_verdict: Callable[[Verdict], None] | None = None,
    max_consecutive_failures: int = 0,
    max_failure_ratio: float = 0.0,
    on_judge_error: Callable[[Verdict], None] | None = None,
    concurrency: int = 1,
    rejudge: Rejudge = "none",
    cache: VerdictCache | None = None,
) -> tuple[list[Verdict], list[ModelReport]]:
    """Judge what ``prior_verdicts`` lacks, then score every (model, variant) holistically.

    ``rejudge``: ``"unscored"`` also judges cells whose prior verdict is unscored, ``"all"``
    judges every cell again. A new verdict replaces a prior one, except that a judge_error
    never replaces a verdict: a failed re-judge keeps what was there.

    Returns all verdicts (prior and new, in response order, judge_error verdicts included)
    and one report per (model, variant).
    """
    merged: dict[VerdictKey, Verdict] = {
        cell_key(v): v for v in (prior_verdicts or []) if not v.judge_error
    }
    skip = keys_to_skip(merged.values(), rejudge)
    new = judge_responses(
        backend,
        responses,
        pack,
        skip_keys=skip,
        on_verdict=on_verdict,
        max_consecutive_failures=max_consecutive_failures,
        max_failure_ratio=max_failure_ratio,
        on_judge_error=on_judge_error,
        concurrency=concurrency,
        cache=cache,
    )
    for verdict in new:
        if not (verdict.judge_error and verdict.key in merged):
            merged[verdict.key] = verdict
    ordered = [merged.pop(k) for k in map(cell_key, responses) if k in merged]
    ordered.extend(merged.values())
    pairs = list(dict.fromkeys((r.model, r.variant) for r in responses))
    by_pair: dict[tuple[str, str], list[Verdict]] = {pair: [] for pair in pairs}
    for verdict in ordered:
        by_pair.setdefault((verdict.model, verdict.variant), []).append(verdict)
    by_index: dict[int, ModelReport] = {}
    streak = 0
    pool = CallPool(concurrency)

    def report_for(pair: tuple[str, str]) -> tuple[ModelReport, JudgeCallError | None]:
        model, variant = pair
        return _dimensions_report(
            backend, pack, model=model, variant=variant, verdicts=by_pair[pair]
        )

    for finished in pool.run(pairs, report_for):
        if finished.error is not None:
            raise finished.error  # _dimensions_report catches judge failures: this is a bug
        assert finished.result is not None
        report, failure = finished.result
        by_index[finished.index] = report
        streak = streak + 1 if failure is not None else 0
        if max_consecutive_failures > 0 and streak >= max_consecutive_failures:
            # The judge failed the holistic calls in a row: spare the user more deadlines.
            pool.stop()
    reports = []
    for index, (model, variant) in enumerate(pairs):
        if index not in by_index:
            skipped = ModelReport(model, variant, judge_model=judge_model_of(backend))
            skipped.dim_rationales["_error"] = HOLISTIC_SKIPPED.format(n=streak)
            by_index[index] = skipped
        reports.append(by_index[index])
    return ordered, reports
