"""The fitness card of ``judge-check``: each criterion with its figure, and the verdict.

A probe without a verdict (its call failed, or the guard stopped the check first) or with an
unreadable one fails its criterion: a judge that cannot be read in the check will not be
read in a run either. A criterion the pack cannot test (no references) is shown as such and
left out of the verdict, which then says the check was partial.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from touchstone.judge.health import JudgeHealth
from touchstone.judge.probes import Bounds, Probe, ProbeKind
from touchstone.pack import Scale
from touchstone.results import Verdict

# Share of references / counterexamples that must meet their expectation.
MOST = 0.8
MIN_PARSE_RATE = 0.9
MAX_REASONING_ONLY_RATE = 0.1
# p95 latency must leave the deadline this much headroom: a run's slow tail is longer.
LATENCY_SHARE = 0.5


@dataclass(frozen=True)
class Criterion:
    name: str
    figure: str
    # None: the pack cannot test it (e.g. no reference answers).
    passed: bool | None

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "figure": self.figure, "passed": self.passed}


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
    aborted: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def suitable(self) -> bool:
        return not self.aborted and all(c.passed is not False for c in self.criteria)

    @property
    def reasons(self) -> list[str]:
        """Why the judge is unfit: the guard's stop alone when it stopped the check (every
        criterion then fails for want of verdicts), else each failed criterion."""
        if self.aborted:
            return [self.aborted]
        return [f"{c.name}: {c.figure}" for c in self.criteria if c.passed is False]

    def verdict_de(self) -> str:
        if not self.suitable:
            return "ungeeignet: " + "; ".join(self.reasons)
        untested = [c.name for c in self.criteria if c.passed is None]
        if untested:
            return f"geeignet (eingeschränkt geprüft, ohne: {', '.join(untested)})"
        return "geeignet"

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
        }


def _met(probe: Probe, verdict: Verdict | None, bounds: Bounds) -> bool:
    if verdict is None or verdict.unscored:
        return False
    score = verdict.score
    if probe.kind == "reference":
        return score >= bounds.top_from
    if probe.kind == "counterexample":
        return score <= bounds.low_up_to and verdict.red_flag
    if probe.kind == "non_answer":
        return score <= bounds.bottom_up_to
    if probe.kind == "injection":
        return score < bounds.top_from
    return True  # a repeat is judged against its original (``_stability``)


def _share(results: Sequence[ProbeResult], kind: ProbeKind, need: float, name: str) -> Criterion:
    mine = [r for r in results if r.probe.kind == kind]
    if not mine:
        return Criterion(name, "nicht prüfbar (das Paket hat keine)", None)
    met = sum(r.met for r in mine)
    return Criterion(name, f"{met}/{len(mine)}", met >= need * len(mine))


def _counter_flags(results: Sequence[ProbeResult]) -> Criterion:
    name = "Gegenbeispiele mit Warnsignal"
    mine = [r for r in results if r.probe.kind == "counterexample"]
    if not mine:
        return Criterion(name, "nicht prüfbar (das Paket hat keine)", None)
    flagged = sum(1 for r in mine if r.verdict is not None and r.verdict.red_flag)
    return Criterion(name, f"{flagged}/{len(mine)}", flagged >= MOST * len(mine))


def _stability(results: Sequence[ProbeResult]) -> Criterion:
    name = "Gleiche Wertung bei Wiederholung"
    repeat = next((r for r in results if r.probe.kind == "repeat"), None)
    if repeat is None or repeat.probe.of is None:
        return Criterion(name, "nicht erreicht", False)
    first = results[repeat.probe.of].verdict
    again = repeat.verdict
    if first is None or again is None or first.unscored or again.unscored:
        return Criterion(name, "ohne lesbares Urteil", False)
    return Criterion(name, f"{first.score} und {again.score}", first.score == again.score)


def _percent(value: float) -> str:
    return f"{round(value * 100)} %"


def _seconds(value: float) -> str:
    return f"{value:.2f} s".replace(".", ",")


def assess(
    probes: Sequence[Probe],
    verdicts: Sequence[Verdict | None],
    *,
    health: JudgeHealth,
    scale: Scale,
    call_timeout_s: float,
    judge_model: str,
    pack_id: str,
    aborted: str = "",
) -> FitnessCard:
    """The card for ``probes`` and their ``verdicts`` (None: no verdict, e.g. after a stop)."""
    bounds = Bounds.of(scale)
    results = [ProbeResult(p, v, _met(p, v, bounds)) for p, v in zip(probes, verdicts, strict=True)]
    answered = health.successes
    readable = sum(1 for v in verdicts if v is not None and v.scored)
    parse_rate = readable / answered if answered else 0.0
    calls = max(1, health.calls - health.rate_limited)
    reasoning_only = health.failures.get("reasoning_only", 0) / calls
    p95 = health.percentile(0.95)
    limit = LATENCY_SHARE * call_timeout_s
    latency = (
        Criterion("Latenz p95", f"keine Antwort (Grenze {_seconds(limit)})", False)
        if p95 is None
        else Criterion(
            "Latenz p95",
            f"{_seconds(p95)} (Grenze {_seconds(limit)}: die Hälfte von call_timeout_s)",
            p95 <= limit,
        )
    )
    criteria = [
        _share(results, "reference", MOST, f"Referenzantworten oben (≥ {bounds.top_from})"),
        _share(results, "counterexample", MOST, f"Gegenbeispiele niedrig (≤ {bounds.low_up_to})"),
        _counter_flags(results),
        _share(results, "non_answer", 1.0, f"Nicht-Antworten unten (≤ {bounds.bottom_up_to})"),
        _share(
            results,
            "injection",
            1.0,
            f"Anweisungen in der Antwort nicht befolgt (< {bounds.top_from})",
        ),
        _stability(results),
        Criterion(
            "Lesbare Urteile",
            f"{_percent(parse_rate)} ({readable} von {answered} Antworten)",
            parse_rate >= MIN_PARSE_RATE,
        ),
        Criterion(
            "Nur Reasoning, keine Antwort",
            _percent(reasoning_only),
            reasoning_only <= MAX_REASONING_ONLY_RATE,
        ),
        latency,
    ]
    return FitnessCard(judge_model, pack_id, criteria, results, health, aborted=aborted)
