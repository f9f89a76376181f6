"""Does the spot check's "rows differ" hold at 95 % for the whole card? (design.md §23, issue 33)

Simulated spot checks of known truth: each rated cell's difference judge minus person is
-1/0/+1, drawn with the same symmetric distribution on every model/variant row (an unbiased
judge): 1:2:1 (a close judge) or 1:1:1 (a noisier one). The figure is the share of cards
whose verdict says the rows differ ("Judge weicht ab … ein deutlicher Unterschied"), decided
by ``rows_differ.rows_test``, the function ``human_agreement`` decides it with (Welch per
pair of rows, Holm over all pairs; beyond 20 rows the mildest against the strictest at
Bonferroni). Beside it, for contrast, the share before the correction: any pair's Welch
interval at 95 % on its own excluding 0 (what the card did before issue 33, its df floored to
a whole number). Target: at most about 5-7 %.

Then the power: one row of buero's 6 x 5 made lenient (its differences shifted by +1, by +1
or +2 at random, i.e. +1,5 on average, and by +2 points), the share of cards that name that
row as the milder of the differing pair.

Last, buero's default card (6 rows x 5 ratings) end to end through ``human_agreement`` (the
whole card, bootstrap and all): its "rows differ" share under the null and its false
"weicht ab" for any reason.

Run: uv run python benchmarks/card_spot.py
"""

from __future__ import annotations

import math
import random
import statistics
import sys
import time
from collections.abc import Callable
from itertools import combinations
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import report

from touchstone.pack import Scale
from touchstone.results import Verdict
from touchstone.spot.agreement import human_agreement
from touchstone.spot.rows_differ import RowKey, rows_test, welch
from touchstone.stats.distributions import t_upper
from touchstone.store.ratings import HumanRating

CARDS = 2000
END_TO_END = 600
SIZES = [(2, 15), (3, 10), (6, 5), (10, 6), (25, 5)]
JUDGES = {"close judge (1:2:1)": (1, 2, 1), "noisier judge (1:1:1)": (1, 1, 1)}
Shift = Callable[[random.Random], int]
BIASES: dict[str, Shift] = {
    "+1": lambda rng: 1,
    "+1,5 (1 or 2)": lambda rng: rng.choice((1, 2)),
    "+2": lambda rng: 2,
}


def samples_of(
    rng: random.Random, rows: int, per: int, weights: tuple[int, int, int], shift: Shift | None
) -> dict[RowKey, list[float]]:
    samples: dict[RowKey, list[float]] = {}
    for r in range(rows):
        diffs = rng.choices((-1, 0, 1), weights=weights, k=per)
        if r == 0 and shift is not None:
            diffs = [d + shift(rng) for d in diffs]
        samples[(f"m{r:02d}", "none")] = [float(d) for d in diffs]
    return samples


def decided(samples: dict[RowKey, list[float]]) -> tuple[RowKey, RowKey] | None:
    means = {key: statistics.fmean(values) for key, values in samples.items()}
    return rows_test(means, samples).found


def uncorrected(samples: dict[RowKey, list[float]]) -> tuple[RowKey, RowKey] | None:
    """Before issue 33: the most different pair whose own Welch interval at 95 % excludes 0
    (with the df floored to a whole number, as the card then did)."""
    means = {key: statistics.fmean(values) for key, values in samples.items()}
    found = []
    for a, b in combinations(sorted(samples, key=means.__getitem__), 2):
        test = welch(samples[b], samples[a])
        if (
            test is not None
            and abs(test.difference) > t_upper(max(1, math.floor(test.df))) * test.se
        ):
            found.append((means[b] - means[a], b, a))
    if not found:
        return None
    _, high, low = max(found)
    return high, low


def null_rates() -> None:
    print(f"Unbiased judge, {CARDS} simulated spot checks per line:")
    for name, weights in JUDGES.items():
        for rows, per in SIZES:
            rng = random.Random(rows * 1000 + per + sum(weights))
            flagged = before = 0
            for _ in range(CARDS):
                samples = samples_of(rng, rows, per, weights, None)
                flagged += decided(samples) is not None
                before += uncorrected(samples) is not None
            share = flagged / CARDS
            pairs = rows * (rows - 1) // 2
            report(
                f"'rows differ', {name}, {rows} rows x {per} ratings ({pairs} pairs)",
                share * 100,
                "%",
                "≤ 7 %",
                share <= 0.07,
            )
            print(f"       before the correction (each pair at 95 %): {before / CARDS:.1%}")


def power() -> None:
    print(f"A judge lenient to one row of 6 x 5, {CARDS} spot checks per line:")
    for name, weights in JUDGES.items():
        for bias, shift in BIASES.items():
            rng = random.Random(len(bias) * 7 + sum(weights))
            found = before = 0
            for _ in range(CARDS):
                samples = samples_of(rng, 6, 5, weights, shift)
                pair = decided(samples)
                found += pair is not None and pair[0] == ("m00", "none")
                old = uncorrected(samples)
                before += old is not None and old[0] == ("m00", "none")
            print(
                f"  power, {name}, lenient row {bias} points: {found / CARDS:.1%} "
                f"(before the correction: {before / CARDS:.1%})"
            )


def end_to_end() -> None:
    scale = Scale(min=0, max=5)
    rng = random.Random(2033)
    rows_flagged = deviates = 0
    started = time.monotonic()
    for _ in range(END_TO_END):
        verdicts, ratings = [], []
        for r in range(6):
            for i in range(5):
                human = rng.randint(1, 4)
                judge = human + rng.choices((-1, 0, 1), weights=(1, 2, 1))[0]
                cell = {"model": f"m{r}", "variant": "none", "prompt_id": f"p{i}", "repeat": 1}
                verdicts.append(
                    Verdict(**cell, category="c", score=judge, red_flag=False, rationale="")
                )
                ratings.append(
                    HumanRating(
                        **cell, score=human, red_flag=False, rater="b", rated_at="2026-12-01"
                    )
                )
        card = human_agreement(ratings, verdicts, scale)
        assert card is not None and card.rows_test is not None
        rows_flagged += card.rows_test.found is not None
        deviates += card.verdict == "weicht ab"
    seconds = time.monotonic() - started
    share = rows_flagged / END_TO_END
    report(
        f"end to end (human_agreement), 6 rows x 5, close judge: 'rows differ' in {END_TO_END}",
        share * 100,
        "%",
        "≤ 7 %",
        share <= 0.07,
    )
    print(
        f"       'Judge weicht ab' for any reason: {deviates / END_TO_END:.1%} "
        f"({seconds / END_TO_END * 1000:.0f} ms per card)"
    )


def main() -> None:
    null_rates()
    power()
    end_to_end()


if __name__ == "__main__":
    main()
