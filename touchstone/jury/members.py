"""Who a jury member is, and a verdict as one member's (never as the jury's)."""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

from touchstone.results import Verdict


class MemberId(NamedTuple):
    """A member as its verdict lines name it (``judge_model``, ``judge_base_url``)."""

    model: str
    base_url: str

    def __str__(self) -> str:
        return self.model


def of_verdict(verdict: Verdict) -> MemberId:
    return MemberId(verdict.judge_model, verdict.judge_base_url)


def as_member(verdict: Verdict, member: MemberId) -> Verdict:
    """``verdict`` as the member's line of judgements.jsonl: marked ``jury``, named."""
    return dataclasses.replace(
        verdict, jury=True, judge_model=member.model, judge_base_url=member.base_url
    )
