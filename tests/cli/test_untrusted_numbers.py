"""Numbers and nesting from outside (design.md §15, issue 21): server replies and run dirs.

Here the tests through touchstone's CLI in a subprocess; the in-process ones are in
``tests/http/test_untrusted_numbers.py``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.http.test_untrusted_numbers import (
    DEPTH,
    _Server,
    base_url,
    serving,
    usage_of,
)
from touchstone.jury.verdicts import run_cells
from touchstone.stages.judge.judge import execute_judge
from touchstone.stages.run.run import execute_run
from touchstone.store import MANIFEST, SCORECARD_JSON, RunDir


@pytest.fixture
def hostile() -> Iterator[_Server]:
    with serving() as server:
        yield server


@pytest.mark.parametrize("value", [10**400, -24390], ids=["huge", "negative"])
def test_run_judge_and_report_survive_impossible_usage(
    hostile: _Server, tiny_pack_path: Path, tmp_path: Path, value: int
) -> None:
    """Before: 10**400 was stored, then judge and report died of an OverflowError; a negative
    count became "-24390 Tok/s" in the scorecard."""
    hostile.usage = usage_of(value)
    out = tmp_path / "runs" / "tiny"
    execute_run(pack_path=tiny_pack_path, models=["m"], out=out, base_url=base_url(hostile))
    responses = RunDir(out).load_responses()
    assert responses and all(r.ok for r in responses)
    assert {(r.prompt_tokens, r.completion_tokens) for r in responses} == {(None, None)}
    config = tmp_path / "judge.yaml"
    config.write_text(
        f"endpoint: {{base_url: '{base_url(hostile)}'}}\nmodel: j\ncall_timeout_s: 5\n"
        "price_per_million: {input: 2.5, output: 10}\n",
        encoding="utf-8",
    )
    outcome = execute_judge(out, config=config)
    assert outcome.health.completion_tokens == 0 and outcome.health.prompt_tokens == 0
    assert [row.tokens_per_s for row in outcome.card.rows] == [None, None]  # two variants
    assert all(v.judge_completion_tokens is None for v in run_cells(RunDir(out)).cells)
    result = run_cli("report", str(out), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert "Tok/s" not in result.stdout


def test_report_of_a_run_dir_with_impossible_counts(tampered_run: Path, tmp_path: Path) -> None:
    result = run_cli("report", str(tampered_run), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert "unbekannt" in result.stderr
    rows = {r["model"]: r for r in json.loads((tampered_run / SCORECARD_JSON).read_text())["rows"]}
    assert rows["sim-gut"]["tokens_per_s"] is None
    assert rows["sim-schwach"]["tokens_per_s"] > 0


def test_a_deep_manifest_is_exit_2(answered_run: Path, tmp_path: Path) -> None:
    (answered_run / MANIFEST).write_text("[" * DEPTH + "]" * DEPTH, encoding="utf-8")
    result = run_cli("report", str(answered_run), cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert "run.json" in result.stderr and len(result.stderr) < 1500
