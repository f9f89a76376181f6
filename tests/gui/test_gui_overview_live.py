"""The overview refreshes its list of runs live while jobs run (issue 36), without reloading
the page: what the user typed into the form and where the page was scrolled stay. Headless
Chromium at 1280 and 390 px; screenshots in tests/artifacts/."""

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.gui.gui_support import (
    ORIGIN,
    fill_run_form,
    finished,
    job_state,
    screenshot,
    start_job,
    wait_for,
)
from touchstone.sim import SimServer


@pytest.mark.parametrize("page", [1280, 390], indirect=True)
def test_the_overview_shows_a_run_job_end_live_and_keeps_the_form(
    page: Any, sim: SimServer
) -> None:
    from playwright.sync_api import expect

    page.evaluate("window.__same_page = true")
    fill_run_form(page, "neu", sim.base_url, "sim-gut", "none")
    page.get_by_test_id("start-run").click()
    row = page.get_by_test_id("runs").locator("tr", has_text="neu")
    expect(row.get_by_test_id("last-job")).to_contain_text("läuft", timeout=20_000)
    # The user types on while the job runs.
    page.locator("#run-form [name=name]").fill("naechster")
    expect(row).to_contain_text("3 / 3", timeout=30_000)
    expect(row.get_by_test_id("last-job")).to_contain_text("fertig")
    assert page.evaluate("window.__same_page") is True  # no reload
    expect(page.locator("#run-form [name=name]")).to_have_value("naechster")
    screenshot(page, "overview-live")


def test_the_overview_follows_a_job_it_found_running_until_it_ends(
    page: Any, client: TestClient
) -> None:
    from playwright.sync_api import expect

    job = start_job(client, "/api/runs/tiny/judge", "judge-haengt.yaml")
    wait_for(lambda: job_state(client, job)["progress"]["started"])
    page.reload()
    page.evaluate("window.__same_page = true")
    page.evaluate("window.scrollTo(0, 200)")
    cell = page.get_by_test_id("runs").locator("tr", has_text="tiny").get_by_test_id("last-job")
    expect(cell).to_contain_text("läuft")
    client.post(f"/api/jobs/{job}/cancel", headers=ORIGIN)
    assert finished(client, job)["state"] == "cancelled"
    expect(cell).to_contain_text("abgebrochen", timeout=10_000)
    assert page.evaluate("window.__same_page") is True
