"""A run whose pack lies outside the GUI's working dir (issue 23 §5): the demo's pack ships
with touchstone and is shown wherever the GUI was started; any other pack outside is a short
German message naming the run and the pack, and where to start the GUI instead."""

import json
import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.conftest import run_on_sim
from tests.gui.gui_support import make_workspace
from touchstone.bundled import bundled_pack
from touchstone.sim import SimServer


@pytest.fixture
def workspace(tmp_path: Path, sim: SimServer) -> Path:
    return make_workspace(tmp_path / "gui", sim)


def test_the_demo_run_shows_in_a_gui_started_elsewhere(
    client: TestClient, workspace: Path, sim: SimServer
) -> None:
    # As `touchstone demo` makes it: the bundled pack, named by its absolute path.
    run_on_sim(
        sim,
        pack_path=bundled_pack("buero"),
        models=["sim-gut"],
        variants=["none"],
        out=workspace / "runs" / "demo",
    )
    page = client.get("/runs/demo")
    assert page.status_code == 200, page.text
    assert "buero" in page.text and "sim-gut" in page.text
    (summary,) = [r for r in client.get("/api/runs").json() if r["name"] == "demo"]
    assert "error" not in summary and summary["expected"] == summary["cells"]


def test_a_pack_outside_is_a_short_message_naming_run_and_pack(
    client: TestClient, workspace: Path, tmp_path: Path
) -> None:
    # A run made in another directory, whose pack stayed there.
    origin = tmp_path / "anderswo"
    (origin / "packs").mkdir(parents=True)
    shutil.copy(workspace / "packs" / "tiny.yaml", origin / "packs" / "eigen.yaml")
    run = workspace / "runs" / "fremd"
    shutil.copytree(workspace / "runs" / "tiny", run)
    manifest = json.loads((run / "run.json").read_text(encoding="utf-8"))
    manifest["pack_path"] = "packs/eigen.yaml"
    manifest["pack_abspath"] = str(origin / "packs" / "eigen.yaml")
    (run / "run.json").write_text(json.dumps(manifest), encoding="utf-8")

    response = client.get("/api/runs/fremd")
    assert response.status_code == 422
    message = response.json()["detail"]
    assert message.startswith("Run „fremd“: sein Paket „packs/eigen.yaml“"), message
    assert message.count("eigen.yaml") == 1 and "run.json" not in message
    assert f"Starten Sie die GUI in {origin}" in message
    assert len(message.replace(str(origin), "")) < 200, message
    (summary,) = [r for r in client.get("/api/runs").json() if r["name"] == "fremd"]
    assert summary["error"] == message
