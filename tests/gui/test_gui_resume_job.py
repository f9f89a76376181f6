"""„Fortsetzen“ starts a cancelled or incomplete job again with one click (issue 36): the GUI
rebuilds the job from its sentinel's command through the checks of the form that started it,
and the CLI goes on where the job stopped. Through the API (real CLI jobs against the
simulator) and in headless Chromium at 1280 and 390 px (screenshots in tests/artifacts/)."""

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.gui.gui_support import (
    ORIGIN,
    finished,
    job_state,
    screenshot,
    start_job,
    wait_for,
    workspace_run,
)
from touchstone.sim import SimServer


def started(client: TestClient, job: str) -> None:
    wait_for(lambda: job_state(client, job)["progress"]["started"])


def cancelled(client: TestClient, job: str) -> dict[str, Any]:
    started(client, job)
    assert client.post(f"/api/jobs/{job}/cancel", headers=ORIGIN).json() == {"cancelled": True}
    state = finished(client, job)
    assert state["state"] == "cancelled", state
    return state


def hanging_run(client: TestClient, sim: SimServer) -> str:
    """A run job on the workspace's run that waits for ever on a model that never answers."""
    body = workspace_run(sim.base_url, models=["sim-gut", "sim-schwach", "sim-hang"], extend=True)
    reply = client.post("/api/runs", json=body, headers=ORIGIN)
    assert reply.status_code == 202, reply.text
    return str(reply.json()["job"])


def resume(client: TestClient, job: str) -> Any:
    return client.post(f"/api/jobs/{job}/resume", headers=ORIGIN)


def test_a_cancelled_run_job_is_resumed_with_the_same_command(
    client: TestClient, sim: SimServer
) -> None:
    old = cancelled(client, hanging_run(client, sim))
    assert "resume" in old["actions"]
    reply = resume(client, old["id"])
    assert reply.status_code == 202, reply.text
    new = job_state(client, reply.json()["job"])
    assert new["run"] == "tiny" and new["id"] != old["id"]
    # The same job, its events in a file of its own.
    assert new["command"][:-1] == old["command"][:-1] and new["command"][-1] != old["command"][-1]
    # One job of a run at a time: the old one again while the new one runs is refused.
    busy = resume(client, old["id"])
    assert busy.status_code == 409 and "läuft schon ein Job" in busy.json()["detail"]
    cancelled(client, new["id"])


def test_a_cancelled_judge_job_is_resumed_and_a_done_one_is_not(client: TestClient) -> None:
    job = start_job(client, "/api/runs/tiny/judge", "judge-haengt.yaml")
    old = cancelled(client, job)
    new = resume(client, old["id"]).json()["job"]
    assert job_state(client, new)["command"][:-1] == old["command"][:-1]
    cancelled(client, new)
    done = finished(client, start_job(client, "/api/runs/tiny/judge", "judge-gut.yaml"))
    assert done["state"] == "done" and "resume" not in done["actions"]
    refused = resume(client, done["id"])
    assert refused.status_code == 409 and "nicht fortsetzen" in refused.json()["detail"]
    assert resume(client, "20260101-000000-abcdef").status_code == 404
    # A POST from another origin starts nothing.
    assert client.post(f"/api/jobs/{old['id']}/resume").status_code == 403


@pytest.mark.parametrize("page", [1280, 390], indirect=True)
def test_the_run_page_resumes_a_cancelled_run_job_with_one_click(
    page: Any, client: TestClient, sim: SimServer
) -> None:
    from playwright.sync_api import expect

    old = cancelled(client, hanging_run(client, sim))
    page.goto("/runs/tiny")
    box = page.locator("#current-job")
    expect(page.get_by_test_id("job-state")).to_have_text("abgebrochen")
    expect(box).to_contain_text("„Fortsetzen“ holt die offenen Zellen nach")
    screenshot(page, "run-page-cancelled-run-job")
    box.locator("[data-action=resume]").click()
    expect(page.get_by_test_id("job-state")).to_have_text("läuft")
    new = page.locator("#jobs-list [data-job-line]").first.get_attribute("data-job-line")
    assert new and new != old["id"]
    page.get_by_test_id("cancel-job").click()
    expect(page.get_by_test_id("job-state")).to_have_text("abgebrochen", timeout=20_000)
