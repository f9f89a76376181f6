"""The one German format for numbers, intervals, dates and counted words (design.md §22)."""

import datetime as dt

import pytest

from touchstone import german


@pytest.mark.parametrize(
    ("value", "digits", "text"),
    [
        (4.85, 2, "4,85"),
        (16054.5, 1, "16.054,5"),
        (6224, 0, "6.224"),
        (-0.001, 2, "0,00"),
        (-1234567.891, 2, "-1.234.567,89"),
        # Rounded as written, half away from zero: as a reader (and the GUI's Intl) rounds.
        (0.35, 1, "0,4"),
        (16054.5, 0, "16.055"),
        (2.675, 2, "2,68"),
        (-0.125, 2, "-0,13"),
        (1e300, 0, "1" + ".000" * 100),
        (None, 2, "–"),
        (float("nan"), 2, "–"),
    ],
)
def test_numbers_take_a_decimal_comma_and_a_thousands_point(
    value: float | None, digits: int, text: str
) -> None:
    assert german.number(value, digits) == text


def test_signed_counts_and_words() -> None:
    assert [german.signed(v) for v in (0.351, -0.12, 0.0, -0.0001)] == [
        "+0,35",
        "-0,12",
        "+0,00",
        "+0,00",
    ]
    assert german.count(6224) == "6.224" and german.count(12) == "12"
    assert german.counted(1, "Aufruf", "Aufrufe") == "1 Aufruf"
    assert german.counted(1204, "Aufruf", "Aufrufe") == "1.204 Aufrufe"
    assert german.percent(0.483) == "48 %"


def test_an_interval_is_shown_by_its_bounds_unless_it_is_symmetric() -> None:
    assert german.interval(4.85, 4.70, 4.96) == "4,85 [4,70 – 4,96]"
    assert german.interval(4.85, 4.73, 4.97) == "4,85 ±0,12"
    assert german.interval(4.0, None, None) == "4,00"  # one prompt: no interval
    assert german.interval(None, None, None) == "–"


def test_dates_are_local_with_their_zone() -> None:
    berlin = dt.timezone(dt.timedelta(hours=1), "MEZ")
    assert german.local_time("2026-12-01T03:31:00+00:00", zone=berlin) == "01.12.2026, 04:31 MEZ"
    assert german.local_time("2026-12-01T03:31:00", zone=dt.UTC) == "01.12.2026, 03:31 UTC"
    assert german.local_time("gestern") == "gestern"
    assert german.local_time("") == "–"
