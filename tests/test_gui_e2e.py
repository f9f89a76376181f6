"""The GUI as a user starts it: a real server process, real judge jobs against the simulator."""

import json
import os
import shutil
import urllib.request
from pathlib import Path

import pytest

from touchstone.sim import SimServer

from .gui_support import gui_process, make_workspace, wait_for

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def call(base: str, path: str, body: dict | None = None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        base + path, data=data, method="GET" if body is None else "POST"
    )
    request.add_header("Content-Type", "application/json")
    if body is not None:
        request.add_header("Origin", base)
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def test_runaway_job_fails_visibly_then_good_judge_is_done(tmp_path: Path, sim: SimServer) -> None:
    workdir = make_workspace(tmp_path, sim)
    with gui_process(workdir) as base:
        job = call(base, "/api/runs/tiny/judge", {"config": "judge-runaway.yaml"})["job"]
        state = wait_for(lambda: (s := call(base, f"/api/jobs/{job}"))["state"] != "running" and s)
        assert (state["state"], state["exit_code"]) == ("failed", 1)
        assert "Judge abgebrochen" in state["message"]

        job = call(base, "/api/runs/tiny/judge", {"config": "judge-gut.yaml"})["job"]
        state = wait_for(lambda: (s := call(base, f"/api/jobs/{job}"))["state"] != "running" and s)
        assert (state["state"], state["exit_code"]) == ("done", 0)
        rows = call(base, "/api/runs/tiny")["scorecard"]["rows"]
        assert all(row["scored"] == 3 and row["open"] == 0 for row in rows)

    # A restarted GUI still knows both jobs and how they ended.
    with gui_process(workdir) as base:
        jobs = call(base, "/api/runs/tiny")["jobs"]
        assert [j["state"] for j in jobs] == ["done", "failed"]


def chromium_or_skip() -> str:
    if shutil.which(CHROMIUM) or Path(CHROMIUM).exists():
        return CHROMIUM
    if os.environ.get("CI"):
        pytest.fail("Chromium fehlt: .ci/run installiert es mit apt-get (Paket chromium).")
    pytest.skip("Chromium fehlt (apt-get install chromium); in CI ist dieser Test Pflicht.")


def test_browser_starts_a_judge_and_sees_the_failed_job(tmp_path: Path, sim: SimServer) -> None:
    executable = chromium_or_skip()
    from playwright.sync_api import expect, sync_playwright

    workdir = make_workspace(tmp_path, sim)
    ARTIFACTS.mkdir(exist_ok=True)
    with gui_process(workdir) as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, headless=True, args=CHROMIUM_FLAGS
        )
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(f"{base}/runs/tiny")
            expect(page.get_by_test_id("scorecard")).to_contain_text("sim-gut")
            page.get_by_test_id("config").select_option("judge-runaway.yaml")
            page.get_by_test_id("start-judge").click()
            expect(page.get_by_test_id("job-state")).to_have_text("fehlgeschlagen", timeout=20_000)
            expect(page.get_by_test_id("job-message")).to_contain_text("Judge abgebrochen")
            page.screenshot(path=str(ARTIFACTS / "run-page-failed-job.png"), full_page=True)

            page.get_by_test_id("config").select_option("judge-gut.yaml")
            page.get_by_test_id("start-judge").click()
            # On success the page reloads and the scorecard shows every cell scored.
            expect(page.locator("#verdicts tr[data-model]")).to_have_count(6, timeout=20_000)
            page.screenshot(path=str(ARTIFACTS / "run-page-done.png"), full_page=True)
        finally:
            browser.close()
