"""Verdicts you can trust (design.md §11): each test is one defect of issue 11, numbered as there.

Here the tests through touchstone's CLI in a subprocess; the in-process ones are in
``tests/unit/judge/test_trust.py``."""

import json
import sqlite3
from pathlib import Path
from subprocess import CompletedProcess

import pytest

from tests.cli.test_cli import assert_clean_failure, judge_config
from tests.conftest import TINY_PACK, copied_runs, run_cli, run_on_sim
from touchstone.judge.config import JudgeConfig, JudgeEndpoint
from touchstone.jury.verdicts import run_cells
from touchstone.sim import SimServer
from touchstone.stages.judge.judge import execute_judge
from touchstone.store import JUDGEMENTS, REPORTS, RunDir
from touchstone.store.verdict_cache import CACHE_FILE


@pytest.fixture
def two_runs(sim: SimServer, tiny_pack_path: Path, tmp_path: Path) -> tuple[Path, Path]:
    return copied_runs(sim, tiny_pack_path, tmp_path)


def test_cache_stats_and_clear_older_than(
    sim: SimServer, two_runs: tuple[Path, Path], private_verdict_cache: Path, tmp_path: Path
) -> None:
    first, _ = two_runs
    execute_judge(first, config=JudgeConfig(JudgeEndpoint(sim.base_url), "sim-judge"))
    with sqlite3.connect(private_verdict_cache / CACHE_FILE) as db:
        db.execute(
            "UPDATE verdicts SET created_at = created_at - 40 * 86400 "
            "WHERE key IN (SELECT key FROM verdicts ORDER BY key LIMIT 2)"
        )
    result = run_cli("cache", "stats", cwd=tmp_path)
    assert_clean_failure(result, 0)
    assert "6 Einträge" in result.stdout and "sim-judge" in result.stdout
    result = run_cli("cache", "clear", "--older-than", "30", cwd=tmp_path)
    assert_clean_failure(result, 0)
    assert "2 Einträge gelöscht" in result.stdout
    assert "4 Einträge" in run_cli("cache", "stats", cwd=tmp_path).stdout
    result = run_cli("cache", "clear", cwd=tmp_path)
    assert "4 Einträge gelöscht" in result.stdout
    result = run_cli("cache", "clear", "--older-than", "-3", cwd=tmp_path)
    assert_clean_failure(result, 2)


@pytest.fixture
def thrice(sim: SimServer, tiny_pack_path: Path, tmp_path: Path) -> Path:
    """72 answered cells in ``tmp_path/run``: 4 models x 3 prompts x 2 variants x 3 repeats."""
    run = tmp_path / "run"
    models = ["sim-gut", "sim-mittel", "sim-schwach", "sim-denker"]
    run_on_sim(sim, pack_path=tiny_pack_path, models=models, repeats=3, out=run)
    return run


def judge_by(run: Path, sim: SimServer, model: str, cwd: Path) -> CompletedProcess[str]:
    """``touchstone judge RUN`` with a config of the simulator's ``model`` in ``cwd``."""
    config = judge_config(cwd / f"{model}.yaml", sim, model)
    return run_cli("judge", str(run), "--config", str(config), cwd=cwd)


def test_prose_judge_stops_after_twenty_calls_with_a_message_that_says_so(
    sim: SimServer, thrice: Path, tmp_path: Path
) -> None:
    run = thrice
    before = sim.calls.get("sim-garbage", 0)
    result = judge_by(run, sim, "sim-garbage", tmp_path)
    assert_clean_failure(result, 1)
    assert "Judge abgebrochen:" in result.stderr and "JSON" in result.stderr
    assert "20 von 20" in result.stderr
    assert sim.calls["sim-garbage"] - before == 20
    # The advice counts what the run dir holds now: unreadable cells, and the rest open.
    unreadable = sum(v.unscored_reason == "unparseable" for v in run_cells(RunDir(run)).cells)
    assert unreadable >= 20
    assert f"--rejudge unscored` bewertet die {unreadable} Zellen" in result.stderr
    assert f"bewertet die {72 - unreadable} offenen Zellen" in result.stderr


def test_rejudge_all_with_a_prose_judge_keeps_every_good_verdict(
    sim: SimServer, two_runs: tuple[Path, Path], tmp_path: Path
) -> None:
    run, _ = two_runs
    good = judge_config(tmp_path / "good.yaml", sim, "sim-judge")
    assert run_cli("judge", str(run), "--config", str(good), cwd=tmp_path).returncode == 0
    before = (run / JUDGEMENTS).read_text(encoding="utf-8")
    reports_before = (run / REPORTS).read_text(encoding="utf-8")
    prose = judge_config(tmp_path / "prose.yaml", sim, "sim-garbage", max_failure_ratio=0)
    result = run_cli("judge", str(run), "--config", str(prose), "--rejudge", "all", cwd=tmp_path)
    assert_clean_failure(result, 0)
    verdicts = run_cells(RunDir(run)).cells
    assert len(verdicts) == 6 and not any(v.unscored for v in verdicts)
    assert {v.judge_model for v in verdicts} == {"sim-judge"}
    assert "6 bisherige Bewertungen behalten" in result.stdout
    assert json.loads(reports_before) == json.loads((run / REPORTS).read_text(encoding="utf-8"))
    assert len(before.splitlines()) == 6


def test_an_aborted_rejudge_keeps_every_verdict_and_says_none_is_open(
    sim: SimServer, thrice: Path, tmp_path: Path
) -> None:
    run = thrice
    good = judge_config(tmp_path / "good.yaml", sim, "sim-judge")
    assert run_cli("judge", str(run), "--config", str(good), cwd=tmp_path).returncode == 0
    cells = len(run_cells(RunDir(run)).cells)
    events = tmp_path / "events.jsonl"
    prose = judge_config(tmp_path / "prose.yaml", sim, "sim-garbage")
    result = run_cli(
        "judge",
        str(run),
        "--config",
        str(prose),
        "--rejudge",
        "all",
        "--events",
        str(events),
        cwd=tmp_path,
    )
    assert_clean_failure(result, 1)
    assert "20 von 20" in result.stderr
    assert f"{cells} bisherige Bewertungen behalten" in result.stderr
    assert "offen für einen späteren Durchgang: 0." in result.stderr
    # No cell is unreadable or open: advice about such cells points at nothing.
    assert "unlesbaren Zellen" not in result.stderr and "offenen Zellen" not in result.stderr
    stage_end = [json.loads(line) for line in events.read_text(encoding="utf-8").splitlines()]
    aborted = next(e for e in stage_end if e["event"] == "aborted" and "health" in e)
    assert aborted["health"]["cells_left"] == 0 and aborted["kept"] == cells
    assert len(run_cells(RunDir(run)).cells) == cells


def test_changed_rubric_rejudges_exactly_its_cells_and_says_how_many(
    tiny_pack_path: Path, tmp_path: Path
) -> None:
    with SimServer() as sim:  # its own: the history of the shared one is capped
        changed_rubric_scenario(sim, tiny_pack_path, tmp_path)


def changed_rubric_scenario(sim: SimServer, tiny_pack_path: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    run_on_sim(sim, pack_path=tiny_pack_path, models=["sim-gut", "sim-schwach"], out=run)
    config = judge_config(tmp_path / "j.yaml", sim, "sim-judge")
    assert run_cli("judge", str(run), "--config", str(config), cwd=tmp_path).returncode == 0
    tiny_pack_path.write_text(
        TINY_PACK.replace('expectations: ["19 €"]', 'expectations: ["19 €", "Rechenweg"]'),
        encoding="utf-8",
    )
    seen = len(sim.history)
    result = run_cli("judge", str(run), "--config", str(config), cwd=tmp_path)
    assert_clean_failure(result, 0)
    # R1 in 2 models x 2 variants changed: exactly those 4 cells are judged again.
    asked = [h["messages"][-1]["content"] for h in sim.history[seen:]]
    per_answer = [user for user in asked if "Dimension-IDs" not in user]
    assert len(per_answer) == 4 and all("Aufgabe R1 " in user for user in per_answer)
    assert "4 Bewertungen veraltet" in result.stdout
    again = sim.calls["sim-judge"]
    assert run_cli("judge", str(run), "--config", str(config), cwd=tmp_path).returncode == 0
    assert sim.calls["sim-judge"] == again  # nothing stale, nothing new: no call at all


def test_a_401_in_the_holistic_pass_stops_the_judge(
    sim: SimServer, two_runs: tuple[Path, Path], tmp_path: Path
) -> None:
    run, _ = two_runs
    assert judge_by(run, sim, "sim-judge", tmp_path).returncode == 0
    (run / REPORTS).unlink()  # the holistic pass is all that is left
    result = judge_by(run, sim, "sim-401", tmp_path)
    assert_clean_failure(result, 1)
    assert "Judge abgebrochen:" in result.stderr and "401" in result.stderr


def test_a_verdict_off_the_scale_is_bad_input_naming_file_line_and_key(
    sim: SimServer, two_runs: tuple[Path, Path], tmp_path: Path
) -> None:
    run, _ = two_runs
    config = judge_config(tmp_path / "j.yaml", sim, "sim-judge")
    execute_judge(run, config=config)
    path = run / JUDGEMENTS
    lines = path.read_text(encoding="utf-8").splitlines()
    tampered = json.loads(lines[2])
    tampered["score"] = 9
    lines[2] = json.dumps(tampered)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    before = path.read_bytes()
    for args in (
        ["report", str(run)],
        ["judge", str(run), "--config", str(config)],
    ):
        result = run_cli(*args, cwd=tmp_path)
        assert_clean_failure(result, 2)
        assert f"{path}, Zeile 3" in result.stderr and "„score“" in result.stderr
    assert path.read_bytes() == before


def test_a_verdict_without_an_answer_is_left_out_with_a_warning(
    sim: SimServer, tiny_pack_path: Path, tmp_path: Path
) -> None:
    """A hand edit, or answers restored from a backup: a verdict whose cell has no answer in
    responses.jsonl says nothing about an answer the run has and must not count."""
    out = tmp_path / "run"
    run_on_sim(sim, pack_path=tiny_pack_path, models=["sim-gut"], variants=["none"], out=out)
    config = judge_config(tmp_path / "j.yaml", sim, "sim-judge")
    judged = execute_judge(out, config=config).card.rows[0].scored
    path = out / JUDGEMENTS
    orphan = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    orphan.update(repeat=7, score=0)
    path.write_text(path.read_text(encoding="utf-8") + json.dumps(orphan) + "\n", "utf-8")
    from touchstone.stages.view import load_run

    view = load_run(out)
    assert view.scorecard().rows[0].scored == judged
    assert any("ohne Antwort" in w and "Wdh. 7" in w for w in view.run_dir.warnings)
    again = execute_judge(out, config=config)
    assert again.card.rows[0].scored == judged
    assert any("ohne Antwort" in w for w in again.run_dir.warnings)
    report = run_cli("report", str(out), cwd=tmp_path)
    assert_clean_failure(report, 0)
    assert "ohne Antwort" in report.stderr and str(path) in report.stderr
