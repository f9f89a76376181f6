"""What a German reader sees (design.md §22): numbers with a decimal comma in the report and the.

Here the tests through the GUI (FastAPI's TestClient or headless Chromium); the in-process ones
are in ``tests/unit/test_german_output.py``."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.conftest import FakeJudge
from tests.gui.gui_support import gui_client, make_workspace
from tests.unit.test_german_output import ENGLISH_DECIMAL, _csv_rows
from touchstone import german
from touchstone.gui.jobs import JobManager
from touchstone.judge.config import JudgeConfig, JudgeEndpoint
from touchstone.sim import SimServer
from touchstone.stages.judge.judge import execute_judge
from touchstone.stages.view import load_run, write_report
from touchstone.transport.fake import SentCall
from touchstone.transport.replies import ChatReply


class _VariedJudge(FakeJudge):
    """Scores each answer by its text, so that means have decimals."""

    async def reply(self, sent: SentCall) -> str | ChatReply:
        score = len(sent.user) % 6
        return f'{{"score": {score}, "red_flag": {str(score < 2).lower()}, "rationale": "ok"}}'


class _ReadText(HTMLParser):
    """What a person reads of a page: its text and tooltips, not styles or scripts."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("style", "script"):
            self._skip += 1
        self.parts.extend(value or "" for name, value in attrs if name == "title")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("style", "script"):
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def read_text(html: str) -> str:
    parser = _ReadText()
    parser.feed(html)
    return " ".join(parser.parts)


def assert_german_numbers(html: str) -> str:
    text = read_text(html)
    assert not ENGLISH_DECIMAL.findall(text), ENGLISH_DECIMAL.findall(text)[:5]
    assert not re.search(r"\d{4}-\d\d-\d\dT\d\d", text), "a raw ISO time stamp"
    assert not re.search(r"±-|±–", text), "a ± that stands for no interval"
    return text


@pytest.fixture
def judged_workspace(tmp_path: Path, sim: SimServer) -> Path:
    workspace = make_workspace(tmp_path, sim)
    execute_judge(
        workspace / "runs" / "tiny",
        config=JudgeConfig(JudgeEndpoint(sim.base_url), "unused"),
        backend=_VariedJudge(),
    )
    return workspace


def test_report_html_shows_german_numbers_intervals_and_dates(judged_workspace: Path) -> None:
    view = load_run(judged_workspace / "runs" / "tiny")
    card = view.scorecard()
    html = write_report(view, card).read_text(encoding="utf-8")
    text = assert_german_numbers(html)
    assert re.search(r"\d,\d\d", text), "no number with a decimal comma"
    row = card.rows[0]
    assert row.interval is not None
    shown = german.interval(row.interval.mean, row.interval.low, row.interval.high)
    # On a page the bounds are held together by markup, the text copies as typed.
    assert shown in " ".join(text.split())
    assert not re.search("[\u00a0\u2060\u2011]", html)
    assert re.search(r"erstellt\s+\d\d\.\d\d\.\d{4}, \d\d:\d\d \S+", text)
    assert 'class="nowrap"' in html or "white-space:nowrap" in html


def test_gui_pages_show_german_numbers(judged_workspace: Path) -> None:
    jobs = JobManager(judged_workspace / "runs", judged_workspace)
    with gui_client(judged_workspace, jobs=jobs) as client:
        for path in ("/", "/runs/tiny", "/runs/tiny/prompts/R1", "/runs/tiny/report.html"):
            response = client.get(path)
            assert response.status_code == 200, path
            text = assert_german_numbers(response.text)
            # Copied text is what was shown: held together by markup, not by characters.
            assert not re.search("[\u00a0\u2060\u2011]", response.text), path
            # A prompt's text wraps to the page, not at the pack's hard line breaks.
            assert '<pre class="task"' not in response.text, path
            if path != "/runs/tiny/prompts/R1":
                assert re.search(r"\d,\d\d", text), path
        overview = read_text(client.get("/").text)
        assert re.search(r"\d\d\.\d\d\.\d{4}, \d\d:\d\d \S+", overview)


def test_a_report_the_gui_renders_claims_no_files_beside_it(judged_workspace: Path) -> None:
    run = judged_workspace / "runs" / "tiny"
    jobs = JobManager(judged_workspace / "runs", judged_workspace)
    with gui_client(judged_workspace, jobs=jobs) as client:
        html = client.get("/runs/tiny/report.html").text
    assert not (run / "verdicts.csv").exists()
    assert "neben diesem Bericht" not in html
    # It says where the verdicts are instead: the GUI's download.
    assert 'href="/api/runs/tiny/verdicts.csv"' in html
    written = write_report(load_run(run), load_run(run).scorecard()).read_text(encoding="utf-8")
    assert "<code>verdicts.csv</code> neben diesem Bericht" in written


def test_the_gui_exports_the_verdicts_its_filters_select_or_all(judged_workspace: Path) -> None:
    jobs = JobManager(judged_workspace / "runs", judged_workspace)
    with gui_client(judged_workspace, jobs=jobs) as client:
        every = _csv_rows(client.get("/api/runs/tiny/verdicts.csv").content)
        assert len(every) == 6
        response = client.get("/api/runs/tiny/verdicts.csv", params={"model": "sim-gut"})
        assert response.status_code == 200
        assert "gefiltert" in response.headers["content-disposition"]
        chosen = _csv_rows(response.content)
        assert len(chosen) == 3 and {row["Modell"] for row in chosen} == {"sim-gut"}
        bad = client.get("/api/runs/tiny/verdicts.csv", params={"min": "viel"})
        assert bad.status_code == 422
        page = client.get("/runs/tiny").text
    # One link for what the table's filters select, one for all.
    assert 'data-testid="csv-filtered"' in page and "gefilterten Bewertungen" in page
    assert 'data-testid="csv"' in page and "Alle Bewertungen als CSV" in page


def test_the_comparison_legend_names_what_the_blank_cells_are(judged_workspace: Path) -> None:
    view = load_run(judged_workspace / "runs" / "tiny")
    card = view.scorecard()
    assert len(card.ranked) > 1
    html = write_report(view, card).read_text(encoding="utf-8")
    matrix = html[html.index('<table class="matrix"') :]
    matrix = matrix[: matrix.index("</ul>")]
    # The only blank cells are the diagonal: the legend says that, not "one common prompt".
    assert matrix.count('title="eine Zeile gegen sich selbst">·</td>') == len(card.ranked)
    assert "·: eine Zeile gegen sich selbst" in matrix
    assert "nur ein gemeinsamer Prompt" not in html


def test_a_model_name_in_a_verdict_line_does_not_break_at_its_hyphen(
    judged_workspace: Path,
) -> None:
    view = load_run(judged_workspace / "runs" / "tiny")
    html = write_report(view, view.scorecard()).read_text(encoding="utf-8")
    judges = re.findall(r'<td class="judge"[^>]*>(.*?)</td>', html)
    assert judges and all(cell.startswith('<span class="name">') for cell in judges), judges[:2]


def test_counts_zero_in_every_row_get_no_column_but_one_line(judged_workspace: Path) -> None:
    view = load_run(judged_workspace / "runs" / "tiny")
    card = view.scorecard()
    assert not any(row.open or row.unscored or row.failed for row in card.rows)
    html = write_report(view, card).read_text(encoding="utf-8")
    table = html[html.index('<table class="scorecard"') :]
    table = table[: table.index("</table>")]
    assert "<th>offen</th>" not in table and "unbewertet (Grund)" not in table
    # The terminal's words: which counts are 0 everywhere.
    assert "fehlgeschlagen, unbewertet, offen: in allen Zeilen 0." in html
