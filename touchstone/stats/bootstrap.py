"""A small seeded percentile bootstrap over arbitrary units (ratings, cells, prompts).

``intervals.py`` holds the scorecard's cluster bootstrap (expanded percentiles, floors for few
prompts); this one is the plain percentile bootstrap the judge-quality figures need, where a
statistic (a kappa, an agreement share) is computed from the resampled units as a whole and
may be undefined on some resamples (a kappa of a resample with one score throughout).

``bootstrap_replicates`` gives the statistic of each resample, so that several figures can
share one set of draws (one pass per resample) and two groups resampled independently give
the bootstrap of their difference replicate by replicate; ``percentile_interval`` turns
replicates into an interval. ``bootstrap_interval`` is both in one call.

``kind_replicates`` is the bootstrap of units of which only the kind matters (the spot
check's pairs: a judge's score and a person's, a few dozen kinds on any scale): the statistic
takes a resample's weight of each kind. Up to ``RESAMPLED_UNITS`` units it counts the very
resamples ``bootstrap_replicates`` draws; beyond, each round weighs the kinds instead, the
Bayesian bootstrap (Rubin 1981: Dirichlet(1, ..., 1) weights over the units, drawn per kind as
one Gamma(count) variate), so a round costs as many draws as there are kinds, whatever the
number of units (200,000 ratings resampled one by one did not end). Both give intervals of
the same width at that size (the tests compare them).
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TypeVar

from touchstone.stats.distributions import LEVEL

T = TypeVar("T")
R = TypeVar("R")

ROUNDS = 2000
# A resample whose statistic is undefined is skipped; when more than this share of them is
# undefined the interval would describe a different population, so there is none.
MAX_UNDEFINED = 0.5
# Beyond this many units, ``kind_replicates`` weighs the kinds instead of drawing each unit.
RESAMPLED_UNITS = 500


def bootstrap_replicates(
    units: Sequence[T],
    statistic: Callable[[Sequence[T]], R],
    *,
    rounds: int = ROUNDS,
    seed: int = 0,
) -> list[R]:
    """``statistic`` of each of ``rounds`` resamples of ``units`` drawn with replacement (the
    same ``seed``, the same resamples); empty with fewer than 2 units."""
    n = len(units)
    if n < 2 or rounds < 1:
        return []
    rng = random.Random(seed)
    indices = range(n)
    return [statistic([units[i] for i in rng.choices(indices, k=n)]) for _ in range(rounds)]


def kind_replicates(
    kinds: Sequence[int],
    statistic: Callable[[Sequence[float]], R],
    *,
    rounds: int = ROUNDS,
    seed: int = 0,
) -> list[R]:
    """``statistic`` of each of ``rounds`` resamples of units whose kinds are ``kinds`` (each
    unit's kind, 0 to k - 1), given a resample's weight of each kind (a list of k numbers that
    add up to the number of units); empty with fewer than 2 units.

    Up to ``RESAMPLED_UNITS`` units the weights are the counts of the resamples
    ``bootstrap_replicates(units, ..., seed=seed)`` draws (the same seed, the same resamples);
    beyond, the Bayesian bootstrap's weights (module docstring)."""
    n = len(kinds)
    if n < 2 or rounds < 1:
        return []
    rng = random.Random(seed)
    size = max(kinds) + 1
    if n > RESAMPLED_UNITS:
        tally = Counter(kinds)
        return weighed_replicates([tally[kind] for kind in range(size)], statistic, rng, rounds)
    # ``rng.choices(range(n), k=n)`` draw for draw (``floor(random() * n)``), in C: counting
    # kinds costs what a resample of units would cost to build.
    whole = float(n)
    replicates = []
    for _ in range(rounds):
        drawn = map(int, map(whole.__mul__, itertools.starmap(rng.random, itertools.repeat((), n))))
        counts = Counter(map(kinds.__getitem__, drawn))
        replicates.append(statistic([float(counts[kind]) for kind in range(size)]))
    return replicates


def weighed_replicates(
    counts: Sequence[int],
    statistic: Callable[[Sequence[float]], R],
    rng: random.Random,
    rounds: int = ROUNDS,
) -> list[R]:
    """``statistic`` of ``rounds`` rounds of the Bayesian bootstrap over units of which
    ``counts[k]`` are of kind k: the weights of the kinds, one Gamma(count) variate each,
    scaled to add up to the number of units (module docstring)."""
    n = sum(counts)
    present = [kind for kind, count in enumerate(counts) if count]
    replicates = []
    for _ in range(rounds):
        weights = [0.0] * len(counts)
        for kind in present:
            weights[kind] = rng.gammavariate(counts[kind], 1.0)
        scale = n / math.fsum(weights)
        replicates.append(statistic([weight * scale for weight in weights]))
    return replicates


def percentile_interval(
    replicates: Sequence[float | None], *, level: float = LEVEL
) -> tuple[float, float] | None:
    """The ``level`` percentile interval of ``replicates``; undefined ones (None, not
    finite) are skipped; None when most are undefined or there are fewer than 2."""
    values = sorted(v for v in replicates if v is not None and math.isfinite(v))
    if len(values) < max(2, len(replicates) * (1 - MAX_UNDEFINED)):
        return None
    tail = (1 - level) / 2
    last = len(values) - 1
    return values[math.floor(tail * last)], values[math.ceil((1 - tail) * last)]


def bootstrap_interval(
    units: Sequence[T],
    statistic: Callable[[Sequence[T]], float | None],
    *,
    rounds: int = ROUNDS,
    seed: int = 0,
    level: float = LEVEL,
) -> tuple[float, float] | None:
    """The ``level`` percentile interval of ``statistic`` over ``rounds`` resamples of
    ``units`` drawn with replacement; the same ``seed`` gives the same interval. None with
    fewer than 2 units or when most resamples leave the statistic undefined (None)."""
    replicates = bootstrap_replicates(units, statistic, rounds=rounds, seed=seed)
    return percentile_interval(replicates, level=level)
