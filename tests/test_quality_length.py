"""The length effect (DESIGN §17): a within-prompt slope of score on words, with interval."""

from __future__ import annotations

import math
import random

import pytest

from touchstone.quality.length import LengthEffect, Swap, fit_slope, length_effect, word_count
from touchstone.results import EvalResponse, Verdict
from touchstone.scorecard import build_scorecard

from .conftest import make_response


def _cell(
    prompt: str, model: str, repeat: int, words: int, score: int
) -> tuple[EvalResponse, Verdict]:
    response = make_response(prompt, model=model, repeat=repeat, text=" ".join(["Wort"] * words))
    verdict = Verdict(
        model=model,
        variant="none",
        prompt_id=prompt,
        repeat=repeat,
        category="R",
        score=score,
        red_flag=False,
        rationale="",
        judge_model="j",
    )
    return response, verdict


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


def _lsdv(points: dict[str, list[tuple[float, float]]]) -> tuple[float, float]:
    """Least squares of score on words and one dummy per prompt (no demeaning), and the
    slope's cluster-robust (CR1) variance from the full sandwich: the reference fit."""
    prompts = sorted(points)
    rows: list[tuple[list[float], float, str]] = []
    for p in prompts:
        for x, y in points[p]:
            rows.append(([x] + [1.0 if q == p else 0.0 for q in prompts], y, p))
    k = 1 + len(prompts)
    xtx = [[sum(r[0][i] * r[0][j] for r in rows) for j in range(k)] for i in range(k)]
    xty = [[sum(r[0][i] * r[1] for r in rows)] for i in range(k)]
    beta = [b[0] for b in _solve(xtx, xty)]
    identity = [[1.0 if i == j else 0.0 for j in range(k)] for i in range(k)]
    inverse = _solve(xtx, identity)
    meat = [[0.0] * k for _ in range(k)]
    for p in prompts:
        u = [0.0] * k
        for x, y, q in rows:
            if q == p:
                residual = y - sum(b * v for b, v in zip(beta, x, strict=True))
                u = [a + v * residual for a, v in zip(u, x, strict=True)]
        for i in range(k):
            for j in range(k):
                meat[i][j] += u[i] * u[j]
    g = len(prompts)
    variance = sum(inverse[0][i] * meat[i][j] * inverse[j][0] for i in range(k) for j in range(k))
    return beta[0], variance * g / (g - 1)


def test_slope_and_interval_match_a_least_squares_fit_with_prompt_dummies() -> None:
    rng = random.Random(7)
    points: dict[str, list[tuple[float, float]]] = {}
    for p in range(6):
        # Unequal cells per prompt, prompts of different difficulty and length.
        points[f"P{p}"] = [
            (x := float(rng.randint(40, 400) + 80 * p), 1 + p % 3 + 0.004 * x + rng.gauss(0, 0.6))
            for _ in range(3 + p)
        ]
    fitted = fit_slope(list(points.values()))
    assert fitted is not None
    slope, variance = _lsdv(points)
    assert fitted.slope == pytest.approx(slope, rel=1e-9)
    # t quantile with 5 degrees of freedom (printed tables: 2.5706).
    half = 2.5706 * math.sqrt(variance)
    assert fitted.low == pytest.approx(slope - half, rel=1e-3)
    assert fitted.high == pytest.approx(slope + half, rel=1e-3)
    assert (fitted.prompts, fitted.cells) == (6, sum(3 + p for p in range(6)))


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
        [
            [
                (float(word_count(r.response_text)), float(v.score))
                for r, v in zip(responses, verdicts, strict=True)
            ]
        ]
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
        for m, words in (("a", 50), ("b", 300)):
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
    assert effect.summary_de() == "+0,30 Punkte je 100 Wörter (95 %: 0,10–0,50)"
    assert effect.lines_de()[0] == (
        "Länge: +0,30 Punkte je 100 Wörter (95 %: 0,10–0,50), innerhalb der Prompts "
        "(96 Zellen, 8 Prompts)."
    )
    straddling = LengthEffect(-0.05, -0.2, 0.1, prompts=8, cells=96, adjusted={})
    assert straddling.summary_de() == "-0,05 Punkte je 100 Wörter (95 %: -0,20 bis +0,10)"
    assert not straddling.significant
    assert "Kein nachweisbarer Einfluss" in straddling.lines_de()[1]


def test_no_effect_without_answers_of_different_length() -> None:
    responses, verdicts = zip(
        *(_cell(f"P{p}", m, 1, 80, 3) for p in range(3) for m in "ab"), strict=True
    )
    assert length_effect(responses, verdicts, []) is None
    assert build_scorecard(responses, verdicts, scale_min=1).as_dict()["length_effect"] is None


def test_words_are_counted_between_blanks_and_line_breaks() -> None:
    assert word_count("") == 0
    assert word_count("  \n ") == 0
    assert word_count("Ein Satz mit fünf Wörtern") == 5
    assert word_count("Zeile eins\nZeile zwei\n") == 4
