"""A budget is shown with the digits that show it fits (issue 36): "Budget: 0,00 von 5,00
verbraucht" after a run that cost 0,004 read as nothing spent. The amounts of one line share
one precision, enough for the smallest of them to show two significant digits."""

from __future__ import annotations

import re

from tests.conftest import PackRun
from touchstone.transport.budget import Price, money


def test_a_small_spend_of_a_large_budget_shows_its_digits(tiny_run: PackRun) -> None:
    # 0,01 per million input tokens, 0,02 per million output: the tiny pack costs about 0,0001.
    price = Price(0.01, 0.02)
    outcome = tiny_run("sim-gut", max_tokens=100, price=price, budget=5.0)
    budget = outcome.summary.budget
    assert budget is not None and 0 < budget.spent < 0.001
    line = budget.summary_de()
    spent, limit = re.match(r"Budget: (\S+) von (\S+) verbraucht", line).groups()  # type: ignore[union-attr]
    assert spent.strip("0,") != "", line  # not "0,00"
    assert len(spent.split(",")[1]) == len(limit.split(",")[1]), line  # one precision
    assert limit.startswith("5,"), line


def test_amounts_keep_the_precision_of_their_cap() -> None:
    assert money(4.98, 5.0) == "4,98"
    assert money(0.0097, 0.01) == "0,0097" and money(0.01, 0.0097) == "0,0100"
    assert money(0.004, 0.01) == "0,0040" and money(0.01, 0.004) == "0,0100"
    assert money(0.0, 5.0) == "0,00"
