"""Real endpoints (design.md §12, issue 13): rate limits, quotas, proxies, advice, tokens, cost.

Here the tests through touchstone's CLI in a subprocess; the in-process ones are in
``tests/http/test_endpoints.py``."""

import json
from pathlib import Path

import pytest

from tests.cli.test_cli import assert_clean_failure, judge_config
from tests.conftest import run_cli
from touchstone.jury.verdicts import run_cells
from touchstone.sim import SimServer
from touchstone.store import RunDir


def test_a_rate_limit_past_the_deadline_is_a_failure_with_its_advice(
    sim: SimServer, four_model_run: Path, tmp_path: Path
) -> None:
    config = judge_config(tmp_path / "j.yaml", sim, "sim-429", call_timeout_s=1)
    result = run_cli("judge", str(four_model_run), "--config", str(config), cwd=tmp_path)
    assert_clean_failure(result, 1)
    assert "Ratenlimit (" in result.stderr and "concurrency" in result.stderr
    assert "Thinking" not in result.stderr


@pytest.mark.parametrize("model", ["sim-quota", "sim-402"])
def test_quota_exhausted_stops_after_one_call_and_a_later_resume_finishes(
    sim: SimServer, four_model_run: Path, tmp_path: Path, model: str
) -> None:
    before = sim.calls.get(model, 0)
    result = run_cli(
        "judge",
        str(four_model_run),
        "--config",
        str(judge_config(tmp_path / "q.yaml", sim, model)),
        cwd=tmp_path,
    )
    assert_clean_failure(result, 1)
    assert "Kontingent erschöpft" in result.stderr and f"„{model}“" in result.stderr
    assert "fortsetzen" in result.stderr
    assert sim.calls[model] - before == 1
    good = judge_config(tmp_path / "g.yaml", sim, "sim-judge")
    assert (
        run_cli("judge", str(four_model_run), "--config", str(good), cwd=tmp_path).returncode == 0
    )
    assert len(run_cells(RunDir(four_model_run)).cells) == 24


def test_a_proxied_content_filter_is_refused_and_isolated(
    sim: SimServer, four_model_run: Path, tmp_path: Path
) -> None:
    breaker = {"max_consecutive_failures": 1, "max_failure_ratio": 0}
    config = judge_config(tmp_path / "j.yaml", sim, "sim-proxy-filter", **breaker)
    result = run_cli("judge", str(four_model_run), "--config", str(config), cwd=tmp_path)
    assert_clean_failure(result, 0)
    assert "Prompt verweigert: 24" in result.stdout


@pytest.mark.parametrize(
    ("model", "words"),
    [
        ("sim-proxy-unknown-model", ["nicht gefunden", "Modellnamen"]),
        ("sim-proxy-no-db", ["Zugang abgelehnt", "api_key_env"]),
        ("sim-jduge", ["nicht gefunden", "Meinten Sie „sim-judge“"]),
        ("sim-401", ["Zugang abgelehnt", "api_key_env"]),
    ],
)
def test_a_judge_that_can_never_work_stops_after_one_call_with_fitting_advice(
    sim: SimServer, four_model_run: Path, tmp_path: Path, model: str, words: list[str]
) -> None:
    before = sim.calls.get(model, 0)
    config = judge_config(tmp_path / "j.yaml", sim, model)
    result = run_cli("judge", str(four_model_run), "--config", str(config), cwd=tmp_path)
    assert_clean_failure(result, 1)
    for word in words:
        assert word in result.stderr
    assert "Thinking" not in result.stderr and ".." not in result.stderr
    assert sim.calls.get(model, 0) - before == 1


def test_a_dead_endpoint_names_its_base_url(four_model_run: Path, tmp_path: Path) -> None:
    config = tmp_path / "j.yaml"
    config.write_text(
        "endpoint: {base_url: 'http://nutzer:GEHEIM@127.0.0.1:9/v1'}\nmodel: j\n"
        "call_timeout_s: 2\n",
        encoding="utf-8",
    )
    result = run_cli("judge", str(four_model_run), "--config", str(config), cwd=tmp_path)
    assert_clean_failure(result, 1)
    assert "Läuft der Server unter http://127.0.0.1:9/v1?" in result.stderr
    assert "GEHEIM" not in result.stderr and ".." not in result.stderr


def test_tokens_per_verdict_totals_and_cost(
    sim: SimServer, four_model_run: Path, tmp_path: Path
) -> None:
    config = judge_config(
        tmp_path / "j.yaml", sim, "sim-judge", price_per_million={"input": 2.5, "output": 10}
    )
    events = tmp_path / "events.jsonl"
    result = run_cli(
        "judge", str(four_model_run), "--config", str(config), "--events", str(events), cwd=tmp_path
    )
    assert_clean_failure(result, 0)
    verdicts = run_cells(RunDir(four_model_run)).cells
    assert all(v.judge_prompt_tokens and v.judge_completion_tokens for v in verdicts)
    health = json.loads(events.read_text(encoding="utf-8").splitlines()[-1])["health"]
    prompt = sum(v.judge_prompt_tokens or 0 for v in verdicts)
    assert health["prompt_tokens"] > prompt > 0  # the holistic calls count too
    expected = (health["prompt_tokens"] * 2.5 + health["completion_tokens"] * 10) / 1e6
    assert health["cost"] == pytest.approx(expected, abs=1e-6)
    assert "Kosten: " in result.stdout and "Tokens: " in result.stdout
