"""Which rows differ: paired comparisons, ranks, and groups that cannot be told apart.

For every two rows, the mean difference over the prompts both scored, with a paired bootstrap
95 % interval (``stats.paired_difference``); one row is "better" only when the interval
excludes 0. Rows are ranked by their mean; a row shares the rank of the row above it unless
the leader of that rank is better than it. So equal ranks mean: not distinguishable from the
best row of the rank, with this judge, these prompts and these repeats.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from touchstone.stats import Interval, Resampled, resampled_difference

if TYPE_CHECKING:
    from touchstone.scorecard.build import ScoreRow

Pair = tuple[str, str]


@dataclass(frozen=True)
class Comparison:
    a: Pair
    b: Pair
    diff: Interval  # of a - b

    @property
    def better(self) -> Literal["a", "b"] | None:
        """Which row is better; None when the interval holds 0, or there is none (one
        shared prompt)."""
        low, high = self.diff.low, self.diff.high
        if low is not None and low > 0:
            return "a"
        if high is not None and high < 0:
            return "b"
        return None

    def reversed(self) -> Comparison:
        d = self.diff
        low = None if d.high is None else -d.high
        high = None if d.low is None else -d.low
        return Comparison(self.b, self.a, Interval(-d.mean, low, high, d.n))

    def as_dict(self) -> dict[str, Any]:
        low, high = self.diff.low, self.diff.high
        return {
            "a": list(self.a),
            "b": list(self.b),
            "diff": round(self.diff.mean, 4),
            "ci_low": None if low is None else round(low, 4),
            "ci_high": None if high is None else round(high, 4),
            "n_prompts": self.diff.n,
            "better": self.better,
        }


def compare_rows(rows: list[ScoreRow]) -> tuple[list[ScoreRow], list[Comparison]]:
    """Rows ranked (best first, unscored rows last and unranked) and all pairwise comparisons."""
    ranked = sorted(
        (r for r in rows if r.interval is not None),
        key=lambda r: (-r.interval.mean if r.interval else 0.0, r.model, r.variant),
    )
    unranked = [r for r in rows if r.interval is None]
    lookup: dict[tuple[Pair, Pair], Comparison] = {}
    resampled = [Resampled(row.clusters) for row in ranked]
    for i, a in enumerate(ranked):
        for j in range(i + 1, len(ranked)):
            b = ranked[j]
            diff = resampled_difference(resampled[i], resampled[j])
            if diff is not None:
                lookup[(a.pair, b.pair)] = Comparison(a.pair, b.pair, diff)
    rank = 0
    leader: ScoreRow | None = None
    for position, row in enumerate(ranked):
        # A new rank where the leader of the current one is better, or cannot be compared.
        found = None if leader is None else lookup.get((leader.pair, row.pair))
        if found is None or found.better == "a":
            rank = position + 1
            leader = row
        row.rank = rank
    return ranked + unranked, list(lookup.values())
