"""Pairing a renamed model on the compare page (issue 36): the dropdown offers, and preselects,
no baseline model that is paired already, and a pairing the page cannot use is said in the
GUI's words ("Modell paaren"), not in the CLI's ``--pair NEU=ALT``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.gui.compare_support import each_width, fits
from tests.gui.gui_support import ARTIFACTS, gui_client, job_manager
from tests.unit.versus.versus_support import buero_workdir, make_run


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("gui-pairing")
    pack = buero_workdir(root)
    runs = root / "runs"
    # Equal quality: the rows' order says nothing about which name came first.
    make_run(runs / "basis", {"leicht": 5, "mittel": 5, "stabil": 5}, pack=pack)
    make_run(runs / "umbenannt", {"leicht": 5, "stabil-neu": 5, "mittel-2": 5}, pack=pack)
    return root


@pytest.fixture
def client(workdir: Path) -> Iterator[TestClient]:
    with gui_client(workdir, jobs=job_manager(workdir, {"PATH": ""})) as test_client:
        yield test_client


def choices(page: str) -> list[tuple[str, bool]]:
    """The pairing dropdown's options: (value, shown chosen)."""
    form = page[page.index('data-testid="pair-form"') :]
    form = form[: form.index("</form>")]
    options = re.findall(r'<option value="([^"]*)"( selected)?>', form)
    marked = [value for value, selected in options if selected]
    first = marked[0] if marked else options[0][0]
    return [(value, value == first) for value, _ in options]


def test_no_model_paired_already_is_offered_or_preselected(client: TestClient) -> None:
    page = client.get("/runs/umbenannt/compare/basis").text
    note = page[page.index("Ohne Gegenstück") :]
    assert "unten unter „Modell paaren“" in note[: note.index("</p>")]
    offered = choices(page)
    # "leicht" is paired with "leicht" of the same name: pairing it again fails.
    assert all(not value.endswith("=leicht") for value, _ in offered), offered
    # The closest name is the one preselected.
    assert [value for value, shown in offered if shown] == ["mittel-2=mittel"]
    paired = client.get("/runs/umbenannt/compare/basis", params={"pair": "mittel-2=mittel"})
    assert paired.status_code == 200
    offered = choices(paired.text)
    assert offered == [("stabil-neu=stabil", True)]


def test_a_pairing_that_cannot_be_used_is_said_in_gui_words(client: TestClient) -> None:
    for spec, said in (
        ("stabil-neu=weg", "kein Modell „weg“ in der Baseline"),
        ("stabil-neu", "„stabil-neu“"),
        ("stabil-neu=leicht", "„leicht“"),
    ):
        reply = client.get("/runs/umbenannt/compare/basis", params={"pair": spec})
        assert reply.status_code == 422, spec
        error = reply.text[reply.text.index('data-testid="compare-error"') :]
        error = error[: error.index("</p>")]
        assert said in error and "„Modell paaren“" in error, error
        assert "--pair" not in error and "NEU=ALT" not in error, error
        # The way out: the comparison without the pairings.
        assert 'href="/runs/umbenannt/compare/basis" data-testid="drop-pairs"' in reply.text
    api = client.get("/api/runs/umbenannt/compare/basis", params={"pair": "stabil-neu=weg"})
    assert api.status_code == 422 and "--pair" not in api.json()["detail"]


def test_in_the_browser_at_1280_and_390(workdir: Path) -> None:
    from playwright.sync_api import expect

    problems: list[str] = []
    for base, name, page in each_width(workdir, problems):
        page.goto(f"{base}/runs/umbenannt/compare/basis?pair=stabil-neu%3Dweg")
        expect(page.get_by_test_id("compare-error")).to_contain_text("„Modell paaren“")
        assert fits(page)
        page.screenshot(path=str(ARTIFACTS / f"compare-pairing-{name}.png"), full_page=True)
        # The page of bad input is a 422, which the browser logs: that, and nothing else.
        assert all("status of 422" in problem for problem in problems), problems
        problems.clear()
        page.get_by_test_id("drop-pairs").click()
        page.wait_for_url(f"{base}/runs/umbenannt/compare/basis")
        form = page.get_by_test_id("pair-form")
        assert form.locator("select").input_value() == "mittel-2=mittel"
        form.get_by_role("button").click()
        page.wait_for_url("**pair=mittel-2%3Dmittel**")
        expect(page.get_by_test_id("versus")).to_contain_text("vorher mittel")
    assert problems == []
