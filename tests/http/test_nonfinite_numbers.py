"""NaN, Infinity and floats at the edge of their range from a server and in a run dir
(issue 35; the other implausible numbers: ``test_untrusted_numbers.py``): unknown counts, an
unparseable verdict, never a crash."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from tests.http.test_untrusted_numbers import (
    VERDICT,
    _Server,
    hostile,
    judge_reply,
    rewrite,
    usage_of,
)
from touchstone.judge.replies import parse_verdict_reply
from touchstone.pack import Scale
from touchstone.store import RESPONSES, RunDir

NONFINITE = [math.nan, math.inf, -math.inf, 1e308]
__all__ = ["hostile"]  # the server fixture, used by name


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
@pytest.mark.parametrize("value", NONFINITE, ids=repr)
def test_nonfinite_usage_from_a_server_is_unknown(
    hostile: _Server, value: float, stream: bool
) -> None:
    hostile.usage = usage_of(value)
    reply = judge_reply(hostile, stream=stream)
    assert reply.content == VERDICT
    assert (reply.prompt_tokens, reply.completion_tokens, reply.reasoning_tokens) == (None,) * 3


@pytest.mark.parametrize("score", ["NaN", "Infinity", "-Infinity", "1e999", "9" * 4301])
def test_a_verdict_with_a_nonfinite_or_huge_score_is_unparseable(score: str) -> None:
    text = f'{{"score": {score}, "red_flag": false, "rationale": "x"}}'
    assert parse_verdict_reply(text, Scale(min=0, max=5)) is None


def test_nonfinite_counts_in_a_run_dir_are_unknown_with_a_warning(answered_run: Path) -> None:
    def answers(number: int, record: dict[str, Any]) -> None:
        record["completion_tokens"] = NONFINITE[number % len(NONFINITE)]

    rewrite(answered_run / RESPONSES, answers)
    run = RunDir(answered_run)
    assert {r.completion_tokens for r in run.load_responses()} == {None}
    assert len(run.warnings) == 1 and "keine plausible Token-Zahl" in run.warnings[0]
