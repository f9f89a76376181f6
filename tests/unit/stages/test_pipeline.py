"""The judge stage's bookkeeping: health, events, and what a bad judge may not destroy."""

from pathlib import Path

import pytest

from tests.conftest import FakeJudge, run_on_sim, timeout_error
from touchstone.errors import JudgeAborted
from touchstone.judge.config import JudgeConfig, JudgeEndpoint
from touchstone.jury.verdicts import run_cells
from touchstone.sim import SimServer
from touchstone.stages.judge.judge import execute_judge
from touchstone.store import RunDir


@pytest.fixture
def run_dir(sim: SimServer, tiny_pack_path: Path, tmp_path: Path) -> Path:
    out = tmp_path / "run"
    run_on_sim(sim, pack_path=tiny_pack_path, models=["sim-gut"], variants=["none"], out=out)
    return out


def config(sim: SimServer) -> JudgeConfig:
    return JudgeConfig(JudgeEndpoint(sim.base_url), "unused")


def test_events_and_health_of_a_judge_run(run_dir: Path, sim: SimServer) -> None:
    events: list[tuple[str, dict]] = []
    judge = FakeJudge([timeout_error(), "kein JSON"])
    outcome = execute_judge(
        run_dir,
        config=config(sim),
        backend=judge,
        on_event=lambda kind, data: events.append((kind, data)),
    )
    kinds = [k for k, _ in events]
    assert kinds[0] == "start" and kinds[-1] == "done"
    assert kinds.count("judge_error") == 1 and kinds.count("progress") == 2
    health = outcome.health.as_dict()
    assert (health["calls"], health["successes"], health["failures"]) == (4, 3, {"timeout": 1})
    assert (health["unparseable"], health["cells_left"]) == (1, 1)
    assert events[-1][1]["health"] == health
    assert "Judge-Bilanz: 4 Aufrufe" in outcome.health.summary_de()


def test_abort_keeps_landed_verdicts_and_reports_health(run_dir: Path, sim: SimServer) -> None:
    judge = FakeJudge(
        ['{"score": 3, "red_flag": false, "rationale": "ok"}', timeout_error(), timeout_error()]
    )
    cfg = JudgeConfig(JudgeEndpoint(sim.base_url), "unused", max_consecutive_failures=2)
    with pytest.raises(JudgeAborted) as info:
        execute_judge(run_dir, config=cfg, backend=judge)
    assert "3 Aufrufe" in info.value.health_summary
    assert [v.score for v in run_cells(RunDir(run_dir)).cells] == [3]


def test_bad_judge_on_a_finished_run_keeps_the_good_holistic_report(
    run_dir: Path, sim: SimServer
) -> None:
    execute_judge(
        run_dir,
        config=config(sim),
        backend=FakeJudge(
            default='{"score": 4, "red_flag": false, "rationale": "gut", '
            '"korrektheit": {"score": 4, "rationale": "a"}, '
            '"sprache": {"score": 5, "rationale": "b"}}'
        ),
    )
    (good,) = RunDir(run_dir).load_reports()
    assert good.dim_scores == {"korrektheit": 4.0, "sprache": 5.0}
    execute_judge(run_dir, config=config(sim), backend=FakeJudge([timeout_error()]))
    assert RunDir(run_dir).load_reports() == [good]
