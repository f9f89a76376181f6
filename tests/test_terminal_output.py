"""What reaches the terminal and the exports from outside (DESIGN §15, issue 21).

Names, rationales, paths and server messages are data: the terminal shows them literally
(no rich markup read from them, no control character passed through), ``verdicts.csv`` keeps
every field in its row and defused, and a failing ``--events`` file is a message, not a
traceback.
"""

import csv
import io
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import typer
from rich.table import Table

from touchstone.cli import ui
from touchstone.errors import RunIncomplete
from touchstone.pack import load_pack
from touchstone.plain import clean, plain
from touchstone.results import Verdict
from touchstone.sim import SimServer
from touchstone.stages.manifest import run_manifest
from touchstone.store import RunDir
from touchstone.store.exports import CSV_COLUMNS, verdict_csv_lines

from .conftest import make_response, run_cli
from .test_cli import judge_config

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


@pytest.fixture
def hostile_run(tiny_pack_path: Path, tmp_path: Path) -> Path:
    """Answers of models whose names are markup or escapes, in a dir whose path is markup."""
    out = tmp_path / "[red]runs[/red]" / "r"
    out.mkdir(parents=True)
    run = RunDir(out)
    pack = load_pack(tiny_pack_path)
    run.write_manifest(
        run_manifest(run, pack, tiny_pack_path, "http://127.0.0.1:9/v1", list(NAMES), ["none"], 1)
    )
    with run.response_appender() as appender:
        for model in NAMES:
            for prompt_id, category in (("R1", "R"), ("R2", "R"), ("S1", "S")):
                response = make_response(prompt_id, model=model, category=category)
                appender.append(response.as_dict())
    return out


def test_judge_and_report_show_hostile_names_literally_and_apart(
    hostile_run: Path, sim: SimServer, tmp_path: Path
) -> None:
    config = judge_config(tmp_path / "j.yaml", sim, "sim-judge")
    judged = run_cli("judge", str(hostile_run), "--config", str(config), cwd=tmp_path)
    reported = run_cli("report", str(hostile_run), cwd=tmp_path)
    for result in (judged, reported):
        assert result.returncode == 0, result.stderr
        assert_plain(result.stdout + result.stderr)
        for name in ("good[/]", "mistral[q4]", "mistral[q8]", "[bold red]evil"):
            assert name in result.stdout, (name, result.stdout)
        assert f"esc{SHOWN_ATTACK}name" in result.stdout
    assert str(hostile_run) in judged.stdout
    assert str(hostile_run / "report.html") in reported.stdout


def test_a_servers_404_and_the_out_path_print_literally(
    sim: SimServer, tiny_pack_path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "[red]x[/red]" / "r"
    model = f"sim-x{ATTACK}[bold]y"
    result = run_cli(
        "run",
        "--pack",
        str(tiny_pack_path),
        "--model",
        model,
        "--base-url",
        sim.base_url,
        "--out",
        str(out),
        cwd=tmp_path,
    )
    assert result.returncode == 1, result.stderr
    assert_plain(result.stdout + result.stderr)
    # The simulator's 404 quotes the name it was sent, escapes and all.
    assert f"The model 'sim-x{SHOWN_ATTACK}[bold]y' does not exist" in result.stderr
    assert str(out) in result.stdout and str(out) in result.stderr


# -- a hostile judge endpoint, through judge-check -----------------------------------------

HOSTILE_IDS = ["judge\x1b[2J", "judge[/]x", "\u202ejudge"]
RATIONALE = f"gut {ATTACK}[bold red]ok[/] Ende"


class _HostileJudge(BaseHTTPRequestHandler):
    """A judge endpoint whose every text is an attack: ids, 404 messages, rationales."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def _send(self, status: int, body: dict[str, Any]) -> None:
        payload = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self) -> None:
        self._send(200, {"object": "list", "data": [{"id": i} for i in HOSTILE_IDS]})

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if request["model"] != "gullible":
            message = f"The model '{request['model']}{ATTACK}' does not exist [/]"
            error = {"message": message, "type": "invalid_request_error"}
            self._send(404, {"error": {**error, "code": "model_not_found"}})
            return
        verdict = {"score": 5, "red_flag": False, "rationale": RATIONALE}
        message = {"role": "assistant", "content": json.dumps(verdict)}
        choice = {"index": 0, "message": message, "finish_reason": "stop"}
        self._send(200, {"id": "x", "object": "chat.completion", "created": 0, "choices": [choice]})


@pytest.fixture(scope="module")
def hostile_judge() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _HostileJudge)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def _check(base_url: str, model: str, pack: Path, tmp_path: Path) -> str:
    config = tmp_path / "j.yaml"
    config.write_text(
        f"endpoint: {{base_url: '{base_url}'}}\nmodel: '{model}'\nstream: false\n",
        encoding="utf-8",
    )
    result = run_cli("judge-check", "--pack", str(pack), "--config", str(config), cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    output = result.stdout + result.stderr
    assert_plain(output)
    return output


def test_judge_check_shows_a_hostile_endpoints_texts_plainly(
    hostile_judge: str, tiny_pack_path: Path, tmp_path: Path
) -> None:
    unknown = _check(hostile_judge, "judge", tiny_pack_path, tmp_path)
    assert "does not exist [/]" in unknown and SHOWN_ATTACK in unknown
    # "Meinten Sie …?" names the closest; a name like none lists what the endpoint offers.
    assert "\u202e" not in unknown and "„\\u202ejudge“?" in unknown
    listed = _check(hostile_judge, "kein-modell", tiny_pack_path, tmp_path)
    assert "judge\\x1b[2J" in listed and "judge[/]x" in listed
    assert "\u202e" not in listed and "\\u202ejudge" in listed

    gullible = _check(hostile_judge, "gullible", tiny_pack_path, tmp_path)
    assert "Verfehlte Proben" in gullible
    assert f"gut {SHOWN_ATTACK}[bold red]ok[/] Ende" in gullible


# -- verdicts.csv ----------------------------------------------------------------------------


def test_csv_fields_with_line_breaks_stay_in_their_row_and_formulas_stay_defused() -> None:
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
    data = "".join(verdict_csv_lines(verdicts, responses))
    # A reader ends a row at a bare CR as at LF, unless the field is quoted.
    rows = list(csv.reader(io.StringIO(data.removeprefix("\ufeff"), newline=""), delimiter=";"))
    assert rows[0] == list(CSV_COLUMNS) and len(rows) == 1 + len(hostile)
    column = {name: CSV_COLUMNS.index(name) for name in ("Begründung", "Antwort", "Judge-Modell")}
    for row, text in zip(rows[1:], hostile, strict=True):
        for index in column.values():
            assert row[index][:1] not in ("=", "+", "-", "@", "\t", "\r"), row
            assert row[index].removeprefix("'") == text


# -- a failing --events file ----------------------------------------------------------------


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
def test_a_full_events_file_is_a_message_naming_it_and_exit_2(
    sim: SimServer, tiny_pack_path: Path, tmp_path: Path
) -> None:
    result = run_cli(
        "run",
        "--pack",
        str(tiny_pack_path),
        "--model",
        "sim-gut",
        "--base-url",
        sim.base_url,
        "--out",
        str(tmp_path / "r"),
        "--events",
        "/dev/full",
        cwd=tmp_path,
    )
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert "/dev/full" in result.stderr and "voll" in result.stderr


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
