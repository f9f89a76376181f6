"""``compare``: runs whose truth is known (tests/versus_support.py) compared in-process.

The baseline's three models answer at the simulator's top quality. In the new run one is
unchanged, one answers at quality 3 (made worse), one at quality 4 on about a quarter of the
prompts (slightly worse); the comparison must say so, and the gate must decide by it.
"""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

import pytest
from rich.console import Console

from tests.unit.versus.versus_support import (
    BASELINE,
    BUERO,
    every_fourth_worse,
    fails_on_money,
    make_run,
)
from touchstone.errors import InputError
from touchstone.stages.view import load_run
from touchstone.versus import RunComparison, compare_runs, gate
from touchstone.versus.terminal import render_comparison


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("versus")
    return {
        "baseline": make_run(root / "baseline", BASELINE),
        "new": make_run(
            root / "new", {"stabil": 5, "verschlechtert": 3, "leicht": every_fourth_worse}
        ),
        "ok": make_run(root / "ok", {"stabil-neu": 5, "leicht": every_fourth_worse}),
        "other-judge": make_run(root / "other-judge", BASELINE, judge="anderer-judge"),
        "failing": make_run(root / "failing", {"stabil": fails_on_money}),
    }


def compared(new: Path, baseline: Path, pairs: list[str] | None = None) -> RunComparison:
    return compare_runs(load_run(new), load_run(baseline), pairs or [])


def by_model(comparison: RunComparison) -> dict[str, object]:
    return {row.new.pair[0]: row for row in comparison.rows}


def text_of(comparison: RunComparison, width: int = 80, **gate_args: object) -> str:
    result = gate(comparison, fail_on_worse=bool(gate_args.get("worse")), margin=None)
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(render_comparison(comparison, result, baseline_path="runs/baseline"))
    return console.export_text()


def test_the_model_made_worse_is_worse_the_unchanged_one_is_not(runs: dict[str, Path]) -> None:
    comparison = compared(runs["new"], runs["baseline"])
    rows = {row.new.pair[0]: row for row in comparison.rows}
    assert list(rows) == ["stabil", "verschlechtert", "leicht"]
    assert rows["verschlechtert"].better == "baseline"
    worse = rows["verschlechtert"].diff
    assert worse is not None and worse.high is not None and worse.high < -1
    # Quality 3 against 5 on the simulator's judge: about two points on 0..5.
    assert -2.5 < worse.mean < -1
    unchanged = rows["stabil"].diff
    assert unchanged is not None and unchanged.mean == 0 and rows["stabil"].better is None
    assert unchanged.low is not None and unchanged.low < 0 < (unchanged.high or 0)
    slight = rows["leicht"].diff
    assert slight is not None and -0.6 < slight.mean < 0 and rows["leicht"].better is None
    assert all(row.diff is not None and row.diff.n == 27 for row in comparison.rows)
    assert not comparison.judges_differ and comparison.excluded_prompts == 0
    # Per category too: the worse model is worse where it is measured most closely.
    categories = rows["verschlechtert"].categories
    assert set(categories) == set(comparison.categories) and len(categories) == 6
    assert any(d is not None and d.high is not None and d.high < 0 for d in categories.values())


def test_the_json_has_the_keys_design_19_names(runs: dict[str, Path]) -> None:
    data = compared(runs["new"], runs["baseline"]).as_dict()
    json.dumps(data)  # plain JSON
    assert {"rows", "excluded_prompts", "judges_differ"} <= set(data)
    row = data["rows"][1]
    assert {"new", "baseline", "diff", "ci_low", "ci_high", "n_prompts", "better"} <= set(row)
    assert row["new"] == ["verschlechtert", "none"] and row["baseline"] == row["new"]
    assert row["better"] == "baseline" and row["ci_high"] < 0 and row["n_prompts"] == 27
    assert data["rows"][0]["better"] is None and data["judges_differ"] is False


def test_the_gate(runs: dict[str, Path]) -> None:
    worse = compared(runs["new"], runs["baseline"])
    assert gate(worse, fail_on_worse=True, margin=None).exit_code == 1
    assert (
        "verschlechtert · none schlechter" in gate(worse, fail_on_worse=True, margin=None).message
    )
    assert gate(worse, fail_on_worse=False, margin=None).exit_code == 0
    # Two points worse is below any margin a user would grant.
    assert gate(worse, fail_on_worse=False, margin=1.0).exit_code == 1
    ok = compared(runs["ok"], runs["baseline"], ["stabil-neu=stabil"])
    assert [row.baseline.pair[0] for row in ok.rows] == ["stabil", "leicht"]
    # Slightly worse, not significantly: the fail-on-worse gate passes ...
    assert gate(ok, fail_on_worse=True, margin=None).exit_code == 0
    # ... a margin wider than the interval reaches passes too ...
    slight = by_model(ok)["leicht"].diff  # type: ignore[attr-defined]
    wide = -slight.low + 0.05
    assert gate(ok, fail_on_worse=True, margin=wide).exit_code == 0
    # ... one inside the interval cannot tell, and says what would help.
    result = gate(ok, fail_on_worse=True, margin=-slight.mean)
    assert result.exit_code == 3
    assert "leicht · none" in result.message and "Mehr Prompts" in result.message


def test_a_renamed_model_is_paired_and_an_unknown_pair_is_bad_input(
    runs: dict[str, Path],
) -> None:
    unpaired = compared(runs["ok"], runs["baseline"])
    assert [row.new.pair[0] for row in unpaired.rows] == ["leicht"]
    text = text_of(unpaired)
    assert "Ohne Gegenstück" in text and "stabil-neu · none" in text and "--pair" in text
    with pytest.raises(InputError, match="kein Modell „stabil-alt“ in der Baseline"):
        compared(runs["ok"], runs["baseline"], ["stabil-neu=stabil-alt"])
    with pytest.raises(InputError, match="NEUES_MODELL=ALTES_MODELL"):
        compared(runs["ok"], runs["baseline"], ["stabil-neu"])
    with pytest.raises(InputError, match="Meinten Sie „stabil-neu“"):
        compared(runs["ok"], runs["baseline"], ["stabil-nue=stabil"])


def test_no_rows_in_common_is_bad_input(runs: dict[str, Path]) -> None:
    with pytest.raises(InputError, match="Keine gemeinsamen Zeilen") as caught:
        compared(runs["ok"], runs["failing"], [])
    assert "--pair" in str(caught.value)


def test_different_judges_are_said_with_the_remedy(runs: dict[str, Path]) -> None:
    comparison = compared(runs["new"], runs["other-judge"])
    assert comparison.judges_differ and comparison.as_dict()["judges_differ"] is True
    text = " ".join(text_of(comparison, width=200).split())
    assert "verschiedene Judges – neuer Run: sim-judge; Baseline: anderer-judge" in text
    assert "touchstone judge runs/baseline --model sim-judge --rejudge all" in text
    assert "in den Baseline-Run selbst" in text
    # First, before the table.
    assert text.index("verschiedene Judges") < text.index("Vergleich:")


def test_failed_answers_count_as_the_minimum_and_are_shown_then_and_now(
    runs: dict[str, Path],
) -> None:
    comparison = compared(runs["failing"], runs["baseline"])
    (row,) = comparison.rows
    assert row.baseline.failed == 0 and row.new.failed > 0
    assert row.better == "baseline" and row.new.mean is not None
    # Every failed answer scores 0: the mean falls by at least 4.7 points per failed share.
    assert row.new.mean < row.baseline.mean - 4 * row.new.failed / row.new.cells  # type: ignore[operator]
    assert f"0 → {row.new.failed}" in text_of(comparison, width=200)


def _edited_pack(tmp_path: Path, *, pack_id: str, change: int, drop: int = 0) -> Path:
    """buero.yaml with another id, the first ``change`` prompts' expectations edited and the
    last category's prompts (``drop`` > 0) removed."""
    import yaml

    data = yaml.safe_load(BUERO.read_text(encoding="utf-8"))
    data["id"] = pack_id
    prompts = [p for c in data["categories"] for p in c["prompts"]]
    for prompt in prompts[:change]:
        prompt["expectations"] = [*prompt["expectations"], "Nennt zusätzlich die Quelle."]
    if drop:
        data["categories"] = data["categories"][:-drop]
    path = tmp_path / f"{pack_id}.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return path


def test_prompts_whose_rubric_changed_are_left_out_and_counted(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    edited = make_run(
        tmp_path / "edited", BASELINE, pack=_edited_pack(tmp_path, pack_id="buero", change=3)
    )
    comparison = compared(edited, runs["baseline"])
    assert comparison.excluded_prompts == 3
    assert all(row.diff is not None and row.diff.n == 24 for row in comparison.rows)
    assert comparison.as_dict()["excluded_prompts"] == 3
    text = " ".join(text_of(comparison).split())
    assert "3 Prompts mit geänderter Bewertungsgrundlage nicht verglichen (A1, A2, A3)" in text


def test_runs_of_different_packs_compare_on_the_prompts_they_share(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    pack = _edited_pack(tmp_path, pack_id="buero-kurz", change=0, drop=1)
    other = make_run(tmp_path / "kurz", BASELINE, pack=pack)
    comparison = compared(other, runs["baseline"])
    shared = {row.diff.n for row in comparison.rows if row.diff}
    assert shared == {len(comparison.prompts.shared)} and 0 < shared.pop() < 27
    text = " ".join(text_of(comparison).split())
    assert "Verschiedene Pakete (neu: buero-kurz, Baseline: buero)" in text
    assert f"verglichen nur auf den {len(comparison.prompts.shared)} gemeinsamen Prompts" in text
    assert "nur in der Baseline: nicht verglichen" in text


@pytest.mark.parametrize("width", [80, 100, 200])
def test_the_table_is_readable_at_80_columns(runs: dict[str, Path], width: int) -> None:
    text = text_of(compared(runs["new"], runs["baseline"]), width=width)
    assert max(len(line.rstrip()) for line in text.splitlines()) <= width
    # Name, difference with its interval, verdict: whole on one line, never cut to "…".
    assert "…" not in text
    line = next(line for line in text.splitlines() if line.startswith("verschlechtert · none"))
    assert re.search(r"-[12],\d\d", line) and "▼ schlechter" in line and "27" in line
    assert re.search(r"4,\d\d → [23],\d\d", text)  # the means then and now (maybe a 2nd table)


def test_a_damaged_run_dir_is_bad_input(runs: dict[str, Path], tmp_path: Path) -> None:
    damaged = tmp_path / "damaged"
    shutil.copytree(runs["baseline"], damaged)
    with (damaged / "judgements.jsonl").open("a", encoding="utf-8") as handle:
        handle.write('{"model": "stabil", "score": "viel"}\n')
    with pytest.raises(InputError, match=r"judgements\.jsonl"):
        compared(runs["new"], damaged)


def test_many_rows_show_only_the_categories_that_decide(tmp_path: Path) -> None:
    models = [f"modell-{i:02d}" for i in range(14)]
    baseline = make_run(tmp_path / "viele-alt", dict.fromkeys(models, 5))
    new = make_run(tmp_path / "viele-neu", {**dict.fromkeys(models, 5), "modell-07": 1})
    text = text_of(compared(new, baseline), width=100)
    assert "Nach Kategorie: nur Kategorien, die besser oder schlechter" in " ".join(text.split())
    assert "Nach Kategorie: modell-07 · none" in text
    assert "Nach Kategorie: modell-06" not in text


def test_two_equal_runs_say_so_in_a_few_lines_and_explain_the_interval_floor(
    runs: dict[str, Path],
) -> None:
    comparison = compared(runs["baseline"], runs["baseline"])
    assert all(row.diff is not None and row.diff.mean == 0 for row in comparison.rows)
    text = text_of(comparison)
    flat = " ".join(text.split())
    # No category table of "≈ nicht unterscheidbar" lines per row (10+ lines a row).
    assert "Nach Kategorie: stabil" not in text and len(text.splitlines()) < 30, text
    assert "keine Kategorie ist besser oder schlechter (Bonferroni über die Kategorien" in flat
    assert "alle mit --categories" in flat
    # "+0,00 ±0,09" for a difference of exactly 0 is the floor, and the legend says so.
    assert "Untergrenze der Intervallbreite" in flat and "Auflösung der Skala" in flat
    console = Console(width=80, record=True, file=io.StringIO())
    result = gate(comparison, fail_on_worse=False, margin=None)
    console.print(render_comparison(comparison, result, every_category=True))
    assert "Nach Kategorie: stabil · none" in console.export_text()


def test_answers_not_yet_judged_are_said(runs: dict[str, Path], tmp_path: Path) -> None:
    partly = tmp_path / "teilweise"
    shutil.copytree(runs["new"], partly)
    verdicts = (partly / "judgements.jsonl").read_text(encoding="utf-8").splitlines(True)
    (partly / "judgements.jsonl").write_text("".join(verdicts[5:]), encoding="utf-8")
    comparison = compared(partly, runs["baseline"])
    assert (comparison.unjudged_new, comparison.unjudged_baseline) == (5, 0)
    text = " ".join(text_of(comparison).split())
    assert (
        "Noch nicht bewertet: 5 Antworten im neuen Run; verglichen wird, was bewertet ist" in text
    )
