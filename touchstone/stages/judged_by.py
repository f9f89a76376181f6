"""The judge behind a run's verdicts and what its last judge-check found (design.md §14).

``judge-check`` stores its verdict per judge identity in the user cache dir
(``store.judge_fitness``). A judge run looks it up for its judge (a jury: each member) before
any call: an unfit judge is said at once (the ``judge_fitness`` event), and with the judge
config's ``on_unfit: stop`` the run ends there (exit 1, nothing written). Otherwise the run
records its judges with what was known of them in the run dir (``judge-fitness.json``), so
that report and GUI show it on another machine too. A reader takes the newer of that record
and the user cache's verdict for the same identity: a later check is what the next report
shows.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from touchstone import started
from touchstone.errors import JudgeAborted
from touchstone.events import EventSink, emit
from touchstone.german import cut
from touchstone.judge.config import JudgeConfig
from touchstone.scorecard.build import Scorecard
from touchstone.scorecard.fitness_line import (
    CardFitness,
    MemberFitness,
    judge_line,
    jury_fitness,
    unfit_reason,
)
from touchstone.store import RunDir
from touchstone.store.judge_fitness import (
    UNCHECKED,
    JudgedBy,
    JudgeFitness,
    identity_digest,
    read_run_fitness,
    read_user_fitness,
)

DEFAULT_CONFIG = "judge.yaml"


@dataclass(frozen=True)
class Judging:
    """One judge of a judge run: its config, identity (``judge_identity``) and names."""

    config: JudgeConfig
    identity: str
    judge_model: str
    base_url: str


def check_fitness_first(
    run: RunDir,
    judges: Sequence[Judging],
    *,
    config_path: str,
    jury: bool,
    on_event: EventSink | None,
) -> list[JudgedBy]:
    """Before a judge run calls anyone: each judge's last judge-check; an unfit one is said
    (and with ``on_unfit: stop`` ends the run, nothing written). The judges as the run dir
    is to record them (``write_run_fitness``, once the run writes anything: a drift stop
    before leaves the run dir as it was)."""
    notes: list[str] = []
    entries: list[JudgedBy] = []
    command = check_command(run, config_path, None if jury else judges[0].judge_model)
    for judge in judges:
        digest = identity_digest(judge.identity)
        fitness = read_user_fitness(digest, notes) or UNCHECKED
        entries.append(JudgedBy(judge.judge_model, judge.base_url, digest, fitness, config_path))
        if not fitness.unfit:
            continue
        if judge.config.on_unfit != "stop":
            line = judge_line(fitness, f"`{command}`", judge.judge_model if jury else "")
            emit(on_event, "judge_fitness", stage="judge", message=line, **fitness.as_dict())
            continue
        stopped = (
            f"Der Judge „{cut(judge.judge_model)}“ ist laut seinem letzten Judge-Check ungeeignet "
            f"({unfit_reason(fitness)}). Abgebrochen vor dem ersten Aufruf (on_unfit: stop in "
            "der Judge-Konfiguration); nichts wurde geschrieben. Mit einem anderen Judge oder "
            "`on_unfit: warn` bewertet {how} trotzdem."
        )
        raise JudgeAborted(
            stopped.replace("{how}", f"`{started.command('judge')}`"),
            kind="unfit",
            facts={"unfit_message": stopped.replace("{how}", "„Judge starten“")},
        )
    run.warnings.extend(notes)
    return entries


def check_command(run: RunDir, config_path: str, model: str | None) -> str:
    """The command that checks the run's judge with the run's pack."""
    command = f"judge-check {run.path} --config {config_path or DEFAULT_CONFIG}"
    return started.command(command + (f" --model {model}" if model else ""))


def _newer(recorded: JudgeFitness, stored: JudgeFitness | None) -> JudgeFitness:
    if stored is None:
        return recorded
    if recorded.checked_at is None:
        return stored
    try:
        later = dt.datetime.fromisoformat(stored.checked_at or "") >= dt.datetime.fromisoformat(
            recorded.checked_at
        )
    except (TypeError, ValueError):
        return stored
    return stored if later else recorded


def card_fitness(run: RunDir, card: Scorecard) -> CardFitness | None:
    """The fitness of the judges of ``card``'s verdicts as ``run`` records them, each the
    newer of that and the user cache's verdict; None when nothing is judged."""
    if not card.judge_models:
        return None
    notes: list[str] = []
    entries = [
        JudgedBy(
            e.judge_model,
            e.base_url,
            e.identity,
            _newer(e.fitness, read_user_fitness(e.identity, notes) if e.identity else None),
            e.config,
        )
        for e in read_run_fitness(run, notes)
    ]
    # Read again for every page of the GUI: each note once.
    run.warnings.extend(note for note in dict.fromkeys(notes) if note not in run.warnings)
    config = next((e.config for e in entries if e.config), "")
    if card.jury is None:
        mine = [e for e in entries if e.judge_model in card.judge_models]
        model = mine[-1].judge_model if mine else None
        fitness = mine[-1].fitness if mine else UNCHECKED
        return CardFitness(fitness, check_command(run, config, model))
    found = {(e.judge_model, e.base_url): e.fitness for e in entries}
    members = [
        MemberFitness(m.model, m.base_url, found.get((m.model, m.base_url), UNCHECKED))
        for m in card.jury.members
    ]
    quorum = card.jury.quorum
    return CardFitness(
        jury_fitness(members, quorum), check_command(run, config, None), members, quorum
    )
