"""A run with answers but no verdict offers no report, no CSV and no spot check (issue 36):
each would be empty (a report of nothing, a CSV of headers, a sample of no verdict). The page
says why they are missing and what comes first; once judged, all three are offered."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from tests.gui.gui_support import gui_client
from tests.gui.test_gui_phone import judged_workspace
from touchstone.sim import SimServer

OFFERS = (
    'href="/api/runs/tiny/verdicts.csv"',
    'href="/runs/tiny/report.html"',
    'href="/runs/tiny/rate"',
)


def test_an_unjudged_run_offers_no_report_csv_or_spot_check(client: TestClient) -> None:
    html = client.get("/runs/tiny").text
    assert [offer for offer in OFFERS if offer in html] == []
    assert "Noch keine Bewertungen" in html and "„Judge starten“" in html
    assert 'data-testid="rate-link"' in html and 'aria-disabled="true"' in html


def test_a_judged_run_offers_all_three(tmp_path: Path, sim: SimServer) -> None:
    with gui_client(judged_workspace(tmp_path, sim)) as judged:
        html = judged.get("/runs/tiny").text
    assert [offer for offer in OFFERS if offer not in html] == []
    assert "Noch keine Bewertungen" not in html
