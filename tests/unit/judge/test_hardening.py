"""Judge hardening over real HTTP: policy by error kind, concurrency, lock, kill -9, provenance."""

import pytest

from tests.conftest import FakeJudge, make_response, timeout_error
from touchstone.errors import JudgeAborted, JudgeCallError
from touchstone.judge.passes import judge_responses
from touchstone.pack import Pack

# -- policy by kind, over real HTTP ----------------------------------------------------------


# -- concurrency -----------------------------------------------------------------------------


def test_abort_with_concurrency_starts_no_new_calls(tiny_pack: Pack) -> None:
    items = [make_response("R1", repeat=i) for i in range(1, 41)]
    judge_backend = FakeJudge([timeout_error()] * 40)
    with pytest.raises(JudgeAborted):
        judge_responses(judge_backend, items, tiny_pack, concurrency=4, max_consecutive_failures=3)
    # At most the failing three plus the calls already running when the third failed.
    assert len(judge_backend.history) <= 3 + 4 - 1


# -- run-dir safety --------------------------------------------------------------------------


# -- provenance and rejudge ------------------------------------------------------------------


def test_rejudge_unscored_revisits_only_unscored_cells(tiny_pack: Pack) -> None:
    from touchstone.judge.passes import judge_bundle

    items = [make_response("R1", repeat=i) for i in (1, 2, 3)]
    prior = judge_responses(FakeJudge(["kein JSON"]), items, tiny_pack)
    assert [v.unscored for v in prior] == [True, False, False]
    judge_backend = FakeJudge()
    verdicts, _ = judge_bundle(
        judge_backend, items, tiny_pack, prior_verdicts=prior, rejudge="unscored"
    )
    assert len(judge_backend.history) == 1 + 1  # the unscored cell, then the holistic call
    assert not any(v.unscored for v in verdicts)

    failing = FakeJudge([JudgeCallError("x", kind="timeout")] * 3)
    verdicts, _ = judge_bundle(failing, items, tiny_pack, prior_verdicts=prior, rejudge="all")
    # A failed re-judge keeps the verdict that was there.
    assert [v.judge_error for v in verdicts] == [False, False, False]
