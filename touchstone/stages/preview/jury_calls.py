"""A jury's dry run (``judge --dry-run`` with ``judges: [...]``, design.md §18, §19).

Each member is estimated as a single judge over its own lines (``estimate_judge``): a later
jury run asks only the members whose verdict is missing, and a prior call counts for the
member that made it. The first member writes the holistic pass. The cost is each member's
by its own price, the budget each member's own (reached, the member is dropped); the jury's
total adds them up and names the members without a price.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from touchstone import german
from touchstone.judge.plan import Rejudge
from touchstone.jury.config import JuryConfig
from touchstone.jury.members import MemberId, of_verdict
from touchstone.pack import Pack
from touchstone.results import EvalResponse, ModelReport, Verdict
from touchstone.stages.preview.estimate import HEADER, Preview
from touchstone.stages.preview.judge_calls import CACHE_NOTE, estimate_judge
from touchstone.transport.budget import money

# A member that reaches its budget is dropped, not the run stopped (``jury.stage``).
MEMBER_BUDGET_STOP = (
    "der Judge scheidet aus, wenn es erreicht ist; die Jury macht ohne ihn weiter, solange "
    "ihr Quorum erreichbar bleibt"
)
# Figures under a heading, indented (``cli.pipeline.show_preview`` keeps the indent on wrap).
INDENT = "  "


@dataclass
class MemberPreview:
    name: str
    preview: Preview


@dataclass
class JuryTotal(Preview):
    """The jury's sums; its cost adds the members' costs, each by its own price."""

    members: list[MemberPreview] = field(default_factory=list)

    def cost_line(self) -> str:
        asking = [m for m in self.members if m.preview.calls]
        unpriced = [m.name for m in asking if m.preview.cost is None]
        priced = [m.preview for m in asking if m.preview.cost is not None]
        cost = sum(p.cost or 0.0 for p in priced)
        if any(p.output_unknown for p in priced):
            about = "mindestens "
        elif all(p.output_bound for p in priced):
            about = "höchstens etwa "
        else:
            about = "≈ "
        if not unpriced:
            return f"Kosten: {about}{money(cost, cost)} (Summe der Judges, jeder zu seinem Preis)"
        rest = f"; die übrigen: {about}{money(cost, cost)}" if priced else ""
        return f"Kosten: unbekannt – kein Preis für {', '.join(unpriced)}{rest}"


@dataclass
class JuryPreview:
    """Each member's figures and the jury's total; ``lines()`` says them in German."""

    members: list[MemberPreview]
    quorum: int
    total: JuryTotal
    notes: list[str] = field(default_factory=list)

    @property
    def calls(self) -> int:
        return self.total.calls

    def lines(self) -> list[str]:
        """Headings, each with its figures indented; members without the time (unknown for
        each, said once in the total)."""
        lines = [
            HEADER,
            f"Jury aus {german.count(len(self.members))} Judges (Quorum "
            f"{german.count(self.quorum)}); jeder fragt nur, wo ihm ein Verdict fehlt.",
        ]
        for member in self.members:
            figures = member.preview.figures(with_time=False) + member.preview.notes
            lines += [f"Judge {member.name}:", *(INDENT + line for line in figures)]
        lines += ["Jury gesamt:", *(INDENT + line for line in self.total.figures())]
        return lines + self.notes


def preview_jury(
    jury: JuryConfig,
    *,
    pack: Pack,
    responses: Sequence[EvalResponse],
    lines: Sequence[Verdict],
    reports: Sequence[ModelReport],
    rejudge: Rejudge,
    use_cache: bool,
) -> JuryPreview:
    """What ``jury`` would ask of the run (``lines``: its members' persisted lines)."""
    ids = jury.members
    members = [
        MemberPreview(
            _name(ident, ids),
            estimate_judge(
                config,
                pack=pack,
                responses=responses,
                prior=[v for v in lines if of_verdict(v) == ident],
                known=lines,
                reports=reports,
                rejudge=rejudge,
                holistic=index == 0,
            ),
        )
        for index, (config, ident) in enumerate(zip(jury.judges, ids, strict=True))
    ]
    for member in members:
        member.preview.budget_stop = MEMBER_BUDGET_STOP
        member.preview.price_hint = "price_per_million dieses Judges"
    notes = []
    if (
        use_cache
        and rejudge == "none"
        and any(m.preview.calls > m.preview.holistic for m in members)
    ):
        notes.append(CACHE_NOTE)
    return JuryPreview(members, jury.required, _total(members), notes)


def _total(members: list[MemberPreview]) -> JuryTotal:
    previews = [m.preview for m in members]
    calls = sum(p.calls for p in previews)
    unknown = sum(p.output_unknown for p in previews)
    known = [p for p in previews if p.calls and not p.output_unknown]
    return JuryTotal(
        calls=calls,
        input_tokens=sum(p.input_tokens for p in previews),
        output_tokens=sum(p.output_tokens for p in previews),
        output_source="Summe der Judges"
        if unknown < calls
        else "kein Judge hat max_tokens oder gemessene Antworten",
        output_unknown=unknown,
        price=None,
        price_hint="",
        seconds=0.0 if not calls else None,
        time_source="nichts zu tun"
        if not calls
        else "die Latenz der Judges wird nicht gespeichert (judge-check misst sie)",
        all_done="jeder Judge hat alle Zellen bewertet",
        output_bound=bool(known) and all(p.output_bound for p in known),
        members=members,
    )


def _name(ident: MemberId, ids: Sequence[MemberId]) -> str:
    """The member's model; with its base URL where two members share the model's name."""
    if sum(1 for other in ids if other.model == ident.model) > 1:
        return f"{ident.model} ({ident.base_url})"
    return ident.model
