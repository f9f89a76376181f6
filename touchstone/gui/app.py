"""The GUI's FastAPI app: server-rendered pages, a JSON API, and the local-only guards.

Guards (DESIGN §9): the Host header must name this GUI on loopback (DNS rebinding), every
non-GET request must carry an Origin of this GUI (CSRF), run names are directory names
directly under the runs dir, and config/pack paths must resolve inside the working dir.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from fastapi.templating import Jinja2Templates
from pydantic import BaseModel, ConfigDict, Field
from starlette.middleware.base import RequestResponseEndpoint

from touchstone.errors import InputError
from touchstone.gui.jobs import JobManager
from touchstone.report import template_environment
from touchstone.scorecard import Scorecard, build_scorecard
from touchstone.stages import load_run
from touchstone.store import MANIFEST, RunDir

_RUN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
TEMPLATES = Path(__file__).resolve().parent / "templates"
JOB_STATES = {
    "running": "läuft",
    "done": "fertig",
    "failed": "fehlgeschlagen",
    "cancelled": "abgebrochen",
}


class JudgeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    config: str = Field(min_length=1)
    model: str | None = None


class RunRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    pack: str = Field(min_length=1)
    base_url: str = Field(min_length=1)
    models: list[str] = Field(min_length=1)
    variants: list[str] = Field(default_factory=list)
    repeats: int = Field(default=1, ge=1, le=100)


def allowed_hosts(port: int, host: str) -> frozenset[str]:
    names = {"127.0.0.1", "localhost", "[::1]"}
    if host not in ("0.0.0.0", "::", ""):
        names.add(host)
    return frozenset(f"{name}:{port}" for name in names)


class Gui:
    """State shared by the routes: where runs live, where configs are, the job manager."""

    def __init__(self, runs_dir: Path, workdir: Path, jobs: JobManager) -> None:
        self.runs_dir = runs_dir.resolve()
        self.workdir = workdir.resolve()
        self.jobs = jobs

    # -- path guards ----------------------------------------------------------------------
    def run_dir(self, name: str) -> Path:
        """The run directory ``name`` directly under the runs dir, or 404."""
        if not _RUN_NAME.match(name):
            raise HTTPException(404, "Unbekannter Run")
        path = (self.runs_dir / name).resolve()
        if path.parent != self.runs_dir or not (path / MANIFEST).is_file():
            raise HTTPException(404, f"Unbekannter Run: {name}")
        return path

    def inside_workdir(self, relative: str, what: str) -> Path:
        """``relative`` resolved inside the working dir and an existing file, or 400."""
        path = (self.workdir / relative).resolve()
        if not path.is_relative_to(self.workdir):
            raise HTTPException(400, f"{what} muss im Arbeitsverzeichnis der GUI liegen.")
        if not path.is_file():
            raise HTTPException(400, f"{what} nicht gefunden: {relative}")
        return path

    def judge_configs(self) -> list[str]:
        return sorted(p.name for p in self.workdir.glob("judge*.yaml") if p.is_file())

    def packs(self) -> list[str]:
        found = [p for p in self.workdir.glob("packs/*.yaml") if p.is_file()]
        return sorted(str(p.relative_to(self.workdir)) for p in found)

    # -- views ----------------------------------------------------------------------------
    def run_names(self) -> list[str]:
        if not self.runs_dir.is_dir():
            return []
        return sorted(
            (p.name for p in self.runs_dir.iterdir() if (p / MANIFEST).is_file()), reverse=True
        )

    def run_summary(self, name: str) -> dict[str, Any]:
        path = self.runs_dir / name
        jobs = self.jobs.jobs_of(path)
        summary: dict[str, Any] = {
            "name": name,
            "last_job": (
                {"id": jobs[0]["id"], "state": jobs[0]["state"], "message": jobs[0]["message"]}
                if jobs
                else None
            ),
        }
        try:
            run = RunDir.existing(path)
            manifest = run.read_manifest()
            responses = run.load_responses()
            verdicts = run.load_verdicts()
        except InputError as exc:
            summary["error"] = str(exc)
            return summary
        summary.update(
            pack=manifest.get("pack_id", ""),
            models=manifest.get("models", []),
            cells=len(responses),
            judged=len(verdicts),
            unscored=sum(1 for v in verdicts if v.unscored),
            created_at=manifest.get("created_at", ""),
        )
        return summary

    def run_detail(self, name: str) -> tuple[dict[str, Any], Scorecard]:
        """The run as the API returns it, and its scorecard for the page."""
        path = self.run_dir(name)
        try:
            view = load_run(path)
        except InputError as exc:
            raise HTTPException(422, str(exc)) from exc
        card = build_scorecard(view.responses, view.verdicts, view.reports)
        detail = {
            "name": name,
            "pack": {"id": view.pack.id, "title": view.pack.title},
            "categories": {c.id: c.title for c in view.pack.categories},
            "manifest": {k: v for k, v in view.manifest.items() if "key" not in k.lower()},
            "scorecard": card.as_dict(),
            "verdicts": [v.as_dict() for v in view.verdicts],
            "reports": [r.as_dict() for r in view.reports],
            "warnings": view.run_dir.warnings,
            "jobs": self.jobs.jobs_of(path),
        }
        return detail, card


def create_app(
    runs_dir: Path,
    *,
    workdir: Path,
    port: int,
    host: str = "127.0.0.1",
    jobs: JobManager | None = None,
) -> FastAPI:
    gui = Gui(runs_dir, workdir, jobs or JobManager(runs_dir, workdir))
    hosts = allowed_hosts(port, host)
    origins = frozenset(f"http://{h}" for h in hosts)
    env = template_environment(TEMPLATES)
    env.globals.update(states=JOB_STATES)
    templates = Jinja2Templates(env=env)
    app = FastAPI(title="touchstone", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.gui = gui

    @app.middleware("http")
    async def local_only(request: Request, call_next: RequestResponseEndpoint) -> Response:
        if request.headers.get("host", "") not in hosts:
            return PlainTextResponse("Verboten: unbekannter Host", status_code=403)
        if request.method not in _SAFE_METHODS and request.headers.get("origin") not in origins:
            return PlainTextResponse("Verboten: fremde oder fehlende Herkunft", status_code=403)
        return await call_next(request)

    @app.exception_handler(HTTPException)
    async def german_errors(request: Request, exc: HTTPException) -> Response:
        if request.url.path.startswith("/api/"):
            return JSONResponse({"detail": exc.detail}, status_code=exc.status_code)
        return PlainTextResponse(str(exc.detail), status_code=exc.status_code)

    # -- pages ----------------------------------------------------------------------------
    @app.get("/", response_class=HTMLResponse)
    def index(request: Request) -> Response:
        runs = [gui.run_summary(name) for name in gui.run_names()]
        return templates.TemplateResponse(
            request, "index.html", {"runs": runs, "packs": gui.packs()}
        )

    @app.get("/runs/{name}", response_class=HTMLResponse)
    def run_page(request: Request, name: str) -> Response:
        detail, card = gui.run_detail(name)
        models = sorted({v["model"] for v in detail["verdicts"]})
        return templates.TemplateResponse(
            request,
            "run.html",
            {
                "run": detail,
                "card": card,
                "models": models,
                "configs": gui.judge_configs(),
            },
        )

    # -- API ------------------------------------------------------------------------------
    @app.get("/api/runs")
    def api_runs() -> list[dict[str, Any]]:
        return [gui.run_summary(name) for name in gui.run_names()]

    @app.get("/api/runs/{name}")
    def api_run(name: str) -> dict[str, Any]:
        return gui.run_detail(name)[0]

    @app.post("/api/runs/{name}/judge", status_code=202)
    def api_judge(name: str, body: JudgeRequest) -> dict[str, str]:
        path = gui.run_dir(name)
        config = gui.inside_workdir(body.config, "Judge-Konfiguration")
        args = ["judge", str(path), "--config", str(config)]
        if body.model:
            args += ["--model", body.model]
        return {"job": gui.jobs.start(path, args)}

    @app.post("/api/runs", status_code=202)
    def api_start_run(body: RunRequest) -> dict[str, str]:
        if not _RUN_NAME.match(body.name):
            raise HTTPException(400, "Ungültiger Run-Name (erlaubt: Buchstaben, Ziffern, . _ -).")
        pack = gui.inside_workdir(body.pack, "Paket")
        path = gui.runs_dir / body.name
        args = ["run", "--pack", str(pack), "--base-url", body.base_url, "--out", str(path)]
        for model in body.models:
            args += ["--model", model]
        for variant in body.variants:
            args += ["--variant", variant]
        args += ["--repeats", str(body.repeats)]
        return {"job": gui.jobs.start(path, args)}

    @app.get("/api/jobs/{job_id}")
    def api_job(job_id: str) -> dict[str, Any]:
        job = gui.jobs.get(job_id)
        if job is None:
            raise HTTPException(404, "Unbekannter Job")
        return job

    @app.post("/api/jobs/{job_id}/cancel")
    def api_cancel(job_id: str) -> dict[str, Any]:
        if gui.jobs.get(job_id) is None:
            raise HTTPException(404, "Unbekannter Job")
        return {"cancelled": gui.jobs.cancel(job_id)}

    return app
