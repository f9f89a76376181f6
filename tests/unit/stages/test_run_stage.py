"""The run stage over real HTTP against the simulator, and its failure policy."""

import json
from pathlib import Path

import pytest

from tests.conftest import PackRun, answer_once
from touchstone.answers import OpenAIAnswerBackend
from touchstone.errors import InputError, ModelCallError
from touchstone.pack import Pack
from touchstone.sim import SimServer
from touchstone.stages.run.answering import answer_cells
from touchstone.stages.run.run import execute_run
from touchstone.store import RunDir
from touchstone.transport.engine import run_blocking
from touchstone.transport.fake import FakeChat, SentCall
from touchstone.transport.replies import ChatReply


def test_run_records_every_cell_and_resumes_without_duplicates(
    sim: SimServer, tiny_run: PackRun
) -> None:
    out = tiny_run.out
    first = tiny_run("sim-gut", "sim-denker", api_key="geheimer-schluessel", repeats=2)
    assert first.summary.recorded == 2 * 2 * 2 * 3 and first.summary.complete
    responses = RunDir(out).load_responses()
    denker = [r for r in responses if r.model == "sim-denker"]
    assert all(
        r.ok and r.reasoning_chars > 0 and "Simulierte Antwort" in r.response_text for r in denker
    )
    assert all(r.finish_reason == "stop" and r.completion_tokens for r in responses)
    # Reasoning tokens as the server reports them (streamed usage), only where there are any.
    assert all(r.reasoning_tokens for r in denker)
    assert not any(r.reasoning_tokens for r in responses if r.model == "sim-gut")
    manifest = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert manifest["models"] == ["sim-gut", "sim-denker"] and manifest["variants"] == [
        "none",
        "knapp",
    ]
    assert "geheimer-schluessel" not in (out / "run.json").read_text(encoding="utf-8")

    calls_before = sum(sim.calls.values())
    again = tiny_run("sim-gut", "sim-denker", repeats=2)
    assert again.summary.recorded == 0 and again.summary.already_done == 24
    assert sum(sim.calls.values()) == calls_before
    assert len(RunDir(out).load_responses()) == 24


def test_transient_failures_are_not_persisted_and_auth_stops_the_model(tiny_run: PackRun) -> None:
    outcome = tiny_run("sim-500", "sim-401", "sim-gut", variants=["none"])
    summary = outcome.summary
    assert not summary.complete and summary.left == 6
    assert (
        "sim-401" in summary.stopped_models
        and "AuthenticationError" in summary.stopped_models["sim-401"]
    )
    assert "sim-500" not in summary.stopped_models
    assert [r.model for r in RunDir(tiny_run.out).load_responses()] == ["sim-gut"] * 3


def test_overrunning_model_is_a_recorded_failed_answer(tiny_run: PackRun) -> None:
    outcome = tiny_run("sim-think-endless", variants=["none"], call_timeout_s=0.3)
    assert outcome.summary.complete and outcome.summary.failed_recorded == 3
    responses = RunDir(tiny_run.out).load_responses()
    assert all(not r.ok and r.error_kind == "timeout" for r in responses)


def test_bad_run_input(tiny_pack_path: Path, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="Unbekannte Variante"):
        execute_run(pack_path=tiny_pack_path, models=["m"], variants=["lang"], out=tmp_path / "r")
    with pytest.raises(InputError, match="--repeats"):
        execute_run(pack_path=tiny_pack_path, models=["m"], repeats=0, out=tmp_path / "r")
    assert not (tmp_path / "r").exists()


class ScriptedAnswers(FakeChat):
    """An answer backend that fails for the models named in ``failures``."""

    def __init__(self, failures: dict[str, str]) -> None:
        super().__init__(model="")
        self.failures = failures

    async def reply(self, sent: SentCall) -> str | ChatReply:
        if sent.model in self.failures:
            raise ModelCallError(f"X: {sent.model}", kind=self.failures[sent.model])  # type: ignore[arg-type]
        return ChatReply(
            content="<think>hmm</think>Antwort", reasoning="", finish_reason="stop", latency_s=0.1
        )


def test_policy_by_kind_and_system_prompt_per_variant(tiny_pack: Pack) -> None:
    backend = ScriptedAnswers({"refuser": "refused", "gone": "not_found", "flaky": "connection"})
    persisted = []
    summary = run_blocking(
        answer_cells(
            backend,
            tiny_pack,
            models=["ok", "refuser", "gone", "flaky"],
            variants=["none", "knapp"],
            repeats=1,
            done_keys=set(),
            on_response=persisted.append,
        )
    )
    by_model = {
        m: [r for r in persisted if r.model == m] for m in ("ok", "refuser", "gone", "flaky")
    }
    assert [r.response_text for r in by_model["ok"]] == ["Antwort"] * 6
    assert all(r.reasoning_chars == 3 for r in by_model["ok"])
    assert [r.error_kind for r in by_model["refuser"]] == ["refused"] * 6
    assert by_model["gone"] == [] and by_model["flaky"] == []
    assert sum(1 for sent in backend.history if sent.model == "gone") == 1
    assert summary.left == 12 and list(summary.stopped_models) == ["gone"]
    systems = {sent.system for sent in backend.history if sent.model == "ok"}
    assert systems == {"", "Antworte knapp."}


def test_answer_backend_maps_errors_at_the_boundary(sim: SimServer) -> None:
    backend = OpenAIAnswerBackend(sim.base_url, "", deadline_s=2)
    with pytest.raises(ModelCallError) as info:
        answer_once(backend, model="kein-modell", system="", user="u")
    assert info.value.kind == "not_found"


def test_server_without_stream_options_still_answers(sim: SimServer) -> None:
    backend = OpenAIAnswerBackend(sim.base_url, "", deadline_s=2)
    first = answer_once(backend, model="sim-old", system="", user="Hallo")
    second = answer_once(backend, model="sim-old", system="", user="Hallo")
    assert "Qualitätsstufe 4/5" in first.content and second.content == first.content
    assert first.completion_tokens is None  # no usage without stream_options
