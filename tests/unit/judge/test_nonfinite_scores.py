"""A verdict whose score is NaN, Infinity, beyond a float's range or an integer of 4,301
digits is unparseable, never a crash or a score (issue 35). NaN and Infinity in a server's
usage and in a run dir's counts: ``IMPLAUSIBLE`` in ``tests/http/test_untrusted_numbers.py``."""

from __future__ import annotations

import pytest

from touchstone.judge.replies import parse_dimensions_reply, parse_verdict_reply
from touchstone.pack import Scale

SCALE = Scale(min=0, max=5)


@pytest.mark.parametrize("score", ["NaN", "Infinity", "-Infinity", "1e999", "9" * 4301])
def test_a_verdict_with_a_nonfinite_or_huge_score_is_unparseable(score: str) -> None:
    text = f'{{"score": {score}, "red_flag": false, "rationale": "x"}}'
    assert parse_verdict_reply(text, SCALE) is None
    holistic = f'{{"d": {{"score": {score}, "rationale": "x"}}}}'
    assert parse_dimensions_reply(holistic, ["d"], SCALE) is None
