"""The GUI tests' fixtures, once: a workspace with an answered run, and the app on it in a
TestClient whose jobs are real CLI processes. A module that needs another workspace or job
environment overrides the fixture by its name."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.gui.gui_support import gui_client, gui_page, job_manager, make_workspace, offline_env
from touchstone.sim import SimServer


@pytest.fixture
def workspace(tmp_path: Path, sim: SimServer) -> Path:
    return make_workspace(tmp_path, sim)


@pytest.fixture
def client(workspace: Path) -> Iterator[TestClient]:
    with gui_client(workspace, jobs=job_manager(workspace, offline_env(workspace))) as test_client:
        yield test_client


@pytest.fixture
def page(request: pytest.FixtureRequest, workspace: Path) -> Iterator[Any]:
    """A Chromium page on the GUI of ``workspace``, at its overview (``page.goto`` takes paths
    relative to it): 900 px high, 1280 wide or as an ``indirect`` parametrization says."""
    width = getattr(request, "param", 1280)
    with gui_page(workspace, width=width, height=900) as (base, page):
        page.goto(base)
        yield page
