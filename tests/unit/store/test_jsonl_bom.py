"""A run-dir JSONL file saved with a UTF-8 BOM (Windows Notepad does it) reads like one
without, as ``pack import`` reads a BOM (issue 35); appending to it keeps it readable."""

from __future__ import annotations

import codecs
import json
from pathlib import Path

import pytest

from tests.conftest import make_response
from tests.unit.spot.test_human import SCALE
from touchstone.store import RESPONSES, RunDir
from touchstone.store.ratings import HUMAN, load_ratings

RATING = {
    "model": "a",
    "variant": "none",
    "prompt_id": "p",
    "repeat": 1,
    "score": 3,
    "red_flag": False,
    "rater": "anna",
    "rated_at": "2026-12-01T08:00:00+00:00",
}


def test_a_human_jsonl_with_a_bom_is_read(tmp_path: Path) -> None:
    path = tmp_path / HUMAN
    path.write_bytes(codecs.BOM_UTF8 + (json.dumps(RATING) + "\n").encode())
    assert [r.score for r in load_ratings(path, SCALE, pytest.fail)] == [3]


def test_responses_with_a_bom_are_read_and_appended_to(answered_run: Path) -> None:
    path = answered_run / RESPONSES
    before = RunDir(answered_run).load_responses()
    path.write_bytes(codecs.BOM_UTF8 + path.read_bytes())
    run = RunDir(answered_run)
    assert run.load_responses() == before and run.warnings == []
    with run.response_appender() as out:
        out.append(make_response("S1").as_dict())
    again = RunDir(answered_run)
    assert [r.prompt_id for r in again.load_responses()][-1] == "S1" and again.warnings == []
