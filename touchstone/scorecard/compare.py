"""Which rows differ: paired comparisons, ranks, and groups that cannot be told apart.

For two rows, the mean difference over the prompts both scored, with a paired bootstrap 95 %
interval (``stats.paired_difference``); one row is "better" only when the interval excludes
0. Rows are ranked by their mean; a row shares the rank of the row above it unless the leader
of that rank is better than it. So equal ranks mean: not distinguishable from the best row of
the rank, with this judge, these prompts and these repeats.

Ranks need one comparison per row (with its rank's leader), not every pair. Every pair is
r·(r-1)/2 bootstraps: 80,000 at 400 rows, a minute of work and 18 MB of scorecard.json that
nobody reads whole. So up to ``COMPLETE_UP_TO`` ranked rows the scorecard keeps every pair;
beyond, it keeps what a reader uses: each row against its neighbours in the ranking, and
against the leader its rank was decided by. Any other pair is computed when asked for
(``Scorecard.comparison``; the GUI pages a row's comparisons).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from touchstone.stats import Interval, Resampled, resampled_difference

if TYPE_CHECKING:
    from collections.abc import Callable

    from touchstone.scorecard.build import ScoreRow

Pair = tuple[str, str]
# Up to this many ranked rows every pair is computed and stored (1225 pairs: ~0.2 s, 300 KB).
COMPLETE_UP_TO = 50


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
        # 0.0 - x, not -x: a tie reversed is 0.0, not -0.0 (shown as "-0.00").
        low = None if d.high is None else 0.0 - d.high
        high = None if d.low is None else 0.0 - d.low
        return Comparison(self.b, self.a, Interval(0.0 - d.mean, low, high, d.n))

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


class Comparer:
    """Comparisons of rows on demand; each row's bootstrap sums are drawn once."""

    def __init__(self, rows: list[ScoreRow]) -> None:
        self._rows = {row.pair: row for row in rows}
        self._resampled: dict[Pair, Resampled] = {}

    def _of(self, pair: Pair) -> Resampled:
        found = self._resampled.get(pair)
        if found is None:
            found = self._resampled[pair] = Resampled(self._rows[pair].clusters)
        return found

    def __call__(self, a: Pair, b: Pair) -> Comparison | None:
        """``a`` against ``b``; None when either is no row or they share no scored prompt."""
        if a not in self._rows or b not in self._rows:
            return None
        diff = resampled_difference(self._of(a), self._of(b))
        return None if diff is None else Comparison(a, b, diff)


def compare_rows(rows: list[ScoreRow]) -> tuple[list[ScoreRow], list[Comparison], bool]:
    """Rows ranked (best first, unscored rows last and unranked), the comparisons to keep,
    and whether those are every pair of ranked rows."""
    ranked = sorted(
        (r for r in rows if r.interval is not None),
        key=lambda r: (-r.interval.mean if r.interval else 0.0, r.model, r.variant),
    )
    unranked = [r for r in rows if r.interval is None]
    comparer = Comparer(ranked)
    kept: dict[tuple[Pair, Pair], Comparison | None] = {}

    def keep(a: ScoreRow, b: ScoreRow) -> Comparison | None:
        key = (a.pair, b.pair)
        if key not in kept:
            kept[key] = comparer(a.pair, b.pair)
        return kept[key]

    complete = len(ranked) <= COMPLETE_UP_TO
    if complete:
        for i, a in enumerate(ranked):
            for b in ranked[i + 1 :]:
                keep(a, b)
    _rank(ranked, keep)
    for above, below in itertools.pairwise(ranked):
        keep(above, below)
    position = {row.pair: index for index, row in enumerate(ranked)}
    stored = sorted(
        (c for c in kept.values() if c is not None),
        key=lambda c: (position[c.a], position[c.b]),
    )
    return ranked + unranked, stored, complete


def _rank(
    ranked: list[ScoreRow], compare: Callable[[ScoreRow, ScoreRow], Comparison | None]
) -> None:
    rank = 0
    leader: ScoreRow | None = None
    for position, row in enumerate(ranked):
        # A new rank where the leader of the current one is better, or cannot be compared.
        found = None if leader is None else compare(leader, row)
        if found is None or found.better == "a":
            rank = position + 1
            leader = row
        row.rank = rank
