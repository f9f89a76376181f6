"""An existing run is never changed silently: resume, extend on request, or refuse (#23 design.md
§3).

Here the tests through touchstone's CLI in a subprocess; the in-process ones are in
``tests/unit/stages/test_extend.py``."""

from pathlib import Path

from tests.conftest import PackRun, run_args, run_cli
from tests.unit.stages.test_extend import first_run, manifest


def test_cli_refuses_with_exit_2_and_extends_on_request(tiny_run: PackRun, tmp_path: Path) -> None:
    out = first_run(tiny_run)
    endpoint = (tiny_run.pack_path, tiny_run.base_url, out)
    args = (*run_args(*endpoint, "sim-gut", "sim-schwach", variants=["none"]), "--repeats", "2")
    refused = run_cli(*args, cwd=tmp_path)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "Wiederholungen: gespeichert 1, verlangt 2" in " ".join(refused.stderr.split())
    assert "Traceback" not in refused.stderr
    assert manifest(out)["repeats"] == 1
    # sim-gut's repeat stays open.
    args = (*run_args(*endpoint, "sim-schwach", variants=["none"]), "--repeats", "2")
    extended = run_cli(*args, "--extend", cwd=tmp_path)
    assert extended.returncode == 0, extended.stdout + extended.stderr
    assert manifest(out)["repeats"] == 2
    assert "Im Run noch ohne Antwort (laut run.json): sim-gut 3" in " ".join(
        extended.stdout.split()
    )
