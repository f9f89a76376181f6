"""What reaches the terminal and the exports from outside (design.md §15, issue 21).

Here the tests through touchstone's CLI in a subprocess; the in-process ones are in
``tests/unit/cli/test_terminal_output.py``."""

import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_cli import judge_config
from tests.conftest import http_server, make_response, run_args, run_cli
from tests.unit.cli.test_terminal_output import (
    ATTACK,
    HOSTILE_IDS,
    NAMES,
    RATIONALE,
    SHOWN_ATTACK,
    assert_plain,
)
from touchstone.pack import load_pack
from touchstone.sim import SimServer
from touchstone.stages.run.manifest import run_manifest
from touchstone.store import RunDir


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
    # Without the attack's ";": --model takes "a,b" and "a;b" as lists of models.
    attack, shown = ATTACK.replace(";", ""), SHOWN_ATTACK.replace(";", "")
    model = f"sim-x{attack}[bold]y"
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
    assert f"The model 'sim-x{shown}[bold]y' does not exist" in result.stderr
    # A run that got no answer says so once, on stderr (its new run dir removed).
    assert str(out) in result.stderr


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
    with http_server(_HostileJudge) as url:
        yield url


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


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
def test_a_full_events_file_is_a_message_naming_it_and_exit_2(
    sim: SimServer, tiny_pack_path: Path, tmp_path: Path
) -> None:
    result = run_cli(
        *run_args(tiny_pack_path, sim.base_url, tmp_path / "r", "sim-gut"),
        "--events",
        "/dev/full",
        cwd=tmp_path,
    )
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert "/dev/full" in result.stderr and "voll" in result.stderr
