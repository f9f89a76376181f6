"""Drift (design.md §17): a judge whose character changes behind the same name is noticed by the
next judge-check (stored probes) and by a judge run served from the cache (re-asked cells)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import FakeJudge, copied_runs, run_on_sim, timeout_error
from touchstone.errors import JudgeAborted
from touchstone.judge.config import JudgeConfig, JudgeEndpoint
from touchstone.jury.verdicts import run_cells
from touchstone.pack import Pack
from touchstone.quality.drift import PROBES_DIR, Drift, off_by, probe_file
from touchstone.sim import SimServer
from touchstone.stages.judge.judge import execute_judge
from touchstone.stages.judge_check import execute_judge_check
from touchstone.store import RunDir

LENIENT = '{"score": 5, "red_flag": false, "rationale": "sehr gut"}'
STRICT = '{"score": 1, "red_flag": true, "rationale": "falsch"}'
DATE = re.compile(r"anders als am \d\d\.\d\d\.\d{4}, \d\d:\d\d ")


def config(**extra: object) -> JudgeConfig:
    return JudgeConfig(JudgeEndpoint("http://127.0.0.1:9"), "qwen3:8b", **extra)  # type: ignore[arg-type]


def judge(reply: str, script: list[str | Exception] | None = None) -> FakeJudge:
    return FakeJudge(script=list(script or []), default=reply, model="qwen3:8b")


@pytest.fixture
def two_runs(sim: SimServer, tiny_pack_path: Path, tmp_path: Path) -> tuple[Path, Path]:
    """The same 6 answers in two run dirs; the first judged by a lenient judge (cached)."""
    first, second = copied_runs(sim, tiny_pack_path, tmp_path)
    execute_judge(first, config=config(), backend=judge(LENIENT))
    return first, second


def _files(run: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(run.iterdir()) if p.is_file()}


def test_a_changed_judge_behind_the_same_name_warns_and_the_run_keeps_the_cache(
    two_runs: tuple[Path, Path],
) -> None:
    _, second = two_runs
    changed = judge(STRICT)
    events: list[dict[str, object]] = []
    outcome = execute_judge(
        second,
        config=config(),
        backend=changed,
        on_event=lambda kind, data: events.append({"event": kind, **data}),
    )
    (warning,) = [w for w in outcome.run_dir.warnings if "Der Judge antwortet anders" in w]
    assert DATE.search(warning)
    assert "3 von 3 erneut gefragten Zellen weichen um mindestens 2 Punkte" in warning
    assert "1 statt 5" in warning
    assert "`touchstone cache clear`" in warning and "--no-cache" in warning
    # Three cells asked again, then only the holistic pass (one call per variant): the
    # cells come from the cache.
    assert len(changed.history) == 3 + 2
    assert all(v.cached and v.score == 5 for v in run_cells(RunDir(second)).cells)
    assert outcome.health.calls == 3 + 2
    (drift,) = [e for e in events if e["event"] == "drift"]
    assert drift["drifted"] is True and drift["compared"] == 3


def test_on_drift_stop_ends_the_run_before_judging_and_touches_nothing(
    two_runs: tuple[Path, Path],
) -> None:
    _, second = two_runs
    before = _files(second)
    changed = judge(STRICT)
    with pytest.raises(JudgeAborted) as stopped:
        execute_judge(second, config=config(on_drift="stop"), backend=changed)
    assert DATE.search(str(stopped.value))
    assert "on_drift: stop" in str(stopped.value) and "nichts wurde geändert" in str(stopped.value)
    assert len(changed.history) == 3
    assert _files(second) == before


def test_the_same_judge_passes_the_recheck_and_no_cache_skips_it(
    two_runs: tuple[Path, Path], tmp_path: Path
) -> None:
    _, second = two_runs
    third = tmp_path / "c"
    shutil.copytree(second, third)
    same = judge(LENIENT)
    outcome = execute_judge(second, config=config(on_drift="stop"), backend=same)
    assert not [w for w in outcome.run_dir.warnings if "Judge antwortet" in w]
    assert len(same.history) == 3 + 2
    # Without the cache nothing is served from it: nothing to check.
    fresh = judge(STRICT)
    execute_judge(third, config=config(on_drift="stop"), backend=fresh, use_cache=False)
    assert len(fresh.history) == 6 + 2


def test_one_cell_off_is_no_drift_and_small_moves_are_none(two_runs: tuple[Path, Path]) -> None:
    _, second = two_runs
    # One of three re-asked cells off by 4, another by 1: not drift.
    wobbly = judge(LENIENT, script=[STRICT, '{"score": 4, "red_flag": false, "rationale": "gut"}'])
    outcome = execute_judge(second, config=config(on_drift="stop"), backend=wobbly)
    assert not [w for w in outcome.run_dir.warnings if "Judge antwortet" in w]


def test_two_of_three_cells_off_is_drift(two_runs: tuple[Path, Path]) -> None:
    _, second = two_runs
    # The bound: two of the three re-asked cells off by 2 points or more.
    two_off = judge(LENIENT, script=[STRICT, '{"score": 3, "red_flag": false, "rationale": "ok"}'])
    outcome = execute_judge(second, config=config(), backend=two_off)
    (warning,) = [w for w in outcome.run_dir.warnings if "Der Judge antwortet anders" in w]
    assert "2 von 3 erneut gefragten Zellen weichen um mindestens 2 Punkte" in warning


def test_the_recheck_runs_under_the_judge_guard(two_runs: tuple[Path, Path]) -> None:
    _, second = two_runs
    before = _files(second)
    dead = judge(LENIENT, script=[timeout_error(), timeout_error(), timeout_error()])
    with pytest.raises(JudgeAborted):
        execute_judge(second, config=config(max_consecutive_failures=2), backend=dead)
    assert len(dead.history) == 2
    assert _files(second) == before


def test_judge_check_compares_its_probes_with_the_last_check_of_the_same_judge(
    tiny_pack: Pack, private_verdict_cache: Path
) -> None:
    first = execute_judge_check(tiny_pack, config=config(), backend=judge(LENIENT))
    assert not [n for n in first.notes if "Judge antwortet" in n]
    stored = list((private_verdict_cache / PROBES_DIR).iterdir())
    assert len(stored) == 1
    again = execute_judge_check(tiny_pack, config=config(), backend=judge(LENIENT))
    assert again.notes[0].startswith("Der Judge antwortet wie am ")
    changed = execute_judge_check(tiny_pack, config=config(), backend=judge(STRICT))
    note = changed.notes[0]
    assert (
        DATE.search(note) and "Proben anders bewertet" in note and "1 statt 5, Warnsignal" in note
    )
    assert changed.as_dict()["notes"][0] == note
    # Another judge identity has its own record: nothing to compare with.
    other = execute_judge_check(
        tiny_pack,
        config=config(temperature=0.5),
        backend=FakeJudge(default=STRICT, model="llama3.1:8b"),
    )
    assert not [n for n in other.notes if "Judge antwortet" in n]


def test_a_damaged_probe_record_is_a_note_and_written_anew(
    tiny_pack: Pack, private_verdict_cache: Path
) -> None:
    path = probe_file(json.dumps({"model": "qwen3:8b"}, separators=(",", ":")))
    path.parent.mkdir(parents=True)
    path.write_text('{"format": 1, "probes": {"k": {"score": "fünf"}}', encoding="utf-8")
    card = execute_judge_check(tiny_pack, config=config(), backend=judge(LENIENT))
    assert any("unlesbar" in n for n in card.notes)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format"] == 1 and data["probes"]


def test_the_threshold_grows_with_wide_scales_and_the_message_reads_german() -> None:
    from touchstone.pack import Scale

    assert off_by(Scale(min=1, max=5)) == 2 and off_by(Scale(min=0, max=100)) == 20
    quiet = Drift("cells", 3, ("R1 · m · none · Wdh. 1: 1 statt 5",), 1_764_547_200.0, "j", 2)
    assert not quiet.drifted
    assert quiet.message_de().startswith("Der Judge antwortet wie am ")
    assert "2 von 3 erneut gefragte Zellen gleich" in quiet.message_de()


def test_the_terminal_card_and_the_gui_job_show_the_drift(tiny_pack: Pack) -> None:
    from rich.console import Console

    from touchstone.gui.job_notice import for_browser
    from touchstone.gui.job_state import clean_card, job_progress
    from touchstone.scorecard.fitness import render_fitness_card

    execute_judge_check(tiny_pack, config=config(), backend=judge(LENIENT))
    card = execute_judge_check(tiny_pack, config=config(), backend=judge(STRICT))
    console = Console(width=80, record=True, color_system=None)
    console.print(render_fitness_card(card))
    assert "Der Judge antwortet anders als am" in " ".join(console.export_text().split())
    assert clean_card(card.as_dict())["notes"][0] == card.notes[0]  # type: ignore[index]
    drift = Drift("cells", 3, ("a: 1 statt 5", "b: 1 statt 5"), 1_764_547_200.0, "j", 2)
    progress = job_progress([{"event": "drift", **drift.as_dict()}])
    shown = progress["drift"]
    assert shown.startswith("Der Judge antwortet anders als am ")
    # The page offers its own way, not a command line.
    assert "„Bewerten: alle neu“" in shown and "touchstone" not in shown and "--" not in shown
    aborted = {
        "event": "aborted",
        "ending": "judge_stopped",
        "cause": "drift",
        "drift_message": drift.message_de(stopped=True, surface="gui"),
    }
    record = {"state": "failed", "command": ["touchstone", "judge"], "message": "x"}
    stopped = for_browser(record, job_progress([aborted]))["notice"]
    assert "on_drift: stop" in stopped and "„Bewerten: alle neu“" in stopped
    assert "touchstone" not in stopped


def _tamper_cache(cache_dir: Path, judge_model: str) -> None:
    """As if ``judge_model`` had once answered otherwise: every cached score moved by 3."""
    import sqlite3

    db = sqlite3.connect(cache_dir / "verdicts.sqlite3")
    with db:
        db.execute(
            "UPDATE verdicts SET score = CASE WHEN score >= 3 THEN score - 3 ELSE score + 3 END "
            "WHERE judge_model = ?",
            (judge_model,),
        )
    db.close()


def test_a_jury_member_served_from_the_cache_is_rechecked_too(
    sim: SimServer, tiny_pack_path: Path, tmp_path: Path, private_verdict_cache: Path
) -> None:
    from touchstone.jury.config import JuryConfig

    def member(model: str, **extra: object) -> JudgeConfig:
        return JudgeConfig(JudgeEndpoint(sim.base_url), model, **extra)  # type: ignore[arg-type]

    first = tmp_path / "a"
    run_on_sim(sim, pack_path=tiny_pack_path, models=["sim-gut", "sim-schwach"], out=first)
    second, third = tmp_path / "b", tmp_path / "c"
    shutil.copytree(first, second)
    shutil.copytree(first, third)
    execute_judge(first, config=JuryConfig([member("sim-judge"), member("sim-strict")]))
    _tamper_cache(private_verdict_cache, "sim-judge")
    # warn: the jury goes on, from the cache, and says which member answers otherwise.
    events: list[dict[str, object]] = []
    outcome = execute_judge(
        second,
        config=JuryConfig([member("sim-judge"), member("sim-strict")]),
        on_event=lambda kind, data: events.append({"event": kind, **data}),
    )
    (warning,) = [w for w in outcome.run_dir.warnings if "Der Judge antwortet anders" in w]
    assert "„sim-judge“" in warning and "`touchstone cache clear`" in warning
    assert [e["drifted"] for e in events if e["event"] == "drift"] == [True]
    # stop: that member is dropped like a member whose guard tripped; the others go on.
    jury = JuryConfig(
        [member("sim-judge", on_drift="stop"), member("sim-strict"), member("sim-gullible")],
        quorum=2,
    )
    outcome = execute_judge(third, config=jury)
    (dropped,) = [line for line in outcome.jury_lines if "ausgeschieden" in line]
    assert "Judge sim-judge ausgeschieden: Der Judge antwortet anders als am" in dropped
