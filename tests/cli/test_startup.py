"""A settled ``judge`` (design.md §10) calls no endpoint and writes no page: it starts without the
modules for those (the openai SDK and touchstone's transport, the event loop, the judging and
answering passes, judge-check's probes, jinja2, the GUI stack, typer's rich help). Counted in
``sys.modules`` of a fresh process, not timed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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


def test_a_settled_judge_loads_no_sdk_no_templates_no_gui(
    answered_run: Path, sim: SimServer, tmp_path: Path
) -> None:
    config = tmp_path / "judge.yaml"
    config.write_text(
        f"endpoint: {{base_url: '{sim.base_url}'}}\nmodel: sim-judge\n", encoding="utf-8"
    )
    first = run_cli("judge", str(answered_run), "--config", str(config), cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert (answered_run / JUDGE_STATE).exists()
    settled = subprocess.run(
        [sys.executable, "-c", PROBE, "judge", str(answered_run), "--config", str(config)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert settled.returncode == 0, settled.stderr
    assert "0 neue Bewertungen" in settled.stdout
    loaded = settled.stdout.rpartition("LOADED ")[2]
    assert json.loads(loaded) == []


def test_a_judged_run_without_its_settled_state_asks_nothing_and_loads_no_sdk(
    answered_run: Path, sim: SimServer, tmp_path: Path
) -> None:
    """A first resume (every cell judged, no ``judge-state.json``: an older touchstone's run)
    reads every record but calls nothing, so it need not import the SDK either."""
    config = tmp_path / "judge.yaml"
    config.write_text(
        f"endpoint: {{base_url: '{sim.base_url}'}}\nmodel: sim-judge\n", encoding="utf-8"
    )
    first = run_cli("judge", str(answered_run), "--config", str(config), cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    (answered_run / JUDGE_STATE).unlink()
    calls = sim.calls.get("sim-judge", 0)
    resumed = subprocess.run(
        [sys.executable, "-c", PROBE, "judge", str(answered_run), "--config", str(config)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert "0 neue Bewertungen" in resumed.stdout
    assert sim.calls.get("sim-judge", 0) == calls
    loaded = json.loads(resumed.stdout.rpartition("LOADED ")[2])
    assert "openai" not in loaded and "httpx" not in loaded
