"""How a jury's cell verdict is made from its members' (design.md §18), and a single judge's
files staying as they were."""

import json
from pathlib import Path

import pytest

from touchstone.judge.config import JudgeConfig, JudgeEndpoint
from touchstone.jury.aggregate import cell_verdict, combine
from touchstone.jury.verdicts import run_cells
from touchstone.results import Verdict
from touchstone.sim import SimServer
from touchstone.stages.judge.judge import execute_judge
from touchstone.stages.view import load_run, write_report
from touchstone.store import RunDir


def said(
    model: str, score: int, *, red_flag: bool = False, unscored: str = "", safety: bool = False
) -> Verdict:
    return Verdict(
        model="m",
        variant="none",
        prompt_id="R1",
        repeat=1,
        category="R",
        score=score,
        red_flag=red_flag,
        rationale=f"{model} sagt {score}",
        unscored=bool(unscored),
        unscored_reason=unscored,
        safety_critical=safety,
        judge_model=model,
        judge_base_url="http://x/v1",
        jury=True,
    )


@pytest.mark.parametrize(
    ("scores", "aggregate", "expected"),
    [
        ([4, 2, 5], "median", 4),
        ([4, 3], "median", 3.5),
        ([4, 3, 3], "mean", 10 / 3),
        ([4, 4, 1], "majority", 4),
        ([5, 1, 2, 4], "majority", 3),  # all equally frequent: the median
    ],
)
def test_combine(scores: list[int], aggregate: str, expected: float) -> None:
    assert combine(scores, aggregate) == pytest.approx(expected)


def test_fewer_scored_verdicts_than_the_quorum_is_no_quorum() -> None:
    cell = cell_verdict(
        [said("a", 4), said("b", 0, unscored="unparseable")],
        aggregate="median",
        quorum=2,
        name="Jury (a, b)",
    )
    assert cell.unscored and cell.unscored_reason == "no_quorum"
    assert cell.rationale.startswith("Kein Quorum: 1 von 2")
    assert cell.jury and not cell.judge_base_url  # an aggregate: never a member's line


def test_red_flag_by_majority_and_on_safety_critical_prompts_by_any() -> None:
    one_of_three = [said("a", 2, red_flag=True), said("b", 4), said("c", 4)]
    two_of_three = [said("a", 2, red_flag=True), said("b", 2, red_flag=True), said("c", 4)]
    assert not cell_verdict(one_of_three, aggregate="median", quorum=2, name="J").red_flag
    assert cell_verdict(two_of_three, aggregate="median", quorum=2, name="J").red_flag
    critical = [said("a", 2, red_flag=True, safety=True), said("b", 4), said("c", 4)]
    assert cell_verdict(critical, aggregate="median", quorum=2, name="J").red_flag


def test_a_failed_answer_stays_the_models_failure() -> None:
    empty = [said(m, 0, unscored="empty") for m in ("a", "b", "c")]
    cell = cell_verdict(empty, aggregate="median", quorum=2, name="J")
    assert cell.unscored_reason == "empty"  # counted as the model's failure, not no_quorum


def test_aggregates_are_never_written(tmp_path: Path) -> None:
    run = RunDir(tmp_path)
    (tmp_path / "run.json").write_text("{}", encoding="utf-8")
    lines = [said("a", 4), said("b", 2)]
    (tmp_path / "judgements.jsonl").write_text(
        "".join(json.dumps(v.as_dict()) + "\n" for v in lines), encoding="utf-8"
    )
    judged = run_cells(run)
    [cell] = judged.cells
    assert cell.score == 3 and cell.judge_model == "Jury (a, b)"
    run.rewrite_verdicts([cell], member_lines=judged.member_lines)
    written = [json.loads(x) for x in (tmp_path / "judgements.jsonl").read_text().splitlines()]
    assert [w["judge_model"] for w in written] == ["a", "b"]


def test_single_judge_files_and_resume_unchanged(sim: SimServer, answered_run: Path) -> None:
    config = JudgeConfig(JudgeEndpoint(sim.base_url), "sim-judge")
    execute_judge(answered_run, config=config, use_cache=False)
    persisted = (answered_run / "judgements.jsonl").read_text(encoding="utf-8")
    assert '"jury"' not in persisted and '"judge_base_url"' not in persisted
    card = (answered_run / "scorecard.json").read_text(encoding="utf-8")
    assert '"jury"' not in card
    (answered_run / "judge-state.json").unlink()  # read everything, not the settled state
    before = dict(sim.calls)
    execute_judge(answered_run, config=config, use_cache=False)
    assert sim.calls == before
    assert (answered_run / "judgements.jsonl").read_text(encoding="utf-8") == persisted
    assert (answered_run / "scorecard.json").read_text(encoding="utf-8") == card
    view = load_run(answered_run)
    write_report(view, view.scorecard())
    assert (answered_run / "scorecard.json").read_text(encoding="utf-8") == card


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ({"jury": True, "judge_base_url": "http://x/v1", "score": 9}, "außerhalb der Skala"),
        ({"jury": True, "judge_base_url": "http://x/v1", "score": 3.5}, "keine ganze Zahl"),
        ({"score": 4.5}, "keine ganze Zahl"),
    ],
)
def test_hand_edited_scores_are_bad_input(
    answered_run: Path, line: dict[str, object], problem: str
) -> None:
    from touchstone.errors import InputError

    verdict = said("a", 4).as_dict() | {"model": "sim-gut", "variant": "none", "prompt_id": "R1"}
    if "jury" not in line:
        del verdict["jury"], verdict["judge_base_url"]
    (answered_run / "judgements.jsonl").write_text(
        json.dumps(verdict | line) + "\n", encoding="utf-8"
    )
    manifest = json.loads((answered_run / "run.json").read_text(encoding="utf-8"))
    manifest["jury"] = {"aggregate": "median", "quorum": 1, "members": "kaputt"}
    (answered_run / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(InputError, match=problem):
        load_run(answered_run)


def test_run_dir_judged_by_main_before_the_jury_reads_and_resumes_as_before(
    sim: SimServer, tmp_path: Path
) -> None:
    """tests/fixtures/single_judge_run was judged by one judge with the touchstone before
    the jury (commit e1a46a8): its scorecard is the same, and a resume asks nothing and
    leaves its verdicts as they were."""
    import shutil

    from tests.conftest import REPO

    shutil.copytree(REPO / "tests" / "fixtures" / "single_judge_run", tmp_path / "old")
    run = tmp_path / "old" / "run"
    manifest = json.loads((run / "run.json").read_text(encoding="utf-8"))
    manifest["pack_path"] = manifest["pack_abspath"] = str(tmp_path / "old" / "tiny.yaml")
    (run / "run.json").write_text(json.dumps(manifest), encoding="utf-8")

    def card_of(path: Path) -> dict[str, object]:
        data = json.loads(path.read_text(encoding="utf-8"))
        data.pop("inputs")  # stamps of the files: run.json was moved here
        # Ranks split only where a pair is better for the whole card since (#33), and rows
        # are listed by rank: not the jury's doing either.
        for row in data["rows"]:
            row.pop("rank")
        data["rows"].sort(key=lambda row: (row["model"], row["variant"]))
        return data

    def as_then(now: object, then: object) -> object:
        """``now`` restricted to the keys ``then`` had: keys added since (the resolution,
        the length effect, the family mark) are new information, not a changed reading."""
        if isinstance(then, dict) and isinstance(now, dict):
            return {k: as_then(now.get(k), v) for k, v in then.items()}
        if isinstance(then, list) and isinstance(now, list) and len(now) == len(then):
            return [as_then(n, t) for n, t in zip(now, then, strict=True)]
        return now

    def without_intervals(card: dict[str, object]) -> dict[str, object]:
        """The card without the rows' and categories' interval bounds: intervals of few
        prompts are floored by the run's other rows since #33, not the jury's doing."""
        rows = card["rows"]
        assert isinstance(rows, list)
        for row in rows:
            row.pop("ci_low"), row.pop("ci_high")
            for category in row["categories"].values():
                category.pop("ci_low"), category.pop("ci_high")
        return card

    then = card_of(run / "scorecard.json")
    # Comparison intervals are clipped to the scale's span since (#23): not the jury's doing.
    then.pop("comparisons")
    verdicts = (run / "judgements.jsonl").read_bytes()
    view = load_run(run)
    write_report(view, view.scorecard())
    now = card_of(run / "scorecard.json")
    assert as_then(without_intervals(now), without_intervals(then)) == then
    before = dict(sim.calls)
    execute_judge(run, config=JudgeConfig(JudgeEndpoint(sim.base_url), "sim-judge"))
    assert sim.calls == before
    assert (run / "judgements.jsonl").read_bytes() == verdicts
    assert as_then(card_of(run / "scorecard.json"), then) == then
