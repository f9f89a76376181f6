"""A small seeded percentile bootstrap over arbitrary units (ratings, cells, prompts).

``stats.py`` holds the scorecard's cluster bootstrap (expanded percentiles, floors for few
prompts); this one is the plain percentile bootstrap the judge-quality figures need, where a
statistic (a kappa, an agreement share) is computed from the resampled units as a whole and
may be undefined on some resamples (a kappa of a resample with one score throughout).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")

ROUNDS = 2000
# A resample whose statistic is undefined is skipped; when more than this share of them is
# undefined the interval would describe a different population, so there is none.
MAX_UNDEFINED = 0.5


def bootstrap_interval(
    units: Sequence[T],
    statistic: Callable[[Sequence[T]], float | None],
    *,
    rounds: int = ROUNDS,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[float, float] | None:
    """The ``level`` percentile interval of ``statistic`` over ``rounds`` resamples of
    ``units`` drawn with replacement; the same ``seed`` gives the same interval. None with
    fewer than 2 units or when most resamples leave the statistic undefined (None)."""
    n = len(units)
    if n < 2 or rounds < 1:
        return None
    rng = random.Random(seed)
    values: list[float] = []
    for _ in range(rounds):
        value = statistic([units[i] for i in rng.choices(range(n), k=n)])
        if value is not None and math.isfinite(value):
            values.append(value)
    return percentile_interval(values, rounds, level)


def percentile_interval(
    values: list[float], rounds: int, level: float = 0.95
) -> tuple[float, float] | None:
    """The ``level`` percentile interval of the defined ``values`` of ``rounds`` resamples
    (sorted in place); None when more than ``MAX_UNDEFINED`` of them were undefined."""
    if len(values) < max(2, rounds * (1 - MAX_UNDEFINED)):
        return None
    values.sort()
    tail = (1 - level) / 2
    last = len(values) - 1
    return values[math.floor(tail * last)], values[math.ceil((1 - tail) * last)]
