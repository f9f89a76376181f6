"""A scorecard stored whole and read back equal (``Scorecard == card_from_state(...)``).

Unlike ``scorecard.json`` (rounded, for people and scripts), this keeps every float as it
was computed, so a card read back prints exactly like the one built. It is what lets a
resume with nothing to judge skip rebuilding the card from 100k verdicts
(``stages/settled.py``). The per-prompt clusters are not kept: they serve only the build.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import fields
from typing import Any

from touchstone.scorecard.build import Scorecard, ScoreRow
from touchstone.scorecard.compare import Comparison
from touchstone.stats import Interval

_ROW_FIELDS = tuple(f.name for f in fields(ScoreRow) if f.name != "clusters")
_CARD_LISTS = ("categories", "dimensions", "judge_models")


def card_state(card: Scorecard) -> dict[str, Any]:
    """The card as JSON-ready data."""
    return {
        "rows": [_row_state(row) for row in card.rows],
        "comparisons": [[list(c.a), list(c.b), _interval(c.diff)] for c in card.comparisons],
        **{name: list(getattr(card, name)) for name in _CARD_LISTS},
    }


def card_from_state(data: dict[str, Any]) -> Scorecard:
    """The card ``card_state`` gave; ``KeyError``/``TypeError``/``ValueError`` if it is not
    one (the caller rebuilds the card then)."""
    return Scorecard(
        rows=[_row_from_state(row) for row in data["rows"]],
        comparisons=[
            Comparison((a[0], a[1]), (b[0], b[1]), Interval(*_floats(diff), int(diff[3])))
            for a, b, diff in data["comparisons"]
        ],
        **{name: [str(item) for item in data[name]] for name in _CARD_LISTS},
    )


def _row_state(row: ScoreRow) -> dict[str, Any]:
    state = {name: getattr(row, name) for name in _ROW_FIELDS}
    state["interval"] = _interval(row.interval)
    state["category_intervals"] = {c: _interval(i) for c, i in row.category_intervals.items()}
    state["unscored"] = dict(row.unscored)
    return state


def _row_from_state(state: dict[str, Any]) -> ScoreRow:
    values = {name: state[name] for name in _ROW_FIELDS}
    values["interval"] = _interval_of(state["interval"])
    values["category_intervals"] = {
        c: _interval_of(i) for c, i in state["category_intervals"].items()
    }
    values["unscored"] = Counter(state["unscored"])
    return ScoreRow(**values)


def _interval(interval: Interval | None) -> list[float] | None:
    if interval is None:
        return None
    return [interval.mean, interval.low, interval.high, interval.n]


def _interval_of(data: list[float] | None) -> Interval | None:
    if data is None:
        return None
    return Interval(*_floats(data), int(data[3]))


def _floats(data: list[float]) -> tuple[float, float, float]:
    mean, low, high, _ = data
    return float(mean), float(low), float(high)
