"""``compare --json FILE`` never overwrites what it did not write (issue 35): a target inside a
run dir, or an existing file that is not an earlier compare output, is refused (exit 2, the
file untouched) unless ``--force``; an earlier output is replaced atomically. The exit 3 of a
row not yet judged, as CI sees it. The check itself in-process:
``tests/unit/versus/test_json_target.py``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.unit.versus.versus_support import make_run

QUALITIES = {"stabil": 5, "zweites": 5}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("compare-json")
    make_run(root / "baseline", QUALITIES)
    make_run(root / "new", QUALITIES)
    return root


def test_the_runs_own_verdicts_are_not_overwritten(runs: Path) -> None:
    shutil.copytree(runs / "new", runs / "kopie")
    verdicts = runs / "kopie" / "judgements.jsonl"
    before = verdicts.read_bytes()
    done = run_cli("compare", "kopie", "baseline", "--json", str(verdicts), cwd=runs)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Run-Verzeichnis" in done.stderr and "--force" in done.stderr
    assert "Traceback" not in done.stderr
    assert verdicts.read_bytes() == before


def test_another_file_is_refused_and_an_earlier_output_replaced(runs: Path) -> None:
    notes = runs / "notizen.txt"
    notes.write_text("meine Notizen\n", encoding="utf-8")
    done = run_cli("compare", "new", "baseline", "--json", str(notes), cwd=runs)
    assert done.returncode == 2 and "notizen.txt" in done.stderr and "--force" in done.stderr
    assert notes.read_text(encoding="utf-8") == "meine Notizen\n"
    out = runs / "vergleich.json"
    for _ in range(2):  # written, then replaced: an earlier compare output
        done = run_cli("compare", "new", "baseline", "--json", str(out), cwd=runs)
        assert done.returncode == 0, done.stderr
        assert json.loads(out.read_text(encoding="utf-8"))["gate"]["exit_code"] == 0
    done = run_cli("compare", "new", "baseline", "--json", str(notes), "--force", cwd=runs)
    assert done.returncode == 0, done.stderr
    assert "rows" in json.loads(notes.read_text(encoding="utf-8"))


def test_a_row_not_yet_judged_is_exit_3_in_ci(runs: Path) -> None:
    partly = runs / "teilweise"
    shutil.copytree(runs / "new", partly)
    path = partly / "judgements.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(True)
    path.write_text("".join(x for x in lines if '"zweites"' not in x), encoding="utf-8")
    (partly / "judge-state.json").unlink(missing_ok=True)
    out = runs / "ci.json"
    done = run_cli(
        "compare", "teilweise", "baseline", "--fail-on", "worse", "--margin", "0.3",
        "--json", str(out), cwd=runs,
    )  # fmt: skip
    assert done.returncode == 3, done.stdout + done.stderr
    assert "Gate unentschieden" in done.stdout and "touchstone judge teilweise" in done.stdout
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["unjudged"] == {"new": 27, "baseline": 0}
    assert data["gate"]["not_compared"][0]["reason"] == "unjudged"
