"""A fully judged run, judged again: the same card and events at once, never stale numbers."""

from __future__ import annotations

import gc
import json
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FakeJudge, make_response, timeout_error
from touchstone.errors import InputError, JudgeAborted
from touchstone.gui.cache import RunCache
from touchstone.judge.config import JudgeConfig, JudgeEndpoint
from touchstone.sim import SimServer
from touchstone.stages.judge.judge import execute_judge
from touchstone.stages.judge.outcome import JudgeOutcome
from touchstone.stages.view import load_run
from touchstone.store import JUDGE_STATE, RESPONSES, SCORECARD_JSON, RunDir, Stamp, input_stamps
from touchstone.transport.fake import SentCall
from touchstone.transport.replies import ChatReply

Events = list[tuple[str, dict[str, Any]]]
DIMENSIONS = json.dumps(
    {dim: {"score": 4, "rationale": "solide"} for dim in ("korrektheit", "sprache")}
)


@dataclass
class Judge(FakeJudge):
    """Replays its script for single answers; answers every holistic call with scores
    (or times out on it)."""

    holistic_fails: bool = False

    async def reply(self, sent: SentCall) -> str | ChatReply:
        if "## Gesamtbewertung" in sent.user:
            if self.holistic_fails:
                raise timeout_error()
            return DIMENSIONS
        return await super().reply(sent)


def judge(run: Path, sim: SimServer, backend: Judge) -> tuple[JudgeOutcome, Events]:
    events: Events = []
    outcome = execute_judge(
        run,
        config=JudgeConfig(JudgeEndpoint(sim.base_url), "sim-judge"),
        backend=backend,
        on_event=lambda kind, data: events.append((kind, data)),
    )
    return outcome, events


@pytest.fixture
def judged_run(answered_run: Path, sim: SimServer) -> Path:
    first = Judge(['{"score": 2, "red_flag": true, "rationale": "falsch"}'])
    judge(answered_run, sim, first)
    assert len(first.history) == 12 + 4  # every cell, then one holistic call per pair
    assert (answered_run / JUDGE_STATE).is_file()
    return answered_run


def test_a_settled_run_shows_what_a_full_read_shows_without_reading_or_calling(
    judged_run: Path, sim: SimServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    (judged_run / JUDGE_STATE).unlink()
    full, full_events = judge(judged_run, sim, Judge())  # reads all, calls nobody
    assert (judged_run / JUDGE_STATE).is_file()

    def unread(self: RunDir) -> None:
        raise AssertionError("a settled run is not read again")

    monkeypatch.setattr(RunDir, "load_responses", unread)
    written = (judged_run / SCORECARD_JSON).read_text(encoding="utf-8")
    (judged_run / SCORECARD_JSON).unlink()
    again = Judge()
    quick, quick_events = judge(judged_run, sim, again)
    assert again.history == []
    assert quick.card == full.card and quick.card.rows[0].interval is not None
    assert quick.card.rows[0].red_flags == full.card.rows[0].red_flags
    assert quick_events == full_events
    assert (quick.cells, quick.new_verdicts, quick.cells_left) == (12, 0, 0)
    assert quick.health.summary_de() == full.health.summary_de()
    assert (judged_run / SCORECARD_JSON).read_text(encoding="utf-8") == written


def test_a_settled_run_still_refuses_a_config_that_cannot_call(
    judged_run: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TS_UNSET_KEY", raising=False)
    config = JudgeConfig(JudgeEndpoint("http://127.0.0.1:9/v1", api_key_env="TS_UNSET_KEY"), "j")
    with pytest.raises(InputError, match="TS_UNSET_KEY"):
        execute_judge(judged_run, config=config)


def _same_size_edit(run: Path) -> None:
    path = run / "judgements.jsonl"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('"score": 2', '"score": 5', 1), encoding="utf-8")


def _same_size_edit_in_the_same_tick(run: Path) -> None:
    """A same-size edit the file's times do not show: a filesystem that keeps whole seconds
    (FAT: two), a restore from a backup or a tool that keeps the modification time."""
    path = run / "judgements.jsonl"
    before = path.stat()
    _same_size_edit(run)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (
        before.st_size,
        before.st_mtime_ns,
        before.st_ino,
    )


def _appended_answer(run: Path) -> None:
    line = json.dumps(make_response("R2", model="sim-gut", repeat=2).as_dict())
    with (run / RESPONSES).open("a", encoding="utf-8") as handle:
        handle.write(line + "\n")


def _pack_changed(run: Path) -> None:
    pack = Path(json.loads((run / "run.json").read_text(encoding="utf-8"))["pack_path"])
    pack.write_text(pack.read_text(encoding="utf-8").replace("14 €", "14,00 €"), "utf-8")


@pytest.mark.parametrize(
    ("change", "calls"),
    [
        (_same_size_edit, 1),  # no cell to judge; the edited pair's holistic input changed
        (_appended_answer, 1 + 1),  # the new cell, and its pair's holistic report
        (_pack_changed, 4),  # R2's rubric: its 4 cells are stale (judged alike: same reports)
    ],
    ids=["verdict-edited-same-size", "answer-appended", "rubric-changed"],
)
def test_any_change_to_a_settled_run_is_read_and_judged_as_always(
    judged_run: Path, sim: SimServer, change: Any, calls: int
) -> None:
    change(judged_run)
    backend = Judge()
    outcome, _ = judge(judged_run, sim, backend)
    assert len(backend.history) == calls
    assert outcome.card == load_run(judged_run).scorecard()
    settled = Judge()
    assert judge(judged_run, sim, settled)[0].card == outcome.card
    assert settled.history == []


def test_a_same_size_edit_the_file_times_do_not_show_is_read_and_judged(
    judged_run: Path, sim: SimServer
) -> None:
    stored = judge(judged_run, sim, Judge())[0].card
    _same_size_edit_in_the_same_tick(judged_run)
    backend = Judge()
    outcome, _ = judge(judged_run, sim, backend)
    assert len(backend.history) == 1  # the edited pair's holistic report
    assert outcome.card != stored
    assert outcome.card == load_run(judged_run).scorecard()


def _damaged(state: Path) -> dict[str, str]:
    data = json.loads(state.read_text(encoding="utf-8"))
    wrong_row = {**data["card"]["rows"][0], "category_intervals": []}
    return {
        "cut-off": '{"format": 1, "card": [',
        "deep": "[" * 100_000,
        "wrong-type": json.dumps({**data, "cells": "zwölf"}),
        "wrong-row": json.dumps({**data, "card": {**data["card"], "rows": [wrong_row]}}),
    }


@pytest.mark.parametrize("damage", ["cut-off", "deep", "wrong-type", "wrong-row"])
def test_a_damaged_state_is_named_and_the_run_read_in_full(
    judged_run: Path, sim: SimServer, damage: str
) -> None:
    state = judged_run / JUDGE_STATE
    expected = judge(judged_run, sim, Judge())[0].card
    state.write_text(_damaged(state)[damage], encoding="utf-8")
    outcome, _ = judge(judged_run, sim, Judge())
    assert outcome.card == expected
    assert any(str(state) in w and "unlesbar" in w for w in outcome.run_dir.warnings)
    assert json.loads(state.read_text(encoding="utf-8"))["cells"] == 12  # written anew


def test_another_touchstone_version_reads_the_run_in_full(judged_run: Path, sim: SimServer) -> None:
    state = judged_run / JUDGE_STATE
    data = json.loads(state.read_text(encoding="utf-8"))
    data["touchstone_version"] = "0.0.1"
    data["card"]["rows"][0]["red_flags"] = 99  # what an older version might have counted
    state.write_text(json.dumps(data), encoding="utf-8")
    outcome, _ = judge(judged_run, sim, Judge())
    assert outcome.card == load_run(judged_run).scorecard()
    assert all(row.red_flags < 99 for row in outcome.card.rows)


def test_a_state_of_an_older_format_is_read_in_full_without_a_warning(
    judged_run: Path, sim: SimServer
) -> None:
    state = judged_run / JUDGE_STATE
    data = json.loads(state.read_text(encoding="utf-8"))
    data.update(
        format=1, inputs=[[1_700_000_000_000_000_000, 100, 12345]] * 4
    )  # times, size, inode
    data["card"]["rows"][0]["red_flags"] = 99
    state.write_text(json.dumps(data), encoding="utf-8")
    outcome, _ = judge(judged_run, sim, Judge())
    assert outcome.card == load_run(judged_run).scorecard()
    assert outcome.run_dir.warnings == []
    assert json.loads(state.read_text(encoding="utf-8"))["format"] > 1  # written anew


@pytest.mark.parametrize(
    "first", [Judge([timeout_error()]), Judge(holistic_fails=True)], ids=["cell", "holistic"]
)
def test_a_run_that_ends_with_work_left_leaves_no_state(
    answered_run: Path, sim: SimServer, first: Judge
) -> None:
    judge(answered_run, sim, first)
    assert not (answered_run / JUDGE_STATE).exists()
    later = Judge()
    judge(answered_run, sim, later)
    assert len(later.history) >= 1  # the left cell or the failed report, asked again
    assert (answered_run / JUDGE_STATE).exists()


def test_answers_that_warn_on_reading_are_read_every_time(
    answered_run: Path, sim: SimServer
) -> None:
    with (answered_run / RESPONSES).open("a", encoding="utf-8") as handle:
        handle.write('{"model": "sim-gut", "vari')  # a killed run's last line
    first, _ = judge(answered_run, sim, Judge())
    assert not (answered_run / JUDGE_STATE).exists()
    again, _ = judge(answered_run, sim, Judge())
    warned = [w for w in first.run_dir.warnings if "unvollständig" in w]
    assert len(warned) == 1 and again.run_dir.warnings == first.run_dir.warnings
    assert again.card == first.card


def test_a_report_kept_over_a_failed_call_is_asked_for_again(
    judged_run: Path, sim: SimServer
) -> None:
    _same_size_edit(judged_run)  # the edited pair's holistic input changed
    failing = Judge(holistic_fails=True)
    outcome, _ = judge(judged_run, sim, failing)
    assert len(failing.history) == 1
    assert all(row.dim_scores for row in outcome.card.rows)  # the older report stays
    assert not (judged_run / JUDGE_STATE).exists()
    later = Judge()
    judge(judged_run, sim, later)
    assert len(later.history) == 1


def test_the_judge_stage_leaves_the_garbage_collector_as_it_found_it(
    answered_run: Path, sim: SimServer
) -> None:
    judge(answered_run, sim, Judge())
    with pytest.raises(JudgeAborted):
        (answered_run / JUDGE_STATE).unlink()
        judge_all_again = Judge([timeout_error()] * 20)
        execute_judge(
            answered_run,
            config=JudgeConfig(JudgeEndpoint(sim.base_url), "sim-judge"),
            backend=judge_all_again,
            rejudge="all",
        )
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_the_guis_run_cache_sees_a_same_size_edit_the_file_times_do_not_show(
    judged_run: Path,
) -> None:
    cache = RunCache()
    before = cache.get(judged_run).card
    assert cache.get(judged_run).card is before  # held, not loaded again
    _same_size_edit_in_the_same_tick(judged_run)
    after = cache.get(judged_run).card
    assert after != before
    assert after == load_run(judged_run).scorecard()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_in_place_of_a_run_file_is_stamped_without_waiting_for_a_writer(
    judged_run: Path,
) -> None:
    settled = input_stamps(judged_run)
    (judged_run / RESPONSES).unlink()
    os.mkfifo(judged_run / RESPONSES)
    stamps: list[tuple[Stamp, ...]] = []
    reader = threading.Thread(target=lambda: stamps.append(input_stamps(judged_run)), daemon=True)
    reader.start()
    reader.join(timeout=2)
    assert stamps, "input_stamps waits on a FIFO"
    assert stamps[0] != settled


def test_the_overview_takes_scorecard_json_only_while_the_files_hold_what_it_says(
    judged_run: Path,
) -> None:
    """scorecard.json records the stamps of the files it was built from: a same-size edit the
    times do not show, or a scorecard.json from elsewhere with a time in the future, is not
    taken for the run's figures (the run is loaded instead)."""
    from touchstone.gui.cache import fresh_scorecard

    assert fresh_scorecard(judged_run) is not None
    _same_size_edit_in_the_same_tick(judged_run)
    assert fresh_scorecard(judged_run) is None
    forged = judged_run / "scorecard.json"
    data = json.loads(forged.read_text(encoding="utf-8"))
    del data["inputs"]
    forged.write_text(json.dumps(data), encoding="utf-8")
    future = time.time_ns() + 10**12
    os.utime(forged, ns=(future, future))
    assert fresh_scorecard(judged_run) is None
