"""A GUI job's hint names the command as the GUI was started (issue 36): the job itself runs
as ``python -m touchstone``, but its user typed ``uv run touchstone gui``. The CLI's side:
``tests/cli/test_hints_as_started.py``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gui.gui_support import gui_client, job_manager, wait_for
from touchstone.started import ENV
from touchstone.store.rundir import RESPONSES


def test_a_job_names_the_command_the_gui_was_started_with(
    answered_run: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ENV)
    monkeypatch.setenv("UV", "/usr/bin/uv")  # the GUI's own process, started by uv
    (answered_run / RESPONSES).write_text("", encoding="utf-8")  # a run with no answer yet
    jobs = job_manager(answered_run.parent.parent, {"PATH": ""})  # the job sees no UV
    job = jobs.start(answered_run, ["judge", str(answered_run)])
    record = wait_for(lambda: (r := jobs.get(job)) and r["state"] != "running" and r)
    assert record["exit_code"] == 2
    said = " ".join(record["message"].split())
    assert f"zuerst `uv run touchstone run`: {answered_run}" in said, said


def test_the_empty_overview_names_the_demo_as_the_gui_was_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ENV)
    monkeypatch.setenv("UV", "/usr/bin/uv")
    (tmp_path / "runs").mkdir()
    with gui_client(tmp_path) as client:
        page = client.get("/").text
    assert "<code>uv run touchstone demo</code> im Terminal" in page
