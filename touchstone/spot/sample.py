"""The spot check's sample (design.md §17): which cells a person rates, in which order.

The sample is one fixed order of the run's judged cells; "30 cells" are its first 30, so
rating 60 later extends the same sample. The order is

1. cells the judges disagree on (``disputed``, from a jury), in their hashed order;
2. then round by round one cell of every model/variant row, each row walking through the
   judge's score bands in turn (low, middle, high: a row's low scores come up as early as
   its high ones, whatever the judge gave most), so agreement is measured across models and
   across the scale.

Within a row and band the cells are ordered by a hash of their key: deterministic, and
spread over prompts and repeats rather than taking a pack's first prompts. Only cells with
a scored verdict count: an answer the judge did not score has nothing to agree with.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict, deque
from collections.abc import Collection, Iterable

from touchstone.pack import Scale
from touchstone.results import Verdict, VerdictKey, cell_key

DEFAULT_SAMPLE = 30
BANDS = 3


def _hashed(key: VerdictKey) -> str:
    text = "\x1f".join((key.model, key.variant, key.prompt_id, str(key.repeat)))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def band(score: float, scale: Scale) -> int:
    """0 (low), 1 (middle) or 2 (high): the third of ``scale`` that ``score`` lies in."""
    span = scale.max - scale.min
    if span <= 0:
        return 0
    return min(BANDS - 1, int((score - scale.min) * BANDS // (span + 1)))


def sample_order(
    verdicts: Iterable[Verdict], scale: Scale, disputed: Collection[VerdictKey] | None = None
) -> list[VerdictKey]:
    """Every cell with a scored verdict, in the order the spot check takes them (see the
    module's docstring); ``disputed``: cells to put first (the jury's disagreements)."""
    scored = {VerdictKey(*cell_key(v)): v.score for v in verdicts if v.scored}
    first = sorted((k for k in scored if disputed and k in disputed), key=_hashed)
    strata: dict[tuple[str, str], list[deque[VerdictKey]]] = defaultdict(
        lambda: [deque() for _ in range(BANDS)]
    )
    for key in sorted((k for k in scored if not (disputed and k in disputed)), key=_hashed):
        strata[(key.model, key.variant)][band(scored[key], scale)].append(key)
    rows = [strata[row] for row in sorted(strata)]
    order = list(first)
    turn = 0
    while rows:
        for index, bands in enumerate(rows):
            # Row i starts its walk at band (turn + i): rows do not all show a low cell first.
            for step in range(BANDS):
                cells = bands[(turn + index + step) % BANDS]
                if cells:
                    order.append(cells.popleft())
                    break
        rows = [bands for bands in rows if any(bands)]
        turn += 1
    return order


def to_rate(order: list[VerdictKey], n: int, rated: Collection[VerdictKey]) -> list[VerdictKey]:
    """The cells of the first ``n`` of ``order`` that ``rated`` does not hold yet."""
    return [key for key in order[:n] if key not in rated]
