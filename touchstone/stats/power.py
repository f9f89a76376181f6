"""The power formulas: the smallest true difference a paired decision over n prompts finds
with a given power, and the prompts a difference needs.

For a paired t test over n prompts at two-sided ``level`` and ``power``,

    difference = (t(1 - (1 - level) / 2, n - 1) + t(power, n - 1)) * sqrt(V / n)

with V the variance of one prompt's paired difference: the usual approximation of the
non-central t (``tests/unit/stats/test_power.py`` checks its power by simulation).
``packs/power.py`` says where V comes from (a pack's assumed spread, a run's measured one).
"""

from __future__ import annotations

import functools
import math

from touchstone.stats.distributions import LEVEL, t_quantile, t_upper

POWER = 0.8
# Beyond this many prompts a difference counts as out of reach.
MAX_PROMPTS = 10_000_000
# As distributions.t_upper: beyond this many degrees of freedom t is the normal quantile.
_DF_CAP = 1000


@functools.lru_cache(maxsize=4096)
def power_quantile(df: int, power: float = POWER) -> float:
    """t(power, df): the power part of the detectable difference."""
    return t_quantile(power, min(df, _DF_CAP))


def detectable_difference(
    prompts: int, variance: float, *, power: float = POWER, level: float = LEVEL
) -> float | None:
    """The smallest true difference a paired decision over ``prompts`` finds with ``power``
    at ``level``, for a per-prompt difference of ``variance``; None below two prompts (one
    prompt gives no interval, no decision)."""
    if prompts < 2:
        return None
    df = prompts - 1
    return (t_upper(df, level) + power_quantile(df, power)) * math.sqrt(
        max(0.0, variance) / prompts
    )


def prompts_needed(difference: float, variance: float) -> int | None:
    """The fewest prompts that find ``difference`` with 80 % power; None beyond
    ``MAX_PROMPTS``. The difference shrinks as prompts grow: a bisection."""
    found = detectable_difference(MAX_PROMPTS, variance)
    if difference <= 0 or found is None or found > difference:
        return None
    low, high = 1, MAX_PROMPTS  # detectable(low) > difference (or none) >= detectable(high)
    while high - low > 1:
        mid = (low + high) // 2
        value = detectable_difference(mid, variance)
        if value is not None and value <= difference:
            high = mid
        else:
            low = mid
    return high
