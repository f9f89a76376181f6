"""Absurd numbers are bad input with the allowed range (issue 35): ``--margin 1e308`` printed a
309-digit number, ``--margin 1e-300`` passed and said "unter -0,00", a price of 1e308 per
million made every cost infinite ("kostet schlimmstenfalls –"); budgets and ``--older-than``
had the same gap. Each is refused with exit 2, a short German message naming the option and
its range, before anything is read or written."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.unit.versus.versus_support import (
    BUERO,
    SIX_ROWS,
    difficulties,
    noisy_cells,
    write_cells,
)
from touchstone.cli import app
from touchstone.pack import load_pack

LONG_NUMBER = re.compile(r"\d{16}")


def refused(*args: str) -> str:
    """The CLI's output for ``args``, which must be bad input (exit 2), in a few words."""
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert "Traceback" not in text and not LONG_NUMBER.search(text), text
    assert len(text) < 400, text
    return text


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    root = tmp_path_factory.mktemp("absurd")
    rng = random.Random(7)
    pack = load_pack(BUERO)
    difficulty = difficulties(rng, pack, SIX_ROWS)
    new, old = (
        write_cells(root / name, BUERO, noisy_cells(rng, pack, SIX_ROWS, difficulty))
        for name in ("neu", "alt")
    )
    return str(new), str(old)


@pytest.mark.parametrize("margin", ["1e308", "1e-300", "0.001", "5", "-0.3", "nan"])
def test_a_margin_outside_the_scale_is_refused_with_its_range(
    two_runs: tuple[str, str], margin: str
) -> None:
    text = refused("compare", *two_runs, "--margin", margin)
    assert "--margin" in text and "von 0,01 bis unter 5 sein" in text


def test_a_sensible_margin_is_taken(two_runs: tuple[str, str]) -> None:
    result = CliRunner().invoke(app, ["compare", *two_runs, "--margin", "0.5"])
    assert result.exit_code in (0, 1, 3), result.output
    assert "Gate" in result.output


@pytest.mark.parametrize("price", ["1e308,1", "1,2000000"])
def test_a_price_beyond_a_million_per_million_is_refused(price: str, tmp_path: Path) -> None:
    text = refused(
        "run", "--pack", str(BUERO), "--model", "m", "--out", str(tmp_path / "r"),
        "--price-per-million", price, "--dry-run",
    )  # fmt: skip
    assert "--price-per-million" in text and "von 0 bis 1.000.000" in text
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("budget", ["1e308", "1e-300"])
def test_a_budget_beyond_reason_is_refused(budget: str, tmp_path: Path) -> None:
    text = refused(
        "run", "--pack", str(BUERO), "--model", "m", "--out", str(tmp_path / "r"),
        "--price-per-million", "1,2", "--max-tokens", "100", "--budget", budget, "--dry-run",
    )  # fmt: skip
    assert "--budget" in text and "1.000.000.000" in text


def test_a_judge_config_price_beyond_a_million_is_refused(
    two_runs: tuple[str, str], tmp_path: Path
) -> None:
    config = tmp_path / "judge.yaml"
    price = "price_per_million: {input: 1e308, output: 1}"
    config.write_text(f"endpoint: {{base_url: 'http://127.0.0.1:9/v1'}}\nmodel: j\n{price}\n")
    text = refused("judge", two_runs[0], "--config", str(config), "--dry-run")
    assert "price_per_million" in text and "höchstens 1.000.000" in text


def test_older_than_beyond_a_century_is_refused() -> None:
    text = refused("cache", "clear", "--older-than", "1e308")
    assert "--older-than" in text and "36.500" in text
