"""The GUI's JSON API and guards through FastAPI's TestClient; jobs are real CLI processes."""

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from touchstone.gui.app import create_app
from touchstone.gui.jobs import JobManager
from touchstone.sim import SimServer

from .gui_support import make_workspace, wait_for

PORT = 8642
ORIGIN = {"Origin": f"http://127.0.0.1:{PORT}"}
SECRET = "sk-test-geheim-4711"


@pytest.fixture
def workspace(tmp_path: Path, sim: SimServer) -> Path:
    return make_workspace(tmp_path, sim)


@pytest.fixture
def client(workspace: Path) -> Iterator[TestClient]:
    env = {"OPENAI_API_KEY": SECRET, "PATH": "", "TOUCHSTONE_CACHE_DIR": str(workspace / "cache")}
    jobs = JobManager(workspace / "runs", workspace, child_env=env)
    app = create_app(workspace / "runs", workdir=workspace, port=PORT, jobs=jobs)
    with TestClient(app, base_url=f"http://127.0.0.1:{PORT}") as test_client:
        yield test_client


def job_state(client: TestClient, job: str) -> dict:
    return client.get(f"/api/jobs/{job}").json()


def finished(client: TestClient, job: str):  # type: ignore[no-untyped-def]
    return wait_for(lambda: (s := job_state(client, job))["state"] != "running" and s)


def test_lists_runs_and_shows_scorecard(client: TestClient) -> None:
    runs = client.get("/api/runs").json()
    assert [(r["name"], r["cells"], r["judged"]) for r in runs] == [("tiny", 6, 0)]
    detail = client.get("/api/runs/tiny").json()
    assert {row["model"] for row in detail["scorecard"]["rows"]} == {"sim-gut", "sim-schwach"}
    assert detail["scorecard"]["rows"][0]["open"] == 3
    page = client.get("/runs/tiny")
    assert page.status_code == 200 and "Scorecard" in page.text and "judge-gut.yaml" in page.text
    assert client.get("/").status_code == 200


@pytest.mark.parametrize("name", ["nope", "..", "...", ".hidden", "tiny%2F..", "%2e%2e"])
def test_unknown_or_escaping_run_names_are_404(client: TestClient, name: str) -> None:
    assert client.get(f"/api/runs/{name}").status_code == 404


def test_foreign_host_and_missing_origin_are_forbidden(client: TestClient) -> None:
    assert client.get("/api/runs", headers={"Host": "evil.example"}).status_code == 403
    assert client.get("/api/runs", headers={"Host": f"127.0.0.1:{PORT + 1}"}).status_code == 403
    body = {"config": "judge-gut.yaml"}
    assert client.post("/api/runs/tiny/judge", json=body).status_code == 403
    evil = {"Origin": "http://evil.example"}
    assert client.post("/api/runs/tiny/judge", json=body, headers=evil).status_code == 403
    assert client.get("/api/runs", headers={"Host": f"localhost:{PORT}"}).status_code == 200


@pytest.mark.parametrize("config", ["../judge-gut.yaml", "/etc/passwd", "fehlt.yaml"])
def test_config_must_be_a_file_inside_the_working_dir(client: TestClient, config: str) -> None:
    response = client.post("/api/runs/tiny/judge", json={"config": config}, headers=ORIGIN)
    assert response.status_code == 400


def test_judge_job_sentinel_goes_from_running_to_done(client: TestClient, workspace: Path) -> None:
    response = client.post(
        "/api/runs/tiny/judge", json={"config": "judge-gut.yaml"}, headers=ORIGIN
    )
    assert response.status_code == 202
    job = response.json()["job"]
    sentinel = workspace / "runs" / "tiny" / "jobs" / f"{job}.json"
    assert json.loads(sentinel.read_text(encoding="utf-8"))["state"] in ("running", "done")
    state = finished(client, job)
    assert (state["state"], state["exit_code"]) == ("done", 0)
    assert state["progress"]["done"] == 6 and state["progress"]["health"]["calls"] == 8
    assert json.loads(sentinel.read_text(encoding="utf-8"))["state"] == "done"
    assert client.get("/api/runs").json()[0]["judged"] == 6
    assert client.get("/api/runs").json()[0]["last_job"]["state"] == "done"


def test_runaway_judge_job_fails_with_the_message(client: TestClient) -> None:
    job = client.post(
        "/api/runs/tiny/judge", json={"config": "judge-runaway.yaml"}, headers=ORIGIN
    ).json()["job"]
    state = finished(client, job)
    assert (state["state"], state["exit_code"]) == ("failed", 1)
    assert state["message"].startswith("Judge abgebrochen:")
    assert state["progress"]["errors"] == 2 and state["progress"]["streak"] == 2


def test_cancel_ends_a_job_as_cancelled(client: TestClient) -> None:
    job = client.post(
        "/api/runs/tiny/judge", json={"config": "judge-haengt.yaml"}, headers=ORIGIN
    ).json()["job"]
    wait_for(lambda: job_state(client, job)["progress"]["stage"] == "judge")
    assert client.post(f"/api/jobs/{job}/cancel", headers=ORIGIN).json() == {"cancelled": True}
    state = finished(client, job)
    assert (state["state"], state["exit_code"]) == ("cancelled", 143)


def test_job_whose_process_vanished_is_failed(client: TestClient, workspace: Path) -> None:
    jobs = workspace / "runs" / "tiny" / "jobs"
    jobs.mkdir()
    record = {
        "id": "20260101-000000-abcdef",
        "run": "tiny",
        "command": ["-m", "touchstone", "judge"],
        "state": "running",
        "exit_code": None,
        "message": "",
        "pid": 2**22 + 12345,
    }
    (jobs / "20260101-000000-abcdef.json").write_text(json.dumps(record), encoding="utf-8")
    state = job_state(client, "20260101-000000-abcdef")
    assert state["state"] == "failed" and "Prozess verschwunden" in state["message"]
    assert client.get("/api/jobs/unbekannt").status_code == 404


def test_start_a_run_job_and_no_api_key_reaches_browser_or_log(
    client: TestClient, workspace: Path, sim: SimServer
) -> None:
    body = {
        "name": "neu",
        "pack": "packs/tiny.yaml",
        "base_url": sim.base_url,
        "models": ["sim-gut"],
        "variants": ["none"],
    }
    response = client.post("/api/runs", json=body, headers=ORIGIN)
    assert response.status_code == 202
    state = finished(client, response.json()["job"])
    assert state["state"] == "done", state
    assert client.get("/api/runs/neu").json()["scorecard"]["rows"][0]["cells"] == 3
    assert (
        client.post("/api/runs", json={**body, "name": "../x"}, headers=ORIGIN).status_code == 400
    )
    seen = [client.get(url).text for url in ("/", "/runs/neu", "/api/runs", "/api/runs/neu")]
    seen.append(json.dumps(state))
    seen += [p.read_text(encoding="utf-8") for p in (workspace / "runs").rglob("*") if p.is_file()]
    assert not any(SECRET in text for text in seen)
