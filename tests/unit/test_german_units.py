"""Seconds and intervals in one German format wherever a person reads them (issue 23 §6)."""

import re

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
    assert shown == f'<span class="nowrap">{german.seconds(0.004).replace(NBSP, " ")}</span>'


def test_one_interval_format_readable_with_negative_bounds() -> None:
    assert german.interval(3.2, 2.81, 3.53) == "3,20 [2,81 – 3,53]"
    assert german.interval(-1.8, -2.22, -1.48) == "-1,80 [-2,22 – -1,48]"
    assert german.bounds(-2.22, -1.48, difference=True) == "[-2,22 – -1,48]"
    assert german.bounds(0.12, 0.56, difference=True) == "[+0,12 – +0,56]"


def test_the_comparison_matrix_uses_the_one_interval_format() -> None:
    from pathlib import Path

    template = Path(__file__).parents[2] / "touchstone" / "templates" / "scorecard.html"
    text = template.read_text(encoding="utf-8")
    assert "| signed }} – {{" not in text and "bounds(" in text


def test_a_difference_interval_stays_within_the_scale_span() -> None:
    from touchstone.scorecard.compare import within_span
    from touchstone.stats.intervals import Interval

    clipped = within_span(Interval(4.8, 3.1, 6.48, 3), 5.0)
    assert (clipped.mean, clipped.low, clipped.high) == (4.8, 3.1, 5.0)
    negative = within_span(Interval(-4.8, -6.48, -3.1, 3), 5.0)
    assert (negative.low, negative.high) == (-5.0, -3.1)
    assert within_span(Interval(1.0, None, None, 1), 5.0).low is None


def test_on_a_page_the_bounds_never_part_yet_copy_as_typed() -> None:
    from touchstone.report import template_environment
    from touchstone.stats.intervals import Interval

    env = template_environment()
    html = env.from_string("{{ i | interval }} {{ 2.5 | seconds }}").render(
        i=Interval(4.33, 3.07, 5.0, 3)
    )
    # Held together by markup, not by characters a copy would carry (AGENTS.md).
    assert html == (
        '4,33 <span class="nowrap">[3,07 – 5,00]</span> <span class="nowrap">2,50 s</span>'
    )
    assert not re.search("[\u00a0\u2060\u2011]", html)


def test_a_prompt_text_wraps_to_the_page_keeping_paragraphs_and_lists() -> None:
    from touchstone.report import paragraphs

    text = "Bitte schreiben Sie\neine kurze Mail.\n\nPunkte:\n- erstens\n- zweitens\n"
    # The pack's hard line breaks left dangling words on a phone: a break is a space.
    assert paragraphs(text) == (
        "<p>Bitte schreiben Sie eine kurze Mail.</p>\n<p>Punkte:<br>- erstens<br>- zweitens</p>"
    )
    assert paragraphs("a <b>\nc") == "<p>a &lt;b&gt; c</p>"
