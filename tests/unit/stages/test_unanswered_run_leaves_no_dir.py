"""A run that never got an answer leaves no run dir (issue 36): a misspelt model or a wrong
base URL left a run dir with an empty responses.jsonl, and the GUI overview and every
"Vergleichen mit …" list filled with "Noch keine Antworten" rows. A run dir this command
created and left without an answer is removed at its end, and the message says nothing was
kept; an existing run dir is never removed."""

from pathlib import Path

from tests.conftest import PackRun
from tests.unit.stages.test_unknown_host import NOWHERE
from touchstone.store import MANIFEST, RESPONSES, RunDir


def test_a_new_run_without_an_answer_is_removed_and_says_so(tiny_run: PackRun) -> None:
    outcome = tiny_run("sim-gutt")  # misspelt: 404, no answer
    assert outcome.removed and outcome.summary.recorded == 0
    assert not tiny_run.out.exists()
    assert tiny_run.out.parent.exists()  # only the run dir itself, not where it was made
    assert f"Run-Verzeichnis {tiny_run.out} ist daher wieder entfernt" in outcome.unfinished()


def test_a_new_run_with_a_failed_answer_keeps_it(tiny_run: PackRun) -> None:
    outcome = tiny_run("sim-hang", call_timeout_s=0.3)  # timeouts are saved as failed answers
    assert outcome.summary.failed_recorded == 6 and not outcome.removed
    assert len(RunDir(tiny_run.out).load_responses()) == 6


def test_an_existing_run_or_dir_is_never_removed(tiny_run: PackRun, tmp_path: Path) -> None:
    tiny_run("sim-gut", variants=["none"])
    answers = (tiny_run.out / RESPONSES).read_bytes()
    again = tiny_run("sim-gut", "sim-gutt", variants=["none"], extend=True)
    assert not again.removed and (tiny_run.out / RESPONSES).read_bytes() == answers
    assert (tiny_run.out / MANIFEST).exists()

    empty = tmp_path / "leer"
    empty.mkdir()
    made_by_hand = PackRun(tiny_run.base_url, tiny_run.pack_path, empty)
    outcome = made_by_hand("sim-gut", base_url=NOWHERE)
    assert not outcome.removed and empty.is_dir()
    assert "behalten" not in outcome.unfinished()
