"""An existing run is never changed silently: resume, extend on request, or refuse (#23 design.md
§3).

Here the tests through touchstone's CLI in a subprocess; the in-process ones are in
``tests/unit/stages/test_extend.py``."""

from pathlib import Path

from tests.conftest import run_cli
from tests.unit.stages.test_extend import first_run, manifest
from touchstone.sim import SimServer


def test_cli_refuses_with_exit_2_and_extends_on_request(
    sim: SimServer, tiny_pack_path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    first_run(sim, tiny_pack_path, out)
    args = ("run", "--pack", str(tiny_pack_path), "--model", "sim-gut", "--model", "sim-schwach")
    args += ("--variant", "none", "--base-url", sim.base_url, "--out", str(out), "--repeats", "2")
    refused = run_cli(*args, cwd=tmp_path)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "Wiederholungen: gespeichert 1, verlangt 2" in " ".join(refused.stderr.split())
    assert "Traceback" not in refused.stderr
    assert manifest(out)["repeats"] == 1
    args = (*args[:3], "--model", "sim-schwach", *args[7:])  # sim-gut's repeat stays open
    extended = run_cli(*args, "--extend", cwd=tmp_path)
    assert extended.returncode == 0, extended.stdout + extended.stderr
    assert manifest(out)["repeats"] == 2
    assert "Im Run noch ohne Antwort (laut run.json): sim-gut 3" in " ".join(
        extended.stdout.split()
    )
