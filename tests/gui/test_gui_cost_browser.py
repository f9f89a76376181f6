"""Cost in the GUI's forms, in headless Chromium at a desktop's and a phone's width (issue 36):
the run form's "Kosten schätzen" shows ``--dry-run``'s figures before "Run starten", and a run
started from the form keeps to its budget. The requests themselves are checked in
``test_gui_run_cost.py`` and ``test_gui_run_estimate.py``."""

from typing import Any

import pytest

from tests.gui.gui_support import ARTIFACTS, fill_run_form, screenshot
from touchstone.sim import SimServer

WIDTHS = pytest.mark.parametrize("page", [1280, 390], indirect=True)


def no_sideways_scroll(page: Any) -> None:
    width = page.viewport_size["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width


@WIDTHS
def test_run_form_estimates_the_cost_before_starting(page: Any, sim: SimServer) -> None:
    form = fill_run_form(page, "kosten", sim.base_url, "sim-gut", variants="none")
    form.locator("[name=max_tokens]").fill("400")
    form.locator("[name=budget]").fill("0,01")
    form.locator("[data-testid=estimate-run]").click()
    box = page.locator("[data-testid=run-estimate]")
    # A budget without a price is refused as the job would be, naming the field.
    refused = box.locator("[data-testid=estimate-error]")
    refused.wait_for()
    assert "ein Budget braucht einen Preis (Feld „Preis je Million Tokens“)" in refused.inner_text()
    screenshot(page, "run-form-estimate-refused")
    price_needed = box.locator("[data-testid=estimate-price-needed]")
    form.locator("[name=budget]").fill("")
    assert box.inner_text() == ""  # a changed form drops the estimate of the old one
    form.locator("[data-testid=estimate-run]").click()
    price_needed.wait_for()
    assert "Kosten: unbekannt – kein Preis" in box.inner_text()

    form.locator("[name=price_per_million]").fill("0,15/0,60")
    form.locator("[name=budget]").fill("0,01")
    form.locator("[data-testid=estimate-run]").click()
    box.locator("text=reicht nach dieser Schätzung.").wait_for()
    text = box.inner_text()
    assert "Aufrufe: 3" in text and "Kosten: höchstens etwa 0,0007" in text
    assert "Budget: 0,0100" in text and not price_needed.count()
    no_sideways_scroll(page)
    screenshot(page, "run-form-estimate")
    width = page.viewport_size["width"]
    page.locator("#run-estimate").screenshot(path=str(ARTIFACTS / f"run-estimate-{width}.png"))
    assert not page.locator("#run-job").inner_text()  # nothing started


@WIDTHS
def test_run_form_starts_a_run_that_keeps_to_its_budget(page: Any, sim: SimServer) -> None:
    form = fill_run_form(page, "knapp", sim.base_url, "sim-gut", variants="none")
    form.locator("[name=price_per_million]").fill("0.15,0.60")
    form.locator("[name=max_tokens]").fill("400")
    form.locator("[name=budget]").fill("0,0001")
    form.locator("[data-testid=start-run]").click()
    message = page.locator("#run-job [data-testid=job-message]")
    message.locator("text=Budget erreicht").wait_for(timeout=30_000)
    no_sideways_scroll(page)
    screenshot(page, "run-form-budget-reached")


@WIDTHS
def test_judge_form_estimates_the_cost_before_starting(page: Any) -> None:
    page.goto("runs/tiny")
    form = page.locator("#judge-form")
    form.locator("[name=config]").select_option("judge-gut.yaml")
    form.locator("[name=price_per_million]").fill("0,15/0,60")
    form.locator("[name=max_tokens]").fill("200")
    form.locator("[name=budget]").fill("0,01")
    form.locator("[data-testid=estimate-judge]").click()
    box = page.locator("[data-testid=judge-estimate]")
    box.locator("text=reicht nach dieser Schätzung.").wait_for()
    text = box.inner_text()
    assert "Aufrufe: 8" in text and "Ausgabe: höchstens 1.600 Tokens" in text
    assert "Davon Gesamtbewertungen: 2." in text
    no_sideways_scroll(page)
    screenshot(page, "judge-form-estimate")
    width = page.viewport_size["width"]
    page.locator("#judge-form").screenshot(path=str(ARTIFACTS / f"judge-form-{width}.png"))
    assert not page.locator("#current-job").inner_text()  # nothing started
