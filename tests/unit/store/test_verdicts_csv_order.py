"""``verdicts.csv`` reads on its own and in a stable order (issue 36): beside a category's id its
title, beside the answer the task it answers, and the rows in the pack's order (model as the
run lists them, variant and prompt as the pack does, then the repeat), not in the order the
judge's calls came back. The GUI's download of the unfiltered table is the same file
(``tests/gui/test_gui_verdicts_csv_same.py``)."""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path

import pytest

from tests.unit.versus.versus_support import make_run
from touchstone.stages.view import load_run, write_report


def rows_of(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text.lstrip("\ufeff"), newline=""), delimiter=";"))


@pytest.fixture(scope="module")
def shuffled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A judged run of two models whose judgements.jsonl lies in reverse (as concurrent calls
    can come back)."""
    root = tmp_path_factory.mktemp("csv-order")
    judged = make_run(root / "judged", {"zweites": 3, "erstes": 4}, repeats=2)
    out = root / "shuffled"
    shutil.copytree(judged, out)
    path = out / "judgements.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(True)
    path.write_text("".join(reversed(lines)), encoding="utf-8")
    (out / "judge-state.json").unlink(missing_ok=True)
    return out


def test_the_csv_names_category_titles_and_tasks_and_keeps_the_packs_order(
    shuffled: Path,
) -> None:
    view = load_run(shuffled)
    write_report(view, view.scorecard())
    rows = rows_of((shuffled / "verdicts.csv").read_text(encoding="utf-8"))
    titles = {c.id: c.title for c in view.pack.categories}
    tasks = {p.id: p.text for _, p in view.pack.all_prompts()}
    assert all(r["Kategorietitel"] == titles[r["Kategorie"]] for r in rows)
    assert all(r["Aufgabe"] == tasks[r["Prompt"]] for r in rows)
    prompts = list(tasks)
    order = [(r["Modell"], prompts.index(r["Prompt"]), int(r["Wiederholung"])) for r in rows]
    models = view.manifest.models  # the run's order: zweites, then erstes
    assert models == ["zweites", "erstes"]
    assert order == sorted(order, key=lambda o: (models.index(o[0]), o[1], o[2])), order[:6]
    assert len(rows) == 2 * 2 * len(prompts)
