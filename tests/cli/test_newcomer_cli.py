"""What a newcomer meets on the command line (issue 23, §22): report before judge, the
legend of what is shown, the judge's cache, the compare table's size."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from tests.conftest import FakeJudge, run_cli, run_on_sim
from tests.unit.judge.test_cache import config
from touchstone.cli import ui
from touchstone.cli.progress_bar import ProgressView
from touchstone.errors import InputError
from touchstone.scorecard.terminal import legend, render_run_scorecard
from touchstone.sim import SimServer
from touchstone.stages.judge.judge import execute_judge
from touchstone.stages.preview.preview import preview_run
from touchstone.stages.view import load_run, write_report


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


def test_a_dry_run_with_nothing_to_do_says_so(
    answered_run: Path, sim: SimServer, tiny_pack_path: Path
) -> None:
    preview = preview_run(
        pack_path=tiny_pack_path,
        models=["sim-gut", "sim-schwach"],
        out=answered_run,
        base_url=sim.base_url,
    )
    lines = preview.lines()
    assert "Aufrufe: 0 – nichts zu tun: alle Zellen beantwortet" in lines, lines
    # Not "≈ 0 Tokens (weder --max-tokens noch gemessene Antworten)": the run has measured
    # answers, and there is nothing to estimate.
    assert not any("weder" in line or line.startswith("Ausgabe") for line in lines), lines


def test_the_open_cells_of_a_run_say_what_each_is() -> None:
    view = ProgressView("Antworten")
    view("start", {"total": 130})
    view("progress", {"outcome": "left"})
    for _ in range(129):
        view("progress", {"outcome": "skipped"})
    view.progress.stop()
    note = view.progress.tasks[0].fields["note"]
    assert "130 offen (1 Aufruffehler, 129 übersprungen)" in note, note
    assert view.progress.tasks[0].completed == 0


def test_a_complete_run_names_the_next_step(
    sim: SimServer, tiny_pack_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "runs" / "erster"
    outcome = run_on_sim(sim, pack_path=tiny_pack_path, models=["sim-gut"], out=out)
    buffer = io.StringIO()
    monkeypatch.setattr(ui, "stdout", ui.console_for(terminal=False, file=buffer))
    ui.show_run_outcome(outcome)
    said = " ".join(buffer.getvalue().split())
    assert f"Als Nächstes: die Antworten bewerten mit `touchstone judge {out} --config" in said
