"""A jury of judges end to end on the simulator (design.md §18): members in parallel, each under
its own guard, per-member verdicts persisted, the cell's verdict their aggregate."""

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import coarse
from touchstone.errors import InputError, JudgeAborted
from touchstone.judge.config import JudgeConfig, JudgeEndpoint
from touchstone.jury.config import JuryConfig
from touchstone.jury.verdicts import member_verdicts
from touchstone.sim import SimServer
from touchstone.stages.judge.judge import execute_judge
from touchstone.stages.view import load_run, write_report
from touchstone.store import RunDir


def member(sim: SimServer, model: str, **settings: Any) -> JudgeConfig:
    return JudgeConfig(JudgeEndpoint(sim.base_url), model, **settings)


def runaway(sim: SimServer) -> JudgeConfig:
    return member(sim, "sim-think-endless", call_timeout_s=0.4, max_consecutive_failures=2)


def lines(run_dir: Path) -> list[dict[str, Any]]:
    text = (run_dir / "judgements.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def events_of(sink: list[tuple[str, dict[str, Any]]], kind: str) -> list[dict[str, Any]]:
    return [data for event, data in sink if event == kind]


def test_runaway_member_is_dropped_and_the_jury_completes_with_quorum(
    sim: SimServer, answered_run: Path
) -> None:
    jury = JuryConfig([member(sim, "sim-judge"), member(sim, "sim-strict"), runaway(sim)], quorum=2)
    sink: list[tuple[str, dict[str, Any]]] = []
    # The simulator serves the worker's whole session: count this test's calls only.
    before = sim.calls.get("sim-think-endless", 0)
    outcome = execute_judge(answered_run, config=jury, on_event=lambda k, d: sink.append((k, d)))

    # Dropped within its guard's bound, named with its reason in the events and the outcome.
    dropped = events_of(sink, "judge_dropped")
    assert len(dropped) == 1 and dropped[0]["judge_model"] == "sim-think-endless"
    assert dropped[0]["message"].startswith("Judge sim-think-endless ausgeschieden: 2 ")
    assert "Rat:" in dropped[0]["message"]
    assert sim.calls.get("sim-think-endless", 0) - before <= 3
    assert any(
        line.startswith("⚠ Judge sim-think-endless ausgeschieden") for line in outcome.jury_lines
    )
    # Every per-member line names its member; no line is an aggregate.
    persisted = lines(answered_run)
    assert len(persisted) == 24  # 12 cells x 2 remaining members
    assert {(p["judge_model"], p["judge_base_url"], p["jury"]) for p in persisted} == {
        ("sim-judge", sim.base_url, True),
        ("sim-strict", sim.base_url, True),
    }
    # The cell's verdict is the median of the two members: between them, never a member's
    # verdict stored as the jury's.
    members = member_verdicts(RunDir(answered_run))
    view = load_run(answered_run)
    for verdict in view.verdicts:
        said = members[verdict.key]
        scores = sorted(v.score for v in said.values())
        assert verdict.score == (scores[0] + scores[1]) / 2
        assert verdict.judge_model.startswith("Jury (")
    # The scorecard's jury: members with their means and the dropped one with its reason.
    card = json.loads((answered_run / "scorecard.json").read_text(encoding="utf-8"))
    by_model = {m["model"]: m for m in card["jury"]["members"]}
    assert by_model["sim-think-endless"]["dropped"].startswith("Judge sim-think-endless")
    assert by_model["sim-judge"]["dropped"] is None
    assert by_model["sim-strict"]["mean"] < by_model["sim-judge"]["mean"]  # the harsh one
    assert card["jury"]["quorum"] == 2 and card["jury"]["aggregate"] == "median"
    done = events_of(sink, "done")[0]
    assert [m["dropped"] is not None for m in done["jury"]] == [False, False, True]


def test_a_members_failed_calls_are_counted_as_a_single_judges(
    sim: SimServer, answered_run: Path
) -> None:
    # The terminal and the GUI count a failed call shared by cells once (``shared``): a
    # member's events say it as a single judge's do, and name the member.
    jury = JuryConfig([member(sim, "sim-judge"), runaway(sim)], quorum=1)
    sink: list[tuple[str, dict[str, Any]]] = []
    execute_judge(answered_run, config=jury, on_event=lambda k, d: sink.append((k, d)))
    failed = events_of(sink, "judge_error")
    assert failed and all(e["judge_model"] == "sim-think-endless" for e in failed)
    assert [e["shared"] for e in failed] == [False] * len(failed)
    saved = events_of(sink, "progress")
    assert saved and all(e["judge_model"] == "sim-judge" and not e["shared"] for e in saved)


def test_resume_asks_only_the_members_whose_verdict_is_missing(
    sim: SimServer, answered_run: Path
) -> None:
    jury = JuryConfig([member(sim, "sim-judge"), member(sim, "sim-strict")])
    execute_judge(answered_run, config=jury, use_cache=False)
    before = dict(sim.calls)
    execute_judge(answered_run, config=jury, use_cache=False)
    assert sim.calls == before  # nothing missing: nothing asked
    # One member loses its lines for two cells: only it is asked, only for those.
    kept = [
        p
        for p in lines(answered_run)
        if not (
            p["judge_model"] == "sim-strict" and p["prompt_id"] == "R1" and p["variant"] == "none"
        )
    ]
    (answered_run / "judgements.jsonl").write_text(
        "".join(json.dumps(p) + "\n" for p in kept), encoding="utf-8"
    )
    execute_judge(answered_run, config=jury, use_cache=False)
    asked = {k: sim.calls.get(k, 0) - before.get(k, 0) for k in ("sim-judge", "sim-strict")}
    assert asked == {"sim-judge": 0, "sim-strict": 2}


def test_jury_stops_when_the_quorum_cannot_be_reached(sim: SimServer, answered_run: Path) -> None:
    jury = JuryConfig(
        [
            member(sim, "sim-judge@0.05"),
            runaway(sim),
            member(sim, "sim-nicht-da"),  # 404: dropped at once
        ],
        quorum=2,
    )
    sink: list[tuple[str, dict[str, Any]]] = []
    with pytest.raises(JudgeAborted) as caught:
        execute_judge(answered_run, config=jury, on_event=lambda k, d: sink.append((k, d)))
    message = str(caught.value)
    assert "Quorum von 2" in message
    assert "Judge sim-think-endless ausgeschieden" in message
    assert "Judge sim-nicht-da ausgeschieden" in message
    assert events_of(sink, "aborted") and len(events_of(sink, "judge_dropped")) == 2
    # What the fit member judged before the stop is kept, as its own lines.
    assert {p["judge_model"] for p in lines(answered_run)} <= {"sim-judge@0.05"}


def test_model_option_is_bad_input_with_a_jury(sim: SimServer, answered_run: Path) -> None:
    jury = JuryConfig([member(sim, "sim-judge"), member(sim, "sim-strict")])
    with pytest.raises(InputError, match="--model sim-gut passt nicht zu einer Jury"):
        execute_judge(answered_run, config=jury, model="sim-gut")
    assert not (answered_run / "judgements.jsonl").exists()


def test_members_run_in_parallel(answered_run: Path) -> None:
    # A server of its own: its peak counts this jury's calls only. Each member has
    # concurrency 1, so three calls at once means three members at once.
    with SimServer() as own:
        jury = JuryConfig(
            [member(own, f"{name}@0.05") for name in ("sim-judge", "sim-strict", "sim-gullible")]
        )
        execute_judge(answered_run, config=jury, use_cache=False)
        assert own.generations["peak"] == 3


def test_gui_job_shows_each_dropped_member() -> None:
    from touchstone.gui.job_state import job_progress

    line = "Judge gemma2:9b ausgeschieden: 3 Judge-Aufrufe in Folge fehlgeschlagen – Rat: …"
    events = [
        {"event": "start", "stage": "judge", "total": 24, "todo": 24},
        {"event": "judge_dropped", "judge_model": "gemma2:9b", "message": line, "left": 10},
        {"event": "done", "stage": "judge"},
    ]
    assert job_progress(events)["dropped"] == [line]
    assert job_progress(events)["total"] == 14  # the dropped member's cells will not come
    assert job_progress(events[:1])["dropped"] == []


def test_verdict_cache_works_per_member_identity(
    sim: SimServer, answered_run: Path, tmp_path: Path
) -> None:
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(answered_run, copy)
    execute_judge(
        answered_run, config=JuryConfig([member(sim, "sim-judge"), member(sim, "sim-strict")])
    )
    before = dict(sim.calls)
    # The copy has no verdicts: the cache answers for the members it knows, per identity.
    # (sim-gullible first: the first member writes the holistic pass, which is not cached.)
    execute_judge(copy, config=JuryConfig([member(sim, "sim-gullible"), member(sim, "sim-judge")]))
    asked = {k: sim.calls.get(k, 0) - before.get(k, 0) for k in ("sim-judge", "sim-gullible")}
    # sim-judge is asked only the 3 cells of its drift check (design.md §17), nothing else.
    assert asked["sim-judge"] == 3 and asked["sim-gullible"] > 0
    cached = [v for v in member_verdicts(RunDir(copy)).values()]
    assert all(said[next(k for k in said if k.model == "sim-judge")].cached for said in cached)


def test_single_judge_after_a_jury_keeps_the_members_lines(
    sim: SimServer, answered_run: Path
) -> None:
    jury = JuryConfig([member(sim, "sim-judge"), member(sim, "sim-strict")])
    execute_judge(answered_run, config=jury, use_cache=False)
    persisted = sorted((answered_run / "judgements.jsonl").read_text().splitlines())
    before = dict(sim.calls)
    (answered_run / "judge-state.json").unlink()  # read everything, not the settled state
    execute_judge(answered_run, config=member(sim, "sim-gullible"), use_cache=False)
    # Every cell has the jury's verdict: no cell is asked (only the holistic pass, one call
    # per (model, variant): its input, the cells' verdicts, is now the jury's), and no
    # member line is lost or turned into an aggregate.
    assert sim.calls.get("sim-gullible", 0) - before.get("sim-gullible", 0) == 4
    assert sorted((answered_run / "judgements.jsonl").read_text().splitlines()) == persisted
    view = load_run(answered_run)
    write_report(view, view.scorecard())
    csv = (answered_run / "verdicts.csv").read_text(encoding="utf-8-sig")
    halves = [v for v in view.verdicts if not float(v.score).is_integer()]
    assert halves and f";{str(halves[0].score).replace('.', ',')};" in csv


def test_bad_input_in_a_member_is_one_error_not_a_group(sim: SimServer, answered_run: Path) -> None:
    answers = answered_run / "responses.jsonl"
    answers.write_text(answers.read_text().replace('"prompt_id": "R1"', '"prompt_id": "R9"'))
    jury = JuryConfig([member(sim, "sim-judge"), member(sim, "sim-strict")])
    with pytest.raises(InputError, match="R9"):
        execute_judge(answered_run, config=jury)


def test_runaway_is_dropped_within_its_guards_bound_and_the_run_is_not_settled(
    sim: SimServer, answered_run: Path
) -> None:
    import time

    from touchstone.pack import load_pack
    from touchstone.scorecard.build import Scorecard
    from touchstone.store.settled import read_settled

    pack = load_pack(answered_run.parent.parent / "tiny.yaml")
    jury = JuryConfig([member(sim, "sim-judge"), member(sim, "sim-strict"), runaway(sim)])
    started = time.monotonic()
    execute_judge(answered_run, config=jury)
    # The runaway's guard: 2 calls of 0.4 s in a row; the others are fast.
    assert time.monotonic() - started < coarse(2 * 0.4 + 1)
    # The dropped member's verdicts are missing: a later run asks it again.
    assert read_settled(RunDir(answered_run), pack, Scorecard) is None
    # Without it the jury is complete: settled, and its card (with the jury) reads back.
    outcome = execute_judge(
        answered_run, config=JuryConfig([member(sim, "sim-judge"), member(sim, "sim-strict")])
    )
    settled = read_settled(RunDir(answered_run), pack, Scorecard)
    assert settled is not None and settled.card.jury == outcome.card.jury
    assert settled.card.jury is not None and len(settled.card.jury.members) == 2
