"""The jury card and the "strittig" filter on the GUI's run page (design.md §18)."""

from __future__ import annotations

import csv as csv_module
import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.gui.gui_support import gui_client, job_manager, make_workspace
from tests.unit.quality.test_jury_card import ENDLESS, GEMMA, MEMBERS, QWEN
from touchstone.quality.jury_build import build_jury_card
from touchstone.results import VerdictKey
from touchstone.scorecard.build import Scorecard
from touchstone.sim import SimServer
from touchstone.stages.judge.judge import execute_judge
from touchstone.stages.view import RunView


@pytest.fixture
def judged(tmp_path: Path, sim: SimServer) -> Path:
    root = make_workspace(tmp_path, sim)
    execute_judge(root / "runs" / "tiny", config=root / "judge-gut.yaml")
    return root


def client_of(root: Path) -> Iterator[TestClient]:
    with gui_client(root, jobs=job_manager(root, {"PATH": ""})) as client:
        yield client


@pytest.fixture
def jury_client(judged: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    """The run read as a jury judged it: gemma agrees with qwen but on sim-schwach's R1,
    where it is three points harsher (one disputed cell)."""
    plain = RunView.scorecard

    def with_jury(view: RunView) -> Scorecard:
        card = plain(view)
        cells: dict[VerdictKey, dict[tuple[str, str], float]] = {}
        for v in view.verdicts:
            if v.scored:
                harsh = 3 if (v.model, v.prompt_id) == ("sim-schwach", "R1") else 0
                cells[v.key] = {QWEN: v.score + 3.0, GEMMA: v.score + 3.0 - harsh}
        card.jury_card = build_jury_card(MEMBERS, cells, low=0, high=5)
        return card

    monkeypatch.setattr(RunView, "scorecard", with_jury)
    yield from client_of(judged)


def test_the_run_page_shows_the_jury_card_and_filters_disputed_cells(
    jury_client: TestClient,
) -> None:
    page = jury_client.get("/runs/tiny").text
    assert 'data-testid="jury-card"' in page and "Jury: 2 von 3 Judges aktiv" in page
    assert "strittig: 1 Zelle" in page
    assert f"{ENDLESS[0]}</span> ausgeschieden: 3 Aufrufe in Folge" in page
    assert 'data-testid="filter-disputed"' in page
    disputed = jury_client.get("/api/runs/tiny/verdicts", params={"disputed": "true"}).json()
    assert [(v["model"], v["prompt_id"]) for v in disputed["items"]] == [("sim-schwach", "R1")]
    rest = jury_client.get("/api/runs/tiny/verdicts", params={"disputed": "false"}).json()
    assert rest["total"] == 5
    csv = jury_client.get("/api/runs/tiny/verdicts.csv", params={"disputed": "true"})
    assert "gefiltert" in csv.headers["content-disposition"]
    _header, *rows = csv_module.reader(io.StringIO(csv.text.lstrip("\ufeff")), delimiter=";")
    assert [(row[0], row[2]) for row in rows] == [("sim-schwach", "R1")]
    assert jury_client.get("/api/runs/tiny").json()["scorecard"]["jury"]["disputed"] == 1


def test_a_run_of_one_judge_has_no_jury_card_and_no_filter(judged: Path) -> None:
    for client in client_of(judged):
        page = client.get("/runs/tiny").text
        assert 'data-testid="jury-card"' not in page
        assert 'data-testid="filter-disputed"' not in page
        assert "jury" not in client.get("/api/runs/tiny").json()["scorecard"]


def test_the_spot_check_offers_the_disputed_cell_first(jury_client: TestClient) -> None:
    """Where the judges disagree a person's rating counts most: the blind sample starts
    there (design.md §17/§18)."""
    from touchstone.gui.rate import _cells

    run = jury_client.app.state.gui.cache.get(  # type: ignore[attr-defined]
        jury_client.app.state.gui.runs_dir / "tiny"  # type: ignore[attr-defined]
    )
    first = _cells(run, "anna", 3)[0]
    assert (first.key.model, first.key.prompt_id) == ("sim-schwach", "R1")
