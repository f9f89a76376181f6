"""Honest endings (design.md §22): refused cells are findable, calls in flight show life."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.test_cli import judge_config
from tests.conftest import run_on_sim
from touchstone.cli import ui
from touchstone.cli.progress_bar import ProgressView
from touchstone.errors import JudgeAborted
from touchstone.events import EventLog, fan_out, read_events
from touchstone.gui.cache import LoadedRun
from touchstone.gui.job_state import final_state, job_progress
from touchstone.gui.queries import VerdictQuery, prompt_detail, verdict_page
from touchstone.jury.verdicts import run_cells
from touchstone.pack import Pack
from touchstone.sim import SimServer
from touchstone.stages.judge.judge import execute_judge
from touchstone.stages.judge_check import execute_judge_check
from touchstone.stages.view import load_run
from touchstone.store import RunDir
from touchstone.store.exports import verdict_csv_lines


def loaded(run: Path) -> LoadedRun:
    view = load_run(run)
    return LoadedRun(view, view.scorecard())


# -- a content filter's refusal is data about the cell, findable everywhere ------------------


def test_refused_cells_are_unscored_with_their_reason_everywhere(
    sim: SimServer, four_model_run: Path, tmp_path: Path
) -> None:
    # sim-picky's filter refuses every prompt that mentions an IBAN: S1, 8 cells of 24.
    picky = judge_config(tmp_path / "picky.yaml", sim, "sim-picky", max_failure_ratio=0.5)
    outcome = execute_judge(four_model_run, config=picky)
    assert outcome.refused == 8 and outcome.new_verdicts == 16
    # Scorecard: not "offen", but unscored with the reason, in each (model, variant) row.
    assert len(outcome.card.rows) == 8
    assert all(row.open == 0 for row in outcome.card.rows)
    assert all(row.unscored == {"judge_refused": 1} for row in outcome.card.rows)

    # Persisted with the reason, so the report, the GUI and the CSV find them.
    saved = [v for v in run_cells(RunDir(four_model_run)).cells if v.prompt_id == "S1"]
    assert len(saved) == 8
    assert {v.unscored_reason for v in saved} == {"judge_refused"}
    assert all(v.unscored and not v.judge_error and v.error_kind == "refused" for v in saved)

    run = loaded(four_model_run)
    page = verdict_page(run, VerdictQuery(unscored=True))
    assert page["total"] == 8
    assert {item["unscored_label"] for item in page["items"]} == {"Judge-Filter"}
    detail = prompt_detail(run, "S1")
    assert detail is not None
    assert all(a["verdict"]["unscored_reason"] == "judge_refused" for a in detail["answers"])
    csv = "".join(verdict_csv_lines(run.view.verdicts, run.view.responses, run.view.pack))
    assert csv.count("Judge-Filter") == 8 and "Inhaltsfilter" in csv

    # A later run judges them again: here a judge without that filter scores them.
    good = judge_config(tmp_path / "good.yaml", sim, "sim-judge")
    again = execute_judge(four_model_run, config=good)
    assert again.new_verdicts == 8 and again.refused == 0
    after = run_cells(RunDir(four_model_run)).cells
    assert len(after) == 24 and not any(v.unscored for v in after)


def test_a_stopped_judge_says_refused_cells_are_asked_again(
    sim: SimServer, four_model_run: Path, tmp_path: Path
) -> None:
    picky = judge_config(tmp_path / "picky.yaml", sim, "sim-picky", max_failure_ratio=0.5)
    execute_judge(four_model_run, config=picky)
    hang = judge_config(
        tmp_path / "hang.yaml", sim, "sim-hang", call_timeout_s=0.5, max_consecutive_failures=1
    )
    with pytest.raises(JudgeAborted) as stopped:
        execute_judge(four_model_run, config=hang)
    message = str(stopped.value)
    # Not "kept" as if a re-judge had failed, but still to be asked.
    assert "behalten" not in message
    assert "fragt die 8 vom Judge-Filter abgelehnten Zellen erneut" in message


def test_a_finished_judge_job_names_its_refused_cells() -> None:
    done = {"event": "done", "refused": 2, "health": {"cells_left": 0}}
    assert final_state({}, [done])["message"] == (
        "2 Zellen vom Judge-Filter abgelehnt (der nächste Judge-Durchgang fragt erneut)"
    )


def test_a_refused_cell_is_asked_again_by_default_and_stays_findable(
    sim: SimServer, four_model_run: Path, tmp_path: Path
) -> None:
    picky = judge_config(tmp_path / "picky.yaml", sim, "sim-picky", max_failure_ratio=0.5)
    execute_judge(four_model_run, config=picky)
    before = sim.calls.get("sim-picky", 0)
    again = execute_judge(four_model_run, config=picky)
    # Only the 8 refused cells are asked again, and they stay refused, not open.
    assert sim.calls.get("sim-picky", 0) - before == 8
    assert again.refused == 8 and again.cells_left == 0
    saved = run_cells(RunDir(four_model_run)).cells
    assert len(saved) == 24
    assert sum(v.unscored_reason == "judge_refused" for v in saved) == 8


def test_a_refusal_never_replaces_a_scored_verdict(
    sim: SimServer, four_model_run: Path, tmp_path: Path
) -> None:
    execute_judge(four_model_run, config=judge_config(tmp_path / "good.yaml", sim, "sim-judge"))
    picky = judge_config(tmp_path / "picky.yaml", sim, "sim-picky", max_failure_ratio=0.5)
    again = execute_judge(four_model_run, config=picky, rejudge="all")
    assert again.kept == 8 and again.refused == 0
    saved = run_cells(RunDir(four_model_run)).cells
    assert len(saved) == 24 and not any(v.unscored for v in saved)


# -- a runaway judge shows life while its calls are in flight --------------------------------


def test_calls_in_flight_show_in_events_terminal_and_gui(
    sim: SimServer, answered_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A judge that never answers, a deadline of 2 s: before the guard stops it, the user sees
    # that calls are running and for how long, not a bar frozen at 0.
    hang = judge_config(
        tmp_path / "hang.yaml",
        sim,
        "sim-hang",
        call_timeout_s=1,
        concurrency=2,
        max_consecutive_failures=1,
    )
    terminal = ui.PlainConsole(record=True, force_terminal=True, width=200, stderr=True)
    monkeypatch.setattr(ui, "stderr", terminal)
    path = tmp_path / "events.jsonl"
    log = EventLog(path)
    with pytest.raises(JudgeAborted), ProgressView("Bewertungen") as view:
        execute_judge(answered_run, config=hang, on_event=fan_out(view, log))
    log.close()

    events = read_events(path)
    kinds = [e["event"] for e in events]
    assert "in_flight" in kinds and kinds.index("in_flight") < kinds.index("aborted")
    beat = events[kinds.index("in_flight")]
    assert beat["stage"] == "judge" and beat["calls"] == 2 and beat["deadline_s"] == 1
    assert 0 < beat["oldest_s"] < 1

    shown = terminal.export_text()
    assert "Bewertungen – 2 Aufrufe laufen, ältester seit" in shown and "(Frist 1\u00a0s)" in shown

    running = job_progress(events[: kinds.index("aborted")])
    assert running["in_flight"].startswith("2 Aufrufe laufen, ältester seit ")
    assert running["in_flight"].endswith("\u00a0s (Frist 1\u00a0s)")
    # Once the job ended, no call is running any more.
    assert job_progress(events)["in_flight"] == ""


def test_answer_calls_in_flight_show_in_the_events(
    sim: SimServer, tiny_pack_path: Path, tmp_path: Path
) -> None:
    # The run stage too: a model that never answers is seen running toward its deadline.
    path = tmp_path / "events.jsonl"
    log = EventLog(path)
    run_on_sim(
        sim,
        pack_path=tiny_pack_path,
        models=["sim-hang"],
        variants=["none"],
        out=tmp_path / "run",
        call_timeout_s=1,
        concurrency=3,
        on_event=log,
    )
    log.close()
    events = read_events(path)
    beats = [e for e in events if e["event"] == "in_flight"]
    assert beats and all(b["stage"] == "run" and b["deadline_s"] == 1 for b in beats)
    assert beats[0]["calls"] == 3
    running = job_progress(events[: events.index(beats[0]) + 1])
    assert running["in_flight"].startswith("3 Aufrufe laufen, ältester seit ")


def test_a_judge_check_shows_its_probes_in_flight(
    sim: SimServer, tiny_pack: Pack, tmp_path: Path
) -> None:
    hang = judge_config(
        tmp_path / "hang.yaml", sim, "sim-hang", call_timeout_s=1, max_consecutive_failures=1
    )
    events: list[tuple[str, dict]] = []
    execute_judge_check(
        tiny_pack, config=hang, on_event=lambda kind, data: events.append((kind, data))
    )
    beats = [data for kind, data in events if kind == "in_flight"]
    assert beats and beats[0]["stage"] == "judge-check" and beats[0]["calls"] == 1
