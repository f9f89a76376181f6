"""A row's spread between prompts floored by what the run's other rows show (issue 33 §5).

Why. With 3 to 5 prompts a row's own spread between prompts has 2 to 4 degrees of freedom,
and prompts that happen to agree (integer scores, a ceiling) make it 0: three prompts at 5
read "5,00 [4,28 – 5,00]" on the resolution floor alone (``stats._noise_floor``), for a row
whose truth may be 4,1; 88 % of such intervals held the truth. Category intervals (3 to 8
prompts) and compare's per-category differences are exactly such intervals. A run says more
about how much prompts differ than one row does: its other rows were scored on prompts of the
same kind (a category: the other categories of every row, on prompts of their own).

What. A moderated t interval (Smyth 2004, the empirical-Bayes variance of limma): the row's
sum of squares between prompts (``squares``, n - 1 df) and the pooled variance s0^2 of the
other rows, counted as d0 = ``PRIOR_DF`` degrees of freedom (or as many as the others have, if
fewer), combine into

    s^2 = (squares + d0 s0^2) / (n - 1 + d0),   half width  t(n - 1 + d0) sqrt(s^2 / n).

Where every row has the same spread this is the pooled-variance t interval, exact for normal
data. It is one more floor (``stats``: the interval is at least as wide as the widest floor),
so pooling never narrows an interval: a row with more spread than the others keeps its own t
interval; a row with less is widened by the weight d0 / (n - 1 + d0), which fades with its own
prompts (two thirds at 3 prompts, a seventh at 27): from 10 prompts up the row's own spread
decides as before. d0 = 4 is small on purpose: rows differ in spread (a model at the ceiling
spreads less than a weak one), and the pool is evidence about the kind of prompts, not about
this row; 4 df let it outweigh 3 agreeing prompts and leave 27 prompts to themselves.

Not at a lower confidence bound, unlike the repeats' noise (``stats.Noise``): that bound
guards against widening rows of many prompts beyond 95 %, which the fading weight does here;
and with few rows of few prompts (2 rows of 3 prompts: 2 df) the bound is a third of the
estimate and floors nothing. The estimate's own uncertainty is in the few df d0 gives it.

A paired difference is floored the same way, by the pooled variance of the per-prompt
differences of the other pairs it is shown with (``stats.pool_differences``: compare's
matched rows, and all their categories): the quantity whose spread a difference's interval
needs is the difference's, not the rows'.

How. A ``Pool`` holds the sums of squares and df of every row (computed once per run), and
each interval takes its own part out again, so a row is floored by the others alone and no
pool per row is built (``benchmarks/gui_100k.py``, ``many_models.py``).
``benchmarks/ci_coverage.py`` measures coverage at 3 and 5 prompts in runs of 2 and 6 rows
(normal, ceiling and bimodal data), in categories of 3 prompts, and from 10 prompts up. What
no pool can give: a row alone in its run has nothing to pool; and 3 prompts drawn from a
population of easy and hard prompts that all land on one side move every row alike (they
share the prompts), which no spread between them shows.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from touchstone.distributions import t_upper

# The degrees of freedom the other rows' pooled spread counts for in a row's interval (d0).
PRIOR_DF = 4


class _Totals(Protocol):
    @property
    def total(self) -> float: ...

    @property
    def count(self) -> int: ...


@dataclass(frozen=True)
class Pool:
    """Sums of squares between prompts and their df, summed over a run's rows (or its rows'
    categories, or a comparison's paired differences), each row's own part included."""

    squares: float = 0.0
    df: int = 0

    @classmethod
    def of(cls, parts: Iterable[tuple[float, int]]) -> Pool:
        squares, df = 0.0, 0
        for part, degrees in parts:
            squares += part
            df += degrees
        return cls(squares, df)


def pooled_floor(n: int, squares: float, pool: Pool | None) -> float:
    """The half width of the moderated t interval for a row of ``n`` prompts whose own sum of
    squares is ``squares`` (its part of ``pool``, taken out); 0 without others to pool."""
    if pool is None:
        return 0.0
    df = pool.df - (n - 1)
    if df <= 0:
        return 0.0
    prior = min(PRIOR_DF, df)
    others = max(0.0, pool.squares - squares) / df
    variance = (max(0.0, squares) + prior * others) / (n - 1 + prior)
    return t_upper(n - 1 + prior) * math.sqrt(variance / n)


def between_squares(ordered: Sequence[_Totals], mean: float, count: int) -> float:
    """The sum of squared deviations between prompts, in units of one prompt's mean: with as
    many cells on every prompt, sum (prompt mean - mean)^2; otherwise the ratio estimator's
    residuals (prompt total - mean * its cells) over the mean cells per prompt, so that
    squares / ((n - 1) n) is the ratio estimator's variance."""
    scale = len(ordered) / count
    residuals = [(c.total - mean * c.count) * scale for c in ordered]
    squares: float = sum(map(operator.mul, residuals, residuals))
    return squares


def sum_of_squares(values: Sequence[float]) -> float:
    """The sum of squared deviations of ``values`` from their mean."""
    n = len(values)
    mean = math.fsum(values) / n
    squares: float = sum(map(operator.mul, values, values))
    return squares - n * mean * mean
