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

On a scale (the scorecard's rows and categories: scores within its min..max) the others'
spread is pooled as a dispersion, not a variance: phi = the others' sums of squares over the
sum of their df times (mean - low)(high - mean), the room each one's mean leaves to spread
(the quasi-binomial variance function). Near the ceiling rows spread less because they are
near it: a row with 5, 5, 5 shows nothing, rows at 4,5 show little, and a floor around 5
from their raw variance stops short of a truth at 4,1 (88-91 % coverage). With the
dispersion the interval is every mu for which (mean - mu)^2 <= t^2 s^2(mu) / n, s^2(mu) the
moderated variance with d0 phi (mu - low)(high - mu) in place of d0 s0^2: at mu far from the
ceiling there is room to spread, so three prompts at 5 reach down to about 3,8 (the score
interval of Wilson, with the pooled dispersion), while mid-scale it is the symmetric floor
above. A quadratic in mu (``pooled_bounds``); the interval is the hull of it and the other
floors', so again it never narrows anything.

Not at a lower confidence bound, unlike the repeats' noise (``stats.Noise``): that bound
guards against widening rows of many prompts beyond 95 %, which the fading weight does here;
and with few rows of few prompts (2 rows of 3 prompts: 2 df) the bound is a third of the
estimate and floors nothing. The estimate's own uncertainty is in the few df d0 gives it.

A paired difference is floored by the symmetric form (a difference has no ceiling to spread
against), with the pooled variance of the per-prompt differences of the other pairs it is
shown with (``stats.pool_differences``: compare's matched rows, and all their categories):
the quantity whose spread a difference's interval needs is the difference's, not the rows'.

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

from touchstone.stats.distributions import t_upper

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
    categories, or a comparison's paired differences), each row's own part included; on a
    scale, also each row's df times the room its mean leaves, (mean - low) (high - mean)."""

    squares: float = 0.0
    df: int = 0
    room: float = 0.0
    scale: tuple[float, float] | None = None

    @classmethod
    def of(cls, parts: Iterable[tuple[float, int]]) -> Pool:
        squares, df = 0.0, 0
        for part, degrees in parts:
            squares += part
            df += degrees
        return cls(squares, df)

    @classmethod
    def on_scale(cls, parts: Iterable[tuple[float, int, float]], low: float, high: float) -> Pool:
        """The pool of rows of scores within ``low``..``high``: ``parts`` are each row's sum
        of squares, its df and its mean."""
        squares, df, room = 0.0, 0, 0.0
        for part, degrees, mean in parts:
            squares += part
            df += degrees
            room += degrees * room_of(mean, low, high)
        return cls(squares, df, room, (low, high))


def room_of(mean: float, low: float, high: float) -> float:
    """(mean - low) (high - mean): how much a mean leaves scores to spread on the scale."""
    return max(0.0, (mean - low) * (high - mean))


def pooled_bounds(n: int, mean: float, squares: float, pool: Pool) -> tuple[float, float] | None:
    """On a scale: the moderated interval with the others' dispersion (module docstring),
    every mu whose (mean - mu)^2 <= t^2 s^2(mu) / n; None without others to pool."""
    if pool.scale is None:
        return None
    low, high = pool.scale
    df = pool.df - (n - 1)
    room = pool.room - (n - 1) * room_of(mean, low, high)
    if df <= 0 or room <= 1e-12:
        return None
    prior = min(PRIOR_DF, df)
    dispersion = max(0.0, pool.squares - squares) / room
    t = t_upper(n - 1 + prior)
    own = t * t * max(0.0, squares) / ((n - 1 + prior) * n)
    share = t * t * prior * dispersion / ((n - 1 + prior) * n)
    # (mean - mu)^2 - own - share (mu - low)(high - mu) <= 0: a quadratic in mu, <= 0 at mu =
    # mean, so both roots are real and hold the mean between them.
    a = 1 + share
    b = -(2 * mean + share * (low + high))
    c = mean * mean - own + share * low * high
    root = math.sqrt(max(0.0, b * b - 4 * a * c))
    return min(mean, (-b - root) / (2 * a)), max(mean, (-b + root) / (2 * a))


def pooled_floor(n: int, squares: float, pool: Pool | None) -> float:
    """The half width of the moderated t interval for a row of ``n`` prompts whose own sum of
    squares is ``squares`` (its part of ``pool``, taken out); 0 without others to pool, and
    on a scale (``pooled_bounds`` then)."""
    if pool is None or pool.scale is not None:
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
