"""``run --model a,b`` and ``--model "a; b"`` run two models, as the GUI's "Modelle" field
does (issue 36): model ids use '/', ':', '-' and '.', never ',' or ';'. A list with no name in
it is bad input before any call."""

from pathlib import Path

from tests.conftest import PackRun, run_args, run_cli
from tests.unit.stages.test_run_typos import manifest_models


def test_a_comma_or_semicolon_list_in_one_model_option_runs_each_model(
    tiny_run: PackRun, tmp_path: Path
) -> None:
    endpoint = (tiny_run.pack_path, tiny_run.base_url, tiny_run.out)
    result = run_cli(*run_args(*endpoint, "sim-gut; sim-schwach,", variants=["none"]), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Meinten Sie" not in result.stderr
    assert manifest_models(tiny_run.out) == ["sim-gut", "sim-schwach"]


def test_a_model_list_with_no_name_is_bad_input_before_any_call(
    tiny_run: PackRun, tmp_path: Path
) -> None:
    endpoint = (tiny_run.pack_path, tiny_run.base_url, tiny_run.out)
    result = run_cli(*run_args(*endpoint, " ; , "), cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert "--model" in result.stderr and "kein Modellname" in result.stderr
    assert not tiny_run.out.exists()
