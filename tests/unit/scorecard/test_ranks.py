"""Ranks that hold for the whole card (design.md §23, issue 33 §4).

A row's rank is 1 + the longest chain of rows better than it. With "better" decided per pair
at 95 %, rows of equal quality were split into ranks in 40 % of cards with 6 rows and 75 %
with 12 (65 prompts): with r rows there are r(r-1)/2 chances for one false "better". Ranks now
count a pair as "better" only when its interval widened for all r(r-1)/2 pairs at once
(Bonferroni) lies above 0; the pairs themselves are still shown each at 95 %.
"""

from __future__ import annotations

import json
import random

from touchstone.pack import Pack
from touchstone.results import EvalResponse, Verdict
from touchstone.scorecard.build import Scorecard, build_scorecard
from touchstone.scorecard.terminal import legend, tie_text
from touchstone.sim.scored import known_quality_run
from touchstone.stats.multiplicity import widened

PROMPTS = 65  # buero's


def simulated(
    rng: random.Random, qualities: list[float], prompts: int = PROMPTS, repeats: int = 1
) -> tuple[list[EvalResponse], list[Verdict]]:
    """A run of rows with the given true qualities (as benchmarks/ci_coverage.py draws it):
    each prompt has a difficulty, each score is quality + difficulty + noise, on 0..5."""
    difficulties = [rng.gauss(0, 1.0) for _ in range(prompts)]
    rows = {(f"m{index:02d}", "none"): quality for index, quality in enumerate(qualities)}
    ids = [(f"P{prompt:02d}", "A") for prompt in range(prompts)]
    level = {prompt_id: d for (prompt_id, _), d in zip(ids, difficulties, strict=True)}
    return known_quality_run(rng, rows, ids, lambda _, prompt_id: level[prompt_id], repeats=repeats)


def card_of(rng: random.Random, qualities: list[float], **kw: int) -> Scorecard:
    return build_scorecard(*simulated(rng, qualities, **kw), scale_min=0, scale_max=5)


def test_six_equal_rows_that_a_per_pair_rule_splits_share_rank_one() -> None:
    """Seeded: in this card one pair of equal rows is "better" at 95 % (per pair, as the
    comparisons show it), which used to put a row at rank 2."""
    card = card_of(random.Random(11), [3.4] * 6)
    assert any(c.better is not None for c in card.comparisons)
    assert [row.rank for row in card.rows] == [1] * 6
    assert "m00 · none = " in tie_text(card)


def test_twelve_equal_rows_that_a_per_pair_rule_splits_share_rank_one() -> None:
    card = card_of(random.Random(3), [3.4] * 12)
    assert sum(c.better is not None for c in card.comparisons) >= 2
    assert [row.rank for row in card.rows] == [1] * 12


def test_a_clearly_better_row_still_ranks_first_alone() -> None:
    """+1 point over 65 prompts, in the middle of the scale (at 3.4 the ceiling of 5 eats
    half of it): far beyond what the widened intervals need."""
    for seed in range(3):
        card = card_of(random.Random(seed), [3.5, 2.5, 2.5, 2.5, 2.5, 2.5])
        assert (card.rows[0].model, card.rows[0].rank) == ("m00", 1)
        assert [row.rank for row in card.rows[1:]] == [2] * 5


def test_ranks_follow_the_widened_intervals_and_the_card_says_how() -> None:
    """The ranks' "better" is the pair's interval widened for all pairs (Bonferroni over
    r(r-1)/2); a pair that is better on its own at 95 % but not for the whole card shares a
    rank, and the legend and scorecard.json say that the two levels differ."""
    card = card_of(random.Random(11), [3.4] * 6)
    per_pair = [c for c in card.comparisons if c.better is not None]
    assert per_pair  # a pair the matrix marks ▲ ...
    for c in per_pair:  # ... whose rows share a rank, because the widened interval holds 0
        assert widened(c.diff, 15).low < 0 < widened(c.diff, 15).high  # type: ignore[operator]
    data = json.loads(json.dumps(card.as_dict()))
    ranks = data["ranks"]
    assert (ranks["method"], ranks["pairs"], ranks["level"]) == ("bonferroni", 15, 0.95)
    assert abs(ranks["level_per_pair"] - (1 - 0.05 / 15)) < 1e-9
    assert "15 Paare" in ranks["note"] and "je Paar" in ranks["note"]
    text = legend(card, {})
    assert "15 Paare" in text and "99,67 %" in text and "Bonferroni" in text
    assert "für alle 15 Paare zusammen" in tie_text(card)


def test_the_report_says_what_the_ranks_and_the_pairs_each_hold_at(tiny_pack: Pack) -> None:
    """The report (and the GUI's run page, the same markup): the rank legend names the pairs
    and the level per pair; beside the matrix, that ▲/▼ are each pair's own. With two rows
    pair and card are the same: no such note, and ties read as before."""
    from touchstone.report import render_report

    responses, verdicts = simulated(random.Random(11), [3.4] * 6)
    card = build_scorecard(responses, verdicts, scale_min=0, scale_max=5)
    html = render_report(
        run_name="r", pack=tiny_pack, responses=responses, verdicts=verdicts, reports=[], card=card
    )
    assert "zu 95 % für alle 15 Paare zusammen (Bonferroni: je Paar 99,67 %)" in html
    # A row's interval is said to hold for that row alone, in the report and the terminal.
    assert "95 % je Zeile</span> (für diese Zeile allein)" in html
    assert "95 % je Zeile (für diese Zeile allein)" in " ".join(legend(card, {}).split())
    assert html.count('data-testid="pair-note"') == 2 and "gleichen Rangs ist möglich" in html
    two = card_of(random.Random(1), [3.4] * 2)
    assert two.ranks.pairs == 1 and two.ranks.pair_notes() == []
    assert "zu 95 % für das eine Paar" in legend(two, {})
    assert two.as_dict()["ranks"]["level_per_pair"] == 0.95


def test_rows_of_one_prompt_are_not_counted_among_the_pairs_the_ranks_decide() -> None:
    # A row of one prompt has no interval and can be told apart from no row: its pairs are
    # no decisions, and counting them only cost the others power.
    rng = random.Random(3)
    responses, verdicts = simulated(rng, [3.0, 3.0, 3.0], prompts=10)
    lone = [v for v in verdicts if v.model != "m02" or v.prompt_id == "P00"]
    kept = [r for r in responses if r.model != "m02" or r.prompt_id == "P00"]
    card = build_scorecard(kept, lone, scale_min=0, scale_max=5)
    assert card.ranks.pairs == 1
    one = build_scorecard(*simulated(rng, [3.0], prompts=10), scale_min=0, scale_max=5)
    assert one.ranks.pairs == 0 and "eine Paar" not in one.ranks.as_dict()["note"]
