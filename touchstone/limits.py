"""The numbers that can work (design.md §15), checked before any call.

A timeout of ``inf`` or ``nan`` would turn every call into a failure with the wrong advice;
a negative ``max_tokens`` would fail every call with a 400. Config files check these through
their pydantic fields; command-line options through ``check_*``, naming the option.

What servers report is bounded here too: a token count is a plausible non-negative integer
(``TokenCount``, ``token_count``) or unknown.
"""

from __future__ import annotations

import math
from typing import Annotated

from pydantic import BeforeValidator, Field, Strict, TypeAdapter, ValidationError

from touchstone import german
from touchstone.errors import InputError

# An answer call's deadline unless the user gives one (``run --call-timeout``).
DEFAULT_CALL_TIMEOUT_S = 300.0

MAX_TIMEOUT_S = 86_400.0  # a day
MAX_CONCURRENCY = 256
MAX_REPEATS = 10_000
# ``max_tokens`` of an answer call (``run --max-tokens``, the GUI's run form).
MAX_TOKENS_PER_CALL = 10_000_000
MAX_TEMPERATURE = 2.0
MAX_PORT = 65_535
# More tokens than any one call can use: a count above it is a server's nonsense. Bounded, a
# sum over 100k calls stays far inside a float, so speed and cost cannot overflow.
MAX_TOKEN_COUNT = 10**9
# A wait longer than any call's deadline can be is no wait a call could honour.
MAX_RETRY_AFTER_S = MAX_TIMEOUT_S
# judge-check's battery (quality/probes.py, design.md §14): up to PROBES_PER_KIND references and
# as many counterexamples, then six fixed probes (three non-answers, two injections, one
# repeat). Here, not there, because `judge-check --help` and the GUI name the bound and start
# without the battery.
PROBES_PER_KIND = 6
MAX_PROBES = 2 * PROBES_PER_KIND + 3 + 2 + 1

# The one rule for a token count, wherever one comes from (a server's usage, a run dir's
# record): an integer in 0..MAX_TOKEN_COUNT. Strict: a bool, a float or a string is no count.
TokenCount = Annotated[int, Strict(), Field(ge=0, le=MAX_TOKEN_COUNT)]
_TOKEN_COUNT: TypeAdapter[int] = TypeAdapter(TokenCount)


def token_count(value: object) -> int | None:
    """``value`` if it is a plausible token count (``TokenCount``), else None: unknown."""
    # The usual cases without pydantic (every judge call reports four counts): a plain int
    # (a bool is none, its type is not int) and no count at all.
    if type(value) is int:
        return value if 0 <= value <= MAX_TOKEN_COUNT else None
    if value is None:
        return None
    try:
        return _TOKEN_COUNT.validate_python(value)
    except ValidationError:
        return None


def decimal(text: str | float) -> float:
    """``text`` as a number, with a decimal comma (``0,3``) or point (``0.3``): touchstone
    prints the comma, so it reads it back. Only one separator: a thousands point (``1.000,5``)
    or a list (``0,3,4``) is ambiguous, a ``ValueError`` saying so in German (design.md §22).
    A command-line option's parser (typer shows the message beside the option's name; it
    passes an option's default, a number, through it too)."""
    if isinstance(text, float | int):
        return float(text)
    stripped = text.strip()
    problem = ""
    if stripped.count(",") + stripped.count(".") > 1:
        problem = ", ohne Tausenderpunkte (1000,5 statt 1.000,5)"
    elif "_" not in stripped:
        try:
            return float(stripped.replace(",", "."))
        except ValueError:
            pass
    raise ValueError(
        f"„{german.cut(text, 40)}“ ist keine Zahl; erwartet wird eine Zahl wie 0,3 oder "
        f"0.3{problem}"
    )


def _decimal_text(value: object) -> object:
    """A config's ``0,3`` (YAML reads it as the text "0,3") as the number it means."""
    return decimal(value) if isinstance(value, str) else value


# A float field of a config file: a number, or a text with a decimal comma or point.
DecimalText = BeforeValidator(_decimal_text)


MAX_REPLY_MB = 1024.0  # the cap of a reply can be raised, not lifted

# Money, in the currency of the price (touchstone only multiplies): one unit per token is
# above any model's price in any currency (USD 120 per million is about 160,000 in KRW); a
# price of 1e308 made every cost infinite (inf) and every message "–".
MAX_PRICE_PER_MILLION = 1_000_000.0
# A budget is a cap a run can reach: within what the messages show (4 decimals below 1).
MIN_BUDGET, MAX_BUDGET = 0.0001, 1_000_000_000.0
# ``cache clear --older-than``: days back, at most a century.
MAX_AGE_DAYS = 36_500.0
# The gate's margin is written with two decimals: below 0.01 it would read "-0,00".
MIN_MARGIN = 0.01


def shown(value: float) -> str:
    """A number someone gave, for a message about it: German where it reads as a number
    (``0,3``, ``20.000``), else short (``1e+308``, ``1e-300``, ``nan``): never 309 digits."""
    if math.isfinite(value) and (value == 0 or 1e-4 <= abs(value) < 1e9):
        digits = next((d for d in range(7) if round(value, d) == value), 6)
        return german.number(value, digits)
    return f"{value:.4g}".replace(".", ",")


def check_range(
    option: str, value: float, low: float, high: float, *, below_high: bool = False, note: str = ""
) -> None:
    """``value`` of ``option`` lies in ``low`` .. ``high`` (``below_high``: under it), finite;
    else an ``InputError`` that names the range (``note``: what it is, in parentheses) and
    the value in a few characters."""
    inside = (
        math.isfinite(value) and low <= value and (value < high if below_high else value <= high)
    )
    if not inside:
        top = f"unter {_bound(high)}" if below_high else _bound(high)
        extra = f" ({note})" if note else ""
        raise InputError(
            f"{option} muss eine Zahl von {_bound(low)} bis {top} sein{extra}, ist {shown(value)}."
        )


def _bound(value: float) -> str:
    """A bound as a reader writes it: ``0``, ``10.000``, ``0,01``."""
    return german.number(value, 0) if value == int(value) else shown(value)


def check_timeout(option: str, value: float) -> None:
    if not (math.isfinite(value) and 0 < value <= MAX_TIMEOUT_S):
        raise InputError(
            f"{option} muss eine Zahl größer als 0 und höchstens {_bound(MAX_TIMEOUT_S)} (ein Tag) "
            f"sein, ist {shown(value)}."
        )


def check_reply_mb(option: str, value: float) -> None:
    if not (math.isfinite(value) and 0 < value <= MAX_REPLY_MB):
        raise InputError(
            f"{option} muss eine Zahl größer als 0 und höchstens {_bound(MAX_REPLY_MB)} sein, "
            f"ist {shown(value)}."
        )


def check_count(option: str, value: int, low: int, high: int) -> None:
    if not low <= value <= high:
        raise InputError(f"{option} muss zwischen {low} und {high} liegen, ist {value}.")


def check_port(option: str, value: int) -> None:
    if not 0 <= value <= MAX_PORT:
        raise InputError(
            f"{option} muss zwischen 1 und {MAX_PORT} liegen (0 = ein freier Port), ist {value}."
        )
