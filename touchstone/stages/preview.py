"""What a ``run`` or ``judge`` would cost, before it starts (``--dry-run``, DESIGN §19).

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
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from touchstone import german
from touchstone.answers import DEFAULT_CALL_TIMEOUT_S
from touchstone.budget import Price, estimate_tokens, money
from touchstone.errors import InputError
from touchstone.judge import JudgeConfig, Rejudge
from touchstone.judge.cells import CellTask, Judge
from touchstone.judge.frames import Frames
from touchstone.judge.holistic import dimensions_user_prompt, input_hash
from touchstone.judge.plan import JudgePlan
from touchstone.judge.rubric import judge_system_prompt
from touchstone.jury.config import JuryConfig, load_config
from touchstone.limits import MAX_CONCURRENCY, check_count
from touchstone.pack import Pack
from touchstone.results import EvalResponse, ModelReport, Verdict, cell_key
from touchstone.stages.answering import plan_cells
from touchstone.stages.judge import no_answers
from touchstone.stages.manifest import pack_of_run
from touchstone.stages.run import plan_run
from touchstone.store import RESPONSES, RunDir
from touchstone.transport.bounds import DEFAULT_MAX_REPLY_MB

# A rationale's length when the run has none yet to measure (the holistic prompt quotes them).
TYPICAL_RATIONALE_CHARS = 200


@dataclass
class Preview:
    """The figures of one preview; ``lines()`` says them in German."""

    calls: int
    input_tokens: int
    # Output tokens of the calls whose output is known (measured or capped), and how.
    output_tokens: int
    output_source: str
    # Calls whose output no measurement and no max_tokens bounds.
    output_unknown: int
    price: Price | None
    price_hint: str
    seconds: float | None
    time_source: str
    budget: float | None = None
    notes: list[str] = field(default_factory=list)
    # Whether the output (and so the cost) is an upper bound: max_tokens, nothing measured.
    output_bound: bool = False
    # Why there is no call to make, said instead of figures of nothing.
    all_done: str = "alle Zellen beantwortet"

    @property
    def cost(self) -> float | None:
        if self.price is None:
            return None
        return self.price.cost(self.input_tokens, self.output_tokens)

    def lines(self) -> list[str]:
        """The preview, one short German line per figure (fits 80 columns with the wrap)."""
        if not self.calls:
            # "Ausgabe: ≈ 0 Tokens (weder … noch gemessene Antworten)" would read as missing
            # data, where there is simply nothing to do.
            return [
                "Probelauf: nichts wird aufgerufen, nichts geschrieben.",
                f"Aufrufe: 0 – nichts zu tun: {self.all_done}",
                *self.notes,
            ]
        lines = [
            "Probelauf: nichts wird aufgerufen, nichts geschrieben.",
            f"Aufrufe: {german.count(self.calls)}",
            f"Eingabe: ≈ {german.count(self.input_tokens)} Tokens (Zeichen/4 der Prompts; "
            "kein Tokenizer befragt)",
        ]
        if self.output_unknown == self.calls and self.calls:
            lines.append(f"Ausgabe: unbekannt ({self.output_source})")
        else:
            unknown = (
                f"; unbekannt für {german.counted(self.output_unknown, 'Aufruf', 'Aufrufe')}"
                if self.output_unknown
                else ""
            )
            about = "höchstens" if self.output_bound else "≈"
            lines.append(
                f"Ausgabe: {about} {german.count(self.output_tokens)} Tokens "
                f"({self.output_source}{unknown})"
            )
        cost = self.cost
        if self.price is None or cost is None:
            lines.append(f"Kosten: unbekannt – kein Preis ({self.price_hint})")
        else:
            least = "mindestens " if self.output_unknown else "≈ "
            if self.output_bound and not self.output_unknown:
                least = "höchstens etwa "
            lines.append(
                f"Kosten: {least}{money(cost, cost)} (Preis je Million Tokens: "
                f"{german.number(self.price.input)} Eingabe, "
                f"{german.number(self.price.output)} Ausgabe)"
            )
        if self.seconds is None:
            lines.append(f"Dauer: unbekannt – {self.time_source}")
        else:
            lines.append(f"Dauer: ≈ {duration(self.seconds)} ({self.time_source})")
        if self.budget is not None and cost is not None:
            limit = money(self.budget, self.budget)
            if cost <= self.budget and not self.output_unknown:
                lines.append(f"Budget: {limit} – reicht nach dieser Schätzung.")
            else:
                maybe = " womöglich" if cost <= self.budget else ""
                lines.append(
                    f"Budget: {limit} – reicht nach dieser Schätzung{maybe} nicht: der Lauf "
                    "hält an, wenn es erreicht ist (fortsetzbar)."
                )
        return lines + self.notes


def duration(seconds: float) -> str:
    """``45 s``, ``3 min``, ``1,5 h``: a duration as rough as an estimate is."""
    if seconds < 90:
        return f"{german.number(max(1.0, seconds) if seconds else 0, 0)} s"
    if seconds < 90 * 60:
        return f"{german.number(seconds / 60, 0)} min"
    return f"{german.number(seconds / 3600, 1)} h"


def _mean(values: Iterable[float]) -> float | None:
    known = list(values)
    return statistics.fmean(known) if known else None


def preview_run(
    *,
    pack_path: str | Path,
    models: Sequence[str],
    out: str | Path | None = None,
    variants: Sequence[str] = (),
    repeats: int | None = None,
    base_url: str | None = None,
    call_timeout_s: float = DEFAULT_CALL_TIMEOUT_S,
    max_tokens: int | None = None,
    concurrency: int = 1,
    max_reply_mb: float = DEFAULT_MAX_REPLY_MB,
    extend: bool = False,
    price: Price | None = None,
    budget: float | None = None,
) -> Preview:
    """What ``execute_run`` with these arguments would ask, and what it would cost."""
    plan = plan_run(
        pack_path=pack_path,
        models=models,
        out=out,
        variants=variants,
        repeats=repeats,
        base_url=base_url,
        call_timeout_s=call_timeout_s,
        max_tokens=max_tokens,
        concurrency=concurrency,
        max_reply_mb=max_reply_mb,
        price=price,
        budget=budget,
    )
    plan.resolve(extend=extend, pack_path=pack_path)
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
        m: _mean(r.completion_tokens for r in answered if r.model == m and r.completion_tokens)
        for m in plan.asked.models
    }
    latency_of = {
        m: _mean(r.latency_s for r in answered if r.model == m and r.latency_s > 0)
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
    source = _output_source(measured, capped, max_tokens, "--max-tokens", "früherer Antworten")
    chars = sum(len(pack.variants[c.variant]) + len(c.prompt.text) for c in todo)
    seconds, time_source = None, "noch keine gemessene Latenz (keine Antwort im Run)"
    if todo and all(latency_of[c.model] for c in todo):
        seconds = sum(latency_of[c.model] or 0.0 for c in todo) / concurrency
        time_source = f"gemessene Latenz früherer Antworten, --concurrency {concurrency}"
    elif not todo:
        seconds, time_source = 0.0, "nichts zu tun"
    else:
        missing = sorted({c.model for c in todo if not latency_of[c.model]})
        if len(missing) < len(plan.asked.models) and answered:
            time_source = f"noch keine gemessene Latenz für {', '.join(missing)}"
    return Preview(
        calls=len(todo),
        input_tokens=estimate_tokens(chars),
        output_tokens=round(output),
        output_source=source,
        output_unknown=unknown,
        price=price,
        price_hint="--price-per-million IN,OUT",
        seconds=seconds,
        time_source=time_source,
        budget=budget,
        output_bound=capped and not measured,
    )


def _output_source(
    measured: bool, capped: bool, max_tokens: int | None, option: str, earlier: str
) -> str:
    cap = f"{option} {german.count(max_tokens)} je Aufruf" if max_tokens else ""
    if measured and capped:
        return f"Mittel {earlier} in diesem Run, sonst höchstens {cap}"
    if measured:
        return f"Mittel {earlier} in diesem Run"
    if capped:
        return f"{cap}; noch nichts gemessen"
    return f"weder {option} noch gemessene Antworten"


def preview_judge(
    run_path: str | Path,
    *,
    config: JudgeConfig | str | Path,
    model: str | None = None,
    concurrency: int | None = None,
    rejudge: Rejudge = "none",
    use_cache: bool = True,
) -> Preview:
    """What ``execute_judge`` with these arguments would ask, and what it would cost."""
    if concurrency is not None:  # bad input here as there; the judge's time is not known
        check_count("--concurrency", concurrency, 1, MAX_CONCURRENCY)
    run = RunDir.existing(run_path)
    pack = pack_of_run(run)
    if not run.file(RESPONSES).is_file():
        raise no_answers(run)
    judge_config = config if isinstance(config, JudgeConfig) else load_config(config)
    if isinstance(judge_config, JuryConfig):
        raise InputError(
            f"--dry-run schätzt noch keine Jury: {config} nennt mehrere Judges (judges: […]). "
            "Schätzen Sie jedes Mitglied mit einer Konfiguration für einen Judge."
        )
    responses = run.load_responses()
    if not responses:
        raise no_answers(run)
    prior = run.load_verdicts()
    judge = Judge.of(judge_config.backend(model))
    plan = JudgePlan.of(prior, responses, pack, rejudge)
    todo = [r for r in responses if cell_key(r) not in plan.skip]
    system = judge_system_prompt(pack)
    calls, chars = _cell_calls(todo, pack, judge, system, prior, rejudge)
    pairs, pair_chars = _holistic_calls(
        pack, responses, prior, run.load_reports(), todo, system, rejudge
    )
    measured = _mean(v.judge_completion_tokens for v in prior if v.judge_completion_tokens)
    per_call = measured or judge_config.max_tokens
    total = calls + pairs
    notes = [f"Davon Gesamtbewertungen: {german.count(pairs)}."] if pairs else []
    if use_cache and rejudge == "none" and calls:
        notes.append(
            "Treffer im Verdict-Cache anderer Runs sind nicht abgezogen: höchstens so viele "
            "Aufrufe."
        )
    return Preview(
        all_done="alle Zellen bewertet",
        calls=total,
        input_tokens=estimate_tokens(chars + pair_chars),
        output_tokens=round((per_call or 0) * total),
        output_source=_output_source(
            bool(measured),
            not measured and judge_config.max_tokens is not None,
            judge_config.max_tokens,
            "max_tokens",
            "früherer Judge-Antworten",
        ),
        output_unknown=0 if per_call else total,
        price=None
        if judge_config.price_per_million is None
        else Price(judge_config.price_per_million.input, judge_config.price_per_million.output),
        price_hint="price_per_million in der Judge-Konfiguration",
        seconds=0.0 if not total else None,
        time_source="nichts zu tun"
        if not total
        else "die Latenz des Judges wird nicht gespeichert (judge-check misst sie)",
        budget=judge_config.budget,
        notes=notes,
        output_bound=not measured and judge_config.max_tokens is not None,
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
