"""Every float option takes a decimal comma as touchstone prints it (issue 36): ``0,3`` and
``0.3`` alike; a thousands point or a list of numbers is refused in German, exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_args, run_cli
from tests.unit.versus.versus_support import every_fourth_worse, make_run
from touchstone.sim import SimServer

BAD = ["1.000,5", "0,3,4"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("decimal-compare")
    make_run(root / "baseline", {"stabil": 5, "leicht": 5})
    make_run(root / "new", {"stabil": 5, "leicht": every_fourth_worse})
    return root


def test_margin_with_a_comma_gates_as_with_a_point(runs: Path) -> None:
    comma = run_cli("compare", "new", "baseline", "--margin", "0,6", cwd=runs)
    point = run_cli("compare", "new", "baseline", "--margin", "0.6", cwd=runs)
    assert comma.returncode == point.returncode == 0, comma.stderr
    assert comma.stdout == point.stdout


def test_older_than_with_a_comma_clears_the_cache(
    private_verdict_cache: Path, tmp_path: Path
) -> None:
    done = run_cli("cache", "clear", "--older-than", "0,5", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "0 Einträge gelöscht" in done.stdout


@pytest.mark.parametrize("price", ["0.15,0.60", "0,15/0,60"])
def test_run_options_with_commas_are_read_as_numbers(
    sim: SimServer, tiny_pack_path: Path, tmp_path: Path, price: str
) -> None:
    args = run_args(tiny_pack_path, sim.base_url, tmp_path / "r", "sim-gut")
    done = run_cli(
        *args,
        "--call-timeout-s", "2,5", "--max-reply-mb", "0,5", "--max-tokens", "100",
        "--price-per-million", price, "--budget", "0,01", "--dry-run",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "0,01" in done.stdout + done.stderr


@pytest.mark.parametrize(
    "command",
    [
        ["compare", "new", "baseline", "--margin"],
        ["cache", "clear", "--older-than"],
        ["run", "--pack", "p.yaml", "--model", "m", "--budget"],
        ["run", "--pack", "p.yaml", "--model", "m", "--call-timeout-s"],
        ["run", "--pack", "p.yaml", "--model", "m", "--max-reply-mb"],
    ],
    ids=lambda command: command[-1],
)
@pytest.mark.parametrize("text", BAD)
def test_a_thousands_point_or_a_list_is_refused_naming_the_option(
    private_verdict_cache: Path, tmp_path: Path, command: list[str], text: str
) -> None:
    done = run_cli(*command, text, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert f"Ungültiger Wert für „{command[-1]}“" in done.stderr
    assert f"„{text}“ ist keine Zahl" in done.stderr and "0,3 oder 0.3" in done.stderr
    assert "Tausenderpunkte" in done.stderr and "Traceback" not in done.stderr
