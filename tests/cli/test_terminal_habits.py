"""Terminal habits (issue 36): a pipe honours COLUMNS, typos get "Meinten Sie …?", the help
page reads as prose, a busy GUI port says what to do, hints name the command as started."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from touchstone.errors import InputError
from touchstone.judge.config import load_judge_config


def _touchstone(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """``python -m touchstone ARGS`` piped, with ``env`` over the environment (no uv)."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "UV"))}
    base.pop("COLUMNS", None)
    return subprocess.run(
        [sys.executable, "-m", "touchstone", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        env={**base, **env},
    )


def test_the_help_page_wraps_rate_as_prose(tmp_path: Path) -> None:
    done = _touchstone("--help", cwd=tmp_path, COLUMNS="80")
    lines = done.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if "│ rate " in line)
    end = next(i for i, line in enumerate(lines) if "│ gui " in line)
    # Filled lines, not the docstring's hard breaks ("(ohne Modellnamen und" alone on one).
    filled = [line.strip("│ ") for line in lines[at : end - 1]]
    assert filled and all(len(line) > 50 for line in filled), lines[at:end]


def test_a_misspelt_command_gets_a_suggestion(tmp_path: Path) -> None:
    done = _touchstone("jduge", cwd=tmp_path)
    assert done.returncode == 2
    assert "Meinten Sie „judge“?" in done.stderr


def test_a_misspelt_config_key_gets_a_suggestion(tmp_path: Path) -> None:
    config = tmp_path / "judge.yaml"
    config.write_text("model: sim-judge\ncall_timout_s: 30\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_judge_config(config)
    assert "call_timout_s" in str(caught.value)
    assert "Meinten Sie „call_timeout_s“?" in str(caught.value)


def test_a_busy_gui_port_names_the_port_and_port_0(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        done = _touchstone("gui", "--no-browser", "--port", str(port), cwd=tmp_path)
    assert done.returncode == 2
    assert "Errno" not in done.stderr
    assert f"Port {port} ist schon belegt" in done.stderr
    assert "--port 0" in done.stderr
