"""The verdict cache: identical work is judged once, failures are never reused."""

import shutil
from pathlib import Path

import pytest

from touchstone.judge import JudgeConfig, JudgeEndpoint, judge_bundle
from touchstone.judge.cache import CACHE_FILE, VerdictCache, cache_key
from touchstone.pack import Pack
from touchstone.sim import SimServer
from touchstone.stages import execute_judge, execute_run
from touchstone.store import RunDir

from .conftest import FakeJudge, make_response, timeout_error


def test_96_cells_with_6_distinct_answers_cost_at_most_7_calls(tiny_pack: Pack) -> None:
    cells = [
        make_response(prompt_id, category=prompt_id[0], repeat=16 * k + r, text=f"Antwort {kind}")
        for prompt_id in ("R1", "R2", "S1")
        for k, kind in enumerate(("a", "b"))
        for r in range(1, 17)
    ]
    assert len(cells) == 96
    judge = FakeJudge()
    persisted = []
    verdicts, reports = judge_bundle(
        judge, cells, tiny_pack, concurrency=16, cache=VerdictCache(), on_verdict=persisted.append
    )
    assert len(judge.history) <= 7  # six distinct judge prompts plus the holistic call
    assert len(verdicts) == len(persisted) == 96
    assert sum(v.cached for v in verdicts) == 90
    assert not any(v.unscored for v in verdicts) and len(reports) == 1


def test_different_variant_or_answer_or_judge_is_a_miss(tiny_pack: Pack) -> None:
    system, user = "s", "u"
    assert cache_key("j", system, user) != cache_key("k", system, user)
    assert cache_key("j", system, user) != cache_key("j", system, user + "!")
    cells = [
        make_response("R1", text="gleich"),
        make_response("R1", text="gleich", variant="knapp"),
    ]
    judge = FakeJudge()
    judge_bundle(judge, cells, tiny_pack, cache=VerdictCache())
    assert len(judge.history) == 2 + 2  # two cells, two holistic calls


@pytest.fixture
def two_runs(sim: SimServer, tiny_pack_path: Path, tmp_path: Path) -> tuple[Path, Path]:
    first = tmp_path / "a"
    execute_run(pack_path=tiny_pack_path, models=["sim-gut"], out=first, base_url=sim.base_url)
    second = tmp_path / "b"
    shutil.copytree(first, second)
    return first, second


def config(sim: SimServer) -> JudgeConfig:
    return JudgeConfig(JudgeEndpoint(sim.base_url), "sim-judge")


def test_user_cache_serves_another_run_dir(
    two_runs: tuple[Path, Path], sim: SimServer, private_verdict_cache: Path
) -> None:
    first, second = two_runs
    judge = FakeJudge()
    execute_judge(first, config=config(sim), backend=judge)
    assert len(judge.history) == 6 + 2
    assert (private_verdict_cache / CACHE_FILE).is_file()

    again = FakeJudge()
    outcome = execute_judge(second, config=config(sim), backend=again)
    assert len(again.history) == 2  # only the holistic calls
    assert all(v.cached for v in RunDir(second).load_verdicts())
    assert outcome.health.calls == 2

    bypass = FakeJudge()
    execute_judge(second, config=config(sim), backend=bypass, rejudge="all")
    assert len(bypass.history) == 6 + 2
    assert not any(v.cached for v in RunDir(second).load_verdicts())


def test_no_cache_judges_again_and_writes_nothing(
    two_runs: tuple[Path, Path], sim: SimServer, private_verdict_cache: Path
) -> None:
    first, second = two_runs
    execute_judge(first, config=config(sim), backend=FakeJudge(), use_cache=False)
    assert not (private_verdict_cache / CACHE_FILE).exists()
    judge = FakeJudge()
    execute_judge(second, config=config(sim), backend=judge, use_cache=False)
    assert len(judge.history) == 6 + 2


def test_judge_errors_and_unparseable_replies_are_never_cached(
    two_runs: tuple[Path, Path], sim: SimServer
) -> None:
    first, second = two_runs
    execute_judge(first, config=config(sim), backend=FakeJudge([timeout_error(), "kein JSON"]))
    judge = FakeJudge()
    execute_judge(second, config=config(sim), backend=judge)
    assert len(judge.history) == 2 + 2  # the failed and the unparseable cell, then holistic
