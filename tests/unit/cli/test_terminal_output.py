"""What reaches the terminal and the exports from outside (design.md §15, issue 21).

Names, rationales, paths and server messages are data: the terminal shows them literally
(no rich markup read from them, no control character passed through), ``verdicts.csv`` keeps
every field in its row and defused, and a failing ``--events`` file is a message, not a
traceback.
"""

import csv
import io
from pathlib import Path

import pytest
import typer
from rich.table import Table

from tests.conftest import make_response
from touchstone.cli import ui
from touchstone.errors import RunIncomplete
from touchstone.pack import Pack
from touchstone.plain import clean, plain
from touchstone.results import Verdict
from touchstone.store.exports import CSV_COLUMNS, verdict_csv_lines

ESC = "\x1b"
# Clears the screen, sets the window title, moves the cursor home: what a name could do.
ATTACK = "\x1b[2J\x1b]0;pwned\x07\x1b[H"
SHOWN_ATTACK = "\\x1b[2J\\x1b]0;pwned\\x07\\x1b[H"
NAMES = ("good[/]", "mistral[q4]", "mistral[q8]", "[bold red]evil", f"esc{ATTACK}name")


def assert_plain(output: str) -> None:
    assert ESC not in output and "\x07" not in output, output
    assert "Traceback" not in output, output


# -- the one function ---------------------------------------------------------------------


def test_control_characters_are_written_out_and_text_stays_distinct() -> None:
    assert clean("a\nb\tc") == "a\nb\tc"
    assert clean(ATTACK) == SHOWN_ATTACK
    assert clean("\r\x00\x7f\x85\x9b") == "\\x0d\\x00\\x7f\\x85\\x9b"
    # Bidi overrides reorder what follows them; a lone surrogate cannot even be encoded.
    assert clean("\u202eabc\u2066") == "\\u202eabc\\u2066"
    assert clean("x\ud800") == "x\\ud800"
    assert clean("umlaut ä € 日本") == "umlaut ä € 日本"
    assert clean("a\x1bb") != clean("ab")
    text = plain("[bold red]evil[/]", style="yellow")
    assert text.plain == "[bold red]evil[/]" and str(text.style) == "yellow"


def test_the_cli_consoles_print_strings_plainly() -> None:
    console = ui.PlainConsole(file=io.StringIO(), width=200)
    table = Table()
    table.add_column("Modell")
    table.add_row("mistral[q4]")
    console.print(f"good[/] {ATTACK} :thumbs_up:")
    console.print(table)
    output = console.file.getvalue()  # type: ignore[attr-defined]
    assert_plain(output)
    assert f"good[/] {SHOWN_ATTACK} :thumbs_up:" in output and "mistral[q4]" in output


# -- a run dir with hostile names, through the CLI ---------------------------------------


# -- a hostile judge endpoint, through judge-check -----------------------------------------

HOSTILE_IDS = ["judge\x1b[2J", "judge[/]x", "\u202ejudge"]
RATIONALE = f"gut {ATTACK}[bold red]ok[/] Ende"


# -- verdicts.csv ----------------------------------------------------------------------------


def test_csv_fields_with_line_breaks_stay_in_their_row_and_formulas_stay_defused(
    tiny_pack: Pack,
) -> None:
    hostile = ["a\r=1+1", "b\n=2+2", "\t=3+3", "\r=4+4", "ok\r\n@SUM(A1)", "-5", "\t"]
    verdicts = [
        Verdict(
            model=f"m{i}",
            variant="none",
            prompt_id="R1",
            repeat=1,
            category="R",
            score=4,
            red_flag=False,
            rationale=text,
            judge_model=text,
        )
        for i, text in enumerate(hostile)
    ]
    responses = [make_response("R1", model=f"m{i}", text=text) for i, text in enumerate(hostile)]
    data = "".join(verdict_csv_lines(verdicts, responses, tiny_pack))
    # A reader ends a row at a bare CR as at LF, unless the field is quoted.
    rows = list(csv.reader(io.StringIO(data.removeprefix("\ufeff"), newline=""), delimiter=";"))
    assert rows[0] == list(CSV_COLUMNS) and len(rows) == 1 + len(hostile)
    column = {name: CSV_COLUMNS.index(name) for name in ("Begründung", "Antwort", "Judge-Modell")}
    for row, text in zip(rows[1:], hostile, strict=True):
        for index in column.values():
            assert row[index][:1] not in ("=", "+", "-", "@", "\t", "\r"), row
            assert row[index].removeprefix("'") == text


# -- a failing --events file ----------------------------------------------------------------


class _FailingWrites(io.StringIO):
    """A file on a disk that fills up just before the ``aborted`` event."""

    def write(self, text: str) -> int:
        if '"aborted"' in text:
            raise OSError(28, "No space left on device")
        return super().write(text)


class _FillingPath(type(Path())):  # type: ignore[misc]
    def open(self, *args: object, **kwargs: object) -> _FailingWrites:  # type: ignore[override]
        return _FailingWrites()


def test_an_events_file_failing_at_the_aborted_event_keeps_the_first_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The command fails for another reason and then the disk fills: that failure's message
    # and exit code stand, and the events file is named as well.
    events = _FillingPath(tmp_path / "events.jsonl")
    with pytest.raises(typer.Exit) as exit_info, ui.handled(events) as log:
        assert log is not None
        log("start", {"total": 3})
        raise RunIncomplete("3 Zellen offen.")
    assert exit_info.value.exit_code == 1
    err = capsys.readouterr().err
    assert "Run unvollständig: 3 Zellen offen." in err
    assert f"{events}: der Datenträger ist voll" in err
    assert "Traceback" not in err
