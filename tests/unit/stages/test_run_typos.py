"""Typos and wrong endpoints in `touchstone run` (issue 23 §2, design.md §4; design.md §22, §12).

A misspelt model or a dead base URL is told like the judge tells it: in German, with the
advice that fits the cause; progress never looks finished when nothing was saved; a model
that never answered is not recorded in run.json; `judge` on a run without answers exits 2.
"""

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FakeJudge, PackRun
from touchstone.errors import InputError
from touchstone.gui.job_state import job_progress
from touchstone.stages.judge.judge import execute_judge
from touchstone.stages.run.run import execute_run

SDK_NAMES = ("NotFoundError", "APIConnectionError", "Error code", "APIStatusError")


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def manifest_models(out: Path) -> list[str]:
    models: list[str] = json.loads((out / "run.json").read_text(encoding="utf-8"))["models"]
    return models


def test_judge_on_a_run_without_answers_is_bad_input_and_writes_nothing(
    tiny_run: PackRun, tmp_path: Path
) -> None:
    out = tmp_path / "leer"
    out.mkdir()  # made before (as the GUI does): kept without an answer
    tiny_run("sim-gut", out=out, base_url=f"http://127.0.0.1:{closed_port()}/v1", call_timeout_s=1)
    # An empty answers file (a run killed before its first answer) is no answer either.
    (out / "responses.jsonl").write_text("", encoding="utf-8")
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    judge = FakeJudge()
    with pytest.raises(InputError, match="Keine Antworten – zuerst `touchstone run`"):
        execute_judge(out, config=tmp_path / "egal.yaml", backend=judge)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert not judge.history


def events_of(**run: Any) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    execute_run(on_event=lambda kind, data: events.append({"event": kind, **data}), **run)
    return events


def test_progress_counts_only_saved_answers(tiny_run: PackRun, tmp_path: Path) -> None:
    events = events_of(**tiny_run.options("sim-gutt", "sim-gut"))
    progress = job_progress(events)
    # 6 answers of sim-gut saved; sim-gutt: 1 call that failed, 5 cells skipped.
    assert progress["total"] == 12 and progress["done"] == 6
    assert progress["skipped"] == 5 and progress["errors"] == 1
    done = next(e for e in events if e["event"] == "done")
    assert done["recorded"] == 6 and done["left"] == 6 and done["skipped"] == 5
    assert done["stopped_models"] == {"sim-gutt": "not_found"}

    dead_url = f"http://127.0.0.1:{closed_port()}/v1"
    dead = events_of(
        **tiny_run.options("sim-gut", out=tmp_path / "tot", base_url=dead_url, call_timeout_s=1)
    )
    progress = job_progress(dead)
    assert progress["total"] == 6 and progress["done"] == 0 and progress["errors"] == 6


def test_a_model_is_recorded_once_its_first_answer_lands(tiny_run: PackRun) -> None:
    outcome = tiny_run("sim-401", "sim-gut", "sim-gutt", variants=["none"])
    assert set(outcome.summary.stopped_models) == {"sim-401", "sim-gutt"}
    assert manifest_models(tiny_run.out) == ["sim-gut"]
    # A failed answer (a deadline overrun) is an answer: the model is part of the run
    # (``extend``: a model the run does not record yet).
    tiny_run("sim-hang", "sim-gut", variants=["none"], call_timeout_s=0.3, extend=True)
    assert manifest_models(tiny_run.out) == ["sim-gut", "sim-hang"]


def test_run_advice_names_the_run_options_not_the_judge_config() -> None:
    from touchstone.advice import RUN_SETTINGS, cause_advice

    found = cause_advice(
        "not_found", RUN_SETTINGS, model="sim-gutt", base_url="", available=["sim-gut"]
    )
    assert "--model" in found and "Meinten Sie „sim-gut“?" in found
    auth = cause_advice("auth", RUN_SETTINGS, model="m", base_url="")
    assert "--api-key" in auth and "OPENAI_API_KEY" in auth
    down = cause_advice("connection", RUN_SETTINGS, model="m", base_url="http://h:1/v1")
    assert "Läuft der Server unter http://h:1/v1?" in down and "--base-url" in down
    for kind in ("not_found", "auth", "connection", "rate_limit", "quota", "server"):
        text = cause_advice(kind, RUN_SETTINGS, model="m", base_url="http://h:1/v1")
        assert "Judge" not in text and ".." not in text and "  " not in text


def test_suggestions_name_only_the_close_names() -> None:
    from touchstone.advice import suggestions

    names = ["sim-gut", "sim-quota", "sim-mittel", "sim-judge", "sim-denker", "sim-old"]
    assert suggestions("sim-gutt", names) == "Meinten Sie „sim-gut“?"
    assert suggestions("sim-jduge", names) == "Meinten Sie „sim-judge“?"
    assert suggestions("gpt-4o-mni", ["gpt-4o-mini", "gpt-4o-mini-2024"]).startswith(
        "Meinten Sie „gpt-4o-mini“"
    )
