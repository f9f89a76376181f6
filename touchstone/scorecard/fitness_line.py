"""The judge's fitness on the scorecard (design.md §14, §26): the line its first lines say in
the terminal, report.html and the GUI alike, and ``scorecard.json``'s ``judge_fitness``.

"Judge-Check: ungeeignet (verfehlt: Gegenbeispiele niedrig; geprüft am …) – diese Wertungen
sind nicht belastbar." for a judge the last judge-check found unfit, "Judge nicht geprüft"
with the command that checks it when no check is known. A jury: a line per member, and one
for the jury when too few fit members remain for its quorum (the rule of ``judge-check``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from touchstone import german
from touchstone.quality.criteria import LABELS
from touchstone.store.judge_fitness import UNCHECKED, JudgeFitness

UNFIT = "diese Wertungen sind nicht belastbar"
GUI_CHECK = "„Judge prüfen“ (unter „Judge“)"


@dataclass(frozen=True)
class MemberFitness:
    model: str
    base_url: str
    fitness: JudgeFitness


@dataclass
class CardFitness:
    """The fitness of the judge behind a card's verdicts (a jury: of each member)."""

    fitness: JudgeFitness
    # The command that checks the judge (``started.command``), for the unchecked line.
    command: str
    members: list[MemberFitness] = field(default_factory=list)
    quorum: int = 0

    def lines(self) -> list[str]:
        return [text for _, text in self.toned()]

    def toned(self, surface: str = "cli") -> list[tuple[str, str]]:
        """Each line with its tone: "unfit", "unchecked" or "fit" (the faces' colour);
        ``surface`` "gui" names the run page's button, not the command."""
        how = GUI_CHECK if surface == "gui" else f"`{self.command}`"
        if not self.members:
            return [(tone(self.fitness), judge_line(self.fitness, how))]
        lines = [(tone(m.fitness), judge_line(m.fitness, how, m.model)) for m in self.members]
        if self.fitness.unfit:
            fit = sum(1 for m in self.members if m.fitness.verdict == "geeignet")
            jury = (
                f"Judge-Check der Jury: ungeeignet ({fit} von "
                f"{german.counted(len(self.members), 'Judge', 'Judges')} geeignet, Quorum "
                f"{self.quorum}) – {UNFIT}."
            )
            lines.insert(0, ("unfit", jury))
        return lines

    @property
    def unfit(self) -> bool:
        return self.fitness.unfit or any(m.fitness.unfit for m in self.members)

    def as_dict(self) -> dict[str, Any]:
        return self.fitness.as_dict()

    def member(self, model: str, base_url: str) -> JudgeFitness:
        for member in self.members:
            if (member.model, member.base_url) == (model, base_url):
                return member.fitness
        return UNCHECKED


def tone(fitness: JudgeFitness) -> str:
    if fitness.verdict is None:
        return "unchecked"
    return "unfit" if fitness.unfit else "fit"


def _missed(missed: Sequence[str]) -> str:
    stopped = "guard_stop" in missed
    named = [LABELS.get(m, m) for m in missed if m != "guard_stop"]
    parts = [LABELS["guard_stop"]] if stopped else []
    if named:
        parts.append(f"verfehlt: {', '.join(named)}")
    return "; ".join(parts)


def judge_line(fitness: JudgeFitness, how: str, member: str = "") -> str:
    """The line of one judge (``member``: a jury member's model, named in the line; ``how``:
    what checks it, a command in backticks or the GUI's button)."""
    when = german.local_time(fitness.checked_at)
    if fitness.verdict is None:
        who = f"Judge {member}" if member else "Judge"
        return (
            f"{who} nicht geprüft – ob {'seine' if member else 'diese'} Wertungen belastbar "
            f"sind, sagt {how}."
        )
    head = f"Judge-Check {member}:" if member else "Judge-Check:"
    if not fitness.unfit:
        return f"{head} geeignet (geprüft am {when})."
    whose = "seine Wertungen sind nicht belastbar" if member else UNFIT
    return f"{head} ungeeignet ({unfit_reason(fitness)}) – {whose}."


def unfit_reason(fitness: JudgeFitness) -> str:
    """``verfehlt: Gegenbeispiele niedrig; geprüft am …``: what the check missed, and when."""
    missed = _missed(fitness.missed)
    when = f"geprüft am {german.local_time(fitness.checked_at)}"
    return f"{missed}; {when}" if missed else when


def jury_fitness(members: Sequence[MemberFitness], quorum: int) -> JudgeFitness:
    """The jury as a whole: fit when its fit members reach the quorum, unfit when they cannot
    even with the unchecked ones, else unchecked; the oldest check, every criterion missed."""
    fit = [m.fitness for m in members if m.fitness.verdict == "geeignet"]
    unchecked = [m.fitness for m in members if m.fitness.verdict is None]
    checked = [m.fitness.checked_at for m in members if m.fitness.checked_at]
    missed = dict.fromkeys(x for m in members if m.fitness.unfit for x in m.fitness.missed)
    if len(fit) >= quorum:
        verdict: str | None = "geeignet"
    elif len(fit) + len(unchecked) < quorum:
        verdict = "ungeeignet"
    else:
        return UNCHECKED
    return JudgeFitness(verdict, min(checked) if checked else None, tuple(missed))


def fitness_fields(fitness: CardFitness | None, data: dict[str, Any]) -> None:
    """``judge_fitness`` into ``scorecard.json``'s ``data``: at the top, and per member in
    ``jury.members`` (design.md §26); a card built without a run dir reads as unchecked."""
    data["judge_fitness"] = (fitness.fitness if fitness else UNCHECKED).as_dict()
    jury = data.get("jury")
    members = jury.get("members") if isinstance(jury, dict) else None
    if fitness is None or not isinstance(jury, dict) or not isinstance(members, list):
        return
    jury["members"] = [
        {**m, "judge_fitness": fitness.member(m["model"], m["base_url"]).as_dict()} for m in members
    ]
