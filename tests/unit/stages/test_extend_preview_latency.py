"""A dry run that adds a model to a run with other models' answers (issue 37)."""

from __future__ import annotations

from tests.conftest import PackRun
from touchstone.stages.preview.preview import preview_run


def test_a_new_model_on_a_run_with_answers_is_said_to_have_none_yet(tiny_run: PackRun) -> None:
    tiny_run("sim-gut")
    preview = preview_run(**tiny_run.options("sim-schwach", extend=True))
    duration = next(line for line in preview.lines() if line.startswith("Dauer"))
    assert "keine Antwort im Run" not in duration
    assert "noch keine gemessene Latenz für sim-schwach" in duration
    assert "Antworten von sim-gut" in duration
