"""A job's way on, in headless Chromium at 1280 and 390 px (issue 23 §5): a misspelt model is
corrected with one click, a finished run job points to the run and its judge, an unfit judge
is a finished check with its verdict once. Screenshots go to tests/artifacts/."""

from typing import Any

import pytest

from tests.gui.gui_support import fill_run_form, screenshot
from touchstone.sim import SimServer

WIDTHS = [1280, 390]


@pytest.mark.parametrize("page", WIDTHS, indirect=True)
def test_a_misspelt_model_is_corrected_with_one_click(page: Any, sim: SimServer) -> None:
    from playwright.sync_api import expect

    form = fill_run_form(page, "neu", sim.base_url, "sim-gutt")
    page.get_by_test_id("start-run").click()
    box = page.locator("#run-job")
    expect(page.get_by_test_id("job-state")).to_have_text("fehlgeschlagen", timeout=20_000)
    expect(page.get_by_test_id("job-message")).to_contain_text("Meinten Sie „sim-gut“?")
    expect(box.locator("[data-action]")).to_have_count(1)
    screenshot(page, "run-misspelt")

    box.locator("[data-action=edit_settings]").click()
    expect(form.locator("[name=models]")).to_have_value("sim-gut")
    expect(form.locator("[name=models]")).to_be_focused()
    page.get_by_test_id("start-run").click()
    # Done: the overview lists the run, its box the way on.
    row = page.get_by_test_id("runs").locator("tr", has_text="neu")
    expect(row).to_contain_text("6 / 6", timeout=20_000)
    expect(box.locator("[data-action=judge_run]")).to_have_text("Judge starten")


@pytest.mark.parametrize("page", WIDTHS, indirect=True)
def test_the_run_page_after_a_run_job_offers_the_run_and_the_judge(
    page: Any, sim: SimServer
) -> None:
    from playwright.sync_api import expect

    fill_run_form(page, "tiny", sim.base_url, "sim-gut, sim-schwach, sim-mittel", "none")
    page.get_by_test_id("extend-run").check()
    page.get_by_test_id("start-run").click()
    expect(page.get_by_test_id("runs")).to_contain_text("9 / 9", timeout=20_000)
    # The list shows the answers live, before the job has ended: wait for its end.
    last_job = page.get_by_test_id("runs").locator("tr", has_text="tiny").get_by_test_id("last-job")
    expect(last_job).to_contain_text("fertig", timeout=20_000)

    page.goto("/runs/tiny")
    box = page.locator("#current-job")
    expect(page.get_by_test_id("job-state")).to_have_text("fertig")
    expect(box.locator("[data-action=open_run]")).to_have_text("Run ansehen")
    expect(box.locator("[data-action=judge_run]")).to_have_text("Judge starten")
    screenshot(page, "run-page-after-run")
    box.locator("[data-action=judge_run]").click()
    expect(page.locator("#judge-form [name=model]")).to_be_focused()


@pytest.mark.parametrize("page", WIDTHS, indirect=True)
def test_an_unfit_judge_is_a_finished_check_with_one_verdict(page: Any) -> None:
    from playwright.sync_api import expect

    page.goto("/runs/tiny")
    page.get_by_test_id("config").select_option("judge-leichtglaeubig.yaml")
    page.get_by_test_id("check-judge").click()
    box = page.locator("#current-job")
    expect(page.get_by_test_id("job-state")).to_have_text("fertig", timeout=20_000)
    expect(box).to_have_class("box done")
    verdict = box.locator("p.verdict.unfit")
    expect(verdict).to_have_count(1)
    expect(verdict).to_contain_text("Urteil: ungeeignet")
    expect(page.get_by_test_id("job-message")).to_have_text("")
    # Amber, not the red of a failed job.
    assert verdict.evaluate("e => getComputedStyle(e).color") == "rgb(125, 86, 0)"
    expect(box.locator("[data-action=other_model]")).to_be_visible()
    box.scroll_into_view_if_needed()
    screenshot(page, "judge-check-unfit")
