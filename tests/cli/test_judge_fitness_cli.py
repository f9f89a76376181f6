"""An unfit judge on the command line (issue 37 §3): ``judge`` after ``judge-check`` found the
judge unfit says so before its first call and on the scorecard's first lines; with
``on_unfit: stop`` it ends with exit 1 before any call, nothing written."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_cli import assert_clean_failure, judge_config
from tests.conftest import run_cli
from touchstone.sim import SimServer
from touchstone.store import SCORECARD_JSON


def _files(run: Path) -> dict[str, bytes]:
    """The run's files but its lock (which names the process that held it last)."""
    files = sorted(run.iterdir())
    return {p.name: p.read_bytes() for p in files if p.is_file() and not p.name.startswith(".lock")}


def test_judge_with_an_unfit_judge_warns_first_and_on_unfit_stop_ends_it(
    sim: SimServer, answered_run: Path, tmp_path: Path
) -> None:
    config = judge_config(tmp_path / "judge.yaml", sim, "sim-gullible", call_timeout_s=10)
    checked = run_cli("judge-check", str(answered_run), "--config", str(config), cwd=tmp_path)
    assert_clean_failure(checked, 1)
    stop = judge_config(tmp_path / "stop.yaml", sim, "sim-gullible", call_timeout_s=10)
    stop.write_text(stop.read_text(encoding="utf-8") + "on_unfit: stop\n", encoding="utf-8")
    before, calls = _files(answered_run), sim.calls.get("sim-gullible", 0)
    stopped = run_cli("judge", str(answered_run), "--config", str(stop), cwd=tmp_path)
    assert_clean_failure(stopped, 1)
    said = " ".join(stopped.stderr.split())
    assert "„sim-gullible“ ist laut seinem letzten Judge-Check ungeeignet (verfehlt: " in said
    assert "on_unfit: stop" in said and "nichts wurde geschrieben" in said
    assert sim.calls.get("sim-gullible", 0) == calls
    assert _files(answered_run) == before
    judged = run_cli("judge", str(answered_run), "--config", str(config), cwd=tmp_path)
    assert judged.returncode == 0, judged.stderr
    # Said before the calls (stderr), and first on the card (stdout).
    assert "⚠ Judge-Check: ungeeignet (" in judged.stderr
    first = judged.stdout.splitlines()[0]
    assert first.startswith("Judge-Check: ungeeignet (")
    assert first.endswith("diese Wertungen sind nicht belastbar.")
    fitness = json.loads((answered_run / SCORECARD_JSON).read_text(encoding="utf-8"))
    assert fitness["judge_fitness"]["verdict"] == "ungeeignet"
    report = run_cli("report", str(answered_run), cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    html = (answered_run / "report.html").read_text(encoding="utf-8")
    assert "diese Wertungen sind nicht belastbar" in html
