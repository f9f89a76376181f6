"""Every figure and date in ``packs/buero.yaml``'s expectations, computed (design.md §20).

Each test computes a prompt's figures here (VAT, discounts, interest, travel allowances, sums,
deadlines under BGB §§ 187, 188, 193 with real calendars) and asserts that the pack's rubric
states them as written: a typo in the pack fails a test. Amounts are Decimal, rounded half up
to the cent as an invoice is; German formatting comes from touchstone.german.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import ROUND_HALF_UP, Decimal

import pytest

from tests.conftest import REPO
from touchstone.german import number
from touchstone.pack import Pack, Prompt, load_pack

PACK: Pack = load_pack(REPO / "packs" / "buero.yaml")

MONTHS = [
    "Januar",
    "Februar",
    "März",
    "April",
    "Mai",
    "Juni",
    "Juli",
    "August",
    "September",
    "Oktober",
    "November",
    "Dezember",
]
WEEKDAYS = ["Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag"]

# German travel allowances for 2025 (§ 9 Abs. 4a EStG, R 9.7 LStR; unchanged since 2020): the
# prompts that use them say "Sätze für 2025".
PARTIAL_DAY = Decimal(14)  # over 8 hours away, or the day of arrival/departure
FULL_DAY = Decimal(28)
BREAKFAST_CUT = FULL_DAY * Decimal("0.20")  # 5,60 €, always from the full-day rate
MEAL_CUT = FULL_DAY * Decimal("0.40")  # 11,20 €
PER_KM = Decimal("0.30")  # private car on a business trip, per km driven
NIGHT_WITHOUT_RECEIPT = Decimal(20)


def cents(value: Decimal | int) -> Decimal:
    return Decimal(value).quantize(Decimal("0.01"), ROUND_HALF_UP)


def eur(value: Decimal | int, digits: int = 2) -> str:
    """``1.234,56 €`` as the pack writes amounts."""
    exact = Decimal(value).quantize(Decimal(1).scaleb(-digits), ROUND_HALF_UP)
    return f"{number(float(exact), digits)} €"


def pct(value: Decimal, digits: int = 1) -> str:
    return f"{number(float(value), digits)} %"


def day(date: dt.date, *, weekday: bool = False) -> str:
    """``14. April 2025`` (``Montag, 14. April 2025`` with ``weekday``)."""
    text = f"{date.day}. {MONTHS[date.month - 1]} {date.year}"
    return f"{WEEKDAYS[date.weekday()]}, {text}" if weekday else text


def easter(year: int) -> dt.date:
    """Easter Sunday (anonymous Gregorian algorithm)."""
    a, b, c = year % 19, year // 100, year % 100
    d, e = divmod(b, 4)
    g = (8 * b + 13) // 25
    h = (19 * a + b - d - g + 15) % 30
    i, k = divmod(c, 4)
    weekday_shift = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 22 * weekday_shift) // 451
    month, day_ = divmod(h + weekday_shift - 7 * m + 114, 31)
    return dt.date(year, month, day_ + 1)


def holidays(year: int) -> set[dt.date]:
    """Public holidays in every German state."""
    sunday = easter(year)
    fixed = {(1, 1), (5, 1), (10, 3), (12, 25), (12, 26)}
    moving = {-2, 1, 39, 50}  # Good Friday, Easter Monday, Ascension, Whit Monday
    return {dt.date(year, m, d) for m, d in fixed} | {sunday + dt.timedelta(days=n) for n in moving}


def add_months(date: dt.date, months: int) -> dt.date:
    """The same day number ``months`` later, or that month's last day (§ 188 Abs. 3 BGB)."""
    index = date.month - 1 + months
    year, month = date.year + index // 12, index % 12 + 1
    for day_ in range(date.day, 27, -1):
        try:
            return dt.date(year, month, day_)
        except ValueError:
            continue
    return dt.date(year, month, date.day)


def month_period_end(event: dt.date, months: int) -> dt.date:
    """A period of months starting with an event (§ 187 Abs. 1, § 188 Abs. 2, 3 BGB)."""
    return add_months(event, months)


def working_day(date: dt.date) -> dt.date:
    """§ 193 BGB: a last day on a Saturday, Sunday or holiday moves to the next working day."""
    while date.weekday() >= 5 or date in holidays(date.year):
        date += dt.timedelta(days=1)
    return date


def month_end(date: dt.date) -> dt.date:
    return add_months(dt.date(date.year, date.month, 1), 1) - dt.timedelta(days=1)


def rubric(prompt_id: str) -> str:
    return " ".join(" ".join(PACK.prompt(prompt_id).expectations).split())


def expect(prompt_id: str, *figures: str) -> None:
    text = rubric(prompt_id)
    missing = [f for f in figures if f not in text]
    assert not missing, f"{prompt_id}: {missing} not in expectations: {text}"


def flagged(prompt_id: str, *figures: str) -> None:
    text = " ".join(" ".join(PACK.prompt(prompt_id).red_flags).split())
    assert all(f in text for f in figures), f"{prompt_id}: {figures} not in red flags: {text}"


def asks(prompt_id: str, *figures: str) -> None:
    text = " ".join(PACK.prompt(prompt_id).text.split())
    assert all(f in text for f in figures), f"{prompt_id}: {figures} not in the task: {text}"


def _fields(prompt: Prompt) -> list[str]:
    return [
        prompt.text,
        *prompt.expectations,
        *prompt.red_flags,
        prompt.reference or "",
        prompt.counterexample or "",
    ]


# "Freitag, 14. März 2025", "Montag, den 1. Dezember 2025", "Dienstag, 9. Dezember" (the year
# then from the prompt's first full date).
NAMED_DAY = re.compile(
    rf"({'|'.join(WEEKDAYS)}),?\s+(?:den\s+|der\s+)?(\d{{1,2}})\.\s+({'|'.join(MONTHS)})"
    r"(?:\s+(\d{4}))?"
)


def test_every_named_weekday_in_the_pack_is_the_calendars() -> None:
    checked = 0
    for _, prompt in PACK.all_prompts():
        for field in _fields(prompt):
            flat = " ".join(field.split())
            years = re.findall(r"\b(20\d\d)\b", flat)
            for name, day_, month, year in NAMED_DAY.findall(flat):
                date = dt.date(int(year or years[0]), MONTHS.index(month) + 1, int(day_))
                assert WEEKDAYS[date.weekday()] == name, f"{prompt.id}: {name}, {date}"
                checked += 1
    assert checked >= 40


def test_pack_size_categories_and_probes_meet_design_20() -> None:
    prompts = [p for _, p in PACK.all_prompts()]
    assert len(prompts) >= 60
    assert all(len(c.prompts) >= 8 for c in PACK.categories)
    assert sum(bool(p.reference and p.counterexample) for p in prompts) >= 30
    assert all(p.red_flags for p in prompts if p.safety_critical)


# --- Kaufmännisches Rechnen, Korrespondenz, Rechnungen ------------------------------------


def test_c1_vat_and_cash_discount() -> None:
    net = Decimal("2450.00")
    vat = cents(net * Decimal("0.19"))
    gross = net + vat
    discount = cents(gross * Decimal("0.02"))
    expect("C1", eur(vat), eur(gross), eur(discount), eur(gross - discount))


def test_c2_two_vat_rates() -> None:
    full, reduced = cents(Decimal(120) * Decimal("0.19")), cents(Decimal(80) * Decimal("0.07"))
    expect("C2", eur(full), eur(reduced), eur(full + reduced), eur(200 + full + reduced))


def test_c3_simple_interest_for_eight_months() -> None:
    interest = cents(Decimal(15000) * Decimal("0.045") * 8 / 12)
    expect("C3", eur(interest), eur(15000 + interest))
    flagged("C3", eur(cents(Decimal(15000) * Decimal("0.045")), 0))


def test_c4_discount_then_cash_discount_then_vat() -> None:
    after_discount = cents(Decimal(3200) * Decimal("0.85"))
    net = cents(after_discount * Decimal("0.97"))
    vat = cents(net * Decimal("0.19"))
    expect("C4", eur(after_discount), eur(net), eur(vat), eur(net + vat))
    flagged("C4", eur(Decimal(3200) * Decimal("0.82")))


def test_c5_input_tax_out_of_a_gross_amount() -> None:
    gross = Decimal("89.25")
    net = cents(gross / Decimal("1.19"))
    expect("C5", eur(net), eur(gross - net))
    flagged("C5", eur(gross * Decimal("0.19")))


def test_c6_growth_against_the_base_year() -> None:
    rise = 197800 - 184000
    expect("C6", eur(rise, 0), pct(Decimal(rise) / 184000 * 100))
    flagged("C6", pct(Decimal(rise) / 197800 * 100, 2))


def test_c7_default_interest_between_businesses() -> None:
    asks("C7", "1. Juli 2025 1,27 %", "16. Oktober", "29. November 2025", "365 Tagen")
    rate = Decimal("1.27") + 9  # § 288 Abs. 2 BGB: base rate + 9 points, no consumer
    days = (dt.date(2025, 11, 29) - dt.date(2025, 10, 16)).days + 1
    interest = cents(Decimal(12400) * rate / 100 * days / 365)
    expect("C7", pct(rate, 2), f"{days} Zinstage", eur(interest), "40 €")
    # The counterexample's consumer rate is a red flag, and its figure is that rate's.
    consumer = cents(Decimal(12400) * (Decimal("1.27") + 5) / 100 * days / 365)
    flagged("C7", f"Verbrauchersatz {pct(Decimal('1.27') + 5, 2)}")
    assert eur(consumer) in (PACK.prompt("C7").counterexample or "")


def test_c8_offers_compared_with_discounts_freight_and_cash_discount() -> None:
    def offer(unit: str, discount: str, freight: int, skonto: str) -> Decimal:
        goods = cents(40 * Decimal(unit) * (1 - Decimal(discount)))
        return cents((goods + freight) * (1 - Decimal(skonto)))

    a, b, c = (
        offer("289", "0.10", 150, "0.02"),
        offer("265", "0", 0, "0"),
        offer("279", "0.05", 90, "0.03"),
    )
    expect("C8", f"A {eur(a)}", f"B {eur(b)}", f"C {eur(c)}")
    expect("C8", "11.560,00", "10.404,00", "10.554,00", "11.160,00", "10.602,00", "10.692,00")
    assert a < c < b
    expect("C8", "A ist am günstigsten, vor C und B")


def test_c9_invoice_with_a_wrong_sum() -> None:
    lines = [5 * Decimal("64.90"), 10 * Decimal("23.40"), 2 * Decimal("189.00")]
    asks("C9", *(eur(line) for line in lines), "946,50 €", "179,84 €", "1.126,34 €")
    net = sum(lines, Decimal(0))
    vat = cents(net * Decimal("0.19"))
    assert cents(Decimal("946.50") * Decimal("0.19")) == Decimal("179.84")  # as printed
    expect("C9", eur(net), eur(vat), eur(net + vat), eur(Decimal("1126.34") - net - vat))


def test_a5_second_reminder_adds_the_flat_fee() -> None:
    gross = cents(Decimal(3000) * Decimal("1.19"))
    asks("A5", eur(gross), "40 €")
    expect("A5", eur(gross), eur(gross + 40), day(dt.date(2025, 10, 15)))


def test_a7_credit_note_includes_vat() -> None:
    vat = cents(Decimal(89) * Decimal("0.19"))
    expect("A7", eur(89 + vat), eur(vat))
    flagged("A7", eur(89), eur(2 * 89))


def test_a8_notice_three_months_before_the_contract_year_ends() -> None:
    end = dt.date(2025, 12, 31)
    assert dt.date(2025, 9, 15).weekday() == 0
    asks("A8", "Heute ist Montag, der 15. September 2025")
    latest = add_months(end + dt.timedelta(days=1), -3) - dt.timedelta(days=1)
    expect("A8", day(end), day(latest))


def test_a4_and_b1_weekdays_without_a_year() -> None:
    assert dt.date(2025, 12, 9).weekday() == 1 and dt.date(2025, 12, 10).weekday() == 2
    asks("B1", "Freitag (21.11.)")
    assert dt.date(2025, 11, 21).weekday() == 4


# --- Zusammenfassen, Tabellen ---------------------------------------------------------------


def test_b3_contract_term_and_notice() -> None:
    end = add_months(dt.date(2025, 1, 1), 24) - dt.timedelta(days=1)
    notice = add_months(end + dt.timedelta(days=1), -3) - dt.timedelta(days=1)
    expect("B3", day(end), day(notice), "12 Monate")


def test_b4_budget_used() -> None:
    expect("B4", f"{96000 * 100 // 120000} % Budgetverbrauch", "8.000 €")


def test_b6_rent_increase() -> None:
    expect("B6", "4.200 €", "4.650 €", f"({eur(4650 - 4200, 0)} mehr im Monat)")


def test_b8_dates_in_chronological_order() -> None:
    # Each entry by its first day (the end of a range, after "–", is no entry of its own).
    listed = re.findall(r"(?<!–)\b(\d{1,2})\.(\d{1,2})\.(\d{4})", rubric("B8"))
    dates = [dt.date(int(y), int(m), int(d)) for d, m, y in listed]
    assert len(dates) == 6 and dates == sorted(dates)
    asks("B8", *(f"{d.day}.{d.month}." for d in dates))


def test_d7_quarterly_sums_and_growth() -> None:
    nord, sued, west = [42300, 39800, 45100], [38900, 41200, 40700], [27600, 29100, 31500]
    expect("D7", *(f"{name} {eur(sum(v), 0)}" for name, v in (("Nord", nord), ("Süd", sued))))
    expect("D7", f"West {eur(sum(west), 0)}", f"Insgesamt {eur(sum(nord + sued + west), 0)}")
    assert max(sum(nord), sum(sued), sum(west)) == sum(nord)
    expect("D7", f"etwa {pct(Decimal(31500) / 27600 * 100 - 100)}")
    flagged("D7", f"etwa {pct(Decimal(3900) / 31500 * 100)}")


def test_d8_budget_overruns() -> None:
    rows = {"Verwaltung": (48000, 46250), "Vertrieb": (75000, 81900), "IT": (32000, 35520)}
    rows["Fuhrpark"] = (21000, 19740)

    def over(name: str) -> str:
        plan, actual = rows[name]
        share = pct(Decimal(actual - plan) / plan * 100)
        return f"{eur(actual - plan, 0)} ({share.replace(',0 %', ' %')})"

    expect("D8", f"Vertrieb überschreitet um {over('Vertrieb')}, IT um {over('IT')}")
    for name in ("Verwaltung", "Fuhrpark"):
        plan, actual = rows[name]
        assert actual < plan
        expect("D8", f"{name} (−{eur(plan - actual, 0)})")
    plan, actual = sum(p for p, _ in rows.values()), sum(a for _, a in rows.values())
    share = pct(Decimal(actual - plan) / plan * 100)
    expect("D8", f"Plan {eur(plan, 0)}, Ist {eur(actual, 0)}")
    expect("D8", f"Überschreitung {eur(actual - plan, 0)} (etwa {share})")


# --- Fristen (BGB §§ 187, 188, 193; DSGVO Art. 12) ------------------------------------------


@pytest.mark.parametrize(
    ("prompt_id", "event", "months", "raw_end", "shifted"),
    [
        ("F1", dt.date(2025, 3, 14), 1, None, dt.date(2025, 4, 14)),
        ("F6", dt.date(2025, 1, 31), 1, None, dt.date(2025, 2, 28)),
        ("F7", dt.date(2025, 11, 25), 1, dt.date(2025, 12, 25), dt.date(2025, 12, 29)),
        ("E6", dt.date(2025, 10, 14), 1, None, dt.date(2025, 11, 14)),
    ],
)
# E6's month is DSGVO Art. 12 Abs. 3, counted under Regulation (EEC) 1182/71 (Art. 3): the day
# of receipt does not count, the period ends on the same date a month later and moves off a
# weekend or holiday – the same days as §§ 187, 188, 193 BGB give here.
def test_month_periods(
    prompt_id: str, event: dt.date, months: int, raw_end: dt.date | None, shifted: dt.date
) -> None:
    asks(prompt_id, day(event, weekday=True))
    end = month_period_end(event, months)
    assert working_day(end) == shifted
    if raw_end is None:
        assert end == shifted
        expect(prompt_id, day(shifted, weekday=True))
    else:
        assert end == raw_end and end in holidays(end.year)
        expect(prompt_id, day(end), day(shifted, weekday=True))


def test_e6_extension_by_two_more_months() -> None:
    expect("E6", f"bis {day(month_period_end(dt.date(2025, 10, 14), 3))}")


def test_f2_thirty_days_ending_on_a_sunday() -> None:
    end = dt.date(2025, 11, 28) + dt.timedelta(days=30)
    assert end.weekday() == 6
    expect("F2", f"{day(end)}, ein Sonntag", day(working_day(end), weekday=True))


def test_f3_three_months_to_the_end_of_a_month() -> None:
    expect("F3", day(month_end(add_months(dt.date(2025, 5, 15), 3))))
    flagged("F3", "15. August", "31. Juli")


def test_f4_ten_working_days() -> None:
    date, counted = dt.date(2025, 12, 1), 1
    while counted < 10:
        date += dt.timedelta(days=1)
        counted += date.weekday() < 5 and date not in holidays(date.year)
    expect("F4", f"{WEEKDAYS[date.weekday()]}, {day(date)}")


def test_f5_default_thirty_days_after_receipt() -> None:
    receipt = dt.date(2025, 10, 6)
    asks("F5", day(receipt, weekday=True))
    last = receipt + dt.timedelta(days=30)
    expect("F5", f"Ablauf des {day(last)}", day(last + dt.timedelta(days=1), weekday=True))


def test_f8_two_weeks_ending_on_german_unity_day() -> None:
    receipt = dt.date(2025, 9, 19)
    asks("F8", day(receipt, weekday=True))
    end = receipt + dt.timedelta(weeks=2)
    assert end in holidays(2025)
    expect("F8", day(end, weekday=True), day(working_day(end), weekday=True))


# --- Personal (§ 622 BGB) -------------------------------------------------------------------


def test_g4_late_starts() -> None:
    for date, start in (
        ((2025, 11, 3), "7:45"),
        ((2025, 11, 12), "7:30"),
        ((2025, 11, 18), "7:50"),
    ):
        asks("G4", f"{day(dt.date(*date), weekday=True)}, {start} Uhr")
    expect("G4", "(45, 30 und 50 Minuten)")


def test_g5_employer_notice_after_nine_years() -> None:
    start, notice = dt.date(2016, 4, 1), dt.date(2025, 10, 20)
    years = (notice - start).days // 365
    assert 8 <= years < 10  # § 622 Abs. 2 Nr. 3: three months to the end of a month
    expect("G5", "drei Monate zum Ende eines Kalendermonats")
    expect("G5", day(month_end(add_months(notice, 3))))


def test_g6_employee_notice_four_weeks_to_the_15th_or_month_end() -> None:
    earliest = dt.date(2025, 11, 3) + dt.timedelta(weeks=4)
    middle = dt.date(earliest.year, earliest.month, 15)
    end = middle if earliest <= middle else month_end(earliest)
    expect("G6", f"enden am {day(earliest)}", f"zum {day(end)}")


def test_g8_two_weeks_in_probation_not_moved_by_the_holiday() -> None:
    end = dt.date(2025, 12, 11) + dt.timedelta(weeks=2)
    assert end in holidays(2025)
    expect("G8", day(end, weekday=True))
    flagged("G8", f"{working_day(end).day}. Dezember")


# --- Reisekosten (Sätze 2025) ---------------------------------------------------------------


@pytest.mark.parametrize("prompt_id", [f"H{n}" for n in range(1, 9) if n != 7])
def test_travel_prompts_name_the_year_of_their_rates(prompt_id: str) -> None:
    asks(prompt_id, "2025")


def test_h1_one_day_trip_by_car() -> None:
    away = dt.datetime(2025, 10, 8, 18, 30) - dt.datetime(2025, 10, 8, 7, 15)
    assert away > dt.timedelta(hours=8)
    km = cents(2 * 142 * PER_KM)
    expect("H1", "11 Stunden 15 Minuten", eur(PARTIAL_DAY, 0), eur(km), eur(PARTIAL_DAY + km))


def test_h2_three_days_with_breakfast_provided() -> None:
    total = PARTIAL_DAY + FULL_DAY + PARTIAL_DAY
    expect("H2", eur(total, 0), eur(BREAKFAST_CUT), eur(2 * BREAKFAST_CUT))
    expect("H2", eur(total - 2 * BREAKFAST_CUT))


def test_h3_cuts_from_the_full_day_rate() -> None:
    first, second = PARTIAL_DAY - MEAL_CUT, PARTIAL_DAY - BREAKFAST_CUT
    expect("H3", eur(MEAL_CUT), eur(first), eur(BREAKFAST_CUT), eur(second))
    expect("H3", f"Insgesamt {eur(first + second)}")


def test_h4_short_trip_only_mileage_and_parking() -> None:
    away = dt.timedelta(hours=15, minutes=30) - dt.timedelta(hours=9)
    assert away <= dt.timedelta(hours=8)
    km = cents(96 * PER_KM)
    expect("H4", "6,5 Stunden", eur(km), f"insgesamt {eur(km + 6)}")


def test_h5_hotel_bill_with_two_rates() -> None:
    room, breakfast = 2 * Decimal(95), 2 * Decimal(14)
    room_vat, breakfast_vat = cents(room * Decimal("0.07")), cents(breakfast * Decimal("0.19"))
    expect("H5", eur(room), eur(room_vat), eur(breakfast), eur(breakfast_vat))
    expect("H5", eur(room + room_vat + breakfast + breakfast_vat), eur(BREAKFAST_CUT))


def test_h6_private_stay_and_three_days() -> None:
    meals, nights = PARTIAL_DAY + FULL_DAY + PARTIAL_DAY, 2 * NIGHT_WITHOUT_RECEIPT
    expect("H6", eur(meals, 0), eur(NIGHT_WITHOUT_RECEIPT, 0), eur(nights, 0))
    expect("H6", eur(meals + nights, 0))


def test_h7_three_month_limit() -> None:
    last = add_months(dt.date(2025, 7, 1), 3) - dt.timedelta(days=1)
    expect("H7", day(last), f"Ab {day(last + dt.timedelta(days=1))}")


def test_h8_corrected_claim() -> None:
    right, claimed = PARTIAL_DAY + FULL_DAY + PARTIAL_DAY, 3 * FULL_DAY
    asks("H8", f"3 × {eur(FULL_DAY, 0)} = {eur(claimed, 0)}")
    expect("H8", f"= {eur(right, 0)}", f"{eur(claimed - right, 0)} weniger")


# --- Probes agree with the rubric -----------------------------------------------------------

GERMAN_NUMBER = re.compile(r"\d{1,3}(?:\.\d{3})*(?:,\d+)?")
# Figures of an expectation that a good answer need not repeat: G5's bounds "über 8, aber
# unter 10 Jahren" (the reference names the 9 years and 6 months between them).
NOT_REPEATED = {"G5": {Decimal(8), Decimal(10)}}


def _values(text: str) -> set[Decimal]:
    return {Decimal(n.replace(".", "").replace(",", ".")) for n in GERMAN_NUMBER.findall(text)}


def test_every_reference_states_the_figures_of_its_expectations() -> None:
    # A reference is judge-check's "good answer": one that misstates a figure would make a
    # careful judge look wrong.
    checked = 0
    for _, prompt in PACK.all_prompts():
        if not prompt.reference:
            continue
        wanted = _values(" ".join(prompt.expectations)) - NOT_REPEATED.get(prompt.id, set())
        missing = wanted - _values(prompt.reference)
        assert not missing, f"{prompt.id}: reference lacks {sorted(missing)}"
        checked += 1
    assert checked >= 30


def test_b2_double_fee_figures() -> None:
    expect("B2", eur(Decimal(89)), "55-1093")
    flagged("B2", f"{2 * 89} €", "89 €")
