"""A server's reply with an integer of more than 4,300 digits (JSON allows it, Python's json
refuses it; issue 35), streamed and not: a malformed reply of that server, named and advised
as such, never "keine Verbindung"; an answer of it is recorded as failed, not asked again.
Over real HTTP against the simulator's ``sim-bignum``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.test_cli import judge_config
from tests.conftest import answer_once, run_on_sim
from touchstone.advice import cause
from touchstone.answers import OpenAIAnswerBackend
from touchstone.errors import JudgeAborted, JudgeCallError, ModelCallError
from touchstone.judge.backend import OpenAIJudgeBackend, ask_judge
from touchstone.sim import SimServer
from touchstone.stages.judge.judge import execute_judge
from touchstone.store import RunDir

SAID = "eine Zahl mit mehr als 4300 Ziffern"


@pytest.mark.parametrize("stream", [True, False])
def test_a_reply_with_a_huge_integer_is_a_malformed_reply(sim: SimServer, stream: bool) -> None:
    judge = OpenAIJudgeBackend(sim.base_url, "", "sim-bignum", deadline_s=5, stream=stream)
    with pytest.raises(JudgeCallError) as judged:
        ask_judge(judge, system="s", user="u")
    error = judged.value
    assert error.kind == "malformed" and SAID in str(error)
    assert cause(error).startswith("fehlerhafte Antwort („") and "Exceeds" not in cause(error)


def test_an_answer_with_a_huge_integer_is_a_malformed_reply(sim: SimServer) -> None:
    # The answer backend always streams.
    answers = OpenAIAnswerBackend(sim.base_url, "", deadline_s=5)
    with pytest.raises(ModelCallError) as answered:
        answer_once(answers, model="sim-bignum", system="s", user="u")
    assert answered.value.kind == "malformed" and SAID in str(answered.value)


def test_its_answers_are_recorded_as_failed_and_not_asked_again(
    sim: SimServer, tiny_pack_path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "r"
    options = {"pack_path": tiny_pack_path, "variants": ["none"], "out": out}
    outcome = run_on_sim(sim, models=["sim-bignum", "sim-gut"], **options)
    assert outcome.summary.failures == {"malformed": 3} and outcome.summary.left == 0
    failed = [r for r in RunDir(out).load_responses() if r.model == "sim-bignum"]
    assert len(failed) == 3 and all(r.error_kind == "malformed" and SAID in r.error for r in failed)
    asked = sim.calls["sim-bignum"]
    assert run_on_sim(sim, models=["sim-bignum", "sim-gut"], **options).summary.left == 0
    assert sim.calls["sim-bignum"] == asked


def test_a_judge_that_sends_them_stops_with_advice_about_the_server(
    sim: SimServer, answered_run: Path, tmp_path: Path
) -> None:
    config = judge_config(tmp_path / "j.yaml", sim, "sim-bignum", max_consecutive_failures=2)
    with pytest.raises(JudgeAborted) as stopped:
        execute_judge(answered_run, config=config)
    message = " ".join(str(stopped.value).split())
    assert (
        "fehlerhafte Antwort" in message and "nicht mit einer lesbaren Chat-Completion" in message
    )
    assert "keine Verbindung" not in message and "Läuft der Server" not in message
