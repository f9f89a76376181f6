"""``touchstone compare`` as CI calls it: the exit codes 0/1/2/3, the JSON, the messages.

Runs of known truth (tests/versus_support.py): in the new run one model is made worse; in
"ok" nothing is significantly worse and one model is slightly worse, within a margin of 0,6
but not of 0,2.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.unit.versus.versus_support import BUERO65, every_fourth_worse, make_run, noise_runs

BASELINE = {"stabil": 5, "verschlechtert": 5, "leicht": 5}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("versus-cli")
    make_run(root / "baseline", BASELINE)
    make_run(root / "new", {"stabil": 5, "verschlechtert": 3, "leicht": every_fourth_worse})
    make_run(root / "ok", {"stabil-neu": 5, "leicht": every_fourth_worse})
    return root


def test_a_model_made_worse_fails_the_gate_with_exit_1_and_the_json(runs: Path) -> None:
    out = runs / "vergleich.json"
    done = run_cli("compare", "new", "baseline", "--fail-on", "worse", "--json", str(out), cwd=runs)
    assert done.returncode == 1, done.stderr
    assert "verschlechtert · none schlechter" in done.stdout
    assert "Gate nicht bestanden" in done.stdout and "Traceback" not in done.stderr
    data = json.loads(out.read_text(encoding="utf-8"))
    better = {tuple(row["new"]): row["better"] for row in data["rows"]}
    assert better == {
        ("stabil", "none"): None,
        ("verschlechtert", "none"): "baseline",
        ("leicht", "none"): None,
    }
    assert data["excluded_prompts"] == 0 and data["judges_differ"] is False
    assert data["gate"]["exit_code"] == 1


def test_no_gate_asked_is_exit_0_even_when_worse(runs: Path) -> None:
    done = run_cli("compare", "new", "baseline", cwd=runs)
    assert done.returncode == 0, done.stderr
    assert "▼ schlechter" in done.stdout and "Gate" not in done.stdout
    # By category only what is better or worse; --categories shows every one.
    assert "Nach Kategorie: stabil · none" not in done.stdout
    every = run_cli("compare", "new", "baseline", "--categories", cwd=runs)
    assert every.returncode == 0 and "Nach Kategorie: stabil · none" in every.stdout


def test_slightly_worse_within_the_margin_passes_and_inside_it_is_inconclusive(
    runs: Path,
) -> None:
    passed = run_cli(
        "compare", "ok", "baseline", "--pair", "stabil-neu=stabil", "--fail-on", "worse",
        "--margin", "0.6", cwd=runs,
    )  # fmt: skip
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Gate bestanden" in passed.stdout
    unsure = run_cli(
        "compare", "ok", "baseline", "--pair", "stabil-neu=stabil", "--margin", "0.2", cwd=runs
    )
    assert unsure.returncode == 3, unsure.stdout + unsure.stderr
    assert "Gate unentschieden" in unsure.stdout and "Mehr Prompts" in unsure.stdout
    below = run_cli("compare", "new", "baseline", "--margin", "0.6", cwd=runs)
    assert below.returncode == 1 and "um mehr als 0,60 schlechter" in below.stdout


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["ok", "baseline", "--pair", "stabil-neu=weg"], "kein Modell „weg“ in der Baseline"),
        (["ok", "nirgends"], "Run-Verzeichnis nicht gefunden"),
        (["new", "baseline", "--margin", "-1"], "--margin"),
    ],
)
def test_bad_input_is_exit_2_in_german(runs: Path, args: list[str], said: str) -> None:
    done = run_cli("compare", *args, cwd=runs)
    assert done.returncode == 2, done.stdout + done.stderr
    assert said in done.stderr and "Traceback" not in done.stderr


def test_unchanged_runs_of_six_rows_pass_where_one_row_alone_looks_worse(
    tmp_path: Path,
) -> None:
    """Issue 33 §2: two runs of the same six rows, noise only. One row's own 95 % interval
    lies below 0 (seed 41: sim-mittel · none, -0,37 [-0,71 – -0,05]), which a gate at 95 %
    per row fails one time in six; the gate over six rows widens each interval for six
    tests and passes, saying which intervals it used and the loss it would find."""
    noise_runs(41, BUERO65, tmp_path / "neu", tmp_path / "alt")
    out = tmp_path / "vergleich.json"
    done = run_cli("compare", "neu", "alt", "--fail-on", "worse", "--json", str(out), cwd=tmp_path)
    data = json.loads(out.read_text(encoding="utf-8"))
    rows = {tuple(row["new"]): row for row in data["rows"]}
    # The premise: by its own 95 % interval this row is worse (the table says so, per row).
    assert rows[("sim-mittel", "none")]["better"] == "baseline"
    assert rows[("sim-mittel", "none")]["ci_high"] < 0
    assert done.returncode == 0, done.stdout + done.stderr
    flat = " ".join(done.stdout.split())
    assert "Gate bestanden" in flat
    assert "Das Gate prüft 99,2-%-Intervalle (Bonferroni über 6 Zeilen" in flat
    assert re.search(r"mit 80 % ab einem Verlust von 0,\d\d Punkten", flat), flat
    gate = data["gate"]
    assert gate["exit_code"] == 0
    assert gate["correction"] == {"method": "bonferroni", "tests": 6, "level": 0.99167}
    used = {tuple(row["new"]): row for row in gate["rows"]}
    assert set(used) == set(rows)
    mittel = used[("sim-mittel", "none")]
    assert mittel["ci_low"] < rows[("sim-mittel", "none")]["ci_low"]
    assert mittel["ci_high"] > 0 > rows[("sim-mittel", "none")]["ci_high"]
    losses = [row["detectable_loss"] for row in gate["rows"]]
    assert gate["detectable_loss"] == max(losses) and 0.3 < max(losses) < 1.5
