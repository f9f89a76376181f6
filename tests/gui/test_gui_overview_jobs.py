"""The overview's job box (issue 36): it names the run, comes back after a reload and after a
GUI restart (the job files are the truth), and a cancelled run job goes on with one click.
Headless Chromium at 1280 and 390 px; screenshots in tests/artifacts/."""

import re
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.gui.gui_support import fill_run_form, screenshot
from touchstone.sim import SimServer


@pytest.mark.parametrize("page", [1280, 390], indirect=True)
def test_the_overview_keeps_the_job_box_over_a_reload_and_a_restart(
    page: Any, client: TestClient, sim: SimServer
) -> None:
    from playwright.sync_api import expect

    fill_run_form(page, "neu", sim.base_url, "sim-hang")
    page.get_by_test_id("start-run").click()
    expect(page.locator("#run-job").get_by_test_id("job-state")).to_have_text("läuft")
    page.reload()
    # Above the list of runs, where the user looks first.
    box = page.locator("#current-jobs [data-current-job]")
    expect(box.get_by_test_id("job-run")).to_have_text("neu")
    expect(box.get_by_test_id("job-state")).to_have_text("läuft")
    job = box.get_attribute("data-job-id")
    box.get_by_test_id("cancel-job").click()
    expect(box.get_by_test_id("job-state")).to_have_text("abgebrochen", timeout=20_000)
    page.reload()
    expect(box.get_by_test_id("job-state")).to_have_text("abgebrochen")
    expect(box.get_by_test_id("job-run")).to_have_text("neu")
    screenshot(page, "overview-cancelled-job")
    # Another GUI on the same runs (a restart) finds the job from its files.
    shown = re.findall(r'data-current-job="([^"]+)"', client.get("/").text)
    assert shown == [job]
    box.locator("[data-action=resume]").click()
    expect(box.get_by_test_id("job-state")).to_have_text("läuft")
    box.get_by_test_id("cancel-job").click()
    expect(box.get_by_test_id("job-state")).to_have_text("abgebrochen", timeout=20_000)
