"""The few quantiles the intervals need (``stats``), in pure Python: Student's t by bisection
on its CDF (the regularized incomplete beta function, a continued fraction as in Numerical
Recipes) and chi-squared by Wilson-Hilferty. Checked against printed tables in
``tests/unit/stats/test_stats.py``.
"""

from __future__ import annotations

import functools
import math
import statistics

LEVEL = 0.95
# Degrees of freedom beyond which the t quantile is the normal one (to 3 decimals).
_DF_CAP = 1000


@functools.lru_cache(maxsize=1024)
def chi2_upper(df: int, level: float = LEVEL) -> float:
    """The ``level`` quantile of chi-squared with ``df`` degrees of freedom (Wilson-Hilferty,
    within 1 % from 2 df up; below, a lower quantile makes the floor only wider)."""
    z = statistics.NormalDist().inv_cdf(level)
    k = 2 / (9 * df)
    return float(df * (1 - k + z * math.sqrt(k)) ** 3)


@functools.lru_cache(maxsize=1024)
def t_upper(df: float, level: float = LEVEL) -> float:
    """The two-sided ``level`` quantile of Student's t with ``df`` degrees of freedom (a
    fraction too: Welch-Satterthwaite's df are not whole)."""
    return t_beyond((1 - level) / 2, min(df, _DF_CAP))


def t_tail(x: float, df: float) -> float:
    """P(T > x) for Student's t with ``df`` degrees of freedom, accurate far into the tail
    (computed as the tail itself, not as 1 - CDF)."""
    if df <= 0:
        return 0.5
    ib = _betainc(df / 2, 0.5, df / (df + x * x))
    return ib / 2 if x >= 0 else 1 - ib / 2


@functools.lru_cache(maxsize=4096)
def t_beyond(tail: float, df: float) -> float:
    """The x with P(T > x) = ``tail`` (0 < tail < 1/2): the upper quantile a decision over a
    set needs at levels such as 1 - 0.05/66, where one degree of freedom puts it near 10^4
    (bisection on the tail, after doubling the bracket until it holds the quantile)."""
    if df <= 0:
        return math.inf
    high = 1.0
    while t_tail(high, df) > tail and high < 1e15:
        high *= 2
    low = 0.0
    for _ in range(200):
        mid = (low + high) / 2
        if t_tail(mid, df) > tail:
            low = mid
        else:
            high = mid
        if high - low <= 1e-12 * high:
            break
    return (low + high) / 2


def t_quantile(p: float, df: float) -> float:
    """The p-quantile of Student's t with ``df`` degrees of freedom (bisection on its CDF)."""
    if df <= 0:
        return math.inf
    low, high = -1000.0, 1000.0
    for _ in range(80):
        mid = (low + high) / 2
        if _t_cdf(mid, df) < p:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def _t_cdf(x: float, df: float) -> float:
    # Via the regularized incomplete beta function: I_{df/(df+x^2)}(df/2, 1/2).
    ib = _betainc(df / 2, 0.5, df / (df + x * x))
    return 1 - ib / 2 if x >= 0 else ib / 2


def _betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta I_x(a, b), continued fraction (Numerical Recipes)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1) / (a + b + 2):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1 - math.exp(log_front) * _beta_fraction(b, a, 1 - x) / b


def _beta_fraction(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 300):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1 + numerator * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= d * c
        if abs(d * c - 1) < 1e-12:
            break
    return result
