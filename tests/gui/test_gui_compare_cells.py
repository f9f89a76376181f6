"""The compare page cell by cell (issue 36, "What got worse, cell by cell"): per matched row and
prompt the score before → after, the largest drop first, both answers and both verdicts side
by side, filtered by row and category, paged, as JSON and as a German CSV.

The runs' truth is known (tests/unit/versus/versus_support.py): in "neu" the model
"verschlechtert" answers at quality 3 where the baseline had 5, "stabil" stays at 5;
"wdh-neu"/"wdh-alt" have two repeats per cell.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.gui.compare_support import each_width, fits
from tests.gui.gui_support import ARTIFACTS, gui_client, job_manager
from tests.unit.versus.versus_support import BASELINE, buero_workdir, make_run
from touchstone.gui import cell_moves

API = "/api/runs/neu/compare/basis/cells"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("gui-cells")
    pack = buero_workdir(root)
    runs = root / "runs"
    make_run(runs / "basis", BASELINE, pack=pack)
    make_run(runs / "neu", {"stabil": 5, "verschlechtert": 3, "leicht": 4}, pack=pack)
    make_run(runs / "wdh-alt", {"stabil": 5}, pack=pack, repeats=2)
    make_run(runs / "wdh-neu", {"stabil": 3}, pack=pack, repeats=2)
    return root


@pytest.fixture
def client(workdir: Path) -> Iterator[TestClient]:
    with gui_client(workdir, jobs=job_manager(workdir, {"PATH": ""})) as test_client:
        yield test_client


def scores(client: TestClient, run: str, model: str, prompt: str) -> list[float]:
    reply = client.get(f"/api/runs/{run}/verdicts", params={"model": model, "prompt": prompt})
    return [item["score"] for item in reply.json()["items"]]


def test_the_largest_drop_comes_first_with_both_sides(client: TestClient) -> None:
    reply = client.get(API, params={"limit": 500})
    assert reply.status_code == 200, reply.text
    page = reply.json()
    items = page["items"]
    diffs = [item["diff"] for item in items]
    assert diffs == sorted(diffs) and diffs[0] < 0
    # Only cells that moved, unless asked: "stabil" at 5 in both runs has none.
    assert all(d != 0 for d in diffs) and page["unchanged"] > 0
    assert page["total"] + page["unchanged"] == page["compared"] == 3 * 27
    assert all(item["new"][0] != "stabil" for item in items)
    first = items[0]
    assert first["new"] == first["baseline"] and first["new"][0] == "verschlechtert"
    # Before and after are what each run's verdict table says for that cell.
    model, prompt = first["new"][0], first["prompt_id"]
    assert [first["before"]] == scores(client, "basis", model, prompt)
    assert [first["after"]] == scores(client, "neu", model, prompt)
    assert first["diff"] == first["after"] - first["before"]
    # Opened: each side's answer and verdict (score, rationale, red flag).
    then, now = first["then"], first["now"]
    assert len(then) == len(now) == 1
    assert then[0]["score"] == first["before"] and now[0]["score"] == first["after"]
    assert then[0]["rationale"] and now[0]["rationale"] and then[0]["answer"] != now[0]["answer"]
    assert {"red_flag", "safety_critical", "judge_model"} <= set(now[0])
    rising = client.get(API, params={"order": "rise", "limit": 500}).json()["items"]
    assert [i["diff"] for i in rising] == sorted(diffs, reverse=True)


def test_repeats_are_paired_by_their_mean_per_prompt(client: TestClient) -> None:
    page = client.get("/api/runs/wdh-neu/compare/wdh-alt/cells", params={"show": "all"}).json()
    assert page["repeats"] == "mean_per_prompt"
    item = page["items"][0]
    before = scores(client, "wdh-alt", "stabil", item["prompt_id"])
    after = scores(client, "wdh-neu", "stabil", item["prompt_id"])
    assert len(before) == len(after) == 2
    assert item["before"] == pytest.approx(sum(before) / 2, abs=1e-4)
    assert item["after"] == pytest.approx(sum(after) / 2, abs=1e-4)
    assert (item["before_cells"], item["after_cells"]) == (2, 2)
    assert [r["repeat"] for r in item["now"]] == [1, 2]
    rule = client.get("/runs/wdh-neu/compare/wdh-alt").text
    rule = rule[rule.index('data-testid="cells-rule"') :]
    assert "Wiederholungen werden je Prompt gemittelt" in rule[: rule.index("</p>")]


def test_filters_by_row_and_category(client: TestClient) -> None:
    every = client.get(API, params={"limit": 500}).json()["items"]
    leicht = client.get(API, params={"model": "leicht", "limit": 500}).json()
    assert leicht["items"] == [i for i in every if i["new"][0] == "leicht"] != []
    category = every[0]["category"]
    both = client.get(
        API, params={"model": "leicht", "variant": "none", "category": category, "limit": 500}
    ).json()["items"]
    assert both == [i for i in leicht["items"] if i["category"] == category]
    unknown = client.get(API, params={"model": "gibt-es-nicht"})
    assert unknown.status_code == 422
    assert "Modell „gibt-es-nicht“" in unknown.json()["detail"]
    assert "leicht" in unknown.json()["detail"]
    page = client.get("/runs/neu/compare/basis", params={"category": "weg"})
    assert page.status_code == 200 and 'data-testid="cells-error"' in page.text
    assert "Kategorie „weg“" in page.text


def test_a_page_looks_up_answers_for_its_own_cells_only(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The runs may have thousands of cells: a page opens the ``limit`` it shows (counted),
    and the pages together are the whole list, in order."""
    looked_up: list[int] = []
    original = cell_moves._repeats

    def counting(view: Any, keys: set[tuple[str, str, str]]) -> Any:
        looked_up.append(len(keys))
        return original(view, keys)

    monkeypatch.setattr(cell_moves, "_repeats", counting)
    whole = client.get(API, params={"limit": 500}).json()
    looked_up.clear()
    pages = [client.get(API, params={"offset": start, "limit": 7}).json() for start in (0, 7, 14)]
    assert looked_up == [7, 7] * 3
    assert [i for p in pages for i in p["items"]] == whole["items"][:21]
    assert {p["total"] for p in pages} == {whole["total"]}
    html = client.get("/runs/neu/compare/basis", params={"limit": 7}).text
    pager = html[html.index('data-testid="cells-pager"') :]
    assert f"1–7 von {whole['total']}" in pager[: pager.index("</p>")]
    assert 'href="/runs/neu/compare/basis?offset=7&amp;limit=7#zellen"' in pager


def test_the_csv_is_the_selection_for_a_german_spreadsheet(client: TestClient) -> None:
    whole = client.get(API, params={"model": "verschlechtert", "limit": 500}).json()
    reply = client.get(f"{API}.csv", params={"model": "verschlechtert"})
    assert reply.status_code == 200
    assert reply.headers["content-type"].startswith("text/csv")
    assert "neu-gegen-basis-zellen.csv" in reply.headers["content-disposition"]
    text = reply.content.decode("utf-8")
    assert text.startswith("\ufeff")
    rows = list(csv.reader(io.StringIO(text[1:]), delimiter=";"))
    assert rows[0][:4] == ["Modell", "Variante", "Modell (Baseline)", "Prompt"]
    assert {"Wertung vorher", "Wertung jetzt", "Differenz", "Kategorie (Titel)"} <= set(rows[0])
    body = rows[1:]
    assert [r[3] for r in body] == [i["prompt_id"] for i in whole["items"]]
    diff = rows[0].index("Differenz")
    first = whole["items"][0]
    # A decimal comma, and a negative difference stays a number (no formula guard on it).
    assert body[0][diff] == f"{first['diff']:g}".replace(".", ",") and body[0][diff][0] == "-"
    page = client.get("/runs/neu/compare/basis", params={"model": "verschlechtert"}).text
    assert 'href="/api/runs/neu/compare/basis/cells.csv?model=verschlechtert"' in page


def test_the_page_shows_both_answers_side_by_side(client: TestClient) -> None:
    page = client.get("/runs/neu/compare/basis").text
    assert "Zelle für Zelle: was sich bewegt hat" in page
    first = client.get(API, params={"limit": 1}).json()["items"][0]
    cell = page[page.index('data-testid="cell"') :]
    cell = cell[: cell.index("</details>")]
    summary = cell[: cell.index("</summary>")]
    assert first["prompt_id"] in summary and "verschlechtert" in summary and "▼" in summary
    assert f"{first['before']:.2f} → {first['after']:.2f}".replace(".", ",") in summary
    baseline = cell[
        cell.index('data-testid="side-baseline"') : cell.index('data-testid="side-new"')
    ]
    new = cell[cell.index('data-testid="side-new"') :]
    assert "Baseline: <span" in baseline and "Neu: <span" in new
    for side, item in ((baseline, first["then"][0]), (new, first["now"][0])):
        assert item["rationale"][:40] in side.replace("&#34;", '"').replace("&#39;", "'")
    form = page[page.index('data-testid="cell-filters"') :]
    form = form[: form.index("</form>")]
    for name in ('name="model"', 'name="variant"', 'name="category"', 'name="show"'):
        assert name in form


def test_in_the_browser_at_1280_and_390(workdir: Path) -> None:
    from playwright.sync_api import expect

    problems: list[str] = []
    for base, name, page in each_width(workdir, problems):
        page.goto(f"{base}/runs/neu/compare/basis")
        page.get_by_test_id("cell-filters").locator("select[name=model]").select_option(
            "verschlechtert"
        )
        page.get_by_test_id("cell-filters").get_by_role("button").click()
        page.wait_for_url("**model=verschlechtert**")
        cell = page.get_by_test_id("cell").first
        cell.locator("summary").click()
        expect(cell.get_by_test_id("side-new")).to_be_visible()
        expect(cell.get_by_test_id("side-baseline")).to_be_visible()
        assert fits(page)
        left = cell.get_by_test_id("side-baseline").bounding_box()
        right = cell.get_by_test_id("side-new").bounding_box()
        assert left is not None and right is not None
        # Side by side on a desktop, one below the other on a phone.
        if name == "desktop":
            assert right["x"] > left["x"] + left["width"] / 2
        else:
            assert right["y"] >= left["y"] + left["height"] - 1
        cell.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / f"compare-cells-{name}.png"), full_page=True)
        page.get_by_test_id("cells").screenshot(
            path=str(ARTIFACTS / f"compare-cells-open-{name}.png")
        )
    assert problems == []
