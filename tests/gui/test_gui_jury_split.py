"""A jury whose members disagree says so where its card shows: the GUI's run page and
report.html ("Jury uneinig: … Wertung nicht belastbar", issue 36); an agreeing one does not."""

from __future__ import annotations

import html
from pathlib import Path

import pytest

from tests.gui.gui_support import gui_client, job_manager, make_workspace
from tests.unit.jury.test_jury_agreement_after_judge import judged_by
from touchstone.sim import SimServer
from touchstone.stages.view import load_run, write_report

SPLIT = 'data-testid="jury-split"'


def pages(tmp_path: Path, sim: SimServer, *members: str) -> tuple[str, str]:
    """The run page and report.html of the workspace's run judged by a jury of ``members``."""
    root = make_workspace(tmp_path, sim)
    run = root / "runs" / "tiny"
    judged_by(sim, run, *members)
    view = load_run(run)
    report = write_report(view, view.scorecard()).read_text(encoding="utf-8")
    with gui_client(root, jobs=job_manager(root, {"PATH": ""})) as client:
        return client.get("/runs/tiny").text, report


@pytest.mark.parametrize("where", ["gui", "report"])
def test_a_split_jury_is_called_so_beside_its_card(
    tmp_path: Path, sim: SimServer, where: str
) -> None:
    run_page, report = pages(tmp_path, sim, "sim-judge", "sim-gullible")
    page = html.unescape(run_page if where == "gui" else report)
    assert 'data-testid="jury-card"' in page and page.count(SPLIT) == 1
    said = page.split(SPLIT, 1)[1].split("</p>", 1)[0]
    assert "Jury uneinig: α = -" in said and said.endswith("Wertung nicht belastbar</b>")
    assert "von 6 Zellen strittig" in said


def test_an_agreeing_jury_has_its_card_without_the_verdict(tmp_path: Path, sim: SimServer) -> None:
    for page in pages(tmp_path, sim, "sim-judge", "sim-strict"):
        assert 'data-testid="jury-card"' in page and SPLIT not in page
