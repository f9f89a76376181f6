"""What a German reader sees (DESIGN §22): numbers with a decimal comma in the report and the
GUI, ``verdicts.csv`` for a German Excel, counted words, error kinds in German."""

from __future__ import annotations

import csv
import io
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from touchstone import german
from touchstone.gui.app import create_app
from touchstone.gui.jobs import JobManager
from touchstone.judge.config import JudgeConfig, JudgeEndpoint
from touchstone.pack import Pack
from touchstone.results import Verdict
from touchstone.sim import SimServer
from touchstone.stages import execute_judge, load_run, write_report
from touchstone.store.exports import verdict_csv_lines

from .conftest import FakeJudge, make_response
from .gui_support import make_workspace

PORT = 8765

# "4.85", "0.672" or "2.5" between non-digits: a number in English notation. "4.762" is a
# German thousands point ("4.762 Tok/s"); a version "1.2.3" would continue with a point.
ENGLISH_DECIMAL = re.compile(r"(?<![\d.,])(?:0\.\d+|\d+\.(?:\d{1,2}|\d{4,}))(?![\d.])")


def _verdict(prompt_id: str, score: int, **kw: object) -> Verdict:
    return Verdict(
        model=str(kw.pop("model", "m")),
        variant="none",
        prompt_id=prompt_id,
        repeat=1,
        category="R",
        score=score,
        red_flag=bool(kw.pop("red_flag", False)),
        rationale=str(kw.pop("rationale", "gut")),
        judge_model="j",
        **kw,
    )  # type: ignore[arg-type]


def _csv_rows(data: bytes) -> list[dict[str, str]]:
    text = data.decode("utf-8-sig")
    return list(csv.DictReader(io.StringIO(text, newline=""), delimiter=";"))


def test_verdicts_csv_opens_in_a_german_excel() -> None:
    responses = [make_response("R1", text="Antwort; mit Semikolon"), make_response("R2")]
    responses[0].latency_s = 1.25
    responses[0].completion_tokens = 6224
    timed_out = make_response("R3", ok=False, error="keine Antwort innerhalb der Frist")
    verdicts = [
        _verdict("R1", 4, red_flag=True),
        _verdict("R2", 2),
        _verdict(
            "R3",
            0,
            unscored=True,
            unscored_reason="model_error",
            error_kind="timeout",
        ),
    ]
    data = "".join(verdict_csv_lines(verdicts, [*responses, timed_out])).encode("utf-8")
    assert data.startswith(b"\xef\xbb\xbf")
    header = data.decode("utf-8-sig").splitlines()[0]
    assert header.count(";") >= 10 and "," not in header
    rows = _csv_rows(data)
    first = rows[0]
    assert first["Modell"] == "m" and first["Prompt"] == "R1"
    assert first["Wertung"] == "4" and first["Warnsignal"] == "ja"
    assert rows[1]["Warnsignal"] == "nein" and rows[1]["unbewertet"] == "nein"
    assert first["Antwort"] == "Antwort; mit Semikolon"
    assert first["Latenz (s)"] == "1,25" and first["Ausgabe-Tokens"] == "6224"
    third = rows[2]
    assert third["unbewertet"] == "ja" and third["Wertung"] == ""
    assert "Frist überschritten" in third["Grund"] and "timeout" not in third["Grund"]


def test_error_kinds_have_german_labels_for_every_kind() -> None:
    from touchstone.errors import ERROR_KINDS, kind_label

    for kind in ERROR_KINDS:
        label = kind_label(kind)
        assert label and label != kind and "_" not in label, kind
    assert kind_label("timeout") == "Frist überschritten"
    assert kind_label("unparseable") == "Judge-Ausgabe unlesbar"


# -- numbers and dates in report.html and the GUI pages ------------------------------------


class _VariedJudge(FakeJudge):
    """Scores each answer by its text, so that means have decimals."""

    def judge(self, *, system: str, user: str) -> str:
        self.history.append({"system": system, "user": user})
        score = len(user) % 6
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
    app = create_app(judged_workspace / "runs", workdir=judged_workspace, port=PORT, jobs=jobs)
    with TestClient(app, base_url=f"http://127.0.0.1:{PORT}") as client:
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
    app = create_app(judged_workspace / "runs", workdir=judged_workspace, port=PORT, jobs=jobs)
    with TestClient(app, base_url=f"http://127.0.0.1:{PORT}") as client:
        html = client.get("/runs/tiny/report.html").text
    assert not (run / "verdicts.csv").exists()
    assert "neben diesem Bericht" not in html
    # It says where the verdicts are instead: the GUI's download.
    assert 'href="/api/runs/tiny/verdicts.csv"' in html
    written = write_report(load_run(run), load_run(run).scorecard()).read_text(encoding="utf-8")
    assert "<code>verdicts.csv</code> neben diesem Bericht" in written


def test_the_gui_exports_the_verdicts_its_filters_select_or_all(judged_workspace: Path) -> None:
    jobs = JobManager(judged_workspace / "runs", judged_workspace)
    app = create_app(judged_workspace / "runs", workdir=judged_workspace, port=PORT, jobs=jobs)
    with TestClient(app, base_url=f"http://127.0.0.1:{PORT}") as client:
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


# -- --help ---------------------------------------------------------------------------------

ENGLISH_HELP = (
    "Usage",
    "Show this message",
    "[default",
    "[required]",
    "Options",
    "OPTIONS",
    "COMMAND",
    "ARGS",
    "<int>",
    "<str>",
    "<path>",
    "<float>",
    "<bool>",
    "list[",
    "too_large",
)


def _help(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *args: str) -> str:
    from touchstone.cli import main

    monkeypatch.setenv("COLUMNS", "120")
    monkeypatch.setattr("sys.argv", ["touchstone", *args, "--help"])
    with pytest.raises(SystemExit) as exit_info:
        main()
    assert exit_info.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize(
    "command",
    [
        (),
        ("run",),
        ("judge",),
        ("report",),
        ("judge-check",),
        ("gui",),
        ("sim",),
        ("demo",),
        ("cache",),
        ("cache", "clear"),
        ("pack",),
        ("pack", "check"),
        ("pack", "import"),
    ],
)
def test_help_is_german_with_defaults(
    command: tuple[str, ...], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = _help(capsys, monkeypatch, *command)
    assert "Aufruf: touchstone" in text and "Diese Hilfe zeigen" in text
    found = [word for word in ENGLISH_HELP if word in text]
    assert not found, (found, text)
    if command == ("run",):
        assert "[Standard: 1]" in text and "<Ganzzahl>" in text and "<Pfad>" in text


# -- no empty progress bar before an error -------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ("run", "--pack", "fehlt.yaml", "--model", "m"),
        ("judge", "fehlt"),
    ],
)
def test_bad_input_shows_the_error_without_an_empty_progress_bar(
    args: tuple[str, ...],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from touchstone.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.argv", ["touchstone", *args])
    with pytest.raises(SystemExit) as exit_info:
        main()
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("Fehler:"), err
    assert "━" not in err and "0/?" not in err


def test_a_run_still_shows_its_progress(
    sim: SimServer,
    tiny_pack_path: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from touchstone.cli import main

    out = tmp_path / "r"
    argv = ["touchstone", "run", "--pack", str(tiny_pack_path), "--model", "sim-gut"]
    argv += ["--variant", "none", "--out", str(out), "--base-url", sim.base_url]
    monkeypatch.setattr("sys.argv", argv)
    with pytest.raises(SystemExit) as exit_info:
        main()
    assert exit_info.value.code == 0
    err = capsys.readouterr().err
    assert "Antworten" in err and "3/3" in err


# -- counted words ----------------------------------------------------------------------------

ONE_PLURAL = re.compile(r"(?<![\d.,])1 (Antworten|Bewertungen|Zellen|Aufrufe|Prompts|Einträge)\b")


def test_messages_say_1_antwort_not_1_antworten(
    answered_run: Path, tiny_pack: Pack, capsys: pytest.CaptureFixture[str]
) -> None:
    from touchstone.cli.ui import show_judge_outcome, show_run_outcome
    from touchstone.errors import RunIncomplete
    from touchstone.scorecard import build_scorecard
    from touchstone.stages import JudgeOutcome, RunOutcome
    from touchstone.stages.answering import RunSummary
    from touchstone.store import RunDir

    run = RunDir(answered_run)
    one = RunSummary(total=3, already_done=1, recorded=1, failed_recorded=1, left=1)
    with pytest.raises(RunIncomplete) as info:
        show_run_outcome(RunOutcome(run, one))
    card = build_scorecard([], [], scale_min=0)
    outcome = JudgeOutcome(run, tiny_pack, cells=1, card=card, new_verdicts=1, kept=1, stale=1)
    show_judge_outcome(outcome)
    text = capsys.readouterr().out + str(info.value)
    assert "1 Antwort gespeichert" in text and "1 neue Bewertung gespeichert" in text
    assert "1 Zelle offen" in text
    assert not ONE_PLURAL.findall(text), ONE_PLURAL.findall(text)


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
