"""Many rows (design.md §13, §15): sizes are bounded by row count as well as by cell count.

Here the tests through the GUI (FastAPI's TestClient or headless Chromium); the in-process ones
are in ``tests/unit/scorecard/test_many_models.py``."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.conftest import coarse
from tests.gui.gui_support import gui_client, gui_page
from tests.unit.scorecard.test_many_models import MODELS, write_many


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_many(tmp_path_factory.mktemp("viele"), MODELS)


@pytest.fixture(scope="module")
def gui(many: Path) -> Iterator[TestClient]:
    with gui_client(many.parent.parent, runs=many.parent) as client:
        yield client


def test_the_gui_run_page_of_400_models_stays_under_2_mb(gui: TestClient) -> None:
    started = time.monotonic()
    page = gui.get("/runs/viele")
    elapsed = time.monotonic() - started
    assert page.status_code == 200
    assert len(page.content) < 2e6
    assert elapsed < coarse(3)
    assert 'data-testid="neighbours"' in page.text and 'data-testid="row-comparisons"' in page.text
    assert len(gui.get("/api/runs/viele").content) < 2e6


def test_the_gui_pages_the_comparisons_of_a_chosen_row(gui: TestClient) -> None:
    ranked = [
        (r["model"], r["variant"])
        for r in gui.get("/api/runs/viele").json()["scorecard"]["rows"]
        if r["rank"] is not None
    ]
    model, variant = ranked[10]
    url = "/api/runs/viele/comparisons"
    first = gui.get(url, params={"model": model, "variant": variant, "limit": 50}).json()
    assert (first["total"], first["offset"], len(first["items"])) == (len(ranked) - 1, 0, 50)
    assert all(c["a"] == [model, variant] for c in first["items"])
    # In rank order, the row itself left out.
    assert [tuple(c["b"]) for c in first["items"]] == (ranked[:10] + ranked[11:])[:50]
    last = gui.get(url, params={"model": model, "variant": variant, "offset": 390}).json()
    assert [tuple(c["b"]) for c in last["items"]] == ranked[391:]
    # Two prompts tell few rows apart: most comparisons are undecided.
    undecided = gui.get(
        url, params={"model": model, "variant": variant, "better": "none", "limit": 500}
    ).json()
    assert undecided["items"] and all(c["better"] is None for c in undecided["items"])
    assert undecided["total"] == len(undecided["items"])
    unknown = gui.get(url, params={"model": "gibt-es-nicht", "variant": "none"})
    assert unknown.status_code == 404 and "gibt-es-nicht" in unknown.json()["detail"]


def test_the_run_page_of_many_rows_pages_a_chosen_rows_comparisons_in_the_browser(
    tmp_path: Path,
) -> None:
    from playwright.sync_api import expect

    from tests.gui.gui_support import LOW_CONTRAST_JS

    write_many(tmp_path, 60, prompts=12)  # enough prompts to tell rows apart
    problems: list[str] = []
    with gui_page(tmp_path, width=1280, height=900) as (base, page):
        page.on("console", lambda m: m.type == "error" and problems.append(m.text))
        page.on("pageerror", lambda exc: problems.append(str(exc)))
        page.goto(f"{base}/runs/viele")
        expect(page.locator("[data-testid=neighbours] tbody tr")).to_have_count(60)
        rows = page.locator("#comparisons tbody tr")
        expect(rows).to_have_count(50)  # the first row against 59 others, a page of 50
        expect(page.locator("#comparison-count")).to_contain_text("59 Vergleiche")
        page.locator("#comparisons-next").click()
        expect(rows).to_have_count(9)
        option = page.locator("#row-comparisons select[name=row] option").nth(5)
        model, variant = option.get_attribute("data-model"), option.get_attribute("data-variant")
        page.select_option("#row-comparisons select[name=row]", label=option.inner_text())
        page.select_option("#row-comparisons select[name=better]", "a")
        better = page.request.get(
            f"{base}/api/runs/viele/comparisons",
            params={"model": str(model), "variant": str(variant), "better": "a"},
        ).json()
        assert 0 < better["total"] < 59
        expect(page.locator("#comparison-count")).to_contain_text(f"{better['total']} Vergleiche")
        expect(rows).to_have_count(min(50, better["total"]))
        expect(page.locator("#comparisons tbody tr:not(:has(td.better))")).to_have_count(0)
        assert page.evaluate(LOW_CONTRAST_JS) == []
    assert problems == []
