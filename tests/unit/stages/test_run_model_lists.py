"""The models of a ``run`` (and of its estimate) split at ',' and ';' (issue 36)."""

from tests.conftest import PackRun
from touchstone.stages.preview.preview import preview_run


def test_the_estimate_counts_each_model_of_a_list(tiny_run: PackRun) -> None:
    one = preview_run(**tiny_run.options("sim-gut"))
    listed = preview_run(**tiny_run.options("sim-gut,sim-schwach; sim-mittel"))
    assert listed.calls == 3 * one.calls
