"""The GUI's run page says what the last judge-check found of the run's judge, above the
ranking, as the terminal and report.html do (issue 37 §3); a check made while the GUI runs
is on the next page."""

from __future__ import annotations

import html
from pathlib import Path

from tests.gui.gui_support import gui_client, job_manager, make_workspace
from touchstone.judge.config import JudgeConfig, JudgeEndpoint
from touchstone.sim import SimServer
from touchstone.stages.judge.judge import execute_judge
from touchstone.stages.judge_check import check_pack, execute_judge_check

LINE = 'data-testid="judge-fitness"'


def config(sim: SimServer, model: str) -> JudgeConfig:
    return JudgeConfig(JudgeEndpoint(sim.base_url), model, call_timeout_s=10)


def said(page: str) -> list[str]:
    """The text of each fitness line on ``page``, tags left out."""
    parts = html.unescape(page).split(LINE)[1:]
    return [
        p.split(">", 1)[1].split("</p>", 1)[0].replace("<code>", "").replace("</code>", "")
        for p in parts
    ]


def test_the_run_page_marks_an_unfit_judge_and_shows_a_later_check(
    tmp_path: Path, sim: SimServer
) -> None:
    root = make_workspace(tmp_path, sim)
    run = root / "runs" / "tiny"
    good = config(sim, "sim-judge")
    execute_judge(run, config=good)
    with gui_client(root, jobs=job_manager(root, {"PATH": ""})) as client:
        (unchecked,) = said(client.get("/runs/tiny").text)
        assert unchecked.startswith("Judge nicht geprüft") and "„Judge prüfen“" in unchecked
        execute_judge_check(check_pack(None, run), config=good)
        (checked,) = said(client.get("/runs/tiny").text)
        assert checked.startswith("Judge-Check: geeignet (geprüft am ")
        gullible = config(sim, "sim-gullible")
        execute_judge_check(check_pack(None, run), config=gullible)
        execute_judge(run, config=gullible, rejudge="all")
        page = client.get("/runs/tiny").text
    (unfit,) = said(page)
    assert unfit.startswith("Judge-Check: ungeeignet (")
    assert unfit.endswith("– diese Wertungen sind nicht belastbar.")
    assert page.index(LINE) < page.index("<h2>Rangliste</h2>")
