"""What one judge would ask in a judge run, and what it would cost (``--dry-run``, design.md §19).

``estimate_judge`` plans the calls as ``judge_run`` would (the same plan, the same rendered
prompts) from what the run dir holds: for a single judge its verdicts, for a jury member
its own lines (a later jury run asks only the members whose verdict is missing). Identical
judge prompts share one call; a prior verdict's call is not made again (its cache key names
the judge, so each member only finds its own); answers without a call need none; the
holistic calls per (model, variant) come on top for the judge that writes them.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from touchstone import german
from touchstone.judge.cells import CellTask, Judge
from touchstone.judge.config import JudgeConfig
from touchstone.judge.frames import Frames
from touchstone.judge.holistic import dimensions_user_prompt, input_hash
from touchstone.judge.plan import JudgePlan, Rejudge
from touchstone.judge.rubric import judge_system_prompt
from touchstone.pack import Pack
from touchstone.results import EvalResponse, ModelReport, Verdict, cell_key
from touchstone.stages.preview.estimate import Preview, mean_of, output_source
from touchstone.transport.budget import Price, estimate_tokens

# A rationale's length when the run has none yet to measure (the holistic prompt quotes them).
TYPICAL_RATIONALE_CHARS = 200

# The judge's time: not known before it runs.
NO_LATENCY = "die Latenz des Judges wird nicht gespeichert (judge-check misst sie)"

# The verdict cache is shared with other runs; what it holds is not looked up for a preview.
CACHE_NOTE = (
    "Treffer im Bewertungs-Cache anderer Runs sind nicht abgezogen: höchstens so viele Aufrufe."
)


def estimate_judge(
    config: JudgeConfig,
    *,
    pack: Pack,
    responses: Sequence[EvalResponse],
    prior: Sequence[Verdict],
    known: Sequence[Verdict],
    reports: Sequence[ModelReport],
    rejudge: Rejudge,
    model: str | None = None,
    holistic: bool = True,
    plan: JudgePlan | None = None,
) -> Preview:
    """The calls ``config``'s judge would make over ``responses`` given its ``prior``
    verdicts (``known``: the lines whose calls the run would not make again), with the
    holistic pass when ``holistic``; tokens, and cost by its own price. ``plan``: the
    cells to judge when the caller knows better (an interrupted ``--rejudge all`` goes on)."""
    judge = Judge.of(config.backend(model))
    if plan is None:
        plan = JudgePlan.of(prior, responses, pack, rejudge)
    todo = [r for r in responses if cell_key(r) not in plan.skip]
    system = judge_system_prompt(pack)
    calls, chars = _cell_calls(todo, pack, judge, system, known, rejudge)
    pairs, pair_chars = (
        _holistic_calls(pack, responses, prior, reports, todo, system, rejudge)
        if holistic
        else (0, 0)
    )
    measured = mean_of(v.judge_completion_tokens for v in prior if v.judge_completion_tokens)
    per_call = measured or config.max_tokens
    total = calls + pairs
    price = config.price_per_million
    return Preview(
        all_done="alle Zellen bewertet",
        calls=total,
        input_tokens=estimate_tokens(chars + pair_chars),
        output_tokens=round((per_call or 0) * total),
        output_source=output_source(
            bool(measured),
            not measured and config.max_tokens is not None,
            config.max_tokens,
            "max_tokens",
            "früherer Judge-Antworten",
        ),
        output_unknown=0 if per_call else total,
        price=None if price is None else Price(price.input, price.output),
        price_hint="price_per_million in der Judge-Konfiguration",
        seconds=0.0 if not total else None,
        time_source="nichts zu tun" if not total else NO_LATENCY,
        budget=config.budget,
        notes=[f"Davon Gesamtbewertungen: {german.count(pairs)}."] if pairs else [],
        output_bound=not measured and config.max_tokens is not None,
        holistic=pairs,
    )


def _cell_calls(
    todo: Sequence[EvalResponse],
    pack: Pack,
    judge: Judge,
    system: str,
    prior: Sequence[Verdict],
    rejudge: Rejudge,
) -> tuple[int, int]:
    """The per-answer judge calls ``judge_cells`` would make, and their prompts' characters."""
    known = {v.cache_key for v in prior if v.cache_key and v.scored} if rejudge == "none" else set()
    frames = Frames(pack, judge.identity, system)
    keys: set[str] = set()
    chars = 0
    for resp in todo:
        if not pack.has_prompt(resp.prompt_id):
            continue  # the judge run refuses such a run; the preview only counts
        task = CellTask.framed(resp, frames(resp.prompt_id, resp.variant), judge)
        if task.settled is not None or task.key in known or task.key in keys:
            continue
        keys.add(task.key)
        chars += len(task.system) + len(task.user)
    return len(keys), chars


def _holistic_calls(
    pack: Pack,
    responses: Sequence[EvalResponse],
    prior: Sequence[Verdict],
    reports: Sequence[ModelReport],
    todo: Sequence[EvalResponse],
    system: str,
    rejudge: Rejudge,
) -> tuple[int, int]:
    """The holistic calls the run would make, and their prompts' characters: a cell about
    to be judged stands in with a rationale of typical length."""
    if not pack.dimensions:
        return 0, 0
    lengths = [len(v.rationale) for v in prior if v.scored]
    typical = round(statistics.fmean(lengths)) if lengths else TYPICAL_RATIONALE_CHARS
    by_pair: dict[tuple[str, str], list[Verdict]] = {}
    for resp in responses:
        by_pair.setdefault((resp.model, resp.variant), [])
    for verdict in prior:
        by_pair.setdefault((verdict.model, verdict.variant), []).append(verdict)
    new = {(r.model, r.variant) for r in todo}
    for resp in todo:
        by_pair[(resp.model, resp.variant)].append(_stand_in(resp, pack, typical))
    previous = {(r.model, r.variant): r for r in reports}
    calls = chars = 0
    for (model, variant), verdicts in by_pair.items():
        if not any(v.scored for v in verdicts):
            continue
        user = dimensions_user_prompt(pack, model=model, variant=variant, verdicts=verdicts)
        old = previous.get((model, variant))
        unchanged = old is not None and old.scored and old.input_hash == input_hash(system, user)
        if unchanged and (model, variant) not in new and rejudge == "none":
            continue
        calls += 1
        chars += len(system) + len(user)
    return calls, chars


def _stand_in(resp: EvalResponse, pack: Pack, rationale_chars: int) -> Verdict:
    return Verdict(
        model=resp.model,
        variant=resp.variant,
        prompt_id=resp.prompt_id,
        repeat=resp.repeat,
        category=resp.category,
        score=pack.scale.max,
        red_flag=False,
        rationale="x" * rationale_chars,
        judge_model="",
    )
