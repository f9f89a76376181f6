"""What one invocation may spend: prices, token estimates and the hard cap (design.md §19).

One implementation for ``run`` (``--budget`` with ``--price-per-million``) and ``judge``
(``budget`` with ``price_per_million`` in the judge config):

    admit(call) ──► fits? spent + reserved (calls in flight, worst case) + this call's worst case
        │                  ≤ limit: reserve it and start
        │           no, other calls in flight: hold it until one of them settles
        │           no, nothing in flight: the cap is reached, the command stops (exit 1)
    settle(call) ──► the reservation becomes what the server reported (usage), or, without a
                     report, the call's worst case; a call the server turned away costs nothing

A call that brought something back is never free: where the reported usage is implausibly low
for what was sent or what arrived (fewer tokens than characters / 8 on either side, 0/0 from
a proxy that rewrites usage), the call counts at least at its estimate, characters / 4 of
what was sent and what arrived, and the summary says once that the server's usage looked
wrong. What a run dir records stays what the server reported (design.md §12).

A call's worst case is its estimated input (characters / 4, raised to what reported usage
shows for this invocation's calls) plus ``max_tokens`` of output: a budget without a bounded
output per call would be no cap, so it needs ``max_tokens``. The engine asks ``admit`` before
each new call (``engine.completed(admit=...)``) and hears nothing else: the consumer settles
each call when its ``Done`` arrives, in the same coroutine, so nothing here needs a lock.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from touchstone import german
from touchstone.errors import BudgetReached, CallError, ErrorKind, InputError
from touchstone.limits import (
    MAX_BUDGET,
    MAX_PRICE_PER_MILLION,
    MIN_BUDGET,
    check_range,
    decimal,
    shown,
)

if TYPE_CHECKING:
    from touchstone.transport.engine import Done

T = TypeVar("T")

# The estimate of input tokens when nothing better is known: characters / 4 (no tokenizer
# call is made; the preview says so).
CHARS_PER_TOKEN = 4

# Failures where the server turned the call away before generating: nothing billed.
UNBILLED_KINDS: frozenset[ErrorKind] = frozenset(
    {"auth", "not_found", "quota", "bad_request", "rate_limit"}
)


# Fewer tokens than characters / 8 is a count no tokenizer makes (a token holds about four
# characters of prose, rarely more than six): such a report is wrong, not cheap.
MAX_CHARS_PER_TOKEN = 8


def estimate_tokens(chars: int) -> int:
    """Tokens of a text of ``chars`` characters, estimated as characters / 4 (rounded up)."""
    return -(-chars // CHARS_PER_TOKEN)


@dataclass(frozen=True, slots=True)
class Price:
    """What a million tokens cost, input (prompt) and output (completion incl. reasoning), in
    any currency: touchstone only multiplies."""

    input: float
    output: float
    # Input tokens the server's prompt cache served, when they cost less (else at ``input``).
    cached_input: float | None = None

    def cost(self, input_tokens: float, output_tokens: float, cached_tokens: float = 0) -> float:
        """``cached_tokens``: how many of the ``input_tokens`` the server's cache served."""
        cached = min(cached_tokens, input_tokens) if self.cached_input is not None else 0
        cached_price = self.cached_input or 0.0
        fresh = input_tokens - cached
        return (fresh * self.input + cached * cached_price + output_tokens * self.output) / 1e6


def parse_price(text: str, option: str = "--price-per-million") -> Price:
    """Input and output price per million tokens as a ``Price``; else ``InputError``.

    ``0.15,0.60`` as always (a comma between, points inside); with decimal commas the two are
    separated by ``/`` or ``;`` (``0,15/0,60``): so ``0,15,0,60`` is never guessed at."""
    separator = next((mark for mark in "/;" if mark in text), ",")
    values: list[float] = []
    for part in text.split(separator):
        try:
            values.append(decimal(part))
        except ValueError:
            values.append(math.nan)
    if len(values) != 2 or not all(math.isfinite(v) and v >= 0 for v in values):
        raise InputError(
            f"{option} erwartet zwei Preise je Million Tokens, Eingabe und Ausgabe: mit Punkt "
            f"als Dezimalzeichen durch ein Komma getrennt (0.15,0.60) oder mit Dezimalkomma "
            f"durch / oder ; getrennt (0,15/0,60), ohne Tausenderpunkte; nicht "
            f"„{german.cut(text, 60)}“."
        )
    for value in values:
        check_range(option, value, 0, MAX_PRICE_PER_MILLION, note="je Million Tokens")
    return Price(values[0], values[1])


def budget_problem(budget: float | None, price: Price | None, max_tokens: int | None) -> str:
    """Why ``budget`` cannot be a cap (German), or "": it needs a price and a bounded output
    per call."""
    if budget is None:
        return ""
    if not (math.isfinite(budget) and MIN_BUDGET <= budget <= MAX_BUDGET):
        return (
            f"das Budget muss eine Zahl von {shown(MIN_BUDGET)} bis "
            f"{german.number(MAX_BUDGET, 0)} sein, nicht {shown(budget)}"
        )
    if price is None:
        return (
            "ein Budget braucht einen Preis, sonst ist es keine Grenze "
            "(run: --price-per-million IN,OUT; Judge-Konfiguration: price_per_million)"
        )
    if max_tokens is None:
        return (
            "ein Budget braucht max_tokens (run: --max-tokens), sonst hat ein Aufruf keinen "
            "schlimmsten Fall, den die Obergrenze zurückhalten kann"
        )
    return ""


def money(value: float, *beside: float) -> str:
    """An amount in the precision its line needs (``beside``: the other amounts of the line,
    its cap among them): ``4,98`` of ``5,00``, ``0,0042`` of ``0,0100``, and never a spend
    that is not 0 shown as "0,00" (``0,0040`` of ``5,0000``: enough digits to see it fit)."""
    return german.number(value, money_digits(value, *beside))


def money_digits(*amounts: float) -> int:
    """Decimals for ``amounts`` shown side by side: 2 when the largest is 1 or more, else 4;
    more where the smallest that is not 0 would lose its second significant digit (at most
    8: below that no one pays)."""
    known = [abs(a) for a in amounts if math.isfinite(a)]
    digits = 2 if max(known, default=0.0) >= 1 else 4
    least = min((a for a in known if a), default=1.0)
    return max(digits, min(8, 1 - math.floor(math.log10(least))))


class Usage(Protocol):
    """What a reply says it used (``ChatReply``); ``None``: not reported."""

    @property
    def prompt_tokens(self) -> int | None: ...

    @property
    def completion_tokens(self) -> int | None: ...

    @property
    def cached_tokens(self) -> int | None: ...

    @property
    def content(self) -> str: ...

    @property
    def reasoning(self) -> str: ...


U = TypeVar("U", bound=Usage)


@dataclass(frozen=True, slots=True)
class _Reserved:
    chars: int
    cost: float


class Budget:
    """The hard cap of one invocation: see the module docstring."""

    def __init__(self, limit: float, price: Price, max_output_tokens: int) -> None:
        self.limit = limit
        self.price = price
        self.max_output_tokens = max_output_tokens
        self.spent = 0.0
        self.reached = False
        # Calls settled from reported usage, those counted at their worst case (no report),
        # and those whose report was implausibly low (counted at least at their estimate).
        self.measured = 0
        self.estimated = 0
        self.misreported = 0
        self._in_flight: dict[Hashable, _Reserved] = {}
        # Reported prompt tokens against the characters sent: raises the input estimate when
        # the server counts more tokens than characters / 4 (templates, other languages).
        self._chars = 0
        self._prompt_tokens = 0
        # The worst case of the call that did not fit when the cap was reached.
        self.refused_cost = 0.0

    def worst_case(self, chars: int) -> float:
        """What a call with ``chars`` characters of input can cost at most (estimated input)."""
        ratio = 1 / CHARS_PER_TOKEN
        if self._chars:
            ratio = max(ratio, self._prompt_tokens / self._chars)
        return self.price.cost(math.ceil(chars * ratio), self.max_output_tokens)

    @property
    def reserved(self) -> float:
        return math.fsum(r.cost for r in self._in_flight.values())

    def admit(self, key: Hashable, chars: int, *, in_flight: bool) -> bool:
        """Whether the call ``key`` (``chars`` characters of prompt) may start now; if so,
        its worst case is reserved until ``settle``. ``in_flight``: other calls run, which may
        come back cheaper than reserved (a refusal then waits); without any, a call that does
        not fit means the cap is reached."""
        cost = self.worst_case(chars)
        if self.spent + self.reserved + cost <= self.limit:
            self._in_flight[key] = _Reserved(chars, cost)
            return True
        if not in_flight:
            self.reached = True
            self.refused_cost = cost
        return False

    def settle(
        self,
        key: Hashable,
        *,
        prompt_tokens: int | None = None,
        completion_tokens: int | None = None,
        error: CallError | None = None,
        cached_tokens: int | None = None,
        received_chars: int = 0,
    ) -> None:
        """The call ``key`` ended: what it cost replaces its reservation. ``received_chars``:
        the characters of content and reasoning that arrived."""
        held = self._in_flight.pop(key, None)
        if held is None:
            return
        if error is not None and (error.kind in UNBILLED_KINDS or error.refused_connection):
            return
        if error is not None or prompt_tokens is None or completion_tokens is None:
            # No report of what it used: counted at its worst case, and said so.
            self.spent += held.cost
            self.estimated += 1
            return
        if _too_few(prompt_tokens, held.chars) or _too_few(completion_tokens, received_chars):
            # Not free: at least characters / 4 of what was sent and what arrived.
            self.spent += self.price.cost(
                max(prompt_tokens, estimate_tokens(held.chars)),
                max(completion_tokens, estimate_tokens(received_chars)),
            )
            self.misreported += 1
            return
        self.spent += self.price.cost(prompt_tokens, completion_tokens, cached_tokens or 0)
        self.measured += 1
        self._chars += held.chars
        self._prompt_tokens += prompt_tokens

    def admission(
        self, key: Callable[[T], Hashable], chars: Callable[[T], int]
    ) -> Callable[[T, bool], bool]:
        """The engine's ``admit`` for items whose call is known by ``key`` and whose prompt
        has ``chars`` characters."""

        def admit(item: T, in_flight: bool) -> bool:
            return self.admit(key(item), chars(item), in_flight=in_flight)

        return admit

    def settle_done(self, key: Hashable, done: Done[Any, U]) -> None:
        """``settle`` the call ``key`` from the engine's ``Done``."""
        reply = done.result
        self.settle(
            key,
            prompt_tokens=None if reply is None else reply.prompt_tokens,
            completion_tokens=None if reply is None else reply.completion_tokens,
            error=done.error,
            cached_tokens=None if reply is None else reply.cached_tokens,
            received_chars=0 if reply is None else len(reply.content) + len(reply.reasoning),
        )

    def check(self) -> None:
        """``BudgetReached`` once the cap was reached (after the calls in flight ended)."""
        if self.reached:
            raise self.error(self.message())

    def error(self, message: str) -> BudgetReached:
        """``BudgetReached`` with ``message``, its facts naming the cap's state for the GUI."""
        return BudgetReached(message, facts={"budget_message": self.message()})

    def message(self) -> str:
        """``Budget erreicht: 4,98 von 5,00`` and why the next call did not start."""
        return (
            f"Budget erreicht: {self._of_limit()} (der nächste Aufruf kostet schlimmstenfalls "
            f"{money(self.refused_cost, self.limit, self.spent)} und wurde nicht mehr gestartet)."
            f"{self._estimate_note()}"
        )

    def summary_de(self) -> str:
        """``Budget: 1,23 von 5,00 verbraucht.`` (with the estimate note when it applies)."""
        if self.reached:
            return self.message()
        return f"Budget: {self._of_limit()} verbraucht.{self._estimate_note()}"

    def _of_limit(self) -> str:
        return f"{money(self.spent, self.limit)} von {money(self.limit, self.spent)}"

    def _estimate_note(self) -> str:
        note = ""
        if self.estimated:
            calls = german.counted(self.estimated, "Aufruf", "Aufrufe")
            note += (
                f" {calls} ohne Verbrauchsangabe des Servers: mit der Schätzung gezählt "
                "(Eingabe Zeichen/4, Ausgabe max_tokens)."
            )
        if self.misreported:
            calls = german.counted(self.misreported, "Aufruf", "Aufrufe")
            told, count = ("meldete", "zählt") if self.misreported == 1 else ("meldeten", "zählen")
            note += (
                f" Die Verbrauchsangaben des Servers wirken falsch: {calls} {told} weniger "
                f"Tokens als Zeichen/8 des Gesendeten oder Erhaltenen und {count} mindestens "
                "mit der Schätzung (Zeichen/4); gespeichert bleibt, was der Server meldete."
            )
        return note

    def as_dict(self) -> dict[str, Any]:
        """For events: the figures and the German line (``summary``) the GUI shows."""
        return {
            "limit": self.limit,
            "spent": round(self.spent, 6),
            "reached": self.reached,
            "measured_calls": self.measured,
            "estimated_calls": self.estimated,
            "misreported_calls": self.misreported,
            "summary": self.summary_de(),
        }


def _too_few(tokens: int, chars: int) -> bool:
    """Whether ``tokens`` are implausibly few for ``chars`` characters (``MAX_CHARS_PER_TOKEN``)."""
    return tokens * MAX_CHARS_PER_TOKEN < chars
