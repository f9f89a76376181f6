"""The judge stage: judge a run directory's answers, with its bookkeeping and events.

Successful verdicts are appended to ``judgements.jsonl`` as they land, and the file is
rewritten clean at the end; judge_error verdicts never reach the disk. On ``JudgeAborted``
the verdicts so far are kept (rewritten clean) and the error re-raised for the CLI.
"""

from __future__ import annotations

import stat
from pathlib import Path
from typing import TYPE_CHECKING

from touchstone import started
from touchstone.errors import InputError
from touchstone.events import EventSink, emit
from touchstone.judge.config import JudgeConfig
from touchstone.judge.plan import Rejudge
from touchstone.jury.config import JuryConfig, load_config, no_model_override
from touchstone.limits import MAX_CONCURRENCY, check_count
from touchstone.pack import Pack
from touchstone.scorecard.build import Scorecard
from touchstone.stages.judge.outcome import JudgeOutcome, emit_done
from touchstone.stages.judged_by import Judging, card_fitness, check_fitness_first
from touchstone.stages.run.manifest import pack_of_run
from touchstone.stages.spot_check import judged_card
from touchstone.stages.view import write_scorecard
from touchstone.store import RESPONSES, RunDir
from touchstone.store.jsonl import kept_out_of_gc
from touchstone.store.judge_fitness import write_run_fitness
from touchstone.store.settled import SettledRun, clear_settled, read_settled
from touchstone.urls import without_credentials

if TYPE_CHECKING:
    from touchstone.judge.backend import JudgeBackend


def execute_judge(
    run_path: str | Path,
    *,
    config: JudgeConfig | JuryConfig | str | Path,
    model: str | None = None,
    backend: JudgeBackend | None = None,
    on_event: EventSink | None = None,
    concurrency: int | None = None,
    rejudge: Rejudge = "none",
    use_cache: bool = True,
) -> JudgeOutcome:
    """Judge every answer of the run that has no persisted verdict, then the holistic pass."""
    if concurrency is not None:
        check_count("--concurrency", concurrency, 1, MAX_CONCURRENCY)
    run = RunDir.existing(run_path)
    with run.locked():
        pack = pack_of_run(run)
        if not _may_hold_answers(run):
            # Before the judge config: without answers there is nothing to judge it by.
            raise no_answers(run)
        judge_config = (
            config if isinstance(config, JudgeConfig | JuryConfig) else load_config(config)
        )
        config_path = "" if isinstance(config, JudgeConfig | JuryConfig) else str(config)
        if isinstance(judge_config, JuryConfig):
            no_model_override(model)
            for member in judge_config.judges:
                member.endpoint.resolved_api_key()
            judges = judge_config.judges
            members = [Judging(j, j.identity(), j.model, member_url(j)) for j in judges]
            judged_by = check_fitness_first(
                run, members, config_path=config_path, jury=True, on_event=on_event
            )
            from touchstone.stages.jury.jury import judge_with_jury  # it builds on this module

            return judge_with_jury(
                run,
                pack,
                judge_config,
                on_event=on_event,
                concurrency=concurrency,
                rejudge=rejudge,
                use_cache=use_cache,
                judged_by=judged_by,
            )
        if backend is None:
            judge_config.endpoint.resolved_api_key()  # a config that cannot call is bad input
        judging = _judging(judge_config, model, backend)
        judged_by = check_fitness_first(
            run, [judging], config_path=config_path, jury=False, on_event=on_event
        )
        settled = read_settled(run, pack, Scorecard) if rejudge == "none" else None
        if settled is not None:
            # Named as the session would name it, without building a backend (and importing
            # the openai SDK) for no call.
            judge_model = backend.model if backend else model or judge_config.model
            write_run_fitness(run, judged_by)
            return _nothing_to_do(run, pack, settled, judge_config, judge_model, on_event)
        clear_settled(run)
        with kept_out_of_gc() as loaded:
            warnings_before = len(run.warnings)
            responses = run.load_responses()
            if not responses:  # only lines that did not parse
                raise no_answers(run)
            answers_warned = len(run.warnings) > warnings_before
            from touchstone.jury.verdicts import run_cells  # below the settled check: heavy

            judged = run_cells(run)
            loaded()
            from touchstone.stages.judge.loaded import judge_loaded  # calls: not when settled

            return judge_loaded(
                run,
                pack,
                responses,
                judged,
                config=judge_config,
                model=model,
                backend=backend,
                on_event=on_event,
                concurrency=concurrency,
                rejudge=rejudge,
                use_cache=use_cache,
                answers_warned=answers_warned,
                judged_by=judged_by,
            )


def _judging(config: JudgeConfig, model: str | None, backend: JudgeBackend | None) -> Judging:
    """The run's judge as its calls will name it; without a backend, from the config alone
    (a settled run builds none, and imports no SDK)."""
    if backend is None:
        return Judging(config, config.identity(model), model or config.model, member_url(config))
    from touchstone.judge.backend import judge_identity  # the transport: a backend is there

    return Judging(config, judge_identity(backend), backend.model, backend.base_url)


def member_url(config: JudgeConfig) -> str:
    return without_credentials(config.endpoint.base_url)


def _may_hold_answers(run: RunDir) -> bool:
    """Whether the answers file is there and not empty (what else it is, its reader says),
    without reading a big run's answers before the settled state may spare that."""
    try:
        info = run.file(RESPONSES).stat()
    except FileNotFoundError:
        return False
    return not (stat.S_ISREG(info.st_mode) and info.st_size == 0)


def no_answers(run: RunDir) -> InputError:
    """A judge run on a run dir without answers: bad input, nothing written (design.md §22)."""
    return InputError(
        f"Keine Antworten – zuerst `{started.command('run')}`: {run.path} enthält noch keine "
        f"Antworten ({RESPONSES}). `{started.command('run')} --pack … --model … --out "
        f"{run.path}` holt sie ein."
    )


def _nothing_to_do(
    run: RunDir,
    pack: Pack,
    settled: SettledRun[Scorecard],
    config: JudgeConfig,
    judge_model: str,
    on_event: EventSink | None,
) -> JudgeOutcome:
    """The outcome of a judge run on a settled run: what the last one found, no call."""
    # As every judge run does (it may have been removed); its inputs were just stamped.
    human = judged_card(run, pack)
    settled.card.judge_fitness = card_fitness(run, settled.card)  # a check since counts
    write_scorecard(run, settled.card, settled.inputs, human)
    health = config.health()
    emit(
        on_event,
        "start",
        stage="judge",
        run=run.name,
        total=settled.cells,
        todo=0,
        stale=0,
        judge_model=judge_model,
    )
    outcome = JudgeOutcome(
        run,
        pack,
        cells=settled.cells,
        card=settled.card,
        health=health,
        human=human,
        judge_model=judge_model,
    )
    emit_done(on_event, outcome)
    return outcome
