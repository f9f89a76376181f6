"""The cost fields of the GUI's run and judge forms (issue 36, design.md §9 and §12): price,
``max_tokens``, budget and concurrency, checked as ``run`` and ``judge`` check their flags
``--price-per-million``, ``--max-tokens``, ``--budget`` and ``--concurrency`` (the bounds of
``limits``), each refusal a German 422 naming the field, before any job starts.

A judge's fields take the place of its config's settings (``jury.config.with_cost``, as the
flags do); an empty field keeps the config's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException

from touchstone.gui.validation import PriceText
from touchstone.judge.config import JudgeConfig
from touchstone.jury.config import JuryConfig, load_config, with_cost
from touchstone.limits import (
    MAX_BUDGET,
    MAX_CONCURRENCY,
    MAX_TOKENS_PER_CALL,
    MIN_BUDGET,
    DecimalText,
)
from touchstone.transport.budget import Price, parse_price

# The bounds of the forms' cost fields, as the browser's input hints (the request is checked).
FORM_LIMITS = {"max_tokens": MAX_TOKENS_PER_CALL, "concurrency": MAX_CONCURRENCY}
# The field of the forms a budget's price comes from (a budget's message names it).
PRICE_FIELD = "Feld „Preis je Million Tokens“"


# A budget with a decimal comma or point, in the bounds the CLI holds.
BudgetAmount = Annotated[
    float, DecimalText, Field(ge=MIN_BUDGET, le=MAX_BUDGET, allow_inf_nan=False)
]


class CostFields(BaseModel):
    """Price, answer cap and budget of a form (empty: not given)."""

    model_config = ConfigDict(extra="forbid")
    price_per_million: PriceText | None = None
    max_tokens: int | None = Field(default=None, ge=1, le=MAX_TOKENS_PER_CALL)
    budget: BudgetAmount | None = None

    @property
    def price(self) -> Price | None:
        return None if self.price_per_million is None else parse_price(self.price_per_million)

    def given(self) -> bool:
        return any(v is not None for v in (self.price_per_million, self.max_tokens, self.budget))

    def price_and_budget_args(self) -> list[str]:
        """``--price-per-million`` and ``--budget`` as the CLI reads them back."""
        args: list[str] = (
            []
            if self.price_per_million is None
            else ["--price-per-million", self.price_per_million]
        )
        return args if self.budget is None else [*args, "--budget", repr(self.budget)]


def budget_problem(budget: float | None, price: Price | None, max_tokens: int | None) -> str:
    """Why the form's budget cannot be a cap, in the form's words, or "" (``--budget``
    refuses the same: no worst case of a call without a price and a bounded output)."""
    if budget is None:
        return ""
    if price is None:
        return f"ein Budget braucht einen Preis ({PRICE_FIELD}), sonst ist es keine Grenze"
    if max_tokens is None:
        return (
            "ein Budget braucht max_tokens (höchstens so viele Tokens je Antwort): ohne "
            "begrenzte Ausgabe je Aufruf gibt es keinen schlimmsten Fall, den man zurückhalten "
            "könnte"
        )
    return ""


def refuse_unbounded_budget(body: CostFields, price: Price | None, cap: int | None) -> None:
    """422 when the budget of ``body`` has no price or no cap to hold against."""
    problem = budget_problem(body.budget, price, cap)
    if problem:
        raise HTTPException(422, f"Ungültige Anfrage: „budget“: {problem}.")


def judge_config(config: Path, body: CostFields) -> JudgeConfig | JuryConfig:
    """The judge config at ``config`` with the form's cost fields in place of its settings,
    or the 422 ``judge`` with those flags would end with (exit 2)."""
    loaded = load_config(config)  # its problems: 422 with the file's message
    if not body.given():
        return loaded
    if isinstance(loaded, JuryConfig):
        raise HTTPException(
            422,
            "Ungültige Anfrage: Preis, max_tokens und Budget gelten für einen einzelnen Judge; "
            "eine Jury setzt sie je Mitglied in ihrer Konfiguration (judges: […]).",
        )
    price = body.price
    if price is None and loaded.price_per_million is not None:
        price = loaded.price_per_million.price()
    refuse_unbounded_budget(
        body, price, loaded.max_tokens if body.max_tokens is None else body.max_tokens
    )
    return with_cost(loaded, price=body.price, max_tokens=body.max_tokens, budget=body.budget)
