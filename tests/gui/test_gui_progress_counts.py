"""The job box counts as the CLI's bar counts (issue 36): cells of the run done / planned,
the cells judged or answered before included. It showed "0 / 17" (the cells still open)
where the terminal of the same job read "65/65"."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.gui.gui_support import finished, start_job
from tests.gui.test_gui_phone import judged_workspace
from touchstone.sim import SimServer


@pytest.fixture
def workspace(tmp_path: Path, sim: SimServer) -> Path:
    return judged_workspace(tmp_path, sim)


def test_a_judge_job_on_a_judged_run_counts_every_cell_done(client: TestClient) -> None:
    state = finished(client, start_job(client, "/api/runs/tiny/judge", "judge-gut.yaml"))
    assert state["state"] == "done", state
    # The terminal's bar of this job: "Bewertungen ━━━━ 6/6".
    assert (state["progress"]["done"], state["progress"]["total"]) == (6, 6)
