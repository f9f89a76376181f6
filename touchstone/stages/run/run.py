"""The run stage: ask every evaluated model every prompt of a pack, persist each answer.

``answering`` asks the cells (and holds the failure policy by error kind); this module owns
the run directory around it: the settings check against an existing run (``extend``),
run.json, the answers appended as they land, the events.

run.json records a model once its first answer (or failed answer) lands: a misspelt name, or
a model the endpoint refuses, leaves no trace in the run that would count as cells it lacks.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Required, TypedDict, Unpack

from touchstone.advice import close_names
from touchstone.answers import AnswerBackend, OpenAIAnswerBackend
from touchstone.errors import InputError
from touchstone.events import EventSink, emit, in_flight_events
from touchstone.limits import (
    DEFAULT_CALL_TIMEOUT_S,
    MAX_CONCURRENCY,
    MAX_REPEATS,
    MAX_TOKENS_PER_CALL,
    check_count,
    check_reply_mb,
    check_timeout,
)
from touchstone.pack import Pack, file_sha256, load_pack
from touchstone.results import EvalResponse, VerdictKey, cell_key
from touchstone.stages.run.answering import (
    Cell,
    RunSummary,
    answer_cells,
    plan_cells,
)
from touchstone.stages.run.extend import (
    NO_MODEL,
    AskedRun,
    answer_inputs,
    check_settings,
    kept_cap,
    model_names,
    open_per_model,
    resumed_plan,
)
from touchstone.stages.run.manifest import default_run_name, run_manifest, with_vouched_inputs
from touchstone.stages.run.unfinished import unfinished
from touchstone.store import MANIFEST, RunDir
from touchstone.store.manifest import Manifest
from touchstone.transport.bounds import DEFAULT_MAX_REPLY_MB
from touchstone.transport.budget import Budget, Price, budget_problem
from touchstone.transport.engine import run_blocking
from touchstone.urls import recorded_url, scheme_problem, without_credentials

DEFAULT_BASE_URL = "https://api.openai.com/v1"


@dataclass
class RunOutcome:
    run_dir: RunDir
    summary: RunSummary
    # Cells run.json plans that still have no answer, by model: this call's left cells and
    # those of models, variants or repeats it did not ask for (a subset, or an extension).
    open_in_run: dict[str, int] = field(default_factory=dict)
    # The endpoint (without credentials) and the models run.json records.
    base_url: str = ""
    models: list[str] = field(default_factory=list)
    # The models this call asked for (some may have no answer yet, so run.json lacks them).
    asked_models: list[str] = field(default_factory=list)
    # The run dir was new and got no answer: removed again (nothing was kept).
    removed: bool = False

    def unfinished(self) -> str:
        """Why cells are left and what to do, in German; "" when the run is complete."""
        if self.summary.complete:
            return ""
        return unfinished(
            self.summary,
            run_path=self.run_dir.path,
            base_url=self.base_url,
            recorded=self.models,
            removed=self.removed,
        )

    def facts(self) -> dict[str, object]:
        """What ``unfinished`` says, as data (the ``aborted`` event's fields, which the GUI
        words for itself): the open cells, each stopped model with its cause and the names
        the endpoint offers instead, the calls left by cause."""
        summary = self.summary
        return {
            "open_cells": summary.left,
            "base_url": self.base_url,
            "run_models": list(self.models),
            "stopped": [
                {
                    "model": model,
                    "cause": error.kind,
                    "suggestions": close_names(model, summary.available)
                    if error.kind == "not_found"
                    else [],
                    "recorded": model in self.models,
                }
                for model, error in summary.stop_causes.items()
            ],
            "left": [
                {
                    "cause": kind,
                    "calls": times,
                    "server_busy": summary.left_causes[kind].server_busy,
                    "unknown_host": summary.left_causes[kind].unknown_host,
                }
                for kind, times in summary.left_by_kind.most_common()
            ],
        }


class RunOptions(TypedDict, total=False):
    """What a ``run`` call asks for, as ``execute_run`` and ``preview_run`` take it; the
    defaults are ``plan_run``'s."""

    pack_path: Required[str | Path]
    models: Required[Sequence[str]]
    # Default: runs/<pack>-<timestamp>.
    out: str | Path | None
    # Default: the pack's variants (on an existing run: its own).
    variants: Sequence[str]
    # Default: 1 (on an existing run: its own).
    repeats: int | None
    # Default: OPENAI_BASE_URL, else OpenAI's endpoint.
    base_url: str | None
    call_timeout_s: float
    max_tokens: int | None
    concurrency: int
    max_reply_mb: float
    # Extend an existing run (more models, variants, repeats); else other settings are refused.
    extend: bool
    # ``budget`` (with ``price`` and ``max_tokens``) caps what the call spends.
    price: Price | None
    budget: float | None


@dataclass
class RunPlan:
    """What a ``run`` call asks for, checked against its run dir: reading, never writing
    (``execute_run`` plans holding the run's lock, the preview ``--dry-run`` without)."""

    pack: Pack
    run: RunDir
    asked: AskedRun
    url: str
    # The call's options, checked, with their defaults.
    pack_path: str | Path
    call_timeout_s: float
    max_tokens: int | None
    concurrency: int
    max_reply_mb: float
    extend: bool
    price: Price | None
    budget: float | None
    variants: list[str] = field(default_factory=list)
    repeats: int = 1
    stored: Manifest | None = None

    def resolve(self) -> None:
        """The run's settings against those asked (``stages.extend``): fills ``variants``,
        ``repeats`` and ``stored``, or ``InputError``."""
        run = self.run
        if run.file(MANIFEST).exists():
            read = run.read_manifest()
            self.stored = with_vouched_inputs(run, read, self.pack, self.asked.pack_sha256)
        check_settings(run.path, self.stored, self.asked, extend=self.extend, surface="cli")
        chosen_variants, self.repeats = resumed_plan(self.stored, self.asked)
        self.variants = chosen_variants or list(self.pack.variants)
        gone = [v for v in self.variants if v not in self.pack.variants]
        if gone:  # only a run from before run.json held the pack's checksum gets here
            raise InputError(
                f"{run.file(MANIFEST)} nennt Variante(n) {', '.join(gone)}, die das Paket "
                f"{self.pack_path} nicht kennt: geben Sie die Varianten mit --variant an."
            )

    def cost_cap(self) -> Budget | None:
        """The call's hard cap (``plan_run`` refused a budget without price or max_tokens)."""
        if self.budget is None or self.price is None or self.max_tokens is None:
            return None
        return Budget(self.budget, self.price, self.max_tokens)


def plan_run(**options: Unpack[RunOptions]) -> RunPlan:
    """The options checked, the pack loaded, the run dir named (not yet compared with the
    run's settings: ``RunPlan.resolve``); every problem an ``InputError``."""
    pack_path, models = options["pack_path"], model_names(options["models"])
    variants, repeats = options.get("variants", ()), options.get("repeats")
    call_timeout_s = options.get("call_timeout_s", DEFAULT_CALL_TIMEOUT_S)
    max_tokens, concurrency = options.get("max_tokens"), options.get("concurrency", 1)
    max_reply_mb = options.get("max_reply_mb", DEFAULT_MAX_REPLY_MB)
    price, budget = options.get("price"), options.get("budget")
    if not models:
        raise InputError(f"--model: {NO_MODEL}.")
    if repeats is not None:
        check_count("--repeats", repeats, 1, MAX_REPEATS)
    check_count("--concurrency", concurrency, 1, MAX_CONCURRENCY)
    check_timeout("--call-timeout-s", call_timeout_s)
    check_reply_mb("--max-reply-mb", max_reply_mb)
    if max_tokens is not None:
        check_count("--max-tokens", max_tokens, 1, MAX_TOKENS_PER_CALL)
    pack = load_pack(pack_path)
    unknown = [v for v in variants if v not in pack.variants]
    if unknown:
        raise InputError(
            f"Unbekannte Variante(n) {', '.join(unknown)} – das Paket {pack_path} kennt: "
            f"{', '.join(pack.variants)}."
        )
    url = options.get("base_url") or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
    problem = scheme_problem(url)
    if problem:
        source = "--base-url" if options.get("base_url") else "OPENAI_BASE_URL"
        raise InputError(f"{source} {problem}.")
    out = options.get("out")
    run = RunDir(out if out is not None else Path("runs") / default_run_name(pack.id))
    if run.path.exists() and not run.path.is_dir():
        raise InputError(f"{run.path} ist eine Datei, kein Verzeichnis.")
    if max_tokens is None and run.file(MANIFEST).is_file():
        # Not given on a resume: the run's cap, as omitted variants and repeats are the run's.
        max_tokens = kept_cap(run.read_manifest())
    problem = budget_problem(budget, price, max_tokens)
    if problem:
        raise InputError(f"--budget: {problem}.")
    asked = AskedRun(
        pack_id=pack.id,
        pack_sha256=file_sha256(Path(pack_path)),
        # Credentials in the URL are used for the calls, never written down.
        base_url=without_credentials(url),
        models=models,
        variants=list(dict.fromkeys(variants)) or None,
        repeats=repeats,
        max_tokens=max_tokens,
        answer_inputs=answer_inputs(pack),
    )
    return RunPlan(
        pack,
        run,
        asked,
        url,
        pack_path=pack_path,
        call_timeout_s=call_timeout_s,
        max_tokens=max_tokens,
        concurrency=concurrency,
        max_reply_mb=max_reply_mb,
        extend=options.get("extend", False),
        price=price,
        budget=budget,
    )


def execute_run(
    *,
    api_key: str | None = None,
    backend: AnswerBackend | None = None,
    on_event: EventSink | None = None,
    **options: Unpack[RunOptions],
) -> RunOutcome:
    """Answer every cell of the pack not yet in ``out``; each answer is appended as it lands.

    Without ``out`` the run goes to ``runs/<pack>-<timestamp>``. On an existing run,
    ``variants``/``repeats`` not given mean the run's; settings beyond the run's are refused
    unless ``extend`` (``stages.extend``). ``budget`` (with ``price`` and ``max_tokens``) caps
    what this call spends (``budget.Budget``); once reached, the cells not started are left.
    A run dir this call created and that got no answer is removed at the end, however the
    call ends (``RunOutcome.removed``); an existing one never is.
    """
    plan = plan_run(**options)
    key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY", "")
    created = not plan.run.path.exists()
    try:
        outcome = _answered(plan, key, backend, on_event)
    except BaseException:
        if created:
            with contextlib.suppress(OSError):  # the failure that ended the run is told
                plan.run.remove_if_unanswered()
        raise
    if created:
        outcome.removed = plan.run.remove_if_unanswered()
    return outcome


def _answered(
    plan: RunPlan, key: str, backend: AnswerBackend | None, on_event: EventSink | None
) -> RunOutcome:
    """``execute_run`` in the run's lock: the cells asked, each answer appended."""
    pack, run, url = plan.pack, plan.run, plan.url
    chosen_models = plan.asked.models
    with run.locked():
        plan.resolve()
        chosen_variants, chosen_repeats = plan.variants, plan.repeats
        responses = run.load_responses()
        done = set(map(cell_key, responses))
        answered = {resp.model for resp in responses}
        del responses  # a big run's answers are not held through the calls
        manifest = run_manifest(
            run,
            pack,
            Path(plan.pack_path),
            without_credentials(url),
            [model for model in chosen_models if model in answered],
            chosen_variants,
            chosen_repeats,
            asked_models=list(chosen_models),
        )
        run.path.mkdir(parents=True, exist_ok=True)
        manifest = manifest.model_copy(update={"max_tokens": plan.max_tokens})
        run.write_manifest(manifest)
        answer_backend = backend or OpenAIAnswerBackend(
            url,
            key,
            deadline_s=plan.call_timeout_s,
            max_tokens=plan.max_tokens,
            max_reply_mb=plan.max_reply_mb,
        )
        planned = [c.key for c in plan_cells(pack, chosen_models, chosen_variants, chosen_repeats)]
        already_done = sum(1 for key in planned if key in done)
        emit(
            on_event,
            "start",
            stage="run",
            run=run.name,
            run_dir=str(run.path),
            total=len(planned),
            already_done=already_done,
        )

        def progress(cell: Cell, outcome: str) -> None:
            emit(
                on_event,
                "progress",
                stage="run",
                model=cell.model,
                variant=cell.variant,
                prompt_id=cell.prompt.id,
                repeat=cell.repeat,
                outcome=outcome,
            )

        cost_cap = plan.cost_cap()
        landed: set[VerdictKey] = set()
        endpoint = recorded_url(url)
        with run.response_appender() as appender:

            def keep(resp: EvalResponse) -> None:
                nonlocal manifest
                appender.append(resp.as_dict())
                landed.add(cell_key(resp))
                grown = manifest.with_answer(resp.model, endpoint)
                if grown is not manifest:
                    # After the answer: a run.json never names a model without one.
                    manifest = grown
                    run.write_manifest(manifest)

            summary = run_blocking(
                answer_cells(
                    answer_backend,
                    pack,
                    models=chosen_models,
                    variants=chosen_variants,
                    repeats=chosen_repeats,
                    done_keys=done,
                    on_response=keep,
                    concurrency=plan.concurrency,
                    on_cell=progress,
                    on_waiting=in_flight_events(on_event, "run"),
                    budget=cost_cap,
                )
            )
        emit(
            on_event,
            "done",
            stage="run",
            recorded=summary.recorded,
            left=summary.left,
            skipped=summary.skipped,
            failures=dict(summary.failures),
            stopped_models={m: e.kind for m, e in summary.stop_causes.items()},
            **({} if cost_cap is None else {"budget": cost_cap.as_dict()}),
        )
        whole = (manifest.models, manifest.variants, manifest.repeats)
        if whole != (chosen_models, chosen_variants, chosen_repeats):
            planned = [c.key for c in plan_cells(pack, *whole)]
        open_in_run = open_per_model(planned, done | landed)
        return RunOutcome(
            run,
            summary,
            open_in_run,
            without_credentials(url),
            list(manifest.models),
            list(chosen_models),
        )
