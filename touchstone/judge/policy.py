"""The breaker: after each judge call, is the judge still worth calling? (DESIGN §6, §8)

- ``auth``, ``not_found``, ``quota``: the judge can never work: ``JudgeAborted`` at once.
- ``refused``: a filter rejected one cell's input: data about that cell, not a judge fault.
  It does not count toward the streak (it does count toward the ratio).
- every other kind counts toward ``max_consecutive_failures`` failures in a row (in
  completion order); a successful call resets the streak. 0 disables the streak.
- ``max_failure_ratio``: once ``RATIO_MIN_CALLS`` calls were made and more than that share
  failed, ``JudgeAborted``. 0 disables it.
"""

from __future__ import annotations

from touchstone.errors import CallError, ErrorKind, JudgeAborted

# Kinds after which the judge can never work: waiting for the breaker would only burn calls.
FATAL_KINDS: frozenset[ErrorKind] = frozenset({"auth", "not_found", "quota"})
# Kinds that are a fact about one cell (a filter refused its input), not a judge fault.
CELL_KINDS: frozenset[ErrorKind] = frozenset({"refused"})
# The failure ratio is only meaningful once this many calls were made.
RATIO_MIN_CALLS = 20
ABORT_ADVICE = (
    "Wählen Sie ein Judge-Modell ohne Thinking/Reasoning (oder schalten Sie das Denken per "
    "extra_body ab) und starten Sie `touchstone judge` erneut: bereits gespeicherte "
    "Bewertungen bleiben erhalten, offene Zellen werden dann bewertet."
)


class Breaker:
    """Counts judge calls and decides when the judge run must stop."""

    def __init__(self, max_consecutive: int, max_ratio: float, judge_model: str) -> None:
        self.judge_model = judge_model
        self.max_consecutive = max_consecutive
        self.max_ratio = max_ratio
        self.streak = 0
        self.calls = 0
        self.failures = 0

    def success(self) -> None:
        self.calls += 1
        self.streak = 0

    def failure(self, exc: CallError) -> None:
        self.calls += 1
        self.failures += 1
        if exc.kind in FATAL_KINDS:
            raise JudgeAborted(fatal_message(exc, self.judge_model)) from exc
        if exc.kind not in CELL_KINDS:
            self.streak += 1
        if self.max_consecutive > 0 and self.streak >= self.max_consecutive:
            raise JudgeAborted(
                f"{self.streak} Judge-Aufrufe in Folge fehlgeschlagen; letzter Fehler: {exc}. "
                f"{ABORT_ADVICE}"
            ) from exc
        if (
            self.max_ratio > 0
            and self.calls >= RATIO_MIN_CALLS
            and self.failures / self.calls > self.max_ratio
        ):
            raise JudgeAborted(
                f"{self.failures} von {self.calls} Judge-Aufrufen fehlgeschlagen "
                f"(mehr als {self.max_ratio:.0%}); letzter Fehler: {exc}. {ABORT_ADVICE}"
            ) from exc


def fatal_message(exc: CallError, judge_model: str) -> str:
    what = (
        "Zugang verweigert"
        if exc.kind == "auth"
        else f"Judge-Modell „{judge_model}“ oder Endpunkt nicht gefunden"
    )
    return (
        f"{what} – der Judge kann so nie antworten ({exc}). Prüfen Sie Endpunkt, "
        "API-Schlüssel und Modellnamen in der Judge-Konfiguration."
    )
