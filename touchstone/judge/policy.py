"""The breaker: after each judge call, is the judge still worth calling? (design.md §6, §8, §11)

- ``auth``, ``not_found``, ``quota``: the judge can never work: stop at once.
- ``refused``: a filter rejected one cell's input: data about that cell, not a judge fault.
  It does not count toward the streak (it does count toward the ratio).
- every other kind counts toward ``max_consecutive_failures`` failures in a row (in
  completion order); a call that came back resets the streak. 0 disables the streak.
- ``max_failure_ratio``: once ``RATIO_MIN_CALLS`` calls were made and more than that share
  failed *or came back unreadable*, stop. 0 disables it. An unreadable reply (prose instead
  of the JSON verdict) is no call failure: it does not touch the streak, but a judge answering
  in prose stops after 20 calls instead of filling a run with unscored cells.

The breaker decides (a ``Stop`` with the kind that tripped it); ``advice`` says what to do
about it, and the judge pass raises ``JudgeAborted`` with both.

And which result stands: ``keep_better`` replaces a scored verdict (or a holistic report with
scores) only by a scored one, and any verdict never by a judge error, so that a failed or
unreadable re-judge never downgrades what is there.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Literal, Protocol, TypeVar

from touchstone.advice import cause
from touchstone.errors import CallError, ErrorKind
from touchstone.german import percent
from touchstone.results import Verdict

# Kinds after which the judge can never work: waiting for the breaker would only burn calls.
FATAL_KINDS: frozenset[ErrorKind] = frozenset({"auth", "not_found", "quota"})
# Kinds that are a fact about one cell (a filter refused its input), not a judge fault.
CELL_KINDS: frozenset[ErrorKind] = frozenset({"refused"})
# The failure ratio is only meaningful once this many calls were made.
RATIO_MIN_CALLS = 20

StopKind = ErrorKind | Literal["unparseable"]


def sentence(text: object) -> str:
    """``text`` ending in exactly one period (error texts may or may not end in one)."""
    return str(text).rstrip().rstrip(".") + "."


@dataclass(frozen=True)
class Stop:
    """Why the judge run must stop: the message, and the kind of failure that tripped it."""

    message: str
    kind: StopKind
    cause: CallError | None = None


class Scored(Protocol):
    @property
    def scored(self) -> bool: ...


R = TypeVar("R", bound=Scored)


def keep_better(old: R | None, new: R) -> R:
    """The result that stands: ``new``, unless it would replace a scored ``old`` by an
    unscored one, or any ``old`` by a failed call (a judge_error verdict)."""
    if old is None:
        return new
    if (old.scored and not new.scored) or (isinstance(new, Verdict) and new.judge_error):
        return old
    return new


def fatal_stop(exc: CallError, judge_model: str) -> Stop:
    """The stop for a failure after which the judge can never answer; the cause told as
    ``run`` tells it (``advice.cause``)."""
    if exc.kind == "quota":
        what = f"Der Anbieter nimmt für den Judge „{judge_model}“ nichts mehr an"
    else:
        what = f"Der Judge „{judge_model}“ kann so nie antworten"
    return Stop(f"{what} – {cause(exc)}.", exc.kind, exc)


class Breaker:
    """Counts judge calls and decides when the judge run must stop."""

    def __init__(self, max_consecutive: int, max_ratio: float, judge_model: str) -> None:
        self.judge_model = judge_model
        self.max_consecutive = max_consecutive
        self.max_ratio = max_ratio
        self.streak = 0
        self.calls = 0
        self.unreadable = 0
        self.failures: Counter[ErrorKind] = Counter()

    def success(self) -> None:
        self.calls += 1
        self.streak = 0

    def unparseable(self, reply: str) -> Stop | None:
        """A call came back, but its reply is no verdict: counts toward the ratio only."""
        self.calls += 1
        self.streak = 0
        self.unreadable += 1
        excerpt = " ".join(reply.split())[:120]
        return self._ratio(f"letzte Antwort: „{excerpt}“.", None)

    def failure(self, exc: CallError) -> Stop | None:
        self.calls += 1
        self.failures[exc.kind] += 1
        # An endpoint that refuses the schema ``schema: on`` demands refuses it every time.
        if exc.kind in FATAL_KINDS or exc.schema_refused:
            return fatal_stop(exc, self.judge_model)
        if exc.kind not in CELL_KINDS:
            self.streak += 1
        if self.max_consecutive > 0 and self.streak >= self.max_consecutive:
            return Stop(
                f"{self.streak} Judge-Aufrufe in Folge fehlgeschlagen; letzter Fehler: "
                f"{sentence(cause(exc))}",
                exc.kind,
                exc,
            )
        return self._ratio(f"letzter Fehler: {sentence(cause(exc))}", exc)

    def _ratio(self, detail: str, cause: CallError | None) -> Stop | None:
        failed = sum(self.failures.values())
        bad = failed + self.unreadable
        if (
            self.max_ratio <= 0
            or self.calls < RATIO_MIN_CALLS
            or bad / self.calls <= self.max_ratio
        ):
            return None
        if not self.unreadable:
            what = f"{bad} von {self.calls} Judge-Aufrufen fehlgeschlagen"
        elif not failed:
            what = f"{bad} von {self.calls} Judge-Antworten unlesbar"
        else:
            what = (
                f"{bad} von {self.calls} Judge-Aufrufen ohne Bewertung ({failed} "
                f"fehlgeschlagen, {self.unreadable} unlesbar)"
            )
        # The advice follows the most frequent cause.
        common = self.failures.most_common(1)
        kind: StopKind = "unparseable"
        if common and common[0][1] > self.unreadable:
            kind = common[0][0]
        return Stop(f"{what} (mehr als {percent(self.max_ratio)}); {detail}", kind, cause)
