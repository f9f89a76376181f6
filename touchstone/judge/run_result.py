"""What a judge run did (``passes.judge_run``): its verdicts and reports, and how they came."""

from __future__ import annotations

from dataclasses import dataclass, field

from touchstone.results import ModelReport, Verdict


@dataclass(repr=False)
class JudgeRunResult:
    """What a judge run did: every verdict and report, and how they came about."""

    verdicts: list[Verdict]
    reports: list[ModelReport]
    # Verdicts a failed or unreadable re-judge did not replace (never downgrade).
    kept: int = 0
    # Cells judged again because their rubric changed since their verdict.
    stale: int = 0
    # Cells whose call failed and that have no verdict at all: left for a later run.
    left: int = 0
    # Cells a content filter refused: handed to ``on_verdict`` unscored ("judge_refused"),
    # asked again by every later run (a refusal a scored verdict stands against is kept).
    refused: int = 0
    # (previous, new) of each re-judged cell whose scored verdict a new one replaced: how
    # far they agree is judge quality, weighed above the judge (``quality.agreement``).
    replaced: list[tuple[Verdict, Verdict]] = field(default_factory=list)
    # Whether a later run (nothing re-judged) would find nothing to do: no cell left, none
    # stale, every holistic report answering its input.
    settled: bool = False

    def __repr__(self) -> str:
        # Short on purpose: asyncio formats the result of its main task on the way out
        # (Python 3.11), and the full repr of 100k verdicts takes seconds.
        return (
            f"JudgeRunResult({len(self.verdicts)} verdicts, {len(self.reports)} reports, "
            f"kept={self.kept}, stale={self.stale}, left={self.left})"
        )
