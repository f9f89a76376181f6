"""The GUI's routes that start and follow CLI jobs: run, judge, judge-check, cancel.

Each request is checked as the CLI would check its flags (a 4xx naming the field), then becomes
the argv of a ``touchstone`` subprocess (jobs.py); nothing here runs a stage in the server.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException
from pydantic import AfterValidator, Field, ValidationError

from touchstone.gui.cost_fields import (
    PRICE_FIELD,
    CostFields,
    judge_config,
    refuse_unbounded_budget,
)
from touchstone.gui.estimate import FORM_WORDING, estimate_json
from touchstone.gui.validation import (
    ModelName,
    RelativePath,
    Url,
    VariantName,
    model_list,
    request_problem,
)
from touchstone.gui.views import Gui
from touchstone.limits import MAX_CONCURRENCY, MAX_REPEATS
from touchstone.pack import file_sha256, id_problem, load_pack
from touchstone.stages.preview.estimate import Preview
from touchstone.stages.preview.preview import preview_judge, preview_run
from touchstone.stages.run.extend import AskedRun, RunConflict, answer_inputs, check_settings
from touchstone.stages.run.manifest import with_vouched_inputs
from touchstone.store import MANIFEST, RunDir
from touchstone.urls import without_credentials


class JudgeRequest(CostFields):
    config: RelativePath
    model: ModelName | None = None
    # ``judge`` only: which cells with a verdict are judged again (CLI --rejudge).
    rejudge: Literal["none", "unscored", "all"] = "none"
    # ``judge`` only, like price, max_tokens and budget (CostFields): empty, the config's.
    concurrency: int | None = Field(default=None, ge=1, le=MAX_CONCURRENCY)

    def cost_given(self) -> bool:
        return self.given() or self.concurrency is not None


class RunRequest(CostFields):
    name: str = Field(max_length=200)
    pack: RelativePath
    base_url: Url
    models: Annotated[list[ModelName], AfterValidator(model_list)] = Field(
        min_length=1, max_length=100
    )
    variants: list[VariantName] = Field(default_factory=list, max_length=100)
    repeats: int = Field(default=1, ge=1, le=MAX_REPEATS)
    # "Run erweitern": an existing run of this name may take on more (CLI --extend).
    extend: bool = False
    # With price, max_tokens (empty: an existing run keeps its own) and budget (CostFields).
    concurrency: int = Field(default=1, ge=1, le=MAX_CONCURRENCY)


def run_cap(path: Path, pack: Path, body: RunRequest) -> int | None:
    """The answer cap of the run ``body`` asks for: the form's, else the run's own (an empty
    field keeps it, as ``run`` without --max-tokens does); 409 or 422 as the CLI would refuse
    the settings or the budget."""
    cap = refuse_silent_change(path, pack, body)
    refuse_unbounded_budget(body, body.price, cap)
    return cap


def refuse_silent_change(path: Path, pack: Path, body: RunRequest) -> int | None:
    """409 naming each difference when ``body`` asks an existing run for other settings and
    does not extend it; the CLI job checks again under the run's lock. Returns the answer cap:
    the form's, else the run's (an empty field keeps the run's)."""
    run = RunDir(path)
    if not run.file(MANIFEST).is_file():
        return body.max_tokens
    loaded, checksum = load_pack(pack), file_sha256(pack)
    manifest = with_vouched_inputs(run, run.read_manifest(), loaded, checksum)
    cap = manifest.max_tokens if body.max_tokens is None else body.max_tokens
    asked = AskedRun(
        pack_id=loaded.id,
        pack_sha256=checksum,
        base_url=without_credentials(body.base_url),
        models=list(body.models),
        variants=list(body.variants) or None,
        repeats=body.repeats,
        max_tokens=cap if isinstance(cap, int) else None,
        answer_inputs=answer_inputs(loaded),
    )
    try:
        check_settings(body.name, manifest, asked, extend=body.extend, surface="gui")
    except RunConflict as exc:
        raise HTTPException(409, str(exc)) from exc
    return asked.max_tokens


JUDGE_CHECK_COST = (
    "Ungültige Anfrage: Preis, max_tokens, Budget und parallele Aufrufe gelten für „Judge "
    "starten“; „Judge prüfen“ nimmt sie aus der Judge-Konfiguration (leeren Sie die Felder)."
)


def job_router(gui: Gui) -> APIRouter:
    router = APIRouter()

    def start_job(path: Path, args: list[str], extra_env: dict[str, str] | None = None) -> str:
        try:
            return gui.jobs.start(path, args, extra_env=extra_env)
        except (OSError, ValueError) as exc:  # the request was valid: the machine failed
            raise HTTPException(500, f"Der Job wurde nicht gestartet: {exc}") from exc

    def start_judge_job(command: str, name: str, body: JudgeRequest) -> dict[str, str]:
        """``judge`` or ``judge-check`` of run ``name`` as a job."""
        path = gui.run_dir(name)
        config = gui.inside_workdir(body.config, "Judge-Konfiguration")
        args = [command, str(path), "--config", str(config)]
        if body.model:
            args += ["--model", body.model]
        if command == "judge" and body.rejudge != "none":
            args += ["--rejudge", body.rejudge]
        if command == "judge-check" and body.cost_given():
            raise HTTPException(422, JUDGE_CHECK_COST)
        if body.cost_given():
            judge_config(config, body)  # refused here as the job would be, before it starts
            args += body.price_and_budget_args()
            args += [] if body.max_tokens is None else ["--max-tokens", str(body.max_tokens)]
            args += [] if body.concurrency is None else ["--concurrency", str(body.concurrency)]
        return {"job": start_job(path, args)}

    @router.post("/api/runs/{name}/judge/estimate")
    def api_estimate_judge(name: str, body: JudgeRequest) -> dict[str, Any]:
        """What the judge job of ``body`` would cost (``judge --dry-run``): nothing starts."""
        path = gui.run_dir(name)
        config = judge_config(gui.inside_workdir(body.config, "Judge-Konfiguration"), body)
        preview = preview_judge(
            path,
            config=config,
            model=body.model,
            concurrency=body.concurrency,
            rejudge=body.rejudge,
        )
        if isinstance(preview, Preview):
            preview.price_hint = f"{PRICE_FIELD} oder price_per_million der Konfiguration"
        return estimate_json(preview)

    @router.post("/api/runs/{name}/judge", status_code=202)
    def api_judge(name: str, body: JudgeRequest) -> dict[str, str]:
        return start_judge_job("judge", name, body)

    @router.post("/api/runs/{name}/judge-check", status_code=202)
    def api_judge_check(name: str, body: JudgeRequest) -> dict[str, str]:
        return start_judge_job("judge-check", name, body)

    def checked_run(body: RunRequest) -> tuple[Path, Path, int | None]:
        """The pack, the run dir and the answer cap of ``body``, or the 4xx a job would get."""
        problem = id_problem(body.name)
        if problem:
            raise HTTPException(400, f"Ungültiger Run-Name: {problem}.")
        pack = gui.inside_workdir(body.pack, "Paket")
        path = gui.runs_dir / body.name
        return pack, path, run_cap(path, pack, body)

    @router.post("/api/runs/estimate")
    def api_estimate_run(body: RunRequest) -> dict[str, Any]:
        """What the run job of ``body`` would cost (``run --dry-run``): nothing is started."""
        pack, path, cap = checked_run(body)
        preview = preview_run(
            wording=FORM_WORDING,
            pack_path=pack,
            models=body.models,
            out=path,
            variants=body.variants,
            repeats=body.repeats,
            base_url=without_credentials(body.base_url),
            max_tokens=cap,
            concurrency=body.concurrency,
            extend=body.extend,
            price=body.price,
            budget=body.budget,
        )
        return estimate_json(preview)

    @router.post("/api/runs", status_code=202)
    def api_start_run(body: RunRequest) -> dict[str, str]:
        return start_run(body)

    def start_run(body: RunRequest) -> dict[str, str]:
        pack, path, cap = checked_run(body)
        args = ["run", "--pack", str(pack), "--out", str(path)]
        if body.extend:
            args.append("--extend")
        if cap is not None:
            args += ["--max-tokens", str(cap)]
        args += [*body.price_and_budget_args(), "--concurrency", str(body.concurrency)]
        extra_env = {}
        if without_credentials(body.base_url) == body.base_url:
            args += ["--base-url", body.base_url]
        else:
            # Credentials in the URL reach the child through its environment, never argv.
            extra_env["OPENAI_BASE_URL"] = body.base_url
        for model in body.models:
            args += ["--model", model]
        for variant in body.variants:
            args += ["--variant", variant]
        args += ["--repeats", str(body.repeats)]
        return {"job": start_job(path, args, extra_env)}

    @router.get("/api/jobs/{job_id}")
    def api_job(job_id: str) -> dict[str, Any]:
        job = gui.jobs.get(job_id)
        if job is None:
            raise HTTPException(404, "Unbekannter Job")
        return job

    @router.post("/api/jobs/{job_id}/resume", status_code=202)
    def api_resume(job_id: str) -> dict[str, str]:
        """ "Fortsetzen": the same job again, rebuilt from its command through the checks of
        the form that started it (a run dir's job file is no trusted argv); the CLI goes on
        where the job stopped."""
        job = gui.jobs.get(job_id)
        if job is None:
            raise HTTPException(404, "Unbekannter Job")
        name = job["run"]
        if any(other["state"] == "running" for other in gui.jobs.jobs_of(gui.runs_dir / name)):
            raise HTTPException(409, f"Für Run „{name}“ läuft schon ein Job: erst danach.")
        fields = job["resume"]
        if "resume" not in job["actions"] or fields is None:
            raise HTTPException(
                409, "Dieser Job lässt sich nicht fortsetzen: der gleiche Job endete gleich."
            )
        command = fields.pop("command")
        try:
            if command == "run":
                return start_run(RunRequest.model_validate({**fields, "name": name}))
            return start_judge_job(command, name, JudgeRequest.model_validate(fields))
        except ValidationError as exc:  # an edited job file: what the form would refuse
            raise HTTPException(422, request_problem(exc.errors())) from exc

    @router.post("/api/jobs/{job_id}/cancel")
    def api_cancel(job_id: str) -> dict[str, Any]:
        if gui.jobs.get(job_id) is None:
            raise HTTPException(404, "Unbekannter Job")
        return {"cancelled": gui.jobs.cancel(job_id)}

    return router
