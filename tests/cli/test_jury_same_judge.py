"""A jury that names one judge twice, its URL written differently, is bad input (issue 35):
exit 2 with the German message naming both entries, no call, the run dir as it was. The
in-process cases are in ``tests/unit/jury/test_jury_same_judge.py``."""

from pathlib import Path

from tests.conftest import run_cli
from touchstone.sim import SimServer


def test_a_judge_written_three_ways_is_refused_before_any_call(
    sim: SimServer, answered_run: Path, tmp_path: Path
) -> None:
    port = sim.port
    config = tmp_path / "jury.yaml"
    config.write_text(
        "judges:\n"
        f"  - {{endpoint: {{base_url: 'http://127.0.0.1:{port}/v1'}}, model: sim-judge}}\n"
        f"  - {{endpoint: {{base_url: 'http://127.0.0.1:{port}/v1/'}}, model: sim-judge}}\n"
        f"  - {{endpoint: {{base_url: 'http://localhost:{port}/v1'}}, model: sim-judge}}\n",
        encoding="utf-8",
    )
    before = sorted(p.name for p in answered_run.iterdir())
    asked = dict(sim.calls)
    refused = run_cli("judge", str(answered_run), "--config", str(config), cwd=tmp_path)
    assert refused.returncode == 2, refused.stderr
    assert "steht zweimal in der Jury" in refused.stderr
    assert "judges[0]" in refused.stderr and "judges[1]" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert sim.calls == asked
    assert sorted(p.name for p in answered_run.iterdir()) == before
