"""Numbers in the terminal's lines and cards the German way (issue 23 §6, design.md §22): the
Judge-Bilanz, the agreement of a re-judge and the judge-check's fitness card say "0,85",
"6.224 Tokens", "1 Aufruf" and "Frist überschritten: 3", never a decimal point."""

import io
import re
from collections import Counter
from pathlib import Path

import pytest
from rich.console import Console

from tests.conftest import FakeJudge, timeout_error
from tests.unit.quality.test_judge_check import ProbeJudge, buero, check
from tests.unit.stages.test_pipeline import run_dir
from touchstone.cli import ui
from touchstone.judge.config import JudgeConfig, JudgeEndpoint
from touchstone.judge.health import JudgeHealth
from touchstone.pack import Pack
from touchstone.quality.agreement import Agreement
from touchstone.scorecard.fitness import render_fitness_card
from touchstone.sim import SimServer
from touchstone.stages.judge.judge import execute_judge

__all__ = ["buero", "run_dir"]  # fixtures, used by name

DECIMAL_POINT = re.compile(r"\b\d+\.\d{1,2}\b")  # "0.85", "15.00"; not "6.224"


def test_the_judge_balance_is_german() -> None:
    health = JudgeHealth(
        calls=1,
        successes=1,
        failures=Counter({"timeout": 3, "refused": 1}),
        latencies_s=[1.25],
        prompt_tokens=6224,
        completion_tokens=434,
        price_per_million=(2.5, 10.0),
    )
    line = health.summary_de()
    assert line.startswith("Judge-Bilanz: 1 Aufruf, 1 erfolgreich"), line
    assert "Frist überschritten: 3" in line and "timeout" not in line
    assert "Median 1,25\u00a0s, p95 1,25\u00a0s" in line
    assert "Tokens: 6.224 ein, 434 aus" in line and "Kosten: 0,0199" in line
    assert not DECIMAL_POINT.search(line), line
    health.calls, health.rate_limited = 1204, 2
    assert "1.204 Aufrufe" in health.summary_de()


def test_the_agreement_is_german() -> None:
    agreement = Agreement(
        cells=1, exact=0.5, within_one=0.75, kappa=0.8512, red_flag=1.0,
        previous_judges=("a",), judge="b",
    )  # fmt: skip
    line = agreement.summary_de()
    assert "auf 1 neu bewerteten Zelle:" in line and "Kappa 0,85" in line, line
    assert "exakt 50 %" in line and not DECIMAL_POINT.search(line)


def test_the_fitness_card_is_german_and_wraps_at_words_at_80_columns(buero: Pack) -> None:
    card = check(buero, ProbeJudge(buero, slow={"injection": 0.3}), call_timeout_s=0.5)
    latency = next(c for c in card.criteria if c.name == "Latenz p95")
    assert re.fullmatch(
        r"0,\d\d\xa0s \(Grenze 0,25\xa0s: die Hälfte von call_timeout_s\)", latency.figure
    )
    buffer = io.StringIO()
    ui.console_for(terminal=True, file=buffer, width=80).print(render_fitness_card(card))
    text = buffer.getvalue()
    assert "…" not in text and not DECIMAL_POINT.search(text), text
    balance = text[text.index("Judge-Bilanz") : text.index("Urteil")]
    words = set(card.health.summary_de(resumable=False).split())
    assert all(word in words for word in balance.split()), balance
    wide = Console(width=200, file=io.StringIO(), record=True)
    wide.print(render_fitness_card(card))
    assert "Grenze 0,25\u00a0s" in wide.export_text()


def test_the_judge_outcome_counts_in_words(
    run_dir: Path, sim: SimServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One unreadable reply and one cell left: "1 Antwort des Judges war unlesbar",
    "1 Zelle blieb", not "1 Antworten"/"1 Zellen"."""
    outcome = execute_judge(
        run_dir,
        config=JudgeConfig(JudgeEndpoint(sim.base_url), "unused"),
        backend=FakeJudge([timeout_error(), "kein JSON"]),
    )
    buffer = io.StringIO()
    monkeypatch.setattr(ui, "stdout", ui.console_for(terminal=False, file=buffer))
    ui.show_judge_outcome(outcome)
    text = buffer.getvalue()
    assert "1 Antwort des Judges war unlesbar" in text and "1 Zelle blieb" in text, text
    assert f"{outcome.new_verdicts} neue Bewertungen gespeichert" in text
    assert "Frist überschritten: 1" in text
