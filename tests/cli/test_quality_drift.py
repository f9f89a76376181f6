"""Drift (design.md §17): a judge whose character changes behind the same name is noticed by the.

Here the tests through touchstone's CLI in a subprocess; the in-process ones are in
``tests/unit/quality/test_quality_drift.py``."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_cli
from touchstone.quality.drift import PROBES_DIR
from touchstone.sim import SimServer


def test_judge_check_on_the_command_line_says_whether_the_judge_answers_as_before(
    sim: SimServer, tmp_path: Path, private_verdict_cache: Path
) -> None:
    from tests.cli.test_cli import judge_config
    from tests.unit.quality.test_judge_check import BUERO

    config = judge_config(tmp_path / "j.yaml", sim, "sim-judge")
    args = ("judge-check", "--pack", str(BUERO), "--config", str(config))
    assert run_cli(*args, cwd=tmp_path).returncode == 0
    again = run_cli(*args, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "Der Judge antwortet wie am " in again.stdout
    # As if the judge behind this name had once answered otherwise: every stored score moved.
    (stored,) = (private_verdict_cache / PROBES_DIR).iterdir()
    data = json.loads(stored.read_text(encoding="utf-8"))
    for probe in data["probes"].values():
        probe["score"] = 5 - probe["score"] if probe["score"] != 2 else 4
    stored.write_text(json.dumps(data), encoding="utf-8")
    changed = run_cli(*args, cwd=tmp_path)
    flat = " ".join(changed.stdout.split())
    assert "Der Judge antwortet anders als am " in flat and "Proben anders bewertet" in flat
