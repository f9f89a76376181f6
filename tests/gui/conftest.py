"""The GUI tests' fixtures, once: a workspace with an answered run, and the app on it in a
TestClient whose jobs are real CLI processes. A module that needs another workspace or job
environment overrides the fixture by its name."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.gui.gui_support import gui_client, job_manager, make_workspace, offline_env
from touchstone.sim import SimServer


@pytest.fixture
def workspace(tmp_path: Path, sim: SimServer) -> Path:
    return make_workspace(tmp_path, sim)


@pytest.fixture
def client(workspace: Path) -> Iterator[TestClient]:
    with gui_client(workspace, jobs=job_manager(workspace, offline_env(workspace))) as test_client:
        yield test_client
