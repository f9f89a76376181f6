"""``judge-check`` honours ``budget`` (issue 35): exit code, message and the GUI's job box.
The in-process tests are in ``tests/unit/stages/test_judge_check_budget.py``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.test_cli import judge_config
from tests.cli.test_misreported_usage import gui_job, said
from tests.conftest import run_cli
from tests.unit.quality.test_judge_check import BUERO
from touchstone.sim import SimServer


@pytest.fixture
def own_sim() -> Iterator[SimServer]:
    with SimServer() as server:
        yield server


def test_judge_check_stops_at_its_budget_like_judge(own_sim: SimServer, tmp_path: Path) -> None:
    """Before: 18 of 18 probe calls, exit 0 ("geeignet") under a budget of a few calls."""
    price = {"input": 1_000_000, "output": 1_000_000}
    config = judge_config(
        tmp_path / "j.yaml",
        own_sim,
        "sim-judge",
        max_tokens=60,
        price_per_million=price,
        budget=3000,
    )
    events = tmp_path / "events.jsonl"
    check = ["judge-check", "--pack", str(BUERO), "--config", str(config)]
    result = run_cli(*check, "--events", str(events), cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    made = own_sim.calls["sim-judge"]
    assert 0 < made < 18
    text = said(result.stderr)
    assert "Budget erreicht: " in text and " von 3.000,00 " in text
    assert f"Judge-Check für sim-judge abgebrochen: {made} von 18 Proben bewertet" in text
    assert "Urteil:" not in result.stdout  # no card: a verdict needs every probe
    last = json.loads(events.read_text(encoding="utf-8").splitlines()[-1])
    assert (last["event"], last["ending"], last["exit_code"]) == ("aborted", "budget_reached", 1)
    # The GUI says what the check needs: nothing was kept, the same budget stops again.
    shown = gui_job("judge-check", events)
    assert shown["notice"].startswith("Budget erreicht: ")
    assert "ohne Urteil" in shown["notice"] and "Gespeicherte" not in shown["notice"]
    assert "resume" not in shown["actions"]
