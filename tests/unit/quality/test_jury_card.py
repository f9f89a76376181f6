"""The jury card (design.md §18): terminal at 80 columns, scorecard.json ``jury``, report.html."""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest
from rich.console import Console

from tests.conftest import make_response
from touchstone.pack import Pack
from touchstone.quality.jury_agreement import alpha
from touchstone.quality.jury_build import build_jury_card, member_scores
from touchstone.quality.jury_card import JuryCard, JuryLines, MemberKey
from touchstone.results import Verdict, VerdictKey
from touchstone.scorecard.build import build_scorecard
from touchstone.scorecard.terminal import render_scorecard

QWEN = ("qwen2.5-14b-instruct", "http://gpu-1:8000/v1")
GEMMA = ("gemma2:9b", "http://127.0.0.1:11434/v1")
ENDLESS = ("sim-think-endless", "http://127.0.0.1:9/v1")
REASON = (
    "3 Aufrufe in Folge fehlgeschlagen (Frist 60 s) – Rat: Frist erhöhen oder den Judge "
    "ersetzen (call_timeout_s in judge.yaml)"
)


@dataclass
class Member:
    model: str
    base_url: str
    dropped: str | None = None


MEMBERS = [Member(*QWEN), Member(*GEMMA), Member(*ENDLESS, dropped=REASON)]


def jury_cells() -> dict[VerdictKey, dict[MemberKey, float]]:
    """Two models on 12 prompts: gemma judges one point harsher than qwen, and 3 cells by
    three points; the runaway member scored 2 cells before it was dropped."""
    cells: dict[VerdictKey, dict[MemberKey, float]] = {}
    rng = random.Random(5)
    for model in ("qwen2.5-7b-instruct", "llama-3.1-8b"):
        for p in range(12):
            truth = rng.randint(2, 5)
            harsh = truth - (3 if model.startswith("llama") and p < 3 else 1)
            scores = {QWEN: float(truth), GEMMA: float(max(0, harsh))}
            if p < 2:
                scores[ENDLESS] = float(truth)
            cells[VerdictKey(model, "base", f"P{p}", 1)] = scores
    return cells


@pytest.fixture
def card() -> JuryCard:
    return build_jury_card(MEMBERS, jury_cells(), low=0, high=5)


def test_the_card_has_the_documented_figures(card: JuryCard) -> None:
    cells = jury_cells()
    assert card.active == 2 and len(card.members) == 3
    assert card.alpha == alpha(cells)
    assert card.alpha_ci is not None and card.alpha_ci[0] < (card.alpha or 0) < card.alpha_ci[1]
    assert len(card.disputed) == 3 and all(key.model == "llama-3.1-8b" for key in card.disputed)
    qwen, gemma, endless = card.members
    assert qwen.mean is not None and gemma.mean is not None and gemma.mean < qwen.mean
    assert (endless.scored, endless.dropped) == (4, REASON)
    assert [(k.a, k.b, k.cells) for k in card.kappas] == [
        (QWEN, GEMMA, 24),
        (QWEN, ENDLESS, 4),
        (GEMMA, ENDLESS, 4),
    ]
    # qwen's own row is judged by a qwen member: its mean without it is gemma's alone.
    (family,) = [f for f in card.same_family if f.excluded]
    assert family.row == ("qwen2.5-7b-instruct", "base") and family.family == "qwen"
    assert family.without_own_family is not None and family.mean is not None
    assert family.without_own_family < family.mean


def test_the_terminal_card_fits_80_columns_and_speaks_german(card: JuryCard) -> None:
    console = Console(width=80, record=True)
    console.print(JuryLines(card))
    text = console.export_text()
    lines = text.splitlines()
    assert all(len(line) <= 80 for line in lines), lines
    assert lines[0].startswith("Jury: 2 von 3 Judges aktiv · Übereinstimmung α = 0,")
    assert "strittig: 3 Zellen" in text
    assert "✗ sim-think-endless: Mittel" in text
    assert "ausgeschieden: 3 Aufrufe in Folge fehlgeschlagen (Frist 60 s)" in " ".join(
        line.strip() for line in lines
    )
    assert "Kappa je Paar (quadratisch gewichtet):" in text
    assert "qwen2.5-14b-instruct ↔ gemma2:9b: " in text
    assert "qwen2.5-7b-instruct · base (Familie qwen): " in text
    # Narrower terminals wrap at the separators, never past the width.
    narrow = Console(width=50, record=True)
    narrow.print(JuryLines(card))
    assert all(len(line) <= 50 for line in narrow.export_text().splitlines())


def test_the_jury_json_has_the_keys_of_design_18(card: JuryCard) -> None:
    data = card.as_dict()
    assert {"members", "alpha", "alpha_ci", "disputed"} <= data.keys()
    assert [set(m) >= {"model", "base_url", "mean", "dropped"} for m in data["members"]] == [
        True
    ] * 3
    assert [m["dropped"] for m in data["members"]] == [None, None, REASON]
    assert data["members"][0]["base_url"] == QWEN[1]
    assert data["alpha"] == round(card.alpha or 0, 4)
    low, high = data["alpha_ci"]
    assert low < data["alpha"] < high
    assert data["disputed"] == 3
    assert data["pairwise_kappa"][0]["a"] == {"model": QWEN[0], "base_url": QWEN[1]}
    assert {"model", "variant", "family", "mean", "mean_without_own_family"} == set(
        data["same_family"][0]
    )


def test_a_member_sharing_its_model_name_is_told_apart_by_endpoint() -> None:
    twins = [Member("m", "http://a/v1"), Member("m", "http://b/v1")]
    cells = {
        VerdictKey("x", "base", "P1", 1): {("m", "http://a/v1"): 3.0, ("m", "http://b/v1"): 4.0}
    }
    card = build_jury_card(twins, cells, low=0, high=5)
    assert [m.label for m in card.members] == ["m (http://a/v1)", "m (http://b/v1)"]
    # One cell, two scores: alpha is 0 (no better than chance) and has no interval.
    assert card.alpha_ci is None and "Übereinstimmung α = 0,00 ·" in card.headline()


def test_member_scores_keep_scored_verdicts_by_member() -> None:
    def verdict(score: int, unscored: bool = False) -> Verdict:
        return Verdict("x", "base", "P1", 1, "R", score, False, "", unscored=unscored)

    key = VerdictKey("x", "base", "P1", 1)
    other = VerdictKey("x", "base", "P2", 1)
    scores = member_scores({key: {QWEN: verdict(4), GEMMA: verdict(0, True)}, other: {}})
    assert scores == {key: {QWEN: 4.0}}


def test_scorecard_carries_the_card_into_json_terminal_and_report(
    card: JuryCard, tiny_pack: Pack
) -> None:
    from touchstone.report import render_report

    responses = [make_response("R1", model=m) for m in ("a", "b")]
    verdicts = [
        Verdict(m, "none", "R1", 1, "R", s, False, "", judge_model="j")
        for m, s in (("a", 4), ("b", 2))
    ]
    scorecard = build_scorecard(responses, verdicts, scale_min=0, scale_max=5)
    assert "jury" not in scorecard.as_dict()  # one judge: scorecard.json as before
    scorecard.jury_card = card
    assert scorecard.as_dict()["jury"] == card.as_dict()
    console = Console(width=80, record=True)
    console.print(render_scorecard(scorecard))
    assert "Jury: 2 von 3 Judges aktiv" in console.export_text()
    run = {"run_name": "r", "pack": tiny_pack, "responses": responses, "verdicts": verdicts}
    html = render_report(**run, reports=[], card=scorecard)
    assert 'data-testid="jury-card"' in html
    assert "Jury: 2 von 3 Judges aktiv" in html
    assert "strittig: 3 Zellen" in html
    assert "ausgeschieden: 3 Aufrufe in Folge fehlgeschlagen" in html
    assert html.count('data-testid="jury-dropped"') == 1
    assert "(Familie qwen)" in html


def test_hostile_member_names_stay_plain_in_the_terminal() -> None:
    evil = Member("evil\x1b]0;pwned\x07[bold]x[/]", "http://e/v1")
    cells = {VerdictKey("x", "base", "P1", 1): {(evil.model, evil.base_url): 3.0}}
    console = Console(width=80, record=True)
    console.print(JuryLines(build_jury_card([evil], cells, low=0, high=5)))
    text = console.export_text()
    assert "\x1b" not in text and "\\x1b]0;pwned\\x07[bold]x[/]" in text


def test_the_gui_verdict_table_filters_disputed_cells(card: JuryCard) -> None:
    from types import SimpleNamespace

    from touchstone.gui.queries import VerdictQuery, selected_verdicts

    verdicts = [
        Verdict(key.model, key.variant, key.prompt_id, key.repeat, "R", 3, False, "")
        for key in jury_cells()
    ]
    scorecard = build_scorecard([], verdicts, scale_min=0, scale_max=5)
    scorecard.jury_card = card
    run = SimpleNamespace(view=SimpleNamespace(verdicts=verdicts), card=scorecard)
    kept = selected_verdicts(run, VerdictQuery(disputed=True))  # type: ignore[arg-type]
    assert sorted(v.key for v in kept) == sorted(card.disputed)
    rest = selected_verdicts(run, VerdictQuery(disputed=False))  # type: ignore[arg-type]
    assert len(rest) == len(verdicts) - 3
    # One judge: no cell is disputed.
    scorecard.jury_card = None
    assert selected_verdicts(run, VerdictQuery(disputed=True)) == []  # type: ignore[arg-type]


def test_scores_of_former_members_count_nowhere_and_the_rule_is_shown() -> None:
    former = ("old-judge", "http://old/v1")
    cells = jury_cells()
    for scores in cells.values():
        scores[former] = 0.0  # would dispute every cell and drag alpha down
    card = build_jury_card(
        MEMBERS, cells, low=0, high=5, quorum=2, aggregate_name="median", no_quorum=3
    )
    clean = build_jury_card(MEMBERS, jury_cells(), low=0, high=5)
    assert (card.alpha, len(card.disputed)) == (clean.alpha, len(clean.disputed))
    assert card.rule_text() == "Quorum 2 · Median · ohne Quorum: 3 Zellen"
    console = Console(width=80, record=True)
    console.print(JuryLines(card))
    assert console.export_text().splitlines()[2] == "  Quorum 2 · Median · ohne Quorum: 3 Zellen"
    data = card.as_dict()
    assert (data["quorum"], data["aggregate"], data["no_quorum"]) == (2, "median", 3)
    assert clean.rule_text() == "" and "quorum" not in clean.as_dict()


def test_a_dropped_members_whole_message_is_not_named_twice_and_empty_pairs_are_left_out() -> None:
    message = f"Judge {ENDLESS[0]} ausgeschieden: {REASON}"
    members = [Member(*QWEN), Member(*GEMMA), Member(*ENDLESS, dropped=message)]
    cells = {
        key: {m: s for m, s in scores.items() if m != ENDLESS}
        for key, scores in jury_cells().items()
    }
    card = build_jury_card(members, cells, low=0, high=5)
    text = "\n".join(card.lines())
    assert f"ausgeschieden: {REASON[:30]}" in " ".join(text.split())
    assert text.count("ausgeschieden") == 1
    (kappa,) = card.kappa_texts()
    assert kappa.startswith(f"{QWEN[0]} ↔ {GEMMA[0]}: 0,")
    assert len(card.as_dict()["pairwise_kappa"]) == 3  # the JSON keeps every pair
