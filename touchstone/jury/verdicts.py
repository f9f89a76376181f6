"""A jury run's verdicts as persisted: one line per member and cell in judgements.jsonl.

The store reads the lines and computes nothing (``RunDir.read_judgements``); ``run_cells``
gives every reader the cells' verdicts (a jury's cell: the aggregate of its members,
``cell_verdicts``) beside the lines they came from. ``by_cell`` groups the members' lines per
cell and member, for anything that looks at the members apart (agreement among the judges,
a member's mean).

The jury's settings (aggregate, quorum, members, and why a member was dropped) are in
run.json under ``jury`` (``JurySettings``); a run dir without them is read with the median
and a quorum of more than half of the members its lines name.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from touchstone.jury.aggregate import cell_verdict, jury_name
from touchstone.jury.members import MemberId, of_verdict
from touchstone.results import Verdict, VerdictKey, cell_key

if TYPE_CHECKING:
    from touchstone.store.manifest import Manifest
    from touchstone.store.rundir import Judgements, RunDir

MANIFEST_KEY = "jury"


@dataclass
class JuryMember:
    model: str
    base_url: str
    # Why the member was dropped in the last jury run ("" when it was not).
    dropped: str = ""

    @property
    def id(self) -> MemberId:
        return MemberId(self.model, self.base_url)


@dataclass
class JurySettings:
    """How a jury's cell verdicts are made, and who its members are (run.json ``jury``)."""

    aggregate: str = "median"
    quorum: int = 1
    members: list[JuryMember] = field(default_factory=list)

    @property
    def name(self) -> str:
        return jury_name([m.model for m in self.members])

    def as_manifest(self) -> dict[str, Any]:
        return {
            "aggregate": self.aggregate,
            "quorum": self.quorum,
            "members": [
                {"model": m.model, "base_url": m.base_url, "dropped": m.dropped or None}
                for m in self.members
            ],
        }

    @classmethod
    def of(cls, manifest: Manifest, lines: Iterable[Verdict]) -> JurySettings:
        """The settings run.json records; without them, from the members' lines."""
        named = list(dict.fromkeys(map(of_verdict, lines)))
        raw = manifest.jury
        raw = raw if isinstance(raw, dict) else {}
        listed = raw.get("members")
        members = [
            JuryMember(str(m.get("model", "")), str(m.get("base_url", "")), _text(m.get("dropped")))
            for m in (listed if isinstance(listed, list) else [])
            if isinstance(m, dict)
        ]
        if not members:  # run.json names no jury (a run killed before it was written)
            members = [JuryMember(m.model, m.base_url) for m in named]
        quorum = raw.get("quorum")
        if not isinstance(quorum, int) or isinstance(quorum, bool) or quorum < 1:
            quorum = len(members) // 2 + 1
        aggregate = raw.get("aggregate")
        return cls(
            aggregate if aggregate in ("median", "mean", "majority") else "median",
            quorum,
            members,
        )


def _text(value: object) -> str:
    """A reason from run.json (someone else's file): text, or none."""
    return value if isinstance(value, str) else ""


def by_cell(lines: Iterable[Verdict]) -> dict[VerdictKey, dict[MemberId, Verdict]]:
    """Members' lines grouped by cell, then member (in the order they appear)."""
    cells: dict[VerdictKey, dict[MemberId, Verdict]] = {}
    for verdict in lines:
        cells.setdefault(cell_key(verdict), {})[of_verdict(verdict)] = verdict
    return cells


def cell_verdicts(lines: Iterable[Verdict], settings: JurySettings) -> dict[VerdictKey, Verdict]:
    """Each cell's verdict: the aggregate of its members' verdicts (the lines of judges that
    are no longer members stay in the file, but count no more)."""
    name = settings.name
    current = {m.id for m in settings.members}
    lines = [v for v in lines if of_verdict(v) in current]
    return {
        key: cell_verdict(
            list(members.values()),
            aggregate=settings.aggregate,
            quorum=settings.quorum,
            name=name,
        )
        for key, members in by_cell(lines).items()
    }


@dataclass(frozen=True)
class RunCells:
    """A run's verdicts as every reader counts them, beside what the store read."""

    # One verdict per cell: a single judge's, or the aggregate of a jury's members.
    cells: list[Verdict]
    stored: Judgements
    # The jury that judged the run (``None`` when no jury did).
    jury: JurySettings | None

    @property
    def member_lines(self) -> list[Verdict]:
        return self.stored.member_lines


def run_cells(run: RunDir) -> RunCells:
    """The verdicts of ``run`` per cell; a jury's cell is made here from its members' lines
    (over a single judge's verdict of the same cell)."""
    stored = run.read_judgements()
    if not stored.member_lines:
        return RunCells(stored.verdicts, stored, None)
    settings = JurySettings.of(run.read_manifest(), stored.member_lines)
    by_key = {cell_key(v): v for v in stored.verdicts}
    by_key.update(cell_verdicts(stored.member_lines, settings))
    return RunCells(list(by_key.values()), stored, settings)


def member_verdicts(run: RunDir) -> dict[VerdictKey, dict[MemberId, Verdict]]:
    """Every cell a jury judged: each member's verdict of it, by member (judge_error never)."""
    return by_cell(run.read_judgements().member_lines)
