"""Many rows (design.md §13, §15): sizes are bounded by row count as well as by cell count.

400 models x 2 prompts are only 800 cells, but every pair of rows used to be computed,
stored in scorecard.json and drawn as a matrix: 20 MB files and a minute for ``report``.
"""

from __future__ import annotations

import itertools
import json
import time
from pathlib import Path

import pytest

from tests.conftest import REPO, coarse, make_response, make_verdict
from touchstone.results import EvalResponse, Verdict
from touchstone.scorecard import compare
from touchstone.scorecard.build import build_scorecard
from touchstone.stages.view import load_run, write_report
from touchstone.stats.paired import paired_difference

MODELS = 400
# Two prompts, one in each category (also the pack of benchmarks/many_models.py).
PACK = (REPO / "tests" / "fixtures" / "zwei.yaml").read_text(encoding="utf-8")


def score(model: int, prompt: int) -> int:
    # Spread over the scale, so that there are ranks, ties and significant neighbours.
    return (model * 7 + prompt * 3 + model // 50) % 6


def pack_of(prompts: int) -> str:
    """``PACK`` with ``prompts`` prompts (two: ``PACK`` itself), half of them in each category."""
    if prompts == 2:
        return PACK
    head = PACK[: PACK.index("categories:")]
    lines = ["categories:"]
    for category, title in (("R", "Rechnen"), ("S", "Schreiben")):
        lines += [f"  - id: {category}", f"    title: {title}", "    prompts:"]
        for i in range(1, prompts // 2 + 1):
            lines.append(
                f'      - {{id: {category}{i}, text: "Aufgabe {category}{i}", expectations: ["x"]}}'
            )
    return head + "\n".join(lines) + "\n"


def write_many(workspace: Path, models: int, prompts: int = 2) -> Path:
    """``workspace/runs/viele``: ``models`` models x ``prompts`` prompts, answered and judged."""
    (workspace / "packs").mkdir(parents=True)
    pack = workspace / "packs" / "zwei.yaml"
    pack.write_text(pack_of(prompts), encoding="utf-8")
    run = workspace / "runs" / "viele"
    run.mkdir(parents=True)
    names = [f"modell-{m:03d}" for m in range(models)]
    manifest = {
        "name": "viele",
        "pack_id": "zwei",
        "pack_path": str(pack),
        "pack_abspath": str(pack),
        "models": names,
        "variants": ["none"],
        "repeats": 1,
        "created_at": "2026-12-01T00:00:00+00:00",
    }
    (run / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
    answers, verdicts = [], []
    for m, name in enumerate(names):
        cells = [(c, f"{c}{i}") for c in ("R", "S") for i in range(1, prompts // 2 + 1)]
        for p, (category, prompt_id) in enumerate(cells):
            text = f"Antwort von {name} auf {prompt_id}: " + "x" * 300
            answer = make_response(prompt_id, model=name, category=category, text=text)
            answer.latency_s, answer.completion_tokens = 1.5, 120
            rationale = f"Begründung für {name} auf {prompt_id}."
            verdict = make_verdict(
                prompt_id, score(m, p), model=name, category=category, rationale=rationale
            )
            verdict.judge_model = "sim-judge"
            answers.append(json.dumps(answer.as_dict(), ensure_ascii=False))
            verdicts.append(json.dumps(verdict.as_dict(), ensure_ascii=False))
    (run / "responses.jsonl").write_text("\n".join(answers) + "\n", encoding="utf-8")
    (run / "judgements.jsonl").write_text("\n".join(verdicts) + "\n", encoding="utf-8")
    return run


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_many(tmp_path_factory.mktemp("viele"), MODELS)


def test_the_report_of_400_models_stays_small_and_is_written_in_seconds(many: Path) -> None:
    started = time.monotonic()
    view = load_run(many)
    write_report(view, view.scorecard())
    elapsed = time.monotonic() - started
    html = (many / "report.html").read_text(encoding="utf-8")
    scorecard = (many / "scorecard.json").read_text(encoding="utf-8")
    assert len(html.encode()) < 5e6 and len(scorecard.encode()) < 5e6
    assert elapsed < coarse(3)
    # A reader still sees each row against its neighbours, and where the other pairs are.
    assert 'data-testid="neighbours"' in html and "scorecard.json" in html
    assert "Zeile − Spalte" not in html  # no 400 x 400 matrix
    assert "≈ +0,00" in html and "-0,00" not in html  # a tie the other way round is no "-0"


def test_scorecard_json_of_many_rows_keeps_neighbour_and_rank_pairs_and_says_so(
    many: Path,
) -> None:
    view = load_run(many)
    data = json.loads(write_report(view, view.scorecard()).with_name("scorecard.json").read_text())
    assert data["comparisons_complete"] is False and "GUI" in data["comparisons_note"]
    ranked = [(r["model"], r["variant"]) for r in data["rows"] if r["rank"] is not None]
    stored = {(tuple(c["a"]), tuple(c["b"])) for c in data["comparisons"]}
    assert len(stored) <= 2 * len(ranked)
    for above, below in itertools.pairwise(ranked):
        assert (above, below) in stored
    # Every rank below 1 is explained by a stored pair: a row one rank up that is better.
    rank = {(r["model"], r["variant"]): r["rank"] for r in data["rows"]}
    decided = {
        tuple(c["b"])
        for c in data["comparisons"]
        if c["better"] == "a" and rank[tuple(c["a"])] == rank[tuple(c["b"])] - 1
    }
    assert {pair for pair in ranked if rank[pair] > 1} <= decided
    assert {"a", "b", "diff", "ci_low", "ci_high", "better"} <= data["comparisons"][0].keys()


def scored(models: int, prompts: int) -> tuple[list[EvalResponse], list[Verdict]]:
    responses, verdicts = [], []
    for m in range(models):
        for p in range(prompts):
            fields = {
                "model": f"m{m:02d}",
                "variant": "none",
                "prompt_id": f"P{p}",
                "repeat": 1,
                "category": "R",
            }
            responses.append(
                EvalResponse(
                    **fields, response_text="a", ok=True, content_empty=False, reasoning_chars=0
                )  # type: ignore[arg-type]
            )
            verdicts.append(
                Verdict(
                    **fields,
                    score=min(5, max(0, m // 6 + (p * 7 + m * 3) % 3 - 1)),
                    red_flag=False,
                    rationale="",
                )  # type: ignore[arg-type]
            )
    return responses, verdicts


def test_ranks_do_not_depend_on_which_pairs_are_stored(monkeypatch: pytest.MonkeyPatch) -> None:
    responses, verdicts = scored(30, 12)
    full = build_scorecard(responses, verdicts, scale_min=0)
    assert full.comparisons_complete and len(full.comparisons) == 30 * 29 // 2
    monkeypatch.setattr(compare, "COMPLETE_UP_TO", 5)
    partial = build_scorecard(responses, verdicts, scale_min=0)
    assert not partial.comparisons_complete and len(partial.comparisons) < 2 * 30
    assert [(r.pair, r.rank) for r in partial.rows] == [(r.pair, r.rank) for r in full.rows]
    assert len({r.rank for r in full.rows}) > 3  # the data has ranks worth comparing
    # A pair that is not stored is computed when asked for, and is the same.
    a, b = partial.rows[0], partial.rows[-1]
    assert (a.pair, b.pair) not in {(c.a, c.b) for c in partial.comparisons}
    asked = partial.comparison(b.pair, a.pair)
    expected = paired_difference(b.clusters, a.clusters)
    assert asked is not None and asked.diff == expected == full.comparison(b.pair, a.pair).diff  # type: ignore[union-attr]


def test_the_report_shows_answers_of_the_best_ranked_rows_and_says_where_the_rest_is(
    many: Path,
) -> None:
    view = load_run(many)
    card = view.scorecard()
    html = write_report(view, card).read_text(encoding="utf-8")
    shown = html.count("<summary>Antwort")
    assert shown == 20 * 2  # 20 rows x 2 prompts, not 400 x 2: 10,800 answers at 27 prompts
    best, worst = card.rows[0], card.rows[-1]
    assert f"Antwort von {best.model} auf R1" in html
    assert f"Antwort von {worst.model} auf R1" not in html
    assert f"<b>{2 * MODELS - 40} von {2 * MODELS} Bewertungen</b>" in html
