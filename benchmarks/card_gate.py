"""Does `compare`'s gate hold for the whole card? (issue 33 §2, design.md §3; design.md §23)

Two runs of buero (65 prompts, 8 categories) of the same models: every row's score on a
prompt is its quality plus the prompt's difficulty (the same in both runs: the same prompts)
plus the noise of one answer and its verdict (sd 0.9), rounded and clipped to 0..5, as
``ci_coverage.py`` draws them. The runs are built as verdicts and compared by
``versus.compare_runs`` and ``versus.gate``, the code ``touchstone compare`` runs.

Under the null (nothing changed):
- the gate's exit-1 rate (``--fail-on worse``) at 1, 2 and 6 rows, beside the rule it
  replaced (exit 1 when any row's own 95 % interval lies below 0). Target: at most ~5 %.
- the README's CI example (one row, 65 prompts x 2 repeats, ``--fail-on worse --margin
  0.3``): how often it exits 0, 1 and 3.
- the share of unchanged rows that show a category "besser"/"schlechter" (8 categories),
  decided over the row's categories (Bonferroni) and, for contrast, at 95 % per category.
Under a known effect: one row of 6 loses 0.5 points (of its expected score: the quality
is lowered by what that takes after rounding and clipping); the share of runs whose gate
fails (on that row), at 65 prompts x 1, 2 and 3 repeats; and, as a check of the power the
gate states, the share that fails when the loss is the one it states it finds with 80 %.

Run: uv run python benchmarks/card_gate.py
"""

from __future__ import annotations

import math
import random
import statistics
import sys
import time
from collections.abc import Mapping
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import BUERO, report

from touchstone.pack import Pack, load_pack
from touchstone.sim.scored import known_quality_run
from touchstone.stages.view import RunView
from touchstone.store import RunDir
from touchstone.versus import RunComparison, compare_runs, gate
from touchstone.versus.gate import INCONCLUSIVE, PASS, WORSE

Pair = tuple[str, str]
NOISE_SD = 0.9
MODELS = (("sim-gut", 3.8), ("sim-mittel", 3.2), ("sim-schwach", 2.4))
SIX = {(m, v): q for m, q in MODELS for v in ("none", "sachlich")}
ROWS = {1: {("sim-mittel", "none"): 3.2}, 2: dict(list(SIX.items())[2:4]), 6: SIX}
NULL_RUNS = {1: 800, 2: 600, 6: 400}
POWER_RUNS = 250
MARGIN_RUNS = 800
LOSS = 0.5
LOSER = ("sim-mittel", "sachlich")


def expected_score(quality: float) -> float:
    """A row's expected score over prompts and noise: quality + difficulty (sd 1) + noise
    (sd 0.9) is normal; rounded and clipped to 0..5 its mean is the sum over j = 0..4 of
    P(x >= j + 0.5)."""
    sd = math.hypot(1.0, NOISE_SD)
    normal = statistics.NormalDist(quality, sd)
    return sum(1 - normal.cdf(j + 0.5) for j in range(5))


def lowered(quality: float, loss: float) -> float:
    """The quality whose expected score is ``loss`` below ``quality``'s (bisection)."""
    low, high = quality - 5 * loss - 1, quality
    target = expected_score(quality) - loss
    for _ in range(60):
        mid = (low + high) / 2
        if expected_score(mid) < target:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def cells(
    rng: random.Random,
    pack: Pack,
    rows: Mapping[Pair, float],
    difficulty: Mapping[tuple[str, str, str], float],
    repeats: int,
    name: str,
) -> RunView:
    prompts = [(prompt.id, category.id) for category, prompt in pack.all_prompts()]
    responses, verdicts = known_quality_run(
        rng,
        rows,
        prompts,
        lambda row, prompt: difficulty[(*row, prompt)],
        repeats=repeats,
        noise=NOISE_SD,
    )
    return RunView(RunDir(Path("/benchmark") / name), pack, {}, responses, verdicts, [])


def compared(
    rng: random.Random,
    pack: Pack,
    rows: Mapping[Pair, float],
    repeats: int,
    changed: Mapping[Pair, float] | None = None,
) -> RunComparison:
    """Baseline of ``rows``, new run of ``changed`` (default: the same) on the same prompts."""
    difficulty = {(*row, p.id): rng.gauss(0, 1.0) for row in rows for _, p in pack.all_prompts()}
    new = cells(rng, pack, changed or rows, difficulty, repeats, "neu")
    old = cells(rng, pack, rows, difficulty, repeats, "alt")
    return compare_runs(new, old)


def null_rates(rng: random.Random, pack: Pack) -> tuple[int, int, int]:
    """The gate's exit-1 rate on unchanged runs at 1, 2, 6 rows; returns the category
    counts of the 6-row runs (rows, flagged over the row, flagged per category alone)."""
    rows_seen = flagged = alone = 0
    for size, rows in ROWS.items():
        runs, failed, per_row = NULL_RUNS[size], 0, 0
        started = time.monotonic()
        for _ in range(runs):
            comparison = compared(rng, pack, rows, 1)
            failed += gate(comparison, fail_on_worse=True, margin=None).exit_code == WORSE
            per_row += any(row.better == "baseline" for row in comparison.rows)
            if size == 6:
                for row in comparison.rows:
                    rows_seen += 1
                    flagged += any(row.category_better(c) for c in row.categories)
                    alone += any(d is not None and d.excludes_zero for d in row.categories.values())
        share = failed / runs
        report(
            f"exit 1 on unchanged runs, {size} row(s), 65 prompts x 1 repeat, {runs} runs",
            share * 100,
            "%",
            "≤ ~5 % (≤ 7 %)",
            share <= 0.07,
        )
        print(
            f"       old rule (any row's own 95 % interval below 0): {per_row / runs:.1%}; "
            f"{(time.monotonic() - started) / runs * 1000:.0f} ms per comparison"
        )
    return rows_seen, flagged, alone


def power(rng: random.Random, pack: Pack) -> None:
    changed = {**SIX, LOSER: lowered(SIX[LOSER], LOSS)}
    stated: list[float] = []
    for repeats in (1, 2, 3):
        hits, losses = 0, []
        for _ in range(POWER_RUNS):
            comparison = compared(rng, pack, SIX, repeats, changed)
            result = gate(comparison, fail_on_worse=True, margin=None)
            hits += result.exit_code == WORSE and f"{LOSER[0]} · {LOSER[1]} schlechter" in (
                result.message
            )
            loser = next(r for r in result.details["rows"] if tuple(r["new"]) == LOSER)
            losses.append(loser["detectable_loss"])
        share = hits / POWER_RUNS
        print(
            f"       power, loss {LOSS} on {LOSER[0]} · {LOSER[1]} of 6 rows, 65 prompts x "
            f"{repeats} repeat(s): {share:.1%} fail on that row ({POWER_RUNS} runs); the gate "
            f"states it finds {statistics.median(losses):.2f} with 80 % (median)"
        )
        if repeats == 2:
            stated = losses
    # The power the gate states, checked: a loss of exactly the stated size fails ~80 %.
    target = statistics.median(stated)
    changed = {**SIX, LOSER: lowered(SIX[LOSER], target)}
    hits = 0
    for _ in range(POWER_RUNS):
        result = gate(compared(rng, pack, SIX, 2, changed), fail_on_worse=True, margin=None)
        hits += result.exit_code == WORSE and f"{LOSER[0]} · {LOSER[1]}" in result.message
    share = hits / POWER_RUNS
    report(
        f"power at the stated loss ({target:.2f}, 65 prompts x 2 repeats, 6 rows)",
        share * 100,
        "%",
        "~80 % (70–90 %)",
        0.7 <= share <= 0.9,
    )


def margin(rng: random.Random, pack: Pack) -> None:
    """README's CI example: one row, 65 prompts x 2 repeats, --fail-on worse --margin 0.3."""
    codes = {PASS: 0, WORSE: 0, INCONCLUSIVE: 0}
    passing = []
    for _ in range(MARGIN_RUNS):
        result = gate(compared(rng, pack, ROWS[1], 2), fail_on_worse=True, margin=0.3)
        codes[result.exit_code] += 1
        passing.append(result.details["passing_margin"])
    shares = {code: count / MARGIN_RUNS for code, count in codes.items()}
    print(
        f"       --margin 0.3, unchanged model, 1 row, 65 prompts x 2 repeats ({MARGIN_RUNS} "
        f"runs): exit 0 {shares[PASS]:.1%}, exit 1 {shares[WORSE]:.1%}, exit 3 "
        f"{shares[INCONCLUSIVE]:.1%}; the margin an unchanged row passes with 80 %: "
        f"{statistics.median(passing):.2f} (median)"
    )
    report(
        "--margin 0.3 exit 1 on an unchanged model", shares[WORSE] * 100, "%", "≤ 5 %",
        shares[WORSE] <= 0.05,
    )  # fmt: skip


def main() -> None:
    started = time.monotonic()
    pack = load_pack(BUERO)
    rng = random.Random(20261201)
    rows, flagged, alone = null_rates(rng, pack)
    share = flagged / rows
    report(
        f"unchanged rows with a flagged category (8 categories, over the row), {rows} rows",
        share * 100,
        "%",
        "≤ ~5 % (≤ 8 %)",
        share <= 0.08,
    )
    print(f"       at 95 % per category alone (the old rule): {alone / rows:.1%}")
    power(rng, pack)
    margin(rng, pack)
    print(f"({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
