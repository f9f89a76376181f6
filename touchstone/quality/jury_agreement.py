"""How far a jury's judges agree (design.md §18): pure figures over the members' scores.

Every function takes the members' scores as ``Mapping[cell, Mapping[member, score]]``: a
cell (any hashable key, a ``VerdictKey`` in a run) maps each member that *scored* it to its
score (unscored and missing verdicts are simply absent). Members are any hashable ids.

- ``alpha``: Krippendorff's alpha of the members' scores (``stats/alpha.py``: any number of
  raters with missing values, ordinal by default); only cells scored by 2 or more members
  count. ``alpha_interval``: its seeded percentile bootstrap over those cells.
- ``pairwise_kappas``: quadratic-weighted kappa (``stats.kappa.weighted_kappa``, the one kappa)
  of every two members on the cells both scored.
- ``member_means``: each member's mean over the cells it scored, and over the cells every
  member scored (the fair comparison: who is harsh, not who saw the harder cells).
- ``disputed_cells``: cells where the members' scores span at least 40 % of the scale
  ("strittig"), the widest first: the cells a person looks at first.
- ``mean_without``: a row's mean with some members left out; ``same_family_means`` does it
  per row for the members of the row's own family (self-preference, measured).
"""

from __future__ import annotations

import functools
import itertools
import statistics
from collections.abc import Callable, Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from touchstone.stats.alpha import ALPHA_ROUNDS, Metric, krippendorff_alpha
from touchstone.stats.alpha import alpha_interval as units_interval
from touchstone.stats.kappa import weighted_kappa

K = TypeVar("K", bound=Hashable)
M = TypeVar("M", bound=Hashable)
R = TypeVar("R", bound=Hashable)
Cells = Mapping[K, Mapping[M, float]]
# Members whose scores of a cell span at least this share of the scale disagree about it.
DISPUTED_SHARE = (2, 5)  # 40 %, as a fraction so that 0..100 is exact (40, not 40.000…01)


def alpha(cells: Cells[K, M], metric: Metric = "ordinal") -> float | None:
    """Krippendorff's alpha of the members' scores of ``cells``."""
    return krippendorff_alpha((scores.values() for scores in cells.values()), metric)


def alpha_interval(
    cells: Cells[K, M], metric: Metric = "ordinal", *, seed: int = 0, rounds: int = ALPHA_ROUNDS
) -> tuple[float, float] | None:
    """The 95 % percentile bootstrap interval of ``alpha`` over the cells scored by 2 or more
    members (``stats.alpha.alpha_interval``); None with fewer than 2 such cells."""
    units = (scores.values() for scores in cells.values())
    return units_interval(units, metric, seed=seed, rounds=rounds)


def paired_cells(cells: Cells[K, M]) -> int:
    """How many cells 2 or more members scored: the cells alpha is computed over."""
    return sum(1 for scores in cells.values() if len(scores) >= 2)


@dataclass(frozen=True)
class PairKappa(Generic[M]):
    a: M
    b: M
    kappa: float | None
    cells: int


def pairwise_kappas(
    cells: Cells[K, M], members: Sequence[M], low: int, high: int
) -> list[PairKappa[M]]:
    """Quadratic-weighted kappa of every two ``members`` (in their order) over the cells both
    scored; None where no cell is shared or both give one score throughout."""
    result = []
    for a, b in itertools.combinations(members, 2):
        pairs = [
            (round(scores[a]), round(scores[b]))
            for scores in cells.values()
            if a in scores and b in scores
        ]
        result.append(PairKappa(a, b, weighted_kappa(pairs, low, high), len(pairs)))
    return result


@dataclass(frozen=True)
class MemberMean(Generic[M]):
    member: M
    # Over every cell the member scored (None: it scored none).
    mean: float | None
    scored: int
    # Over the cells every (active) member scored: the fair comparison (None: none such).
    common_mean: float | None


def member_means(
    cells: Cells[K, M], members: Sequence[M], shared_by: Sequence[M] | None = None
) -> list[MemberMean[M]]:
    """Each member's mean: over its cells, and over the cells all of ``shared_by`` (default:
    ``members``) scored. A jury names its active members there: a member dropped after a
    few cells would otherwise shrink the shared cells to those few."""
    sharing = members if shared_by is None else shared_by
    common = [scores for scores in cells.values() if all(m in scores for m in sharing)]
    result = []
    for member in members:
        own = [scores[member] for scores in cells.values() if member in scores]
        shared = [scores[member] for scores in common if member in scores]
        result.append(
            MemberMean(
                member,
                statistics.fmean(own) if own else None,
                len(own),
                statistics.fmean(shared) if shared else None,
            )
        )
    return result


def disputed_cells(cells: Cells[K, M], low: int, high: int) -> list[K]:
    """The cells whose members' scores differ by at least 40 % of the scale span (max - min
    over the members that scored it), the widest spread first, else in the given order."""
    span = high - low
    num, den = DISPUTED_SHARE
    spread = {
        key: max(scores.values()) - min(scores.values())
        for key, scores in cells.items()
        if len(scores) >= 2
    }
    found = [key for key, width in spread.items() if span > 0 and width * den >= num * span]
    return sorted(found, key=lambda key: -spread[key])


def mean_without(
    cells: Cells[K, M],
    excluded: Collection[M],
    *,
    aggregate: Callable[[Sequence[float]], float] = statistics.median,
    floor_cells: int = 0,
    floor: float = 0.0,
) -> float | None:
    """The mean over ``cells`` of each cell's ``aggregate`` of its scores without the
    ``excluded`` members; a cell no other member scored drops out. ``floor_cells`` cells
    count with ``floor`` (failed answers score the scale minimum, design.md §16). None when no
    cell is left."""
    values = [
        aggregate(kept)
        for scores in cells.values()
        if (kept := [s for m, s in scores.items() if m not in excluded])
    ]
    if not values:
        return None
    return (sum(values) + floor_cells * floor) / (len(values) + floor_cells)


@dataclass(frozen=True)
class FamilyMean(Generic[R]):
    row: R
    family: str | None
    # The row's mean by every member, and without its own family's members (None: no member
    # of another family scored the row), both made the same way, so they compare.
    mean: float | None
    without_own_family: float | None
    # Members of the row's family that scored any of its cells (0: both means are one).
    excluded: int


def jury_families(families: Mapping[M, str | None]) -> set[str]:
    """The known families among the members (``families``: member -> family or None)."""
    return {family for family in families.values() if family is not None}


def same_family_means(
    cells: Cells[K, M],
    row_of: Callable[[K], R],
    row_family: Mapping[R, str | None],
    member_family: Mapping[M, str | None],
    *,
    aggregate: Callable[[Sequence[float]], float] = statistics.median,
    failed: Mapping[R, int] | None = None,
    floor: float = 0.0,
) -> list[FamilyMean[R]]:
    """Per row (in ``row_family``'s order): its mean, and its mean without the members of its
    own family. Empty unless the members are of 2 or more known families (with one family
    there is no other judge to ask). ``failed``: the row's failed answers, counted with
    ``floor`` in both means."""
    if len(jury_families(member_family)) < 2:
        return []
    by_row: dict[R, dict[K, Mapping[M, float]]] = {}
    for key, scores in cells.items():
        by_row.setdefault(row_of(key), {})[key] = scores
    result = []
    for row, family in row_family.items():
        row_cells = by_row.get(row, {})
        own = [m for m, f in member_family.items() if family is not None and f == family]
        floors = (failed or {}).get(row, 0)
        mean_of = functools.partial(
            mean_without, aggregate=aggregate, floor_cells=floors, floor=floor
        )
        result.append(
            FamilyMean(
                row,
                family,
                mean_of(row_cells, ()),
                mean_of(row_cells, own),
                len({m for scores in row_cells.values() for m in scores if m in own}),
            )
        )
    return result
