"""The judge's biases measured on the run, where people see them (design.md §17): terminal,.

Here the tests through touchstone's CLI in a subprocess; the in-process ones are in
``tests/unit/scorecard/test_bias_card.py``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.unit.scorecard.test_bias_card import write_biased_run


@pytest.fixture
def biased(tmp_path: Path) -> Path:
    return write_biased_run(tmp_path)


def test_cli_report_ends_with_the_bias_lines(biased: Path) -> None:
    result = run_cli("report", str(biased), cwd=biased.parent.parent)
    assert result.returncode == 0, result.stderr
    flat = " ".join(result.stdout.split())
    assert "Gleiche Familie wie der Judge" in flat and "Punkte je 100 Wörter" in flat
