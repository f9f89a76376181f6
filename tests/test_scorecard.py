from touchstone.results import ModelReport, Verdict
from touchstone.scorecard import build_scorecard

from .conftest import make_response


def v(prompt_id: str, score: int, category: str = "R", **kw: object) -> Verdict:
    return Verdict(
        model="m",
        variant="none",
        prompt_id=prompt_id,
        repeat=1,
        category=category,
        score=score,
        red_flag=bool(kw.pop("red_flag", False)),
        rationale="",
        **kw,
    )  # type: ignore[arg-type]


def test_means_exclude_unscored_and_reasons_are_counted() -> None:
    responses = [
        make_response(p, category=c)
        for p, c in [("R1", "R"), ("R2", "R"), ("S1", "S"), ("S2", "S"), ("S3", "S"), ("T1", "T")]
    ]
    verdicts = [
        v("R1", 4, judge_model="j1"),
        v("R2", 1, red_flag=True, judge_model="j1"),
        v("S1", 0, "S", red_flag=True, safety_critical=True, judge_model="j1"),
        v("S2", 0, "S", unscored=True, unscored_reason="reasoning_only"),
        v(
            "S3",
            0,
            "S",
            unscored=True,
            judge_error=True,
            unscored_reason="judge_error",
            judge_model="j2",
        ),
    ]
    card = build_scorecard(
        responses, verdicts, [ModelReport("m", "none", {}, {"_error": "kaputt"})]
    )
    (row,) = card.rows
    assert (row.cells, row.scored, row.open) == (6, 3, 1)
    assert row.mean == (4 + 1 + 0) / 3
    assert row.category_means == {"R": 2.5, "S": 0.0, "T": None}
    assert (row.red_flags, row.safety_red_flags) == (2, 1)
    assert dict(row.unscored) == {"reasoning_only": 1, "judge_error": 1}
    assert row.dim_error == "kaputt"
    assert card.judge_models == ["j1"]  # a judge that only produced errors scored nothing


def test_mixed_judges_are_flagged_and_empty_means_are_none() -> None:
    card = build_scorecard(
        [make_response("R1"), make_response("R2")],
        [v("R1", 3, judge_model="a"), v("R2", 5, judge_model="b")],
    )
    assert card.mixed_judges and card.judge_models == ["a", "b"]
    only_unscored = build_scorecard(
        [make_response("R1")], [v("R1", 0, unscored=True, unscored_reason="empty")]
    )
    assert only_unscored.rows[0].mean is None
