"""The verdict table shows each verdict's answer (shortened, whole on click) and searches the
answers (issue 36): ``?answer=`` keeps the verdicts whose answer holds the text, whatever its
case, together with the other filters, in the table and in its CSV."""

from __future__ import annotations

from csv import reader
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.gui.gui_support import screenshot
from tests.gui.test_gui_phone import judged_workspace, watch
from touchstone.gui.queries import ANSWER_SHOWN
from touchstone.sim import SimServer


@pytest.fixture
def workspace(tmp_path: Path, sim: SimServer) -> Path:
    return judged_workspace(tmp_path, sim)


def all_answers(client: TestClient) -> dict[tuple[str, str, str, int], str]:
    answers = {}
    for prompt in ("R1", "R2", "S1"):
        for a in client.get(f"/api/runs/tiny/prompts/{prompt}").json()["answers"]:
            answers[(a["model"], a["variant"], prompt, a["repeat"])] = a["answer"]
    return answers


def cells(items: list[dict]) -> set[tuple[str, str, str, int]]:
    return {(v["model"], v["variant"], v["prompt_id"], v["repeat"]) for v in items}


def test_the_answer_search_keeps_the_verdicts_whose_answer_holds_it(client: TestClient) -> None:
    answers = all_answers(client)
    word = max(answers[("sim-gut", "none", "R1", 1)].split(), key=len).strip(".,:;")
    holding = {cell for cell, text in answers.items() if word.casefold() in text.casefold()}
    assert 0 < len(holding) < len(answers)
    found = client.get("/api/runs/tiny/verdicts", params={"answer": word.upper()}).json()
    assert found["total"] == len(holding) and cells(found["items"]) == holding
    narrowed = client.get(
        "/api/runs/tiny/verdicts", params={"answer": word, "model": "sim-gut"}
    ).json()
    assert cells(narrowed["items"]) == {c for c in holding if c[0] == "sim-gut"}
    csv = client.get("/api/runs/tiny/verdicts.csv", params={"answer": word}).text
    assert len(list(reader(StringIO(csv.lstrip("\ufeff")), delimiter=";"))) == 1 + len(holding)


def test_each_verdict_carries_its_answer_shortened(client: TestClient) -> None:
    answers = all_answers(client)
    for v in client.get("/api/runs/tiny/verdicts").json()["items"]:
        whole = answers[(v["model"], v["variant"], v["prompt_id"], v["repeat"])]
        assert whole.startswith(v["answer"].removesuffix("…"))
        assert len(v["answer"]) <= ANSWER_SHOWN + 1
        assert v["answer_cut"] == (len(whole) > ANSWER_SHOWN)


def test_the_table_shows_the_answer_and_opens_it_whole(page: Any) -> None:
    from playwright.sync_api import expect

    problems: list[str] = []
    watch(page, problems)
    page.goto("/runs/tiny")
    rows = page.locator("#verdicts tbody tr")
    expect(rows).to_have_count(6)
    assert "Antwort" in page.locator("#verdicts thead th").all_inner_texts()
    cell = rows.first.locator("td.answer")
    short = cell.inner_text().removesuffix("ganz zeigen").rstrip().removesuffix("…")
    cell.locator("button").click()
    expect(cell.locator("pre")).to_be_visible()
    whole = cell.locator("pre").inner_text()
    assert len(whole) > len(short) and whole.startswith(short[:40])
    screenshot(page, "verdicts-answer-open")
    page.fill("#filters input[name=answer]", "zzz-nirgends")
    expect(page.locator("#verdict-count")).to_contain_text("0 Bewertungen")
    assert "answer=zzz-nirgends" in page.url
    assert problems == []
