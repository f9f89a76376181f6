"""A settled ``judge`` (design.md §10) calls no endpoint and writes no page: it starts without the
modules for those (the openai SDK and touchstone's transport, the event loop, the judging and
answering passes, judge-check's probes, jinja2, the GUI stack, typer's rich help). Counted in
``sys.modules`` of a fresh process, not timed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.cli.test_cli import judge_config
from tests.conftest import run_cli
from touchstone.sim import SimServer
from touchstone.store import JUDGE_STATE

NOT_LOADED = (
    "openai",
    "httpx",
    "asyncio",
    "ssl",
    "touchstone.transport.engine",
    "touchstone.transport.chat",
    "touchstone.judge.passes",
    "touchstone.stages.run.answering",
    "touchstone.quality.probes",
    "jinja2",
    "fastapi",
    "uvicorn",
    "typer.rich_utils",
)

# The CLI as ``python -m touchstone`` runs it; at exit, which of NOT_LOADED were imported.
PROBE = f"""
import atexit, json, sys
atexit.register(
    lambda: print("LOADED " + json.dumps([m for m in {NOT_LOADED!r} if m in sys.modules]))
)
sys.argv = ["touchstone", *sys.argv[1:]]
from touchstone.cli import main
main()
"""


def judged_once(run: Path, sim: SimServer, cwd: Path) -> Path:
    """``touchstone judge`` of ``run`` by sim-judge, every cell; returns the judge config."""
    config = judge_config(cwd / "judge.yaml", sim, "sim-judge")
    first = run_cli("judge", str(run), "--config", str(config), cwd=cwd)
    assert first.returncode == 0, first.stderr
    return config


def loaded_by_a_judge_with_nothing_to_do(run: Path, config: Path, cwd: Path) -> list[str]:
    """``touchstone judge`` of the judged ``run`` in a fresh process, which says that it
    judged nothing new: the modules of ``NOT_LOADED`` it imported all the same."""
    probe = subprocess.run(
        [sys.executable, "-c", PROBE, "judge", str(run), "--config", str(config)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert probe.returncode == 0, probe.stderr
    assert "0 neue Bewertungen" in probe.stdout
    loaded: list[str] = json.loads(probe.stdout.rpartition("LOADED ")[2])
    return loaded


def test_a_settled_judge_loads_no_sdk_no_templates_no_gui(
    answered_run: Path, sim: SimServer, tmp_path: Path
) -> None:
    config = judged_once(answered_run, sim, tmp_path)
    assert (answered_run / JUDGE_STATE).exists()
    assert loaded_by_a_judge_with_nothing_to_do(answered_run, config, tmp_path) == []


def test_a_judged_run_without_its_settled_state_asks_nothing_and_loads_no_sdk(
    answered_run: Path, sim: SimServer, tmp_path: Path
) -> None:
    """A first resume (every cell judged, no ``judge-state.json``: an older touchstone's run)
    reads every record but calls nothing, so it need not import the SDK either."""
    config = judged_once(answered_run, sim, tmp_path)
    (answered_run / JUDGE_STATE).unlink()
    calls = sim.calls.get("sim-judge", 0)
    loaded = loaded_by_a_judge_with_nothing_to_do(answered_run, config, tmp_path)
    assert sim.calls.get("sim-judge", 0) == calls
    assert "openai" not in loaded and "httpx" not in loaded
