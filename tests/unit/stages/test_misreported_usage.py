"""A server that reports too little usage cannot switch the budget off (issue 35, design.md §12).

Behind a proxy that rewrites ``usage`` to 0/0, a budget counted what the server said and so
nothing: ``run --budget`` made every call, ``judge`` with ``budget`` too. A call that brought
content back now counts at least characters / 4 of what was sent and what arrived, the budget
stops after about as many calls as against an honest server, and its line says once that the
server's usage looked wrong; the run dir keeps what the server reported.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import run_on_sim
from tests.unit.jury.test_jury import member
from tests.unit.stages.test_cost import answers, verdicts
from touchstone.errors import BudgetReached
from touchstone.judge.config import PricePerMillion
from touchstone.jury.config import JuryConfig
from touchstone.sim import SimServer
from touchstone.stages.judge.judge import execute_judge
from touchstone.stages.preview.preview import preview_run
from touchstone.stages.run.run import RunOutcome
from touchstone.transport.budget import Price

# One unit per token, input and output alike: a call costs what it sent and what it wrote.
PER_TOKEN = Price(1_000_000.0, 1_000_000.0)
JUDGE_PRICE = PricePerMillion(input=1_000_000.0, output=1_000_000.0)
# What the budget's line says, once, when a server's usage looked wrong.
WRONG = "Die Verbrauchsangaben des Servers wirken falsch"


@pytest.fixture
def honest() -> Iterator[SimServer]:
    with SimServer() as server:
        yield server


@pytest.fixture
def zero() -> Iterator[SimServer]:
    """Every reply reports 0 prompt and 0 completion tokens."""
    with SimServer(zero_usage=True) as server:
        yield server


def capped_run(sim: SimServer, pack: Path, out: Path) -> RunOutcome:
    """36 cells of sim-gut under a budget that an honest server's usage ends after about 29."""
    return run_on_sim(
        sim,
        pack_path=pack,
        models=["sim-gut"],
        out=out,
        repeats=6,
        max_tokens=100,
        concurrency=2,
        price=PER_TOKEN,
        budget=2000.0,
    )


def test_run_budget_holds_against_a_server_reporting_zero_usage(
    honest: SimServer, zero: SimServer, tiny_pack_path: Path, tmp_path: Path
) -> None:
    """Before: all 36 calls, "Budget: 0,00 von 2.000,00 verbraucht"."""
    fair = capped_run(honest, tiny_pack_path, tmp_path / "honest").summary.budget
    capped = capped_run(zero, tiny_pack_path, tmp_path / "zero").summary.budget
    assert fair is not None and capped is not None and fair.reached and capped.reached
    made, honest_made = zero.calls["sim-gut"], honest.calls["sim-gut"]
    assert honest_made - 3 <= made <= honest_made + 1 < 36
    assert capped.spent > 0.9 * fair.spent
    assert capped.misreported == made and fair.misreported == 0
    # Said once, in the line the terminal prints and the events carry.
    assert capped.message().count(WRONG) == 1 and WRONG not in fair.message()
    assert capped.as_dict()["summary"].count(WRONG) == 1
    assert capped.as_dict()["misreported_calls"] == made
    # The record is what the server said; only the budget counts the estimate.
    saved = answers(tmp_path / "zero")
    assert len(saved) == made and {(r.prompt_tokens, r.completion_tokens) for r in saved} == {
        (0, 0)
    }


def capped_judge(sim: SimServer, run: Path) -> tuple[int, str]:
    """sim-judge under a budget an honest server's usage ends after about 9 of 16 calls: the
    calls it made and the stop's message."""
    config = member(
        sim, "sim-judge", max_tokens=60, price_per_million=JUDGE_PRICE, budget=3000.0, concurrency=2
    )
    with pytest.raises(BudgetReached) as stop:
        execute_judge(run, config=config, use_cache=False)
    return sim.calls["sim-judge"], str(stop.value)


def test_judge_budget_holds_against_a_server_reporting_zero_usage(
    honest: SimServer, zero: SimServer, answered_run: Path, tmp_path: Path
) -> None:
    """Before: every cell and holistic call judged, no stop."""
    copy = tmp_path / "copy"
    shutil.copytree(answered_run, copy)
    honest_made, fair = capped_judge(honest, answered_run)
    zero_made, capped = capped_judge(zero, copy)
    assert honest_made - 3 <= zero_made <= honest_made + 1 < 12 + 4
    assert capped.count(WRONG) == 1 and WRONG not in fair
    assert {v.judge_completion_tokens for v in verdicts(copy)} == {0}


def test_a_jury_members_budget_holds_against_a_server_reporting_zero_usage(
    zero: SimServer, answered_run: Path
) -> None:
    """Before: the member with a budget judged all 12 cells and stayed in the jury."""
    capped = member(zero, "sim-strict", max_tokens=60, price_per_million=JUDGE_PRICE, budget=2000.0)
    jury = JuryConfig([member(zero, "sim-judge"), capped, member(zero, "sim-gullible")], quorum=2)
    outcome = execute_judge(answered_run, config=jury, use_cache=False)
    dropped = {e["model"]: e["dropped"] for e in outcome.jury_events}
    assert zero.calls["sim-strict"] < 12 and zero.calls["sim-judge"] == 12 + 4
    assert dropped["sim-strict"] is not None and dropped["sim-judge"] is None
    assert dropped["sim-strict"].startswith("Judge sim-strict ausgeschieden: Budget erreicht")
    assert dropped["sim-strict"].count(WRONG) == 1


def test_a_dry_run_after_zero_usage_estimates_as_if_nothing_was_measured(
    zero: SimServer, tiny_pack_path: Path, tmp_path: Path
) -> None:
    """The zeros the run dir keeps are no measurement: the estimate stays the upper bound."""
    options = {
        "pack_path": tiny_pack_path,
        "models": ["sim-gut"],
        "out": tmp_path / "r",
        "max_tokens": 100,
        "price": PER_TOKEN,
    }
    run_on_sim(zero, **options)
    lines = preview_run(**options, base_url=zero.base_url, repeats=2, extend=True).lines()  # type: ignore[arg-type]
    assert "Ausgabe: höchstens 600 Tokens (--max-tokens 100 je Aufruf; noch nichts gemessen)" in (
        lines
    )


def test_a_jury_member_within_its_budget_says_once_that_the_usage_looked_wrong(
    zero: SimServer, answered_run: Path
) -> None:
    """Before: its line and its event said nothing of its budget, so nothing of the zeros."""
    capped = member(zero, "sim-strict", max_tokens=60, price_per_million=JUDGE_PRICE, budget=1e9)
    jury = JuryConfig([member(zero, "sim-judge"), capped], quorum=2)
    outcome = execute_judge(answered_run, config=jury, use_cache=False)
    strict = next(line for line in outcome.jury_lines if line.startswith("Judge sim-strict:"))
    assert strict.count(WRONG) == 1 and "verbraucht." in strict
    assert " ".join(outcome.jury_lines).count(WRONG) == 1  # sim-judge has no budget
    events = {e["model"]: e for e in outcome.jury_events}
    assert events["sim-strict"]["budget"]["misreported_calls"] == 12
    assert "budget" not in events["sim-judge"]
