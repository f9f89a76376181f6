""" "Vergleichen mit …" on the run page (issue 36): it preselects the newest other run of the
pack judged by the same judge, or none, not whichever run is newest."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.gui.compare_support import each_width, fits
from tests.gui.gui_support import ARTIFACTS, gui_client, job_manager
from tests.unit.versus.versus_support import BASELINE, buero_workdir, make_run

# Oldest first; "z-anders", the newest, was judged by another judge.
RUNS = (
    ("basis", "sim-judge"),
    ("mitte", "sim-judge"),
    ("neu", "sim-judge"),
    ("z-anders", "anderer-judge"),
)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("gui-preselect")
    pack = buero_workdir(root)
    for minute, (name, judge) in enumerate(RUNS):
        run = make_run(root / "runs" / name, BASELINE, pack=pack, judge=judge)
        # Made within a second: the order of their making, by the minute.
        manifest = json.loads((run / "run.json").read_text(encoding="utf-8"))
        manifest["created_at"] = f"2026-01-01T10:{minute:02d}:00+00:00"
        (run / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
    return root


@pytest.fixture
def client(workdir: Path) -> Iterator[TestClient]:
    with gui_client(workdir, jobs=job_manager(workdir, {"PATH": ""})) as test_client:
        yield test_client


def chosen(client: TestClient, run: str) -> tuple[str, list[str]]:
    """What the browser shows chosen in the form (the option marked selected, else the first
    one it can choose) and the runs offered."""
    page = client.get(f"/runs/{run}").text
    form = page[page.index('data-testid="compare-form"') :]
    form = form[: form.index("</form>")]
    options = re.findall(r'<option([^>]*)value="([^"]*)"[^>]*>', form)
    choosable = [(attrs, value) for attrs, value in options if "disabled" not in attrs]
    marked = [value for attrs, value in choosable if "selected" in attrs]
    return (marked or [choosable[0][1]])[0], [value for _, value in options if value]


def test_the_newest_run_judged_by_the_same_judge_is_preselected(client: TestClient) -> None:
    selected, offered = chosen(client, "neu")
    assert selected == "mitte"
    # The others are still offered, the newest first.
    assert offered == ["z-anders", "mitte", "basis"]


def test_no_run_is_preselected_without_one_of_the_same_judge(client: TestClient) -> None:
    selected, offered = chosen(client, "z-anders")
    assert selected == "" and offered == ["neu", "mitte", "basis"]
    page = client.get("/runs/z-anders").text
    assert "keinen anderen Run desselben Judges (anderer-judge)" in page
    # Sent without a choice: said what to do, in German.
    reply = client.get("/runs/z-anders/compare", params={"baseline": ""})
    assert reply.status_code == 422 and "Bitte einen Run zum Vergleichen wählen." in reply.text


def test_in_the_browser_at_1280_and_390(workdir: Path) -> None:
    problems: list[str] = []
    for base, name, page in each_width(workdir, problems):
        page.goto(f"{base}/runs/neu")
        form = page.get_by_test_id("compare-form")
        assert page.get_by_test_id("baseline").input_value() == "mitte"
        assert fits(page)
        form.screenshot(path=str(ARTIFACTS / f"compare-preselect-{name}.png"))
        form.get_by_role("button").click()
        page.wait_for_url(f"{base}/runs/neu/compare/mitte")
    assert problems == []
