"""``compare``'s gate holds for the whole set of rows, checked by simulation: unchanged runs fail
it, or flag a category, at most about as often as the stated level says (seeded; 5 % targets
asserted as at most 8 %). The in-process rest is ``tests/unit/versus/test_versus_family.py``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from tests.unit.versus.test_versus_family import BUERO65, clusters, comparison_of, row_of
from tests.unit.versus.versus_support import (
    BUERO,
    SIX_ROWS,
    Pair,
    difficulties,
    noisy_cells,
)
from touchstone.pack import Pack, load_pack
from touchstone.stats.paired import paired_difference
from touchstone.versus import gate
from touchstone.versus.build import RowComparison
from touchstone.versus.gate import PASS, WORSE


def unchanged_rows(
    rng: random.Random, pack: Pack, rows: Mapping[Pair, float], *, by_category: bool
) -> list[RowComparison]:
    """Two runs of the same ``rows``: each row's paired interval as ``compare`` computes it
    (``paired.paired_difference`` over the shared prompts), per row or per category only (one
    bootstrap per interval asked: the full ``compare_runs`` of 300 runs would take a minute)."""
    drawn = difficulties(rng, pack, rows)
    _, new = noisy_cells(rng, pack, rows, drawn)
    _, old = noisy_cells(rng, pack, rows, drawn)
    out = []
    for pair in rows:
        mine, theirs = clusters(new, pair), clusters(old, pair)
        if by_category:
            per = {c: paired_difference(mine[c], theirs[c]) for c in mine}
            out.append(row_of(pair, None, per))
        else:
            every = {p: c for by in mine.values() for p, c in by.items()}
            then = {p: c for by in theirs.values() for p, c in by.items()}
            out.append(row_of(pair, paired_difference(every, then), {}))
    return out


def test_unchanged_runs_of_six_rows_fail_the_gate_at_most_about_5_percent() -> None:
    pack = load_pack(BUERO)  # 27 prompts: the rate does not hang on the pack's size
    rng = random.Random(20261201)
    runs, failed, per_row = 200, 0, 0
    for _ in range(runs):
        rows = unchanged_rows(rng, pack, SIX_ROWS, by_category=False)
        result = gate(comparison_of(rows, {}), fail_on_worse=True, margin=None)
        failed += result.exit_code == WORSE
        per_row += any(row.better == "baseline" for row in rows)
    assert failed / runs <= 0.08, failed / runs
    # What the gate at 95 % per row did on the same runs (issue 33: 13.6-16.3 %).
    assert per_row / runs > 0.08, per_row / runs


def test_unchanged_rows_with_eight_categories_flag_one_at_most_about_8_percent() -> None:
    pack = load_pack(BUERO65)  # buero's 8 categories of 8-9 prompts
    assert len(pack.categories) == 8
    rng = random.Random(20261202)
    rows, flagged, per_category = 0, 0, 0
    while rows < 240:
        for row in unchanged_rows(rng, pack, SIX_ROWS, by_category=True):
            rows += 1
            said = row.as_dict()["categories"].values()
            flagged += any(category["better"] is not None for category in said)
            per_category += any(d is not None and d.excludes_zero for d in row.categories.values())
    assert flagged / rows <= 0.08, flagged / rows
    # Each category at 95 % on its own (issue 33: 25-34 % of unchanged rows).
    assert per_category / rows > 0.15, per_category / rows


def test_the_margin_stated_for_all_rows_lets_unchanged_rows_pass_together() -> None:
    # The gate said "besteht die Marge mit 80 % (je Zeile) erst ab 0,49"; with --margin 0.49
    # six unchanged rows passed together in 47 % of runs. It now also states the margin at
    # which all rows pass at once with 80 %.
    pack = load_pack(BUERO)
    rng = random.Random(44)
    first = gate(
        comparison_of(unchanged_rows(rng, pack, SIX_ROWS, by_category=False), {}),
        fail_on_worse=False,
        margin=0.3,
    )
    details = first.as_dict()
    per_row, together = details["passing_margin"], details["passing_margin_all_rows"]
    assert together > per_row
    assert "alle 6 unveränderten Zeilen zusammen erst ab etwa" in first.message, first.message
    runs = 150
    passed_per_row = passed_together = 0
    for _ in range(runs):
        rows = comparison_of(unchanged_rows(rng, pack, SIX_ROWS, by_category=False), {})
        passed_per_row += gate(rows, fail_on_worse=False, margin=per_row).exit_code == PASS
        passed_together += gate(rows, fail_on_worse=False, margin=together).exit_code == PASS
    assert passed_per_row / runs < 0.7
    assert passed_together / runs >= 0.72
