"""Which cells a judge run judges: what has no verdict, what is stale, what is re-judged."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from touchstone.judge.rubric import rubric_hash
from touchstone.pack import Pack
from touchstone.results import EvalResponse, Verdict, VerdictKey, cell_key

Rejudge = Literal["none", "unscored", "all"]


def keys_to_skip(prior: Iterable[Verdict], rejudge: Rejudge = "none") -> frozenset[VerdictKey]:
    """The cells a judge run leaves alone, given the persisted verdicts and ``rejudge``.

    A cell a content filter refused is never left alone: its verdict is kept so that it can
    be found, but a later run (often with another judge) asks again.
    """
    if rejudge == "all":
        return frozenset()
    if rejudge == "unscored":
        return frozenset(cell_key(v) for v in prior if not v.judge_error and not v.unscored)
    return frozenset(cell_key(v) for v in prior if not v.judge_error and not _refused(v))


def _refused(verdict: Verdict) -> bool:
    return verdict.unscored_reason == "judge_refused"


def stale_keys(prior: Iterable[Verdict], pack: Pack) -> set[VerdictKey]:
    """Cells whose verdict was judged by another rubric than the pack's now (design.md §11).

    A verdict without a rubric hash (written by an older touchstone) cannot be told stale.
    """
    current = {
        (prompt.id, variant): rubric_hash(pack, prompt, variant)
        for _, prompt in pack.all_prompts()
        for variant in pack.variants
    }
    return {
        cell_key(v)
        for v in prior
        if v.rubric_hash and current.get((v.prompt_id, v.variant), v.rubric_hash) != v.rubric_hash
    }


@dataclass(frozen=True)
class JudgePlan:
    """Which cells a judge run leaves alone, and which it judges again as stale."""

    skip: frozenset[VerdictKey]
    stale: frozenset[VerdictKey]

    @classmethod
    def of(
        cls,
        prior: Iterable[Verdict],
        responses: Sequence[EvalResponse],
        pack: Pack,
        rejudge: Rejudge = "none",
    ) -> JudgePlan:
        prior = [v for v in prior if not v.judge_error]
        stale = stale_keys(prior, pack)
        if stale:
            stale &= set(map(cell_key, responses))
        return cls(keys_to_skip(prior, rejudge) - stale, frozenset(stale))

    def todo(self, responses: Sequence[EvalResponse]) -> int:
        # Counted in C: a judge run asks twice, over every cell of a 100k run.
        skipped = sum(map(self.skip.__contains__, map(cell_key, responses)))
        return len(responses) - skipped
