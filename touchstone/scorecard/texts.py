"""How a row's figures read for people (German, design.md §22): means, intervals, speed,
unscored and failed counts; terminal, GUI and report use the same words."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from touchstone import german, started
from touchstone.errors import kind_label
from touchstone.results import FAILED_REASONS, UNSCORED_REASONS
from touchstone.stats.intervals import Interval

if TYPE_CHECKING:
    from touchstone.scorecard.build import ScoreRow


def fmt(value: float | None) -> str:
    """``4,85``: a mean as people read it (German format, design.md §22); ``–`` for none."""
    return german.number(value)


def fmt_interval(interval: Interval | None) -> str:
    """``4,85 [4,70 – 4,96]``: the mean with the bounds of its 95 % interval, ``4,85 ±0,12``
    when they are symmetric, ``4,85`` alone for one prompt (no interval, design.md §16)."""
    if interval is None:
        return german.DASH
    return german.interval(interval.mean, interval.low, interval.high)


def zero_counts(rows: Sequence[ScoreRow]) -> list[str]:
    """The counts that are 0 in every row ("fehlgeschlagen", "unbewertet", "offen"): their
    columns are not shown, one line says so (terminal, GUI and report alike)."""
    return [
        label
        for label, any_counted in (
            ("fehlgeschlagen", any(r.failed for r in rows)),
            ("unbewertet", any(r.unscored for r in rows)),
            ("offen", any(r.open for r in rows)),
        )
        if not any_counted
    ]


def speed_text(row: ScoreRow) -> str:
    """``2,1 s, 16.054 Tok/s``: the row's median latency and output tokens per second."""
    if row.latency_median_s is None:
        return german.DASH
    rate = f", {german.number(row.tokens_per_s, 0)} Tok/s" if row.tokens_per_s else ""
    return f"{german.seconds(row.latency_median_s)}{rate}"


def unscored_text(row: ScoreRow) -> str:
    """``3 (Judge-Ausgabe unlesbar: 3)``, or ``0``."""
    if not row.unscored:
        return "0"
    total = sum(row.unscored.values())
    parts = [
        f"{UNSCORED_REASONS.get(k, kind_label(k))}: {german.count(n)}"
        for k, n in sorted(row.unscored.items())
    ]
    return f"{german.count(total)} ({', '.join(parts)})"


def failed_text(row: ScoreRow) -> str:
    """``davon fehlgeschlagen: 12 (Frist überschritten: 12)``, or "" when none failed."""
    if not row.failed:
        return ""
    parts = [
        f"{FAILED_REASONS.get(k, kind_label(k))}: {german.count(n)}"
        for k, n in sorted(row.failed.items())
    ]
    return f"davon fehlgeschlagen: {german.count(row.failed_count)} ({', '.join(parts)})"


def truncated_advice(rows: Sequence[ScoreRow], cap: int | None) -> str:
    """The one line on answers cut at the cap (``cap``: the run's max_tokens, None: none set,
    the server's own limit cut them), or "" when none was. No resume raises a run's cap (a
    longer answer would not compare with the stored ones): a new run does."""
    cut = sum(row.truncated for row in rows)
    if not cut:
        return ""
    answers = german.counted(cut, "Antwort", "Antworten")
    if cap is None:
        return (
            f"⚠ {answers} an der Längengrenze des Servers abgeschnitten (finish_reason "
            "„length“, kein --max-tokens gesetzt): Grenze erhöhen – mit --max-tokens über der "
            f"Grenze des Servers in einem neuen Run: `{started.command('run')} … --max-tokens "
            "<Tokens> --out <neues Verzeichnis>`."
        )
    return (
        f"⚠ {answers} an --max-tokens abgeschnitten (Grenze {german.count(cap)} Tokens): "
        "Grenze erhöhen – dieser Run behält seine Grenze (auch mit --extend); ein neuer Run "
        f"mit höherer: `{started.command('run')} … --max-tokens {2 * cap} "
        "--out <neues Verzeichnis>`."
    )
