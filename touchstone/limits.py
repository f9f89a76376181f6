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

from pydantic import Field, Strict, TypeAdapter, ValidationError

from touchstone.errors import InputError

# An answer call's deadline unless the user gives one (``run --call-timeout``).
DEFAULT_CALL_TIMEOUT_S = 300.0

MAX_TIMEOUT_S = 86_400.0  # a day
MAX_CONCURRENCY = 256
MAX_REPEATS = 10_000
MAX_TEMPERATURE = 2.0
MAX_PORT = 65_535
# More tokens than any one call can use: a count above it is a server's nonsense. Bounded, a
# sum over 100k calls stays far inside a float, so speed and cost cannot overflow.
MAX_TOKEN_COUNT = 10**9
# A wait longer than any call's deadline can be is no wait a call could honour.
MAX_RETRY_AFTER_S = MAX_TIMEOUT_S

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


MAX_REPLY_MB = 1024.0  # the cap of a reply can be raised, not lifted


def check_timeout(option: str, value: float) -> None:
    if not (math.isfinite(value) and 0 < value <= MAX_TIMEOUT_S):
        raise InputError(
            f"{option} muss eine Zahl größer als 0 und höchstens {MAX_TIMEOUT_S:g} (ein Tag) "
            f"sein, ist {value}."
        )


def check_reply_mb(option: str, value: float) -> None:
    if not (math.isfinite(value) and 0 < value <= MAX_REPLY_MB):
        raise InputError(
            f"{option} muss eine Zahl größer als 0 und höchstens {MAX_REPLY_MB:g} sein, "
            f"ist {value}."
        )


def check_count(option: str, value: int, low: int, high: int) -> None:
    if not low <= value <= high:
        raise InputError(f"{option} muss zwischen {low} und {high} liegen, ist {value}.")


def check_port(option: str, value: int) -> None:
    if not 0 <= value <= MAX_PORT:
        raise InputError(
            f"{option} muss zwischen 1 und {MAX_PORT} liegen (0 = ein freier Port), ist {value}."
        )
