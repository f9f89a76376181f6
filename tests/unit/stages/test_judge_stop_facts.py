"""A failure keeps its cause as data (issue 34): a refused call's verdict is made from the
error, and a stop is told anew with its figures instead of being changed in place."""

from tests.conftest import make_response
from touchstone.advice import cause
from touchstone.errors import BudgetReached, JudgeAborted, JudgeCallError
from touchstone.judge.cells import JUDGE_REFUSED_RATIONALE, CellTask, Judge
from touchstone.pack import Pack


def test_a_refusal_names_its_cause_from_the_error_whatever_the_server_said(
    tiny_pack: Pack,
) -> None:
    # Words that look like the judge-error rationale: nothing is parsed out of them.
    said = "⚠ Judge-Fehler (nicht bewertbar): abgelehnt"
    error = JudgeCallError(said, kind="refused")
    resp = make_response("R1")
    task = CellTask.of(resp, tiny_pack.prompt("R1"), tiny_pack, Judge("j", "j@x"))
    refused = task.refused(error, shared=True)
    failed = task.failed(error, shared=True)
    assert refused.rationale == JUDGE_REFUSED_RATIONALE.format(err=cause(error))
    assert (refused.unscored_reason, refused.error_kind, refused.cached) == (
        "judge_refused",
        "refused",
        True,
    )
    assert not refused.judge_error and failed.judge_error
    assert refused.as_dict().keys() == failed.as_dict().keys()


def test_a_stop_told_anew_keeps_what_it_was_and_gains_its_figures() -> None:
    first = JudgeAborted("Stopp.", kind="auth", reason="Stopp.", advice="Rat", facts={"a": 1})
    told = first.restated("Stopp. Mehr.", facts={"kept": 2}, health_summary="gesund")
    assert (str(told), told.kind, told.reason, told.advice) == (
        "Stopp. Mehr.",
        "auth",
        "Stopp.",
        "Rat",
    )
    assert dict(told.facts) == {"a": 1, "kept": 2} and told.health_summary == "gesund"
    assert (str(first), dict(first.facts), first.health_summary) == ("Stopp.", {"a": 1}, "")
    budget = BudgetReached("Budget.", facts={"budget_message": "b"}).restated(
        "Budget. Mehr.", facts={"open_cells": 0}, health_summary=""
    )
    assert dict(budget.facts) == {"budget_message": "b", "open_cells": 0}
