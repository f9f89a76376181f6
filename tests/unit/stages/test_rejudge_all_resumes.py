"""An interrupted ``judge --rejudge all`` resumes where it stopped (issue 36): "Fortsetzen"
in the GUI replays the job's ``--rejudge all`` and paid for every cell again. While
``rejudge.jsonl`` (``store/rejudge.py``) names the same judge, the next ``--rejudge all``
asks only the cells this re-judge has not reached; the file goes when it has reached all."""

from pathlib import Path

import pytest

from tests.conftest import FakeJudge, timeout_error
from tests.unit.judge.test_cache import config
from touchstone.errors import JudgeAborted
from touchstone.sim import SimServer
from touchstone.stages.judge.judge import execute_judge
from touchstone.store.rejudge import REJUDGE

NEW = '{"score": 2, "red_flag": false, "rationale": "neu"}'
CELLS = 12  # answered_run: 3 prompts x 2 variants x 2 models


def interrupted_rejudge(run: Path, sim: SimServer, landed: int) -> None:
    """The run judged, then re-judged with ``--rejudge all`` until ``landed`` new verdicts
    are saved and the breaker stops the judge (three failed calls in a row)."""
    execute_judge(run, config=config(sim), backend=FakeJudge())
    script: list = [NEW] * landed + [timeout_error()] * 3
    with pytest.raises(JudgeAborted):
        execute_judge(run, config=config(sim), backend=FakeJudge(script), rejudge="all")
    assert (run / REJUDGE).is_file()


def test_rejudge_all_again_with_the_same_judge_asks_only_the_cells_it_had_not_reached(
    sim: SimServer, answered_run: Path
) -> None:
    interrupted_rejudge(answered_run, sim, landed=5)
    again = FakeJudge(default=NEW)
    outcome = execute_judge(answered_run, config=config(sim), backend=again, rejudge="all")
    assert outcome.rejudge_open == CELLS - 5 and outcome.rejudge_cells == CELLS
    assert len(again.history) - holistic_calls(again) == CELLS - 5
    assert outcome.new_verdicts == CELLS - 5
    assert not (answered_run / REJUDGE).exists()  # the re-judge reached every cell
    # A new re-judge after a finished one asks every cell again.
    fresh = FakeJudge(default=NEW)
    execute_judge(answered_run, config=config(sim), backend=fresh, rejudge="all")
    assert len(fresh.history) - holistic_calls(fresh) == CELLS


def test_rejudge_all_with_another_judge_starts_over(sim: SimServer, answered_run: Path) -> None:
    interrupted_rejudge(answered_run, sim, landed=5)
    other = FakeJudge(default=NEW, model="anderer-judge")
    outcome = execute_judge(answered_run, config=config(sim), backend=other, rejudge="all")
    assert len(other.history) - holistic_calls(other) == CELLS
    assert outcome.rejudge_open == 0  # nothing continued
    assert not (answered_run / REJUDGE).exists()


def holistic_calls(judge: FakeJudge) -> int:
    """The holistic pass's calls: one per (model, variant) of the run."""
    return sum(1 for sent in judge.history if "## Gesamtbewertung von Modell" in sent.user)
