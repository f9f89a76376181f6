"""The run form's "Modelle" field splits at ',' and ';' (issue 36): "sim-gut; sim-schwach" is
two models, in the browser and for the server that checks a run's settings."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.gui.gui_support import (
    ORIGIN,
    fill_run_form,
    finished,
    screenshot,
    workspace_run,
)
from tests.unit.stages.test_extend import manifest
from touchstone.sim import SimServer


def test_the_server_takes_a_semicolon_list_as_the_run_s_two_models(
    client: TestClient, sim: SimServer, workspace: Any
) -> None:
    # The workspace's run "tiny" has sim-gut and sim-schwach: the same two, so it resumes.
    body = workspace_run(sim.base_url, models=["sim-gut; sim-schwach"])
    started = client.post("/api/runs", json=body, headers=ORIGIN)
    assert started.status_code == 202, started.json()
    assert finished(client, started.json()["job"])["state"] == "done"
    assert manifest(workspace / "runs" / "tiny")["models"] == ["sim-gut", "sim-schwach"]
    nothing = client.post("/api/runs", json={**body, "models": [" ; , "]}, headers=ORIGIN)
    assert nothing.status_code == 422 and "kein Modellname" in str(nothing.json())


@pytest.mark.parametrize("page", [1280, 390], indirect=True)
def test_models_separated_by_semicolons_in_the_form_are_each_run(page: Any, sim: SimServer) -> None:
    from playwright.sync_api import expect

    fill_run_form(page, "neu", sim.base_url, "sim-gut; sim-schwach", "none")
    page.get_by_test_id("start-run").click()
    row = page.get_by_test_id("runs").locator("tr", has_text="neu")
    expect(row).to_contain_text("6 / 6", timeout=20_000)
    expect(page.locator("#run-form")).to_contain_text("Komma oder Semikolon")
    screenshot(page, "run-model-list")
