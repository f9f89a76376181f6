"""The prompt page names the terminal command that prints the same replies (design.md §26):
``touchstone show RUN PROMPT_ID`` with the run's path as the GUI found it, quoted for a shell."""

from __future__ import annotations

import shlex
from pathlib import Path

from fastapi.testclient import TestClient


def test_the_prompt_page_names_the_show_command(client: TestClient, workspace: Path) -> None:
    page = client.get("/runs/tiny/prompts/R1").text
    assert 'data-testid="show-command"' in page
    run = workspace / "runs" / "tiny"
    assert f"touchstone show {shlex.quote(str(run))} R1" in page
