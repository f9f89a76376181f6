"""``touchstone judge --dry-run`` with a jury (design.md §18, §19): per member the calls it.

Here the tests through touchstone's CLI in a subprocess; the in-process ones are in
``tests/unit/jury/test_jury_preview.py``."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_cost import judge_dry_run
from tests.unit.jury.test_jury_preview import priced_jury
from touchstone.sim import SimServer


def test_cli_jury_dry_run_prints_members_and_total(
    answered_run: Path, tmp_path: Path, sim: SimServer
) -> None:
    config = priced_jury(tmp_path / "jury.yaml", sim)
    out = judge_dry_run(answered_run, config, tmp_path)
    assert "Judge sim-judge:\n  Aufrufe: 16\n" in out
    assert "Judge sim-strict:\n  Aufrufe: 12\n" in out
    assert "Jury gesamt:\n  Aufrufe: 28\n" in out
