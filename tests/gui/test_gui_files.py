"""The GUI and what a shared run dir may hold (issue 21): FIFOs in place of files, requests
that would crash a job start, and an overview that does not re-read every pack."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.conftest import coarse
from tests.gui.gui_support import ORIGIN, gui_client, start_gui
from tests.unit.store.fifo_support import make_fifo, needs_fifo, release, within
from touchstone.gui.jobs import JobManager
from touchstone.store import MANIFEST, RESPONSES

JOB_ID = "20260101-000000-abcdef"


def leftovers(workspace: Path) -> list[str]:
    """Everything under runs/ (what a refused request must not add to)."""
    return sorted(str(p.relative_to(workspace)) for p in (workspace / "runs").rglob("*"))


# -- a FIFO in a run dir -----------------------------------------------------------------------


@needs_fifo
@pytest.mark.parametrize("name", [RESPONSES, MANIFEST])
def test_a_run_with_a_fifo_shows_as_damaged_and_the_others_as_usual(
    client: TestClient, workspace: Path, name: str
) -> None:
    shutil.copytree(workspace / "runs" / "tiny", workspace / "runs" / "fifo")
    fifo = make_fifo(workspace / "runs" / "fifo" / name)
    runs = within(5, lambda: client.get("/api/runs").json(), fifo)
    by_name = {run["name"]: run for run in runs}
    assert str(fifo) in by_name["fifo"]["error"]
    assert "keine reguläre Datei" in by_name["fifo"]["error"]
    assert by_name["tiny"]["cells"] == 6 and "error" not in by_name["tiny"]
    response = within(5, lambda: client.get("/api/runs/fifo"), fifo)
    assert response.status_code == 422 and str(fifo) in response.json()["detail"]
    # The load gate of the run is free again: a second look does not block either.
    assert within(5, lambda: client.get("/runs/fifo").status_code, fifo) == 422


@needs_fifo
@pytest.mark.parametrize("suffix", [".json", ".events"])
def test_a_fifo_among_the_job_files_is_a_message_not_a_hang(
    client: TestClient, workspace: Path, suffix: str
) -> None:
    jobs = workspace / "runs" / "tiny" / "jobs"
    jobs.mkdir()
    record = {"id": JOB_ID, "run": "tiny", "command": [], "state": "done", "exit_code": 0}
    (jobs / f"{JOB_ID}.json").write_text(json.dumps(record), encoding="utf-8")
    fifo = make_fifo(jobs / f"{JOB_ID}{suffix}")
    (summary,) = within(5, lambda: client.get("/api/runs").json(), fifo)
    assert summary["cells"] == 6
    assert "keine reguläre Datei" in summary["last_job"]["message"]
    response = within(5, lambda: client.get(f"/api/jobs/{JOB_ID}"), fifo)
    assert response.status_code == 422 and str(fifo) in response.json()["detail"]


@needs_fifo
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_a_gui_asked_to_stop_stops_with_a_fifo_run(workspace: Path, stop: signal.Signals) -> None:
    fifo = make_fifo(workspace / "runs" / "tiny" / RESPONSES)
    proc = start_gui(workspace, api_key=None)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().split()[1]
        answers: list[object] = []

        def overview() -> None:
            with urllib.request.urlopen(url + "api/runs", timeout=20) as response:
                answers.append(json.loads(response.read()))

        threading.Thread(target=overview, daemon=True).start()
        deadline = time.monotonic() + coarse(2)
        while not answers and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.send_signal(stop)
        try:
            proc.wait(timeout=coarse(3))
        except subprocess.TimeoutExpired:
            raise AssertionError(f"the GUI does not stop on {stop.name}") from None
        assert answers and "keine reguläre Datei" in answers[0][0]["error"]  # type: ignore[index]
    finally:
        release(fifo)
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)


# -- requests that would crash a job start -----------------------------------------------------

ENGLISH = ("should", "Field required", "Input", "Value error", "valid", "JSON decode")


def german(detail: object) -> str:
    assert isinstance(detail, str), detail
    assert not any(word in detail for word in ENGLISH), detail
    return detail


RUN = {
    "name": "neu",
    "pack": "packs/tiny.yaml",
    "base_url": "http://127.0.0.1:9/v1",
    "models": ["sim-gut"],
    "variants": ["none"],
}


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"models": ["sim\x00gut"]}, "models[0]"),
        ({"models": ["x" * 200_000]}, "models[0]"),
        ({"models": ["\x1b[2Jsim-gut"]}, "models[0]"),
        ({"pack": "packs/tiny\x00.yaml"}, "pack"),
        ({"pack": "p" * 300 + ".yaml"}, "Paket"),
        ({"variants": ["no\x00ne"]}, "variants[0]"),
        ({"base_url": "http://127.0.0.1:9/v1\x00"}, "base_url"),
    ],
)
def test_a_run_request_with_nul_control_chars_or_a_huge_name_is_a_german_4xx(
    client: TestClient, workspace: Path, change: dict, field: str
) -> None:
    before = leftovers(workspace)
    response = client.post("/api/runs", json={**RUN, **change}, headers=ORIGIN)
    assert 400 <= response.status_code < 500, response.text[:300]
    detail = german(response.json()["detail"])
    assert f"„{field}“" in detail or detail.startswith(field)
    assert leftovers(workspace) == before and not (workspace / "runs" / "neu").exists()


@pytest.mark.parametrize("command", ["judge", "judge-check"])
@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"config": "judge-gut\x00.yaml"}, "config"),
        ({"config": "j" * 300 + ".yaml"}, "Judge-Konfiguration"),
        ({"config": "judge-gut.yaml", "model": "sim\x00judge"}, "model"),
        ({"config": "judge-gut.yaml", "model": "x" * 200_000}, "model"),
        ({"config": "judge-gut.yaml", "model": "sim-judge\n"}, "model"),
    ],
)
def test_a_judge_request_with_nul_or_a_huge_model_is_a_german_4xx(
    client: TestClient, workspace: Path, command: str, body: dict, field: str
) -> None:
    before = leftovers(workspace)
    response = client.post(f"/api/runs/tiny/{command}", json=body, headers=ORIGIN)
    assert 400 <= response.status_code < 500, response.text[:300]
    detail = german(response.json()["detail"])
    assert f"„{field}“" in detail or detail.startswith(field)
    assert leftovers(workspace) == before


@pytest.mark.parametrize(
    ("request_args", "words"),
    [
        (("get", "/api/runs/tiny/verdicts", {"params": {"limit": 100000}}), "„limit“"),
        (("get", "/api/runs/tiny/verdicts", {"params": {"sort": "rationale__"}}), "„sort“"),
        (("get", "/api/runs/tiny/verdicts", {"params": {"min": "drei"}}), "„min“"),
        (("post", "/api/runs/tiny/judge", {"json": {}}), "„config“"),
        (("post", "/api/runs/tiny/judge", {"json": {"config": "j.yaml", "x": 1}}), "„x“"),
        (("post", "/api/runs/tiny/judge", {"content": b"{kein json"}), "JSON"),
        (("post", "/api/runs", {"json": {**RUN, "repeats": 0}}), "„repeats“"),
        (("post", "/api/runs", {"json": {**RUN, "models": []}}), "„models“"),
    ],
)
def test_bad_query_parameters_and_bodies_get_a_german_422(
    client: TestClient, request_args: tuple, words: str
) -> None:
    method, url, kwargs = request_args
    headers = {**ORIGIN, "Content-Type": "application/json"}
    response = getattr(client, method)(url, headers=headers, **kwargs)
    assert response.status_code == 422
    assert words in german(response.json()["detail"])


def test_a_job_that_cannot_start_leaves_no_run_behind(workspace: Path) -> None:
    jobs = JobManager(workspace / "runs", workspace, python=str(workspace / "kein-python"))
    before = leftovers(workspace)
    with gui_client(workspace, jobs=jobs) as client:
        response = client.post("/api/runs", json=RUN, headers=ORIGIN)
        assert response.status_code == 500
        assert "nicht gestartet" in german(response.json()["detail"])
        judge = {"config": "judge-gut.yaml"}
        assert client.post("/api/runs/tiny/judge", json=judge, headers=ORIGIN).status_code == 500
    assert leftovers(workspace) == before


# -- the overview at scale ---------------------------------------------------------------------


def test_a_repeat_overview_parses_no_pack_again(
    client: TestClient, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from touchstone.stages.run import manifest
    from touchstone.stages.view import load_run, write_scorecard

    runs = workspace / "runs"
    shutil.copytree(runs / "tiny", runs / "zweite")  # no scorecard.json: read from its files
    view = load_run(runs / "tiny")
    write_scorecard(view.run_dir, view.scorecard())  # scorecard.json: the overview reads that
    parsed: list[object] = []
    load_pack = manifest.load_pack

    def counting(path):  # type: ignore[no-untyped-def]
        parsed.append(path)
        return load_pack(path)

    monkeypatch.setattr(manifest, "load_pack", counting)
    first = client.get("/api/runs").json()
    assert len(parsed) >= 2 and [r["expected"] for r in first] == [6, 6]
    parsed_first = len(parsed)
    again = client.get("/api/runs").json()
    assert len(parsed) == parsed_first and again == first
    # A pack that changed is read again (it could have more prompts now).
    pack = workspace / "packs" / "tiny.yaml"
    pack.write_text(pack.read_text(encoding="utf-8") + "# geändert\n", encoding="utf-8")
    before = len(parsed)
    assert client.get("/api/runs").json() == first and len(parsed) > before
