"""Building the jury card (design.md §18) from the members' scores per cell.

The figures come from ``jury_agreement``; ``jury_card`` holds the result and shows it.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol, TypeVar

from touchstone.quality.family import family_of
from touchstone.quality.jury_agreement import (
    alpha,
    alpha_interval,
    disputed_cells,
    member_means,
    paired_cells,
    pairwise_kappas,
    same_family_means,
)
from touchstone.quality.jury_card import JuryCard, JuryMemberLine, MemberKey, Row
from touchstone.results import Verdict, VerdictKey

_Member = TypeVar("_Member", bound=tuple[str, str])


class MemberLike(Protocol):
    """A jury member as the run names it (the jury's summary of the run has these)."""

    @property
    def model(self) -> str: ...
    @property
    def base_url(self) -> str: ...
    @property
    def dropped(self) -> str | None: ...


def member_scores(
    by_cell: Mapping[VerdictKey, Mapping[_Member, Verdict]],
) -> dict[VerdictKey, dict[MemberKey, float]]:
    """Each cell's scored verdicts' scores by member (unscored verdicts left out); members
    named by ``(model, base_url)`` in any tuple form (a jury's ``MemberId``)."""
    cells: dict[VerdictKey, dict[MemberKey, float]] = {}
    for key, members in by_cell.items():
        scores = {(m[0], m[1]): float(v.score) for m, v in members.items() if v.scored}
        if scores:
            cells[key] = scores
    return cells


def _labels(members: Sequence[MemberLike]) -> list[str]:
    names = [m.model for m in members]
    return [m.model if names.count(m.model) == 1 else f"{m.model} ({m.base_url})" for m in members]


def build_jury_card(
    members: Sequence[MemberLike],
    cells: Mapping[VerdictKey, Mapping[MemberKey, float]],
    *,
    low: int,
    high: int,
    aggregate: Callable[[Sequence[float]], float] = statistics.median,
    failed: Mapping[Row, int] | None = None,
    family_of: Callable[[str], str | None] = family_of,
    seed: int = 0,
    quorum: int | None = None,
    aggregate_name: str = "",
    no_quorum: int = 0,
) -> JuryCard:
    """The card of the jury ``members`` from their scores per cell (``member_scores``);
    ``low``..``high``: the pack's scale; ``aggregate``: how the jury makes a cell's score
    (for the same-family means); ``failed``: failed answers per row (they count with the
    scale's minimum, as in the scorecard). Scores of judges that are not ``members`` (lines
    of a former member) count nowhere. ``quorum``, ``aggregate_name`` (median, mean,
    majority) and ``no_quorum`` (cells without one) are shown as the run records them."""
    keys: list[MemberKey] = [(m.model, m.base_url) for m in members]
    known = set(keys)
    cells = {
        key: kept
        for key, scores in cells.items()
        if (kept := {m: s for m, s in scores.items() if m in known})
    }
    active = [key for m, key in zip(members, keys, strict=True) if not m.dropped]
    means = {mean.member: mean for mean in member_means(cells, keys, active or keys)}
    families = {key: family_of(key[0]) for key in keys}
    lines = [
        JuryMemberLine(
            m.model,
            m.base_url,
            means[key].mean,
            means[key].scored,
            means[key].common_mean,
            m.dropped or None,
            families[key],
            label,
        )
        for m, key, label in zip(members, keys, _labels(members), strict=True)
    ]
    rows = dict.fromkeys((key[0], key[1]) for key in cells)
    return JuryCard(
        members=lines,
        low=low,
        high=high,
        paired=paired_cells(cells),
        alpha=alpha(cells),
        alpha_ci=alpha_interval(cells, seed=seed),
        kappas=pairwise_kappas(cells, keys, low, high),
        disputed=disputed_cells(cells, low, high),
        same_family=same_family_means(
            cells,
            lambda key: (key[0], key[1]),
            {row: family_of(row[0]) for row in rows},
            families,
            aggregate=aggregate,
            failed=failed,
            floor=float(low),
        ),
        quorum=quorum,
        aggregate=aggregate_name,
        no_quorum=no_quorum,
    )
