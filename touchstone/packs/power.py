"""How small a difference a pack (or a run) can tell apart (design.md §20).

The scorecard calls a row better than another when the 95 % interval of their paired
difference excludes 0 (``stats``: a bootstrap over prompts whose expanded percentiles behave
like a t interval). The smallest true difference that decision finds with 80 % power is,
for a paired t test over n prompts,

    difference = (t(0.975, n - 1) + t(0.80, n - 1)) * sqrt(V / n)

where V is the variance of one prompt's paired difference (row a's mean on the prompt minus
row b's). V has two parts: how much the two models' gap changes from prompt to prompt (P),
which no repeat removes, and the noise of one answer and its verdict (R, for the difference
of two single cells), which k repeats divide: V(k) = P + R / k. The t + t form is the usual
approximation of the non-central t (``stats/power.py``); ``tests/unit/stats/test_power.py``
checks its power by simulation.

Where V comes from:

- From the pack alone (``assumed_spread``): a typical spread, stated with the figures. The
  standard deviation of a paired per-prompt difference at one repeat is ``ASSUMED_SD_SHARE``
  (16 %) of the scale's span, 0.8 points on 0..5, and ``ASSUMED_REPEAT_SHARE`` (40 %) of its
  variance comes from repeats (answer and verdict noise), 60 % from prompts. With 27 prompts
  that gives 0.45 points at one repeat and 0.38 at three, the figures issue 28 starts from;
  the simulator's demo run measures more (1.1 points), real runs differ: ``--run`` replaces
  the assumption by what a run measured.
- From a run (``measured_spread``): the rows next to each other in the scorecard's order
  (the pairs whose decision is closest, one pair per row: linear in the rows) pooled. V at
  the run's repeats is the pooled variance of their per-prompt differences; R is twice the
  pooled within-prompt variance of the rows' cells (the repeats' noise), so the split is
  measured when the run has repeats and assumed (40 %) when it has one. Neither is taken
  below the scale's resolution (``stats.RESOLUTION_VARIANCE`` per cell, as the intervals do):
  two identical rows do not make a run that resolves every difference.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from touchstone import german
from touchstone.pack import Scale
from touchstone.stats.distributions import LEVEL
from touchstone.stats.intervals import RESOLUTION_VARIANCE, Cluster
from touchstone.stats.power import POWER, detectable_difference

REPEATS = (1, 3, 5)
ASSUMED_SD_SHARE = 0.16
ASSUMED_REPEAT_SHARE = 0.4
# The difference "für X Punkte braucht es …" asks about: 4 % of the span (0,2 on 0..5).
TARGET_SHARE = 0.04


@dataclass(frozen=True)
class Spread:
    """The variance of one prompt's paired difference between two rows, by source."""

    prompt_variance: float  # P: the models' gap varies from prompt to prompt
    repeat_variance: float  # R: the noise of one cell's difference (divided by repeats)
    measured: bool = False  # from a run (else assumed from the pack's scale)
    share_measured: bool = False  # the split P/R measured (the run had repeats)
    pairs: int = 0  # pairs of rows pooled
    prompts: int = 0  # the most prompts a pooled pair shared
    repeats: float = 1.0  # the run's cells per prompt and row (harmonic mean)

    def variance(self, repeats: float) -> float:
        return self.prompt_variance + self.repeat_variance / repeats

    @property
    def repeat_share(self) -> float:
        """The share of the variance at one repeat that repeats would remove."""
        total = self.variance(1)
        return self.repeat_variance / total if total > 0 else 0.0

    @property
    def share_assumed(self) -> bool:
        """A run's spread whose split P/R is assumed (the run had one repeat): its figures
        for more repeats rest on ``ASSUMED_REPEAT_SHARE``, not on the run."""
        return self.measured and not self.share_measured

    def with_share(self, share: float) -> Spread:
        """The same variance at the run's repeats, split with ``share`` from repeats."""
        total = self.variance(self.repeats)
        return Spread(
            prompt_variance=(1 - share) * total,
            repeat_variance=share * total * self.repeats,
            measured=self.measured,
            share_measured=self.share_measured,
            pairs=self.pairs,
            prompts=self.prompts,
            repeats=self.repeats,
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "sd_paired_one_repeat": round(math.sqrt(self.variance(1)), 4),
            "repeat_share": round(self.repeat_share, 4),
            "repeat_share_measured": self.share_measured,
            "pairs": self.pairs,
            "repeats": round(self.repeats, 2),
        }


def about(prompts: int) -> int:
    """``prompts`` rounded up to two significant digits (127 -> 130): "etwa 130 Prompts"."""
    if prompts < 100:
        return prompts
    step = int(10 ** (len(str(prompts)) - 2))
    return -(-prompts // step) * step


def target_difference(scale: Scale) -> float:
    """The difference "für X Punkte braucht es …" asks about: 0,2 on 0..5 (one decimal)."""
    return max(0.1, round(TARGET_SHARE * (scale.max - scale.min), 1))


def assumed_spread(scale: Scale) -> Spread:
    """A typical spread for a pack on ``scale`` (see the module's docstring)."""
    variance = (ASSUMED_SD_SHARE * (scale.max - scale.min)) ** 2
    return Spread(
        prompt_variance=(1 - ASSUMED_REPEAT_SHARE) * variance,
        repeat_variance=ASSUMED_REPEAT_SHARE * variance,
    )


def measured_spread(rows: Sequence[Mapping[str, Cluster]]) -> Spread | None:
    """The spread a run shows: ``rows`` are the rows' clusters by prompt id, in the
    scorecard's order (best first); neighbours are paired. None when no two neighbouring
    rows share two prompts."""
    # Per row, once (a row is in two pairs): each prompt's mean and 1 / its cells, and the
    # within-prompt sum of squares of the repeats with its degrees of freedom.
    means: list[dict[str, float]] = []
    inverses: list[dict[str, float]] = []
    within_ss, within_df = 0.0, 0
    for row in rows:
        mean, inverse = {}, {}
        for key, cluster in row.items():
            if cluster.count:
                mean[key] = cluster.total / cluster.count
                inverse[key] = 1 / cluster.count
                if cluster.count > 1:
                    ss, d = cluster.within
                    within_ss += ss
                    within_df += d
        means.append(mean)
        inverses.append(inverse)
    squares, df, inverse_sum, shared_total, pairs, most = 0.0, 0, 0.0, 0, 0, 0
    for i in range(len(rows) - 1):
        a, b = means[i], means[i + 1]
        shared = list(a) if a.keys() == b.keys() else [key for key in a if key in b]
        n = len(shared)
        if n < 2:
            continue
        diffs = [a[key] - b[key] for key in shared]
        total = math.fsum(diffs)
        squares += max(0.0, math.fsum(d * d for d in diffs) - total * total / n)
        df += n - 1
        ia, ib = inverses[i], inverses[i + 1]
        inverse_sum += math.fsum(ia[key] + ib[key] for key in shared)
        shared_total += n
        pairs += 1
        most = max(most, n)
    if not pairs:
        return None
    # Per prompt, the noise weight of the difference: 1/cells of a + 1/cells of b.
    weight = inverse_sum / shared_total
    variance = max(squares / df, RESOLUTION_VARIANCE * weight)
    if within_df:
        cell_noise = max(within_ss / within_df, RESOLUTION_VARIANCE)
        share = min(1.0, cell_noise * weight / variance)
    else:
        share = ASSUMED_REPEAT_SHARE
    repeats = 2 / weight
    return Spread(
        prompt_variance=(1 - share) * variance,
        repeat_variance=share * variance * repeats,
        measured=True,
        share_measured=bool(within_df),
        pairs=pairs,
        prompts=most,
        repeats=repeats,
    )


@dataclass(frozen=True)
class Resolution:
    """What a judged run can resolve: differences below ``difference`` it cannot tell apart
    (80 % power, 95 % for one pair), with the spread it measured; ``rank_difference``: the
    same for a pair whose rows the ranks split, at the level each of the ranks' ``pairs``
    decisions is taken at (95 % for all of them together); None with one pair."""

    difference: float
    spread: Spread
    pairs: int = 1
    rank_difference: float | None = None

    def as_dict(self) -> dict[str, Any]:
        """``scorecard.json`` ``resolution``."""
        return {
            "min_difference": round(self.difference, 4),
            "power": POWER,
            "level": LEVEL,
            "prompts": self.spread.prompts,
            **self.spread.as_dict(),
            "rank_pairs": self.pairs,
            "rank_min_difference": (
                None if self.rank_difference is None else round(self.rank_difference, 4)
            ),
        }


def run_resolution(rows: Sequence[Mapping[str, Cluster]], pairs: int = 1) -> Resolution | None:
    """The resolution of a run whose rows (clusters by prompt, scorecard order) are given;
    None when no two neighbouring rows share two prompts. ``pairs``: how many pairs the ranks
    decide over together (Bonferroni: each at 1 - 0.05/pairs)."""
    spread = measured_spread(rows)
    if spread is None:
        return None
    variance = spread.variance(spread.repeats)
    difference = detectable_difference(spread.prompts, variance)
    if difference is None:
        return None
    ranks = None
    if pairs > 1:
        ranks = detectable_difference(spread.prompts, variance, level=1 - (1 - LEVEL) / pairs)
    return Resolution(difference, spread, pairs, ranks)


def resolution_text(resolution: Resolution) -> str:
    """The scorecard's line: "Unterschiede unter 0,45 Punkten kann dieser Run nicht
    auflösen …" (terminal, report.html, the GUI's run page)."""
    prompts = german.counted(resolution.spread.prompts, "Prompt", "Prompts")
    text = (
        f"Unterschiede unter {german.number(resolution.difference)} Punkten kann dieser Run "
        f"nicht auflösen: erst ab dieser Größe erkennt er einen Unterschied zweier Zeilen mit "
        f"{german.percent(POWER)} Wahrscheinlichkeit (95 % für dieses eine Paar; aus der "
        f"gemessenen Streuung benachbarter Zeilen, {prompts})."
    )
    if resolution.rank_difference is not None:
        pairs = german.counted(resolution.pairs, "Paar", "Paare")
        text += (
            f" Getrennte Ränge (95 % für alle {pairs} zusammen) verlangen mit "
            f"{german.percent(POWER)} Wahrscheinlichkeit mindestens "
            f"{german.number(resolution.rank_difference)} Punkte."
        )
    return text
