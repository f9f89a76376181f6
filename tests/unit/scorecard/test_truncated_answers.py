"""Answers cut at ``--max-tokens`` are counted per row and said (issue 37 §4, design.md §13):
``truncated`` in scorecard.json's rows, a column "abgeschnitten" in verdicts.csv, a column and
one line of advice in the terminal scorecard, a count and a mark in report.html."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from tests.truncated_support import CAP, CUT_MODEL, truncated_workspace
from touchstone.scorecard.terminal import render_run_scorecard
from touchstone.sim import SimServer
from touchstone.stages.view import load_run, write_report
from touchstone.store import SCORECARD_JSON, VERDICTS_CSV

ADVICE = "3 Antworten an --max-tokens abgeschnitten (Grenze 200 Tokens): Grenze erhöhen"


@pytest.fixture
def run(tmp_path: Path, sim: SimServer) -> Path:
    run = truncated_workspace(tmp_path, sim) / "runs" / "tiny"
    view = load_run(run)
    write_report(view, view.scorecard())
    return run


def test_scorecard_json_counts_the_cut_answers_per_row(run: Path) -> None:
    rows = json.loads((run / SCORECARD_JSON).read_text(encoding="utf-8"))["rows"]
    assert {row["model"]: row["truncated"] for row in rows} == {"sim-gut": 0, CUT_MODEL: 3}


def test_verdicts_csv_says_of_each_answer_whether_it_was_cut(run: Path) -> None:
    text = (run / VERDICTS_CSV).read_text(encoding="utf-8-sig")
    rows = list(csv.DictReader(io.StringIO(text), delimiter=";"))
    assert {(r["Modell"], r["abgeschnitten"]) for r in rows} == {
        ("sim-gut", "nein"),
        (CUT_MODEL, "ja"),
    }


def test_the_terminal_shows_the_count_and_how_to_raise_the_cap(run: Path) -> None:
    view = load_run(run)
    out = io.StringIO()
    Console(file=out, width=80, force_terminal=False, color_system=None).print(
        render_run_scorecard(view.pack, view.scorecard())
    )
    text = out.getvalue()
    assert all(len(line) <= 80 for line in text.splitlines()), text
    assert "abgeschnitten" in text.split("Kategorien:")[0]  # a column of the table
    joined = " ".join(text.split())
    assert ADVICE in joined
    assert "--extend" in joined and f"--max-tokens {2 * CAP}" in joined


def test_the_report_counts_and_marks_the_cut_answers(run: Path) -> None:
    html = (run / "report.html").read_text(encoding="utf-8")
    assert ADVICE in html
    assert html.count('data-testid="truncated-count"') == 1  # the one row with cut answers
    assert html.count('data-testid="truncated-mark"') == 3  # each of its answers


def test_a_run_without_finish_reasons_has_none_cut(run: Path) -> None:
    """Answers recorded before touchstone kept finish_reason: 0 cut, no error, no advice."""
    responses = run / "responses.jsonl"
    lines = [json.loads(line) for line in responses.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        line.pop("finish_reason", None)
    responses.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    card = load_run(run).scorecard()
    assert {row.model: row.truncated for row in card.rows} == {"sim-gut": 0, CUT_MODEL: 0}
