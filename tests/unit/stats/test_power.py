"""The smallest difference a pack can tell apart (design.md §20), checked by simulation."""

from __future__ import annotations

import math
import random
import statistics
from itertools import pairwise

import pytest

from touchstone import german
from touchstone.pack import Pack, Scale
from touchstone.packs.power import (
    Spread,
    about,
    assumed_spread,
    measured_spread,
    run_resolution,
    target_difference,
)
from touchstone.stats.distributions import t_upper
from touchstone.stats.intervals import Cluster
from touchstone.stats.power import detectable_difference, prompts_needed


def _empirical_power(
    prompts: int, repeats: int, spread: Spread, difference: float, packs: int, seed: int
) -> float:
    """Simulated packs: each prompt's true gap between two models is the difference plus a
    prompt effect (variance P); each repeat adds the noise of one cell's difference
    (variance R). A paired t test at 95 % per pack; the share that finds a > b."""
    rng = random.Random(seed)
    gauss = rng.gauss
    sd_prompt = math.sqrt(spread.prompt_variance)
    sd_repeat = math.sqrt(spread.repeat_variance)
    critical = t_upper(prompts - 1)
    found = 0
    for _ in range(packs):
        diffs = [
            difference
            + gauss(0, sd_prompt)
            + sum(gauss(0, sd_repeat) for _ in range(repeats)) / repeats
            for _ in range(prompts)
        ]
        # statistics.stdev is exact (fractions) and slow; plain sums are enough here.
        mean = math.fsum(diffs) / prompts
        variance = (math.fsum(d * d for d in diffs) - prompts * mean * mean) / (prompts - 1)
        found += mean / math.sqrt(variance / prompts) > critical
    return found / packs


@pytest.mark.parametrize(("prompts", "repeats"), [(27, 1), (27, 3), (15, 5), (8, 1)])
def test_the_computed_difference_is_found_four_times_in_five(prompts: int, repeats: int) -> None:
    spread = assumed_spread(Scale(min=0, max=5))
    difference = detectable_difference(prompts, spread.variance(repeats))
    assert difference is not None
    power = _empirical_power(prompts, repeats, spread, difference, packs=2000, seed=prompts)
    # 2000 packs: the standard error of a share of 0,8 is 0,009.
    assert power == pytest.approx(0.8, abs=0.03)
    # Half the difference is found far less often: the figure is no loose upper bound.
    assert _empirical_power(prompts, repeats, spread, difference / 2, 500, seed=1) < 0.45


def test_the_assumed_spread_gives_the_issues_figures_for_27_prompts() -> None:
    spread = assumed_spread(Scale(min=0, max=5))
    shown = [round(detectable_difference(27, spread.variance(k)) or 0, 2) for k in (1, 3)]
    assert shown == [0.45, 0.38]
    assert spread.repeat_share == pytest.approx(0.4)
    # The same share of the span on another scale.
    wide = assumed_spread(Scale(min=1, max=10))
    assert math.sqrt(wide.variance(1)) == pytest.approx(0.16 * 9)


def test_prompts_needed_is_the_fewest_that_reach_the_difference() -> None:
    variance = assumed_spread(Scale()).variance(1)
    needed = prompts_needed(0.2, variance)
    assert needed is not None
    assert (detectable_difference(needed, variance) or 9) <= 0.2
    assert (detectable_difference(needed - 1, variance) or 9) > 0.2
    assert about(needed) >= needed and about(128) == 130 and about(47) == 47
    assert about(1234) == 1300
    assert prompts_needed(0.0, variance) is None
    assert target_difference(Scale(min=0, max=5)) == 0.2


def test_one_prompt_can_tell_nothing_apart() -> None:
    assert detectable_difference(1, 0.5) is None
    assert detectable_difference(0, 0.5) is None


def _row(scores: dict[str, list[int]]) -> dict[str, Cluster]:
    return {prompt: Cluster.of(values) for prompt, values in scores.items()}


def test_a_runs_spread_is_measured_from_neighbouring_rows() -> None:
    rng = random.Random(7)
    prompts = [f"P{i}" for i in range(200)]
    # Two models: per-prompt gap sd 0.6 (variance 0.36), per-cell noise sd 0.5 (0.25): at
    # 3 repeats the difference's variance is 0.36 + 2 * 0.25 / 3.
    effect = {p: rng.gauss(0, 0.6) for p in prompts}
    a = {p: Cluster.of([3 + effect[p] + rng.gauss(0, 0.5) for _ in range(3)]) for p in prompts}
    b = {p: Cluster.of([3 + rng.gauss(0, 0.5) for _ in range(3)]) for p in prompts}
    spread = measured_spread([a, b])
    assert spread is not None
    assert spread.measured and spread.share_measured
    assert spread.repeats == pytest.approx(3)
    assert spread.prompts == 200 and spread.pairs == 1
    assert spread.variance(3) == pytest.approx(0.36 + 0.5 / 3, rel=0.25)
    assert spread.repeat_variance == pytest.approx(0.5, rel=0.25)
    resolution = run_resolution([a, b])
    assert resolution is not None
    assert resolution.difference == pytest.approx(
        detectable_difference(200, spread.variance(3)) or 0
    )


def test_a_run_without_repeats_assumes_the_split_and_says_so() -> None:
    a = _row({"P1": [5], "P2": [3], "P3": [4], "P4": [1]})
    b = _row({"P1": [4], "P2": [4], "P3": [2], "P4": [1]})
    spread = measured_spread([a, b])
    assert spread is not None and not spread.share_measured
    assert spread.repeat_share == pytest.approx(0.4)
    diffs = [1, -1, 2, 0]
    assert spread.variance(1) == pytest.approx(statistics.variance(diffs))


def test_identical_rows_still_leave_the_scales_resolution() -> None:
    a = _row({"P1": [5], "P2": [3], "P3": [4]})
    resolution = run_resolution([a, dict(a)])
    assert resolution is not None and resolution.difference > 0.3


def test_no_pair_no_resolution() -> None:
    assert run_resolution([_row({"P1": [5], "P2": [3]})]) is None
    assert run_resolution([_row({"P1": [5]}), _row({"P1": [4]})]) is None


def test_the_scorecard_says_what_the_run_cannot_resolve(tiny_pack: Pack) -> None:
    from rich.console import Console

    from tests.unit.scorecard.test_scorecard import scored_run
    from touchstone.report import render_report
    from touchstone.scorecard.build import build_scorecard
    from touchstone.scorecard.terminal import render_scorecard

    rng = random.Random(5)
    quality = {m: [rng.randint(1, 5) for _ in range(20)] for m in ("a", "b", "c")}
    responses, verdicts = scored_run(quality)
    card = build_scorecard(responses, verdicts, scale_min=0, scale_max=5)
    assert card.resolution is not None
    # The neighbours in the ranking, their per-prompt differences, 20 prompts.
    ranked = [quality[row.model] for row in card.rows]
    diffs = [[x - y for x, y in zip(a, b, strict=True)] for a, b in pairwise(ranked)]
    pooled = sum(statistics.variance(d) * 19 for d in diffs) / 38
    expected = detectable_difference(20, pooled)
    assert card.resolution.difference == pytest.approx(expected)
    shown = german.number(expected)
    line = f"Unterschiede unter {shown} Punkten kann dieser Run nicht auflösen"
    console = Console(width=80, record=True)
    console.print(render_scorecard(card))
    terminal = " ".join(console.export_text().split())
    assert line in terminal
    html = render_report(
        run_name="r", pack=tiny_pack, responses=responses, verdicts=verdicts, reports=[], card=card
    )
    assert line in html
    data = card.as_dict()["resolution"]
    assert data["min_difference"] == pytest.approx(expected, abs=1e-4)
    assert data["prompts"] == 20 and data["pairs"] == 2 and not data["repeat_share_measured"]
    # The ranks decide over all 3 pairs at once: a rank split needs a larger difference, and
    # the line says how large (the per-pair figure alone overstated what ranks resolve).
    from scipy import stats as scipy_stats

    sd = (pooled / 20) ** 0.5
    ranks = (scipy_stats.t.isf(0.05 / 6, 19) + scipy_stats.t.ppf(0.8, 19)) * sd
    assert data["rank_pairs"] == 3
    assert data["rank_min_difference"] == pytest.approx(ranks, abs=1e-4)
    assert card.resolution.rank_difference == pytest.approx(ranks, rel=1e-6)
    assert card.resolution.rank_difference is not None
    assert card.resolution.rank_difference > card.resolution.difference
    said = (
        "Getrennte Ränge (95 % für alle 3 Paare zusammen) verlangen mit 80 % "
        f"Wahrscheinlichkeit mindestens {german.number(ranks)} Punkte."
    )
    assert said in terminal
    assert said in html
    # One row: nothing to pair, no line.
    alone = build_scorecard(*scored_run({"a": quality["a"]}), scale_min=0, scale_max=5)
    assert alone.resolution is None and alone.as_dict()["resolution"] is None
    assert "Punkten kann dieser Run" not in render_report(
        run_name="r", pack=tiny_pack, responses=[], verdicts=[], reports=[], card=alone
    )
