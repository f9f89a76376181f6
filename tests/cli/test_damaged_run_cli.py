"""``touchstone report`` on a run dir whose run.json holds an integer too long for Python
(issue 35): bad input, exit 2, the file named in German, no traceback, nothing written. Its
in-process part: ``tests/unit/test_huge_integers.py``."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_cli
from touchstone.store import MANIFEST


def test_report_on_a_run_json_with_a_huge_integer_exits_2_naming_the_file(
    answered_run: Path, tmp_path: Path
) -> None:
    (answered_run / MANIFEST).write_text('{"repeats": ' + "7" * 4301 + "}", encoding="utf-8")
    before = sorted(p.name for p in answered_run.iterdir())
    done = run_cli("report", str(answered_run), cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    said = f"{answered_run / MANIFEST}: kein gültiges JSON: eine Zahl mit mehr als 4300 Ziffern"
    assert said in " ".join(done.stderr.split())
    assert sorted(p.name for p in answered_run.iterdir()) == before
