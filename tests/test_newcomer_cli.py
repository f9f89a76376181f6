"""What a newcomer meets on the command line (issue 23, DESIGN §22): report before judge, the
legend of what is shown, the judge's cache, the compare table's size."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from touchstone.errors import InputError
from touchstone.scorecard.terminal import legend, render_run_scorecard
from touchstone.sim import SimServer
from touchstone.stages import execute_judge, load_run, write_report

from .conftest import FakeJudge, run_cli
from .test_cache import config


def test_report_before_judge_is_exit_2_naming_the_next_step(answered_run: Path) -> None:
    view = load_run(answered_run)
    with pytest.raises(InputError) as caught:
        write_report(view, view.scorecard())
    said = str(caught.value)
    assert "Noch keine Bewertungen – zuerst `touchstone judge" in said, said
    assert str(answered_run) in said
    # Nothing written: an all-"–" report would look like one of a judged run.
    assert not (answered_run / "report.html").exists()
    assert not (answered_run / "scorecard.json").exists()
    done = run_cli("report", str(answered_run), cwd=answered_run.parent)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Noch keine Bewertungen" in done.stderr and "Scorecard" not in done.stdout
    assert "Traceback" not in done.stderr


def test_the_legend_names_only_the_category_columns_shown(
    answered_run: Path, sim: SimServer
) -> None:
    view = load_run(answered_run)
    titles = {c.id: c.title for c in view.pack.categories}
    # Judged: the categories have means, and their column ids are explained.
    execute_judge(answered_run, config=config(sim), backend=FakeJudge())
    judged = load_run(answered_run).scorecard()
    assert "Kategorien: R = Rechnen, S = Sicherheit" in legend(judged, titles)
    # A narrow terminal wraps between entries, never inside "S = Sicherheit".
    # At 30 columns word wrapping would give "… Rechnen, S =" and "Sicherheit".
    console = Console(width=30, file=io.StringIO())
    console.print(render_run_scorecard(view.pack, judged))
    lines = console.file.getvalue().splitlines()
    at = lines.index("Kategorien: R = Rechnen,")
    assert lines[at + 1] == "S = Sicherheit", lines
    # No mean in any category: no category column, so no "Kategorien:" line.
    bare = view.scorecard()
    assert bare.categories and "Kategorien" not in legend(bare, titles)
