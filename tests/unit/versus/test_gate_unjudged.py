"""The gate never passes a row it did not compare (issue 35): a row the baseline has and the
new run answered, but without verdicts (or with too few shared prompts for an interval),
leaves the gate undecided (exit 3) under ``--fail-on worse`` and ``--margin``, named as such
with what to do; ``unjudged`` in the JSON counts every answer without a verdict."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from rich.console import Console

from tests.unit.versus.versus_support import make_run
from touchstone.stages.view import load_run
from touchstone.versus import RunComparison, compare_runs, gate
from touchstone.versus.terminal import render_comparison

QUALITIES = {"stabil": 5, "zweites": 5}


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("gate-unjudged")
    return {
        "baseline": make_run(root / "baseline", QUALITIES),
        "new": make_run(root / "new", QUALITIES),
        "worse": make_run(root / "worse", {"stabil": 3, "zweites": 5}),
    }


def keep_verdicts(run: Path, out: Path, model: str, keep: int) -> Path:
    """``run`` copied to ``out`` with only the first ``keep`` verdicts of ``model``."""
    shutil.copytree(run, out)
    path = out / "judgements.jsonl"
    lines, seen = [], 0
    for line in path.read_text(encoding="utf-8").splitlines(True):
        if json.loads(line)["model"] == model:
            seen += 1
            if seen > keep:
                continue
        lines.append(line)
    path.write_text("".join(lines), encoding="utf-8")
    (out / "judge-state.json").unlink(missing_ok=True)
    return out


def compared(new: Path, baseline: Path) -> RunComparison:
    return compare_runs(load_run(new), load_run(baseline))


def shown(comparison: RunComparison, **gate_args: object) -> str:
    result = gate(comparison, **gate_args)  # type: ignore[arg-type]
    console = Console(width=120, record=True, file=io.StringIO())
    console.print(render_comparison(comparison, result, baseline_path="runs/baseline"))
    return " ".join(console.export_text().split())


def test_a_row_answered_but_not_judged_leaves_the_gate_undecided(
    judged: dict[str, Path], tmp_path: Path
) -> None:
    partly = keep_verdicts(judged["new"], tmp_path / "teilweise", "zweites", 0)
    comparison = compared(partly, judged["baseline"])
    for args in ({"fail_on_worse": True, "margin": None}, {"fail_on_worse": False, "margin": 0.3}):
        result = gate(comparison, **args)  # type: ignore[arg-type]
        assert result.exit_code == 3, result.message
        assert "Gate unentschieden" in result.message
        assert "zweites · none nicht verglichen" in result.message
        assert f"touchstone judge {partly}" in result.message
        assert "bestanden" not in result.message
        assert result.as_dict()["not_compared"] == [
            {
                "new": ["zweites", "none"],
                "baseline": ["zweites", "none"],
                "reason": "unjudged",
                "unjudged_new": 27,
                "unjudged_baseline": 0,
                "n_prompts": 0,
            }
        ]
    # Not advised as a renamed model: the row is there, only not judged.
    text = shown(comparison, fail_on_worse=True, margin=None)
    assert "--pair" not in text and "Ohne Gegenstück" not in text
    assert "nicht bewertet" in text
    assert comparison.as_dict()["unjudged"] == {"new": 27, "baseline": 0}


def test_a_row_with_one_shared_prompt_leaves_fail_on_worse_undecided(
    judged: dict[str, Path], tmp_path: Path
) -> None:
    one = keep_verdicts(judged["new"], tmp_path / "ein-prompt", "zweites", 1)
    comparison = compared(one, judged["baseline"])
    result = gate(comparison, fail_on_worse=True, margin=None)
    assert result.exit_code == 3, result.message
    assert "zweites · none nicht verglichen" in result.message
    assert "1 gemeinsamer Prompt" in result.message
    assert f"touchstone judge {one}" in result.message
    (row,) = result.as_dict()["not_compared"]
    assert row["reason"] == "too_few_prompts" and row["unjudged_new"] == 26
    assert comparison.as_dict()["unjudged"] == {"new": 26, "baseline": 0}


def test_a_row_surely_worse_fails_the_gate_beside_one_not_compared(
    judged: dict[str, Path], tmp_path: Path
) -> None:
    partly = keep_verdicts(judged["worse"], tmp_path / "schlechter", "zweites", 0)
    result = gate(compared(partly, judged["baseline"]), fail_on_worse=True, margin=None)
    assert result.exit_code == 1, result.message
    assert "stabil · none schlechter" in result.message
    assert "zweites · none nicht verglichen" in result.message


def test_every_unjudged_answer_is_counted_also_of_rows_without_a_partner(
    judged: dict[str, Path], tmp_path: Path
) -> None:
    """An answered row the baseline lacks, unjudged: counted, and no gate question."""
    extra = tmp_path / "mehr"
    make_run(extra, {"stabil": 5, "zweites": 5, "neu": 5})
    keep_verdicts(extra, tmp_path / "mehr-offen", "neu", 0)
    comparison = compared(tmp_path / "mehr-offen", judged["baseline"])
    assert comparison.as_dict()["unjudged"]["new"] == 27
    assert gate(comparison, fail_on_worse=True, margin=None).exit_code == 0


def test_a_row_not_judged_shows_no_counts_of_red_flags_or_failures(
    judged: dict[str, Path], tmp_path: Path
) -> None:
    # A count of 0 would read as "no red flags now" where nothing was judged.
    partly = keep_verdicts(judged["new"], tmp_path / "teilweise", "zweites", 0)
    result = gate(compared(partly, judged["baseline"]), fail_on_worse=True, margin=None)
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(
        render_comparison(compared(partly, judged["baseline"]), result, baseline_path="b")
    )
    lines = [row for row in console.export_text().splitlines() if "zweites · none" in row]
    # The mean, the red flags, the failures (in one table or its continuation).
    assert " ".join(lines).count("→ –") == 3, lines
