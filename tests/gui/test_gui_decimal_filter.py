"""The verdict table's score filter reads a decimal comma (issue 36): ``?min=3,5`` selects as
``?min=3.5`` does, instead of being ignored or read as 35; a thousands point is refused."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.gui.gui_support import chromium, gui_process
from tests.gui.test_gui_phone import judged_workspace, watch
from touchstone.sim import SimServer


@pytest.fixture
def workspace(tmp_path: Path, sim: SimServer) -> Path:
    return judged_workspace(tmp_path, sim)


def test_a_comma_in_the_score_filter_selects_as_a_point(client: TestClient) -> None:
    def total(**params: str) -> int:
        response = client.get("/api/runs/tiny/verdicts", params=params)
        assert response.status_code == 200, response.text
        return int(response.json()["total"])

    assert total(min="2,5") == total(min="2.5") == 3
    assert total(max="4,5", model="sim-schwach") == total(max="4.5", model="sim-schwach") == 3
    assert total(min="0,5", max="5,0") == 6


@pytest.mark.parametrize("text", ["1.000,5", "3,5,1"])
def test_a_thousands_point_in_the_score_filter_is_refused(client: TestClient, text: str) -> None:
    response = client.get("/api/runs/tiny/verdicts", params={"min": text})
    assert response.status_code == 422
    assert "Tausenderpunkte" in response.text and "keine Zahl" in response.text


def test_the_score_fields_take_a_comma_as_typed(client: TestClient) -> None:
    html = client.get("/runs/tiny").text
    # A number field drops "3,5" in a browser whose locale writes "3.5" (and ?min=3,5 with it).
    assert 'name="min" type="number"' not in html and 'name="max" type="number"' not in html
    assert 'name="min" type="text" inputmode="decimal"' in html


def test_the_browser_filter_reads_commas_from_the_field_and_the_url(
    tmp_path: Path, sim: SimServer
) -> None:
    from playwright.sync_api import expect

    workdir = judged_workspace(tmp_path, sim)
    problems: list[str] = []
    with gui_process(workdir) as base, chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        watch(page, problems)
        page.goto(f"{base}/runs/tiny")
        rows = page.locator("#verdicts tbody tr")
        expect(rows).to_have_count(6)
        page.fill("#filters input[name=min]", "2.5")
        expect(rows).not_to_have_count(6)
        kept = rows.count()
        page.fill("#filters input[name=min]", "2,5")  # not 25: outside the scale
        expect(page).to_have_url(re.compile(r"min=2%2C5"))
        expect(page.locator("#verdict-count")).not_to_contain_text("außerhalb")
        expect(rows).to_have_count(kept)
        page.fill("#filters input[name=min]", "1.000,5")
        expect(page.locator("#verdict-count")).to_contain_text("ohne Tausenderpunkte")
        page.goto(f"{base}/runs/tiny?min=2,5")  # was silently ignored
        expect(page.locator("#filters input[name=min]")).to_have_value("2,5")
        expect(rows).to_have_count(kept)
    assert problems == []
