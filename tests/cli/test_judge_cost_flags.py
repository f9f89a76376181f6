"""`judge --price-per-million/--max-tokens/--budget` (issue 36): the cost settings of `run`,
for one judge, in place of its config's (the GUI's judge form passes them); checked as the
config's are; a jury keeps them per member in its config."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_cli import assert_clean_failure, judge_config
from tests.conftest import run_cli
from touchstone.sim import SimServer

COST = ["--price-per-million", "0,15/0,60", "--max-tokens", "200", "--budget", "0,01"]


def test_judge_flags_price_cap_and_budget_the_dry_run(
    sim: SimServer, answered_run: Path, tmp_path: Path
) -> None:
    config = judge_config(tmp_path / "judge.yaml", sim, "sim-judge")
    shown = run_cli(
        "judge", str(answered_run), "--config", str(config), *COST, "--dry-run", cwd=tmp_path
    )
    assert shown.returncode == 0, shown.stderr
    assert "Ausgabe: höchstens 3.200 Tokens (max_tokens 200 je Aufruf" in shown.stdout
    assert "Preis je Million Tokens: 0,15 Eingabe, 0,60 Ausgabe" in shown.stdout
    assert "Budget: 0,0100 – reicht nach dieser Schätzung." in shown.stdout


def test_judge_with_a_budget_but_no_price_is_bad_input(
    sim: SimServer, answered_run: Path, tmp_path: Path
) -> None:
    config = judge_config(tmp_path / "judge.yaml", sim, "sim-judge", max_tokens=200)
    refused = run_cli(
        "judge", str(answered_run), "--config", str(config), "--budget", "0,01", cwd=tmp_path
    )
    assert_clean_failure(refused, 2)
    assert "--budget: ein Budget braucht einen Preis" in refused.stderr
    assert not (answered_run / "judgements.jsonl").exists()


def test_judge_cost_flags_with_a_jury_are_bad_input(
    sim: SimServer, answered_run: Path, tmp_path: Path
) -> None:
    member = f"{{endpoint: {{base_url: '{sim.base_url}'}}, model: sim-judge}}"
    jury = tmp_path / "jury.yaml"
    jury.write_text(f"judges: [{member}, {member.replace('sim-judge', 'sim-gut')}]\n", "utf-8")
    refused = run_cli("judge", str(answered_run), "--config", str(jury), *COST, cwd=tmp_path)
    assert_clean_failure(refused, 2)
    assert (
        "--price-per-million, --max-tokens, --budget gelten für einen einzelnen Judge"
        in refused.stderr
    )
