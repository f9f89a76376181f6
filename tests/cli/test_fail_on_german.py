"""``compare --fail-on`` takes its value in German, and the English one CI scripts already use."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.unit.versus.versus_support import make_run


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fail-on")
    make_run(root / "alt", {"stabil": 5, "verschlechtert": 5})
    make_run(root / "neu", {"stabil": 5, "verschlechtert": 3})
    return root


@pytest.mark.parametrize("value", ["schlechter", "worse"])
def test_both_names_of_the_gate_fail_a_worse_run(runs: Path, value: str) -> None:
    done = run_cli("compare", "neu", "alt", "--fail-on", value, cwd=runs)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Gate nicht bestanden" in done.stdout


def test_the_help_names_the_german_value_first() -> None:
    shown = run_cli("compare", "--help", cwd=Path.cwd(), timeout=60)
    flat = " ".join(shown.stdout.split())
    assert "schlechter (oder worse)" in flat
