"""Reading a run back: everything persisted about it, and its ``report.html``."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from touchstone import started
from touchstone.errors import InputError
from touchstone.export import scorecard_json
from touchstone.german import counted, cut
from touchstone.jury.aggregate import combine
from touchstone.jury.summary import JurySummary
from touchstone.jury.summary import of_run as jury_summary
from touchstone.jury.verdicts import JurySettings, RunCells, by_cell, run_cells
from touchstone.pack import Pack
from touchstone.quality.jury_build import build_jury_card, member_scores
from touchstone.quality.jury_card import JuryCard
from touchstone.results import EvalResponse, ModelReport, Verdict, cell_key
from touchstone.scorecard.build import Scorecard, build_scorecard
from touchstone.spot.agreement import HumanAgreement, human_agreement
from touchstone.stages.judged_by import card_fitness
from touchstone.stages.run.extend import kept_cap, planned_cells
from touchstone.stages.run.manifest import pack_of_run
from touchstone.stages.spot_check import run_ratings
from touchstone.store import (
    JUDGEMENTS,
    REPORT_HTML,
    RESPONSES,
    SCORECARD_JSON,
    VERDICTS_CSV,
    RunDir,
    Stamp,
    atomic_write_text,
    input_stamps,
)
from touchstone.store.exports import pack_order, verdict_csv_lines
from touchstone.store.files import atomic_write
from touchstone.store.manifest import Manifest
from touchstone.store.ratings import HumanRating


@dataclass
class RunView:
    """Everything persisted about a run, loaded once (report, scorecard, GUI)."""

    run_dir: RunDir
    pack: Pack
    manifest: Manifest
    responses: list[EvalResponse]
    verdicts: list[Verdict]
    reports: list[ModelReport]
    # The jury that judged the run and its members' lines (none: a single judge did).
    jury: JurySettings | None = None
    member_lines: list[Verdict] = field(default_factory=list)

    def scorecard(self) -> Scorecard:
        return run_scorecard(
            self.run_dir,
            self.pack,
            self.manifest,
            self.responses,
            self.verdicts,
            self.reports,
            jury=self.jury,
            member_lines=self.member_lines,
        )

    def ratings(self) -> list[HumanRating]:
        """The run's human ratings as ``human.jsonl`` holds them now (read at each call: a
        view is kept while its input files are unchanged, and rating changes none of them);
        a broken line is an ``InputError`` naming file and line."""
        return run_ratings(self.run_dir, self.pack, self.responses)

    def human(self, ratings: Sequence[HumanRating] | None = None) -> HumanAgreement | None:
        """The agreement card of the run's spot check now (None: nobody rated it); of
        ``ratings`` when the caller read them and rated nothing since."""
        ratings = self.ratings() if ratings is None else ratings
        if not ratings:
            return None
        return human_agreement(ratings, self.verdicts, self.pack.scale)


def load_run(run_path: str | Path, *, pack_within: Path | None = None) -> RunView:
    """The run at ``run_path``; ``pack_within``: see ``pack_of_run``'s ``within``."""
    run = RunDir.existing(run_path)
    pack = pack_of_run(run, within=pack_within)
    judged = run_cells(run)
    run.check_scores(itertools.chain(judged.cells, judged.member_lines), pack.scale)
    responses = run.load_responses()
    return RunView(
        run_dir=run,
        pack=pack,
        manifest=run.read_manifest(),
        responses=responses,
        verdicts=answered_verdicts(run, judged.cells, responses),
        reports=run.load_reports(),
        jury=judged.jury,
        member_lines=judged.member_lines,
    )


def run_scorecard(
    run: RunDir,
    pack: Pack,
    manifest: Manifest,
    responses: Sequence[EvalResponse],
    verdicts: list[Verdict],
    reports: Sequence[ModelReport],
    *,
    jury: JurySettings | None,
    member_lines: list[Verdict],
) -> Scorecard:
    """The run's scorecard from its cells (``verdicts``: answered ones), with the jury that
    judged it and its agreement card: the one place a scorecard is made, for the judge stage,
    a jury's, ``report``, the GUI and the demo alike (what ``judge`` writes to scorecard.json
    is what ``report`` writes), and the last judge-check of its judge (``judged_by``)."""
    card = build_scorecard(
        list(responses),
        verdicts,
        list(reports),
        scale_min=pack.scale.min,
        scale_max=pack.scale.max,
        planned=planned_cells(manifest, pack.prompt_count),
    )
    card.max_tokens = kept_cap(manifest)
    card.jury = jury_summary(jury, member_lines, verdicts, responses)
    if card.jury is not None:
        card.jury_card = jury_card(pack, card.jury, card, responses, member_lines)
    card.judge_fitness = card_fitness(run, card)
    return card


def jury_card(
    pack: Pack,
    jury: JurySummary,
    card: Scorecard,
    responses: Sequence[EvalResponse],
    member_lines: list[Verdict],
) -> JuryCard:
    """How far the jury's members agree, over the cells with an answer (design.md §18)."""
    answered = set(map(cell_key, responses))
    members = {k: v for k, v in by_cell(member_lines).items() if k in answered}
    rule = jury.aggregate
    return build_jury_card(
        jury.members,
        member_scores(members),
        low=pack.scale.min,
        high=pack.scale.max,
        aggregate=lambda scores: float(combine(scores, rule)),
        failed={row.pair: row.failed_count for row in card.rows},
        quorum=jury.quorum,
        aggregate_name=rule,
        no_quorum=jury.no_quorum,
    )


def judged_scorecard(
    run: RunDir,
    pack: Pack,
    responses: Sequence[EvalResponse],
    verdicts: list[Verdict],
    reports: Sequence[ModelReport],
    judged: RunCells,
) -> tuple[list[Verdict], Scorecard]:
    """After a judge run: its answered cells and the card they make, with the jury that
    judged the run (``judged``: the run's cells as read, for its jury and members' lines)."""
    cells = answered_verdicts(run, verdicts, responses)
    card = run_scorecard(
        run,
        pack,
        run.read_manifest(),
        responses,
        cells,
        reports,
        jury=judged.jury,
        member_lines=judged.member_lines,
    )
    return cells, card


def answered_verdicts(
    run: RunDir, verdicts: list[Verdict], responses: Sequence[EvalResponse]
) -> list[Verdict]:
    """``verdicts`` without those whose cell has no answer (a hand edit, answers restored from
    a backup), with a warning naming them: they judge no answer this run has, so they count
    nowhere. The file keeps them, in case the answers come back."""
    answered = set(map(cell_key, responses))
    orphans = [v for v in verdicts if cell_key(v) not in answered]
    if not orphans:
        return verdicts
    named = "; ".join(
        f"{cut(v.model)}, {cut(v.variant)}, {cut(v.prompt_id)}, Wdh. {v.repeat}"
        for v in orphans[:3]
    )
    more = f" und {len(orphans) - 3} weitere" if len(orphans) > 3 else ""
    run.warnings.append(
        f"{run.file(JUDGEMENTS)}: {counted(len(orphans), 'Bewertung', 'Bewertungen')} ohne "
        f"Antwort in {RESPONSES} {'zählt' if len(orphans) == 1 else 'zählen'} nicht "
        f"({named}{more})."
    )
    return [v for v in verdicts if cell_key(v) in answered]


def write_scorecard(
    run: RunDir,
    card: Scorecard,
    inputs: Sequence[Stamp] | None = None,
    human: HumanAgreement | None = None,
) -> None:
    """``scorecard.json``, with the stamps of the files it says what of (the GUI's overview
    shows it only while they are unchanged: content, not times, decides). ``inputs``: those
    stamps when the caller has just taken them (a settled resume: hashing twice costs time);
    ``human``: the run's agreement card."""
    stamps = input_stamps(run.path) if inputs is None else inputs
    atomic_write_text(run.file(SCORECARD_JSON), scorecard_json(card, stamps, human))


def report_html(
    view: RunView,
    card: Scorecard,
    *,
    csv_link: str | None = None,
    human: HumanAgreement | None = None,
) -> str:
    """The text of ``report.html`` for ``view``; ``csv_link``: see ``render_report`` (the GUI
    renders the report itself and no verdicts.csv lies beside it); ``human``: the run's
    agreement card (``RunView.human``)."""
    # Jinja2 only for a command that writes a page: a settled ``judge`` starts without it.
    from touchstone.report import render_report

    return render_report(
        run_name=view.run_dir.name,
        pack=view.pack,
        responses=view.responses,
        verdicts=view.verdicts,
        reports=view.reports,
        created_at=view.manifest.created_at,
        card=card,
        csv_link=csv_link,
        human=human,
    )


def verdict_csv_file(view: RunView) -> Iterator[str]:
    """The lines of the run's whole ``verdicts.csv``, in the pack's order: what ``report``
    writes and the GUI's unfiltered download sends."""
    ordered = pack_order(view.verdicts, view.pack, view.manifest.models)
    return verdict_csv_lines(ordered, view.responses, view.pack)


def write_report(view: RunView, card: Scorecard) -> Path:
    """``report.html``, and beside it ``scorecard.json`` and ``verdicts.csv``; a run without
    answers or without verdicts is bad input (a report of nothing, or a scorecard of dashes,
    would look like one of a run; the GUI's run page shows unjudged answers)."""
    if not view.responses:
        raise InputError(
            f"Keine Antworten – zuerst `{started.command('run')}`: {view.run_dir.path} enthält "
            f"noch keine Antworten ({RESPONSES}), also nichts zu berichten."
        )
    if not view.verdicts:
        raise InputError(
            f"Noch keine Bewertungen – zuerst `{started.command('judge')} {view.run_dir.path} "
            f"--config judge.yaml`: {view.run_dir.path} hat Antworten, aber noch keine "
            "Bewertungen, also keine Scorecard und keinen Bericht."
        )
    human = view.human()
    html = report_html(view, card, human=human)
    write_scorecard(view.run_dir, card, human=human)
    lines = verdict_csv_file(view)
    atomic_write(view.run_dir.file(VERDICTS_CSV), lambda handle: handle.writelines(lines))
    path = view.run_dir.file(REPORT_HTML)
    atomic_write_text(path, html)
    return path
