"""The numbers that can work (DESIGN §15), checked before any call.

A timeout of ``inf`` or ``nan`` would turn every call into a failure with the wrong advice;
a negative ``max_tokens`` would fail every call with a 400. Config files check these through
their pydantic fields; command-line options through ``check_*``, naming the option.
"""

from __future__ import annotations

import math

from touchstone.errors import InputError

MAX_TIMEOUT_S = 86_400.0  # a day
MAX_CONCURRENCY = 256
MAX_REPEATS = 10_000
MAX_TEMPERATURE = 2.0
MAX_PORT = 65_535
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
