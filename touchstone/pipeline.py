"""The stages as the CLI, the demo and the GUI drive them: run, judge, report.

Each stage owns its run-dir bookkeeping (manifest, append streams, clean rewrite) and reports
what happens through an ``on_event(kind, data)`` callback; it never prints. Errors leave as
the exceptions of ``errors``; ``cli`` turns them into messages and exit codes.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from touchstone import __version__
from touchstone.cache import CACHE_FILE, CachedVerdict, VerdictCache, default_cache_dir
from touchstone.client import DEFAULT_CALL_TIMEOUT_S, AnswerBackend, OpenAIAnswerBackend
from touchstone.errors import InputError, JudgeAborted
from touchstone.events import EventSink
from touchstone.health import JudgeHealth, MeteredJudge
from touchstone.judge import (
    JudgeBackend,
    JudgeConfig,
    OpenAIJudgeBackend,
    Rejudge,
    judge_bundle,
    keys_to_skip,
    load_judge_config,
)
from touchstone.pack import Pack, file_sha256, load_pack
from touchstone.report import render_report
from touchstone.results import EvalResponse, ModelReport, Verdict, VerdictKey, cell_key
from touchstone.runner import RunSummary, run_cells
from touchstone.store import REPORT_HTML, RunDir, atomic_write_text

DEFAULT_BASE_URL = "https://api.openai.com/v1"


def _emit(on_event: EventSink | None, kind: str, **data: Any) -> None:
    if on_event is not None:
        on_event(kind, data)


def now_iso() -> str:
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()


def default_run_name(pack_id: str) -> str:
    return f"{pack_id}-{dt.datetime.now().strftime('%Y%m%d-%H%M%S')}"


# -- run ----------------------------------------------------------------------------------


@dataclass
class RunOutcome:
    run_dir: RunDir
    summary: RunSummary


def execute_run(
    *,
    pack_path: str | Path,
    models: Sequence[str],
    out: str | Path | None = None,
    variants: Sequence[str] = (),
    repeats: int = 1,
    base_url: str | None = None,
    api_key: str | None = None,
    call_timeout_s: float = DEFAULT_CALL_TIMEOUT_S,
    max_tokens: int | None = None,
    backend: AnswerBackend | None = None,
    on_event: EventSink | None = None,
    concurrency: int = 1,
) -> RunOutcome:
    """Answer every cell of the pack not yet in ``out``; each answer is appended as it lands.

    Without ``out`` the run goes to ``runs/<pack>-<timestamp>``.
    """
    pack = load_pack(pack_path)
    if not models:
        raise InputError("Mindestens ein Modell angeben: --model NAME.")
    if repeats < 1:
        raise InputError(f"--repeats muss mindestens 1 sein, ist {repeats}.")
    if concurrency < 1:
        raise InputError(f"--concurrency muss mindestens 1 sein, ist {concurrency}.")
    if call_timeout_s <= 0:
        raise InputError(f"--call-timeout-s muss größer als 0 sein, ist {call_timeout_s}.")
    unknown = [v for v in variants if v not in pack.variants]
    if unknown:
        raise InputError(
            f"Unbekannte Variante(n) {', '.join(unknown)} – das Paket {pack_path} kennt: "
            f"{', '.join(pack.variants)}."
        )
    chosen_variants = list(dict.fromkeys(variants)) or list(pack.variants)
    chosen_models = list(dict.fromkeys(models))
    url = base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
    key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY", "")

    run = RunDir(out if out is not None else Path("runs") / default_run_name(pack.id))
    if run.path.exists() and not run.path.is_dir():
        raise InputError(f"{run.path} ist eine Datei, kein Verzeichnis.")
    with run.locked():
        manifest = _run_manifest(
            run, pack, Path(pack_path), url, chosen_models, chosen_variants, repeats
        )
        done = set(map(cell_key, run.load_responses()))
        run.path.mkdir(parents=True, exist_ok=True)
        run.write_manifest(manifest)

        own_backend = backend is None
        answer_backend: AnswerBackend = backend or OpenAIAnswerBackend(
            url, key, call_timeout_s=call_timeout_s, max_tokens=max_tokens
        )
        total = (
            len(chosen_models) * len(chosen_variants) * repeats * sum(1 for _ in pack.all_prompts())
        )
        _emit(on_event, "start", stage="run", run=run.name, total=total, already_done=len(done))
        try:
            with run.response_appender() as appender:

                def persist(resp: EvalResponse) -> None:
                    appender.append(resp.as_dict())

                summary = run_cells(
                    answer_backend,
                    pack,
                    models=chosen_models,
                    variants=chosen_variants,
                    repeats=repeats,
                    done_keys=done,
                    on_response=persist,
                    concurrency=concurrency,
                    on_cell=lambda cell, outcome: _emit(
                        on_event,
                        "progress",
                        stage="run",
                        model=cell.model,
                        variant=cell.variant,
                        prompt_id=cell.prompt.id,
                        repeat=cell.repeat,
                        outcome=outcome,
                    ),
                )
        finally:
            if own_backend and isinstance(answer_backend, OpenAIAnswerBackend):
                answer_backend.close()
        _emit(
            on_event,
            "done",
            stage="run",
            recorded=summary.recorded,
            left=summary.left,
            failures=dict(summary.failures),
        )
        return RunOutcome(run, summary)


def _run_manifest(
    run: RunDir,
    pack: Pack,
    pack_path: Path,
    base_url: str,
    models: list[str],
    variants: list[str],
    repeats: int,
) -> dict[str, Any]:
    manifest = run.read_manifest() if run.file("run.json").exists() else {}
    if manifest and manifest.get("pack_id") not in (None, pack.id):
        raise InputError(
            f"{run.path} gehört zum Paket „{manifest.get('pack_id')}“, nicht zu „{pack.id}“. "
            "Wählen Sie mit --out ein anderes Verzeichnis."
        )

    def union(key: str, new: list[str]) -> list[str]:
        old = manifest.get(key) or []
        return list(dict.fromkeys([*old, *new]))

    return {
        "name": run.name,
        "pack_id": pack.id,
        "pack_path": str(pack_path),
        "pack_abspath": str(pack_path.resolve()),
        "pack_sha256": file_sha256(pack_path),
        "base_urls": union("base_urls", [base_url]),
        "models": union("models", models),
        "variants": union("variants", variants),
        "repeats": max(int(manifest.get("repeats") or 0), repeats),
        "created_at": manifest.get("created_at") or now_iso(),
        "updated_at": now_iso(),
        "touchstone_version": __version__,
    }


def pack_of_run(run: RunDir) -> Pack:
    """The pack a run was made with, found by the paths its manifest recorded."""
    manifest = run.read_manifest()
    candidates = [manifest.get("pack_path"), manifest.get("pack_abspath")]
    for candidate in candidates:
        if candidate and Path(candidate).is_file():
            pack = load_pack(candidate)
            if manifest.get("pack_sha256") and file_sha256(candidate) != manifest["pack_sha256"]:
                run.warnings.append(
                    f"Das Paket {candidate} wurde seit dem Run geändert (andere Prüfsumme)."
                )
            return pack
    raise InputError(
        f"Das Paket dieses Runs ist nicht auffindbar (run.json nennt "
        f"{manifest.get('pack_path')!r}). Starten Sie touchstone im Verzeichnis des Runs "
        "oder legen Sie das Paket wieder dorthin."
    )


# -- judge --------------------------------------------------------------------------------


@dataclass
class JudgeOutcome:
    run_dir: RunDir
    pack: Pack
    responses: list[EvalResponse]
    verdicts: list[Verdict]
    reports: list[ModelReport]
    new_verdicts: int = 0
    judge_errors: list[Verdict] = field(default_factory=list)
    health: JudgeHealth = field(default_factory=JudgeHealth)

    @property
    def cells_left(self) -> int:
        return len(self.judge_errors)


def execute_judge(
    run_path: str | Path,
    *,
    config: JudgeConfig | str | Path,
    model: str | None = None,
    backend: JudgeBackend | None = None,
    on_event: EventSink | None = None,
    concurrency: int | None = None,
    rejudge: Rejudge = "none",
    use_cache: bool = True,
) -> JudgeOutcome:
    """Judge every answer of the run that has no persisted verdict, then the holistic pass.

    Successful verdicts are appended as they land; judge_error verdicts never reach the disk.
    On ``JudgeAborted`` the verdicts so far are kept (rewritten clean) and the error re-raised.
    """
    if concurrency is not None and concurrency < 1:
        raise InputError(f"--concurrency muss mindestens 1 sein, ist {concurrency}.")
    run = RunDir.existing(run_path)
    with run.locked():
        pack = pack_of_run(run)
        responses = run.load_responses()
        prior = run.load_verdicts()
        judge_config = config if isinstance(config, JudgeConfig) else load_judge_config(config)
        own_backend = backend is None
        judge_backend: JudgeBackend = backend or judge_config.backend(model)
        metered = MeteredJudge(judge_backend)
        cache = open_cache(use_cache=use_cache, rejudge=rejudge, prior=prior)
        judged_keys = keys_to_skip(prior, rejudge)
        todo = sum(1 for k in map(cell_key, responses) if k not in judged_keys)
        _emit(
            on_event,
            "start",
            stage="judge",
            run=run.name,
            total=len(responses),
            todo=todo,
            judge_model=metered.model,
        )
        landed: dict[VerdictKey, Verdict] = {}
        errors: list[Verdict] = []
        try:
            with run.verdict_appender() as appender:

                def persist(verdict: Verdict) -> None:
                    appender.append(verdict.as_dict())
                    landed[cell_key(verdict)] = verdict
                    _emit(on_event, "progress", stage="judge", **_verdict_event(verdict))

                def record_error(verdict: Verdict) -> None:
                    errors.append(verdict)
                    _emit(on_event, "judge_error", stage="judge", **_verdict_event(verdict))

                verdicts, reports = judge_bundle(
                    metered,
                    responses,
                    pack,
                    prior_verdicts=prior,
                    on_verdict=persist,
                    max_consecutive_failures=judge_config.max_consecutive_failures,
                    max_failure_ratio=judge_config.max_failure_ratio,
                    on_judge_error=record_error,
                    concurrency=concurrency or judge_config.concurrency,
                    rejudge=rejudge,
                    cache=cache,
                )
        except JudgeAborted as exc:
            # Clean means de-duplicated: with --rejudge a landed verdict replaces a prior one.
            kept = {cell_key(v): v for v in prior}
            kept.update(landed)
            run.rewrite_verdicts(kept.values())
            metered.health.cells_left = todo - len(landed)
            exc.health_summary = metered.health.summary_de()
            _emit(
                on_event,
                "aborted",
                stage="judge",
                message=str(exc),
                persisted=len(landed),
                health=metered.health.as_dict(),
            )
            raise
        finally:
            cache.close()
            run.warnings.extend(cache.warnings)
            if own_backend and isinstance(judge_backend, OpenAIJudgeBackend):
                judge_backend.close()
        if landed or not run.judgements_clean:
            run.rewrite_verdicts(verdicts)
        reports = keep_better_reports(run.load_reports(), reports)
        run.write_reports(reports)
        metered.health.cells_left = len(errors)
        metered.health.unparseable = sum(
            1 for v in landed.values() if v.unscored_reason == "unparseable"
        )
        outcome = JudgeOutcome(
            run_dir=run,
            pack=pack,
            responses=responses,
            verdicts=verdicts,
            reports=reports,
            new_verdicts=len(landed),
            judge_errors=errors,
            health=metered.health,
        )
        _emit(
            on_event,
            "done",
            stage="judge",
            new_verdicts=outcome.new_verdicts,
            judge_errors=len(errors),
            cells_left=outcome.cells_left,
            health=metered.health.as_dict(),
        )
        return outcome


def open_cache(*, use_cache: bool, rejudge: Rejudge, prior: Sequence[Verdict]) -> VerdictCache:
    """The verdict cache for one judge run.

    ``--rejudge`` asks for fresh verdicts, so nothing is looked up (new ones are still stored
    for later runs); ``--no-cache`` keeps to this run: identical cells still share a call.
    """
    path = default_cache_dir() / CACHE_FILE if use_cache else None
    if rejudge != "none":
        return VerdictCache(path, lookups=False)
    cache = VerdictCache(path)
    for verdict in prior:
        if verdict.cache_key and not verdict.unscored:
            entry = CachedVerdict(
                verdict.score, verdict.red_flag, verdict.rationale, verdict.judge_model
            )
            cache.remember(verdict.cache_key, entry)
    return cache


def keep_better_reports(
    old: Sequence[ModelReport], new: Sequence[ModelReport]
) -> list[ModelReport]:
    """New reports, except that a degraded one never replaces a report that had scores.

    A bad judge tried on a finished run must not wipe the holistic scores of a good one.
    """
    previous = {(r.model, r.variant): r for r in old if not r.degraded}
    return [previous.get((r.model, r.variant), r) if r.degraded else r for r in new]


def _verdict_event(verdict: Verdict) -> dict[str, Any]:
    return {
        "model": verdict.model,
        "variant": verdict.variant,
        "prompt_id": verdict.prompt_id,
        "repeat": verdict.repeat,
        "unscored": verdict.unscored,
        "error_kind": verdict.error_kind,
        "rationale": verdict.rationale if verdict.judge_error else "",
    }


# -- report -------------------------------------------------------------------------------


@dataclass
class RunView:
    """Everything persisted about a run, loaded once (report, scorecard, GUI)."""

    run_dir: RunDir
    pack: Pack
    manifest: dict[str, Any]
    responses: list[EvalResponse]
    verdicts: list[Verdict]
    reports: list[ModelReport]


def load_run(run_path: str | Path) -> RunView:
    run = RunDir.existing(run_path)
    return RunView(
        run_dir=run,
        pack=pack_of_run(run),
        manifest=run.read_manifest(),
        responses=run.load_responses(),
        verdicts=run.load_verdicts(),
        reports=run.load_reports(),
    )


def write_report(view: RunView) -> Path:
    html = render_report(
        run_name=view.run_dir.name,
        pack=view.pack,
        responses=view.responses,
        verdicts=view.verdicts,
        reports=view.reports,
        created_at=str(view.manifest.get("created_at", "")),
    )
    path = view.run_dir.file(REPORT_HTML)
    atomic_write_text(path, html)
    return path
