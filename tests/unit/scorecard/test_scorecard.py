import random
import re
from pathlib import Path

import pytest

from tests.conftest import FakeJudge, make_response
from touchstone.errors import ModelCallError
from touchstone.pack import Pack
from touchstone.results import ModelReport, Verdict
from touchstone.scorecard.build import build_scorecard
from touchstone.scorecard.terminal import tie_text
from touchstone.sim import SimServer
from touchstone.stats.multiplicity import widened
from touchstone.transport.fake import FakeChat, SentCall
from touchstone.transport.replies import ChatReply


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


def test_means_exclude_judge_gaps_count_failed_answers_and_reasons_are_counted() -> None:
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
            unscored_reason="judge_error",
            judge_model="j2",
        ),
    ]
    card = build_scorecard(
        responses, verdicts, [ModelReport("m", "none", {}, {"_error": "kaputt"})], scale_min=0
    )
    (row,) = card.rows
    # The reasoning-only answer counts with the minimum; the judge error nowhere.
    assert (row.cells, row.scored, row.open) == (6, 4, 1)
    assert row.mean == (4 + 1 + 0 + 0) / 4
    assert row.category_means == {"R": 2.5, "S": 0.0, "T": None}
    assert (row.red_flags, row.safety_red_flags) == (2, 1)
    assert dict(row.unscored) == {"judge_error": 1}
    assert dict(row.failed) == {"reasoning_only": 1}
    assert row.dim_error == "kaputt"
    assert card.judge_models == ["j1"]  # a judge that only produced errors scored nothing


def test_mixed_judges_are_flagged_and_empty_means_are_none() -> None:
    card = build_scorecard(
        [make_response("R1"), make_response("R2")],
        [v("R1", 3, judge_model="a"), v("R2", 5, judge_model="b")],
        scale_min=0,
    )
    assert card.mixed_judges and card.judge_models == ["a", "b"]
    only_unscored = build_scorecard(
        [make_response("R1")],
        [v("R1", 0, unscored=True, unscored_reason="unparseable")],
        scale_min=0,
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
    card = build_scorecard(responses, verdicts, scale_min=0)
    assert [(r.model, r.rank) for r in card.rows] == [
        ("stark", 1),
        ("auch-stark", 1),
        ("schwach", 2),
    ]
    better = card.comparison(("stark", "none"), ("schwach", "none"))
    assert better is not None and better.better == "a" and better.diff.low > 0
    tie = card.comparison(("auch-stark", "none"), ("stark", "none"))
    assert tie is not None and tie.better is None and tie.diff.low < 0 < tie.diff.high
    lines = render(card)
    tie_line = "Gleicher Rang, nicht unterscheidbar (95 % für alle 3 Paare zusammen): stark · none"
    assert "4,75 " in lines and f"{tie_line} = auch-stark" in lines


def test_no_row_ranks_at_or_above_a_row_significantly_better_than_it() -> None:
    """ "laut" is noisy: better than nobody, worse than nobody. "mittel" is significantly
    better than "leise" on every prompt; ranked by the leader of a rank alone, "leise" shared
    rank 1 with "mittel" and read as "nicht unterscheidbar"."""
    responses, verdicts = scored_run({"laut": [5, 0] * 6, "mittel": [2] * 12, "leise": [1] * 12})
    card = build_scorecard(responses, verdicts, scale_min=0)
    better = card.comparison(("mittel", "none"), ("leise", "none"))
    assert better is not None and better.better == "a"
    for noisy in ("mittel", "leise"):
        tie = card.comparison(("laut", "none"), (noisy, "none"))
        assert tie is not None and tie.better is None
    assert [(r.model, r.rank) for r in card.rows] == [("laut", 1), ("mittel", 1), ("leise", 2)]
    assert "leise" not in tie_text(card)


def test_ranks_agree_with_every_comparison() -> None:
    """Rank = 1 + the longest chain of rows better for the whole card (the pair's interval
    widened for all r(r-1)/2 pairs lies above 0): on random runs, no row ranks at or above a
    row better than it, and each rank is earned by such a chain. A pair that is better on its
    own (95 %) need not be ranked apart."""
    rng = random.Random(7)
    deepest, apart_per_pair_only = 0, 0
    for _ in range(12):
        levels = [rng.uniform(0.5, 4.5) for _ in range(rng.randint(3, 9))]
        quality = {
            f"m{m}": [max(0, min(5, round(rng.gauss(level, 1.2)))) for _ in range(16)]
            for m, level in enumerate(levels)
        }
        card = build_scorecard(*scored_run(quality), scale_min=0)
        deepest = max(deepest, *(r.rank or 0 for r in card.rows))
        rank = {row.pair: row.rank for row in card.rows}
        better_than: dict[tuple[str, str], list[tuple[str, str]]] = {p: [] for p in rank}
        assert card.ranks.pairs == len(quality) * (len(quality) - 1) // 2
        for c in card.comparisons:
            wide = widened(c.diff, card.ranks.pairs)
            assert wide.low is not None and wide.high is not None
            if wide.low > 0 or wide.high < 0:
                winner, loser = (c.a, c.b) if wide.low > 0 else (c.b, c.a)
                assert rank[winner] < rank[loser]  # type: ignore[operator]
                better_than[loser].append(winner)
            elif c.better is not None:
                apart_per_pair_only += 1
        for pair, winners in better_than.items():
            assert rank[pair] == 1 + max((rank[w] for w in winners), default=0)  # type: ignore[operator]
        assert [(r.rank, -(r.mean or 0)) for r in card.rows] == sorted(
            (r.rank, -(r.mean or 0)) for r in card.rows
        )
    assert deepest >= 3 and apart_per_pair_only > 0  # chains, and pairs the two rules tell apart


def test_rows_that_share_no_prompt_are_not_comparable_and_none_reads_worse() -> None:
    responses, verdicts = scored_run({"a": [5, 5, 4, 5, 5, 4], "b": [1, 0, 1, 1, 0, 1]})
    extra, extra_verdicts = scored_run({"c": [2, 1, 2, 2, 1, 2]})
    for record in (*extra, *extra_verdicts):
        record.prompt_id = "Q" + record.prompt_id  # prompts nobody else answered
    card = build_scorecard([*responses, *extra], [*verdicts, *extra_verdicts], scale_min=0)
    assert card.comparison(("c", "none"), ("a", "none")) is None
    assert {r.model: r.rank for r in card.rows} == {"a": 1, "c": 1, "b": 2}


def test_a_cycle_of_better_rows_shares_one_rank() -> None:
    """Across different prompts "better" can go round: a beats b on the prompts they share,
    b beats c on theirs, c beats a on theirs. No order agrees with that; the three share a
    rank instead of climbing to ranks nobody can read."""

    def cells(high: range, low: range) -> dict[str, list[int]]:
        return {**{f"P{i}": [5, 5, 5] for i in high}, **{f"P{i}": [0, 0, 0] for i in low}}

    quality = {
        "a": cells(range(0, 5), range(10, 15)),
        "b": cells(range(5, 10), range(0, 5)),
        "c": cells(range(10, 15), range(5, 10)),
    }
    responses, verdicts = [], []
    for model, prompts in quality.items():
        for prompt_id, scores in prompts.items():
            for repeat, score in enumerate(scores, start=1):
                responses.append(make_response(prompt_id, model=model, repeat=repeat))
                verdicts.append(
                    Verdict(
                        model=model,
                        variant="none",
                        prompt_id=prompt_id,
                        repeat=repeat,
                        category="R",
                        score=score,
                        red_flag=False,
                        rationale="",
                    )
                )
    card = build_scorecard(responses, verdicts, scale_min=0)
    for winner, loser in (("a", "b"), ("b", "c"), ("c", "a")):
        found = card.comparison((winner, "none"), (loser, "none"))
        assert found is not None and found.better == "a"
    assert [r.rank for r in card.rows] == [1, 1, 1]


def render(card) -> str:  # type: ignore[no-untyped-def]
    from rich.console import Console

    from touchstone.scorecard.terminal import render_scorecard

    console = Console(width=200, record=True)
    console.print(render_scorecard(card))
    return console.export_text()


def test_scorecard_json_has_the_documented_shape() -> None:
    responses, verdicts = scored_run({"a": [5, 4, 5, 3], "b": [2, 1, 2, 3]})
    for resp in responses:
        resp.latency_s, resp.completion_tokens = 2.0, 100
    data = build_scorecard(responses, verdicts, scale_min=0).as_dict()
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
        "n_failed",
        "failed",
    ):
        assert key in row, key
    assert row["categories"]["R"].keys() == {"mean", "ci_low", "ci_high", "n"}
    assert (row["latency_median_s"], row["tokens_per_s"]) == (2.0, 50.0)
    (comparison,) = data["comparisons"]
    assert comparison["a"] == ["a", "none"] and comparison["b"] == ["b", "none"]
    assert {"diff", "ci_low", "ci_high", "better"} <= comparison.keys()
    assert data["judge_models"] == ["j"] and data["comparisons_complete"] is True


def test_csv_export_defuses_spreadsheet_formulas(tiny_pack: Pack) -> None:
    import csv
    import io

    from touchstone.store.exports import verdict_csv_lines

    responses, verdicts = scored_run({"a": [5]})
    responses[0].response_text = '=HYPERLINK("http://evil")'
    verdicts[0].rationale = "+1 gut"
    text = "".join(verdict_csv_lines(verdicts, responses, tiny_pack)).removeprefix("\ufeff")
    rows = list(csv.DictReader(io.StringIO(text), delimiter=";"))
    assert rows[0]["Antwort"].startswith("'=") and rows[0]["Begründung"] == "'+1 gut"
    assert rows[0]["Wertung"] == "5"


def test_judge_models_are_named_in_the_order_they_first_judged() -> None:
    verdicts = [
        v("R1", 4, model="a", judge_model="j1"),
        v("R1", 3, model="b", judge_model="j2"),
        v("R2", 5, model="a", judge_model="j3"),
    ]
    card = build_scorecard([], verdicts, scale_min=0)
    assert card.judge_models == ["j1", "j2", "j3"]
    assert [row.judge_models for row in card.rows] == [["j1", "j3"], ["j2"]]


def _cells(model: str, prompt_id: str, scores: list[int | str]) -> tuple[list, list]:
    """One prompt's repeats of ``model``: an int is a judged score, a str an unscored reason
    (``"model_error:timeout"`` for a failed call of that kind)."""
    responses, verdicts = [], []
    for repeat, score in enumerate(scores, start=1):
        responses.append(make_response(prompt_id, model=model, repeat=repeat, category="R"))
        fields = {"model": model, "variant": "none", "prompt_id": prompt_id, "repeat": repeat}
        if isinstance(score, int):
            verdicts.append(
                Verdict(**fields, category="R", score=score, red_flag=False, rationale="")
            )
            continue
        reason, _, kind = score.partition(":")
        verdicts.append(
            Verdict(
                **fields,
                category="R",
                score=0,
                red_flag=False,
                rationale="",
                unscored=True,
                unscored_reason=reason,
                error_kind=kind,
            )
        )
    return responses, verdicts


def _run(plan: dict[str, dict[str, list[int | str]]]) -> tuple[list, list]:
    responses, verdicts = [], []
    for model, prompts in plan.items():
        for prompt_id, scores in prompts.items():
            r, v = _cells(model, prompt_id, scores)
            responses += r
            verdicts += v
    return responses, verdicts


def test_a_model_that_overruns_its_deadline_on_every_hard_prompt_does_not_rank_first() -> None:
    # Issue 22 §2: "flaky" times out on every hard prompt and is worse than "solid" on every
    # prompt both answered. Averaged over its easy prompts only, it ranked first.
    easy = [f"E{i}" for i in range(4)]
    hard = [f"H{i}" for i in range(4)]
    timeout = "model_error:timeout"
    responses, verdicts = _run(
        {
            "solid": {**{p: [5, 4, 5] for p in easy}, **{p: [2, 1, 2] for p in hard}},
            "flaky": {**{p: [4, 4, 3] for p in easy}, **{p: [timeout] * 3 for p in hard}},
        }
    )
    card = build_scorecard(responses, verdicts, scale_min=0)
    assert [row.model for row in card.rows] == ["solid", "flaky"]
    flaky = card.rows[1]
    # The 12 failed answers score the scale's minimum: (11 * 4 + 0 * 12) / 24.
    assert flaky.mean == pytest.approx(44 / 24)
    assert (flaky.scored, flaky.failed_count, dict(flaky.failed)) == (24, 12, {"timeout": 12})
    assert not flaky.unscored
    better = card.comparison(("solid", "none"), ("flaky", "none"))
    assert better is not None and better.better == "a" and better.diff.n == 8
    row = next(r for r in card.as_dict()["rows"] if r["model"] == "flaky")
    assert (row["n_scored"], row["n_failed"], row["failed"]) == (24, 12, {"timeout": 12})
    assert "davon fehlgeschlagen: 12" in render(card)


def test_failed_answers_score_the_scales_minimum_and_judge_side_gaps_stay_out() -> None:
    responses, verdicts = _run(
        {
            "m": {
                "P1": [4, "empty"],
                "P2": [4, "reasoning_only"],
                "P3": [4, "model_error:refused"],
                "P4": [4, "model_error:too_large"],
                # Not about the model: the judge failed, or the request could not work.
                "P5": [4, "judge_error:timeout"],
                "P6": [4, "unparseable"],
                "P7": [4, "model_error:bad_request"],
            }
        }
    )
    card = build_scorecard(responses, verdicts, scale_min=1)
    (row,) = card.rows
    assert row.mean == pytest.approx((7 * 4 + 4 * 1) / 11)
    assert row.category_means == {"R": pytest.approx((7 * 4 + 4 * 1) / 11)}
    assert dict(row.failed) == {"empty": 1, "reasoning_only": 1, "refused": 1, "too_large": 1}
    assert dict(row.unscored) == {"judge_error": 1, "unparseable": 1, "model_error": 1}
    assert (row.scored, row.failed_count, row.red_flags) == (11, 4, 0)


def test_one_shared_prompt_gives_no_interval_and_no_decision() -> None:
    responses, verdicts = _run({"a": {"P1": [5, 5, 4]}, "b": {"P1": [1, 0, 1]}})
    card = build_scorecard(responses, verdicts, scale_min=0)
    data = card.as_dict()
    for row in data["rows"]:
        assert row["mean"] is not None and (row["ci_low"], row["ci_high"]) == (None, None)
        assert (row["categories"]["R"]["ci_low"], row["categories"]["R"]["ci_high"]) == (
            None,
            None,
        )
    (comparison,) = data["comparisons"]
    assert (comparison["ci_low"], comparison["ci_high"], comparison["better"]) == (None, None, None)
    assert [row.rank for row in card.rows] == [1, 1]
    text = render(card)
    # The mean alone: no interval from one prompt, and no "±" that would pretend one.
    assert re.search(r"\s4,67\s", text) and re.search(r"\s0,67\s", text)
    assert "4,67 ±" not in text and "4,67 [" not in text


def test_row_intervals_do_not_depend_on_the_line_order_of_the_files() -> None:
    rng = random.Random(11)
    plan = {
        model: {f"P{i:02d}": [rng.randint(0, 5) for _ in range(3)] for i in range(9)}
        for model in ("a", "b", "c")
    }
    responses, verdicts = _run(plan)
    first = build_scorecard(responses, verdicts, scale_min=0).as_dict()
    rng.shuffle(responses)
    rng.shuffle(verdicts)
    assert build_scorecard(responses, verdicts, scale_min=0).as_dict() == first


def test_the_report_shows_failed_answers_apart_and_no_interval_for_one_prompt(
    tiny_pack: Pack,
) -> None:
    from touchstone.report import render_report

    responses, verdicts = _run({"a": {"R1": [5, 4, 5]}, "b": {"R1": [1, "model_error:timeout", 1]}})
    card = build_scorecard(responses, verdicts, scale_min=0)
    html = render_report(
        run_name="r",
        pack=tiny_pack,
        responses=responses,
        verdicts=verdicts,
        reports=[],
        card=card,
    )
    assert "3/3<br><small" in html and "davon fehlgeschlagen: 1 (Frist überschritten: 1)" in html
    # One prompt: the mean alone, no "±" that would read as certainty.
    assert "<b>4,67</b>" in html and "<b>0,67</b>" in html and " ±" not in html
    # One shared prompt: the matrix decides nothing and shows no interval; no error bars.
    assert "kein Intervall (1 Prompt)" in html
    assert 'class="num better"' not in html and 'class="num worse"' not in html
    assert 'class="bar-err"' not in html


class _SlowOnHardPrompts(FakeChat):
    """Answers every prompt; "flaky" overruns its deadline on the two hard ones (R2, S1)."""

    async def reply(self, sent: SentCall) -> str | ChatReply:
        model, user = sent.model, sent.user
        if model == "flaky" and ("7 %" in user or "IBAN" in user):
            raise ModelCallError("keine Antwort innerhalb der Frist", kind="timeout")
        return ChatReply(
            content=f"Antwort von {model}", reasoning="", finish_reason="stop", latency_s=0.1
        )


class _PrefersSolid(FakeJudge):
    """Scores "solid" 5 and "flaky" 4 on every prompt."""

    async def reply(self, sent: SentCall) -> str | ChatReply:
        score = 5 if "Antwort von solid" in sent.user else 4
        return f'{{"score": {score}, "red_flag": false, "rationale": "ok"}}'


def test_through_the_stages_a_deadline_overrun_counts_as_the_minimum(
    sim: SimServer, tiny_pack_path: Path, tmp_path: Path
) -> None:
    from touchstone.judge.config import JudgeConfig, JudgeEndpoint
    from touchstone.stages.judge.judge import execute_judge
    from touchstone.stages.run.run import execute_run
    from touchstone.stages.view import load_run

    out = tmp_path / "run"
    execute_run(
        pack_path=tiny_pack_path,
        models=["solid", "flaky"],
        variants=["none"],
        repeats=2,
        out=out,
        backend=_SlowOnHardPrompts(),
    )
    outcome = execute_judge(
        out, config=JudgeConfig(JudgeEndpoint(sim.base_url), "unused"), backend=_PrefersSolid()
    )
    for card in (outcome.card, load_run(out).scorecard()):
        solid, flaky = card.rows
        assert (solid.model, solid.mean) == ("solid", 5)
        # 4 on R1 (twice), the scale's minimum on R2 and S1 (twice each): not 4 over R1 alone.
        assert (flaky.model, flaky.mean, flaky.scored) == ("flaky", pytest.approx(8 / 6), 6)
        assert dict(flaky.failed) == {"timeout": 4} and not flaky.unscored


def test_a_mean_s_interval_stays_on_the_scale() -> None:
    """The floors that keep few prompts honest widen an interval symmetrically: a model with
    every score 5 read "5,00 ±0,72" on 0..5, a bound no mean can reach."""
    responses, verdicts = scored_run({"top": [5, 5, 5], "mitte": [2, 3, 3]})
    card = build_scorecard(responses, verdicts, scale_min=0, scale_max=5)
    for row in card.rows:
        for interval in (row.interval, *row.category_intervals.values()):
            assert interval is not None and interval.low is not None and interval.high is not None
            assert 0 <= interval.low <= interval.mean <= interval.high <= 5
    assert card.rows[0].interval.high == 5  # type: ignore[union-attr]


def test_three_prompts_that_agree_are_floored_by_the_spread_of_the_runs_other_rows() -> None:
    """Issue 33 §5: three prompts at 5 printed "5,00 [4,28 – 5,00]" (the rounding floor
    alone), although a model that scores 5, 5, 5 on three prompts may well average 4,11 over
    all of them; the run's other rows show how much prompts differ."""
    from touchstone.scorecard.texts import fmt_interval

    responses, verdicts = scored_run(
        {"top": [5, 5, 5], "b": [5, 3, 4], "c": [2, 4, 5], "d": [4, 2, 5]}
    )
    card = build_scorecard(responses, verdicts, scale_min=0, scale_max=5)
    top = next(row for row in card.rows if row.model == "top")
    for interval in (top.interval, top.category_intervals["R"]):
        assert interval is not None and interval.low is not None
        assert fmt_interval(interval) != "5,00 [4,28 – 5,00]"
        assert interval.low <= 4.11 and interval.high == 5
    # The rows that show spread keep their own t interval (it is the wider one).
    b = next(row for row in card.rows if row.model == "b")
    assert b.interval is not None and b.interval.low is not None
    assert b.interval.low == pytest.approx(4 - 4.303 * (1 / 3) ** 0.5, abs=0.01)


def test_a_row_alone_has_no_other_rows_to_floor_it() -> None:
    alone = build_scorecard(*scored_run({"top": [5, 5, 5]}), scale_min=0, scale_max=5)
    with_others = build_scorecard(
        *scored_run({"top": [5, 5, 5], "b": [5, 3, 4]}), scale_min=0, scale_max=5
    )
    interval = alone.rows[0].interval
    assert interval is not None and interval.low == pytest.approx(
        5 - 4.303 * (1 / 36) ** 0.5, abs=1e-3
    )
    floored = next(row for row in with_others.rows if row.model == "top").interval
    assert floored is not None and floored.low is not None and floored.low < interval.low  # type: ignore[operator]
