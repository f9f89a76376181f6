"""The breaker: after each judge call, is the judge still worth calling? (DESIGN §6, §8)

- ``auth``, ``not_found``, ``quota``: the judge can never work: ``JudgeAborted`` at once.
- ``refused``: a filter rejected one cell's input: data about that cell, not a judge fault.
  It does not count toward the streak (it does count toward the ratio).
- every other kind counts toward ``max_consecutive_failures`` failures in a row (in
  completion order); a successful call resets the streak. 0 disables the streak.
- ``max_failure_ratio``: once ``RATIO_MIN_CALLS`` calls were made and more than that share
  failed *or came back unreadable*, ``JudgeAborted``. 0 disables it. An unreadable reply
  (prose instead of the JSON verdict) is no call failure: it does not touch the streak, but a
  judge answering in prose stops after 20 calls instead of filling a run with unscored cells.

And which result stands: ``keep_better`` replaces a scored verdict (or a holistic report with
scores) only by a scored one, and any verdict never by a judge error, so that a failed or
unreadable re-judge never downgrades what is there.
"""

from __future__ import annotations

from typing import Protocol, TypeVar

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


UNREADABLE_ADVICE = (
    "Der Judge antwortet nicht im verlangten JSON-Format. Wählen Sie ein Judge-Modell, das "
    "Formatvorgaben befolgt; `touchstone judge --rejudge unscored` bewertet die unlesbaren "
    "Zellen dann erneut."
)


class Scored(Protocol):
    @property
    def scored(self) -> bool: ...


R = TypeVar("R", bound=Scored)


def keep_better(old: R | None, new: R) -> R:
    """The result that stands: ``new``, unless it would replace a scored ``old`` by an
    unscored one, or any ``old`` by a failed call (a judge_error verdict)."""
    if old is None:
        return new
    if (old.scored and not new.scored) or getattr(new, "judge_error", False):
        return old
    return new


class Breaker:
    """Counts judge calls and decides when the judge run must stop."""

    def __init__(self, max_consecutive: int, max_ratio: float, judge_model: str) -> None:
        self.judge_model = judge_model
        self.max_consecutive = max_consecutive
        self.max_ratio = max_ratio
        self.streak = 0
        self.calls = 0
        self.failures = 0
        self.unreadable = 0

    def success(self) -> None:
        self.calls += 1
        self.streak = 0

    def unparseable(self, reply: str) -> None:
        """A call came back, but its reply is no verdict: counts toward the ratio only."""
        self.calls += 1
        self.streak = 0
        self.unreadable += 1
        excerpt = " ".join(reply.split())[:120]
        self._check_ratio(f"letzte Antwort: {excerpt!r}. {UNREADABLE_ADVICE}", None)

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
        self._check_ratio(f"letzter Fehler: {exc}. {ABORT_ADVICE}", exc)

    def _check_ratio(self, detail: str, cause: BaseException | None) -> None:
        bad = self.failures + self.unreadable
        if (
            self.max_ratio <= 0
            or self.calls < RATIO_MIN_CALLS
            or bad / self.calls <= self.max_ratio
        ):
            return
        if not self.unreadable:
            what = f"{bad} von {self.calls} Judge-Aufrufen fehlgeschlagen"
        elif not self.failures:
            what = f"{bad} von {self.calls} Judge-Antworten unlesbar"
        else:
            what = (
                f"{bad} von {self.calls} Judge-Aufrufen ohne Bewertung ({self.failures} "
                f"fehlgeschlagen, {self.unreadable} unlesbar)"
            )
        if self.unreadable > self.failures and cause is not None:
            detail = f"letzter Fehler: {cause}. {UNREADABLE_ADVICE}"
        raise JudgeAborted(f"{what} (mehr als {self.max_ratio:.0%}); {detail}") from cause


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
