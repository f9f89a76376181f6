"""The prompt page leads on (issue 36): links to the previous and the next prompt of the pack
(in the pack's order, as the run page lists them), and the system prompt of each variant whose
answers it shows, since an answer is read against what the model was told."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.conftest import run_on_sim
from tests.gui.gui_support import make_workspace
from touchstone.sim import SimServer


@pytest.fixture
def workspace(tmp_path: Path, sim: SimServer) -> Path:
    root = make_workspace(tmp_path, sim)
    run_on_sim(
        sim,
        pack_path=root / "packs" / "tiny.yaml",
        models=["sim-gut"],
        variants=["none", "knapp"],
        out=root / "runs" / "varianten",
    )
    return root


def links(html: str) -> dict[str, str]:
    """The page's previous/next links: {rel: prompt id}."""
    found = re.findall(r'<a rel="(prev|next)" href="/runs/[^/"]+/prompts/([^"]+)"', html)
    return dict(found)


def test_each_prompt_links_its_neighbours_in_pack_order(client: TestClient) -> None:
    assert links(client.get("/runs/tiny/prompts/R1").text) == {"next": "R2"}
    assert links(client.get("/runs/tiny/prompts/R2").text) == {"prev": "R1", "next": "S1"}
    assert links(client.get("/runs/tiny/prompts/S1").text) == {"prev": "R2"}


def test_the_page_shows_each_variants_system_prompt(client: TestClient) -> None:
    html = client.get("/runs/varianten/prompts/R1").text
    section = html.split('data-testid="system-prompts"', 1)[1].split("</div>", 1)[0]
    assert "knapp" in section and "Antworte knapp." in section
    assert "none" in section and "(kein Systemprompt)" in section
    detail = client.get("/api/runs/varianten/prompts/R1").json()
    assert detail["variants"] == {"knapp": "Antworte knapp.", "none": ""}
    assert (detail["previous"], detail["next"]) == (None, "R2")
