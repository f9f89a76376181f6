"""The judge's biases measured on the run, where people see them (design.md §17): terminal,.

Here the tests through the GUI (FastAPI's TestClient or headless Chromium); the in-process ones
are in ``tests/unit/scorecard/test_bias_card.py``."""

from __future__ import annotations

from pathlib import Path

from tests.gui.gui_support import gui_client
from tests.unit.scorecard.test_bias_card import write_biased_run
from touchstone.stages.view import load_run, write_report


def test_report_and_gui_run_page_show_the_bias_card(tmp_path: Path) -> None:
    biased = write_biased_run(tmp_path)
    view = load_run(biased)
    write_report(view, view.scorecard())
    with gui_client(biased.parent.parent, runs=biased.parent) as client:
        page = client.get("/runs/laenge").text
    report = (biased / "report.html").read_text(encoding="utf-8")
    for html in (report, page):
        assert 'data-testid="bias-card"' in html
        assert html.count('data-testid="same-family"') == 1
        assert "gleiche Familie wie der Judge (qwen)" in html
        assert "Gleiche Familie wie der Judge: qwen2.5:7b · none (qwen)." in html
        assert "†" not in html
        assert "Punkte je 100 Wörter" in html
        assert "läge vor" in html and "kein Ersatz für die Wertung" in html
        # The legend says how: within prompts and models, not only within prompts.
        assert "festen Effekten für Prompts und Modell/Variante" in html
