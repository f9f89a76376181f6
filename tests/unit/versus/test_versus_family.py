"""``compare``'s decisions about a set hold for the whole set (issue 33 §2, design.md §3; design.md
§23).

Runs of noise only (tests/versus_support.py: the same qualities, the same prompts, the
noise of each answer drawn anew) must not fail the gate, nor flag a category, much more
often than 5 % whatever the number of rows or categories; a real loss must still fail it.
The simulations are seeded and assert with slack (5 % targets as at most 8 %).
"""

from __future__ import annotations

import io
import random
from collections.abc import Mapping

from rich.console import Console

from tests.unit.versus.versus_support import (
    REPO,
    SIX_ROWS,
    Pair,
    difficulties,
    noisy_cells,
    view_of,
)
from touchstone.pack import load_pack
from touchstone.results import Verdict
from touchstone.stats.intervals import Cluster, Interval
from touchstone.versus import RunComparison, compare_runs, gate
from touchstone.versus.build import RowComparison, Side
from touchstone.versus.cells import PromptSets
from touchstone.versus.gate import INCONCLUSIVE, PASS, WORSE
from touchstone.versus.terminal import render_comparison

BUERO65 = REPO / "packs" / "buero.yaml"


def clusters(verdicts: list[Verdict], pair: Pair) -> dict[str, dict[str, Cluster]]:
    """A row's clusters by prompt, per category."""
    scores: dict[str, dict[str, list[float]]] = {}
    for v in verdicts:
        if (v.model, v.variant) == pair:
            scores.setdefault(v.category, {}).setdefault(v.prompt_id, []).append(v.score)
    return {c: {p: Cluster.of(s) for p, s in by.items()} for c, by in scores.items()}


def comparison_of(rows: list[RowComparison], categories: Mapping[str, str]) -> RunComparison:
    return RunComparison("neu", "alt", "buero", "buero", rows, dict(categories), PromptSets())


def row_of(
    pair: Pair, diff: Interval | None, categories: dict[str, Interval | None]
) -> RowComparison:
    side = Side(pair, None, 0, 0, 0, 0)
    return RowComparison(side, side, diff, categories)


def test_a_real_loss_of_half_a_point_on_one_row_of_six_still_fails_the_gate() -> None:
    pack = load_pack(BUERO65)
    rng = random.Random(7)
    drawn = difficulties(rng, pack, SIX_ROWS)
    # Quality 0.6 lower: 0.55 points of expected score after rounding and clipping.
    worse = {**SIX_ROWS, ("sim-mittel", "sachlich"): SIX_ROWS[("sim-mittel", "sachlich")] - 0.6}
    comparison = compare_runs(
        view_of("neu", pack, noisy_cells(rng, pack, worse, drawn, repeats=3)),
        view_of("alt", pack, noisy_cells(rng, pack, SIX_ROWS, drawn, repeats=3)),
    )
    result = gate(comparison, fail_on_worse=True, margin=None)
    assert result.exit_code == WORSE, result.message
    assert result.message.startswith("Gate nicht bestanden")
    assert "sim-mittel · sachlich schlechter" in result.message
    assert "sim-gut" not in result.message.split(". ")[0]
    # At 65 prompts x 3 repeats the gate finds a loss well below half a point with 80 %.
    loss = result.details["detectable_loss"]
    assert isinstance(loss, float) and 0.2 < loss < 0.5


def _interval(mean: float, half: float, n: int = 65) -> Interval:
    return Interval(mean, mean - half, mean + half, n)


def test_a_margin_passes_on_every_row_s_own_interval_and_fails_only_on_the_widened_one() -> None:
    """Non-inferiority over rows is an intersection-union test: it passes only when every row
    passes, so each row's 95 % interval above -D already holds for the card at 95 %. Failing
    ("some row loses more than D") is a decision over the rows: the widened interval."""
    pairs = list(SIX_ROWS)
    # Every row's interval just above -0,30: passes, though widened for six it would not.
    close = [row_of(p, _interval(-0.05, 0.24), {}) for p in pairs]
    result = gate(comparison_of(close, {}), fail_on_worse=False, margin=0.3)
    assert result.exit_code == PASS, result.message
    assert "jedes 95-%-Intervall über -0,30" in result.message
    assert "ohne Korrektur" in result.message
    # A row whose own interval lies below -0,30, its widened one not: cannot tell yet.
    below = [row_of(pairs[0], _interval(-0.6, 0.25), {}), *close[1:]]
    result = gate(comparison_of(below, {}), fail_on_worse=False, margin=0.3)
    assert result.exit_code == INCONCLUSIVE, result.message
    assert "Bonferroni über 6 Zeilen" in result.message
    # Far below: fails.
    far = [row_of(pairs[0], _interval(-1.2, 0.25), {}), *close[1:]]
    result = gate(comparison_of(far, {}), fail_on_worse=False, margin=0.3)
    assert result.exit_code == WORSE and "um mehr als 0,30 schlechter" in result.message


def test_an_unchanged_row_s_lone_category_at_95_percent_is_not_flagged() -> None:
    """Seed 7: in two runs of the same six rows one row has a category whose own 95 %
    interval lies above 0. Flagged within the row over its 8 categories (Bonferroni), it is
    not a finding: the terminal lists no category, --json's ``better`` is None; with
    --categories it is shown with its 95 % interval, per category and exploratory."""
    pack = load_pack(BUERO65)
    rng = random.Random(SEED_LONE_CATEGORY)
    drawn = difficulties(rng, pack, SIX_ROWS)
    comparison = compare_runs(
        view_of("neu", pack, noisy_cells(rng, pack, SIX_ROWS, drawn)),
        view_of("alt", pack, noisy_cells(rng, pack, SIX_ROWS, drawn)),
    )
    lone = [
        (row, category)
        for row in comparison.rows
        for category, diff in row.categories.items()
        if diff is not None and diff.excludes_zero
    ]
    assert lone, "the premise: some category's own 95 % interval excludes 0"
    data = comparison.as_dict()
    for row in data["rows"]:
        for category in row["categories"].values():
            assert category["better"] is None
            assert category["ci_low_adjusted"] <= category["ci_low"]
        assert row["category_correction"]["method"] == "bonferroni"
        assert row["category_correction"]["tests"] == 8
    result = gate(comparison, fail_on_worse=False, margin=None)
    console = Console(width=100, record=True, file=io.StringIO())
    console.print(render_comparison(comparison, result))
    flat = " ".join(console.export_text().split())
    assert "keine Kategorie ist besser oder schlechter" in flat
    assert "Bonferroni über die Kategorien der Zeile" in flat
    console = Console(width=100, record=True, file=io.StringIO())
    console.print(render_comparison(comparison, result, every_category=True))
    flat = " ".join(console.export_text().split())
    row, category = lone[0]
    assert f"Nach Kategorie: {row.new.pair[0]} · {row.new.pair[1]}" in flat
    assert "je Kategorie, explorativ" in flat


SEED_LONE_CATEGORY = 7


def test_widened_intervals_stay_within_what_a_difference_can_be() -> None:
    # On 0..5 no difference lies beyond ±5: a row's loss of -4,67 over few prompts was shown
    # "-4,67 [-5,51 – -0,62]" by the gate, and a category's adjusted bound read -5,24.
    wide = Interval(-4.67, -5.0, -2.2, 5)
    side = Side(("m0", "none"), None, 0, 0, 0, 0)
    rows = [RowComparison(side, side, wide, {"A": wide, "B": _interval(0.0, 0.4, 8)}, 5.0)]
    rows += [
        RowComparison(Side((f"m{i}", "none"), None, 0, 0, 0, 0), side, _interval(0, 0.3), {}, 5.0)
        for i in range(1, 6)
    ]
    result = gate(comparison_of(rows, {"A": "A", "B": "B"}), fail_on_worse=True, margin=None)
    assert result.exit_code == WORSE
    assert "-5,51" not in result.message and "[-5,00 – " in result.message, result.message
    adjusted = rows[0].category_interval("A")
    assert adjusted is not None and adjusted.low == -5.0
    assert all(-5 <= row["ci_low"] <= row["ci_high"] <= 5 for row in result.as_dict()["rows"])
