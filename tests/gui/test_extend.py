"""An existing run is never changed silently: resume, extend on request, or refuse (#23 design.md
§3).

Here the tests through the GUI (FastAPI's TestClient or headless Chromium); the in-process ones
are in ``tests/unit/stages/test_extend.py``."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.gui.gui_support import (
    ORIGIN,
    finished,
    gui_client,
    job_manager,
    make_workspace,
    workspace_run,
)
from tests.unit.stages.test_extend import manifest
from touchstone.sim import SimServer
from touchstone.stages.run.run import execute_run
from touchstone.store import RunDir


@pytest.fixture
def client(tmp_path: Path, sim: SimServer) -> Iterator[TestClient]:
    workspace = make_workspace(tmp_path, sim)
    env = {"OPENAI_API_KEY": "sk-x", "PATH": "", "TOUCHSTONE_CACHE_DIR": str(tmp_path / "c")}
    with gui_client(workspace, jobs=job_manager(workspace, env)) as test_client:
        yield test_client


def test_gui_refuses_a_conflicting_run_with_409_and_extends_when_ticked(
    client: TestClient, sim: SimServer, tmp_path: Path
) -> None:
    # The workspace's run "tiny": sim-gut and sim-schwach, variant none, one repeat.
    body = workspace_run(sim.base_url, repeats=2)
    refused = client.post("/api/runs", json=body, headers=ORIGIN)
    assert refused.status_code == 409
    detail = refused.json()["detail"]
    assert "Wiederholungen: gespeichert 1, verlangt 2" in detail
    # The GUI names its own checkbox, not a CLI option.
    assert "Run erweitern" in detail and "--extend" not in detail
    run = tmp_path / "runs" / "tiny"
    assert manifest(run)["repeats"] == 1 and not (run / "jobs").exists()

    started = client.post("/api/runs", json={**body, "extend": True}, headers=ORIGIN)
    assert started.status_code == 202
    job = started.json()["job"]
    state = finished(client, job)
    assert state["state"] == "done", state
    assert manifest(run)["repeats"] == 2
    assert len(RunDir(run).load_responses()) == 12
    resumed = client.post("/api/runs", json={**body, "models": ["sim-gut"]}, headers=ORIGIN)
    assert resumed.status_code == 202


def test_gui_resumes_a_run_with_its_answer_cap(
    client: TestClient, sim: SimServer, tmp_path: Path
) -> None:
    pack = tmp_path / "packs" / "tiny.yaml"
    out = tmp_path / "runs" / "gedeckelt"
    asked = {"models": ["sim-gut"], "variants": ["none"], "base_url": sim.base_url}
    execute_run(pack_path=pack, out=out, max_tokens=64, **asked)
    body = {"name": "gedeckelt", "pack": "packs/tiny.yaml", **asked}
    response = client.post("/api/runs", json=body, headers=ORIGIN)
    assert response.status_code == 202, response.text
    job = response.json()["job"]
    state = finished(client, job)
    assert state["state"] == "done", state
    assert manifest(out)["max_tokens"] == 64


def test_run_form_has_the_extend_checkbox(client: TestClient) -> None:
    page = client.get("/").text
    assert 'name="extend"' in page and "Run erweitern" in page
