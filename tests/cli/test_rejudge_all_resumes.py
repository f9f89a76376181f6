"""An interrupted ``judge --rejudge all`` resumes from the CLI (issue 36), as the GUI's
"Fortsetzen" replays it: the stop says how, and the next ``--rejudge all`` says it continues
and asks only the cells it had not reached. The in-process part:
``tests/unit/stages/test_rejudge_all_resumes.py``."""

import re
from pathlib import Path

from tests.cli.test_cli import judge_config
from tests.conftest import run_cli
from touchstone.sim import SimServer
from touchstone.stages.judge.judge import execute_judge
from touchstone.stages.preview.preview import preview_judge
from touchstone.store.rejudge import REJUDGE


def test_a_rejudge_stopped_by_its_budget_is_continued_by_the_same_command(
    sim: SimServer, answered_run: Path, tmp_path: Path
) -> None:
    execute_judge(answered_run, config=judge_config(tmp_path / "erst.yaml", sim, "sim-judge"))
    price = {"input": 1000, "output": 1000}
    capped = judge_config(
        tmp_path / "judge.yaml", sim, "sim-judge", max_tokens=100, price_per_million=price
    )
    command = ["judge", str(answered_run), "--config", str(capped), "--rejudge", "all"]
    text = capped.read_text(encoding="utf-8")
    capped.write_text(text + "budget: 2\n", encoding="utf-8")
    stopped = run_cli(*command, cwd=tmp_path)
    assert stopped.returncode == 1, stopped.stderr
    said = " ".join(stopped.stderr.split())
    assert "derselbe Befehl mit --rejudge all und demselben Judge setzt sie fort" in said
    left = int(re.search(r"unterbrochen, (\d+) Zellen noch nicht neu bewertet", said)[1])
    assert 0 < left < 12 and (answered_run / REJUDGE).is_file()
    # The dry run of the same command counts only the cells left, and writes nothing.
    marker = (answered_run / REJUDGE).read_bytes()
    preview = preview_judge(answered_run, config=capped, rejudge="all")
    assert preview.calls - preview.holistic == left
    assert (answered_run / REJUDGE).read_bytes() == marker

    capped.write_text(text, encoding="utf-8")  # the budget raised: the same judge
    calls = sim.calls.get("sim-judge", 0)
    again = run_cli(*command, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert f"Setzt die unterbrochene Neubewertung fort: {left} von 12 Zellen offen" in " ".join(
        again.stderr.split()
    )
    holistic = 4  # one per (model, variant)
    assert sim.calls.get("sim-judge", 0) - calls == left + holistic
    assert not (answered_run / REJUDGE).exists()
