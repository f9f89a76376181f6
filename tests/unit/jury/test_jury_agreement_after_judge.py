"""`judge` with a jury writes and shows the jury's agreement as `report` does (issue 36): one
function builds the scorecard, so the next `judge` keeps what `report` wrote, and a jury whose
members disagree is called so on the card ("Jury uneinig: … Wertung nicht belastbar")."""

import json
from pathlib import Path
from typing import Any

from rich.console import Console

from tests.unit.jury.test_jury import member
from touchstone.jury.config import JuryConfig
from touchstone.sim import SimServer
from touchstone.stages.judge.judge import execute_judge
from touchstone.stages.judge.outcome import JudgeOutcome
from touchstone.stages.view import load_run, write_report

# What `report` added to scorecard.json's `jury` and the next `judge` removed again.
AGREEMENT = {"alpha", "alpha_ci", "disputed", "pairwise_kappa", "same_family", "summary", "verdict"}


def judged_by(sim: SimServer, run_dir: Path, *models: str) -> JudgeOutcome:
    return execute_judge(run_dir, config=JuryConfig([member(sim, m) for m in models]))


def jury_block(run_dir: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((run_dir / "scorecard.json").read_text(encoding="utf-8"))
    return data["jury"]  # type: ignore[no-any-return]


def terminal(outcome: JudgeOutcome) -> str:
    """The scorecard `judge` prints, at 80 columns, its lines joined (the card wraps)."""
    from touchstone.scorecard.terminal import render_run_scorecard

    console = Console(width=80, record=True)
    console.print(render_run_scorecard(outcome.pack, outcome.card))
    lines = console.export_text().splitlines()
    assert all(len(line) <= 80 for line in lines), lines
    return " ".join(line.strip() for line in lines)


def test_judge_writes_the_jurys_agreement_and_the_next_judge_keeps_it(
    sim: SimServer, answered_run: Path
) -> None:
    judged_by(sim, answered_run, "sim-judge", "sim-strict")
    after_judge = jury_block(answered_run)
    assert after_judge.keys() >= AGREEMENT, sorted(after_judge)
    assert after_judge["alpha"] is not None and len(after_judge["pairwise_kappa"]) == 1
    view = load_run(answered_run)
    write_report(view, view.scorecard())
    assert jury_block(answered_run) == after_judge  # report writes what judge wrote
    judged_by(sim, answered_run, "sim-judge", "sim-strict")
    assert jury_block(answered_run) == after_judge  # and the next judge keeps it


def test_a_disagreeing_jury_is_called_split_on_the_card_and_in_the_json(
    sim: SimServer, answered_run: Path
) -> None:
    # sim-gullible gives every answer the top score, sim-judge what the answer is worth.
    outcome = judged_by(sim, answered_run, "sim-judge", "sim-gullible")
    verdict = jury_block(answered_run)["verdict"]
    assert verdict is not None and verdict["word"] == "uneinig"
    text = verdict["text"]
    assert text.startswith("Jury uneinig: α = -0,") and " – -0," in text
    assert "von 12 Zellen strittig" in text and text.endswith("Wertung nicht belastbar")
    assert set(verdict["reasons"]) == {"alpha", "disputed"}
    shown = terminal(outcome)
    assert "Jury: 2 von 2 Judges aktiv" in shown and text in shown


def test_an_agreeing_jury_gets_no_verdict_line(sim: SimServer, answered_run: Path) -> None:
    outcome = judged_by(sim, answered_run, "sim-judge", "sim-strict")
    assert jury_block(answered_run)["verdict"] is None
    shown = terminal(outcome)
    assert "Jury: 2 von 2 Judges aktiv" in shown and "uneinig" not in shown
