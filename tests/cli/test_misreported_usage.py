"""A server that reports zero usage cannot switch the budget off (issue 35): what the terminal
and the GUI's job box say. The in-process tests are in
``tests/unit/stages/test_misreported_usage.py``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_cli import judge_config
from tests.conftest import run_args, run_cli
from tests.unit.stages.test_misreported_usage import WRONG
from touchstone.gui.job_notice import for_browser
from touchstone.gui.job_state import final_state, job_progress
from touchstone.sim import SimServer


@pytest.fixture
def zero() -> Iterator[SimServer]:
    with SimServer(zero_usage=True) as server:
        yield server


def said(text: str) -> str:
    """``text`` with its line breaks undone (the terminal wraps long lines)."""
    return " ".join(text.split())


def gui_job(command: str, events: Path) -> dict[str, Any]:
    """What the GUI's job box shows of a ``command`` job that wrote ``events``."""
    lines: list[dict[str, Any]] = [
        json.loads(line) for line in events.read_text(encoding="utf-8").splitlines()
    ]
    record = {"command": ["-m", "touchstone", command]}
    return for_browser({**final_state(record, lines), **record}, job_progress(lines))


def gui_notice(command: str, events: Path) -> str:
    return str(gui_job(command, events)["notice"])


def test_a_run_budget_stop_says_once_that_the_usage_looked_wrong(
    zero: SimServer, tiny_pack_path: Path, tmp_path: Path
) -> None:
    events = tmp_path / "events.jsonl"
    cap = ["--max-tokens", "100", "--price-per-million", "1000000,1000000", "--budget", "1000"]
    args = run_args(tiny_pack_path, zero.base_url, tmp_path / "r", "sim-gut")
    result = run_cli(*args, "--repeats", "6", *cap, "--events", str(events), cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert zero.calls["sim-gut"] < 36
    assert said(result.stdout + result.stderr).count(WRONG) == 1
    assert "Budget erreicht: " in result.stderr
    notice = gui_notice("run", events)
    assert notice.startswith("Budget erreicht: ") and notice.count(WRONG) == 1


def test_a_judge_within_its_budget_says_once_that_the_usage_looked_wrong(
    zero: SimServer, answered_run: Path, tmp_path: Path
) -> None:
    price = {"input": 1, "output": 1}
    config = judge_config(
        tmp_path / "judge.yaml", zero, "sim-judge", max_tokens=60, price_per_million=price, budget=5
    )
    events = tmp_path / "events.jsonl"
    result = run_cli(
        "judge", str(answered_run), "--config", str(config), "--events", str(events), cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert said(result.stdout + result.stderr).count(WRONG) == 1
    assert gui_notice("judge", events).count(WRONG) == 1
