"""``judge-check`` (design.md §14, issue 15): each probe kind, each criterion, each verdict.

Here the tests through touchstone's CLI in a subprocess; the in-process ones are in
``tests/unit/quality/test_judge_check.py``."""

import json
from pathlib import Path

import pytest

from tests.cli.test_cli import assert_clean_failure, judge_config
from tests.conftest import coarse, run_cli, run_on_sim, stage_seconds
from tests.unit.quality.test_judge_check import BUERO
from touchstone.sim import SimServer


def test_the_simulated_good_judge_passes(sim: SimServer, tmp_path: Path) -> None:
    config = judge_config(tmp_path / "j.yaml", sim, "sim-judge")
    before = sim.calls.get("sim-judge", 0)
    result = run_cli("judge-check", "--pack", str(BUERO), "--config", str(config), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Urteil: geeignet" in result.stdout and "✗" not in result.stdout
    # The verdict line on stderr, as for an unfit judge (README).
    assert result.stderr.strip().splitlines()[-1] == "Judge-Check: geeignet"
    assert sim.calls["sim-judge"] - before == 18


@pytest.mark.parametrize(
    ("judge", "reasons"),
    [
        ("sim-gullible", ["Gegenbeispiele niedrig", "Nicht-Antworten unten", "Anweisungen"]),
        ("sim-constant", ["Referenzantworten oben", "Nicht-Antworten unten"]),
    ],
)
def test_gullible_and_constant_judges_are_unfit(
    sim: SimServer, tmp_path: Path, judge: str, reasons: list[str]
) -> None:
    config = judge_config(tmp_path / "j.yaml", sim, judge)
    result = run_cli("judge-check", "--pack", str(BUERO), "--config", str(config), cwd=tmp_path)
    assert_clean_failure(result, 1)
    assert "Urteil: ungeeignet" in result.stdout
    assert "Judge-Check: ungeeignet:" in result.stderr
    for reason in reasons:
        assert reason in result.stderr


@pytest.mark.parametrize("runaway", ["sim-hang", "sim-think-endless"])
def test_a_runaway_judge_fails_the_check_within_the_guard_bound(
    sim: SimServer, tmp_path: Path, runaway: str
) -> None:
    config = judge_config(tmp_path / "j.yaml", sim, runaway, call_timeout_s=0.5)
    events = tmp_path / "events.jsonl"
    result = run_cli(
        "judge-check",
        "--pack",
        str(BUERO),
        "--config",
        str(config),
        "--events",
        str(events),
        cwd=tmp_path,
    )
    assert_clean_failure(result, 1)
    assert "Judge abgebrochen" in result.stderr and "3 Judge-Aufrufe in Folge" in result.stderr
    assert "touchstone judge`" not in result.stderr  # nothing to resume after a check
    lines = [json.loads(line) for line in events.read_text(encoding="utf-8").splitlines()]
    done = next(e for e in lines if e["event"] == "done")
    assert done["suitable"] is False and done["card"]["reasons"][0].startswith("Judge abgebrochen")
    # k = 3 calls of T = 0.5 s, timed from the check's own events: interpreter start and SDK
    # imports are not the guard's, and on a busy machine they alone take several seconds.
    assert stage_seconds(events) < coarse(3 * 0.5)


def test_a_judge_it_cannot_reach_is_not_assessed_not_unfit(sim: SimServer, tmp_path: Path) -> None:
    config = judge_config(tmp_path / "j.yaml", sim, "sim-judgee")
    result = run_cli("judge-check", "--pack", str(BUERO), "--config", str(config), cwd=tmp_path)
    assert_clean_failure(result, 1)
    assert "Judge-Check: nicht beurteilbar: der Judge war nicht erreichbar" in result.stderr
    assert "Meinten Sie „sim-judge“" in result.stderr and "ungeeignet" not in result.stderr
    assert "Verfehlte Proben" not in result.stdout


def test_the_check_takes_the_pack_of_a_run(
    sim: SimServer, tmp_path: Path, tiny_pack_path: Path
) -> None:

    run = tmp_path / "runs" / "r"
    run_on_sim(sim, pack_path=tiny_pack_path, models=["sim-gut"], out=run)
    config = judge_config(tmp_path / "j.yaml", sim, "sim-judge")
    before = {p.name: p.stat().st_mtime_ns for p in run.iterdir()}
    result = run_cli("judge-check", str(run), "--config", str(config), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Paket tiny" in result.stdout and "Urteil: geeignet" in result.stdout
    assert {p.name: p.stat().st_mtime_ns for p in run.iterdir()} == before


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["RUN", "--pack", str(BUERO)],
        ["--pack", "fehlt.yaml"],
        ["--pack", str(BUERO), "--config", "fehlt.yaml"],
    ],
)
def test_bad_input_is_exit_2_with_a_message(tmp_path: Path, args: list[str]) -> None:
    (tmp_path / "RUN").mkdir()
    result = run_cli("judge-check", *args, cwd=tmp_path)
    assert_clean_failure(result, 2)
    assert "Fehler:" in result.stderr


def test_a_counterexample_needs_a_red_flag(tmp_path: Path, tiny_pack_path: Path) -> None:
    text = tiny_pack_path.read_text(encoding="utf-8").replace(
        '        expectations: ["14 €"]\n',
        '        expectations: ["14 €"]\n        counterexample: "16 €"\n',
    )
    tiny_pack_path.write_text(text, encoding="utf-8")
    result = run_cli("judge-check", "--pack", str(tiny_pack_path), cwd=tmp_path)
    assert_clean_failure(result, 2)
    assert "counterexample" in result.stderr and "red_flags" in result.stderr
