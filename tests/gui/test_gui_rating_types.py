"""The GUI's rating API takes what ``human.jsonl``'s reader takes, no more (issue 35): one
strict definition of a rating's values for both, and German for a body it cannot read."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.gui import test_gui_rate
from tests.gui.gui_support import ORIGIN
from tests.unit.spot.test_human import SCALE
from tests.unit.test_quoted_names import rating_line
from touchstone.errors import InputError
from touchstone.store.ratings import HUMAN, load_ratings

# The module's run and GUI: a judged buero run, as the spot check's page tests have it.
judged = test_gui_rate.judged
workspace = test_gui_rate.workspace
client = test_gui_rate.client

LOOSE = [
    ("score", True),
    ("score", "3"),
    ("score", 3.0),
    ("red_flag", "yes"),
    ("red_flag", 1),
    ("red_flag", "true"),
]


def ratings_file(workspace: Path) -> Path:
    return workspace / "runs" / "buero" / HUMAN


@pytest.mark.parametrize(("field", "value"), LOOSE)
def test_a_value_the_reader_refuses_is_refused_by_the_api(
    client: TestClient, workspace: Path, tmp_path: Path, field: str, value: object
) -> None:
    cell = test_gui_rate.cell_of(test_gui_rate.rate_page(client))
    body = {"cell": cell, "score": 3, "red_flag": False, "rater": "anna", field: value}
    response = client.post("/api/runs/buero/ratings", json=body, headers=ORIGIN)
    assert response.status_code == 422, response.text
    detail = response.json()["detail"]
    assert detail.startswith("Ungültige Anfrage: ") and f"„{field}“" in detail
    assert not ratings_file(workspace).exists()  # nothing stored
    # The reader of human.jsonl refuses the same value in a line written by another tool.
    path = tmp_path / HUMAN
    path.write_text(rating_line(**{field: value}), encoding="utf-8")
    with pytest.raises(InputError, match="Zeile 1"):
        load_ratings(path, SCALE, lambda _: None)


def test_the_api_stores_what_the_reader_reads_back(client: TestClient, workspace: Path) -> None:
    cell = test_gui_rate.cell_of(test_gui_rate.rate_page(client))
    body = {"cell": cell, "score": 4, "red_flag": True, "rater": "anna", "note": "gut"}
    response = client.post("/api/runs/buero/ratings", json=body, headers=ORIGIN)
    assert response.status_code == 201, response.text
    (rating,) = load_ratings(ratings_file(workspace), SCALE, lambda _: None)
    assert (rating.score, rating.red_flag, rating.note, rating.rater) == (4, True, "gut", "anna")


@pytest.mark.parametrize(
    "raw",
    [
        b"\xff\xfe{}",  # not UTF-8
        b'{"cell": "x", "score": 1' + b"0" * 5000 + b', "rater": "anna"}',  # 5,001 digits
        b'{"cell": "x", "score": ',
        b"",
    ],
)
def test_a_body_that_is_no_json_is_refused_in_german(
    client: TestClient, workspace: Path, raw: bytes
) -> None:
    headers = {**ORIGIN, "Content-Type": "application/json"}
    response = client.post("/api/runs/buero/ratings", content=raw, headers=headers)
    assert response.status_code in (400, 422), response.text
    detail = response.json()["detail"]
    assert detail == "Ungültige Anfrage: der Inhalt ist kein gültiges JSON.", detail
    assert not ratings_file(workspace).exists()
