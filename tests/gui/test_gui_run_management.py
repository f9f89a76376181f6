"""Run management in the GUI (issue 36): a note per run, archive and restore, delete; never
while a job of the run runs (409), never without this GUI's Origin, names through the path
guards. Through the API and in headless Chromium at 1280 and 390 px (screenshots in
tests/artifacts/)."""

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.gui.gui_support import ORIGIN, finished, job_state, screenshot, start_job, wait_for
from touchstone.store.shelf import NOTE


def test_a_note_is_kept_in_the_run_dir_and_shown(client: TestClient, workspace: Path) -> None:
    reply = client.put("/api/runs/tiny/note", json={"text": "Basis für <b>Q3</b>"}, headers=ORIGIN)
    assert reply.status_code == 200, reply.text
    assert (workspace / "runs" / "tiny" / NOTE).read_text(encoding="utf-8") == "Basis für <b>Q3</b>"
    assert "Basis für &lt;b&gt;Q3&lt;/b&gt;" in client.get("/").text
    assert "Basis für &lt;b&gt;Q3&lt;/b&gt;" in client.get("/runs/tiny").text
    too_long = client.put("/api/runs/tiny/note", json={"text": "x" * 2001}, headers=ORIGIN)
    assert too_long.status_code == 422
    assert client.put("/api/runs/tiny/note", json={"text": ""}, headers=ORIGIN).status_code == 200
    assert not (workspace / "runs" / "tiny" / NOTE).exists()


def test_an_archived_run_is_listed_apart_and_restored(client: TestClient, workspace: Path) -> None:
    assert client.post("/api/runs/tiny/archive", headers=ORIGIN).json() == {"archived": "tiny"}
    assert (workspace / "runs" / ".archiv" / "tiny" / "run.json").is_file()
    assert [run["name"] for run in client.get("/api/runs").json()] == []
    assert client.get("/api/archive").json() == ["tiny"]
    assert client.get("/runs/tiny").status_code == 404
    assert 'data-archived="tiny"' in client.get("/").text
    reply = client.post("/api/archive/tiny/restore", headers=ORIGIN)
    assert reply.json() == {"restored": "tiny"}
    assert client.get("/runs/tiny").status_code == 200


@pytest.mark.parametrize("name", ["..", ".archiv", "nope", "%2e%2e"])
def test_management_takes_only_runs_of_the_runs_dir(client: TestClient, name: str) -> None:
    assert client.delete(f"/api/runs/{name}", headers=ORIGIN).status_code == 404
    assert client.post(f"/api/archive/{name}/restore", headers=ORIGIN).status_code == 404


def test_no_run_goes_while_its_job_runs_nor_without_the_origin(
    client: TestClient, workspace: Path
) -> None:
    assert client.delete("/api/runs/tiny").status_code == 403
    job = start_job(client, "/api/runs/tiny/judge", "judge-haengt.yaml")
    wait_for(lambda: job_state(client, job)["progress"]["started"])
    for reply in (
        client.delete("/api/runs/tiny", headers=ORIGIN),
        client.post("/api/runs/tiny/archive", headers=ORIGIN),
    ):
        assert reply.status_code == 409 and "läuft ein Job" in reply.json()["detail"]
    client.post(f"/api/jobs/{job}/cancel", headers=ORIGIN)
    finished(client, job)
    assert client.delete("/api/runs/tiny", headers=ORIGIN).json() == {"deleted": "tiny"}
    assert not (workspace / "runs" / "tiny").exists()


@pytest.mark.parametrize("page", [1280, 390], indirect=True)
def test_the_pages_archive_restore_and_delete_a_run(page: Any, workspace: Path) -> None:
    from playwright.sync_api import expect

    page.goto("/runs/tiny")
    page.get_by_test_id("note").fill("Basislauf vor dem Update")
    page.get_by_test_id("save-note").click()
    expect(page.get_by_test_id("note-state")).to_have_text("gespeichert")
    screenshot(page, "run-page-management")
    overview = page.url.split("/runs/")[0] + "/"
    page.get_by_test_id("archive-run").click()
    expect(page).to_have_url(overview)
    archive = page.get_by_test_id("archive")
    expect(archive).to_contain_text("tiny")
    expect(archive).to_contain_text("Basislauf vor dem Update")
    screenshot(page, "overview-archive")
    archive.locator("[data-restore=tiny]").click()
    expect(page.get_by_test_id("runs")).to_contain_text("tiny")
    # Deleting asks first; "Abbrechen" keeps the run.
    page.goto("/runs/tiny")
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.get_by_test_id("delete-run").click()
    expect(page.get_by_test_id("delete-run")).to_be_visible()
    assert (workspace / "runs" / "tiny").is_dir()
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_test_id("delete-run").click()
    expect(page.get_by_text("Noch keine Runs.")).to_be_visible()
    assert not (workspace / "runs" / "tiny").exists()


def test_a_run_without_answers_is_deleted_with_one_click(page: Any, client: TestClient) -> None:
    from playwright.sync_api import expect

    body = {"name": "leer", "pack": "packs/tiny.yaml", "base_url": "http://127.0.0.1:9/v1"}
    job = client.post("/api/runs", json={**body, "models": ["m"]}, headers=ORIGIN).json()["job"]
    finished(client, job)
    page.reload()
    row = page.get_by_test_id("runs").locator("tr", has_text="leer")
    row.locator("[data-delete=leer]").click()  # no question: there is nothing to lose
    expect(page.get_by_test_id("runs").locator("tr", has_text="leer")).to_have_count(0)
