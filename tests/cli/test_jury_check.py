"""judge-check with a jury (design.md §14, §18): a card per member, and the jury's verdict.

Here the tests through touchstone's CLI in a subprocess; the in-process ones are in
``tests/unit/jury/test_jury_check.py``."""

from pathlib import Path

from tests.conftest import run_cli
from tests.unit.jury.test_jury_check import BUERO
from touchstone.sim import SimServer


def test_cli_prints_one_card_per_member_and_the_jurys_verdict(
    sim: SimServer, tmp_path: Path
) -> None:
    config = tmp_path / "jury.yaml"
    config.write_text(
        "judges:\n"
        f"  - {{endpoint: {{base_url: '{sim.base_url}'}}, model: sim-judge}}\n"
        f"  - {{endpoint: {{base_url: '{sim.base_url}'}}, model: sim-strict}}\n",
        encoding="utf-8",
    )
    result = run_cli("judge-check", "--pack", str(BUERO), "--config", str(config), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Judge-Check: sim-judge" in result.stdout and "Judge-Check: sim-strict" in result.stdout
    assert "Jury geeignet: 2 von 2 Judges geeignet (Quorum 2)." in result.stderr
    refused = run_cli(
        "judge-check", "--pack", str(BUERO), "--config", str(config), "--model", "m", cwd=tmp_path
    )
    assert refused.returncode == 2 and "passt nicht zu einer Jury" in refused.stderr
