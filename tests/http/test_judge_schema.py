"""A small local judge answers in the JSON schema touchstone sends it (design.md §26).

Against the simulator through the real SDK: ``sim-prosa`` writes prose unless a schema is sent,
``sim-schemalos`` refuses any ``response_format`` with a 400.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_on_sim
from touchstone.bundled import bundled_pack
from touchstone.errors import JudgeAborted
from touchstone.judge.config import JudgeConfig, JudgeEndpoint
from touchstone.pack import load_pack
from touchstone.sim import SimServer
from touchstone.stages.judge.judge import execute_judge
from touchstone.stages.judge_check import execute_judge_check
from touchstone.store import RunDir


@pytest.fixture
def server() -> Any:
    """A simulator of this test's own: its history holds this test's calls only."""
    with SimServer() as fresh:
        yield fresh


@pytest.fixture
def run(server: SimServer, tiny_pack_path: Path, tmp_path: Path) -> Path:
    out = tmp_path / "run"
    run_on_sim(server, pack_path=tiny_pack_path, models=["sim-gut"], variants=["none"], out=out)
    return out


def judge_with(server: SimServer, run: Path, model: str, **keys: Any) -> Any:
    config = JudgeConfig(JudgeEndpoint(server.base_url), model, **keys)
    return execute_judge(run, config=config)


def verdicts_of(run: Path) -> list[Any]:
    return list(RunDir(run).read_judgements().verdicts)


def formats(server: SimServer, model: str) -> list[Any]:
    return [r.get("response_format") for r in server.history if r.get("model") == model]


def test_a_judge_that_writes_prose_is_read_when_asked_in_the_schema(
    server: SimServer, run: Path
) -> None:
    outcome = judge_with(server, run, "sim-prosa")
    verdicts = verdicts_of(run)
    assert verdicts and all(v.scored for v in verdicts)
    assert outcome.health.unparseable == 0
    cell, holistic = formats(server, "sim-prosa")[0], formats(server, "sim-prosa")[-1]
    assert cell["type"] == "json_schema" and cell["json_schema"]["strict"] is True
    verdict = cell["json_schema"]["schema"]
    assert cell["json_schema"]["name"] == "verdict"
    assert verdict["properties"]["score"] == {"type": "integer", "minimum": 0, "maximum": 5}
    assert set(verdict["required"]) == {"score", "red_flag", "rationale"}
    # The holistic call asks for the pack's dimensions, not for a verdict.
    assert holistic["json_schema"]["name"] == "dimensions"
    pack_dimensions = {d.id for d in outcome.pack.dimensions}
    assert pack_dimensions and set(holistic["json_schema"]["schema"]["required"]) == pack_dimensions
    reports = RunDir(run).load_reports()
    assert reports and all(r.scored for r in reports)


def test_the_rationale_is_bounded_to_fit_the_judges_max_tokens(
    server: SimServer, run: Path
) -> None:
    judge_with(server, run, "sim-prosa", max_tokens=120)
    bound = formats(server, "sim-prosa")[0]["json_schema"]["schema"]["properties"]["rationale"]
    # 120 tokens, of which the keys and braces take some: fewer characters than tokens x 3.
    assert 20 <= bound["maxLength"] < 120 * 3


@pytest.fixture
def larger_run(server: SimServer, tmp_path: Path) -> Path:
    """buero answered by one model in one variant: enough calls for the unreadable ratio."""
    out = tmp_path / "buero"
    run_on_sim(
        server, pack_path=bundled_pack("buero"), models=["sim-gut"], variants=["none"], out=out
    )
    return out


def test_schema_off_sends_none_and_the_unreadable_stop_names_the_setting_first(
    server: SimServer, larger_run: Path
) -> None:
    with pytest.raises(JudgeAborted) as stopped:
        judge_with(server, larger_run, "sim-prosa", schema="off")
    assert all(f is None for f in formats(server, "sim-prosa"))
    advice = stopped.value.advice
    assert stopped.value.kind == "unparseable"
    assert advice.index("schema: auto") < advice.index("Judge-Modell")


def test_an_endpoint_that_refuses_the_schema_is_judged_without_it_said_once(
    server: SimServer, run: Path
) -> None:
    outcome = judge_with(server, run, "sim-schemalos")
    assert all(v.scored for v in verdicts_of(run))
    sent = formats(server, "sim-schemalos")
    # The first call asked with the schema and was refused; every call after asked without.
    assert sent[0] is not None and all(f is None for f in sent[1:])
    assert len(sent) == 1 + len(verdicts_of(run)) + len(RunDir(run).load_reports())
    summary = outcome.health.summary_de()
    assert summary.count("response_format") == 1 and "ohne Schema" in summary


def test_schema_on_stops_at_the_first_refusal_naming_the_setting(
    server: SimServer, run: Path
) -> None:
    with pytest.raises(JudgeAborted) as stopped:
        judge_with(server, run, "sim-schemalos", schema="on")
    assert stopped.value.kind == "bad_request"
    assert "schema: on" in str(stopped.value)
    assert len(formats(server, "sim-schemalos")) == 1
    assert verdicts_of(run) == []


@pytest.mark.parametrize(
    ("model", "schema", "said"),
    [
        ("sim-prosa", "auto", "JSON-Schema: gesendet"),
        ("sim-schemalos", "auto", "JSON-Schema: vom Endpunkt abgelehnt"),
        ("sim-judge", "off", "JSON-Schema: nicht gesendet"),
    ],
)
def test_judge_check_says_whether_the_schema_was_used(
    server: SimServer, model: str, schema: str, said: str
) -> None:
    config = JudgeConfig(JudgeEndpoint(server.base_url), model, schema=schema)
    card = execute_judge_check(load_pack(bundled_pack("buero")), config=config)
    assert card.as_dict()["schema"].startswith(said)
    assert card.suitable  # in the schema, the prose judge judges as well as sim-judge
