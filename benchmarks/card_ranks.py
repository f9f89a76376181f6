"""Do ranks split rows of equal quality? And do they still find a better one? (design.md §23)

A row's rank is 1 + the longest chain of rows better than it. Per pair at 95 %, r rows make
r(r-1)/2 chances for one false "better": some of r equal rows was ranked 2 or lower in 40 %
of cards with 6 rows and 75 % with 12 (issue 33 §4). The ranks now count a pair as better
only when its interval, widened for all r(r-1)/2 pairs (Bonferroni), lies above 0.

Simulated runs on buero's 65 prompts (its ids and categories), one repeat, as
``ci_coverage.py`` draws them: each prompt has a difficulty (normal, sd 1), each score is the
row's quality + the difficulty + noise (sd 0.9), rounded and clipped to 0..5. Each run goes
through ``build_scorecard``; beside the card's ranks, the ranks the old rule (per pair at 95 %)
gives on the same run.

Null: 2, 6 and 12 rows of equal quality (3.4, as in ci_coverage.py); the share of cards in
which some row is ranked below 1. Target: at most 7 % (nominal 5 %), whatever the rows.
Power: one row of quality +0.3 or +0.5 over the others (2.5: mid-scale, so the ceiling does
not eat the difference; the true difference of the means is printed), at 2, 6 and 12 rows;
the share of cards in which it alone is ranked 1 (every other row ranked 2 or lower), and the
share of the other rows ranked below it (averaged over the cards).
Run: uv run python benchmarks/card_ranks.py
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import BUERO, report

from touchstone.pack import load_pack
from touchstone.results import EvalResponse, Verdict
from touchstone.scorecard.build import Scorecard, build_scorecard
from touchstone.scorecard.compare import Comparer, _rank
from touchstone.sim.scored import known_quality_run

RUNS = 250
ROWS = [2, 6, 12]
NULL_QUALITY = 3.4
BASE = 2.5
EFFECTS = [0.3, 0.5]
REPEATS = 1
NOISE = 0.9


def score(rng: random.Random, quality: float, difficulty: float) -> int:
    return max(0, min(5, round(quality + difficulty + rng.gauss(0, NOISE))))


def true_mean(rng: random.Random, quality: float) -> float:
    return statistics.fmean(score(rng, quality, rng.gauss(0, 1.0)) for _ in range(400_000))


def simulated_run(
    rng: random.Random, prompts: list[tuple[str, str]], qualities: list[float]
) -> tuple[list[EvalResponse], list[Verdict]]:
    """Answers and verdicts of rows ``m00``, ``m01``, … of the given qualities."""
    difficulties = [rng.gauss(0, 1.0) for _ in prompts]
    rows = {(f"m{index:02d}", "none"): quality for index, quality in enumerate(qualities)}
    ids = [(prompt_id, category) for category, prompt_id in prompts]
    level = {prompt_id: d for (_, prompt_id), d in zip(prompts, difficulties, strict=True)}
    return known_quality_run(
        rng, rows, ids, lambda _, prompt_id: level[prompt_id], repeats=REPEATS, noise=NOISE
    )


def per_pair_ranks(card: Scorecard) -> dict[str, int]:
    """The ranks of the old rule on the same card: "better" per pair at 95 % (one test)."""
    ranked = sorted(card.ranked, key=lambda r: -(r.mean or 0.0))
    new = {row.model: row.rank for row in ranked}
    _rank(ranked, Comparer(ranked, card.span, 1))
    old = {row.model: row.rank or 0 for row in ranked}
    for row in ranked:  # the card keeps its own
        row.rank = new[row.model]
    return old


def main() -> None:
    pack = load_pack(BUERO)
    prompts = [(category.id, prompt.id) for category, prompt in pack.all_prompts()]
    rng = random.Random(2033)
    print(f"{len(prompts)} prompts (buero) x {REPEATS} repeat, {RUNS} cards per scenario")
    print("\nnull: all rows of equal quality; cards with a split rank (some row below 1)")
    for rows in ROWS:
        split_card = split_pair = 0
        started = time.monotonic()
        for _ in range(RUNS):
            card = build_scorecard(
                *simulated_run(rng, prompts, [NULL_QUALITY] * rows), scale_min=0, scale_max=5
            )
            split_card += any(row.rank != 1 for row in card.rows)
            split_pair += any(rank != 1 for rank in per_pair_ranks(card).values())
        ms = (time.monotonic() - started) / RUNS * 1000
        share = split_card / RUNS
        report(
            f"split rank, {rows} equal rows ({card.ranks.pairs} pairs)",
            share * 100,
            f"% (per pair at 95 %, the old rule: {split_pair / RUNS * 100:.1f} %; {ms:.0f} ms)",
            "≤ 7 %",
            share <= 0.07,
        )
    base = true_mean(rng, BASE)
    print(f"\npower: one row better by q (quality {BASE} + q, the others {BASE}); ranked 1 alone")
    for effect in EFFECTS:
        diff = true_mean(rng, BASE + effect) - base
        for rows in ROWS:
            alone = {"card": 0, "pair": 0}
            below = {"card": 0.0, "pair": 0.0}
            for _ in range(RUNS):
                qualities = [BASE + effect] + [BASE] * (rows - 1)
                card = build_scorecard(
                    *simulated_run(rng, prompts, qualities), scale_min=0, scale_max=5
                )
                for rule, rank in (
                    ("card", {row.model: row.rank or 0 for row in card.rows}),
                    ("pair", per_pair_ranks(card)),
                ):
                    others = [r for model, r in rank.items() if model != "m00"]
                    alone[rule] += rank["m00"] == 1 and min(others) > 1
                    below[rule] += sum(r > rank["m00"] for r in others) / len(others)
            print(
                f"       q = {effect} (true difference {diff:.3f}), {rows} rows: ranked 1 alone "
                f"{alone['card'] / RUNS * 100:.1f} %, others below it "
                f"{below['card'] / RUNS * 100:.1f} % (per pair at 95 %: "
                f"{alone['pair'] / RUNS * 100:.1f} %, {below['pair'] / RUNS * 100:.1f} %)"
            )


if __name__ == "__main__":
    main()
