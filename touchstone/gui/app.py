"""The GUI's FastAPI app: server-rendered pages and the JSON API they use.

    guards.py     Host/Origin checks, the request-body limit
    views.py      path guards and what a run looks like to the pages and the API
    job_routes.py the routes that start and follow CLI jobs
    jobs.py       CLI subprocess jobs; job_state.py: reading them back, safely
    templates/    the pages (Jinja2, autoescaped; shared scorecard markup in ../templates)

Everything that comes from a run directory reaches the page as text: autoescaped in the
templates, ``textContent`` in the page's JavaScript. No file of a run dir is served: a run dir
may come from someone else, and HTML from it in the GUI's origin could start jobs with the
user's API key (issue 21). The report is rendered from the run's data, under a policy that
allows no script (guards.py).
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import FastAPI, HTTPException, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from touchstone import started
from touchstone.errors import InputError
from touchstone.gui.cache import LoadedRun
from touchstone.gui.cell_moves import CellQuery, cells_router
from touchstone.gui.comparisons import ComparisonQuery, comparison_page
from touchstone.gui.cost_fields import FORM_LIMITS
from touchstone.gui.guards import (
    REPORT_POLICY,
    BodyLimit,
    Hardened,
    LocalOnly,
    allowed_hosts,
    new_nonce,
    page_policy,
)
from touchstone.gui.job_routes import job_router
from touchstone.gui.job_state import JOB_STATES
from touchstone.gui.jobs import JobManager
from touchstone.gui.queries import (
    FILTER_FIELDS,
    VerdictQuery,
    page_filters,
    prompt_detail,
    selected_verdicts,
    verdict_page,
)
from touchstone.gui.rate import (
    MAX_SAMPLE,
    human_view,
    rate_context,
    rater_or_default,
    save_posted,
)
from touchstone.gui.run_routes import run_router
from touchstone.gui.validation import (
    german_detail,
    request_problem,
)
from touchstone.gui.versus import baselines, comparison_context, comparison_json, judged
from touchstone.gui.views import Gui, archive_of, current_jobs, last_endpoint
from touchstone.gui.whole import keep_whole
from touchstone.limits import MAX_PROBES
from touchstone.report import MeansChart, template_environment
from touchstone.spot.sample import DEFAULT_SAMPLE
from touchstone.stages.view import verdict_csv_file
from touchstone.store.exports import verdict_csv_lines
from touchstone.store.ratings import MAX_RATER

TEMPLATES = Path(__file__).resolve().parent / "templates"
STATIC = Path(__file__).resolve().parent / "static"
FAVICON = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'
    '<rect width="32" height="32" rx="6" fill="#24292f"/>'
    '<path d="M9 23 L16 8 L23 23 Z" fill="#f6c343"/></svg>'
)


def create_app(
    runs_dir: Path,
    *,
    workdir: Path,
    port: int,
    host: str = "127.0.0.1",
    jobs: JobManager | None = None,
) -> FastAPI:
    gui = Gui(runs_dir, workdir, jobs or JobManager(runs_dir, workdir))
    env = template_environment(TEMPLATES)
    env.globals.update(states=JOB_STATES, limits=FORM_LIMITS, max_probes=MAX_PROBES)
    env.filters.update(whole=keep_whole)
    templates = Jinja2Templates(env=env)
    app = FastAPI(title="touchstone", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.gui = gui
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    # Added last runs first: the headers of every reply (refusals too), the host check,
    # then the body limit.
    app.add_middleware(BodyLimit)
    app.add_middleware(LocalOnly, hosts=allowed_hosts(port, host))
    app.add_middleware(Hardened)

    def page(
        request: Request, template: str, context: dict[str, Any], status: int = 200
    ) -> Response:
        """A page of the GUI: its inline script runs by this response's nonce, no other."""
        nonce = new_nonce()
        response = templates.TemplateResponse(
            request, template, {**context, "csp_nonce": nonce}, status_code=status
        )
        response.headers["Content-Security-Policy"] = page_policy(nonce)
        return response

    def error_response(request: Request, status: int, detail: str) -> Response:
        """JSON for the API; for a page, a page (in German, with the way back)."""
        if request.url.path.startswith("/api/"):
            return JSONResponse({"detail": detail}, status_code=status)
        if request.method not in ("GET", "HEAD"):
            return PlainTextResponse(detail, status_code=status)
        return page(request, "error.html", {"status": status, "detail": detail}, status)

    # Starlette's own exception: the routes' 404 (FastAPI's HTTPException is a subclass).
    @app.exception_handler(StarletteHTTPException)
    async def german_errors(request: Request, exc: StarletteHTTPException) -> Response:
        return error_response(request, exc.status_code, german_detail(exc))

    @app.exception_handler(RequestValidationError)
    async def german_validation(request: Request, exc: RequestValidationError) -> Response:
        return error_response(request, 422, request_problem(exc.errors()))

    @app.exception_handler(InputError)
    async def bad_files(request: Request, exc: InputError) -> Response:
        # A file in a run dir that cannot be read (a job's sentinel, a FIFO): the message
        # names it, as the CLI's would.
        return error_response(request, 422, str(exc))

    # -- pages ----------------------------------------------------------------------------
    @app.get("/", response_class=HTMLResponse)
    def index(request: Request) -> Response:
        # "Run fortsetzen" of a run page fills the form in (name, pack, endpoint).
        prefill = {k: request.query_params.get(k, "") for k in ("name", "pack", "base_url")}
        runs = gui.runs()
        # After a job the form keeps the endpoint it used, not the default's.
        prefill["base_url"] = prefill["base_url"] or last_endpoint(runs)
        context = {
            "runs": runs,
            "packs": gui.packs(),
            "prefill": prefill,
            "current_jobs": current_jobs(runs),
            "archive": archive_of(gui.runs_dir),
        }
        return page(request, "index.html", context)

    @app.get("/fragments/runs", response_class=HTMLResponse)
    def runs_fragment(request: Request) -> Response:
        """The overview's list of runs alone: the overview refreshes it while jobs run."""
        return page(request, "runs_table.html", {"runs": gui.runs()})

    @app.get("/runs/{name}", response_class=HTMLResponse)
    def run_page(request: Request, name: str) -> Response:
        detail, run = gui.run_detail(name)
        try:
            page_filters(request.query_params)
        except ValidationError as exc:
            raise HTTPException(422, request_problem(exc.errors())) from exc
        card, scale = run.card, run.view.pack.scale
        return page(
            request,
            "run.html",
            {
                "run": detail,
                "card": card,
                "chart": MeansChart.of(card, float(scale.min), float(scale.max)),
                "models": sorted({row.model for row in card.rows}),
                "variants": sorted({row.variant for row in card.rows}),
                "configs": gui.judge_configs(detail["jobs"]),
                "scale": scale,
                # Only a run with verdicts compares: without, the form would end in a 422.
                "baselines": (
                    baselines(gui, name, run.view.pack.id) if judged(gui.runs_dir / name) else None
                ),
                **dict(zip(("human", "human_problem"), human_view(run), strict=True)),
            },
        )

    @app.get("/runs/{name}/rate", response_class=HTMLResponse)
    def rate_page(
        request: Request,
        name: str,
        rater: Annotated[str, Query(max_length=MAX_RATER)] = "",
        n: Annotated[int, Query(ge=1, le=MAX_SAMPLE)] = DEFAULT_SAMPLE,
        after: Annotated[int, Query(ge=0)] = 0,
    ) -> Response:
        """ "Stichprobe bewerten": the next cell of the rater's blind sample."""
        context = rate_context(gui.loaded(name), name, rater_or_default(rater), n, after)
        return page(request, "rate.html", context)

    @app.get("/runs/{name}/compare")
    def compare_choice(name: str, baseline: str = "") -> Response:
        """The run page's "Vergleichen mit …" form lands here; the comparison's own URL."""
        if not baseline:
            raise HTTPException(422, "Bitte einen Run zum Vergleichen wählen.")
        target = f"/runs/{quote(name, safe='')}/compare/{quote(baseline, safe='')}"
        return RedirectResponse(target, status_code=303)

    @app.get("/runs/{name}/compare/{baseline}", response_class=HTMLResponse)
    def compare_page(
        request: Request, name: str, baseline: str, query: Annotated[CellQuery, Query()]
    ) -> Response:
        context = comparison_context(gui, name, baseline, query)
        return page(request, "compare.html", context, 422 if context["error"] else 200)

    @app.get("/runs/{name}/prompts/{prompt_id}", response_class=HTMLResponse)
    def prompt_page(request: Request, name: str, prompt_id: str) -> Response:
        loaded = gui.loaded(name)
        detail = prompt_detail(loaded, prompt_id)
        if detail is None:
            raise HTTPException(404, f"Unbekannter Prompt: {prompt_id}")
        # The same replies in the terminal (design.md §26), the run dir's path quoted.
        show = started.command(f"show {shlex.quote(str(loaded.view.run_dir.path))} {prompt_id}")
        return page(request, "prompt.html", {"run": {"name": name}, "show": show, **detail})

    @app.get("/runs/{name}/report.html", response_class=HTMLResponse)
    def report(name: str) -> Response:
        """The report of the run as it is now, rendered from its data: never the run dir's
        report.html (someone else's file, or a link to anywhere)."""
        return HTMLResponse(gui.report(name), headers={"Content-Security-Policy": REPORT_POLICY})

    @app.get("/favicon.svg")
    @app.get("/favicon.ico")
    def favicon() -> Response:
        return Response(FAVICON, media_type="image/svg+xml")

    # -- API ------------------------------------------------------------------------------
    @app.get("/api/runs")
    def api_runs() -> list[dict[str, Any]]:
        return gui.runs()

    @app.get("/api/runs/{name}")
    def api_run(name: str) -> dict[str, Any]:
        return gui.run_detail(name)[0]

    def checked(name: str, query: VerdictQuery) -> LoadedRun:
        """The run, if ``query`` can select anything from it: a filter that can keep nothing
        says why (422), not "0 Bewertungen" nor a CSV of nothing."""
        run = gui.loaded(name)
        scale = run.view.pack.scale
        problem = query.score_problem(scale.min, scale.max)
        if problem:
            raise HTTPException(422, problem)
        return run

    @app.get("/api/runs/{name}/verdicts")
    def api_verdicts(name: str, query: Annotated[VerdictQuery, Query()]) -> dict[str, Any]:
        return verdict_page(checked(name, query), query)

    @app.get("/api/runs/{name}/comparisons")
    def api_comparisons(name: str, query: Annotated[ComparisonQuery, Query()]) -> dict[str, Any]:
        return comparison_page(gui.loaded(name).card, query)

    @app.get("/api/runs/{name}/compare/{baseline}")
    def api_compare(
        name: str, baseline: str, pair: Annotated[list[str] | None, Query()] = None
    ) -> dict[str, Any]:
        return comparison_json(gui, name, baseline, pair or [])

    @app.get("/api/runs/{name}/verdicts.csv")
    def api_verdicts_csv(name: str, query: Annotated[VerdictQuery, Query()]) -> Response:
        """The verdicts the table's filters select (all without a filter), as CSV."""
        run = checked(name, query)
        filtered = query.model_dump(include=set(FILTER_FIELDS), exclude_defaults=True)
        # Unfiltered: the file `report` writes; filtered: the rows as the table sorts them.
        lines = (
            verdict_csv_lines(selected_verdicts(run, query), run.view.responses, run.view.pack)
            if filtered
            else verdict_csv_file(run.view)
        )
        file_name = f"{name}-verdicts{'-gefiltert' if filtered else ''}.csv"
        return StreamingResponse(
            lines,
            media_type="text/csv; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="{file_name}"'},
        )

    @app.get("/api/runs/{name}/prompts/{prompt_id}")
    def api_prompt(name: str, prompt_id: str) -> dict[str, Any]:
        detail = prompt_detail(gui.loaded(name), prompt_id)
        if detail is None:
            raise HTTPException(404, f"Unbekannter Prompt: {prompt_id}")
        return detail

    @app.post("/api/runs/{name}/ratings", status_code=201)
    async def api_rate(name: str, request: Request) -> dict[str, Any]:
        return await save_posted(lambda: gui.loaded(name), request)

    app.include_router(job_router(gui))
    app.include_router(cells_router(gui))
    app.include_router(run_router(gui))

    return app
