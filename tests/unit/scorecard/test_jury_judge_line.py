"""The scorecard's judge line of a jury marks a dropped member, and its dimension table says
whose it is (issue 36): "Judge-Modell: Jury (sim-judge, sim-strict, sim-think-endless)" named
the member the guard dropped as if it had judged, and the table of the holistic dimensions,
which comes from the jury's first member, did not say so."""

from __future__ import annotations

import dataclasses
import io

from rich.console import Console

from tests.unit.scorecard.test_scorecard import scored_run
from touchstone.jury.summary import JuryMemberSummary, JurySummary
from touchstone.scorecard.build import build_scorecard
from touchstone.scorecard.terminal import render_scorecard


def test_the_jury_line_marks_the_dropped_member_and_the_dimensions_name_their_judge() -> None:
    responses, verdicts = scored_run({"a": [5, 4, 5, 3], "b": [2, 1, 2, 3]})
    jury_name = "Jury (sim-judge, sim-strict, sim-think-endless)"
    verdicts = [dataclasses.replace(v, judge_model=jury_name) for v in verdicts]
    card = build_scorecard(responses, verdicts, scale_min=0)
    card.dimensions = ["korrektheit"]
    for row in card.rows:
        row.dim_scores = {"korrektheit": 4.0}
    card.jury = JurySummary(
        "median",
        2,
        [
            JuryMemberSummary("sim-judge", "u", 3.0, 8),
            JuryMemberSummary("sim-strict", "u", 2.0, 8),
            JuryMemberSummary("sim-think-endless", "u", None, 0, dropped="Frist überschritten"),
        ],
    )
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(render_scorecard(card))
    text = console.export_text()
    assert "Judge-Modell: Jury (sim-judge, sim-strict; ausgeschieden: sim-think-endless)" in text
    assert "Die Gesamtbewertung stammt von sim-judge, dem ersten Judge der Jury." in text, text
