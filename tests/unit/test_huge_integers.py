"""An integer too long for Python (more than 4,300 digits) in each reader of JSON from
outside (issue 35): bad input named like any other malformed JSON, never a ``ValueError``
the caller does not expect. The readers' faces: ``tests/gui/test_gui_damaged_run.py``,
``tests/cli/test_damaged_run_cli.py``, ``tests/http/test_huge_integer_replies.py``."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.unit.packs.test_pack_check import cli
from touchstone.errors import InputError
from touchstone.events import read_events
from touchstone.sim import SimServer
from touchstone.store import MANIFEST, RunDir

HUGE = "7" * 4301
SAID = "kein gültiges JSON: eine Zahl mit mehr als 4300 Ziffern"


def test_a_run_json_with_one_is_bad_input_naming_the_file(answered_run: Path) -> None:
    (answered_run / MANIFEST).write_text(f'{{"repeats": {HUGE}}}', encoding="utf-8")
    with pytest.raises(InputError) as caught:
        RunDir(answered_run).read_manifest()
    assert str(caught.value).startswith(f"{answered_run / MANIFEST}: {SAID} (Zeile 1, Spalte 13)")


def test_pack_import_names_the_line_and_column(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    good = {"id": "A1", "category": "B", "text": "T", "expectations": ["e"]}
    source = tmp_path / "p.jsonl"
    source.write_text(f'{json.dumps(good)}\n{{"id": {HUGE}}}\n', encoding="utf-8")
    code, _, err = cli(
        monkeypatch, capsys, "pack", "import", str(source), "--out", str(tmp_path / "p.yaml")
    )
    assert code == 2 and "Traceback" not in err
    said = "Zeile 2, Spalte 8: kein gültiges JSON (eine Zahl mit mehr als 4300 Ziffern)"
    assert said in " ".join(err.split())


def test_an_events_file_keeps_its_other_events(tmp_path: Path) -> None:
    path = tmp_path / "job.events"
    path.write_bytes(
        f'{{"event": "progress", "done": {HUGE}}}\n\xff\n{{"event": "done"}}\n'.encode()
    )
    assert read_events(path) == [{"event": "done"}]


def test_the_simulator_answers_a_request_body_with_one_with_a_400(sim: SimServer) -> None:
    request = urllib.request.Request(
        f"{sim.base_url}/chat/completions", data=f'{{"n": {HUGE}}}'.encode(), method="POST"
    )
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request, timeout=5)
    assert caught.value.code == 400
