"""How far a call got before its deadline, measured by the transport (design.md §26): data on
the ``CallError`` (``progress``), with the real openai SDK against the simulator."""

from __future__ import annotations

import pytest

from touchstone.errors import JudgeCallError
from touchstone.judge.backend import OpenAIJudgeBackend, ask_judge
from touchstone.sim import SimServer

DEADLINE = 0.5


def deadline_error(sim: SimServer, model: str, *, stream: bool = True) -> JudgeCallError:
    backend = OpenAIJudgeBackend(sim.base_url, "", model, deadline_s=DEADLINE, stream=stream)
    with pytest.raises(JudgeCallError) as failed:
        ask_judge(backend, system="s", user="Skala: 0 bis 5")
    assert failed.value.kind == "timeout"
    return failed.value


def test_a_slow_generation_is_measured_in_tokens_per_second(sim: SimServer) -> None:
    progress = deadline_error(sim, "sim-langsam").progress
    assert progress is not None and progress.streamed
    assert progress.first_s is not None and progress.first_s < DEADLINE
    assert progress.content_chunks >= 2 and progress.content_chars >= 8
    assert progress.reasoning_chars == 0
    # sim-langsam writes one token every 0.1 s: about 10 tokens/s.
    assert progress.tokens_per_s is not None and 5 <= progress.tokens_per_s <= 15


def test_no_first_character_within_the_deadline_is_measured_as_none(sim: SimServer) -> None:
    progress = deadline_error(sim, "sim-langsam@2").progress
    assert progress is not None and progress.streamed
    assert progress.first_s is None
    assert progress.content_chars == progress.reasoning_chars == 0
    assert progress.tokens_per_s is None
    assert progress.elapsed_s >= DEADLINE


def test_reasoning_before_the_deadline_is_counted(sim: SimServer) -> None:
    progress = deadline_error(sim, "sim-think-endless").progress
    assert progress is not None
    assert progress.reasoning_chars > 0 and progress.reasoning_chunks >= 2
    assert progress.content_chars == 0
    assert progress.first_s is not None and progress.first_s < DEADLINE


def test_a_whole_reply_call_says_it_saw_nothing(sim: SimServer) -> None:
    progress = deadline_error(sim, "sim-langsam", stream=False).progress
    assert progress is not None
    assert not progress.streamed and progress.first_s is None


def test_other_failures_carry_no_progress(sim: SimServer) -> None:
    backend = OpenAIJudgeBackend(sim.base_url, "", "sim-500", deadline_s=DEADLINE)
    with pytest.raises(JudgeCallError) as failed:
        ask_judge(backend, system="s", user="u")
    assert failed.value.progress is None
