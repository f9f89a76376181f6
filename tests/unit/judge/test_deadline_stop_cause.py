"""A judge stopped at its deadlines is advised by the measured cause (issue 37 §2, design.md
§26): reasoning seen → `thinking: off`; none → a slow server, with the measured speed and what
helps there (`call_timeout_s`, `concurrency`, `max_tokens`), and never a word of Thinking."""

from __future__ import annotations

from pathlib import Path

import pytest

from touchstone.errors import JudgeAborted
from touchstone.gui.job_notice import for_browser
from touchstone.gui.job_state import clean_end
from touchstone.sim import SimServer
from touchstone.stages.judge.judge import execute_judge

GUARD = "call_timeout_s: 0.5\nmax_retries: 0\nmax_consecutive_failures: 2\n"


def stopped(sim: SimServer, run: Path, tmp_path: Path, model: str) -> JudgeAborted:
    config = tmp_path / "j.yaml"
    config.write_text(f"endpoint: {{base_url: '{sim.base_url}'}}\nmodel: {model}\n{GUARD}")
    with pytest.raises(JudgeAborted) as caught:
        execute_judge(run, config=config, use_cache=False)
    assert caught.value.kind == "timeout"
    return caught.value


def flat(text: str) -> str:
    return " ".join(text.split())


def gui_notice(stop: JudgeAborted) -> str:
    """The GUI's notice of the stop, from its facts as the ``aborted`` event carries them."""
    record = {"command": ["-m", "touchstone", "judge", "r", "--config", "/w/j.yaml"]}
    end = clean_end({"ending": "judge_stopped", **stop.facts})
    health = {"calls": 2, "successes": 0, "failures": {"timeout": 2}}
    shown = for_browser({**record, "state": "failed"}, {"end": end, "health": health})
    return flat(str(shown["notice"]))


def test_a_slow_generation_names_the_server_settings_and_the_speed(
    sim: SimServer, answered_run: Path, tmp_path: Path
) -> None:
    stop = stopped(sim, answered_run, tmp_path, "sim-langsam")
    text = flat(str(stop))
    assert "Thinking" not in text and "thinking" not in text and "denkt" not in text
    assert "Kein Reasoning gesehen: der Server erzeugt zu langsam" in text
    assert "`call_timeout_s`" in text and "`concurrency`" in text and "`max_tokens`" in text
    assert "--threads" in text
    # sim-langsam writes about 10 tokens/s; the figure stands in the advice.
    assert "Tokens/s" in text and "erste Zeichen nach 0," in text
    assert 5 <= float(stop.facts["tokens_per_s"]) <= 15  # type: ignore[arg-type]
    assert stop.facts["reasoning_seen"] is False
    # The GUI says the same, in its quotes.
    shown = gui_notice(stop)
    assert "Thinking" not in shown and "thinking" not in shown
    assert "Kein Reasoning gesehen: der Server erzeugt zu langsam" in shown
    assert "„call_timeout_s“" in shown and "„max_tokens“" in shown and "Tokens/s" in shown


def test_no_first_character_names_the_server_and_the_calls_without_one(
    sim: SimServer, answered_run: Path, tmp_path: Path
) -> None:
    stop = stopped(sim, answered_run, tmp_path, "sim-langsam@3")
    text = flat(str(stop))
    assert "Thinking" not in text and "thinking" not in text
    assert "2 Aufrufe ohne ein erstes Zeichen innerhalb der Frist von 0,50 s" in text
    assert "`call_timeout_s`" in text and "`concurrency`" in text
    assert stop.facts["silent_calls"] == 2


def test_a_thinking_judge_past_its_deadline_names_thinking_off(
    sim: SimServer, answered_run: Path, tmp_path: Path
) -> None:
    stop = stopped(sim, answered_run, tmp_path, "sim-think-endless")
    text = flat(str(stop))
    assert "`thinking: off` in der Judge-Konfiguration" in text
    assert "Reasoning gesehen" in text
    # A longer deadline only lets it think longer: not offered.
    assert "erhöhen Sie `call_timeout_s`" not in text and "Tokens/s" not in text
    assert stop.facts["reasoning_seen"] is True
    assert "„thinking: off“ in der Judge-Konfiguration „j.yaml“ ab" in gui_notice(stop)
