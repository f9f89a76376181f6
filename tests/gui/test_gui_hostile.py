"""A shared run directory against the GUI (issue 21): nothing in it becomes active content in
the GUI's origin, and its run.json cannot make the GUI read files outside its working dir.

The attack itself, in a real browser, is in test_gui_e2e.py.
"""

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.conftest import TINY_PACK
from tests.gui.gui_support import PORT, gui_client, job_manager, make_workspace
from touchstone.sim import SimServer

FOREIGN = "<script>window.stolen = 1</script><h1>Fremder Bericht</h1>"


@pytest.fixture
def workspace(tmp_path: Path, sim: SimServer) -> Path:
    return make_workspace(tmp_path / "arbeit", sim)


@pytest.fixture
def client(workspace: Path) -> Iterator[TestClient]:
    with gui_client(workspace, jobs=job_manager(workspace, {"PATH": ""})) as test_client:
        yield test_client


def in_the_future(path: Path) -> None:
    """An mtime after every input of the run: the file counts as current."""
    future = time.time() + 86_400
    os.utime(path, (future, future), follow_symlinks=False)


def assert_touchstones_own_report(response) -> None:  # type: ignore[no-untyped-def]
    assert response.status_code == 200
    assert "touchstone-Bericht" in response.text and "Fremder Bericht" not in response.text
    assert "<script" not in response.text
    # Even if foreign HTML got in, it would run in no origin and without script.
    policy = response.headers["content-security-policy"]
    assert "sandbox" in policy and "allow-scripts" not in policy and "default-src 'none'" in policy
    assert response.headers["x-content-type-options"] == "nosniff"


def test_a_current_looking_report_html_is_not_served(client: TestClient, workspace: Path) -> None:
    report = workspace / "runs" / "tiny" / "report.html"
    report.write_text(FOREIGN, encoding="utf-8")
    in_the_future(report)
    assert_touchstones_own_report(client.get("/runs/tiny/report.html"))


def test_a_report_html_symlink_out_of_the_run_dir_is_not_followed(
    client: TestClient, workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "fremd.html"
    outside.write_text(FOREIGN, encoding="utf-8")
    in_the_future(outside)
    link = workspace / "runs" / "tiny" / "report.html"
    link.symlink_to(outside)
    in_the_future(link)
    assert_touchstones_own_report(client.get("/runs/tiny/report.html"))


def test_the_csv_export_is_a_download_that_is_never_sniffed(client: TestClient) -> None:
    response = client.get("/api/runs/tiny/verdicts.csv")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/csv")
    assert response.headers["content-disposition"].startswith("attachment")
    assert response.headers["x-content-type-options"] == "nosniff"


def test_the_guis_own_pages_allow_only_their_own_script(client: TestClient) -> None:
    for path in ("/", "/runs/tiny", "/runs/tiny/prompts/S1"):
        response = client.get(path)
        assert response.status_code == 200, path
        policy = response.headers["content-security-policy"]
        directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
        script = directives["script-src"]
        assert script.startswith("'self' 'nonce-") and "unsafe" not in script, policy
        assert directives["frame-ancestors"] == directives["object-src"] == "'none'"
        # The page's inline script carries this response's nonce (a new one each time).
        nonce = script.split("'nonce-")[1].rstrip("'")
        assert path.endswith("S1") or f'<script nonce="{nonce}">' in response.text
        assert response.headers["x-content-type-options"] == "nosniff"


# -- the pack a run.json names ------------------------------------------------------------


SECRET = "GEHEIMER-WERT-0815"


def point_run_at(workspace: Path, pack_path: str, pack_abspath: str) -> None:
    from touchstone.stages.view import load_run

    run = workspace / "runs" / "tiny"
    card = load_run(run).scorecard().as_dict()
    manifest = json.loads((run / "run.json").read_text(encoding="utf-8"))
    manifest.update(pack_path=pack_path, pack_abspath=pack_abspath)
    (run / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
    # A scorecard.json newer than everything: the overview reads it and the pack directly.
    (run / "scorecard.json").write_text(json.dumps(card), encoding="utf-8")
    in_the_future(run / "scorecard.json")


def outside_files(tmp_path: Path) -> dict[str, Path]:
    """YAML files outside the working dir: a valid pack titled with the secret, and a file
    that is no pack and holds the secret (an error message would quote it)."""
    outside = tmp_path / "fremd"
    outside.mkdir()
    pack = outside / "pack.yaml"
    pack.write_text(
        TINY_PACK.replace("title: Kleines Testpaket", f"title: {SECRET}"), encoding="utf-8"
    )
    other = outside / "config.yaml"
    other.write_text(f"id: tiny\ntitle: [{SECRET}]\nscale: {SECRET}\n", encoding="utf-8")
    return {"pack": pack, "other": other}


@pytest.mark.parametrize("target", ["pack", "other"])
@pytest.mark.parametrize("how", ["abspath", "relative", "symlink"])
def test_a_pack_outside_the_working_dir_is_not_read(
    client: TestClient, workspace: Path, tmp_path: Path, target: str, how: str
) -> None:
    outside = outside_files(tmp_path)[target]
    if how == "abspath":  # the recorded relative path is gone, the absolute one is outside
        point_run_at(workspace, "packs/weg.yaml", str(outside))
    elif how == "relative":
        point_run_at(workspace, f"../fremd/{outside.name}", "/nirgends/pack.yaml")
    else:  # a link inside the working dir that leads out of it
        (workspace / "packs" / "link.yaml").symlink_to(outside)
        point_run_at(workspace, "packs/link.yaml", str(workspace / "packs" / "link.yaml"))
    shown = []
    for path in ("/api/runs/tiny", "/runs/tiny", "/runs/tiny/report.html"):
        response = client.get(path)
        assert response.status_code == 422, path
        shown.append(response.text)
    (summary,) = client.get("/api/runs").json()
    shown.append(json.dumps(summary, ensure_ascii=False))
    shown.append(client.get("/").text)
    assert all(SECRET not in text for text in shown)
    assert "nicht im Arbeitsverzeichnis der GUI" in summary["error"]
    assert "nicht im Arbeitsverzeichnis der GUI" in client.get("/api/runs/tiny").text


def test_a_pack_inside_the_working_dir_is_found_by_either_path(
    client: TestClient, workspace: Path
) -> None:
    point_run_at(workspace, "packs/weg.yaml", str(workspace / "packs" / "tiny.yaml"))
    assert client.get("/api/runs/tiny").json()["pack"]["id"] == "tiny"
    point_run_at(workspace, "packs/tiny.yaml", "/nirgends/pack.yaml")
    assert client.get("/api/runs/tiny").json()["pack"]["id"] == "tiny"


def test_the_overview_reads_no_file_outside_the_working_dir_that_run_json_names(
    client: TestClient, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The overview keeps a run's line while the files it was built from keep their content;
    a run.json naming a file outside (a 256 GB /proc file, someone's model weights) must not
    make it hash that file on every request."""
    from touchstone.store import stamps

    outside = tmp_path / "fremd" / "gewichte.bin"
    outside.parent.mkdir()
    outside.write_bytes(b"\0" * 1024)
    point_run_at(workspace, "packs/tiny.yaml", str(outside))
    read: list[Path] = []
    stamp = stamps.file_stamp

    def recording(path: Path) -> stamps.Stamp:
        read.append(Path(path))
        return stamp(path)

    monkeypatch.setattr(stamps, "file_stamp", recording)
    for _ in range(2):
        (summary,) = client.get("/api/runs").json()
        assert summary.get("error") is None and summary["expected"] == 6
    assert read and not any(p.resolve().is_relative_to(outside.parent) for p in read)


def test_a_jobs_dir_that_links_elsewhere_starts_no_job_and_writes_nothing_there(
    client: TestClient, workspace: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "anderswo"
    elsewhere.mkdir()
    (workspace / "runs" / "tiny" / "jobs").symlink_to(elsewhere, target_is_directory=True)
    response = client.post(
        "/api/runs/tiny/judge",
        json={"config": "judge-gut.yaml"},
        headers={"Origin": f"http://127.0.0.1:{PORT}"},
    )
    assert response.status_code == 422 and "symbolischer Link" in response.json()["detail"]
    assert list(elsewhere.iterdir()) == []
