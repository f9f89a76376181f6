"""A failed call told the same way in `run`, `judge` and `judge-check` (issue 23; design.md §12,
§22).

A 404 for a path the server does not know (a wrong base-URL path) is not a misspelt model;
the judge's stop reads like `run`'s: the error kind in German, the server's words without the
SDK's class name, advice by cause (a 404 or a wrong key: fix the configuration, not "again").
"""

from pathlib import Path
from typing import Any

import httpx2
import openai
import pytest

from tests.conftest import run_on_sim
from touchstone.errors import ERROR_LABELS, JudgeAborted, JudgeCallError, ModelCallError
from touchstone.judge.policy import Breaker
from touchstone.pack import load_pack
from touchstone.sim import SimServer
from touchstone.stages.judge.judge import execute_judge
from touchstone.stages.judge_check import execute_judge_check
from touchstone.stages.run.run import execute_run
from touchstone.transport.classify import call_error

SDK_WORDS = ("NotFoundError", "Error code", "DeadlineExceeded", "APIStatusError", "README: „")

REQUEST = httpx2.Request("POST", "http://127.0.0.1:1/v1/chat/completions")


def not_found(body: Any) -> openai.NotFoundError:
    return openai.NotFoundError("404", response=httpx2.Response(404, request=REQUEST), body=body)


# What real servers answer to a path they do not serve, and to a model they do not know.
UNKNOWN_PATHS = [
    # OpenAI
    {"message": "Invalid URL (POST /v2/chat/completions)", "type": "invalid_request_error"},
    {"message": "Unknown request URL: POST /chat/completions.", "code": "unknown_url"},
    {"detail": "Not Found"},  # vLLM, LiteLLM (FastAPI)
    {"code": 404, "message": "File Not Found", "type": "not_found_error"},  # llama.cpp server
    "404 page not found",  # Ollama (Go's mux, plain text)
    None,  # no body at all
    {"message": "unknown path /v2/chat/completions", "code": "not_found"},  # the simulator
]
UNKNOWN_MODELS = [
    {"message": "The model `gpt-4o` does not exist", "code": "model_not_found"},
    {"message": 'model "llama3" not found, try pulling it first', "type": "api_error"},
    {"code": "DeploymentNotFound", "message": "The API deployment for this resource does not"},
]


@pytest.mark.parametrize("body", UNKNOWN_PATHS)
def test_a_404_for_an_unknown_path_is_no_misspelt_model(body: Any) -> None:
    error = call_error(ModelCallError, not_found(body))
    assert error.kind == "not_found" and error.unknown_path


@pytest.mark.parametrize("body", UNKNOWN_MODELS)
def test_a_404_for_an_unknown_model_is_one(body: Any) -> None:
    error = call_error(ModelCallError, not_found(body))
    assert error.kind == "not_found" and not error.unknown_path


def flat(text: str) -> str:
    return " ".join(text.split())


def test_run_with_a_wrong_base_url_path_advises_the_path_not_the_model(
    sim: SimServer, tiny_pack_path: Path, tmp_path: Path
) -> None:
    wrong = sim.base_url.removesuffix("/v1") + "/v2"
    outcome = execute_run(
        pack_path=tiny_pack_path, models=["sim-gut"], out=tmp_path / "r", base_url=wrong
    )
    text = flat(outcome.unfinished())
    assert "Pfad" in text and "--base-url" in text and wrong in text
    assert "Modellnamen" not in text and "Meinten Sie" not in text
    assert "/v2/chat/completions" in text
    assert not any(word in text for word in SDK_WORDS)


def judge_yaml(path: Path, base_url: str, model: str, extra: str = "") -> Path:
    path.write_text(f"endpoint: {{base_url: '{base_url}'}}\nmodel: {model}\n{extra}", "utf-8")
    return path


def judge_stop(run: Path, config: Path) -> str:
    with pytest.raises(JudgeAborted) as caught:
        execute_judge(run, config=config, use_cache=False)
    return flat(str(caught.value))


def test_judge_with_a_wrong_base_url_path_advises_the_path(
    sim: SimServer, answered_run: Path, tmp_path: Path
) -> None:
    wrong = sim.base_url.removesuffix("/v1") + "/v2"
    text = judge_stop(answered_run, judge_yaml(tmp_path / "j.yaml", wrong, "sim-judge"))
    assert "Pfad" in text and "endpoint.base_url" in text
    assert "Modellnamen" not in text
    assert not any(word in text for word in SDK_WORDS)
    # Running it again unchanged would fail the same way.
    assert "Korrektur" in text or "korrigiert" in text


def test_judge_check_with_a_wrong_base_url_path_advises_the_path(
    sim: SimServer, tiny_pack_path: Path, tmp_path: Path
) -> None:
    wrong = sim.base_url.removesuffix("/v1") + "/v2"
    card = execute_judge_check(
        load_pack(tiny_pack_path), config=judge_yaml(tmp_path / "j.yaml", wrong, "sim-judge")
    )
    text = flat(card.verdict_de())
    assert "Pfad" in text and "Modellnamen" not in text
    assert not any(word in text for word in SDK_WORDS)


def test_a_misspelt_judge_reads_like_run(
    sim: SimServer, answered_run: Path, tmp_path: Path
) -> None:
    text = judge_stop(answered_run, judge_yaml(tmp_path / "j.yaml", sim.base_url, "sim-jduge"))
    assert ERROR_LABELS["not_found"] in text and "Meinten Sie „sim-judge“?" in text
    assert "(404: „The model 'sim-jduge' does not exist" in text
    assert not any(word in text for word in SDK_WORDS)
    # A 404 needs another name first: no bare "run it again".
    assert "Korrektur" in text or "korrigiert" in text


def test_a_runaway_judge_reads_like_run(sim: SimServer, answered_run: Path, tmp_path: Path) -> None:
    extra = "call_timeout_s: 0.5\nmax_retries: 0\nmax_consecutive_failures: 2\n"
    config = judge_yaml(tmp_path / "j.yaml", sim.base_url, "sim-runaway", extra)
    text = judge_stop(answered_run, config)
    assert f"{ERROR_LABELS['timeout']} (" in text
    assert "0,50 s" in text  # flat() makes the no-break space a space
    # It writes content without end and no reasoning: no thinking judge, a reply too long
    # for the deadline (design.md §26: advice by measured cause).
    assert "thinking" not in text and "`max_tokens`" in text and "Tokens/s" in text
    assert not any(word in text for word in SDK_WORDS)
    assert "When a judge" not in text


def test_the_breaker_names_the_kind_in_german_not_the_exception_class() -> None:
    breaker = Breaker(2, 0.0, "j")
    error = JudgeCallError("APITimeoutError: Request timed out.", kind="timeout")
    assert breaker.failure(error) is None
    stop = breaker.failure(error)
    assert stop is not None
    assert "Frist überschritten („Request timed out“)" in stop.message
    assert "APITimeoutError" not in stop.message


def test_one_map_of_german_kind_names() -> None:
    import touchstone.stages.run.unfinished as unfinished

    assert not hasattr(unfinished, "_WHAT")


def test_a_runaway_judge_counts_failed_calls_alike_in_bar_balance_and_stop(
    sim: SimServer, tiny_pack_path: Path, tmp_path: Path
) -> None:
    from touchstone.cli.progress_bar import ProgressView
    from touchstone.gui.job_state import job_progress

    # Two repeats of a deterministic answerer: each pair of cells shares one judge call.
    out = tmp_path / "r"
    run_on_sim(
        sim, pack_path=tiny_pack_path, models=["sim-gut"], variants=["none"], repeats=2, out=out
    )
    events: list[dict[str, Any]] = []
    config = judge_yaml(
        tmp_path / "j.yaml",
        sim.base_url,
        "sim-runaway",
        "call_timeout_s: 0.3\nmax_retries: 0\nmax_consecutive_failures: 3\nconcurrency: 1\n",
    )
    with pytest.raises(JudgeAborted) as caught:
        execute_judge(
            out,
            config=config,
            use_cache=False,
            on_event=lambda kind, data: events.append({"event": kind, **data}),
        )
    aborted = next(e for e in events if e["event"] == "aborted")
    failed_calls = sum(aborted["health"]["failures"].values())
    assert failed_calls == 3 and "3 Judge-Aufrufe in Folge" in str(caught.value)
    cells = [e for e in events if e["event"] == "judge_error"]
    assert len(cells) == 6  # the cells still each get their unscored verdict

    view = ProgressView("Bewertungen")
    for event in events:
        view(event["event"], event)
    view.progress.stop()
    note = view.progress.tasks[0].fields["note"]
    assert "3 Judge-Aufrufe fehlgeschlagen" in note, note
    assert job_progress(events)["errors"] == failed_calls
    # Nothing was saved: the bar and the GUI's count stay at 0 (the failures stand beside
    # them), not "6/12" as if half the cells were judged.
    assert view.progress.tasks[0].completed == 0
    assert job_progress(events)["done"] == 0
