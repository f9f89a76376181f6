"""Answers cut at ``--max-tokens`` in the GUI (issue 37 §4): the scorecard counts them per row
and says how to raise the cap, the verdict table marks them and filters by them
(``?truncated=ja``; another value is refused, not ignored), the prompt page marks them; in
Chromium at 1280 and 390 px the marks stand whole and the page stays within its width."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.gui.gui_support import screenshot
from tests.truncated_support import CUT_MODEL, truncated_workspace
from touchstone.sim import SimServer


@pytest.fixture
def workspace(tmp_path: Path, sim: SimServer) -> Path:
    return truncated_workspace(tmp_path, sim)


def items(client: TestClient, **params: str) -> list[dict[str, Any]]:
    response = client.get("/api/runs/tiny/verdicts", params=params)
    assert response.status_code == 200, response.text
    return list(response.json()["items"])


def test_the_filter_keeps_the_cut_answers_or_the_others(client: TestClient) -> None:
    cut, whole = items(client, truncated="ja"), items(client, truncated="nein")
    assert {v["model"] for v in cut} == {CUT_MODEL} and len(cut) == 3
    assert {v["model"] for v in whole} == {"sim-gut"} and len(whole) == 3
    assert all(v["truncated"] for v in cut) and not any(v["truncated"] for v in whole)
    text = client.get("/api/runs/tiny/verdicts.csv", params={"truncated": "ja"}).text
    rows = list(csv.DictReader(io.StringIO(text.lstrip("\ufeff")), delimiter=";"))
    assert [(r["Modell"], r["abgeschnitten"]) for r in rows] == [(CUT_MODEL, "ja")] * 3


@pytest.mark.parametrize("path", ["/api/runs/tiny/verdicts", "/runs/tiny"])
def test_another_value_is_refused_by_name(client: TestClient, path: str) -> None:
    response = client.get(path, params={"truncated": "vielleicht"})
    assert response.status_code == 422, response.text
    assert "truncated" in response.text and "vielleicht" in response.text


def test_the_run_page_counts_them_and_offers_the_filter(client: TestClient) -> None:
    html = client.get("/runs/tiny").text
    assert 'data-testid="truncated-count"' in html and "✂ 3 abgeschnitten" in html
    assert "3 Antworten an --max-tokens abgeschnitten (Grenze 200 Tokens)" in html
    assert 'name="truncated"' in html


def test_the_prompt_page_marks_the_cut_answer(client: TestClient) -> None:
    html = client.get("/runs/tiny/prompts/R1").text
    assert html.count('data-testid="truncated-mark"') == 1


@pytest.mark.parametrize("page", [1280, 390], indirect=True)
def test_the_marks_in_a_browser(page: Any) -> None:
    page.goto("runs/tiny?truncated=ja")
    page.wait_for_selector("#verdicts tbody tr")
    marks = page.locator("#verdicts [data-testid=truncated-mark]")
    assert marks.count() == 3
    assert page.locator("#verdicts tbody tr").count() == 3
    assert page.locator("[data-testid=filter-truncated]").input_value() == "ja"
    width = page.viewport_size["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.locator("#scorecard").scroll_into_view_if_needed()
    screenshot(page, "truncated-run")
    page.goto("runs/tiny/prompts/R1")
    assert page.locator("[data-testid=truncated-mark]").count() == 1
    screenshot(page, "truncated-prompt")
