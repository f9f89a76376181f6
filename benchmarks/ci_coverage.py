"""Do the scorecard's 95 % intervals cover the truth 95 % of the time? (DESIGN §13)

Simulated runs of two models of known quality: each run draws its prompts from a population
(every prompt has a difficulty), each answer's score is the model's quality plus the
prompt's difficulty plus noise, rounded and clipped to the 0..5 scale. The true mean of a
model is its expected score over that population (computed once from a large sample). Each
run goes through ``build_scorecard``, the code the CLI, the report and the GUI use; the
figure is the share of runs whose interval holds the true mean (and, for the paired
comparison, the true difference). Target: 93–97 %.

Then the null (DESIGN §16): two models of equal quality, 3 repeats, 1, 2, 3, 5 and 10 prompts;
the share of runs in which the scorecard calls one of them "better". Target: 0 with one
prompt (no interval, no decision), at most 7 % (nominal 5 %) from two prompts up.
Run: uv run python benchmarks/ci_coverage.py
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import report

from touchstone.results import EvalResponse, Verdict
from touchstone.scorecard import build_scorecard

RUNS = 1000
MODELS = {"gut": 3.6, "mittel": 3.2}
SCENARIOS = [(27, 1), (27, 3), (12, 5), (60, 2)]
NULL_PROMPTS = [1, 2, 3, 5, 10]
NULL_REPEATS = 3


def score(rng: random.Random, quality: float, difficulty: float) -> int:
    return max(0, min(5, round(quality + difficulty + rng.gauss(0, 0.9))))


def true_means(rng: random.Random) -> dict[str, float]:
    out = {}
    for model, quality in MODELS.items():
        out[model] = statistics.fmean(
            score(rng, quality, rng.gauss(0, 1.0)) for _ in range(400_000)
        )
    return out


def simulated_run(
    rng: random.Random, prompts: int, repeats: int, models: dict[str, float] = MODELS
) -> tuple[list[EvalResponse], list[Verdict]]:
    responses, verdicts = [], []
    difficulties = [rng.gauss(0, 1.0) for _ in range(prompts)]
    for model, quality in models.items():
        for index, difficulty in enumerate(difficulties):
            for repeat in range(1, repeats + 1):
                cell = {
                    "model": model,
                    "variant": "none",
                    "prompt_id": f"P{index}",
                    "repeat": repeat,
                    "category": "A",
                }
                responses.append(
                    EvalResponse(
                        **cell, response_text="x", ok=True, content_empty=False, reasoning_chars=0
                    )
                )
                verdicts.append(
                    Verdict(
                        **cell,
                        score=score(rng, quality, difficulty),
                        red_flag=False,
                        rationale="",
                    )
                )
    return responses, verdicts


def main() -> None:
    rng = random.Random(2026)
    truth = true_means(rng)
    true_diff = truth["gut"] - truth["mittel"]
    print(f"true means {truth}, true difference {true_diff:.3f}; {RUNS} runs per scenario")
    for prompts, repeats in SCENARIOS:
        hits = {model: 0 for model in MODELS}
        diff_hits = 0
        started = time.monotonic()
        for _ in range(RUNS):
            card = build_scorecard(*simulated_run(rng, prompts, repeats), scale_min=0)
            for row in card.rows:
                assert row.interval is not None
                hits[row.model] += row.interval.low <= truth[row.model] <= row.interval.high
            comparison = card.comparison(("gut", "none"), ("mittel", "none"))
            assert comparison is not None
            diff_hits += comparison.diff.low <= true_diff <= comparison.diff.high
        seconds = time.monotonic() - started
        label = f"{prompts} prompts x {repeats} repeats"
        for model in MODELS:
            share = hits[model] / RUNS
            report(
                f"coverage, mean of {model}, {label}",
                share * 100,
                "%",
                "93–97 %",
                0.93 <= share <= 0.97,
            )
        share = diff_hits / RUNS
        report(
            f"coverage, paired difference, {label}",
            share * 100,
            "%",
            "93–97 %",
            0.93 <= share <= 0.97,
        )
        print(f"       ({seconds / RUNS * 1000:.0f} ms per scorecard)")
    equal = {"a": 3.4, "b": 3.4}
    for prompts in NULL_PROMPTS:
        better = 0
        for _ in range(RUNS):
            card = build_scorecard(*simulated_run(rng, prompts, NULL_REPEATS, equal), scale_min=0)
            comparison = card.comparison(("a", "none"), ("b", "none"))
            assert comparison is not None
            better += comparison.better is not None
        share = better / RUNS
        target, ok = ("0 %", share == 0) if prompts == 1 else ("≤ 7 %", share <= 0.07)
        report(
            f"false 'better', equal models, {prompts} prompts x {NULL_REPEATS} repeats",
            share * 100,
            "%",
            target,
            ok,
        )


if __name__ == "__main__":
    main()
