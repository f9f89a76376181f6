"""The judge-check stage: send the probe battery to a judge and assess it (design.md §14).

Every probe is judged through the same session, engine and guard as a run's answers, with no
verdict cache (a cached verdict says nothing about the judge now) and nothing written to any
run directory. The repeat probe is sent on its own after the rest: inside one batch, cells
with the same judge prompt would share a call. A guard stop ends the check early; the card
then says why, and the judge is unfit. The config's ``budget`` caps the probes' cost as it
caps a judge run's: once the next probe could break it, the check stops without a verdict
(``BudgetReached``, exit 1).
"""

from __future__ import annotations

from pathlib import Path

from touchstone.errors import BudgetReached, InputError, JudgeAborted
from touchstone.events import EventSink, emit, in_flight_events
from touchstone.judge.backend import JudgeBackend
from touchstone.judge.config import JudgeConfig, load_judge_config
from touchstone.judge.passes import judge_cells
from touchstone.judge.session import open_session
from touchstone.pack import Pack, load_pack
from touchstone.quality.drift import compare_probes
from touchstone.quality.fitness import FitnessCard, assess
from touchstone.quality.probes import probe_battery, probe_variant
from touchstone.results import Verdict
from touchstone.stages.judge.outcome import budget_field
from touchstone.stages.run.manifest import pack_of_run
from touchstone.store import RunDir
from touchstone.store.judge_fitness import identity_digest, now_iso, save_user_fitness
from touchstone.transport.engine import run_blocking


def check_pack(pack_path: Path | None, run_path: Path | None) -> Pack:
    """The pack to probe with: ``--pack`` or the pack of a run directory (exactly one)."""
    if (pack_path is None) == (run_path is None):
        raise InputError("judge-check braucht genau eines: --pack PAKET oder ein Run-Verzeichnis.")
    if pack_path is not None:
        return load_pack(pack_path)
    assert run_path is not None
    return pack_of_run(RunDir.existing(run_path))


def execute_judge_check(
    pack: Pack,
    *,
    config: JudgeConfig | str | Path,
    model: str | None = None,
    backend: JudgeBackend | None = None,
    on_event: EventSink | None = None,
) -> FitnessCard:
    """Probe the judge ``config`` (and ``model``) describes; the fitness card."""
    judge_config = config if isinstance(config, JudgeConfig) else load_judge_config(config)
    judge_backend = backend or judge_config.backend(model)
    probes = probe_battery(pack)
    variant = probe_variant(pack)
    cells = [probe.cell(index, variant) for index, probe in enumerate(probes)]
    by_repeat: dict[int, Verdict] = {}
    health = judge_config.health()
    budget = judge_config.cost_cap()
    judge_model = ""
    identity = ""

    def landed(verdict: Verdict) -> None:
        by_repeat[verdict.repeat] = verdict
        probe = probes[verdict.repeat - 1]
        emit(
            on_event,
            "progress",
            stage="judge-check",
            probe=probe.kind,
            label=probe.label(),
            prompt_id=probe.prompt.id,
            score=None if verdict.unscored else verdict.score,
            red_flag=verdict.red_flag,
            unscored=verdict.unscored,
        )

    def failed(verdict: Verdict) -> None:
        by_repeat[verdict.repeat] = verdict
        emit(
            on_event,
            "judge_error",
            stage="judge-check",
            prompt_id=verdict.prompt_id,
            error_kind=verdict.error_kind,
            rationale=verdict.rationale,
        )

    async def probe_all() -> None:
        nonlocal judge_model, identity
        async with open_session(
            judge_backend,
            concurrency=judge_config.concurrency,
            max_consecutive_failures=judge_config.max_consecutive_failures,
            max_failure_ratio=judge_config.max_failure_ratio,
            cache=None,
            health=health,
            on_in_flight=in_flight_events(on_event, "judge-check"),
            budget=budget,
        ) as session:
            judge_model = session.judge.model
            identity = session.judge.identity
            session.resumable = False
            emit(
                on_event,
                "start",
                stage="judge-check",
                total=len(cells),
                judge_model=judge_model,
                pack=pack.id,
            )
            batches = [
                [c for c, p in zip(cells, probes, strict=True) if p.kind != "repeat"],
                [c for c, p in zip(cells, probes, strict=True) if p.kind == "repeat"],
            ]
            for batch in batches:
                await judge_cells(session, batch, pack, on_verdict=landed, on_judge_error=failed)

    stop: tuple[str, str] | None = None
    stop_facts: dict[str, object] = {}
    try:
        run_blocking(probe_all())
    except JudgeAborted as exc:
        stop = (exc.kind, str(exc))
        stop_facts = dict(exc.facts)
    except BudgetReached as exc:
        over = _over_budget(
            exc,
            judge_model or (model or judge_config.model),
            len(probes),
            by_repeat,
            health.summary_de(resumable=False),
        )
        emit(
            on_event,
            "aborted",
            stage="judge-check",
            message=str(over),
            health=health.as_dict(resumable=False),
            **budget_field(budget),
        )
        raise over from exc
    verdicts = [_usable(by_repeat.get(index + 1)) for index in range(len(probes))]
    card = assess(
        probes,
        verdicts,
        health=health,
        scale=pack.scale,
        call_timeout_s=judge_config.call_timeout_s,
        judge_model=judge_model or (model or judge_config.model),
        pack_id=pack.id,
        stop=stop,
        thinking_off=judge_config.thinking == "off",
    )
    card.thinking = judge_config.thinking_text()
    if identity:
        # The probes against those of the last check of this judge (drift), then stored.
        drift = compare_probes(card.results, card.judge_model, identity, notes=card.notes)
        if drift is not None:
            card.notes.insert(0, drift.message_de())
        # The verdict for the next judge run with this judge (``stages/judge/fitness.py``).
        record = card.record(now_iso())
        if record is not None:
            save_user_fitness(identity_digest(identity), card.judge_model, record, card.notes)
    emit(
        on_event,
        "done",
        stage="judge-check",
        suitable=card.suitable,
        message=card.verdict_de(),
        card=card.as_dict(),
        health=health.as_dict(resumable=False),
        # What the check found: "suitable", "unfit" (it judged the judge), or that it could
        # not ("unassessable", "aborted": the stop's facts in ``stop``, as a judge run's).
        fitness=card.fitness,
        stop=stop_facts,
    )
    return card


def _usable(verdict: Verdict | None) -> Verdict | None:
    """A failed call's verdict counts as none: the probe got no judgement."""
    return None if verdict is None or verdict.judge_error else verdict


def _over_budget(
    exc: BudgetReached,
    judge_model: str,
    probes: int,
    landed: dict[int, Verdict],
    health_summary: str,
) -> BudgetReached:
    """The budget stop as the check tells it: how many probes were judged, and that a verdict
    needs them all."""
    judged = sum(1 for verdict in landed.values() if not verdict.judge_error)
    return exc.restated(
        f"{exc} Judge-Check für {judge_model} abgebrochen: {judged} von {probes} Proben "
        "bewertet, ohne alle Proben kein Urteil über den Judge. Mit einem `budget` in der "
        f"Judge-Konfiguration, das alle {probes} Aufrufe trägt, prüft derselbe Befehl den "
        "Judge von vorn.",
        facts={},
        health_summary=health_summary,
    )
