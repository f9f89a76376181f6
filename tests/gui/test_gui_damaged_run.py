"""A run dir someone shared with an integer too long for Python (issue 35): it is shown as
damaged, its row and its pages, and every other page stays as it was. Its in-process part:
``tests/unit/test_jsontext.py`` and ``tests/unit/test_huge_integers.py``."""

from __future__ import annotations

import shutil
from pathlib import Path

from fastapi.testclient import TestClient

from touchstone.judge.config import JudgeConfig, JudgeEndpoint
from touchstone.sim import SimServer
from touchstone.stages.judge.judge import execute_judge
from touchstone.store import MANIFEST

# One digit more than Python converts to an int.
HUGE = "7" * 4301
JOB = "20261201-000000-abcd"


def _damaged_copy(workspace: Path, name: str) -> Path:
    """A copy of the workspace's run whose run.json holds ``HUGE`` as its max_tokens."""
    copy = workspace / "runs" / name
    shutil.copytree(workspace / "runs" / "tiny", copy)
    text = (copy / MANIFEST).read_text(encoding="utf-8")
    (copy / MANIFEST).write_text(text.replace("{", f'{{"max_tokens": {HUGE},', 1), "utf-8")
    return copy


def test_a_run_json_with_a_huge_integer_spoils_its_own_run_only(
    client: TestClient, workspace: Path, sim: SimServer
) -> None:
    # Judged: the run page then lists the other runs of its pack to compare with.
    execute_judge(
        workspace / "runs" / "tiny", config=JudgeConfig(JudgeEndpoint(sim.base_url), "sim-judge")
    )
    damaged = _damaged_copy(workspace, "kaputt")
    said = f"{damaged / MANIFEST}: kein gültiges JSON: eine Zahl mit mehr als 4300 Ziffern"
    overview = client.get("/")
    assert overview.status_code == 200 and said in overview.text
    runs = {run["name"]: run for run in client.get("/api/runs").json()}
    assert said in runs["kaputt"]["error"] and "error" not in runs["tiny"]
    page = client.get("/runs/tiny")
    assert page.status_code == 200 and "kein anderer bewerteter Run" in page.text
    assert client.get("/api/runs/tiny").status_code == 200
    for page in ("/runs/kaputt", "/api/runs/kaputt"):
        response = client.get(page)
        assert response.status_code == 422 and said in response.text


def test_a_job_file_or_events_file_with_a_huge_integer_is_named_in_german(
    client: TestClient, workspace: Path
) -> None:
    jobs = workspace / "runs" / "tiny" / "jobs"
    jobs.mkdir(exist_ok=True)
    (jobs / f"{JOB}.json").write_text('{"state": "done", "exit_code": 0}', encoding="utf-8")
    (jobs / f"{JOB}.events").write_text(
        f'{{"event": "progress", "done": {HUGE}}}\n{{"event": "done"}}\n', encoding="utf-8"
    )
    job = client.get(f"/api/jobs/{JOB}")
    assert job.status_code == 200 and job.json()["state"] == "done"
    (jobs / f"{JOB}.json").write_text(f'{{"exit_code": {HUGE}}}', encoding="utf-8")
    said = "ist kein gültiges JSON: eine Zahl mit mehr als 4300 Ziffern (Zeile 1, Spalte 15)"
    job = client.get(f"/api/jobs/{JOB}")
    assert job.status_code == 422 and said in job.json()["detail"]
    listed = client.get("/api/runs/tiny").json()["jobs"]
    assert said in listed[0]["message"] and "Exceeds" not in listed[0]["message"]
