"""A slope within prompts and within rows: least squares with two sets of fixed effects and a
standard error clustered by prompt (design.md §17's length effect).

The model is ``score = prompt effect + row effect + slope × length + noise``, a row being one
model/variant. Fitting it by least squares with a dummy per prompt and per row (LSDV) gives the
same slope as this, by the Frisch–Waugh–Lovell theorem: take length and score as residuals
after both sets of effects (two-way demeaning), then ``slope = Σ x̃ỹ / Σ x̃²``. The residuals
come from alternating projections: subtract the prompt means, then the row means, and again,
until the prompt means are zero (Guyot and Gaure; exact after one sweep when every row answers
every prompt equally often). A design so thinly connected that ``MAX_SWEEPS`` do not settle it
has no slope.

Cells alone in their prompt or row are dropped first, repeatedly (their effect takes them
whole; they would only inflate the counts), as ``reghdfe`` does.

The 95 % interval is a t interval with (prompts - 1) degrees of freedom and a cluster-robust
standard error over prompts (CR1): ``G/(G-1) · (N-1)/(N-K) · Σ_g (Σ_{i∈g} x̃ᵢ eᵢ)² / (Σ x̃²)²``,
with G prompts, N cells and K the slope plus the row effects beyond the first. The prompt
effects are nested in the clusters and not counted, as in Stata's ``areg`` and ``reghdfe``.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable
from dataclasses import dataclass

from touchstone.stats.distributions import t_upper

# Alternating projections converge geometrically; a touchstone run (every row asks every
# prompt, a few cells failed) settles in two or three sweeps.
MAX_SWEEPS = 1000
# Prompt means below this fraction of the data's spread count as zero.
TOLERANCE = 1e-10


@dataclass(frozen=True)
class Slope:
    """The fitted slope (score per unit of length) with its cluster-robust t interval
    (None with fewer than 2 prompts or no residual degrees of freedom)."""

    slope: float
    low: float | None
    high: float | None
    prompts: int
    cells: int


Cell = tuple[Hashable, Hashable, float, float]


def fit_slope(cells: Iterable[Cell]) -> Slope | None:
    """The slope of score on length within prompts and rows, over (prompt, row, length,
    score) cells; None when nothing is left that varies in length once both kinds of
    effects are taken out."""
    prompts, rows, xs, ys = _without_singletons(list(cells))
    n = len(xs)
    if n < 2:
        return None
    spread = max(xs) - min(xs)
    if spread == 0:
        return None
    x = _two_way_residuals(xs, prompts, rows, TOLERANCE * spread)
    y = _two_way_residuals(ys, prompts, rows, TOLERANCE * (max(ys) - min(ys) or 1.0))
    if x is None or y is None:
        return None
    sxx = math.fsum(v * v for v in x)
    # Lengths that are prompt effect plus row effect exactly leave rounding noise only.
    if sxx <= (TOLERANCE * spread) ** 2 * n:
        return None
    slope = math.fsum(a * b for a, b in zip(x, y, strict=True)) / sxx
    g = len(set(prompts))
    k = len(set(rows))
    if g < 2 or n <= k:
        return Slope(slope, None, None, g, n)
    scores: dict[int, float] = {}
    for p, a, b in zip(prompts, x, y, strict=True):
        scores[p] = scores.get(p, 0.0) + a * (b - slope * a)
    meat = math.fsum(s * s for s in scores.values())
    se = math.sqrt(g / (g - 1) * (n - 1) / (n - k) * meat) / sxx
    half = t_upper(g - 1) * se
    return Slope(slope, slope - half, slope + half, g, n)


def _without_singletons(
    cells: list[Cell],
) -> tuple[list[int], list[int], list[float], list[float]]:
    """The cells left once those alone in their prompt or row are dropped (repeatedly: a
    dropped cell may leave another alone), with prompts and rows as indices."""
    while True:
        per_prompt: dict[Hashable, int] = {}
        per_row: dict[Hashable, int] = {}
        for prompt, row, _, _ in cells:
            per_prompt[prompt] = per_prompt.get(prompt, 0) + 1
            per_row[row] = per_row.get(row, 0) + 1
        kept = [c for c in cells if per_prompt[c[0]] > 1 and per_row[c[1]] > 1]
        if len(kept) == len(cells):
            break
        cells = kept
    prompt_index: dict[Hashable, int] = {}
    row_index: dict[Hashable, int] = {}
    prompts = [prompt_index.setdefault(c[0], len(prompt_index)) for c in cells]
    rows = [row_index.setdefault(c[1], len(row_index)) for c in cells]
    return prompts, rows, [float(c[2]) for c in cells], [float(c[3]) for c in cells]


def _two_way_residuals(
    values: list[float], prompts: list[int], rows: list[int], tolerance: float
) -> list[float] | None:
    """``values`` minus their prompt and row effects (alternating projections); None when
    ``MAX_SWEEPS`` do not bring every prompt mean within ``tolerance`` of zero."""
    values = _demeaned(values, rows)
    for _ in range(MAX_SWEEPS):
        means = _means(values, prompts)
        if max(map(abs, means)) <= tolerance:
            return values
        values = [v - means[p] for v, p in zip(values, prompts, strict=True)]
        values = _demeaned(values, rows)
    return None


def _means(values: list[float], groups: list[int]) -> list[float]:
    """Each group's mean of ``values``."""
    size = max(groups) + 1
    sums = [0.0] * size
    counts = [0] * size
    for v, group in zip(values, groups, strict=True):
        sums[group] += v
        counts[group] += 1
    return [s / c for s, c in zip(sums, counts, strict=True)]


def _demeaned(values: list[float], groups: list[int]) -> list[float]:
    """``values`` minus their group's mean."""
    means = _means(values, groups)
    return [v - means[g] for v, g in zip(values, groups, strict=True)]
