"""The jury in the scorecard (``scorecard.json`` ``jury``, design.md §18): who judged, each
member's mean (who is harsh), who was dropped and why, and how many cells lacked a quorum.

Agreement among the members (alpha, kappa, disputed cells) is built on the members' lines
(``jury.verdicts.by_cell``)
by the judge-quality code and joins this summary there.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from touchstone.jury.members import MemberId
from touchstone.jury.verdicts import JurySettings
from touchstone.results import EvalResponse, Verdict, VerdictKey, cell_key


@dataclass
class JuryMemberSummary:
    model: str
    base_url: str
    # Mean of the member's scored verdicts on answered cells (None: it scored none).
    mean: float | None
    scored: int
    # Why the member was dropped in the last jury run, or None.
    dropped: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "base_url": self.base_url,
            "mean": None if self.mean is None else round(self.mean, 4),
            "n_scored": self.scored,
            "dropped": self.dropped,
        }


@dataclass
class JurySummary:
    aggregate: str
    quorum: int
    members: list[JuryMemberSummary] = field(default_factory=list)
    # Cells left unscored because fewer members than the quorum scored them.
    no_quorum: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "aggregate": self.aggregate,
            "quorum": self.quorum,
            "members": [m.as_dict() for m in self.members],
            "no_quorum": self.no_quorum,
        }


def summarize(
    settings: JurySettings,
    lines: Iterable[Verdict],
    cells: Iterable[Verdict],
    answered: set[VerdictKey],
) -> JurySummary:
    """The summary of a jury's members' ``lines`` and the cell verdicts (``cells``)."""
    scores: dict[tuple[str, str], list[float]] = {m.id: [] for m in settings.members}
    for verdict in lines:
        member = scores.get(MemberId(verdict.judge_model, verdict.judge_base_url))
        if member is not None and verdict.scored and cell_key(verdict) in answered:
            member.append(verdict.score)
    dropped = {m.id: m.dropped for m in settings.members}
    members = [
        JuryMemberSummary(
            model,
            base_url,
            statistics.fmean(values) if values else None,
            len(values),
            dropped.get(MemberId(model, base_url)) or None,
        )
        for (model, base_url), values in scores.items()
    ]
    no_quorum = sum(
        1 for v in cells if v.unscored_reason == "no_quorum" and cell_key(v) in answered
    )
    return JurySummary(settings.aggregate, settings.quorum, members, no_quorum)


def of_run(
    jury: JurySettings | None,
    lines: Iterable[Verdict],
    cells: Iterable[Verdict],
    responses: Iterable[EvalResponse],
) -> JurySummary | None:
    """The summary of the ``jury`` that judged the run (None when none did) from its
    members' ``lines``; ``cells``: the cell verdicts the scorecard counts."""
    if jury is None:
        return None
    answered = set(map(cell_key, responses))
    return summarize(jury, lines, cells, answered)
