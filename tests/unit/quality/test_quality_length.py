"""The length effect (design.md §17): a within-prompt slope of score on words, with interval."""

from __future__ import annotations

import math
import random

import pytest

from tests.conftest import make_response, make_verdict
from touchstone.quality.length import LengthEffect, Swap, length_effect, word_count
from touchstone.results import EvalResponse, Verdict
from touchstone.scorecard.bias import bias_lines
from touchstone.scorecard.build import build_scorecard
from touchstone.stats.within import fit_slope


def _cell(
    prompt: str, model: str, repeat: int, words: int, score: int
) -> tuple[EvalResponse, Verdict]:
    response = make_response(prompt, model=model, repeat=repeat, text=" ".join(["Wort"] * words))
    return response, make_verdict(prompt, score, model=model, repeat=repeat, judge_model="j")


def _solve(matrix: list[list[float]], rhs: list[list[float]]) -> list[list[float]]:
    """matrix⁻¹ · rhs by Gauss-Jordan elimination with partial pivoting (the reference)."""
    n = len(matrix)
    aug = [row[:] + other[:] for row, other in zip(matrix, rhs, strict=True)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(aug[r][col]))
        aug[col], aug[pivot] = aug[pivot], aug[col]
        lead = aug[col][col]
        aug[col] = [value / lead for value in aug[col]]
        for r in range(n):
            if r != col and aug[r][col]:
                factor = aug[r][col]
                aug[r] = [a - factor * b for a, b in zip(aug[r], aug[col], strict=True)]
    return [row[n:] for row in aug]


def _lsdv(cells: list[tuple[str, str, float, float]]) -> tuple[float, float]:
    """Least squares of score on words, one dummy per prompt and one per row but the first
    (no demeaning), and the slope's cluster-robust (CR1) variance from the full sandwich,
    with the small-sample factor G/(G-1) · (N-1)/(N-K), K = 1 + rows - 1: the reference."""
    prompts = sorted({c[0] for c in cells})
    rows = sorted({c[1] for c in cells})
    design = [
        (
            [x]
            + [1.0 if q == p else 0.0 for q in prompts]
            + [1.0 if r == row else 0.0 for r in rows[1:]],
            y,
            p,
        )
        for p, row, x, y in cells
    ]
    k = 1 + len(prompts) + len(rows) - 1
    xtx = [[sum(r[0][i] * r[0][j] for r in design) for j in range(k)] for i in range(k)]
    xty = [[sum(r[0][i] * r[1] for r in design)] for i in range(k)]
    beta = [b[0] for b in _solve(xtx, xty)]
    identity = [[1.0 if i == j else 0.0 for j in range(k)] for i in range(k)]
    inverse = _solve(xtx, identity)
    meat = [[0.0] * k for _ in range(k)]
    for p in prompts:
        u = [0.0] * k
        for x, y, q in design:
            if q == p:
                residual = y - sum(b * v for b, v in zip(beta, x, strict=True))
                u = [a + v * residual for a, v in zip(u, x, strict=True)]
        for i in range(k):
            for j in range(k):
                meat[i][j] += u[i] * u[j]
    g, n = len(prompts), len(cells)
    variance = sum(inverse[0][i] * meat[i][j] * inverse[j][0] for i in range(k) for j in range(k))
    return beta[0], variance * g / (g - 1) * (n - 1) / (n - len(rows))


def test_slope_and_interval_match_a_least_squares_fit_with_prompt_and_row_dummies() -> None:
    rng = random.Random(7)
    cells: list[tuple[str, str, float, float]] = []
    for p in range(6):
        # Unequal cells per prompt and row (some missing, some repeated), prompts of different
        # difficulty and length, rows of different quality and length.
        for m in range(3):
            for _ in range(rng.randint(0 if p % 2 else 1, 3)):
                x = float(rng.randint(40, 400) + 80 * p + 60 * m)
                cells.append((f"P{p}", f"M{m}", x, 1 + p % 3 + m + 0.004 * x + rng.gauss(0, 0.6)))
    fitted = fit_slope(cells)
    assert fitted is not None
    slope, variance = _lsdv(cells)
    assert fitted.slope == pytest.approx(slope, rel=1e-7)
    # t quantile with 5 degrees of freedom (printed tables: 2.5706).
    half = 2.5706 * math.sqrt(variance)
    assert fitted.low == pytest.approx(slope - half, rel=1e-3)
    assert fitted.high == pytest.approx(slope + half, rel=1e-3)
    assert (fitted.prompts, fitted.cells) == (6, len(cells))


def test_cells_alone_in_their_row_or_prompt_say_nothing_and_are_not_counted() -> None:
    rng = random.Random(2)
    cells = [
        (f"P{p}", f"M{m}", float(rng.randint(50, 300)), float(rng.randint(1, 5)))
        for p in range(5)
        for m in range(2)
        for _ in range(2)
    ]
    fitted = fit_slope(cells)
    # A model that answered once, and a prompt only one model answered once.
    alone = fit_slope([*cells, ("P0", "M9", 900.0, 5.0), ("P9", "M0", 20.0, 1.0)])
    assert fitted is not None and alone is not None
    assert alone.slope == pytest.approx(fitted.slope, rel=1e-9)
    assert (alone.prompts, alone.cells) == (fitted.prompts, fitted.cells) == (5, 20)


def test_lengths_that_only_follow_prompt_and_model_make_no_slope() -> None:
    # Every model writes its own length plus the prompt's: nothing varies within both.
    cells = [
        (f"P{p}", f"M{m}", 100.0 + 30 * p + 50 * m, float((p + m) % 5))
        for p in range(6)
        for m in range(3)
    ]
    assert fit_slope(cells) is None


def _simulated(
    per_100: float, seed: int, prompts: int = 30
) -> tuple[list[EvalResponse], list[Verdict]]:
    """Three models answer each prompt twice; hard prompts get long answers and low scores
    (a confound between prompts), and within a prompt each 100 words add ``per_100``."""
    rng = random.Random(seed)
    responses, verdicts = [], []
    for p in range(prompts):
        difficulty = rng.uniform(0, 2)
        base_words = 100 + 150 * difficulty
        for m, model in enumerate(("a", "b", "c")):
            for repeat in (1, 2):
                words = max(5, round(base_words + rng.gauss(0, 60) + 20 * m))
                score = 4.5 - difficulty + per_100 * (words - base_words) / 100 + rng.gauss(0, 0.3)
                response, verdict = _cell(f"P{p}", model, repeat, words, round(score * 20))
                responses.append(response)
                verdicts.append(verdict)
    return responses, verdicts


@pytest.mark.parametrize("per_100", [1.0, -0.8])
def test_a_known_slope_is_recovered_inside_the_interval_despite_confounded_prompts(
    per_100: float,
) -> None:
    # Scores are on a ×20 scale so rounding to whole points hardly blurs the slope.
    responses, verdicts = _simulated(per_100, seed=3)
    effect = length_effect(responses, verdicts, [])
    assert effect is not None and effect.ci_low is not None and effect.ci_high is not None
    true = per_100 * 20
    assert effect.ci_low < true < effect.ci_high
    assert effect.significant
    assert abs(effect.per_100_words - true) < 0.15 * abs(true)
    # Between prompts the relation is the other way round: a pooled fit without fixed
    # effects would report the confound, not the judge.
    pooled = fit_slope(
        ("all", "all", float(word_count(r.response_text)), float(v.score))
        for r, v in zip(responses, verdicts, strict=True)
    )
    assert pooled is not None and pooled.slope < 0 < per_100 * effect.per_100_words


def test_without_a_length_effect_the_interval_holds_zero_in_most_simulated_runs() -> None:
    covered = 0
    for seed in range(40):
        effect = length_effect(*_simulated(0.0, seed=seed), [])
        assert effect is not None
        covered += not effect.significant
    # 95 % nominal; 40 runs: at least 34 (binomial 1 % tail at 0.95 is about 35).
    assert covered >= 34


def test_failed_answers_do_not_make_a_length_effect() -> None:
    responses, verdicts = [], []
    for p in range(5):
        for m, words in (("a", 50 + 17 * (p % 3)), ("b", 300 - 23 * (p % 2))):
            response, verdict = _cell(f"P{p}", m, 1, words, 3 + (p + len(m)) % 2)
            responses.append(response)
            verdicts.append(verdict)
        # An empty answer scores the minimum but has no length to speak of.
        responses.append(make_response(f"P{p}", model="c", text=""))
        verdicts.append(
            Verdict(
                model="c",
                variant="none",
                prompt_id=f"P{p}",
                repeat=1,
                category="R",
                score=0,
                red_flag=False,
                rationale="",
                unscored=True,
                unscored_reason="empty",
            )
        )
    card = build_scorecard(responses, verdicts, scale_min=0, scale_max=5)
    assert card.length_effect is not None
    assert card.length_effect.cells == 10
    assert (
        card.length_effect.per_100_words == pytest.approx(0.0, abs=1e-9)
        or not card.length_effect.significant
    )


def test_the_card_names_rows_a_length_adjusted_order_would_swap() -> None:
    # "long" writes 200 words more than "short" and is worse by half a point, but the judge
    # gives half a point per 100 words: "long" leads by its mean, "short" when adjusted.
    responses, verdicts = [], []
    rng = random.Random(1)
    for p in range(12):
        for repeat in (1, 2, 3):
            for model, words, quality in (("long", 300, 0.0), ("short", 100, 0.5)):
                words += rng.randint(-80, 80)
                score = round(10 * (5 + quality + 0.5 * words / 100) + rng.gauss(0, 1))
                response, verdict = _cell(f"P{p}", model, repeat, words, score)
                responses.append(response)
                verdicts.append(verdict)
    card = build_scorecard(responses, verdicts, scale_min=0, scale_max=100)
    effect = card.length_effect
    assert effect is not None and effect.significant and effect.per_100_words > 0
    assert card.rows[0].model == "long"
    assert effect.swaps == (Swap(("long", "none"), ("short", "none")),)
    lines = effect.lines_de()
    assert "short · none läge vor long · none" in lines[-1]
    assert "kein Ersatz für die Wertung" in lines[-1]
    data = card.as_dict()["length_effect"]
    assert set(data) >= {"per_100_words", "ci_low", "ci_high"}
    assert data["ci_low"] > 0 and data["reordered"] == [
        {"ahead": ["long", "none"], "behind": ["short", "none"]}
    ]


def test_the_figure_reads_german() -> None:
    effect = LengthEffect(0.3, 0.1, 0.5, prompts=8, cells=96, adjusted={})
    assert effect.summary_de() == "+0,30 Punkte je 100 Wörter [+0,10 – +0,50]"
    assert effect.lines_de()[0] == (
        "Länge: +0,30 Punkte je 100 Wörter [+0,10 – +0,50], innerhalb der Prompts und "
        "Modelle (96 Zellen, 8 Prompts)."
    )
    straddling = LengthEffect(-0.05, -0.2, 0.1, prompts=8, cells=96, adjusted={})
    assert straddling.summary_de() == "-0,05 Punkte je 100 Wörter [-0,20 – +0,10]"
    assert not straddling.significant
    assert "Kein nachweisbarer Einfluss" in straddling.lines_de()[1]


def test_no_effect_without_answers_of_different_length() -> None:
    responses, verdicts = zip(
        *(_cell(f"P{p}", m, 1, 80, 3) for p in range(3) for m in "ab"), strict=True
    )
    assert length_effect(responses, verdicts, []) is None
    card = build_scorecard(responses, verdicts, scale_min=1)
    assert card.as_dict()["length_effect"] is None
    # Said, so that no line is not read as no taste for length.
    assert bias_lines(card)[-1].startswith("Länge: nicht messbar")


def test_a_run_without_answers_has_no_length_line() -> None:
    failed = make_response("P1", model="a", text="")
    assert bias_lines(build_scorecard([failed], [], scale_min=1)) == []


def test_words_are_counted_between_blanks_and_line_breaks() -> None:
    assert word_count("") == 0
    assert word_count("  \n ") == 0
    assert word_count("Ein Satz mit fünf Wörtern") == 5
    assert word_count("Zeile eins\nZeile zwei\n") == 4


def _better_model_writes_more(seed: int) -> tuple[list[EvalResponse], list[Verdict]]:
    """Three models of different quality: the better one writes more, and the judge scores
    by quality alone (no taste for length)."""
    rng = random.Random(seed)
    responses, verdicts = [], []
    for p in range(20):
        base_words = rng.uniform(80, 300)
        for quality, model in ((0.0, "schwach"), (1.0, "mittel"), (2.0, "gut")):
            for repeat in (1, 2):
                words = max(5, round(base_words * (1 + 0.5 * quality) + rng.gauss(0, 40)))
                score = round(20 * (2 + quality + rng.gauss(0, 0.4)))
                response, verdict = _cell(f"P{p}", model, repeat, words, score)
                responses.append(response)
                verdicts.append(verdict)
    return responses, verdicts


def test_a_better_model_writing_more_is_not_a_taste_for_length() -> None:
    covered = 0
    for seed in range(30):
        responses, verdicts = _better_model_writes_more(seed)
        means = [((m, "none"), 40.0 + 20 * q) for q, m in enumerate(("schwach", "mittel", "gut"))]
        effect = length_effect(responses, verdicts, means)
        assert effect is not None
        covered += not effect.significant
        assert not effect.swaps
    assert covered >= 25
    # Within prompts alone (one row for all), the models' quality passes for length.
    responses, verdicts = _better_model_writes_more(0)
    within_prompts = fit_slope(
        (v.prompt_id, "all", float(word_count(r.response_text)), float(v.score))
        for r, v in zip(responses, verdicts, strict=True)
    )
    assert within_prompts is not None and within_prompts.low is not None
    assert within_prompts.low > 0
