"""test_store.

Here the tests through touchstone's CLI in a subprocess; the in-process ones are in
``tests/unit/store/test_store.py``."""

import subprocess
from pathlib import Path

from tests.conftest import run_cli
from tests.unit.store.fifo_support import make_fifo, needs_fifo, release
from touchstone.store import RESPONSES


@needs_fifo
def test_report_on_a_run_with_a_fifo_exits_2_naming_it(answered_run: Path) -> None:
    fifo = make_fifo(answered_run / RESPONSES)
    try:
        result = run_cli("report", str(answered_run), cwd=answered_run.parent, timeout=15)
    except subprocess.TimeoutExpired:
        release(fifo)
        raise AssertionError("touchstone report blocks on a FIFO") from None
    assert result.returncode == 2, result.stderr
    assert "keine reguläre Datei" in result.stderr and "Traceback" not in result.stderr
    assert RESPONSES in result.stderr


def test_report_on_a_run_whose_answers_link_elsewhere_exits_2_naming_it(
    answered_run: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "fremd.jsonl"
    (answered_run / RESPONSES).rename(elsewhere)
    (answered_run / RESPONSES).symlink_to(elsewhere)
    result = run_cli("report", str(answered_run), cwd=answered_run.parent)
    assert result.returncode == 2, result.stderr
    assert "symbolischer Link" in result.stderr and RESPONSES in result.stderr
    assert "Traceback" not in result.stderr
