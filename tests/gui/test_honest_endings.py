"""Honest endings (design.md §22): refused cells are findable, calls in flight show life.

Here the tests through the GUI (FastAPI's TestClient or headless Chromium); the in-process ones
are in ``tests/unit/stages/test_honest_endings.py``."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_cli import judge_config
from tests.gui.gui_support import gui_client
from touchstone.sim import SimServer
from touchstone.stages.judge.judge import execute_judge


def test_the_gui_finds_refused_cells_in_the_filter_the_prompt_page_and_the_csv(
    sim: SimServer, four_model_run: Path, tmp_path: Path
) -> None:
    picky = judge_config(tmp_path / "picky.yaml", sim, "sim-picky", max_failure_ratio=0.5)
    execute_judge(four_model_run, config=picky)
    with gui_client(tmp_path, runs=four_model_run.parent) as client:
        found = client.get("/api/runs/tiny/verdicts", params={"unscored": "true"}).json()
        assert found["total"] == 8
        assert {v["prompt_id"] for v in found["items"]} == {"S1"}
        page = client.get("/runs/tiny/prompts/S1").text
        assert page.count("⚠ Judge-Filter") == 8 and "noch nicht bewertet" not in page
        assert "Inhaltsfilter des Judges" in page
        csv = client.get("/api/runs/tiny/verdicts.csv").text
        assert csv.count("Judge-Filter") == 8
