"""The spot check's "rows differ" holds at 95 % for the whole card (design.md §23, issue 33):
Welch's test per pair of model/variant rows, Holm's step-down over all pairs, through the
path ``touchstone report`` takes."""

from __future__ import annotations

import json
import random
import statistics
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.unit.versus.versus_support import BUERO, InProcessSimJudge, StatedQuality
from touchstone.cli import app
from touchstone.judge.config import JudgeConfig, JudgeEndpoint
from touchstone.spot.rows_differ import MAX_PAIRWISE_ROWS, RowKey, RowsTest, rows_test, welch
from touchstone.stages.judge.judge import execute_judge
from touchstone.stages.run.run import execute_run
from touchstone.stages.view import load_run
from touchstone.store.ratings import HUMAN

MODELS = {"sim-gut": 5, "sim-mittel": 3, "sim-schwach": 1}


@pytest.fixture(scope="module")
def six_rows(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """buero's 3 models x 2 variants, judged by the simulator's judge: 6 rows."""
    out = tmp_path_factory.mktemp("spot") / "run"
    execute_run(
        pack_path=BUERO,
        models=list(MODELS),
        variants=["none", "sachlich"],
        repeats=1,
        out=out,
        backend=StatedQuality(MODELS),
        concurrency=4,
    )
    execute_judge(
        out,
        config=JudgeConfig(JudgeEndpoint("http://127.0.0.1:9/v1"), "sim-judge"),
        backend=InProcessSimJudge(),
        use_cache=False,
        concurrency=4,
    )
    return out


def rate(run: Path, diffs: dict[tuple[str, str], list[int]]) -> None:
    """human.jsonl with five ratings per row: the judge's score minus the row's differences
    (judge minus human = the given difference), rows not named differ by 0."""
    verdicts = sorted(load_run(run).verdicts, key=lambda v: (v.model, v.variant, v.prompt_id))
    lines = []
    for model in MODELS:
        for variant in ("none", "sachlich"):
            row = [v for v in verdicts if (v.model, v.variant) == (model, variant)][:5]
            for v, diff in zip(row, diffs.get((model, variant), [0] * 5), strict=True):
                record = {
                    "model": model,
                    "variant": variant,
                    "prompt_id": v.prompt_id,
                    "repeat": v.repeat,
                    "score": int(v.score) - diff,
                    "red_flag": v.red_flag,
                    "rater": "anna",
                    "rated_at": "2026-12-01T08:00:00+01:00",
                }
                lines.append(json.dumps(record) + "\n")
    (run / HUMAN).write_text("".join(lines), encoding="utf-8")


def test_two_rows_that_differ_at_p_0_05_of_15_pairs_do_not_make_the_judge_deviate(
    six_rows: Path, tmp_path: Path
) -> None:
    import shutil

    run = tmp_path / "run"
    shutil.copytree(six_rows, run)
    # The card: Welch p = 0.0497 for this pair, the smallest of 15; every row's
    # interval contains 0, the kappa is fine. Holm over 15 pairs needs p < 0.0033.
    rate(
        run,
        {("sim-mittel", "none"): [0, 0, 1, 0, 1], ("sim-schwach", "sachlich"): [0, 0, -1, -1, 0]},
    )
    result = CliRunner().invoke(app, ["report", str(run)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "Urteil: Judge bestätigt" in result.output, result.output
    assert "Holm über 15 Zeilenpaare" in result.output
    data = json.loads((run / "scorecard.json").read_text("utf-8"))["human_agreement"]
    assert data["verdict"] == "bestätigt"
    assert data["rows_test"]["correction"] == "holm"
    assert data["rows_test"]["pairs"] == 15
    html = (run / "report.html").read_text("utf-8")
    assert "Holm über 15 Zeilenpaare" in html


def test_a_judge_lenient_to_one_row_still_deviates(six_rows: Path, tmp_path: Path) -> None:
    import shutil

    run = tmp_path / "run"
    shutil.copytree(six_rows, run)
    rate(run, {("sim-mittel", "none"): [2, 2, 1, 2, 2]})
    result = CliRunner().invoke(app, ["report", str(run)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    verdict = json.loads((run / "scorecard.json").read_text("utf-8"))["human_agreement"]
    assert verdict["verdict"] == "weicht ab"
    assert "bewertet sim-mittel · none 1,8 Punkte milder als Sie" in verdict["summary"]
    assert "Holm über 15 Zeilenpaare" in verdict["summary"]


# --- the decision against a known truth ----------------------------------------------------


def spot_check(
    rng: random.Random, rows: int, per: int, lenient: int = 0, weights: tuple[int, ...] = (1, 2, 1)
) -> RowsTest:
    """One simulated spot check: judge minus person is -1/0/+1 (``weights``) on every row,
    plus ``lenient`` points on row r0 (a judge milder with that model)."""
    samples: dict[RowKey, list[float]] = {}
    for r in range(rows):
        diffs = rng.choices((-1, 0, 1), weights=weights, k=per)
        samples[(f"r{r}", "none")] = [float(d + (lenient if r == 0 else 0)) for d in diffs]
    means = {key: statistics.fmean(values) for key, values in samples.items()}
    return rows_test(means, samples)


def test_beyond_the_pairwise_limit_the_extremes_are_tested_at_bonferroni() -> None:
    rng = random.Random(35)
    rows = MAX_PAIRWISE_ROWS + 5
    tests = [spot_check(rng, rows, 5) for _ in range(100)]
    assert {(t.correction, t.pairs) for t in tests} == {("bonferroni", rows * (rows - 1) // 2)}
    assert sum(t.found is not None for t in tests) / len(tests) <= 0.08
    assert "Bonferroni über 300 Zeilenpaare" in tests[0].text_de()
    # A row 3 points milder is still found.
    assert spot_check(rng, rows, 5, lenient=3).found is not None


def test_welchs_test_takes_fractional_degrees_of_freedom() -> None:
    from scipy import stats as scipy_stats

    # Variances above the rounding floor: exactly Welch's test as scipy computes it.
    a, b = [0.0, 2.0, 1.0, 3.0, -1.0], [0.0, -1.0, -2.0, 1.0, -2.0, 0.0, -3.0]
    test = welch(a, b)
    assert test is not None
    reference = scipy_stats.ttest_ind(a, b, equal_var=False)
    assert test.p == pytest.approx(reference.pvalue, rel=1e-6)
    assert test.df == pytest.approx(reference.df, rel=1e-9) and test.df != int(test.df)
    low, high = reference.confidence_interval(0.95)
    assert test.interval() == pytest.approx((low, high), rel=1e-6)
    # 2 against 2: df 1.9 give t = 4.5, not the 12.7 of 1 df (2.9 times narrower).
    two = welch([0.0, 1.0], [1.0, 3.0])
    assert two is not None and 1 < two.df < 2
    ref = scipy_stats.ttest_ind([0.0, 1.0], [1.0, 3.0], equal_var=False)
    assert two.p == pytest.approx(ref.pvalue, rel=1e-6)
