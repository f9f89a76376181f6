"""Which rows differ: paired comparisons, ranks, and groups that cannot be told apart.

For two rows, the mean difference over the prompts both scored, with a paired bootstrap 95 %
interval (``paired.paired_difference``); one row is "better" (``Comparison.better``) only when
the interval excludes 0: a statement about that pair alone, at 95 %.

A row's rank is 1 + the length of the longest chain of rows better than it (design.md §16): no
row ranks at or above a row better than it, rows that share a rank cannot be told apart (or
share no prompt), and rows are listed by rank, then mean. The ranks rest on all r(r-1)/2 pairs
of ranked rows at once, so for them "better" must hold for the whole card (design.md §23): the
pair's interval widened for all those pairs (Bonferroni, ``multiplicity.widened``) lies above
0 (``RankRule``). Per pair at 95 %, equal rows were split in 32 % of cards with 6 rows and 71 %
with 12; ``benchmarks/card_ranks.py`` measures both rules. So a pair can be "better" on its
own and still share a rank; the legends say so.

Ranks ask "is a better than b" of the pairs that could be (``Comparer.better``, which mostly
answers from a few draws: whatever the plain 95 % interval does not put above 0, the widened
one does not either); the scorecard keeps comparisons apart from that. Every pair is
r·(r-1)/2 bootstraps: 80,000 at 400 rows, a minute of work and 18 MB of scorecard.json that
nobody reads whole. So up to ``COMPLETE_UP_TO`` ranked rows the scorecard keeps every pair;
beyond, it keeps what a reader uses: each row against its neighbours in the ranking, and
against the row its rank was decided by. Any other pair is computed when asked for
(``Scorecard.comparison``; the GUI pages a row's comparisons).
"""

from __future__ import annotations

import itertools
import math
import operator
import statistics
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from touchstone.scorecard.ranks import RankRule
from touchstone.stats.distributions import LEVEL, t_upper
from touchstone.stats.intervals import Interval
from touchstone.stats.multiplicity import widened, widening
from touchstone.stats.paired import Resampled, paired_mean, resampled_difference, surely_not_better

if TYPE_CHECKING:
    from touchstone.scorecard.build import ScoreRow

Pair = tuple[str, str]
# The two-sided 95 % normal quantile: below every t quantile a noise floor is taken with.
_Z = statistics.NormalDist().inv_cdf(1 - (1 - LEVEL) / 2)
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


def within_span(diff: Interval, span: float | None) -> Interval:
    """``diff`` with its bounds inside ±``span`` (the scale's max - min): no difference of two
    means on the scale lies outside it, whatever a widened bootstrap interval says ("+6,48" on
    a 0..5 scale). Which row is better does not change: the mean lies within."""
    if span is None or diff.low is None or diff.high is None:
        return diff
    return Interval(diff.mean, max(diff.low, -span), min(diff.high, span), diff.n)


class Comparer:
    """Comparisons of rows on demand; each row's bootstrap sums are drawn once. ``span``: the
    scale's max - min, the bound of every difference (``within_span``). ``tests``: how many
    pairs ``better`` decides at once (the ranks' ``RankRule.pairs``)."""

    def __init__(self, rows: list[ScoreRow], span: float | None = None, tests: int = 1) -> None:
        self._rows = {row.pair: row for row in rows}
        self._span = span
        self._tests = tests
        self._resampled: dict[Pair, Resampled] = {}
        self._better: dict[tuple[Pair, Pair], bool] = {}
        # By the number of shared prompts: the widening (and the spread floor's t quantile)
        # depend on it and ``tests`` alone, and a t quantile far in the tail is worth
        # computing once, not once per pair.
        self._widening: dict[int, tuple[float, float]] = {}
        self._means: dict[Pair, tuple[list[float], float]] = {}

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
        return None if diff is None else Comparison(a, b, within_span(diff, self._span))

    def better(self, a: Pair, b: Pair) -> bool:
        """Whether ``a`` is better than ``b`` at the level of ``tests`` decisions: the lower
        end of their interval widened as ``multiplicity.widened`` does lies above 0 (at one
        test: ``self(a, b).better == "a"``). Without a full bootstrap where a few draws show
        that the plain 95 % interval reaches 0: widening only moves that end further down."""
        known = self._better.get((a, b))
        if known is None:
            if self._out_of_reach(a, b) or surely_not_better(self._of(a), self._of(b)):
                known = False
            else:
                found = self(a, b)
                known = found is not None and self._above_zero(found.diff)
            self._better[(a, b)] = known
        return known

    def _factors(self, n: int) -> tuple[float, float]:
        """For ``n`` shared prompts: the widening for ``tests``, and the t quantile of the
        spread floor (``stats._spread_floor``)."""
        found = self._widening.get(n)
        if found is None:
            found = self._widening[n] = (widening(n - 1, self._tests), t_upper(n - 1))
        return found

    def _above_zero(self, diff: Interval) -> bool:
        """Whether ``diff`` widened for the ranks' tests lies above 0."""
        low = widened(diff, self._tests).low
        return low is not None and low > 0

    def _out_of_reach(self, a: Pair, b: Pair) -> bool:
        """Whether the widened lower end surely stays at or below 0, told from the prompts'
        differences alone (rows that scored the same prompts; others: False, undecided).

        The plain interval's lower end is at most the largest difference less its floor
        (``paired.surely_not_better`` says why), and the floor is at least the spread floor
        (t interval of the differences) and the noise floor (here with the normal quantile,
        below every t quantile the floor takes). Widened, the lower end lies above 0 only
        when the plain one lies above mean·(1 - 1/widening) (the widening scales at least the
        lower side, more where half the width is longer: that only lowers the end). Where the
        widening is large (few prompts, many rows) this rejects a pair in a few arithmetic
        steps: 400 rows of 2 prompts ask it of 53,000 pairs, and the draws' test takes 20 µs
        each.
        """
        ra, rb = self._of(a), self._of(b)
        n = len(ra.keys)
        if self._tests <= 1 or n < 2 or ra.keys != rb.keys:
            return False
        means_a, noise_a = self._prompt_means(a)
        means_b, noise_b = self._prompt_means(b)
        diffs: list[float] = list(map(operator.sub, means_a, means_b))
        mean = math.fsum(diffs) / n
        if mean <= 0:
            return True
        factor, t = self._factors(n)
        spread = max(0.0, (sum(map(operator.mul, diffs, diffs)) - n * mean * mean) / ((n - 1) * n))
        floor = max(t * math.sqrt(spread), _Z * math.sqrt(noise_a + noise_b) / n)
        # 1e-9: rounding must never turn a pair that could be better into one that is not.
        return max(diffs) - floor <= mean * (1 - 1 / factor) - 1e-9

    def _prompt_means(self, pair: Pair) -> tuple[list[float], float]:
        """The row's prompt means (by prompt id) and the noise its cells put on their sum
        (``Noise.variance`` times the sum over prompts of 1/cells, as ``paired_floor`` has it)."""
        found = self._means.get(pair)
        if found is None:
            row = self._of(pair)
            means = [row.clusters[key].mean for key in row.keys]
            found = self._means[pair] = (
                means,
                row.noise(row.keys).variance * row.inverse_counts(row.keys),
            )
        return found

    def could_be_better_than(self, b: Pair) -> list[Pair]:
        """The rows whose mean over the prompts they share with ``b`` is higher than b's:
        only such a row can be significantly better (its interval holds that mean)."""
        mine = self._of(b)
        out = []
        for pair in self._rows:
            if pair != b:
                mean = paired_mean(self._of(pair), mine)
                if mean is not None and mean > 0:
                    out.append(pair)
        return out


def compare_rows(
    rows: list[ScoreRow], span: float | None = None
) -> tuple[list[ScoreRow], list[Comparison], bool, RankRule]:
    """Rows ranked (best first, unscored rows last and unranked), the comparisons to keep,
    whether those are every pair of ranked rows, and the rule the ranks were split by."""
    ranked = sorted(
        (r for r in rows if r.interval is not None),
        key=lambda r: (-r.interval.mean if r.interval else 0.0, r.model, r.variant),
    )
    unranked = [r for r in rows if r.interval is None]
    # Only rows with bounds can be told apart from another (one prompt: none), so only
    # their pairs are decisions that the correction counts.
    decidable = sum(1 for r in ranked if r.interval is not None and r.interval.low is not None)
    rule = RankRule(decidable * (decidable - 1) // 2)
    comparer = Comparer(ranked, span, rule.pairs)
    decided_by = _rank(ranked, comparer)
    ranked.sort(key=lambda r: (r.rank or 0, -r.interval.mean if r.interval else 0.0))
    kept: dict[tuple[Pair, Pair], Comparison | None] = {}

    def keep(a: ScoreRow, b: ScoreRow) -> None:
        if (a.pair, b.pair) not in kept:
            kept[(a.pair, b.pair)] = comparer(a.pair, b.pair)

    complete = len(ranked) <= COMPLETE_UP_TO
    if complete:
        for i, a in enumerate(ranked):
            for b in ranked[i + 1 :]:
                keep(a, b)
    else:
        for above, below in itertools.pairwise(ranked):
            keep(above, below)
        by_pair = {row.pair: row for row in ranked}
        for row in ranked:
            winner = decided_by.get(row.pair)
            if winner is not None:
                keep(by_pair[winner], row)
    position = {row.pair: index for index, row in enumerate(ranked)}
    stored = sorted(
        (c for c in kept.values() if c is not None),
        key=lambda c: (position[c.a], position[c.b]),
    )
    return ranked + unranked, stored, complete, rule


def _rank(ranked: list[ScoreRow], comparer: Comparer) -> dict[Pair, Pair]:
    """Set each row's rank: 1 + the length of the longest chain of rows better than it
    (``comparer.better``: for the whole card), so no row ranks at or above a row better than
    it, and rows that share a rank cannot be told apart. Returns, per row below rank 1, the
    row its rank was decided by.

    ``ranked`` comes sorted by mean. A row can only be better than one whose mean over the
    prompts both scored is lower; for rows that scored the same prompts alike that is a row
    further down, so one pass settles every rank, and a second finds nothing to change. Rows
    that scored other prompts can break that order: passes repeat until no rank changes (at
    most one per row: a cycle of "better", possible only across different prompts, stops
    there). Within a pass each row asks the rows that could be better than it, highest rank
    first, and stops at the first that is: that one ends the longest chain.
    """
    rank = {row.pair: 1 for row in ranked}
    decided_by: dict[Pair, Pair] = {}
    ahead = {row.pair: comparer.could_be_better_than(row.pair) for row in ranked}
    for _ in range(len(ranked) + 1):
        changed = False
        for row in ranked:
            new, by = 1, None
            for other in sorted(ahead[row.pair], key=rank.__getitem__, reverse=True):
                if comparer.better(other, row.pair):
                    new, by = rank[other] + 1, other
                    break
            if new != rank[row.pair]:
                rank[row.pair], changed = new, True
            if by is None:
                decided_by.pop(row.pair, None)
            else:
                decided_by[row.pair] = by
        if not changed:
            break
    else:
        # Still rising after more passes than rows: "better" goes round somewhere.
        rank, decided_by = _ranks_with_cycles(ranked, comparer, ahead)
    for row in ranked:
        row.rank = rank[row.pair]
    return decided_by


def _ranks_with_cycles(
    ranked: list[ScoreRow], comparer: Comparer, ahead: dict[Pair, list[Pair]]
) -> tuple[dict[Pair, int], dict[Pair, Pair]]:
    """Ranks when "better" has a cycle (possible only across different prompts: a beats b,
    b beats c, c beats a, each on the prompts the two share). No order agrees with a cycle, so
    its rows share one rank: the rows of each strongly connected part of the "better" graph
    are one node, ranked as 1 + the longest chain of parts above it."""
    better = {
        row.pair: [o for o in ahead[row.pair] if comparer.better(o, row.pair)] for row in ranked
    }
    part = _strong_parts([row.pair for row in ranked], better)
    rank: dict[Pair, int] = {}
    decided_by: dict[Pair, Pair] = {}

    def rank_of(pair: Pair) -> int:
        if pair not in rank:
            above = [o for member in part[1][part[0][pair]] for o in better[member]]
            outside = [o for o in above if part[0][o] != part[0][pair]]
            best = max(outside, key=rank_of, default=None)
            for member in part[1][part[0][pair]]:
                rank[member] = 1 if best is None else rank_of(best) + 1
                if best is not None:
                    decided_by[member] = best
        return rank[pair]

    for row in ranked:
        rank_of(row.pair)
    return rank, decided_by


def _strong_parts(
    nodes: list[Pair], above: dict[Pair, list[Pair]]
) -> tuple[dict[Pair, int], list[list[Pair]]]:
    """The strongly connected parts of the graph (Tarjan, iterative): each node's part, and
    each part's nodes."""
    index: dict[Pair, int] = {}
    low: dict[Pair, int] = {}
    stack: list[Pair] = []
    on_stack: set[Pair] = set()
    part_of: dict[Pair, int] = {}
    parts: list[list[Pair]] = []
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(above[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(above[step])))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    part_of[member] = len(parts)
                    members.append(member)
                    if member == node:
                        break
                parts.append(members)
    return part_of, parts
