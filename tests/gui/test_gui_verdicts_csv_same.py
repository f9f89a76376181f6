"""The GUI's download of the whole verdict table is the file `report` writes (issue 36): the
same columns (category title, task) and the same rows in the pack's order; the CLI wrote them in
completion order, the GUI's download started at A1. In-process part:
``tests/unit/store/test_verdicts_csv_order.py``."""

from __future__ import annotations

from pathlib import Path

from tests.gui.gui_support import gui_client
from tests.gui.test_german_output import judged_workspace
from touchstone.gui.jobs import JobManager
from touchstone.stages.view import load_run, write_report

__all__ = ["judged_workspace"]  # a fixture, used by name


def test_the_gui_download_is_the_file_report_writes(judged_workspace: Path) -> None:
    run = judged_workspace / "runs" / "tiny"
    path = run / "judgements.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(True)
    path.write_text("".join(reversed(lines)), encoding="utf-8")  # calls come back in any order
    (run / "judge-state.json").unlink(missing_ok=True)
    jobs = JobManager(judged_workspace / "runs", judged_workspace)
    with gui_client(judged_workspace, jobs=jobs) as client:
        downloaded = client.get("/api/runs/tiny/verdicts.csv").content
    view = load_run(run)
    write_report(view, view.scorecard())
    assert downloaded == (run / "verdicts.csv").read_bytes()
    assert b"Kategorietitel" in downloaded and b"Was sind 19 %" in downloaded
