"""Helpers for GUI tests: a workspace with runs and judge configs, the app in a TestClient,
a GUI subprocess, headless Chromium. The fixtures built from them are in ``conftest.py``."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.conftest import REPO, TINY_PACK, run_on_sim
from touchstone.gui.app import create_app
from touchstone.gui.jobs import JobManager
from touchstone.sim import SimServer

ARTIFACTS = REPO / "tests" / "artifacts"
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

# The port the app believes it serves on: Host and Origin headers must name it.
PORT = 8642
ORIGIN = {"Origin": f"http://127.0.0.1:{PORT}"}

# The API key every GUI subprocess of the tests holds; it must never leave the machine.
GUI_API_KEY = "sk-test-geheim-4711"


def make_workspace(root: Path, sim: SimServer, run_name: str = "tiny") -> Path:
    """A GUI working dir: packs/tiny.yaml, runs/<run_name> answered, judge-*.yaml configs."""
    (root / "packs").mkdir(parents=True)
    pack = root / "packs" / "tiny.yaml"
    pack.write_text(TINY_PACK, encoding="utf-8")
    run_on_sim(
        sim,
        pack_path=pack,
        models=["sim-gut", "sim-schwach"],
        variants=["none"],
        out=root / "runs" / run_name,
    )
    configs = {
        "judge-gut.yaml": "model: sim-judge\ncall_timeout_s: 10\n",
        "judge-leichtglaeubig.yaml": "model: sim-gullible\ncall_timeout_s: 10\n",
        # A judge that thinks past its deadline (reasoning seen: the advice is thinking off).
        "judge-runaway.yaml": (
            "model: sim-think-endless\ncall_timeout_s: 0.5\nmax_consecutive_failures: 2\n"
        ),
        "judge-haengt.yaml": "model: sim-hang\ncall_timeout_s: 30\nmax_consecutive_failures: 0\n",
    }
    for name, body in configs.items():
        (root / name).write_text(
            f"endpoint: {{base_url: '{sim.base_url}'}}\n{body}", encoding="utf-8"
        )
    return root


def offline_env(workspace: Path, **extra: str) -> dict[str, str]:
    """A job's environment: no PATH, so the job finds no program but touchstone itself, and the
    workspace's own verdict cache."""
    return {"PATH": "", "TOUCHSTONE_CACHE_DIR": str(workspace / "cache"), **extra}


def job_manager(workdir: Path, child_env: dict[str, str]) -> JobManager:
    return JobManager(workdir / "runs", workdir, child_env=child_env)


def gui_client(
    workdir: Path, *, runs: Path | None = None, jobs: JobManager | None = None
) -> TestClient:
    """The GUI app for ``workdir`` (its runs in ``workdir/runs`` unless ``runs``) in a TestClient;
    without ``jobs`` the app's own job manager. Use it as ``with gui_client(...) as client``."""
    app = create_app(
        workdir / "runs" if runs is None else runs, workdir=workdir, port=PORT, jobs=jobs
    )
    return TestClient(app, base_url=f"http://127.0.0.1:{PORT}")


def workspace_run(base_url: str, **settings: object) -> dict[str, object]:
    """The request body of the workspace's own run ``tiny`` (``make_workspace``), with
    ``settings`` beyond it."""
    return {
        "name": "tiny",
        "pack": "packs/tiny.yaml",
        "base_url": base_url,
        "models": ["sim-gut", "sim-schwach"],
        "variants": ["none"],
        **settings,
    }


def wait_for(predicate, timeout: float = 30.0, interval: float = 0.1):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"condition not met within {timeout} s")


def job_state(client: TestClient, job: str) -> dict[str, Any]:
    return client.get(f"/api/jobs/{job}").json()  # type: ignore[no-any-return]


def start_job(client: TestClient, path: str, config: str) -> str:
    """POST ``path`` (a judge or judge-check of a run) with the judge ``config``, as the
    GUI's page does; returns the job's id."""
    job: str = client.post(path, json={"config": config}, headers=ORIGIN).json()["job"]
    return job


def finished(client: TestClient, job: str) -> dict[str, Any]:
    """The job's state once it no longer runs."""
    return wait_for(lambda: (s := job_state(client, job))["state"] != "running" and s)  # type: ignore[no-any-return]


def start_gui(workdir: Path, *, api_key: str | None = GUI_API_KEY) -> subprocess.Popen[str]:
    """``python -m touchstone gui --port 0`` in ``workdir``, its output on a pipe; of the
    caller's ``OPENAI_`` variables it sees none, only ``OPENAI_API_KEY=api_key`` if given."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    if api_key is not None:
        env["OPENAI_API_KEY"] = api_key
    return subprocess.Popen(
        [sys.executable, "-m", "touchstone", "gui", "--port", "0", "--no-browser"],
        cwd=workdir,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )


@contextmanager
def gui_process(workdir: Path) -> Iterator[str]:
    """``python -m touchstone gui --port 0`` in ``workdir``; yields its base URL."""
    proc = start_gui(workdir)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:\d+", line)
        assert match, f"no URL announced: {line!r}"
        yield match.group(0)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@contextmanager
def chromium():  # type: ignore[no-untyped-def]
    """Headless Chromium for the test (skipped without it, except in CI)."""
    executable = chromium_or_skip()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, headless=True, args=CHROMIUM_FLAGS
        )
        try:
            yield browser
        finally:
            browser.close()


def chromium_or_skip() -> str:
    if shutil.which(CHROMIUM) or Path(CHROMIUM).exists():
        return CHROMIUM
    if os.environ.get("CI"):
        pytest.fail("Chromium fehlt: .ci/run installiert es mit apt-get (Paket chromium).")
    pytest.skip("Chromium fehlt (apt-get install chromium); in CI ist dieser Test Pflicht.")


@contextmanager
def gui_page(workdir: Path, *, width: int, height: int) -> Iterator[tuple[str, Any]]:
    """A GUI process on ``workdir`` and a Chromium page of that viewport on its overview;
    yields the base URL and the page (which goes to a path relative to that URL too).
    Screenshots go to ``ARTIFACTS``."""
    ARTIFACTS.mkdir(exist_ok=True)
    with gui_process(workdir) as base, chromium() as browser:
        page = browser.new_page(viewport={"width": width, "height": height}, base_url=base)
        yield base, page


def screenshot(page: Any, name: str) -> None:
    """The whole page as ``ARTIFACTS/<name>-<viewport width>.png``."""
    ARTIFACTS.mkdir(exist_ok=True)
    width = page.viewport_size["width"]
    page.screenshot(path=str(ARTIFACTS / f"{name}-{width}.png"), full_page=True)


def fill_run_form(page: Any, name: str, base_url: str, models: str, variants: str = "") -> Any:
    """The overview's run form with a run's name, endpoint and models (and variants, when
    named); returns the form."""
    form = page.locator("#run-form")
    form.locator("[name=name]").fill(name)
    form.locator("[name=base_url]").fill(base_url)
    form.locator("[name=models]").fill(models)
    if variants:
        form.locator("[name=variants]").fill(variants)
    return form


# WCAG contrast of every visible text element against the first opaque background behind
# it; returns those under 4.5:1 (the level for normal text) as "tag.class: ratio".
LOW_CONTRAST_JS = """
() => {
  const rgb = s => (s.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = c => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const background = el => {
    for (; el; el = el.parentElement) {
      const c = rgb(getComputedStyle(el).backgroundColor);
      if (c.length === 3 || c[3] === 1) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const low = [];
  for (const el of document.body.querySelectorAll("*")) {
    const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    const style = getComputedStyle(el);
    if (!own || style.visibility === "hidden" || !el.getClientRects().length) continue;
    if (el.closest("option, select, input, textarea")) continue;  // drawn by the browser
    const [a, b] = [lum(rgb(style.color).slice(0, 3)), lum(background(el))];
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    if (ratio < 4.5) low.push(`${el.tagName.toLowerCase()}.${el.className}: ${ratio.toFixed(2)}`);
  }
  return low;
}
"""


def judge_on_run_page(page: Any, config: str, button: str = "start-judge") -> None:
    """On the run page of the workspace's run: the judge form with ``config``, then its
    ``button`` ("start-judge" or "check-judge")."""
    page.goto("/runs/tiny")
    page.get_by_test_id("config").select_option(config)
    page.get_by_test_id(button).click()
