"""What a German reader sees (design.md §22): numbers with a decimal comma in the report and the
GUI, ``verdicts.csv`` for a German Excel, counted words, error kinds in German."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest

from tests.conftest import make_response
from touchstone.pack import Pack
from touchstone.results import Verdict
from touchstone.sim import SimServer
from touchstone.store.exports import verdict_csv_lines

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


def test_verdicts_csv_opens_in_a_german_excel(tiny_pack: Pack) -> None:
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
    data = "".join(verdict_csv_lines(verdicts, [*responses, timed_out], tiny_pack)).encode("utf-8")
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
    from touchstone.scorecard.build import build_scorecard
    from touchstone.stages.judge.outcome import JudgeOutcome
    from touchstone.stages.run.answering import RunSummary
    from touchstone.stages.run.run import RunOutcome
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
