"""A resume without ``--max-tokens`` keeps the run's answer cap, as an omitted ``--variant`` or
``--repeats`` keeps the run's (issue 36: it was "Antwortlänge: gespeichert 500, verlangt keine
Grenze", exit 2). An explicit other cap still makes answers that do not compare: refused, with
``--extend`` too."""

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import PackRun
from touchstone.errors import InputError
from touchstone.sim import SimServer
from touchstone.stages.run.run import execute_run
from touchstone.store import MANIFEST, RESPONSES


@pytest.fixture
def own_sim() -> Iterator[SimServer]:
    """A simulator of this test alone: its request history holds only this test's calls."""
    with SimServer() as server:
        yield server


def interrupted_capped_run(run: PackRun) -> Path:
    """sim-gut's 6 cells answered with ``max_tokens`` 500, then all but two answers lost, as
    after a ``kill -9``: 4 cells open."""
    run("sim-gut", max_tokens=500)
    answers = run.out / RESPONSES
    kept = answers.read_text(encoding="utf-8").splitlines()[:2]
    answers.write_text("\n".join(kept) + "\n", encoding="utf-8")
    return run.out


def test_a_resume_without_max_tokens_asks_the_open_cells_with_the_runs_cap(
    own_sim: SimServer, tiny_pack_path: Path, tmp_path: Path
) -> None:
    run = PackRun(own_sim.base_url, tiny_pack_path, tmp_path / "run")
    out = interrupted_capped_run(run)
    sent_before = len(own_sim.history)
    outcome = run("sim-gut")
    assert outcome.summary.recorded == 4 and outcome.summary.complete
    resumed = own_sim.history[sent_before:]
    assert [body.get("max_tokens") for body in resumed] == [500] * 4
    assert json.loads((out / MANIFEST).read_text(encoding="utf-8"))["max_tokens"] == 500


def test_another_explicit_cap_on_resume_is_still_refused_with_extend_too(
    tiny_run: PackRun,
) -> None:
    out = interrupted_capped_run(tiny_run)
    before = (out / MANIFEST).read_text(encoding="utf-8")
    for extend in (False, True):
        with pytest.raises(InputError, match=r"Antwortlänge.*gespeichert 500, verlangt 50"):
            execute_run(**tiny_run.options("sim-gut", max_tokens=50, extend=extend))
    assert (out / MANIFEST).read_text(encoding="utf-8") == before
