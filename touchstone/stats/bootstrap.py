"""A small seeded percentile bootstrap over arbitrary units (ratings, cells, prompts).

``intervals.py`` holds the scorecard's cluster bootstrap (expanded percentiles, floors for few
prompts); this one is the plain percentile bootstrap the judge-quality figures need, where a
statistic (a kappa, an agreement share) is computed from the resampled units as a whole and
may be undefined on some resamples (a kappa of a resample with one score throughout).

``bootstrap_replicates`` gives the statistic of each resample, so that several figures can
share one set of draws (one pass per resample) and two groups resampled independently give
the bootstrap of their difference replicate by replicate; ``percentile_interval`` turns
replicates into an interval. ``bootstrap_interval`` is both in one call.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import TypeVar

from touchstone.stats.distributions import LEVEL

T = TypeVar("T")
R = TypeVar("R")

ROUNDS = 2000
# A resample whose statistic is undefined is skipped; when more than this share of them is
# undefined the interval would describe a different population, so there is none.
MAX_UNDEFINED = 0.5


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
