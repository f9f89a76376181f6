"""The figures of a dry run (``--dry-run``, design.md §19), and how they read in German.

``stages.preview`` makes them for a ``run`` and a single judge, ``stages.jury_preview`` per
member of a jury and for the whole jury.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field

from touchstone import german
from touchstone.transport.budget import Price, money

HEADER = "Probelauf: nichts wird aufgerufen, nichts geschrieben."


@dataclass(frozen=True)
class Wording:
    """How a preview's lines name the settings of ``run``: the CLI's options, or the fields
    of the GUI's run form (``{}``: the value)."""

    max_tokens: str = "--max-tokens"
    concurrency: str = "--concurrency {}"
    price: str = "--price-per-million IN,OUT"


CLI_WORDING = Wording()


@dataclass
class Preview:
    """The figures of one preview; ``lines()`` says them in German."""

    calls: int
    input_tokens: int
    # Output tokens of the calls whose output is known (measured or capped), and how.
    output_tokens: int
    output_source: str
    # Calls whose output no measurement and no max_tokens bounds.
    output_unknown: int
    price: Price | None
    price_hint: str
    seconds: float | None
    time_source: str
    budget: float | None = None
    notes: list[str] = field(default_factory=list)
    # Whether the output (and so the cost) is an upper bound: max_tokens, nothing measured.
    output_bound: bool = False
    # Why there is no call to make, said instead of figures of nothing.
    all_done: str = "alle Zellen beantwortet"
    # What happens when the budget is reached (a jury member: it is dropped).
    budget_stop: str = "der Durchgang hält an, wenn es erreicht ist (fortsetzbar)"
    # A judge's holistic calls among ``calls`` (the verdict cache holds none of them).
    holistic: int = 0

    @property
    def cost(self) -> float | None:
        if self.price is None:
            return None
        return self.price.cost(self.input_tokens, self.output_tokens)

    def lines(self) -> list[str]:
        """The preview, one short German line per figure (fits 80 columns with the wrap)."""
        return [HEADER, *self.figures(), *self.notes]

    def figures(self, *, with_time: bool = True) -> list[str]:
        """The figure lines: calls, tokens, cost, time (unless not ``with_time``), budget."""
        if not self.calls:
            # "Ausgabe: ≈ 0 Tokens (weder … noch gemessene Antworten)" would read as missing
            # data, where there is simply nothing to do.
            return [f"Aufrufe: 0 – nichts zu tun: {self.all_done}"]
        lines = [
            f"Aufrufe: {german.count(self.calls)}",
            f"Eingabe: ≈ {german.count(self.input_tokens)} Tokens (Zeichen/4 der Prompts; "
            "kein Tokenizer befragt)",
            self.output_line(),
            self.cost_line(),
        ]
        if with_time:
            lines.append(self.time_line())
        budget = self.budget_line()
        return [*lines, budget] if budget else lines

    def output_line(self) -> str:
        if self.output_unknown == self.calls and self.calls:
            return f"Ausgabe: unbekannt ({self.output_source})"
        unknown = (
            f"; unbekannt für {german.counted(self.output_unknown, 'Aufruf', 'Aufrufe')}"
            if self.output_unknown
            else ""
        )
        about = "höchstens" if self.output_bound else "≈"
        return (
            f"Ausgabe: {about} {german.count(self.output_tokens)} Tokens "
            f"({self.output_source}{unknown})"
        )

    def cost_qualifier(self) -> str:
        """How sure the cost is: ``mindestens ``, ``höchstens etwa `` or ``≈ ``."""
        if self.output_unknown:
            return "mindestens "
        return "höchstens etwa " if self.output_bound else "≈ "

    def cost_line(self) -> str:
        cost = self.cost
        if self.price is None or cost is None:
            return f"Kosten: unbekannt – kein Preis ({self.price_hint})"
        return (
            f"Kosten: {self.cost_qualifier()}{money(cost)} (Preis je Million Tokens: "
            f"{german.number(self.price.input)} Eingabe, "
            f"{german.number(self.price.output)} Ausgabe)"
        )

    def time_line(self) -> str:
        if self.seconds is None:
            return f"Dauer: unbekannt – {self.time_source}"
        return f"Dauer: ≈ {duration(self.seconds)} ({self.time_source})"

    def budget_line(self) -> str:
        """Whether the budget holds the estimate ("" without a budget or a cost)."""
        cost = self.cost
        if self.budget is None or cost is None:
            return ""
        limit = money(self.budget)
        if cost <= self.budget and not self.output_unknown:
            return f"Budget: {limit} – reicht nach dieser Schätzung."
        maybe = " womöglich" if cost <= self.budget else ""
        return f"Budget: {limit} – reicht nach dieser Schätzung{maybe} nicht: {self.budget_stop}."


def duration(seconds: float) -> str:
    """``45 s``, ``3 min``, ``1,5 h``: a duration as rough as an estimate is."""
    if seconds < 90:
        return f"{german.number(max(1.0, seconds) if seconds else 0, 0)} s"
    if seconds < 90 * 60:
        return f"{german.number(seconds / 60, 0)} min"
    return f"{german.number(seconds / 3600, 1)} h"


def mean_of(values: Iterable[float]) -> float | None:
    known = list(values)
    return statistics.fmean(known) if known else None


def output_source(
    measured: bool, capped: bool, max_tokens: int | None, option: str, earlier: str
) -> str:
    """Where the output estimate comes from: measured calls, ``option`` (the cap), or neither."""
    cap = f"{option} {german.count(max_tokens)} je Aufruf" if max_tokens else ""
    if measured and capped:
        return f"Mittel {earlier} in diesem Run, sonst höchstens {cap}"
    if measured:
        return f"Mittel {earlier} in diesem Run"
    if capped:
        return f"{cap}; noch nichts gemessen"
    return f"weder {option} noch gemessene Antworten"
