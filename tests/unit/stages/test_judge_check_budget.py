"""``judge-check`` honours the ``budget`` of its judge config (issue 35, design.md §12, §14).

Before: the check made all its probe calls whatever the budget said. Now it stops like a
judge run: no probe starts whose worst case could break the cap, and the stop is a budget
stop (``BudgetReached``: exit 1, "Budget erreicht: …"), naming how many probes were judged.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.unit.jury.test_jury import member
from tests.unit.quality.test_judge_check import BUERO
from tests.unit.stages.test_misreported_usage import JUDGE_PRICE
from touchstone.errors import BudgetReached
from touchstone.jury.config import JuryConfig
from touchstone.pack import load_pack
from touchstone.sim import SimServer
from touchstone.stages.judge_check import execute_judge_check
from touchstone.stages.jury.member_check import execute_jury_check


@pytest.fixture
def own_sim() -> Iterator[SimServer]:
    with SimServer() as server:
        yield server


def test_judge_check_stops_at_its_budget(own_sim: SimServer) -> None:
    config = member(own_sim, "sim-judge", max_tokens=60, price_per_million=JUDGE_PRICE)
    config.budget = 3000.0
    with pytest.raises(BudgetReached) as stop:
        execute_judge_check(load_pack(BUERO), config=config)
    made = own_sim.calls["sim-judge"]
    assert 0 < made < 18
    message = str(stop.value)
    assert message.startswith("Budget erreicht: ") and " von 3.000,00 " in message
    assert f"Judge-Check für sim-judge abgebrochen: {made} von 18 Proben bewertet" in message
    assert stop.value.facts["budget_message"]
    assert "Aufrufe" in stop.value.health_summary

    # With room for every probe the check judges as before.
    config.budget = 1_000_000.0
    card = execute_judge_check(load_pack(BUERO), config=config)
    assert card.suitable and own_sim.calls["sim-judge"] == made + 18


def test_a_jury_check_stops_at_a_members_budget(own_sim: SimServer) -> None:
    capped = member(own_sim, "sim-strict", max_tokens=60, price_per_million=JUDGE_PRICE)
    capped.budget = 3000.0
    jury = JuryConfig([member(own_sim, "sim-judge"), capped], quorum=2)
    with pytest.raises(BudgetReached) as stop:
        execute_jury_check(load_pack(BUERO), jury)
    assert own_sim.calls["sim-strict"] < 18
    assert "Judge-Check für sim-strict abgebrochen" in str(stop.value)
