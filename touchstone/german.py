"""Numbers, intervals, dates and counted words as a German reader expects them (design.md §22).

One format for people everywhere (terminal, GUI, report, CSV): decimal comma and thousands
point ("4,85", "6.224 Tokens", "16.054 Tok/s"), an interval by its bounds ("4,85 [4,70 – 4,96]")
unless it is symmetric at the digits shown ("4,85 ±0,12"), local time with its zone, and
"1 Aufruf" but "2 Aufrufe". JSON, the API and event files stay numeric: this is only for text.
"""

from __future__ import annotations

import datetime as dt
import decimal
import math

DASH = "–"
# A name from a file (a model, a variant, a prompt id, a rater) is quoted in a message at most
# this long: a 5 MB model name in human.jsonl was printed whole in a warning.
NAME_SHOWN = 200
# Room for every digit of the largest float (1.8e308) and its decimals.
_WIDE = decimal.Context(prec=400)


def number(value: float | None, digits: int = 2) -> str:
    """``4,85``; thousands with a point (``16.054,5``); ``–`` for no value."""
    if value is None or not math.isfinite(value):
        return DASH
    # Rounded as the number is written (0.35 is "0,4"), half away from zero: as a reader
    # rounds, and as the GUI's Intl.NumberFormat does (touchstone.js mirrors this function).
    exact = decimal.Decimal(repr(float(value)))
    rounded = exact.quantize(decimal.Decimal(1).scaleb(-digits), decimal.ROUND_HALF_UP, _WIDE)
    text = f"{rounded:,.{digits}f}"
    # -0,00 reads as a sign where there is none.
    if text.lstrip("-").strip("0,.") == "":
        text = text.lstrip("-")
    return text.replace(",", "\x00").replace(".", ",").replace("\x00", ".")


def signed(value: float | None, digits: int = 2) -> str:
    """``+0,35`` / ``-0,12`` / ``+0,00``: a difference, always with its sign."""
    text = number(value, digits)
    if text == DASH or text.startswith("-"):
        return text
    return "+" + text


def count(value: int | None) -> str:
    """``6.224``: a whole number with a thousands point."""
    if value is None:
        return DASH
    return f"{value:,}".replace(",", ".")


def counted(value: int, one: str, many: str) -> str:
    """``1 Aufruf``, ``3 Aufrufe``, ``1.204 Aufrufe``."""
    return f"{count(value)} {one if value == 1 else many}"


def row(model: str, variant: str) -> str:
    """``sim-gut · none``: a row of a scorecard, a comparison or a spot check, as every text
    names it (the name stays the model's and the variant's as they came)."""
    return f"{model} · {variant}"


def cut(text: str, limit: int = NAME_SHOWN) -> str:
    """``text`` as a message quotes it: whole up to ``limit`` characters, else its first
    ``limit`` and how long it is (``mmm… (5.242.880 Zeichen)``)."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({count(len(text))} Zeichen)"


def seconds(value: float | None) -> str:
    """``0,50 s``, ``2,13 s``, ``45,3 s``, ``120 s``: a duration as a person reads it, with two
    digits below ten seconds (a simulator's ``0,01 s`` is not ``0,0 s``), one below a hundred,
    none above and for whole seconds (``Frist 120 s``); the number and its unit never part at
    a line break (a no-break space). ``–`` for no value."""
    if value is None or not math.isfinite(value):
        return DASH
    digits = 0 if value >= 100 or value == int(value) else 1 if value >= 10 else 2
    return f"{number(value, digits)}\u00a0s"


def percent(share: float | None, digits: int = 0) -> str:
    """``48 %`` for 0.48."""
    if share is None or not math.isfinite(share):
        return DASH
    return f"{number(share * 100, digits)} %"


def span(low: str, high: str) -> str:
    """``[4,70 – 4,96]``, ``[20 % – 53 %]``: the one way to write an interval's bounds, each
    already written; an en dash with a space either side, so that a bound's minus sign never
    touches the dash (``[-0,33 – -0,16]``). The minus stays the ASCII hyphen-minus a
    spreadsheet and a search read as one."""
    return f"[{low} {DASH} {high}]"


def bounds(low: float, high: float, digits: int = 2, *, difference: bool = False) -> str:
    """``[4,70 – 4,96]``, ``[-2,22 – -1,48]``; a ``difference``'s with signs, ``[+0,12 – +0,56]``
    (``span``)."""
    write = signed if difference else number
    return span(write(low, digits), write(high, digits))


def percents(low: float, high: float, digits: int = 0) -> str:
    """``[20 % – 53 %]``: the bounds of a share's interval (``span``)."""
    return span(percent(low, digits), percent(high, digits))


def interval(
    mean: float | None,
    low: float | None,
    high: float | None,
    digits: int = 2,
    *,
    difference: bool = False,
) -> str:
    """The mean with its 95 % interval: ``4,85 [4,70 – 4,96]`` (``bounds``), or ``4,85 ±0,12``
    when the bounds are symmetric at the digits shown; ``4,85`` alone without an interval (one
    prompt: no interval, design.md §16) and ``–`` without a mean. A ``difference`` is signed
    throughout: ``+0,35 [+0,12 – +0,56]``, ``+0,00 ±0,16``."""
    if mean is None:
        return DASH
    write = signed if difference else number
    if low is None or high is None:
        return write(mean, digits)
    scale = 10**digits
    below, above = round((mean - low) * scale), round((high - mean) * scale)
    if below == above:
        return f"{write(mean, digits)} ±{number(below / scale, digits)}"
    return f"{write(mean, digits)} {bounds(low, high, digits, difference=difference)}"


def local_time(stamp: str | dt.datetime | None, *, zone: dt.tzinfo | None = None) -> str:
    """``01.12.2026, 04:31 MEZ``-style local time with its zone (``zone``: for tests; the
    machine's local zone by default). An unreadable stamp is shown as it came."""
    if stamp is None or stamp == "":
        return DASH
    if isinstance(stamp, str):
        try:
            moment = dt.datetime.fromisoformat(stamp)
        except ValueError:
            return stamp
    else:
        moment = stamp
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    local = moment.astimezone(zone)
    name = local.tzname() or local.strftime("%z")
    return f"{local:%d.%m.%Y, %H:%M} {name}"
