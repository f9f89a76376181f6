"""A jury of judges end to end on the simulator (design.md §18): members in parallel, each under.

Here the tests through touchstone's CLI in a subprocess; the in-process ones are in
``tests/unit/jury/test_jury.py``."""

from pathlib import Path

from tests.conftest import run_cli
from touchstone.sim import SimServer


def test_cli_jury_says_who_was_dropped_and_refuses_model(
    sim: SimServer, answered_run: Path, tmp_path: Path
) -> None:
    config = tmp_path / "jury.yaml"
    config.write_text(
        "judges:\n"
        f"  - {{endpoint: {{base_url: '{sim.base_url}'}}, model: sim-judge}}\n"
        f"  - {{endpoint: {{base_url: '{sim.base_url}'}}, model: sim-strict}}\n"
        f"  - {{endpoint: {{base_url: '{sim.base_url}'}}, model: sim-think-endless,\n"
        "     call_timeout_s: 0.4, max_consecutive_failures: 2}\n"
        "quorum: 2\n",
        encoding="utf-8",
    )
    refused = run_cli(
        "judge", str(answered_run), "--config", str(config), "--model", "x", cwd=tmp_path
    )
    assert refused.returncode == 2 and "passt nicht zu einer Jury" in refused.stderr
    assert "Traceback" not in refused.stderr
    done = run_cli("judge", str(answered_run), "--config", str(config), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "⚠ Judge sim-think-endless ausgeschieden: 2 Judge-Aufrufe in Folge" in done.stderr
    assert "Judge sim-judge: " in done.stdout and "Judge sim-strict: " in done.stdout
