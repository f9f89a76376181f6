"""Cost before and during a run (design.md §19): the preview (--dry-run) and the hard cap.

Here the tests through touchstone's CLI in a subprocess; the in-process ones are in
``tests/unit/stages/test_cost.py``."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.cli.test_cli import judge_config
from tests.conftest import run_cli
from tests.unit.stages.test_cost import snapshot
from touchstone.gui.job_notice import for_browser
from touchstone.gui.job_state import final_state, job_progress
from touchstone.sim import SimServer


def test_cli_run_budget_exit_codes_and_message(
    sim: SimServer, tiny_pack_path: Path, tmp_path: Path
) -> None:
    common = ["run", "--pack", str(tiny_pack_path), "--model", "sim-gut", "--base-url"]
    bad = run_cli(*common, sim.base_url, "--budget", "5", cwd=tmp_path)
    assert bad.returncode == 2, bad.stderr
    assert "ein Budget braucht einen Preis" in bad.stderr
    events = tmp_path / "events.jsonl"
    out = tmp_path / "r"
    stopped = run_cli(
        *common,
        sim.base_url,
        "--out",
        str(out),
        "--max-tokens",
        "50",
        "--price-per-million",
        "0,1000000",
        "--budget",
        "120",
        "--concurrency",
        "2",
        "--events",
        str(events),
        cwd=tmp_path,
    )
    assert stopped.returncode == 1, stopped.stderr
    assert "Budget erreicht: " in stopped.stderr and " von 120,00 " in stopped.stderr
    assert f"Derselbe Befehl mit --out {out} holt sie nach." in stopped.stderr
    lines = [json.loads(line) for line in events.read_text(encoding="utf-8").splitlines()]
    done = next(e for e in lines if e["event"] == "done")
    assert done["budget"]["reached"] is True and done["budget"]["limit"] == 120
    # What the GUI's job box says of it: the CLI's last word, in GUI words.
    ended = final_state({"command": ["touchstone", "run"]}, lines)
    assert (ended["state"], ended["exit_code"]) == ("failed", 1)
    shown = for_browser({**ended, "command": ["touchstone", "run"]}, job_progress(lines))
    assert shown["notice"].startswith("Budget erreicht: ") and " von 120,00 " in shown["notice"]
    assert "--out" not in shown["notice"] and "„Fortsetzen“ macht" in shown["notice"]
    assert shown["actions"][0] == "resume"


def judge_dry_run(run: Path, config: Path, cwd: Path) -> str:
    """What ``touchstone judge RUN --config CONFIG --dry-run`` prints; it exits 0 and leaves
    ``run`` as it was."""
    before = snapshot(run)
    shown = run_cli("judge", str(run), "--config", str(config), "--dry-run", cwd=cwd)
    assert shown.returncode == 0, shown.stderr
    assert snapshot(run) == before
    return shown.stdout


def test_cli_dry_runs_print_the_estimate_and_leave_the_run_as_it_is(
    answered_run: Path, tmp_path: Path, sim: SimServer
) -> None:
    price = {"input": 0.5, "output": 1.5}
    config = judge_config(
        tmp_path / "judge.yaml", sim, "sim-judge", max_tokens=100, price_per_million=price, budget=2
    )
    out = judge_dry_run(answered_run, config, tmp_path)
    assert "Probelauf: nichts wird aufgerufen, nichts geschrieben." in out
    assert "Aufrufe: 16" in out and "Zeichen/4" in out
    assert re.search(r"Kosten: höchstens etwa 0,00\d\d \(Preis je Million Tokens: 0,50", out)
    assert "Budget: 2,00 – reicht nach dieser Schätzung." in out
