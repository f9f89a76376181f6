"""The judge's biases measured on the run, where people see them (design.md §17): terminal,
report.html, the GUI's run page and scorecard.json."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from rich.console import Console

from touchstone.results import EvalResponse, Verdict
from touchstone.scorecard.terminal import render_run_scorecard
from touchstone.stages.view import load_run, write_report

JUDGE = "qwen3:8b"
# qwen writes 200 words more than llama and is no better, but the judge gives half a point
# per 100 words: it leads by its mean; length-adjusted llama would.
MODELS = (("qwen2.5:7b", 300, 0.0), ("llama3.1:8b", 100, 0.5))
PROMPTS = 10


def write_biased_run(workspace: Path) -> Path:
    (workspace / "packs").mkdir(parents=True)
    pack = workspace / "packs" / "zehn.yaml"
    prompts = "\n".join(
        f'      - {{id: R{i}, text: "Aufgabe {i}", expectations: ["x"]}}'
        for i in range(1, PROMPTS + 1)
    )
    pack.write_text(
        "id: zehn\ntitle: Zehn Prompts\nscale: {min: 0, max: 10}\njudge_instructions: Streng.\n"
        'variants:\n  none: ""\ncategories:\n  - id: R\n    title: Rechnen\n    prompts:\n'
        + prompts
        + "\n",
        encoding="utf-8",
    )
    run = workspace / "runs" / "laenge"
    run.mkdir(parents=True)
    manifest = {
        "name": "laenge",
        "pack_id": "zehn",
        "pack_path": str(pack),
        "pack_abspath": str(pack),
        "models": [name for name, _, _ in MODELS],
        "variants": ["none"],
        "repeats": 3,
        "created_at": "2026-12-01T00:00:00+00:00",
    }
    (run / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
    rng = random.Random(5)
    answers, verdicts = [], []
    for i in range(1, PROMPTS + 1):
        for repeat in (1, 2, 3):
            for name, words, quality in MODELS:
                words += rng.randint(-80, 80)
                score = round(3 + quality + 0.5 * words / 100 + rng.gauss(0, 0.2))
                cell = {
                    "model": name,
                    "variant": "none",
                    "prompt_id": f"R{i}",
                    "repeat": repeat,
                    "category": "R",
                }
                answers.append(
                    EvalResponse(
                        **cell,
                        response_text=" ".join(["Wort"] * words),
                        ok=True,
                        content_empty=False,
                        reasoning_chars=0,
                    ).as_dict()
                )
                verdicts.append(
                    Verdict(
                        **cell, score=score, red_flag=False, rationale="", judge_model=JUDGE
                    ).as_dict()
                )
    for name, rows in (("responses.jsonl", answers), ("judgements.jsonl", verdicts)):
        lines = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
        (run / name).write_text(lines, encoding="utf-8")
    return run


@pytest.fixture
def biased(tmp_path: Path) -> Path:
    return write_biased_run(tmp_path)


def test_scorecard_json_has_the_length_effect_and_marks_the_judges_family(biased: Path) -> None:
    view = load_run(biased)
    write_report(view, view.scorecard())
    data = json.loads((biased / "scorecard.json").read_text(encoding="utf-8"))
    effect = data["length_effect"]
    assert effect["ci_low"] > 0 and effect["ci_low"] < effect["per_100_words"] < effect["ci_high"]
    assert effect["reordered"] == [
        {"ahead": ["qwen2.5:7b", "none"], "behind": ["llama3.1:8b", "none"]}
    ]
    family = {row["model"]: row["same_family_as_judge"] for row in data["rows"]}
    assert family == {"qwen2.5:7b": True, "llama3.1:8b": False}


def test_the_terminal_marks_the_row_and_shows_the_length_effect(biased: Path) -> None:
    view = load_run(biased)
    console = Console(width=80, record=True, color_system=None)
    console.print(render_run_scorecard(view.pack, view.scorecard()))
    text = console.export_text()
    assert "qwen2.5:7b †" in text
    assert "† Gleiche Familie wie der Judge: qwen2.5:7b · none (qwen)." in " ".join(text.split())
    flat = " ".join(text.split())
    assert "Länge: +" in flat and "Punkte je 100 Wörter [" in flat
    assert "llama3.1:8b · none läge vor qwen2.5:7b · none" in flat
    assert max(map(len, text.splitlines())) <= 80


def test_the_settled_state_keeps_the_bias_figures(biased: Path) -> None:
    from touchstone.scorecard.build import Scorecard
    from touchstone.store.settled import SettledRun

    card = load_run(biased).scorecard()
    state = SettledRun[Scorecard](
        format=0, touchstone_version="", inputs=(), pack="", cells=60, card=card
    )
    again = SettledRun[Scorecard].model_validate_json(state.model_dump_json()).card
    assert again.length_effect == card.length_effect
    assert [r.judge_family for r in again.rows] == ["qwen", None]
    assert again.as_dict()["length_effect"] == card.as_dict()["length_effect"]
