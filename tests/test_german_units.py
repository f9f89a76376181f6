"""Seconds and intervals in one German format wherever a person reads them (issue 23 §6)."""

import pytest

from touchstone import german
from touchstone.errors import DeadlineExceeded
from touchstone.events import in_flight_text

NBSP = "\u00a0"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.5, "0,50"),
        (0.004, "0,00"),
        (0.0123, "0,01"),
        (1.25, "1,25"),
        (2.0, "2"),
        (12.34, "12,3"),
        (45.4, "45,4"),
        (120.0, "120"),
        (1234.5, "1.235"),
    ],
)
def test_seconds_read_the_same_everywhere(value: float, text: str) -> None:
    assert german.seconds(value) == f"{text}{NBSP}s"


def test_no_seconds_is_a_dash() -> None:
    assert german.seconds(None) == german.DASH


def test_every_seconds_text_uses_the_one_formatter() -> None:
    assert f"Frist von 0,50{NBSP}s" in str(DeadlineExceeded(0.5))
    assert in_flight_text(2, 0.5, 120) == (
        f"2 Aufrufe laufen, ältester seit 0,50{NBSP}s (Frist 120{NBSP}s)"
    )


def test_the_gui_and_the_report_show_latency_as_the_terminal_does() -> None:
    from touchstone.report import template_environment

    env = template_environment()
    shown = env.from_string("{{ 0.004 | seconds }}").render()
    assert shown == german.seconds(0.004)
