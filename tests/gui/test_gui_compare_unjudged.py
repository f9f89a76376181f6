"""A row answered but not judged yet reads "nicht bewertet" on the comparison page (issue 35),
not "kein gemeinsamer Prompt", and is no model to pair: the GUI's side of
``tests/unit/versus/test_gate_unjudged.py``."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.gui.gui_support import gui_client, job_manager
from tests.unit.versus.versus_support import BUERO, make_run


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("gui-unjudged")
    pack = root / "packs" / "buero.yaml"
    pack.parent.mkdir()
    shutil.copy(BUERO, pack)
    runs = root / "runs"
    make_run(runs / "basis", {"stabil": 5, "zweites": 5}, pack=pack)
    shutil.copytree(runs / "basis", runs / "teilweise")
    verdicts = runs / "teilweise" / "judgements.jsonl"
    kept = [
        line
        for line in verdicts.read_text(encoding="utf-8").splitlines(True)
        if json.loads(line)["model"] != "zweites"
    ]
    verdicts.write_text("".join(kept), encoding="utf-8")
    (runs / "teilweise" / "judge-state.json").unlink(missing_ok=True)
    return root


@pytest.fixture
def client(workdir: Path) -> Iterator[TestClient]:
    with gui_client(workdir, jobs=job_manager(workdir, {"PATH": ""})) as test_client:
        yield test_client


def test_a_row_not_yet_judged_says_so_on_the_page(client: TestClient) -> None:
    reply = client.get("/runs/teilweise/compare/basis")
    assert reply.status_code == 200, reply.text
    table = reply.text[reply.text.index('data-testid="versus"') :]
    table = table[: table.index("</table>")]
    assert table.count("<tr>") == 3 and "nicht bewertet (neu)" in table
    assert "kein gemeinsamer Prompt" not in table
    unjudged_row = next(r for r in table.split("<tr>") if "nicht bewertet (neu)" in r)
    # Mean, red flags, failures: nothing judged now, so no count (a 0 would read as a result).
    assert unjudged_row.count("→ –") == 3, unjudged_row
    assert "Noch nicht bewertet: 27 Antworten im neuen Run" in reply.text
    assert "zweites=" not in reply.text  # not offered as a model to pair
    api = client.get("/api/runs/teilweise/compare/basis").json()
    assert api["unjudged"] == {"new": 27, "baseline": 0}
