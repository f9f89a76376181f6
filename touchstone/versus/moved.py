"""What moved between two runs, cell by cell: per matched row and compared prompt, the score
before and after, the largest drop first (the GUI's "Zelle für Zelle", its CSV).

A cell here is what the row's interval pairs (``cells.row_cells``): one prompt of one row,
its repeats averaged (a failed answer at the scale's minimum, a judge-side gap left out), in
both runs over the same rubric. A prompt one side has no scored cell of is not listed: it has
no "before" or no "after".
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from touchstone.versus.build import RowComparison, RunComparison
from touchstone.versus.cells import Pair

# "drop": the largest drop first; "rise": the largest rise first.
Order = Literal["drop", "rise"]


@dataclass(frozen=True)
class MovedCell:
    """One compared prompt of one matched row: the means over its repeats then and now."""

    row: RowComparison
    prompt_id: str
    category: str
    before: float
    after: float
    # The scored cells (repeats) behind each mean.
    before_cells: int
    after_cells: int

    @property
    def diff(self) -> float:
        return self.after - self.before

    @property
    def new_pair(self) -> Pair:
        return self.row.new.pair

    @property
    def baseline_pair(self) -> Pair:
        return self.row.baseline.pair


def _cells_of(comparison: RunComparison) -> Iterator[MovedCell]:
    for row in comparison.rows:
        mine = comparison.new_cells.get(row.new.pair)
        theirs = comparison.baseline_cells.get(row.baseline.pair)
        if mine is None or theirs is None:
            continue
        category_of = {
            prompt_id: category
            for category, clusters in mine.by_category.items()
            for prompt_id in clusters
        }
        for prompt_id in sorted(mine.clusters.keys() & theirs.clusters.keys()):
            now, then = mine.clusters[prompt_id], theirs.clusters[prompt_id]
            yield MovedCell(
                row,
                prompt_id,
                category_of.get(prompt_id, ""),
                then.mean,
                now.mean,
                then.count,
                now.count,
            )


def moved_cells(comparison: RunComparison, order: Order = "drop") -> list[MovedCell]:
    """Every compared cell, the largest drop (``order="rise"``: rise) first; ties in the
    rows' order, then by prompt id."""
    found = list(_cells_of(comparison))
    rank = {id(row): index for index, row in enumerate(comparison.rows)}
    sign = 1.0 if order == "drop" else -1.0
    found.sort(key=lambda cell: (sign * cell.diff, rank[id(cell.row)], cell.prompt_id))
    return found
