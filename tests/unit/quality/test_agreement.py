"""Agreement of re-judged cells with their previous verdicts (DESIGN §14, issue 15)."""

import json
from pathlib import Path

import pytest

from tests.cli.test_cli import judge_config
from tests.conftest import run_cli
from touchstone.sim import SimServer
from touchstone.stages import execute_run
from touchstone.stats.kappa import weighted_kappa


@pytest.mark.parametrize(
    ("first", "second", "kappa"),
    [
        ([0, 3, 5, 2], [0, 3, 5, 2], 1.0),
        ([0, 0, 1, 1], [0, 1, 0, 1], 0.0),
        ([0, 1, 2], [2, 1, 0], -1.0),
    ],
)
def test_weighted_kappa(first: list[int], second: list[int], kappa: float) -> None:
    span = (min(first + second), max(first + second))
    assert weighted_kappa(list(zip(first, second, strict=True)), *span) == pytest.approx(kappa)


def test_weighted_kappa_is_the_confusion_matrix_definition() -> None:
    # Cohen's kappa with quadratic weights w_ij = (i - j)^2 / (k - 1)^2 over the k x k
    # confusion matrix O and the product of its marginals E: 1 - sum(w O) / sum(w E).
    import random

    rng = random.Random(8)
    for _ in range(50):
        n = rng.randint(5, 40)
        pairs = [(rng.randint(0, 5), rng.randint(0, 5)) for _ in range(n)]
        observed = [[0.0] * 6 for _ in range(6)]
        for a, b in pairs:
            observed[a][b] += 1
        rows = [sum(observed[i]) for i in range(6)]
        cols = [sum(observed[i][j] for i in range(6)) for j in range(6)]
        weight = [[(i - j) ** 2 / 25 for j in range(6)] for i in range(6)]
        seen = sum(weight[i][j] * observed[i][j] for i in range(6) for j in range(6))
        chance = sum(weight[i][j] * rows[i] * cols[j] / n for i in range(6) for j in range(6))
        expected = None if chance == 0 else 1 - seen / chance
        assert weighted_kappa(pairs, 0, 5) == pytest.approx(expected)


def test_kappa_is_undefined_when_no_judge_varies() -> None:
    assert weighted_kappa([(3, 3), (3, 3)], 0, 5) is None


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
    execute_run(
        pack_path=tiny_pack_path,
        models=["sim-gut", "sim-schwach"],
        out=answered_run,
        base_url=sim.base_url,
    )
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
