"""Reading a run back: everything persisted about it, and its ``report.html``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from touchstone.pack import Pack
from touchstone.report import render_report
from touchstone.results import EvalResponse, ModelReport, Verdict
from touchstone.stages.manifest import pack_of_run
from touchstone.store import REPORT_HTML, RunDir, atomic_write_text


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
    pack = pack_of_run(run)
    verdicts = run.load_verdicts()
    run.check_scores(verdicts, pack.scale)
    return RunView(
        run_dir=run,
        pack=pack,
        manifest=run.read_manifest(),
        responses=run.load_responses(),
        verdicts=verdicts,
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
