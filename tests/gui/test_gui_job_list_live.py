"""The run page's Jobs list follows its jobs live (issue 36): a job started from the page is
listed at once, and a job that fails or is cancelled says so there as soon as its sentinel
does, without a reload. Headless Chromium at 1280 and 390 px; screenshots in tests/artifacts/."""

from typing import Any

import pytest

from tests.gui.gui_support import judge_on_run_page, screenshot

WIDTHS = [1280, 390]


@pytest.mark.parametrize("page", WIDTHS, indirect=True)
def test_the_jobs_list_shows_a_failed_job_as_failed_without_a_reload(page: Any) -> None:
    from playwright.sync_api import expect

    judge_on_run_page(page, "judge-runaway.yaml")
    listed = page.locator("#jobs-list [data-job-line]")
    # Listed at once, as running, under the name of its run.
    expect(listed).to_have_count(1)
    expect(listed.first.locator("[data-testid=job-line-state]")).to_have_text("läuft")
    expect(page.get_by_test_id("job-state")).to_have_text("fehlgeschlagen", timeout=30_000)
    expect(listed.first.locator("[data-testid=job-line-state]")).to_have_text("fehlgeschlagen")
    screenshot(page, "jobs-list-failed")

    # A reload while a job runs lists it as running; cancelled, it says so at once.
    page.get_by_test_id("config").select_option("judge-haengt.yaml")
    page.get_by_test_id("start-judge").click()
    expect(page.get_by_test_id("job-state")).to_have_text("läuft")
    page.reload()
    newest = page.locator("#jobs-list [data-job-line]").first
    expect(newest.locator("[data-testid=job-line-state]")).to_have_text("läuft")
    expect(page.locator("#jobs-list [data-job-line]")).to_have_count(2)
    page.get_by_test_id("cancel-job").click()
    expect(newest.locator("[data-testid=job-line-state]")).to_have_text(
        "abgebrochen", timeout=20_000
    )
    assert "läuft" not in page.locator("#jobs-list").inner_text()
