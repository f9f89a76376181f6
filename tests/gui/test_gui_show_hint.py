"""The prompt page names the terminal command that prints the same replies (design.md §26):
``touchstone show RUN PROMPT_ID`` with the run's path as the GUI found it, quoted for a shell."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from fastapi.testclient import TestClient


def test_the_prompt_page_names_the_show_command(client: TestClient, workspace: Path) -> None:
    page = client.get("/runs/tiny/prompts/R1").text
    assert 'data-testid="show-command"' in page
    run = workspace / "runs" / "tiny"
    assert f"touchstone show {shlex.quote(str(run))} R1" in page


def test_the_command_is_named_as_the_gui_was_started(
    client: TestClient, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under README's setup a bare ``touchstone`` is "command not found": the hint names the
    command the way the GUI itself was started, as every CLI hint does."""
    monkeypatch.setenv("TOUCHSTONE_COMMAND", "uv run touchstone")
    page = client.get("/runs/tiny/prompts/R1").text
    run = workspace / "runs" / "tiny"
    assert f"<code>uv run touchstone show {shlex.quote(str(run))} R1</code>" in page
