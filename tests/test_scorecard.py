from touchstone.results import ModelReport, Verdict
from touchstone.scorecard import build_scorecard

from .conftest import make_response


def v(prompt_id: str, score: int, category: str = "R", **kw: object) -> Verdict:
    return Verdict(
        model=str(kw.pop("model", "m")),
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


def scored_run(quality: dict[str, list[int]]) -> tuple[list, list]:
    """Answers and verdicts of models whose per-prompt scores are given."""
    responses, verdicts = [], []
    for model, scores in quality.items():
        for index, score in enumerate(scores):
            prompt_id = f"P{index}"
            responses.append(make_response(prompt_id, model=model, category="R"))
            verdicts.append(
                Verdict(
                    model=model,
                    variant="none",
                    prompt_id=prompt_id,
                    repeat=1,
                    category="R",
                    score=score,
                    red_flag=False,
                    rationale="",
                    judge_model="j",
                )
            )
    return responses, verdicts


def test_rows_are_ranked_and_rows_that_cannot_be_told_apart_share_a_rank() -> None:
    responses, verdicts = scored_run(
        {
            "stark": [5, 5, 4, 5, 5, 4, 5, 5, 4, 5, 5, 5],
            "auch-stark": [5, 4, 5, 5, 4, 5, 5, 4, 5, 5, 5, 4],
            "schwach": [1, 2, 1, 0, 2, 1, 1, 2, 0, 1, 2, 1],
        }
    )
    card = build_scorecard(responses, verdicts)
    assert [(r.model, r.rank) for r in card.rows] == [
        ("stark", 1),
        ("auch-stark", 1),
        ("schwach", 3),
    ]
    better = card.comparison(("stark", "none"), ("schwach", "none"))
    assert better is not None and better.better == "a" and better.diff.low > 0
    tie = card.comparison(("auch-stark", "none"), ("stark", "none"))
    assert tie is not None and tie.better is None and tie.diff.low < 0 < tie.diff.high
    lines = render(card)
    assert "4.75 ±" in lines and "Nicht unterscheidbar (95 %): stark · none = auch-stark" in lines


def render(card) -> str:  # type: ignore[no-untyped-def]
    from rich.console import Console

    from touchstone.scorecard import render_scorecard

    console = Console(width=200, record=True)
    console.print(render_scorecard(card))
    return console.export_text()


def test_scorecard_json_has_the_documented_shape() -> None:
    responses, verdicts = scored_run({"a": [5, 4, 5, 3], "b": [2, 1, 2, 3]})
    for resp in responses:
        resp.latency_s, resp.completion_tokens = 2.0, 100
    data = build_scorecard(responses, verdicts).as_dict()
    row = data["rows"][0]
    for key in (
        "model",
        "variant",
        "n_scored",
        "mean",
        "ci_low",
        "ci_high",
        "categories",
        "latency_median_s",
        "tokens_per_s",
    ):
        assert key in row, key
    assert row["categories"]["R"].keys() == {"mean", "ci_low", "ci_high", "n"}
    assert (row["latency_median_s"], row["tokens_per_s"]) == (2.0, 50.0)
    (comparison,) = data["comparisons"]
    assert comparison["a"] == ["a", "none"] and comparison["b"] == ["b", "none"]
    assert {"diff", "ci_low", "ci_high", "better"} <= comparison.keys()
    assert data["judge_models"] == ["j"] and data["comparisons_complete"] is True


def test_csv_export_defuses_spreadsheet_formulas() -> None:
    import csv
    import io

    from touchstone.export import verdict_csv_lines

    responses, verdicts = scored_run({"a": [5]})
    responses[0].response_text = '=HYPERLINK("http://evil")'
    verdicts[0].rationale = "+1 gut"
    rows = list(csv.DictReader(io.StringIO("".join(verdict_csv_lines(verdicts, responses)))))
    assert rows[0]["answer"].startswith("'=") and rows[0]["rationale"] == "'+1 gut"
    assert rows[0]["score"] == "5"


def test_judge_models_are_named_in_the_order_they_first_judged() -> None:
    verdicts = [
        v("R1", 4, model="a", judge_model="j1"),
        v("R1", 3, model="b", judge_model="j2"),
        v("R2", 5, model="a", judge_model="j3"),
    ]
    card = build_scorecard([], verdicts)
    assert card.judge_models == ["j1", "j2", "j3"]
    assert [row.judge_models for row in card.rows] == [["j1", "j3"], ["j2"]]
