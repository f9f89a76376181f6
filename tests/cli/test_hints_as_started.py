"""A hint names the command the way this process was started (issue 36): ``uv run touchstone``
under uv (uv sets ``UV``), ``python -m touchstone`` as a module, ``touchstone`` as the console
script. ``tests/conftest.py`` pins ``TOUCHSTONE_COMMAND`` for every other test; these unset it
and set or unset ``UV`` themselves. The GUI's side: ``tests/gui/test_gui_job_hints.py``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from touchstone.started import ENV


def _report(argv: list[str], run: Path, **env: str) -> str:
    """What ``ARGV report RUN`` of an unjudged run says, joined to one line."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "UV", ENV))}
    done = subprocess.run(
        [*argv, "report", str(run)],
        cwd=run.parent,
        capture_output=True,
        text=True,
        timeout=60,
        env={**base, **env},
    )
    assert done.returncode == 2, done.stderr
    return " ".join((done.stdout + done.stderr).split())


@pytest.mark.parametrize(
    ("env", "start"),
    [({"UV": "/usr/bin/uv"}, "uv run touchstone"), ({}, "python -m touchstone")],
)
def test_a_hint_names_the_command_as_it_was_started(
    answered_run: Path, env: dict[str, str], start: str
) -> None:
    said = _report([sys.executable, "-m", "touchstone"], answered_run, **env)
    assert f"zuerst `{start} judge {answered_run} --config judge.yaml`" in said, said


def test_the_console_script_names_itself(answered_run: Path) -> None:
    script = Path(sys.executable).with_name("touchstone")
    said = _report([str(script)], answered_run)
    assert f"zuerst `touchstone judge {answered_run}" in said, said


def test_a_given_command_beats_uv(answered_run: Path) -> None:
    # What the GUI hands its jobs: the command as the GUI itself was started.
    said = _report(
        [sys.executable, "-m", "touchstone"], answered_run, UV="/usr/bin/uv", **{ENV: "ts"}
    )
    assert f"zuerst `ts judge {answered_run}" in said, said
