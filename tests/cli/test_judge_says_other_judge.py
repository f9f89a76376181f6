"""A changed judge in the config does nothing silently (issue 36): the verdicts of the run
came from sim-judge, the config now names sim-gullible, and ``judge`` showed the old card as
if it were the new judge's. It now says whose verdicts they are and how to re-judge; the exit
code stays 0 (nothing failed)."""

from pathlib import Path

from tests.cli.test_cli import judge_config
from tests.conftest import run_cli
from touchstone.sim import SimServer
from touchstone.stages.judge.judge import execute_judge


def test_judge_with_another_judge_in_the_config_names_both_and_the_rejudge(
    sim: SimServer, answered_run: Path, tmp_path: Path
) -> None:
    first = judge_config(tmp_path / "judge.yaml", sim, "sim-judge")
    execute_judge(answered_run, config=first)
    other = judge_config(tmp_path / "judge.yaml", sim, "sim-gullible")
    calls = sim.calls.get("sim-gullible", 0)
    result = run_cli("judge", str(answered_run), "--config", str(other), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert "Die Bewertungen stammen von Judge sim-judge; die Konfiguration nennt sim-gullible." in (
        text
    )
    assert f"Neu bewerten: touchstone judge {answered_run} --config {other} --rejudge all" in text
    assert sim.calls.get("sim-gullible", 0) == calls  # nothing judged anew behind the back


def test_the_same_judge_or_a_model_override_that_matches_says_nothing(
    sim: SimServer, answered_run: Path, tmp_path: Path
) -> None:
    config = judge_config(tmp_path / "judge.yaml", sim, "sim-gullible")
    execute_judge(answered_run, config=config, model="sim-judge")
    result = run_cli(
        "judge", str(answered_run), "--config", str(config), "--model", "sim-judge", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert "stammen von Judge" not in result.stdout
    again = run_cli("judge", str(answered_run), "--config", str(config), cwd=tmp_path)
    assert "stammen von Judge sim-judge; die Konfiguration nennt sim-gullible" in " ".join(
        again.stdout.split()
    )
