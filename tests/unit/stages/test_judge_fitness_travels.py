"""An unfit judge is marked wherever its verdicts appear (issue 37 §3, design.md §14).

judge-check stores its verdict per judge identity in the user cache dir; a judge run with
the same judge records it in the run dir, and the scorecard (terminal, report.html,
scorecard.json) says it in its first lines. Against the simulator's judges of known
character: ``sim-gullible`` is unfit, ``sim-judge`` fit.
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from rich.console import Console

from tests.conftest import run_on_sim
from touchstone.errors import JudgeAborted
from touchstone.judge.backend import judge_identity
from touchstone.judge.config import JudgeConfig, JudgeEndpoint
from touchstone.jury.config import JuryConfig
from touchstone.scorecard.terminal import render_run_scorecard
from touchstone.sim import SimServer
from touchstone.stages.judge.judge import execute_judge
from touchstone.stages.judge_check import check_pack, execute_judge_check
from touchstone.stages.jury.member_check import execute_jury_check
from touchstone.stages.view import load_run, write_report
from touchstone.store import SCORECARD_JSON

UNFIT_LINE = "diese Wertungen sind nicht belastbar"


def config(sim: SimServer, model: str, **extra: object) -> JudgeConfig:
    return JudgeConfig(JudgeEndpoint(sim.base_url), model, call_timeout_s=10, **extra)  # type: ignore[arg-type]


@pytest.fixture
def run(sim: SimServer, tiny_pack_path: Path, tmp_path: Path) -> Path:
    out = tmp_path / "run"
    run_on_sim(sim, pack_path=tiny_pack_path, models=["sim-gut"], out=out)
    return out


def terminal(run: Path) -> str:
    view = load_run(run)
    console = Console(file=io.StringIO(), width=80, color_system=None)
    console.print(render_run_scorecard(view.pack, view.scorecard()))
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert isinstance(text, str)
    return text


def scorecard(run: Path) -> dict[str, object]:
    data = json.loads((run / SCORECARD_JSON).read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def report(run: Path) -> str:
    view = load_run(run)
    return write_report(view, view.scorecard()).read_text(encoding="utf-8")


def test_a_judge_found_unfit_is_marked_in_scorecard_terminal_and_report(
    sim: SimServer, run: Path
) -> None:
    gullible = config(sim, "sim-gullible")
    card = execute_judge_check(check_pack(None, run), config=gullible)
    assert not card.suitable
    events: list[tuple[str, dict[str, object]]] = []
    execute_judge(run, config=gullible, on_event=lambda k, d: events.append((k, d)))
    fitness = scorecard(run)["judge_fitness"]
    assert isinstance(fitness, dict)
    assert fitness["verdict"] == "ungeeignet"
    assert isinstance(fitness["checked_at"], str) and "T" in fitness["checked_at"]
    assert "counterexamples_low" in fitness["missed"]
    # Said before the first call: the event comes before the judge run's start.
    kinds = [kind for kind, _ in events]
    assert "judge_fitness" in kinds and kinds.index("judge_fitness") < kinds.index("start")
    text = terminal(run)
    first = " ".join(text.split("Scorecard")[0].split())
    assert "Judge-Check: ungeeignet (" in first and UNFIT_LINE in first
    assert "Gegenbeispiele niedrig" in first and " am " in first
    html = report(run)
    assert "Judge-Check: ungeeignet (" in html and UNFIT_LINE in html
    assert html.index(UNFIT_LINE) < html.index("<h2>Scorecard</h2>")


def test_an_unchecked_judge_says_so_with_the_command_that_checks_it(
    sim: SimServer, run: Path
) -> None:
    execute_judge(run, config=config(sim, "sim-judge"))
    fitness = scorecard(run)["judge_fitness"]
    assert fitness == {"verdict": None, "checked_at": None, "missed": []}
    text = " ".join(terminal(run).split())
    assert "Judge nicht geprüft" in text and "touchstone judge-check" in text
    assert "Judge nicht geprüft" in report(run)


def test_a_later_check_is_what_the_next_report_shows_and_the_run_dir_keeps_it(
    sim: SimServer, run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = config(sim, "sim-judge")
    execute_judge(run, config=good)
    assert "Judge nicht geprüft" in report(run)
    execute_judge_check(check_pack(None, run), config=good)
    html = report(run)
    assert "Judge-Check: geeignet" in html and "Judge nicht geprüft" not in html
    assert scorecard(run)["judge_fitness"]["verdict"] == "geeignet"  # type: ignore[index]
    # The next judge run records it in the run dir: another machine (no user cache) shows it.
    execute_judge(run, config=good)
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(run, elsewhere)
    monkeypatch.setenv("TOUCHSTONE_CACHE_DIR", str(tmp_path / "other-cache"))
    assert "Judge-Check: geeignet" in report(elsewhere)


def _files(run: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(run.iterdir()) if p.is_file()}


def test_on_unfit_stop_ends_the_judge_run_before_any_call_and_writes_nothing(
    sim: SimServer, run: Path
) -> None:
    gullible = config(sim, "sim-gullible", on_unfit="stop")
    execute_judge_check(check_pack(None, run), config=gullible)
    before, calls = _files(run), sim.calls.get("sim-gullible", 0)
    with pytest.raises(JudgeAborted) as stopped:
        execute_judge(run, config=gullible)
    assert "on_unfit: stop" in str(stopped.value) and "ungeeignet" in str(stopped.value)
    assert sim.calls.get("sim-gullible", 0) == calls
    assert _files(run) == before


def test_judge_check_and_judge_name_the_same_identity_for_the_same_config(
    sim: SimServer,
) -> None:
    for extra in ({}, {"schema": "off"}, {"schema": "on"}, {"thinking": "off", "server": "vllm"}):
        judge = config(sim, "sim-judge", max_tokens=300, **extra)
        assert judge.identity() == judge_identity(judge.backend())
        assert judge.identity("other") == judge_identity(judge.backend("other"))


def test_each_jury_member_carries_its_own_fitness(sim: SimServer, run: Path) -> None:
    jury = JuryConfig(judges=[config(sim, "sim-judge"), config(sim, "sim-gullible")])
    fitness = execute_jury_check(check_pack(None, run), jury)
    assert [card.suitable for card in fitness.cards] == [True, False]
    execute_judge(run, config=jury)
    members = scorecard(run)["jury"]["members"]  # type: ignore[index]
    by_model = {m["model"]: m["judge_fitness"]["verdict"] for m in members}
    assert by_model == {"sim-judge": "geeignet", "sim-gullible": "ungeeignet"}
    text = " ".join(terminal(run).split())
    assert "Judge-Check sim-gullible: ungeeignet (" in text
    assert "Judge-Check sim-judge: geeignet" in text
