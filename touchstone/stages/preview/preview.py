"""What a ``run`` or ``judge`` would cost, before it starts (``--dry-run``, design.md §19).

A preview plans the calls as the stage would (the same plan, the same rendered prompts), and
reads the run dir without its lock: it writes nothing and calls nothing. Its figures:

- calls: the cells the stage would ask (the judge: identical judge prompts share one call,
  answers without a call need none, holistic calls per (model, variant) on top);
- input tokens: characters / 4 of the rendered prompts (no tokenizer is asked);
- output tokens: what earlier calls in this run dir used (reported usage, mean per call),
  else at most ``max_tokens`` per call, else unknown;
- cost: with a price (``--price-per-million`` / ``price_per_million``);
- time: measured latency of earlier answers in this run dir at the configured concurrency,
  else unknown (a judge's latency is not stored: ``judge-check`` shows it).

A jury's preview has these figures per member, by its own price and budget, and the jury's
total (``stages.jury_preview``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Unpack

from touchstone.judge.backend import judge_identity
from touchstone.judge.config import JudgeConfig
from touchstone.judge.plan import JudgePlan, Rejudge
from touchstone.jury.config import JuryConfig, load_config, no_model_override
from touchstone.jury.verdicts import run_cells
from touchstone.limits import MAX_CONCURRENCY, check_count
from touchstone.results import cell_key
from touchstone.stages.judge.judge import no_answers
from touchstone.stages.judge.rejudging import continued_rejudge
from touchstone.stages.preview.estimate import (
    CLI_WORDING,
    Preview,
    Wording,
    mean_of,
    output_source,
)
from touchstone.stages.preview.judge_calls import CACHE_NOTE, estimate_judge
from touchstone.stages.preview.jury_calls import JuryPreview, preview_jury
from touchstone.stages.run.answering import plan_cells
from touchstone.stages.run.manifest import pack_of_run
from touchstone.stages.run.run import RunOptions, plan_run
from touchstone.store import RESPONSES, RunDir
from touchstone.transport.budget import estimate_tokens

__all__ = ["JuryPreview", "Preview", "preview_judge", "preview_run"]


def preview_run(*, wording: Wording = CLI_WORDING, **options: Unpack[RunOptions]) -> Preview:
    """What ``execute_run`` with these options would ask, and what it would cost (its lines
    name the settings by ``wording``)."""
    plan = plan_run(**options)
    plan.resolve()
    max_tokens, concurrency = plan.max_tokens, plan.concurrency
    run, pack = plan.run, plan.pack
    responses = run.load_responses() if run.file(RESPONSES).is_file() else []
    done = set(map(cell_key, responses))
    todo = [
        cell
        for cell in plan_cells(pack, plan.asked.models, plan.variants, plan.repeats)
        if cell.key not in done
    ]
    answered = [r for r in responses if r.ok]
    output_of = {
        m: mean_of(r.completion_tokens for r in answered if r.model == m and r.completion_tokens)
        for m in plan.asked.models
    }
    latency_of = {
        m: mean_of(r.latency_s for r in answered if r.model == m and r.latency_s > 0)
        for m in plan.asked.models
    }
    output, unknown = 0.0, 0
    for cell in todo:
        per_call = output_of[cell.model] or max_tokens
        if per_call is None:
            unknown += 1
        else:
            output += per_call
    measured = any(output_of[c.model] for c in todo)
    capped = max_tokens is not None and any(not output_of[c.model] for c in todo)
    source = output_source(measured, capped, max_tokens, wording.max_tokens, "früherer Antworten")
    chars = sum(len(pack.variants[c.variant]) + len(c.prompt.text) for c in todo)
    seconds, time_source = None, "noch keine gemessene Latenz (keine Antwort im Run)"
    if todo and all(latency_of[c.model] for c in todo):
        seconds = sum(latency_of[c.model] or 0.0 for c in todo) / concurrency
        time_source = (
            f"gemessene Latenz früherer Antworten, {wording.concurrency.format(concurrency)}"
        )
    elif not todo:
        seconds, time_source = 0.0, "nichts zu tun"
    else:
        missing = sorted({c.model for c in todo if not latency_of[c.model]})
        others = sorted({r.model for r in answered} - set(missing))
        if others:
            # Another model's latency says nothing of this one's: name whose answers exist.
            time_source = (
                f"noch keine gemessene Latenz für {', '.join(missing)} (der Run hat Antworten "
                f"von {', '.join(others)})"
            )
    return Preview(
        calls=len(todo),
        input_tokens=estimate_tokens(chars),
        output_tokens=round(output),
        output_source=source,
        output_unknown=unknown,
        price=plan.price,
        price_hint=wording.price,
        seconds=seconds,
        time_source=time_source,
        budget=plan.budget,
        output_bound=capped and not measured,
    )


def preview_judge(
    run_path: str | Path,
    *,
    config: JudgeConfig | JuryConfig | str | Path,
    model: str | None = None,
    concurrency: int | None = None,
    rejudge: Rejudge = "none",
    use_cache: bool = True,
) -> Preview | JuryPreview:
    """What ``execute_judge`` with these arguments would ask, and what it would cost: one
    judge's figures, or each member's of a jury and the jury's total."""
    if concurrency is not None:  # bad input here as there; the judge's time is not known
        check_count("--concurrency", concurrency, 1, MAX_CONCURRENCY)
    run = RunDir.existing(run_path)
    pack = pack_of_run(run)
    if not run.file(RESPONSES).is_file():
        raise no_answers(run)
    judge_config = config if isinstance(config, JudgeConfig | JuryConfig) else load_config(config)
    if isinstance(judge_config, JuryConfig):
        no_model_override(model)
    responses = run.load_responses()
    if not responses:
        raise no_answers(run)
    judged = run_cells(run)
    prior = judged.cells
    reports = run.load_reports()
    if isinstance(judge_config, JuryConfig):
        return preview_jury(
            judge_config,
            pack=pack,
            responses=responses,
            lines=judged.member_lines,
            reports=reports,
            rejudge=rejudge,
            use_cache=use_cache,
        )
    plan = JudgePlan.of(prior, responses, pack, rejudge)
    if rejudge == "all":  # an interrupted re-judge by this judge goes on (``rejudging``)
        identity = judge_identity(judge_config.backend(model))
        continued = continued_rejudge(run, identity, plan, responses)
        plan = plan if continued is None else continued[0]
    preview = estimate_judge(
        judge_config,
        pack=pack,
        responses=responses,
        prior=prior,
        known=prior,
        reports=reports,
        rejudge=rejudge,
        model=model,
        plan=plan,
    )
    if use_cache and rejudge == "none" and preview.calls > preview.holistic:
        preview.notes.append(CACHE_NOTE)
    return preview
