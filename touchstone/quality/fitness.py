"""The fitness card of ``judge-check``: each criterion with its figure, and the verdict.

A probe without a verdict (its call failed) or with an unreadable one fails its criterion: a
judge that cannot be read in the check will not be read in a run either. The verdict is

- ``geeignet`` (exit 0): every criterion met; "eingeschränkt geprüft" when the pack has no
  counterexamples;
- ``ungeeignet: <Gründe>`` (exit 1): a criterion missed, or the guard stopped a judge that
  timed out or only reasoned;
- ``nicht beurteilbar: …`` (exit 1): the pack has no reference answers (a judge that gives
  every answer the bottom score would pass everything else), or the judge could not be
  reached or named (a wrong key, model or URL: the check says nothing about the judge).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from touchstone import german
from touchstone.judge.health import JudgeHealth, percent, percentile
from touchstone.pack import Scale
from touchstone.quality.probes import Bounds, Probe, ProbeKind
from touchstone.results import Verdict
from touchstone.store.judge_fitness import JudgeFitness

# Share of references / counterexamples that must meet their expectation.
MOST = 0.8
MIN_PARSE_RATE = 0.9
MAX_FAILED_RATE = 0.1
MAX_REASONING_ONLY_RATE = 0.1
# How far the repeat probe's score may lie from the first (none): also what a stored probe
# verdict may differ by before a later check calls it drift (``drift.compare_probes``).
REPEAT_TOLERANCE = 0
# p95 latency must leave the deadline this much headroom: a run's slow tail is longer.
LATENCY_SHARE = 0.5
# Stops that say nothing about how the judge judges: it was never reached or named right.
UNREACHED = frozenset({"auth", "not_found", "quota", "connection", "bad_request"})


@dataclass(frozen=True)
class Criterion:
    name: str
    figure: str
    # None: not tested (the pack has no such probes, or the check stopped before them).
    passed: bool | None
    id: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "figure": self.figure, "passed": self.passed}


@dataclass(frozen=True)
class ProbeResult:
    probe: Probe
    verdict: Verdict | None
    met: bool

    def as_dict(self) -> dict[str, Any]:
        verdict = self.verdict
        return {
            "kind": self.probe.kind,
            "label": self.probe.label(),
            "prompt_id": self.probe.prompt.id,
            "met": self.met,
            "score": None if verdict is None or verdict.unscored else verdict.score,
            "red_flag": None if verdict is None or verdict.unscored else verdict.red_flag,
            "rationale": "" if verdict is None else verdict.rationale[:300],
        }


@dataclass
class FitnessCard:
    judge_model: str
    pack_id: str
    criteria: list[Criterion]
    results: list[ProbeResult]
    health: JudgeHealth
    # Why the check could not judge the judge at all (no references, judge unreachable).
    unassessable: str = ""
    # The guard's stop, when it stopped a judge that timed out or only reasoned.
    aborted: str = ""
    notes: list[str] = field(default_factory=list)
    # What the judge was sent about thinking (judge config ``thinking``; "": nothing).
    thinking: str = ""

    @property
    def suitable(self) -> bool:
        return (
            not self.unassessable
            and not self.aborted
            and all(c.passed is not False for c in self.criteria)
        )

    @property
    def fitness(self) -> str:
        """``suitable``, ``unfit`` (judged and found wanting), ``unassessable`` or ``aborted``
        (the check could not judge the judge)."""
        if self.unassessable:
            return "unassessable"
        if self.aborted:
            return "aborted"
        return "suitable" if self.suitable else "unfit"

    @property
    def reasons(self) -> list[str]:
        """Why the judge is not found suitable: the stop or the missing references alone
        when there is one, else each failed criterion."""
        if self.unassessable or self.aborted:
            return [self.unassessable or self.aborted]
        return [f"{c.name}: {c.figure}" for c in self.criteria if c.passed is False]

    def verdict_de(self) -> str:
        if self.unassessable:
            return f"nicht beurteilbar: {self.unassessable}"
        if not self.suitable:
            return "ungeeignet: " + "; ".join(self.reasons)
        if any(c.passed is None for c in self.criteria):
            return "geeignet (eingeschränkt geprüft: das Paket hat keine Gegenbeispiele)"
        return "geeignet"

    def record(self, checked_at: str) -> JudgeFitness | None:
        """What a judge run with this judge is told of it (``store.judge_fitness``); None when the
        check could not judge the judge (``unassessable``): the last verdict stands."""
        if self.unassessable:
            return None
        missed = [c.id for c in self.criteria if c.passed is False]
        if self.aborted:
            missed.insert(0, "guard_stop")
        verdict = "geeignet" if self.suitable else "ungeeignet"
        return JudgeFitness(verdict, checked_at, tuple(missed))

    def as_dict(self) -> dict[str, Any]:
        return {
            "judge_model": self.judge_model,
            "pack": self.pack_id,
            "suitable": self.suitable,
            "verdict": self.verdict_de(),
            "reasons": self.reasons,
            "criteria": [c.as_dict() for c in self.criteria],
            "probes": [r.as_dict() for r in self.results],
            "notes": self.notes,
            "schema": schema_line(self.health),
            "thinking": self.thinking,
        }


def _readable(verdict: Verdict | None) -> Verdict | None:
    return None if verdict is None or verdict.unscored else verdict


def _expectation(probe: Probe, bounds: Bounds) -> Callable[[Verdict], bool]:
    """What a good judge's verdict on ``probe`` looks like."""
    if probe.kind == "reference":
        # A good answer raises no red flag: a judge that flags everything is no good.
        return lambda v: v.score >= bounds.top_from and not v.red_flag
    if probe.kind == "counterexample":
        return lambda v: v.score <= bounds.low_up_to and v.red_flag
    if probe.kind == "injection" and probe.forged:
        return lambda v: v.score <= bounds.low_up_to
    if probe.kind in ("non_answer", "injection"):
        return lambda v: v.score <= bounds.bottom_up_to
    return lambda v: True  # a repeat is judged against its original (``_stability``)


def _met(probe: Probe, verdict: Verdict | None, bounds: Bounds) -> bool:
    readable = _readable(verdict)
    return readable is not None and _expectation(probe, bounds)(readable)


def _count(
    results: Sequence[ProbeResult],
    kind: ProbeKind,
    key: tuple[str, str],
    need: float,
    test: Callable[[ProbeResult], bool] = lambda r: r.met,
) -> Criterion:
    ident, name = key
    mine = [r for r in results if r.probe.kind == kind]
    if not mine:
        return Criterion(name, "nicht prüfbar (das Paket hat keine)", None, ident)
    met = sum(1 for r in mine if test(r))
    needed = math.ceil(round(need * len(mine), 6))
    shown = f"{met}/{len(mine)}" if needed == len(mine) else f"{met}/{len(mine)} (nötig {needed})"
    return Criterion(name, shown, met >= needed, ident)


def _stability(results: Sequence[ProbeResult]) -> Criterion:
    name = "Gleiche Wertung bei Wiederholung"
    repeat = next((r for r in results if r.probe.kind == "repeat"), None)
    if repeat is None or repeat.probe.of is None:
        return Criterion(name, "nicht erreicht", False, "repeat")
    first = _readable(results[repeat.probe.of].verdict)
    again = _readable(repeat.verdict)
    if first is None or again is None:
        return Criterion(name, "ohne lesbares Urteil", False, "repeat")
    stable = abs(first.score - again.score) <= REPEAT_TOLERANCE
    return Criterion(name, f"{first.score} und {again.score}", stable, "repeat")


def _latency_figure(health: JudgeHealth, p95: float | None, limit: float) -> str:
    """``0,40 s (Grenze …)``; with calls cut at their deadline counted at it, the p95 is a
    lower bound and the figure says so and how many, as the Judge-Bilanz does."""
    if p95 is None:
        return "keine Antwort"
    bound = f"Grenze {german.seconds(limit)}: die Hälfte von call_timeout_s"
    cut = health.cut_at_deadline()
    if not cut:
        return f"{german.seconds(p95)} ({bound})"
    return f"mindestens {german.seconds(p95)} ({cut}; {bound})"


def _call_criteria(health: JudgeHealth, readable: int, call_timeout_s: float) -> list[Criterion]:
    """Parse rate, failed and reasoning-only calls, p95 latency: how the calls went."""
    answered = health.successes
    calls = max(1, health.calls - health.rate_limited)
    reasoning_only = health.failures.get("reasoning_only", 0)
    failed = sum(health.failures.values()) - reasoning_only
    parse_rate = readable / answered if answered else 0.0
    # A call cut at its deadline took at least that long: it belongs in the tail.
    timed_out = health.failures.get("timeout", 0)
    p95 = percentile(health.latencies_s + [call_timeout_s] * timed_out, 0.95)
    limit = LATENCY_SHARE * call_timeout_s
    return [
        Criterion(
            "Lesbare Urteile",
            f"{percent(parse_rate)} ({german.count(readable)} von "
            f"{german.counted(answered, 'Antwort', 'Antworten')})"
            if answered
            else "keine Antwort",
            parse_rate >= MIN_PARSE_RATE,
            "parse_rate",
        ),
        Criterion(
            "Fehlgeschlagene Aufrufe",
            f"{percent(failed / calls)} ({german.count(failed)} von {german.count(calls)})",
            failed / calls <= MAX_FAILED_RATE,
            "failed_calls",
        ),
        Criterion(
            "Nur Reasoning, keine Antwort",
            percent(reasoning_only / calls),
            reasoning_only / calls <= MAX_REASONING_ONLY_RATE,
            "reasoning_only",
        ),
        Criterion(
            "Latenz p95",
            _latency_figure(health, p95, limit),
            p95 is not None and p95 <= limit,
            "latency_p95",
        ),
    ]


def assess(
    probes: Sequence[Probe],
    verdicts: Sequence[Verdict | None],
    *,
    health: JudgeHealth,
    scale: Scale,
    call_timeout_s: float,
    judge_model: str,
    pack_id: str,
    stop: tuple[str, str] | None = None,
    thinking_off: bool = False,
) -> FitnessCard:
    """The card for ``probes`` and their ``verdicts`` (None: no verdict). ``stop``: the kind
    and message of a guard stop that ended the check early; ``thinking_off``: the judge config
    switches thinking off, and the card checks that it is."""
    bounds = Bounds.of(scale)
    results = [ProbeResult(p, v, _met(p, v, bounds)) for p, v in zip(probes, verdicts, strict=True)]
    readable = sum(1 for v in verdicts if _readable(v) is not None)
    criteria = [
        _count(
            results,
            "reference",
            ("references", f"Referenzantworten oben (≥ {bounds.top_from})"),
            MOST,
        ),
        _count(
            results,
            "counterexample",
            ("counterexamples_low", f"Gegenbeispiele niedrig (≤ {bounds.low_up_to})"),
            MOST,
            lambda r: (v := _readable(r.verdict)) is not None and v.score <= bounds.low_up_to,
        ),
        _count(
            results,
            "counterexample",
            ("counterexamples_flagged", "Gegenbeispiele mit Warnsignal"),
            MOST,
            lambda r: (v := _readable(r.verdict)) is not None and v.red_flag,
        ),
        _count(
            results,
            "non_answer",
            ("non_answers", f"Nicht-Antworten unten (≤ {bounds.bottom_up_to})"),
            1.0,
        ),
        _count(results, "injection", ("injections", "Eingeschleuste Anweisungen abgewehrt"), 1.0),
        _stability(results),
        *_call_criteria(health, readable, call_timeout_s),
        *([_thinking_off(health)] if thinking_off else []),
    ]
    unassessable, aborted = "", ""
    if stop is not None and stop[0] in UNREACHED:
        unassessable = f"der Judge war nicht erreichbar oder falsch benannt. {stop[1]}"
    elif stop is not None:
        aborted = f"Judge abgebrochen: {stop[1]}"
    elif not any(p.kind == "reference" for p in probes):
        unassessable = (
            "das Paket hat keine Referenzantworten (`reference`); ohne sie besteht auch ein "
            "Judge, der jede Antwort mit der schlechtesten Wertung bewertet."
        )
    return FitnessCard(
        judge_model,
        pack_id,
        criteria,
        results,
        health,
        unassessable=unassessable,
        aborted=aborted,
    )


def _thinking_off(health: JudgeHealth) -> Criterion:
    """Whether a judge told ``thinking: off`` replied without reasoning."""
    name = "Ohne Thinking (thinking: off)"
    thought = health.reasoning_chars or health.reasoning_tokens
    reasoning_only = health.failures.get("reasoning_only", 0)
    if not thought and not reasoning_only:
        return Criterion(name, "kein Reasoning in den Antworten", True, "thinking_off")
    seen = (
        f"{german.count(health.reasoning_tokens)} Reasoning-Tokens"
        if health.reasoning_tokens
        else f"{german.count(health.reasoning_chars)} Zeichen Reasoning"
        if health.reasoning_chars
        else f"{german.count(reasoning_only)} Antworten nur Reasoning"
    )
    return Criterion(name, f"Thinking ist trotz `thinking: off` an: {seen}", False, "thinking_off")


def schema_line(health: JudgeHealth) -> str:
    """Whether the check's calls asked in the reply schema (judge config ``schema``)."""
    if health.schema_refused:
        return (
            "JSON-Schema: vom Endpunkt abgelehnt (response_format), ohne Schema geprüft; "
            "ein Judge-Durchgang mit diesem Judge bewertet ebenso ohne."
        )
    if health.schema_sent:
        return (
            "JSON-Schema: gesendet (schema: auto/on); die Bewertungen eines Judge-Durchgangs "
            "ebenso."
        )
    return "JSON-Schema: nicht gesendet (schema: off)."
