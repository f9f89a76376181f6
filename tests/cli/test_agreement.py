"""Agreement of re-judged cells with their previous verdicts (design.md §14, issue 15).

Here the tests through touchstone's CLI in a subprocess; the in-process ones are in
``tests/unit/quality/test_agreement.py``."""

import json
from pathlib import Path

import pytest

from tests.cli.test_cli import judge_config
from tests.conftest import run_cli, run_on_sim
from touchstone.sim import SimServer


def verdicts(run: Path) -> dict[tuple, dict]:
    lines = (run / "judgements.jsonl").read_text(encoding="utf-8").splitlines()
    return {
        (v["model"], v["variant"], v["prompt_id"], v["repeat"]): v for v in map(json.loads, lines)
    }


def done_event(events: Path) -> dict:
    lines = [json.loads(line) for line in events.read_text(encoding="utf-8").splitlines()]
    return next(e for e in reversed(lines) if e["event"] == "done")


@pytest.fixture
def judged(sim: SimServer, tiny_pack_path: Path, tmp_path: Path) -> Path:
    answered_run = tmp_path / "runs" / "tiny"
    run_on_sim(sim, pack_path=tiny_pack_path, models=["sim-gut", "sim-schwach"], out=answered_run)
    config = judge_config(answered_run.parent / "gut.yaml", sim, "sim-judge")
    result = run_cli("judge", str(answered_run), "--config", str(config), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    return answered_run


def rejudge(run: Path, *options: str) -> tuple[str, dict | None]:
    """``touchstone judge RUN`` with the good judge's config and ``options``: its stdout and
    the agreement of its ``done`` event."""
    events = run.parent / "events.jsonl"
    events.unlink(missing_ok=True)
    config = run.parent / "gut.yaml"
    result = run_cli(
        "judge",
        str(run),
        "--config",
        str(config),
        *options,
        "--events",
        str(events),
        cwd=run.parent,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout, done_event(events)["agreement"]


def test_rejudging_with_another_judge_reports_agreement(judged: Path) -> None:
    before = verdicts(judged)
    stdout, agreement = rejudge(judged, "--model", "sim-constant", "--rejudge", "all")
    after = verdicts(judged)
    exact = sum(before[k]["score"] == after[k]["score"] for k in before) / len(before)
    flags = sum(before[k]["red_flag"] == after[k]["red_flag"] for k in before) / len(before)
    assert agreement is not None
    assert agreement["cells"] == len(before) == 12
    assert agreement["exact"] == pytest.approx(exact, abs=1e-4)
    assert agreement["red_flag"] == pytest.approx(flags, abs=1e-4)
    # A judge that never varies agrees with any other only as well as chance does.
    assert agreement["weighted_kappa"] == 0.0
    assert agreement["previous_judges"] == ["sim-judge"] and agreement["judge"] == "sim-constant"
    line = "Übereinstimmung mit dem bisherigen Judge (sim-judge) auf 12 neu bewerteten Zellen"
    assert line in stdout
    assert f"exakt {round(exact * 100)} %" in stdout


def test_the_same_judge_again_agrees_with_itself(sim: SimServer, judged: Path) -> None:
    before = sim.calls["sim-judge"]
    stdout, agreement = rejudge(judged, "--rejudge", "all")
    # Judged again for real (the cache is not read with --rejudge), not served from it.
    assert sim.calls["sim-judge"] - before >= 12
    assert agreement is not None
    assert (agreement["exact"], agreement["weighted_kappa"]) == (1.0, 1.0)
    assert "desselben Judges (sim-judge)" in stdout


def test_no_agreement_when_nothing_was_judged_again(judged: Path) -> None:
    stdout, agreement = rejudge(judged, "--model", "sim-constant")
    assert agreement is None
    assert "Übereinstimmung" not in stdout
