"""Typos and wrong endpoints in `touchstone run` (issue 23 §2, design.md §4; design.md §22, §12).

Here the tests through touchstone's CLI in a subprocess; the in-process ones are in
``tests/unit/stages/test_run_typos.py``."""

from pathlib import Path

from tests.conftest import PackRun, run_args, run_cli
from tests.unit.stages.test_run_typos import SDK_NAMES, closed_port, manifest_models
from touchstone.sim import SimServer


def test_a_misspelt_model_is_told_in_german_with_the_names_the_endpoint_knows(
    tiny_run: PackRun, tmp_path: Path
) -> None:
    out = tiny_run.out
    endpoint = (tiny_run.pack_path, tiny_run.base_url, out)
    result = run_cli(*run_args(*endpoint, "sim-gutt", "sim-gut"), cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    text = " ".join(result.stderr.split())
    assert "Meinten Sie „sim-gut“?" in text
    assert "sim-gutt" in text and "--model" in text
    # The right name is a new model for the run's other models: the advice says --extend.
    assert "--model und --extend" in text
    assert not any(name in text for name in SDK_NAMES)
    # Running the same command again would fail the same way: no such advice after a 404.
    assert "Derselbe Befehl" not in text and "holt sie nach" not in text
    # Progress counts saved answers: 6 of 12, never 12/12 with half of them skipped.
    assert "12/12" not in result.stderr and "6/12" in result.stderr
    assert "übersprungen" in result.stderr
    # The model that never answered is not part of the run.
    assert manifest_models(out) == ["sim-gut"]

    # With the name corrected (and --extend, as advised), the run goes on and records it.
    fixed = run_cli(*run_args(*endpoint, "sim-gut", "sim-mittel"), "--extend", cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stderr
    assert manifest_models(out) == ["sim-gut", "sim-mittel"]


def test_a_dead_base_url_asks_whether_the_server_runs_and_judge_finds_no_answers(
    sim: SimServer, tiny_pack_path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "tot"
    # Made before: a run dir the command did not create stays, even without an answer.
    out.mkdir()
    dead = f"http://127.0.0.1:{closed_port()}/v1"
    result = run_cli(
        *run_args(tiny_pack_path, dead, out, "sim-gut"),
        "--call-timeout-s",
        "1",
        cwd=tmp_path,
    )
    assert result.returncode == 1, result.stderr
    text = " ".join(result.stderr.split())
    assert f"Läuft der Server unter {dead}?" in text and "--base-url" in text
    assert not any(name in text for name in SDK_NAMES)
    assert "6/6" not in result.stderr and "0/6" in result.stderr
    assert manifest_models(out) == []

    config = tmp_path / "judge.yaml"
    config.write_text(
        f"endpoint: {{base_url: '{sim.base_url}'}}\nmodel: sim-judge\n", encoding="utf-8"
    )
    before = sorted(p.name for p in out.iterdir())
    calls = sim.calls.get("sim-judge", 0)
    judged = run_cli("judge", str(out), "--config", str(config), cwd=tmp_path)
    assert judged.returncode == 2, judged.stderr
    assert "Traceback" not in judged.stderr
    text = " ".join(judged.stderr.split())
    assert "Keine Antworten – zuerst `touchstone run`" in text and str(out) in text
    assert "Scorecard" not in judged.stdout
    assert sorted(p.name for p in out.iterdir()) == before
    assert sim.calls.get("sim-judge", 0) == calls
    # Nor is there anything to report: no report of nothing that looks like one of a run.
    reported = run_cli("report", str(out), cwd=tmp_path)
    assert reported.returncode == 2, reported.stderr
    assert "Keine Antworten – zuerst `touchstone run`" in " ".join(reported.stderr.split())
    assert sorted(p.name for p in out.iterdir()) == before
